"""The edge-cloud schedule: ``y_jdsw(t)``, ``z_jsp(t)`` and ``zeta_j`` as sparse rows.

A schedule lists what happens in each slot instead of storing the binary
arrays of (2)/(4), whose size ``J x D_j x S x W_s x T`` is mostly zeros:

* ``runs``: rows ``(j, d, t, s, w)`` -- in slot ``t`` (1-based) data chunk
  ``d`` of job ``j`` is trained on worker ``w`` of server ``s``
  (``y_jdsw(t) = 1``);
* ``ps``: rows ``(j, t, s, p)`` -- in slot ``t`` PS ``p`` of server ``s``
  serves job ``j`` (``z_jsp(t) = 1``);
* ``zeta``: the declared ``zeta_j`` of (2g)-(2h), which sets ``n_j`` by Eq. (1).

Any assignment, feasible or not, can be written this way; the checker
(:mod:`optsched.edgecloud.check`) decides which ones satisfy (2a)-(2k).
"""

from __future__ import annotations

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

from .instance import EdgeCloudInstance

RUN_COLUMNS = ("job", "chunk", "slot", "server", "worker")
PS_COLUMNS = ("job", "slot", "server", "ps")


@dataclass(frozen=True, eq=False)
class EdgeCloudSchedule(ScheduleJsonMixin):
    """A slot-by-slot schedule of every job (the decision variables of (2)).

    Attributes
    ----------
    runs
        (K, 5) int array of rows ``(job, chunk, slot, server, worker)``.
    ps
        (M, 4) int array of rows ``(job, slot, server, ps)``.
    zeta
        ``zeta_j`` per job (bool array (J,)).
    algorithm
        Name of the algorithm that produced it.
    meta
        Algorithm traces (not serialised; core never reads them).
    last_slot
        (Property) the last slot any row uses: the horizon ``T`` the
        schedule needs (:mod:`optsched.core.horizon`).
    """

    runs: np.ndarray
    ps: np.ndarray
    zeta: np.ndarray
    algorithm: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        inst: EdgeCloudInstance,
        runs: Iterable[Iterable[int]] | np.ndarray,
        ps: Iterable[Iterable[int]] | np.ndarray,
        zeta: Iterable[bool] | None = None,
        algorithm: str = "",
    ) -> EdgeCloudSchedule:
        """Make a schedule from row lists; ``zeta=None`` derives it by (2g)-(2h).

        The derived ``zeta_j`` is 1 iff job ``j`` has runs and every run and
        every PS row of ``j`` is on the cloud.
        """
        r = int_rows(runs, 5)
        p = int_rows(ps, 4)
        if zeta is None:
            J, c = inst.n_jobs, inst.cloud
            ri, pi = (
                r.astype(np.int64),
                p.astype(np.int64),
            )  # (fractional rows fail (2k))
            ok_r = (ri[:, 0] >= 0) & (ri[:, 0] < J)
            ok_p = (pi[:, 0] >= 0) & (pi[:, 0] < J)
            has, edge = np.zeros(J, dtype=bool), np.zeros(J, dtype=bool)
            has[ri[ok_r, 0]] = True
            edge[ri[ok_r & (ri[:, 3] != c), 0]] = True
            edge[pi[ok_p & (pi[:, 2] != c), 0]] = True
            z = has & ~edge
        else:
            z = np.asarray(list(zeta))
        return cls(runs=r, ps=p, zeta=z, algorithm=algorithm)

    @property
    def last_slot(self) -> int:
        """The last slot any run or PS row uses (0 for an empty schedule).

        The horizon ``T`` the schedule needs
        (:class:`~optsched.core.protocols.SlottedSchedule`,
        :func:`optsched.core.horizon.needed_slots`): computed from the rows,
        so it survives JSON.  For the algorithms' schedules it is their
        makespan, the last slot with a run.
        """
        return horizon.last_slot((self.runs, 2), (self.ps, 1))

    def completion(self, n_jobs: int) -> np.ndarray:
        """``c_j`` of (2j): last slot with a run of job ``j`` (0 if none)."""
        c = np.zeros(n_jobs, dtype=np.int64)
        if len(self.runs):
            np.maximum.at(c, self.runs[:, 0], self.runs[:, 2])
        return c

    #: Format tag of the schedule JSON (optional on reading: older files lack it).
    FORMAT = "optsched.edgecloud.schedule/1"

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``meta`` omitted: traces only).

        Rows are written as stored (no cast: a fractional slot stays
        fractional and :meth:`from_dict` refuses it); ``zeta`` is written
        as 0/1 integers.
        """
        z = np.asarray(self.zeta)
        return {
            "format": self.FORMAT,
            "algorithm": plain(self.algorithm),
            "runs": plain(np.asarray(self.runs)),
            "ps": plain(np.asarray(self.ps)),
            "zeta": plain(z.astype(np.int64) if z.dtype == bool else z),
        }

    @classmethod
    def from_dict(cls, data: Any) -> EdgeCloudSchedule:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``runs`` must be rows of 5 integers ``(job, chunk, slot, server,
        worker)``, ``ps`` rows of 4 ``(job, slot, server, ps)``, ``zeta``
        0/1 integers; index ranges are the checker's ((2k)).

        Raises
        ------
        InvalidScheduleError
            Naming the field: unknown or missing keys, a bool, string or
            float where an integer is expected, rows of the wrong length.
        """
        d = schedule_fields(data, ("runs", "ps", "zeta"), ("format", "algorithm"))
        cls.check_format(d)
        return cls(
            runs=schedule_ints(d["runs"], "runs", 2, shape=(None, len(RUN_COLUMNS))),
            ps=schedule_ints(d["ps"], "ps", 2, shape=(None, len(PS_COLUMNS))),
            zeta=schedule_ints(d["zeta"], "zeta", 1, lo=0, hi=1).astype(bool),
            algorithm=schedule_str(d.get("algorithm", ""), "algorithm"),
        )


def cloud_only(inst: EdgeCloudInstance) -> EdgeCloudSchedule:
    """The all-cloud schedule that witnesses the generator's calibration.

    Every chunk ``d`` of job ``j`` trains on its own cloud worker from slot
    ``r_j + Delta_jc`` for ``ceil(E_j B_j / n_j)`` slots with ``zeta_j = 1``
    (no contention, no preemption), and job ``j`` uses its own cloud PS in
    those slots.  Rows beyond ``T`` are kept, so the checker rejects the
    schedule (constraint (2k)) when the horizon is too short.
    """
    runs: list[tuple[int, int, int, int, int]] = []
    ps: list[tuple[int, int, int, int]] = []
    c = inst.cloud
    for j in range(inst.n_jobs):
        start = int(inst.arrival[j] + inst.delay[j, c])
        slots = range(start, start + int(inst.chunk_slots[j, 1]))
        ps.extend((j, t, c, j) for t in slots)
        for d in range(int(inst.D[j])):
            w = int(inst.D[:j].sum()) + d  # a distinct cloud worker per chunk
            runs.extend((j, d, t, c, w) for t in slots)
    return EdgeCloudSchedule.build(
        inst, runs, ps, zeta=np.ones(inst.n_jobs, dtype=bool), algorithm="cloud_only"
    )
