"""Training-iteration predictors (Luo et al., Sec. IV-C-3 and Fig. 9).

Every predictor is fitted on *history* -- a table with columns ``user``,
``group`` and ``iterations`` of earlier jobs (the paper: the first 80% of
the trace) -- and predicts ``n~_i`` for new jobs from their ``user`` and
``group``.  As the paper does, a job whose group never occurs in the
history is *unseen* and predicted 0 iterations (it completes at once in the
virtual instance and goes straight to the pending queue).

``rf``
    scikit-learn ``RandomForestRegressor`` with 100 trees, split criterion
    squared error (the paper's "mean squared error for tree splitting"),
    seeded, on two features: the hashed user and group ids (CRC-32, a
    stable hash; Python's ``hash`` of a string changes between runs).
``mean`` / ``median``
    the mean / median iterations of the group's earlier jobs (Fig. 9).
``perfect``
    the true iterations (A-SRPT-Perfect); needs them at prediction time.

Predictions are whole iterations (rounded, at least 0).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from optsched.core.errors import InvalidInstanceError

PREDICTORS = ("rf", "mean", "median", "perfect")


def stable_hash(value: object) -> int:
    """A run-independent hash of ``str(value)`` in ``[0, 2^32)``."""
    return zlib.crc32(str(value).encode())


def _features(users: Sequence[object], groups: Sequence[object]) -> np.ndarray:
    return np.array(
        [[stable_hash(u), stable_hash(g)] for u, g in zip(users, groups, strict=True)],
        dtype=float,
    )


def predict(
    history: pd.DataFrame,
    users: Sequence[object],
    groups: Sequence[object],
    *,
    method: str = "rf",
    truth: Sequence[float] | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Predicted iterations ``n~`` for jobs ``(users[j], groups[j])``.

    ``history`` has columns ``user``, ``group``, ``iterations``; ``truth``
    is needed for ``method="perfect"`` only.
    """
    if method not in PREDICTORS:
        raise InvalidInstanceError(
            f"predictor: unknown {method!r} (known: {', '.join(PREDICTORS)})"
        )
    n = len(groups)
    if method == "perfect":
        if truth is None or len(truth) != n:
            raise InvalidInstanceError("predictor: 'perfect' needs the true iterations")
        return np.asarray(truth, dtype=float)
    seen = set(history["group"]) if len(history) else set()
    mask = np.array([g in seen for g in groups], dtype=bool)
    out = np.zeros(n)
    if not mask.any():
        return out
    if method == "rf":
        from sklearn.ensemble import RandomForestRegressor

        rf = RandomForestRegressor(
            n_estimators=100, criterion="squared_error", random_state=seed, n_jobs=1
        )
        rf.fit(
            _features(history["user"].tolist(), history["group"].tolist()),
            history["iterations"].to_numpy(dtype=float),
        )
        idx: Any = np.flatnonzero(mask)  # numpy ints, which index the Sequences
        out[idx] = rf.predict(
            _features([users[j] for j in idx], [groups[j] for j in idx])
        )
    else:
        agg: Any = history.groupby("group")["iterations"].agg(method)  # keyed by group
        out[mask] = [float(agg[g]) for g, m in zip(groups, mask, strict=True) if m]
    return np.maximum(np.round(out), 0.0)
