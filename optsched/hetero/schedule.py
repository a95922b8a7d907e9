"""The placement type: worker selection ``sigma_{i,k}`` and workloads ``|pi_{i,k}|``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.base import ScheduleJsonMixin
from optsched.core.validate import (
    plain,
    schedule_fields,
    schedule_floats,
    schedule_ints,
    schedule_shape,
    schedule_str,
)

from .instance import HeteroInstance


def proportional_workload(
    dataset_size: np.ndarray, rho: np.ndarray, sigma: np.ndarray
) -> np.ndarray:
    """Proportional workload assignment (12).

    ``|pi_{i,k}| = |Pi_i| rho_{i,k} / sum_{k'} sigma_{i,k'} rho_{i,k'}`` on the
    selected workers, 0 elsewhere; it equalises ``|pi_{i,k}| / rho_{i,k}``
    over job ``i``'s workers (10) and gives the latency (11).
    """
    w = np.asarray(sigma, dtype=float) * np.asarray(rho, dtype=float)
    tot = w.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot > 0, w / tot, 0.0)
    return np.asarray(dataset_size, dtype=float)[:, None] * out


@dataclass(frozen=True, eq=False)
class HeteroPlacement(ScheduleJsonMixin):
    """A placement: the decision variables of P1 (8).

    Attributes
    ----------
    sigma
        ``sigma_{i,k}`` as an (S, K) 0/1 integer array.
    workload
        ``|pi_{i,k}|`` as an (S, K) float array (samples; fractional shares
        are allowed, as in the paper's numbers from (11)).
    algorithm
        Name of the algorithm that produced it.
    category
        The feasible solution category ``(K_1, ..., K_S)`` the placement was
        chosen from (HAS), or None.
    prices
        Final worker prices ``p_k`` of the matching market of that category
        (HAS, Alg. 2), or None.
    meta
        Extra information (e.g. HAS's per-category results); not serialised.
    """

    sigma: np.ndarray
    workload: np.ndarray
    algorithm: str = ""
    category: tuple[int, ...] | None = None
    prices: np.ndarray | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_assignment(
        cls,
        inst: HeteroInstance,
        assignment: Sequence[int] | np.ndarray,
        *,
        algorithm: str = "",
        rho: np.ndarray | None = None,
        category: tuple[int, ...] | None = None,
        prices: np.ndarray | None = None,
        meta: dict[str, Any] | None = None,
    ) -> HeteroPlacement:
        """Placement from ``assignment[k]`` = job of worker ``k``, split by (12).

        ``rho`` is the matrix the workloads are proportional to (default:
        ``inst.rho_hat``, what the algorithms know).
        """
        a = np.asarray(assignment, dtype=np.int64)
        S, K = inst.n_jobs, inst.n_workers
        if a.shape != (K,) or (a < 0).any() or (a >= S).any():
            raise ValueError(
                f"assignment: need {K} job indices in 0..{S - 1}, got {a.tolist()}"
            )
        sigma = np.zeros((S, K), dtype=np.int64)
        sigma[a, np.arange(K)] = 1
        r = inst.rho_hat if rho is None else np.asarray(rho, dtype=float)
        return cls(
            sigma=sigma,
            workload=proportional_workload(inst.dataset_size, r, sigma),
            algorithm=algorithm,
            category=None if category is None else tuple(int(x) for x in category),
            prices=None if prices is None else np.asarray(prices, dtype=float),
            meta={} if meta is None else meta,
        )

    @property
    def assignment(self) -> np.ndarray:
        """Job of every worker (K,), ``-1`` for a worker without a job."""
        s = np.asarray(self.sigma)
        return np.where(s.sum(axis=0) > 0, s.argmax(axis=0), -1)

    def workers_of(self, i: int) -> list[int]:
        """``kappa_i``: the workers selected for job ``i``."""
        return [int(k) for k in np.flatnonzero(np.asarray(self.sigma)[i])]

    #: Format tag of the schedule JSON (optional on reading: older files lack it).
    FORMAT = "optsched.hetero.schedule/1"

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``meta`` omitted: traces only).

        Values are written as stored (no cast: a fractional ``sigma`` stays
        fractional and :meth:`from_dict` refuses it); ``sigma_shape`` /
        ``workload_shape`` keep the sizes an empty list cannot show.
        """
        return {
            "format": self.FORMAT,
            "algorithm": plain(self.algorithm),
            "sigma": plain(np.asarray(self.sigma)),
            "workload": plain(np.asarray(self.workload)),
            "category": None if self.category is None else plain(list(self.category)),
            "prices": None if self.prices is None else plain(np.asarray(self.prices)),
            "sigma_shape": list(np.shape(self.sigma)),
            "workload_shape": list(np.shape(self.workload)),
        }

    @classmethod
    def from_dict(cls, data: Any) -> HeteroPlacement:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``sigma`` must hold integers (the checker then requires 0/1, (8b))
        and ``workload`` numbers, both in two-level nested lists (of
        ``sigma_shape`` / ``workload_shape`` when given; optional);
        ``category`` is null or a list of integers, ``prices`` null or a
        list of numbers.  Shapes against the instance are the checker's.

        Raises
        ------
        InvalidScheduleError
            Naming the field: unknown or missing keys, a bool, string or
            float where an integer is expected, a bool or string where a
            number is expected, ragged or wrongly nested lists.
        """
        d = schedule_fields(
            data,
            ("sigma", "workload"),
            (
                "format",
                "algorithm",
                "category",
                "prices",
                "sigma_shape",
                "workload_shape",
            ),
        )
        cls.check_format(d)
        sigma_shape = schedule_shape(d.get("sigma_shape"), "sigma_shape", 2)
        workload_shape = schedule_shape(d.get("workload_shape"), "workload_shape", 2)
        cat, prices = d.get("category"), d.get("prices")
        return cls(
            sigma=schedule_ints(d["sigma"], "sigma", 2, shape=sigma_shape),
            workload=schedule_floats(
                d["workload"], "workload", 2, shape=workload_shape
            ),
            algorithm=schedule_str(d.get("algorithm", ""), "algorithm"),
            category=None
            if cat is None
            else tuple(int(v) for v in schedule_ints(cat, "category", 1)),
            prices=None if prices is None else schedule_floats(prices, "prices", 1),
        )
