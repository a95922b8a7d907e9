"""Independent checker for A-SRPT schedules: constraints (1)-(3) and objective (8).

The checker never calls algorithm code (no Heavy-Edge, no queue): it
recomputes everything from the schedule and the instance alone.

* domain: one start and one placement per job (each job placed once and
  never moved: the schedule has no second placement to give), integer
  start slots (``t_i in [T]``, (8)), distinct servers in ``[M]``, integer
  ``x >= 0``;
* (1) ``t_i >= r_i``;
* (2) ``sum_m x_{i,s}^m = k_{i,s}`` for every stage;
* ``alpha_i`` recomputed from the placement with Eqs. (4)-(7)
  (:func:`optsched.asrpt.timing.stage_times`, the equations themselves);
  completion ``C_i = t_i + n_i alpha_i / (1000 slot)``;
* (3) on every server, at every instant, the GPUs of the jobs running there
  add up to at most ``g``.  A job holds its GPUs on the half-open interval
  ``[t_i, C_i)`` (reading: a job of exactly one slot would otherwise hold
  two; docs/errata.md), so a job may start in the slot another ends;
* objective (8): ``sum_i C_i`` in slots; flow time ``sum_i (C_i - r_i)``
  and makespan ``max_i C_i`` are reported beside it (Fig. 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from optsched.core.base import EvaluationBase
from optsched.core.errors import InfeasibleScheduleError, InvalidInstanceError

from .instance import AsrptInstance
from .schedule import AsrptSchedule
from .timing import Cluster, stage_times


@dataclass(frozen=True, eq=False)
class AsrptEvaluation(EvaluationBase):
    """What the checker recomputed (times in slots, ``alpha`` in ms)."""

    SUMMARY = ("makespan",)
    PER_JOB = ("start", "completion", "alpha")

    flow_time: float
    makespan: float
    start: np.ndarray
    completion: np.ndarray
    alpha: np.ndarray


def _fail(eq: str, msg: str) -> None:
    raise InfeasibleScheduleError(f"{eq}: {msg}", constraint=eq)


def check(inst: AsrptInstance, sched: AsrptSchedule) -> AsrptEvaluation:
    """Validate ``sched`` against (1)-(3) and recompute objective (8).

    Raises
    ------
    InfeasibleScheduleError
        Naming the violated equation and the job / server / time.
    """
    n, c = inst.n_jobs, inst.cluster
    for name in ("start", "servers", "x"):
        if len(getattr(sched, name)) != n:
            _fail("domain", f"{name} has {len(getattr(sched, name))} entries, "
                  f"the instance {n} jobs")  # fmt: skip
    start = np.zeros(n, dtype=np.int64)
    alpha = np.zeros(n)
    rows: list[tuple[int, int, int]] = []  # (server, time, delta) of (3)
    for i, job in enumerate(inst.jobs):
        t = sched.start[i]
        if (
            isinstance(t, bool)
            or not isinstance(t, int | np.integer | float)
            or (not np.isfinite(t) or t != int(t))
        ):
            _fail("(8)", f"job {i}: start {t!r} is not a whole slot")
        start[i] = int(t)
        if start[i] < job.arrival:
            _fail("(1)", f"job {i}: starts at {start[i]} before its arrival "
                  f"r_i = {job.arrival}")  # fmt: skip
        servers = [int(m) for m in sched.servers[i]]
        if len(set(servers)) != len(servers) or any(
            not 0 <= m < c.n_servers for m in servers
        ):
            _fail("domain", f"job {i}: servers {servers} must be distinct in "
                  f"[0, {c.n_servers})")  # fmt: skip
        x = np.asarray(sched.x[i])
        if x.shape != (len(job.stages), len(servers)):
            _fail("domain", f"job {i}: x has shape {x.shape}, expected "
                  f"({len(job.stages)}, {len(servers)})")  # fmt: skip
        if x.size and (not np.array_equal(x, np.round(x)) or (x < 0).any()):
            _fail("domain", f"job {i}: x must hold integers >= 0")
        x = x.astype(np.int64)
        for s, st in enumerate(job.stages):
            if x[s].sum() != st.k:
                _fail("(2)", f"job {i}, stage {s}: {int(x[s].sum())} replicas "
                      f"placed, k = {st.k}")  # fmt: skip
        used = x.sum(axis=0)
        if (used > c.gpus).any():
            m: Any = servers[int(np.argmax(used > c.gpus))]  # an array below
            _fail("(3)", f"job {i} alone puts {int(used.max())} GPUs on server "
                  f"{m} (g = {c.gpus})")  # fmt: skip
        sub = Cluster(len(servers), c.gpus, c.b_inter, c.b_intra)
        try:
            alpha[i] = float(stage_times(job.stages, x, sub).max())
        except InvalidInstanceError as exc:  # pragma: no cover - caught above
            _fail("(2)", f"job {i}: {exc}")
        rows.extend((m, i, int(u)) for m, u in zip(servers, used, strict=True) if u)
    completion = start + inst.slots(inst.iterations, alpha)
    if rows:
        arr = np.array(rows, dtype=np.int64)
        m, j, u = arr[:, 0], arr[:, 1], arr[:, 2]
        srv = np.concatenate([m, m])
        time = np.concatenate([start[j].astype(float), completion[j]])
        delta = np.concatenate([u, -u])
        order = np.lexsort((delta, time, srv))  # ends before starts at a tie
        srv, time, delta = srv[order], time[order], delta[order]
        jobs = np.concatenate([j, j])[order]
        load = np.cumsum(delta)
        first = np.r_[0, np.flatnonzero(np.diff(srv)) + 1]
        base = np.repeat(load[first] - delta[first], np.diff(np.r_[first, len(srv)]))
        load = load - base
        bad = np.flatnonzero(load > c.gpus)
        if len(bad):
            k = bad[0]
            _fail("(3)", f"server {int(srv[k])}: {int(load[k])} GPUs in use at "
                  f"time {time[k]:.6g} (job {int(jobs[k])} starts), g = {c.gpus}")  # fmt: skip
    return AsrptEvaluation(
        objective=float(completion.sum()),
        flow_time=float((completion - inst.arrival).sum()),
        makespan=float(completion.max()) if n else 0.0,
        start=start,
        completion=completion,
        alpha=alpha,
    )
