"""Pieces shared by the hetero experiment modules (settings, checked rows, CIs)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

import optsched
from optsched.hetero.instance import GPU_TYPES, MODELS
from optsched.hetero.online import fairness_degree

#: Table III order; setting ``h115`` takes the first ``S`` jobs.
MODEL_ORDER = tuple(MODELS)
#: The paper's default heterogeneity degree (35).
H_TARGET = 1.15
#: Instance settings of Sec. VI as read in docs/hetero.md ("Generator").
SETTINGS = ("h115", "mix111")
#: Legend names of the schemes (a module adds its own variants).
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "has": "HAS",
    "jps": "JPS N=60",
    "exhaustive": "exhaustive",
    "gavel": "Gavel",
    "optimum": "optimum (MILP)",
}


def paper():
    """The hetero :class:`~optsched.core.registry.Paper` record."""
    return optsched.get_paper("hetero")


def make_instance(setting: str, seed: int, n_jobs: int, n_workers: int):
    """The instance of a row: ``h115`` (first S jobs of Table III, H = 1.15) or ``mix111``.

    ``h115``: ``generate(seed, S, K, models=first S, heterogeneity=1.15)``
    (8 T4, 5 P100, 2 V100 at K = 15); the seed only permutes the job order.
    ``mix111``: the generator's 1:1:1 GPU mix with S random Table III jobs.
    """
    p = paper()
    if setting == "h115":
        return p.generate(
            seed=seed,
            n_jobs=n_jobs,
            n_workers=n_workers,
            models=list(MODEL_ORDER[:n_jobs]),
            heterogeneity=H_TARGET,
        )
    if setting == "mix111":
        return p.generate(seed=seed, n_jobs=n_jobs, n_workers=n_workers)
    raise KeyError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")


def category(ev: Any) -> str:
    """A placement's category ``n_1-n_2-...`` (workers per job) from its evaluation."""
    return "-".join(str(int(x)) for x in ev.n_workers)


def gpu_counts(inst: Any) -> str:
    """``T4/P100/V100`` counts of an instance, e.g. ``"8/5/2"``."""
    return "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES)


def checked(inst: Any, placement: Any) -> dict[str, Any]:
    """Checker columns of one placement: ``avg_jct`` (8), ``fairness`` (33), ``category``."""
    ev = paper().check(inst, placement)
    return {
        "avg_jct": float(ev.objective),
        "fairness": fairness_degree(inst, ev.jct),
        "category": category(ev),
    }


def mean_ci90(values: Any) -> pd.Series:
    """Mean, 90% t-interval of the mean, 5-95% percentiles, min and max (NaNs dropped)."""
    v = pd.Series(values, dtype=float).dropna().to_numpy()
    n = v.size
    mean = float(v.mean()) if n else math.nan
    half = (
        float(stats.t.ppf(0.95, n - 1) * v.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    )
    pct = (lambda q: float(np.percentile(v, q))) if n else (lambda q: math.nan)
    return pd.Series(
        {
            "n": n,
            "mean": mean,
            "ci90_lo": mean - half,
            "ci90_hi": mean + half,
            "p5": pct(5),
            "p95": pct(95),
            "min": float(v.min()) if n else math.nan,
            "max": float(v.max()) if n else math.nan,
        }
    )
