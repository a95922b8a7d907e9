"""Cluster state shared by A-SRPT and its baselines (event-driven, whole slots).

Decisions are taken at whole slots.  Between two decision slots nothing
changes but the clock, so the simulators jump from one *event* slot to the
next: an arrival ``r_i``, a release ``ceil(C_j)`` (a job's GPUs are free
from the first whole slot at or after its completion, the checker's
half-open reading of (3)), or a slot an algorithm asks for.  Stepping one
slot at a time (Alg. 1's ``t <- t + 1``) gives the same schedule.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from .heavy_edge import heavy_edge
from .instance import AsrptInstance
from .schedule import AsrptSchedule
from .timing import Cluster, alpha


def select(free: np.ndarray, need: int, *, most: bool) -> list[tuple[int, int]]:
    """``need`` GPUs from the servers with the most (or least) available GPUs.

    Servers are taken in decreasing (``most``) or increasing order of free
    GPUs (ties: server index), all their free GPUs each, the last one only
    what is still needed; servers with no free GPU are skipped.
    """
    cand = np.flatnonzero(free > 0)
    key = -free[cand] if most else free[cand]
    out, left = [], need
    for m in cand[np.lexsort((cand, key))]:
        take = min(int(free[m]), left)
        out.append((int(m), take))
        left -= take
        if left == 0:
            break
    assert left == 0, "select: not enough free GPUs"
    return out


class ClusterState:
    """Free GPUs per server, running jobs by release slot, the schedule so far."""

    def __init__(self, inst: AsrptInstance, seed: int = 0) -> None:
        self.inst = inst
        self.seed = seed
        c = inst.cluster
        self.free = np.full(c.n_servers, c.gpus, dtype=np.int64)
        self.n_free = c.n_servers * c.gpus
        self.releases: list[tuple[int, int]] = []  # (slot, job)
        n = inst.n_jobs
        self.start = [0] * n
        self.servers: list[tuple[int, ...]] = [()] * n
        self.x: list[np.ndarray] = [np.zeros((0, 0), dtype=np.int64)] * n
        self.alpha = np.zeros(n)
        self._subs: dict[int, Cluster] = {}

    def plan(self, i: int, *, most: bool) -> tuple[list[int], np.ndarray, float]:
        """Heavy-Edge placement of job ``i`` on the servers :func:`select` picks."""
        job = self.inst.jobs[i]
        picked = select(self.free, job.gpus, most=most)
        servers = [m for m, _ in picked]
        x = heavy_edge(job.stages, [u for _, u in picked], seed=self.seed + i)
        sub = self._subs.get(len(servers))
        if sub is None:
            c = self.inst.cluster
            sub = self._subs[len(servers)] = Cluster(
                len(servers), c.gpus, c.b_inter, c.b_intra
            )
        return servers, x, alpha(job.stages, x, sub)

    def begin(
        self, i: int, t: int, servers: list[int], x: np.ndarray, a: float
    ) -> None:
        """Start job ``i`` at slot ``t`` with placement ``(servers, x)``."""
        used = x.sum(axis=0)
        self.free[servers] -= used
        self.n_free -= int(used.sum())
        assert (self.free >= 0).all()
        self.start[i], self.servers[i], self.x[i], self.alpha[i] = (
            t,
            tuple(servers),
            x,
            a,
        )
        end = t + float(self.inst.slots(self.inst.jobs[i].iterations, a))
        heapq.heappush(self.releases, (math.ceil(end), i))

    def release(self, t: int) -> None:
        """Free the GPUs of every job whose release slot is at most ``t``."""
        while self.releases and self.releases[0][0] <= t:
            _, j = heapq.heappop(self.releases)
            used = self.x[j].sum(axis=0)
            self.free[list(self.servers[j])] += used
            self.n_free += int(used.sum())

    def next_release(self) -> float:
        return self.releases[0][0] if self.releases else math.inf

    def schedule(self, **meta: object) -> AsrptSchedule:
        return AsrptSchedule(
            tuple(self.start), tuple(self.servers), tuple(self.x), dict(meta)
        )


def srpt(release: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Completion times of preemptive SRPT on one machine (optimal for ``sum C``).

    Jobs are released at ``release`` (real) with processing ``size``; at
    every instant the released job with the least remaining processing runs
    (ties: lower index).  A job of size 0 completes at its release.
    """
    n = len(release)
    order = np.lexsort((np.arange(n), release))
    done = np.zeros(n)
    heap: list[tuple[float, int]] = []
    now, k = 0.0, 0
    while k < n or heap:
        if not heap:
            now = max(now, float(release[order[k]]))
        while k < n and release[order[k]] <= now:
            j = int(order[k])
            heapq.heappush(heap, (float(size[j]), j))
            k += 1
        rem, j = heapq.heappop(heap)
        nxt = float(release[order[k]]) if k < n else math.inf
        if now + rem <= nxt:
            now += rem
            done[j] = now
        else:
            heapq.heappush(heap, (rem - (nxt - now), j))
            now = nxt
    return done
