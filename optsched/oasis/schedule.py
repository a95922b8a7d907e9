"""The OASiS schedule: admissions ``x_i`` and deployments ``y_ih(t)``, ``z_ik(t)``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.base import ScheduleJsonMixin
from optsched.core.validate import (
    plain,
    schedule_fields,
    schedule_ints,
    schedule_shape,
    schedule_str,
)

from .instance import OasisInstance


@dataclass(frozen=True, eq=False)
class OasisSchedule(ScheduleJsonMixin):
    """A schedule for every job of an instance (the decision variables of (1)).

    Attributes
    ----------
    admitted
        ``x_i`` as a bool array (I,).
    workers
        ``y_ih(t)`` as an int array (I, H, T); slot ``t`` is index ``t - 1``.
    ps
        ``z_ik(t)`` as an int array (I, K, T).
    algorithm
        Name of the algorithm that produced it.
    payoff
        ``mu_i`` of Alg. 1 (OASiS only; NaN for rejected-before-pricing).
    worker_prices, ps_prices
        Final prices ``p_h^r(t)`` (H, R, T) and ``q_k^r(t)`` (K, R, T)
        (OASiS only).
    meta
        Free-form extra information (e.g. price parameters U, L, alpha).
    """

    admitted: np.ndarray
    workers: np.ndarray
    ps: np.ndarray
    algorithm: str = ""
    payoff: np.ndarray | None = None
    worker_prices: np.ndarray | None = None
    ps_prices: np.ndarray | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, inst: OasisInstance, algorithm: str = "") -> OasisSchedule:
        """All jobs rejected, nothing deployed (mutable arrays to fill in)."""
        I, H, K, T = inst.n_jobs, inst.n_worker_servers, inst.n_ps_servers, inst.n_slots
        return cls(
            admitted=np.zeros(I, dtype=bool),
            workers=np.zeros((I, H, T), dtype=np.int64),
            ps=np.zeros((I, K, T), dtype=np.int64),
            algorithm=algorithm,
        )

    def completion(self) -> np.ndarray:
        """Last slot (1-based) with workers per job, 0 if it never has workers (8)."""
        active = self.workers.sum(axis=1) > 0  # (I, T)
        T = active.shape[1]
        last = T - np.argmax(active[:, ::-1], axis=1)
        return np.where(active.any(axis=1), last, 0)

    #: Format tag of the schedule JSON (optional on reading: older files lack it).
    FORMAT = "optsched.oasis.schedule/1"

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation of the decision variables and the name.

        Values are written as stored (no cast: a fractional ``y`` stays
        fractional and :meth:`from_dict` refuses it); ``admitted`` is
        written as 0/1 integers.  ``workers_shape`` / ``ps_shape`` keep the
        sizes an empty list cannot show (no jobs).  ``payoff``, the prices
        and ``meta`` are algorithm traces and are not written.
        """
        x = np.asarray(self.admitted)
        return {
            "format": self.FORMAT,
            "algorithm": plain(self.algorithm),
            "admitted": plain(x.astype(np.int64) if x.dtype == bool else x),
            "workers": plain(np.asarray(self.workers)),
            "ps": plain(np.asarray(self.ps)),
            "workers_shape": list(np.shape(self.workers)),
            "ps_shape": list(np.shape(self.ps)),
        }

    @classmethod
    def from_dict(cls, data: Any) -> OasisSchedule:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``admitted`` must hold 0/1 integers, ``workers`` and ``ps`` integers
        in nested lists of three levels (of ``workers_shape`` / ``ps_shape``
        when given; optional, for files written before them).

        Raises
        ------
        InvalidScheduleError
            Naming the field: unknown or missing keys, a bool, string or
            float where an integer is expected, ragged or wrongly nested
            lists.
        """
        d = schedule_fields(
            data,
            ("admitted", "workers", "ps"),
            ("format", "algorithm", "workers_shape", "ps_shape"),
        )
        cls.check_format(d)
        return cls(
            admitted=schedule_ints(d["admitted"], "admitted", 1, lo=0, hi=1).astype(
                bool
            ),
            workers=schedule_ints(
                d["workers"],
                "workers",
                3,
                shape=schedule_shape(d.get("workers_shape"), "workers_shape", 3),
            ),
            ps=schedule_ints(
                d["ps"], "ps", 3, shape=schedule_shape(d.get("ps_shape"), "ps_shape", 3)
            ),
            algorithm=schedule_str(d.get("algorithm", ""), "algorithm"),
        )
