"""The OASiS schedule type: admissions ``x_i`` and deployments ``y_ih(t)``, ``z_ik(t)``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.errors import InvalidInstanceError

from .instance import OasisInstance


@dataclass(frozen=True, eq=False)
class OasisSchedule:
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

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (prices omitted)."""
        return {
            "algorithm": self.algorithm,
            "admitted": self.admitted.astype(int).tolist(),
            "workers": self.workers.tolist(),
            "ps": self.ps.tolist(),
        }

    def to_json(self) -> str:
        """Serialise to JSON."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> OasisSchedule:
        """Parse :meth:`to_json` output."""
        try:
            d = json.loads(text)
            return cls(
                admitted=np.asarray(d["admitted"], dtype=bool),
                workers=np.asarray(d["workers"], dtype=np.int64),
                ps=np.asarray(d["ps"], dtype=np.int64),
                algorithm=str(d.get("algorithm", "")),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidInstanceError(f"schedule: malformed ({exc!r})") from exc
