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

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core import horizon
from optsched.core.base import ScheduleJsonMixin
from optsched.core.validate import (
    int_rows,
    plain,
    schedule_fields,
    schedule_ints,
    schedule_str,
)

from .instance import PS_SHARE, OkitaInstance, _Fitter

WORKER_COLUMNS = ("job", "slot", "site", "count")
PS_COLUMNS = ("job", "slot", "site")
DATA_COLUMNS = ("job", "slot", "src", "dst", "chunks")
GAP_COLUMNS = ("job", "slot")


@dataclass(frozen=True, eq=False)
class OkitaSchedule(ScheduleJsonMixin):
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
        Algorithm traces (not serialised; core never reads them).
    ps_gaps
        Declared violation of strict (2c): the ``(job, slot)`` pairs of
        window slots in which a waiting or delayed job has no PS (Alg. 1
        line 19, reading 8 of :mod:`optsched.okita.online`).  Empty: the
        schedule claims strict (2c); non-empty: it is meant to be checked
        with ``ps_every_slot=False`` and the ratio harness keeps its row as
        ``alg_infeasible`` (:func:`optsched.core.ratio.declared_violation`).
        Serialised (key omitted when empty).
    last_slot
        (Property) the last slot any row uses: the horizon ``T`` the
        schedule needs (:mod:`optsched.core.horizon`).
    """

    workers: np.ndarray
    ps: np.ndarray
    data: np.ndarray
    algorithm: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    ps_gaps: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        """Store ``ps_gaps`` as a tuple of ``(job, slot)`` integer pairs.

        Raises
        ------
        ValueError
            When an entry of ``ps_gaps`` is not a pair of integers.
        """
        gaps = []
        for k, row in enumerate(self.ps_gaps):
            try:
                job, slot = (operator.index(v) for v in row)
            except (TypeError, ValueError):
                raise ValueError(
                    f"ps_gaps[{k}]: must be a (job, slot) pair of integers, got {row!r}"
                ) from None
            gaps.append((job, slot))
        object.__setattr__(self, "ps_gaps", tuple(gaps))

    @classmethod
    def build(
        cls,
        workers: Iterable[Iterable[int]] | np.ndarray = (),
        ps: Iterable[Iterable[int]] | np.ndarray = (),
        data: Iterable[Iterable[int]] | np.ndarray = (),
        algorithm: str = "",
        ps_gaps: Iterable[tuple[int, int]] = (),
    ) -> OkitaSchedule:
        """Make a schedule from row lists (or arrays) of the three kinds.

        ``ps_gaps``: the ``(job, slot)`` window slots without a PS that the
        algorithm declares (see the class attributes).
        """
        return cls(
            workers=int_rows(workers, 4),
            ps=int_rows(ps, 3),
            data=int_rows(data, 5),
            algorithm=algorithm,
            ps_gaps=tuple(ps_gaps),
        )

    @property
    def last_slot(self) -> int:
        """The last slot any worker, PS or data row uses (0 if none).

        The horizon ``T`` the schedule needs
        (:class:`~optsched.core.protocols.SlottedSchedule`,
        :func:`optsched.core.horizon.needed_slots`): computed from the rows,
        so it survives JSON.  For the algorithms' schedules it is their
        makespan ``max_i t_i``.
        """
        return horizon.last_slot((self.workers, 1), (self.ps, 1), (self.data, 1))

    def completion(self, n_jobs: int) -> np.ndarray:
        """``t_i`` of (2e): last slot with ``y_i^r(t) > 0`` on some site (0 if none)."""
        c = np.zeros(n_jobs, dtype=np.int64)
        w = self.workers[self.workers[:, 3] > 0]
        if len(w):
            np.maximum.at(c, w[:, 0], w[:, 1])
        return c

    #: Format tag of the schedule JSON (optional on reading: older files lack it).
    FORMAT = "optsched.okita.schedule/1"

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``meta`` omitted: traces only).

        Rows are written as stored (no cast: a fractional count stays
        fractional and :meth:`from_dict` refuses it).  ``ps_gaps`` is
        written as rows ``[job, slot]`` only when there are gaps (absent
        reads as no gaps).
        """
        d = {
            "format": self.FORMAT,
            "algorithm": plain(self.algorithm),
            "workers": plain(np.asarray(self.workers)),
            "ps": plain(np.asarray(self.ps)),
            "data": plain(np.asarray(self.data)),
        }
        if self.ps_gaps:
            d["ps_gaps"] = plain(self.ps_gaps)
        return d

    @classmethod
    def from_dict(cls, data: Any) -> OkitaSchedule:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``workers`` must be rows of 4 integers ``(job, slot, site, count)``,
        ``ps`` rows of 3 ``(job, slot, site)``, ``data`` rows of 5 ``(job,
        slot, src, dst, chunks)``; ranges are the checker's ((2f), (2g)).
        The optional ``ps_gaps`` must be rows of 2 integers ``(job, slot)``,
        each >= 0 (absent: no gaps, as in files written before the field).

        Raises
        ------
        InvalidScheduleError
            Naming the field: unknown or missing keys, a bool, string or
            float where an integer is expected, rows of the wrong length.
        """
        d = schedule_fields(
            data, ("workers", "ps", "data"), ("format", "algorithm", "ps_gaps")
        )
        cls.check_format(d)
        gaps = schedule_ints(
            d.get("ps_gaps", []), "ps_gaps", 2, shape=(None, len(GAP_COLUMNS)), lo=0
        )
        return cls(
            workers=schedule_ints(
                d["workers"], "workers", 2, shape=(None, len(WORKER_COLUMNS))
            ),
            ps=schedule_ints(d["ps"], "ps", 2, shape=(None, len(PS_COLUMNS))),
            data=schedule_ints(d["data"], "data", 2, shape=(None, len(DATA_COLUMNS))),
            algorithm=schedule_str(d.get("algorithm", ""), "algorithm"),
            ps_gaps=tuple((int(i), int(t)) for i, t in gaps),
        )


# --------------------------------------------------------------------------
# The calibration witness
# --------------------------------------------------------------------------


def local_first(inst: OkitaInstance, ps_share: float = PS_SHARE) -> OkitaSchedule:
    """Every job, in arrival order, trains as much as fits as early as it can.

    Job ``i`` is placed into the capacity the earlier jobs left, from slot
    ``a_i`` on, one slot at a time (rule in
    :meth:`optsched.okita.instance._Fitter.place`): one PS
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
