"""Pieces shared by the hetero experiment modules (settings, checked rows, CIs, claim tests)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

import optsched
from optsched.core.experiment import Cells, near
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


# ------------------------------------------------------------- claim tests
#: Absolute floor of the tolerance on a percentage of JCT (0.5 percentage
#: points), so that a paper value of 0 or 0.54% is not a zero-width test.
PCT_FLOOR = 0.005
#: The hetero rule for a percentage of JCT the paper prints (a loss against
#: exhaustive search, a gain, a relative change), in the words of a claim's
#: ``tolerance``.
PCT_TOLERANCE = "+-max(10% of the paper's percentage, 0.5 pp)"
#: The rule for a ratio to exhaustive search (``1 + loss``): the house 10% is
#: applied to the loss, not to the ratio (10% of a ratio near 1 would accept
#: a 10-pp loss where the paper states none).
LOSS_TOLERANCE = "loss (ratio - 1) +-max(10% of the paper's loss, 0.5 pp)"


def pct_near(target: float) -> Callable[[Any], bool]:
    """``holds`` test of a percentage of JCT: :data:`PCT_TOLERANCE` around ``target``."""
    return near(target, rel=0.10, abs_tol=PCT_FLOOR)


def ratio_near(target: float) -> Callable[[Any], bool]:
    """``holds`` test of a ratio to the optimum: :data:`LOSS_TOLERANCE` around ``target``."""
    return near(target, rel=0.0, abs_tol=max(0.10 * abs(target - 1.0), PCT_FLOOR))


def widen(
    lo: float, hi: float, rel: float = 0.10, abs_tol: float = 0.0
) -> tuple[float, float]:
    """The paper's range ``[lo, hi]`` with each end moved out by ``max(rel |end|, abs_tol)``."""
    return (lo - max(rel * abs(lo), abs_tol), hi + max(rel * abs(hi), abs_tol))


def cells_hold(cells: Cells, tests: Sequence[Callable[[Any], bool]]) -> bool:
    """Whether every value of ``cells`` that ran passes its test (and one ran)."""
    pairs = [(v, t) for v, t in zip(cells.values, tests, strict=True) if v is not None]
    return bool(pairs) and all(t(v) for v, t in pairs)


@dataclass(frozen=True)
class Ends:
    """A claim value: the first and the last of a sweep, printed ``a -> b`` with ``fmt``."""

    first: float
    last: float
    fmt: str = "{:+.2%}"

    def __str__(self) -> str:
        return f"{self.fmt.format(self.first)} -> {self.fmt.format(self.last)}"

    def both(self, first: Callable[[Any], bool], last: Callable[[Any], bool]) -> bool:
        """Whether ``first`` holds for the first value and ``last`` for the last."""
        return first(self.first) and last(self.last)
