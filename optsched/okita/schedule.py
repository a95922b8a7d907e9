"""The Okita schedule: ``y_i^r(t)``, ``s_i^r(t)`` and ``g_i^{rr'}(t)`` as sparse rows.

A schedule lists what happens in each slot instead of storing the arrays of
(2), whose ``g`` part alone has ``I x T x R x R`` entries (mostly zero):

* ``workers``: rows ``(job, slot, site, count)`` -- ``y_i^r(t) = count``
  workers of job ``i`` on site ``r`` in slot ``t`` (1-based);
* ``ps``: rows ``(job, slot, site)`` -- ``s_i^r(t) = 1``, the PS of job ``i``
  is on site ``r`` in slot ``t``;
* ``data``: rows ``(job, slot, src, dst, chunks)`` -- ``g_i^{rr'}(t) =
  chunks`` of job ``i``'s data from site ``src`` are moved to ``dst`` at the
  start of slot ``t`` and trained there (all ``E_i`` epochs) in that slot;
  ``src == dst`` is local training (``g_i^{rr}(t)``, no transfer).

Absent rows are zeros.  Any assignment, feasible or not, can be written
this way; the checker (:mod:`optsched.okita.check`) decides which satisfy
(2a)-(2g).

:func:`local_first` is the simple feasible schedule that witnesses the
generator's calibration.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.validate import (
    int_rows,
    plain,
    schedule_fields,
    schedule_ints,
    schedule_json,
    schedule_str,
)

from .instance import EPS, PS_SHARE, Job, OkitaInstance

WORKER_COLUMNS = ("job", "slot", "site", "count")
PS_COLUMNS = ("job", "slot", "site")
DATA_COLUMNS = ("job", "slot", "src", "dst", "chunks")


@dataclass(frozen=True, eq=False)
class OkitaSchedule:
    """A slot-by-slot schedule of every job (the decision variables of (2)).

    Attributes
    ----------
    workers
        (N, 4) int array of rows ``(job, slot, site, count)``: ``y_i^r(t)``.
    ps
        (M, 3) int array of rows ``(job, slot, site)``: ``s_i^r(t) = 1``.
    data
        (L, 5) int array of rows ``(job, slot, src, dst, chunks)``:
        ``g_i^{rr'}(t)``.
    algorithm
        Name of the algorithm that produced it.
    meta
        Free-form extra information (not serialised).
    """

    workers: np.ndarray
    ps: np.ndarray
    data: np.ndarray
    algorithm: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        workers: Iterable[Iterable[int]] | np.ndarray = (),
        ps: Iterable[Iterable[int]] | np.ndarray = (),
        data: Iterable[Iterable[int]] | np.ndarray = (),
        algorithm: str = "",
    ) -> OkitaSchedule:
        """Make a schedule from row lists (or arrays) of the three kinds."""
        return cls(
            workers=int_rows(workers, 4),
            ps=int_rows(ps, 3),
            data=int_rows(data, 5),
            algorithm=algorithm,
        )

    def completion(self, n_jobs: int) -> np.ndarray:
        """``t_i`` of (2e): last slot with ``y_i^r(t) > 0`` on some site (0 if none)."""
        c = np.zeros(n_jobs, dtype=np.int64)
        w = self.workers[self.workers[:, 3] > 0]
        if len(w):
            np.maximum.at(c, w[:, 0], w[:, 1])
        return c

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``meta`` omitted: traces only).

        Rows are written as stored (no cast: a fractional count stays
        fractional and :meth:`from_dict` refuses it).
        """
        return {
            "algorithm": plain(self.algorithm),
            "workers": plain(np.asarray(self.workers)),
            "ps": plain(np.asarray(self.ps)),
            "data": plain(np.asarray(self.data)),
        }

    def to_json(self) -> str:
        """Serialise to JSON (:meth:`to_dict`)."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> OkitaSchedule:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``workers`` must be rows of 4 integers ``(job, slot, site, count)``,
        ``ps`` rows of 3 ``(job, slot, site)``, ``data`` rows of 5 ``(job,
        slot, src, dst, chunks)``; ranges are the checker's ((2f), (2g)).

        Raises
        ------
        InvalidScheduleError
            Naming the field: unknown or missing keys, a bool, string or
            float where an integer is expected, rows of the wrong length.
        """
        d = schedule_fields(data, ("workers", "ps", "data"), ("algorithm",))
        return cls(
            workers=schedule_ints(
                d["workers"], "workers", 2, shape=(None, len(WORKER_COLUMNS))
            ),
            ps=schedule_ints(d["ps"], "ps", 2, shape=(None, len(PS_COLUMNS))),
            data=schedule_ints(d["data"], "data", 2, shape=(None, len(DATA_COLUMNS))),
            algorithm=schedule_str(d.get("algorithm", ""), "algorithm"),
        )

    @classmethod
    def from_json(cls, text: str) -> OkitaSchedule:
        """Parse :meth:`to_json` output (:meth:`from_dict`; same errors)."""
        return cls.from_dict(schedule_json(text))


# --------------------------------------------------------------------------
# The calibration witness
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Placement:
    """One job's witness rows and the capacity they use (not yet committed)."""

    job: int
    completion: int
    ps_every_slot: bool
    workers: list[tuple[int, int, int, int]]
    ps: list[tuple[int, int, int]]
    data: list[tuple[int, int, int, int, int]]
    usage: dict[int, np.ndarray]  # slot -> (2, R, K): workers, PS


class _Fitter:
    """Residual capacity per slot and the per-job rule of :func:`local_first`.

    Slots beyond the horizon start empty, so a job that fits on the empty
    sites always finishes (possibly after ``T``; the checker then rejects).
    """

    def __init__(
        self,
        capacity: np.ndarray,
        q: np.ndarray,
        n_slots: int,
        ps_share: float,
        ps_uses: np.ndarray,
    ) -> None:
        self.capacity = np.asarray(capacity, dtype=float)
        # workers leave ps_share free of each resource a PS may use (not GPU)
        keep = np.where(np.asarray(ps_uses, dtype=bool), ps_share, 0.0)
        self.worker_cap = (1.0 - keep) * self.capacity
        self.q = np.asarray(q, dtype=float)
        self.order = np.argsort(self.q, axis=1, kind="stable")  # cheapest first
        self.used: dict[int, np.ndarray] = {}  # slot -> (2, R, K): workers, PSs
        self.n_slots = n_slots

    def _residual(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Free capacity for anything and free capacity for workers in slot ``t``."""
        u = self.used.get(t)
        if u is None:
            return self.capacity, self.worker_cap
        res = self.capacity - u[0] - u[1]
        return res, np.minimum(self.worker_cap - u[0], res)

    @staticmethod
    def _workers(res: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Workers of demand ``m`` that fit on each site of residual ``res``."""
        pos = m > 0
        fit = np.floor((res[:, pos] + EPS) / m[pos]).min(axis=1)
        return np.maximum(fit, 0).astype(np.int64)

    def _ps_choice(
        self,
        res: tuple[np.ndarray, np.ndarray],
        m: np.ndarray,
        n: np.ndarray,
        per: float,
        left: int,
    ) -> tuple[int, np.ndarray] | None:
        """PS site and workers per site that train the most chunks this slot.

        Among PS sites that fit, the one that trains ``min(left, chunk
        capacity)`` chunks at most; ties go to the PS site hosting the most
        workers, then to the lowest index.  None if no PS fits.
        """
        total, for_workers = res
        fits = (total + EPS >= n).all(axis=1)
        if not fits.any():
            return None
        free = self._workers(for_workers, m)
        with_ps = self._workers(np.maximum(np.minimum(for_workers, total - n), 0.0), m)
        chunks = np.floor(per * free + EPS)
        chunks_ps = np.floor(per * with_ps + EPS)
        total = np.minimum(chunks.sum() - chunks + chunks_ps, left)
        total = np.where(fits, total, -1.0)
        best = np.flatnonzero(total == total.max())
        p = int(best[np.argmax(with_ps[best])])
        cap = free.copy()
        cap[p] = with_ps[p]
        return p, cap

    def place(self, i: int, job: Job, limit: int | None = None) -> _Placement | None:
        """Place job ``i`` slot by slot from ``a_i`` (None: fits nowhere).

        In each slot: the PS site of :meth:`_ps_choice`; each site trains
        its own remaining chunks with as many workers as fit; chunks left on
        sites without room go to the sites with spare workers, cheapest
        ``q^{rr'}`` first (ties: lowest index); each site then uses the
        fewest workers that train what it received, ``ceil(E_i g / rho_i)``.
        Stops when all chunks are trained or after slot ``limit``.
        """
        m = np.asarray(job.worker_demand, dtype=float)
        n = np.asarray(job.ps_demand, dtype=float)
        E, rho = job.epochs, float(job.rho)
        per = rho / E  # chunks one worker trains per slot
        empty = self._ps_choice((self.capacity, self.worker_cap), m, n, per, 1)
        if empty is None or np.floor(per * empty[1] + EPS).sum() < 1:
            return None  # cannot train a single chunk even on empty sites
        left = np.asarray(job.data, dtype=np.int64).copy()
        workers, ps, data = [], [], []
        usage: dict[int, np.ndarray] = {}
        t, every = job.arrival, True
        while left.sum() > 0 and (limit is None or t <= limit):
            res = self._residual(t)
            choice = self._ps_choice(res, m, n, per, int(left.sum()))
            if choice is None:
                every = False
                t += 1
                continue
            p, cap = choice
            room = np.floor(per * cap + EPS).astype(np.int64)  # chunks per site
            local = np.minimum(left, room)
            load = local.copy()
            g = {(r, r): int(local[r]) for r in np.flatnonzero(local)}
            rest = left - local
            for r in np.flatnonzero(rest):
                spare = (room - load)[self.order[r]]
                before = np.concatenate(([0], np.cumsum(spare)[:-1]))
                take = np.clip(rest[r] - before, 0, spare)
                for dst, x in zip(self.order[r][take > 0], take[take > 0], strict=True):
                    g[(int(r), int(dst))] = int(x)
                    load[dst] += x
                rest[r] -= take.sum()
            y = np.ceil(E * load / rho - EPS).astype(np.int64)
            use = np.zeros((2, *self.capacity.shape))
            use[0] = np.outer(y, m)
            use[1, p] = n
            usage[t] = use
            ps.append((i, t, p))
            workers.extend((i, t, int(r), int(y[r])) for r in np.flatnonzero(y))
            data.extend((i, t, r, d, x) for (r, d), x in sorted(g.items()))
            left = rest
            t += 1
        done = t - 1 if left.sum() == 0 else t
        return _Placement(i, int(done), every, workers, ps, data, usage)

    def commit(self, placed: _Placement) -> None:
        """Subtract the placement's usage from the residual capacity."""
        for t, use in placed.usage.items():
            self.used[t] = self.used.get(t, 0.0) + use


def local_first(inst: OkitaInstance, ps_share: float = PS_SHARE) -> OkitaSchedule:
    """Every job, in arrival order, trains as much as fits as early as it can.

    Job ``i`` is placed into the capacity the earlier jobs left, from slot
    ``a_i`` on, one slot at a time (rule in :meth:`_Fitter.place`): one PS
    per slot on the site that lets the job train the most chunks, its own
    chunks trained locally where workers fit, the rest sent to the cheapest
    sites with spare workers.  The PS is kept in every slot until the job
    completes (when one fits), so the schedule satisfies (2c) in both
    readings.  Not an algorithm of the paper: it is the witness of the
    generator's calibration (every generated instance has a feasible
    schedule).  Rows beyond ``T`` are kept, so the checker rejects the
    schedule when the horizon is too short; a job that cannot train one
    chunk even on empty sites gets no rows.

    Workers of all jobs together use at most ``1 - ps_share`` of every
    resource that some PS demands (not GPUs in the paper's setting) of
    every site in a slot; the rest is left for PSs, so a job
    arriving while earlier jobs fill the sites still finds room for its PS
    (strict (2c)).  ``ps_share`` must equal the generator's (default
    :data:`~optsched.okita.instance.PS_SHARE`) for this to be the schedule
    the generator calibrated with.
    """
    ps_uses = inst.n.max(axis=0) > 0 if inst.n_jobs else np.ones(inst.n_resources)
    fitter = _Fitter(inst.capacity, inst.q, inst.n_slots, ps_share, ps_uses)
    workers, ps, data = [], [], []
    for i, job in enumerate(inst.jobs):
        placed = fitter.place(i, job)
        if placed is None:
            continue
        fitter.commit(placed)
        workers += placed.workers
        ps += placed.ps
        data += placed.data
    return OkitaSchedule.build(workers, ps, data, algorithm="local_first")
