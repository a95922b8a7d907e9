"""Experiment logic of Figs. 12-15: sensitivity of HAS/JPS (specs in ``paper_figures/hetero``).

One task function, :func:`sensitivity`, serves the four figures.  A task
names its instance -- ``seed``, ``n_jobs``, ``n_workers`` and either
``h_target`` (``generate(heterogeneity=...)``) or ``setting="swap"`` with
``n_v100``, optionally ``epsilon`` -- and the ``part`` (or tuple of parts)
of rows to produce:

* ``"jps"``: JPS with ``n_samples``, ``alpha``, ``beta`` for sampler seeds
  ``0..rounds-1`` (Figs. 12-14);
* ``"category"``: the placement of every category of ``Psi`` in Alg. 1's
  order after job prioritising (Fig. 12's "276th category");
* ``"optimum"``: the certified optimum of the true instance (Figs. 12-15);
* ``"schemes"``: each of ``schemes`` once, JPS with the instance seed as
  sampler seed (Figs. 14-15).

Every placement is re-evaluated by the paper's checker
(:func:`.common.checked`).  Every row carries the instance columns, the
optimum of the true instance (:func:`optsched.core.experiment.optimum`:
``opt_*`` and ``normalized`` = ``avg_jct / opt_objective`` when proven) and
the paper's values that apply to it; a spec's ``columns`` keeps its own (the
old scripts' columns, in their order).  Row labels are in ``scheme`` and, as
Figs. 12-13 call it, ``kind``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from optsched.core.experiment import optimum, optimum_columns
from optsched.core.plots import Line
from optsched.core.ratio import best_start
from optsched.core.registry import OfflineResult
from optsched.hetero.instance import HeteroInstance
from optsched.hetero.online import JpsParams, rear_start
from optsched.hetero.schedule import HeteroPlacement

from . import common
from .common import H_TARGET, MODEL_ORDER, Ends, checked, gpu_counts, paper

#: JPS defaults of the paper (Sec. VI-A): ``alpha = 0.7``, ``beta = 1``.
JPS_ALPHA, JPS_BETA = 0.7, 1.0
ALPHAS = tuple(round(0.1 * j, 1) for j in range(10))
BETAS = tuple(round(0.1 * j, 1) for j in range(11))
H_TARGETS = (1.10, 1.15, 1.21, 1.26)
EPSILONS = tuple(round(0.05 * j, 2) for j in range(7))
#: Fig. 14's schemes besides JPS and Fig. 15's schemes (the order of the rows).
FIG14_SCHEMES = ("optimus", "optimus_lb", "has", "exhaustive")
FIG15_SCHEMES = ("optimus", "optimus_lb", "has", "jps")
LABELS = {
    s: common.LABELS[s]
    for s in ("optimus", "optimus_lb", "has", "jps", "exhaustive", "optimum")
}
#: Parts of a task (module docstring).
PARTS = ("optimum", "jps", "schemes", "category")
#: Columns of the paper's values (:func:`paper_columns`).
PAPER_COLUMNS = (
    "paper_avg_jct",
    "paper_fairness",
    "paper_normalized",
    "paper_increase",
)
#: Integer columns that are empty on some rows (nullable ``Int64`` in the CSV).
INT_COLUMNS = (
    "n_samples",
    "jps_seed",
    "n_psi",
    "rear_start_id",
    "n_rear",
    "category_id",
    "n_v100",
    "n_cycled",
)

# ---------------------------------------------------------- paper's numbers
#: "the lowest JCT is yielded in the 276th category" (Fig. 12).
PAPER_BEST_ID = 276
#: "(1 - alpha) C(K-1, S-1) decreases from 364 to 36" (Fig. 12).
PAPER_REAR = "364 -> 36"
#: Fig. 13, text for ``N = 60``: ``(N, beta) -> (average JCT s, fairness)``.
PAPER_BETA = {(60, 0.0): (4301.35, 0.947), (60, 1.0): (3944.17, 0.821)}
#: Fig. 14: ratios to exhaustive search stated in the text, by (scheme, H).
PAPER_NORMALIZED = {
    ("optimus", 1.10): 1.4209,
    ("optimus", 1.26): 1.1807,
    ("has", 1.10): 1.0,
    ("has", 1.15): 1.0,
    ("has", 1.21): 1.0,
    ("has", 1.26): 1.0128,
    **{("exhaustive", h): 1.0 for h in H_TARGETS},
    **{("optimum", h): 1.0 for h in H_TARGETS},
}
PAPER_JPS_LOSS = (0.0049, 0.019)
PAPER_OPTIMUS_LOSS = (0.4209, 0.1807)
PAPER_JPS_VS_OPTIMUS = (-0.414, -0.1587)
#: Fig. 15: JCT increase from ``eps = 0`` to ``eps = 30%``.
PAPER_EPSILON = 0.3
PAPER_INCREASE = {"has": 0.0375, "jps": 0.043}

FIG12_COLUMNS = [
    "kind", "seed", "n_jobs", "n_workers", "models", "jobs",
    "heterogeneity_target", "heterogeneity", "gpu_counts", "n_samples", "alpha",
    "beta", "jps_seed", "n_psi", "rear_start_id", "n_rear", "category_id",
    "category", "avg_jct", "fairness", "opt_objective", "opt_status",
    "normalized", "best_category_id", "paper_best_category_id", "alg_runtime_s",
]  # fmt: skip
FIG13_COLUMNS = [
    "kind", "seed", "n_jobs", "n_workers", "models", "jobs",
    "heterogeneity_target", "heterogeneity", "gpu_counts", "n_samples", "alpha",
    "beta", "jps_seed", "category_id", "category", "avg_jct", "fairness",
    "opt_objective", "opt_status", "normalized", "paper_avg_jct",
    "paper_fairness", "alg_runtime_s",
]  # fmt: skip
FIG14_COLUMNS = [
    "setting", "seed", "n_jobs", "n_workers", "models", "jobs",
    "heterogeneity_target", "n_v100", "heterogeneity", "gpu_counts", "scheme",
    "n_samples", "jps_seed", "category", "avg_jct", "fairness", "opt_objective",
    "opt_bound", "bound_kind", "opt_status", "normalized", "paper_normalized",
    "alg_runtime_s",
]  # fmt: skip
FIG15_COLUMNS = [
    "epsilon", "seed", "n_jobs", "n_workers", "models", "jobs",
    "heterogeneity_target", "heterogeneity", "gpu_counts", "scheme", "n_samples",
    "jps_seed", "category", "avg_jct", "predicted_jct", "fairness", "n_cycled",
    "opt_objective", "opt_status", "normalized", "paper_increase",
    "alg_runtime_s",
]  # fmt: skip


# ---------------------------------------------------------------- instances
def instance(task: Mapping[str, Any]) -> HeteroInstance:
    """The instance of a task: the first ``n_jobs`` jobs of Table III on ``n_workers`` GPUs.

    ``setting`` ``"target"`` (default): GPU counts for the heterogeneity
    degree ``h_target`` (35); ``"swap"``: P100 fixed at ``K // 3`` and
    ``n_v100`` V100 instead of T4.  ``epsilon`` (default 0) is the
    prediction error bound; the seed permutes the jobs (and draws the noise).
    """
    S, K = task["n_jobs"], task["n_workers"]
    kw: dict[str, Any] = {"models": list(MODEL_ORDER[:S])}
    setting = task.get("setting", "target")
    if setting == "target":
        kw["heterogeneity"] = task["h_target"]
    elif setting == "swap":
        n_p100, v = K // 3, task["n_v100"]
        kw["gpu_mix"] = (K - n_p100 - v, n_p100, v)
    else:
        raise KeyError(f"unknown setting {setting!r} (known: target, swap)")
    return paper().generate(
        seed=task["seed"], n_jobs=S, n_workers=K, epsilon=task.get("epsilon", 0.0), **kw
    )


def _jobs(inst: HeteroInstance) -> str:
    """The instance's job order, e.g. ``"AlexNet;VGG19;ResNet101;ResNet18"``."""
    return ";".join(j.name for j in inst.jobs)


def true_instance(task: Mapping[str, Any]) -> HeteroInstance:
    """The task's instance without prediction noise, from the first seed with its job order.

    The seed only permutes the jobs, so seeds with the same order give the
    same problem; taking the first one lets :func:`optimum` solve each
    distinct problem once per process.
    """
    inst = instance({**task, "epsilon": 0.0})
    for s in range(task["seed"]):
        other = instance({**task, "epsilon": 0.0, "seed": s})
        if _jobs(other) == _jobs(inst):
            return other
    return inst


def instance_columns(inst: HeteroInstance, task: Mapping[str, Any]) -> dict[str, Any]:
    """Columns that regenerate a row's instance, its achieved ``H`` and GPU counts."""
    return {
        "setting": task.get("setting"),
        "epsilon": task.get("epsilon"),
        "seed": task["seed"],
        "n_jobs": inst.n_jobs,
        "n_workers": inst.n_workers,
        "models": ";".join(MODEL_ORDER[: inst.n_jobs]),
        "jobs": _jobs(inst),
        "heterogeneity_target": task.get("h_target", math.nan),
        "n_v100": task.get("n_v100"),
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": gpu_counts(inst),
        "alpha": task.get("alpha"),
        "beta": task.get("beta"),
    }


# --------------------------------------------------------------------- rows
def _meta_columns(meta: Mapping[str, Any]) -> dict[str, Any]:
    """JPS's category and rear part, the predicted JCT and the cycled categories."""
    n_psi, start = meta.get("n_psi"), meta.get("rear_start")
    return {
        "category_id": meta.get("category_id"),
        "n_psi": n_psi,
        "rear_start_id": None if start is None else start + 1,
        "n_rear": None if start is None else n_psi - start,
        "predicted_jct": meta.get("avg_jct_predicted", math.nan),
        "n_cycled": len(meta["cycled"]) if "cycled" in meta else None,
    }


def run_scheme(
    inst: HeteroInstance,
    scheme: str,
    *,
    seed: int | None = None,
    params: JpsParams | None = None,
) -> dict[str, Any]:
    """One timed ``p.run(scheme)`` and its checked columns (``jps_seed``: ``seed``)."""
    t0 = time.perf_counter()
    pl = paper().run(scheme, inst, seed=0 if seed is None else seed, params=params)
    runtime = time.perf_counter() - t0
    return {
        "scheme": scheme,
        "n_samples": None if params is None else params.n_samples,
        "jps_seed": seed,
        **_meta_columns(pl.meta),
        **checked(inst, pl),
        "alg_runtime_s": runtime,
    }


def _jps_params(task: Mapping[str, Any]) -> JpsParams:
    """``p.run("jps")`` parameters of a task (paper defaults for ``alpha``, ``beta``)."""
    return JpsParams(
        n_samples=task["n_samples"],
        alpha=task.get("alpha", JPS_ALPHA),
        beta=task.get("beta", JPS_BETA),
    )


def category_rows(
    inst: HeteroInstance, task: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Every category of ``Psi`` (prioritised, Alg. 1 order): its placement, checked."""
    n_psi = math.comb(inst.n_workers - 1, inst.n_jobs - 1)
    p = paper()
    beta = task.get("beta", JPS_BETA)
    pl = p.run(
        "jps", inst, seed=0, params=JpsParams(n_samples=n_psi, alpha=0.0, beta=beta)
    )
    p.check(inst, pl)
    return [
        {
            "scheme": "category",
            "n_psi": n_psi,
            "category_id": s.id,
            **checked(
                inst,
                HeteroPlacement.from_assignment(inst, s.assignment, algorithm="jps"),
            ),
        }
        for s in pl.meta["samples"]
    ]


def _part(
    name: str,
    inst: HeteroInstance,
    true: HeteroInstance,
    opt: OfflineResult,
    task: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The rows of one part (:data:`PARTS`) of a task, before the common columns."""
    if name == "optimum":
        return [
            {
                "scheme": "optimum",
                **checked(true, opt.schedule),
                "alg_runtime_s": opt.runtime,
            }
        ]
    if name == "jps":
        return [
            run_scheme(inst, "jps", seed=r, params=_jps_params(task))
            for r in range(task["rounds"])
        ]
    if name == "schemes":
        return [
            run_scheme(inst, s, seed=task["seed"], params=_jps_params(task))
            if s == "jps"
            else run_scheme(inst, s)
            for s in task["schemes"]
        ]
    return category_rows(inst, task)


def _parts(task: Mapping[str, Any]) -> tuple[str, ...]:
    """The task's parts, checked against :data:`PARTS` (before any solve)."""
    parts = (task["part"],) if isinstance(task["part"], str) else tuple(task["part"])
    for name in parts:
        if name not in PARTS:
            raise KeyError(f"unknown part {name!r} (known: {', '.join(PARTS)})")
    return parts


def paper_columns(
    inst: HeteroInstance, task: Mapping[str, Any], row: Mapping[str, Any]
) -> dict[str, Any]:
    """The paper's values for a row of its setting (``S = 4``, ``K = 15``), else NaN."""
    nan = math.nan
    if (inst.n_jobs, inst.n_workers) != (4, 15):
        return dict.fromkeys(PAPER_COLUMNS, nan)
    scheme = row["scheme"]
    at_beta = scheme == "jps" and task.get("alpha", JPS_ALPHA) == JPS_ALPHA
    # keys of the paper's tables; None (not the paper's setting) misses them
    beta: Any = (row["n_samples"], task.get("beta", JPS_BETA)) if at_beta else None
    h: Any = round(task["h_target"], 2) if task.get("setting") == "target" else None
    at_eps = task.get("epsilon") == PAPER_EPSILON
    return dict(
        zip(PAPER_COLUMNS[:2], PAPER_BETA.get(beta, (nan, nan)), strict=True),
        paper_normalized=PAPER_NORMALIZED.get((scheme, h), nan),
        paper_increase=PAPER_INCREASE.get(scheme, nan) if at_eps else nan,
    )


def sensitivity(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of one task of Figs. 12-15 (module docstring: task keys and parts).

    Parameters
    ----------
    task
        Instance keys, ``part`` (a name or a tuple of names), the keys of the
        parts (``n_samples``, ``alpha``, ``beta``, ``rounds``, ``schemes``)
        and ``time_limit`` of the optimum.

    Returns
    -------
    list of dict
        One row per placement, in the order of the parts.
    """
    parts = _parts(task)
    inst, true = instance(task), true_instance(task)
    opt = optimum(
        "hetero", true, time_limit=task["time_limit"], start=best_start("hetero", true)
    )
    base = {**instance_columns(inst, task), **optimum_columns(opt, "min")}
    rows = [r for name in parts for r in _part(name, inst, true, opt, task)]
    proven = opt.status == "optimal"
    return [
        {
            **base,
            **r,
            "kind": r["scheme"],
            "normalized": r["avg_jct"] / opt.objective if proven else math.nan,
            **paper_columns(inst, task, r),
        }
        for r in rows
    ]


# -------------------------------------------------------------------- posts
def integer_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Cast the :data:`INT_COLUMNS` present to nullable ``Int64`` (integers in the CSV)."""
    for col in INT_COLUMNS:
        if col in df:
            df[col] = df[col].astype("Int64")
    return df


def with_best_category(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 12: integer columns, the lowest-JCT category ID and the paper's (276) on every row."""
    df = integer_columns(df)
    cat: Any = df[df["kind"] == "category"]  # pandas-stubs: .loc by idxmin()
    df["best_category_id"] = int(cat.loc[cat["avg_jct"].idxmin(), "category_id"])
    df["paper_best_category_id"] = PAPER_BEST_ID
    return df


# ---------------------------------------------------------------- summaries
def band(
    df: pd.DataFrame, keys: Sequence[str], values: Mapping[str, str]
) -> pd.DataFrame:
    """Rows, mean and 5-95% percentiles of each ``values`` column per ``keys``."""
    g = df.groupby(list(keys), dropna=False)
    cols: dict[str, Any] = {"n": g.size()}
    for name, col in values.items():
        cols[f"{name}_mean"] = g[col].mean()
        cols[f"{name}_p5"] = g[col].quantile(0.05)
        cols[f"{name}_p95"] = g[col].quantile(0.95)
    return pd.DataFrame(cols).reset_index()


def summarize_alpha(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 12: JPS's checked JCT (and ratio) per ``N`` x ``alpha``, with the rear-part size."""
    jps = df[df["kind"] == "jps"]
    out = band(jps, ["n_samples", "alpha"], {"jct": "avg_jct", "ratio": "normalized"})
    return out.assign(
        n_rear=jps.groupby(["n_samples", "alpha"])["n_rear"].first().to_numpy()
    )


def summarize_beta(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 13: JPS's checked JCT and fairness per ``N`` x ``beta``."""
    return band(
        df[df["kind"] == "jps"],
        ["n_samples", "beta"],
        {"jct": "avg_jct", "fair": "fairness"},
    )


def summarize_heterogeneity(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 14: JCT and ratio per setting x achieved ``H`` x scheme."""
    return band(
        df,
        ["setting", "heterogeneity", "gpu_counts", "scheme"],
        {"jct": "avg_jct", "ratio": "normalized"},
    )


def summarize_prediction_error(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 15: JCT per scheme x ``eps``, its increase over ``eps = 0``, cycled categories."""
    d = df[df["scheme"] != "optimum"]
    out = band(d, ["scheme", "epsilon"], {"jct": "avg_jct", "ratio": "normalized"})
    at0 = out[out["epsilon"] == 0].set_index("scheme")["jct_mean"]
    g = d.groupby(["scheme", "epsilon"])["n_cycled"]
    return out.assign(
        increase=out["jct_mean"] / out["scheme"].map(at0) - 1,
        cycled_rounds=g.apply(lambda s: int((s.fillna(0) > 0).sum())).to_numpy(),
        cycled_total=g.apply(lambda s: int(s.fillna(0).sum())).to_numpy(),
    )


# ------------------------------------------------------------------- claims
@dataclass(frozen=True)
class BestAlpha:
    """Fig. 12: per ``N``, the ``alpha`` of the lowest mean JCT and that mean / optimum."""

    values: tuple[tuple[int, float, float], ...]

    def __str__(self) -> str:
        return ", ".join(f"N={n}: {a:.1f} ({r:.3f} x opt)" for n, a, r in self.values)

    def all_at(self, alpha: float) -> bool:
        """Whether every ``N`` (and one ran) has its lowest mean at ``alpha``."""
        return bool(self.values) and all(
            abs(a - alpha) < 1e-9 for _, a, _ in self.values
        )


def best_alpha(df: pd.DataFrame) -> BestAlpha:
    """Fig. 12: per ``N``, the ``alpha`` of the lowest mean JCT and that mean / optimum."""
    s = summarize_alpha(df)
    best = s.loc[s.groupby("n_samples")["jct_mean"].idxmin()]
    return BestAlpha(
        tuple(
            (int(r["n_samples"]), float(r["alpha"]), float(r["ratio_mean"]))
            for r in best.to_dict("records")
        )
    )


def alpha_shape(df: pd.DataFrame) -> str:
    """Fig. 12: per ``N``, does the mean JCT go down from ``alpha`` 0 to 0.7 and up to 0.9?"""
    s = summarize_alpha(df).set_index("alpha")
    parts = []
    for n, m in s.groupby("n_samples")["jct_mean"]:
        down = "down" if m.loc[JPS_ALPHA] < m.loc[0.0] else "up"
        up = "up" if m.loc[0.9] > m.loc[JPS_ALPHA] else "down"
        parts.append(f"N={int(cast(float, n))}: {down}/{up}")
    return ", ".join(parts)


def rear_sizes(df: pd.DataFrame) -> str:
    """Fig. 12: rear-part size at the smallest and the largest ``alpha``."""
    n_rear = summarize_alpha(df).groupby("alpha")["n_rear"].first()
    # int(): the column is read back from the CSV as float (empty on other rows)
    return f"{int(n_rear.iloc[0])} -> {int(n_rear.iloc[-1])}"


def best_in_rear(df: pd.DataFrame) -> str:
    """Fig. 12: is the lowest-JCT category in the rear part for ``alpha`` 0.7 / 0.8 / 0.9?"""
    n_psi, best = int(df["n_psi"].dropna().iloc[0]), int(df["best_category_id"].iloc[0])
    return "/".join(
        "in" if best >= rear_start(n_psi, a) + 1 else "out" for a in (0.7, 0.8, 0.9)
    )


def _beta_ends(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 13: the summary rows of the smallest and largest ``beta`` for ``N = 60`` (else the largest N)."""
    s = summarize_beta(df)
    n = 60 if (s["n_samples"] == 60).any() else s["n_samples"].max()
    s = s[s["n_samples"] == n].sort_values("beta")
    return s.iloc[[0, -1]]


def beta_change(df: pd.DataFrame, name: str) -> float:
    """Fig. 13: relative change of the mean ``name`` (``jct``/``fair``) from the smallest to the largest ``beta``."""
    ends = _beta_ends(df)[f"{name}_mean"].to_numpy()
    return float(ends[1] / ends[0] - 1)


@dataclass(frozen=True)
class BetaEnds:
    """Fig. 13: mean JCT (s) and fairness at the smallest and largest ``beta`` for ``N``."""

    n: int
    jct: tuple[float, float]
    fair: tuple[float, float]

    def __str__(self) -> str:
        (j0, j1), (f0, f1) = self.jct, self.fair
        return f"N={self.n}: {j0:.2f} -> {j1:.2f} s, {f0:.3f} -> {f1:.3f}"

    def values(self) -> tuple[float, float, float, float]:
        """``(JCT at beta 0, JCT at beta 1, fairness at 0, fairness at 1)``."""
        return (*self.jct, *self.fair)

    def both_decrease(self) -> bool:
        """Whether the JCT and the fairness both decrease from ``beta = 0`` to 1."""
        return self.jct[1] < self.jct[0] and self.fair[1] < self.fair[0]


def beta_values(df: pd.DataFrame) -> BetaEnds:
    """Fig. 13: mean JCT and fairness at the two ends of ``beta``."""
    a, b = _beta_ends(df).to_dict("records")
    return BetaEnds(
        int(a["n_samples"]),
        (float(a["jct_mean"]), float(b["jct_mean"])),
        (float(a["fair_mean"]), float(b["fair_mean"])),
    )


def point_means(df: pd.DataFrame, col: str, setting: str = "target") -> pd.DataFrame:
    """Fig. 14: mean ``col`` per point (rows, by achieved ``H``) x scheme (columns)."""
    d = df[df["setting"] == setting]
    return d.pivot_table(
        index="heterogeneity", columns="scheme", values=col, aggfunc="mean"
    )


def optimum_decreasing(df: pd.DataFrame) -> str:
    """Fig. 14: per setting, does the optimum's JCT decrease with ``H``?"""
    parts = []
    for setting in pd.unique(df["setting"]):
        o = point_means(df, "avg_jct", setting)["optimum"].to_numpy()
        parts.append(
            f"{setting}: {'yes' if np.all(np.diff(o) <= 1e-9 * o[:-1]) else 'no'} ({o.size} H)"
        )
    return ", ".join(parts)


def losses(df: pd.DataFrame, scheme: str) -> pd.Series:
    """Fig. 14, setting ``target``: ``scheme``'s mean ratio to the optimum minus 1, by ``H``."""
    return point_means(df, "normalized")[scheme] - 1


def jps_vs_optimus(df: pd.DataFrame) -> pd.Series:
    """Fig. 14, setting ``target``: JPS's mean JCT relative to Optimus's, by ``H``."""
    m = point_means(df, "avg_jct")
    return m["jps"] / m["optimus"] - 1


def exhaustive_is_optimal(df: pd.DataFrame) -> float:
    """Fig. 14: share of points where exhaustive search meets the certified optimum."""
    m = pd.concat([point_means(df, "avg_jct", s) for s in pd.unique(df["setting"])])
    return float((abs(m["exhaustive"] - m["optimum"]) <= 1e-9 * m["optimum"]).mean())


def increase(df: pd.DataFrame, scheme: str) -> float:
    """Fig. 15: increase of ``scheme``'s mean JCT from ``eps = 0`` to the largest ``eps``."""
    m = df[df["scheme"] == scheme].groupby("epsilon")["avg_jct"].mean()
    return float(m.iloc[-1] / m.loc[0.0] - 1)


def target_means(df: pd.DataFrame, col: str) -> pd.DataFrame:
    """Fig. 14, setting ``target``: mean ``col`` per the text's ``H`` (the target) x scheme."""
    d = df[df["setting"] == "target"]
    return d.pivot_table(
        index="heterogeneity_target", columns="scheme", values=col, aggfunc="mean"
    )


def ends(values: pd.Series) -> Ends:
    """First and last value of a series (in ``H`` order) as :class:`.common.Ends`."""
    return Ends(float(values.iloc[0]), float(values.iloc[-1]))


@dataclass(frozen=True)
class PerH:
    """Fig. 14: one value per ``H`` of the text (the target), printed ``H: value``."""

    values: tuple[tuple[float, float], ...]
    fmt: str = "{:+.2%}"

    def __str__(self) -> str:
        return ", ".join(f"{h:.2f}: {self.fmt.format(v)}" for h, v in self.values)

    def hold(self, tests: Mapping[float, Any]) -> bool:
        """Whether the test of every ``H`` of ``tests`` that ran holds (and one ran)."""
        pairs = [
            (v, tests[round(h, 2)]) for h, v in self.values if round(h, 2) in tests
        ]
        return bool(pairs) and all(t(v) for v, t in pairs)


def losses_by_target(df: pd.DataFrame, scheme: str) -> PerH:
    """Fig. 14: ``scheme``'s mean ratio to the optimum minus 1 per the text's ``H``."""
    loss = target_means(df, "normalized")[scheme] - 1
    return PerH(tuple((float(cast(float, h)), float(v)) for h, v in loss.items()))


def per_h(values: pd.Series) -> str:
    """A series indexed by ``H`` as ``"H: value"`` percentages."""
    return ", ".join(f"{h:.3f}: {v:+.2%}" for h, v in values.items())


def spans(values: pd.Series, sep: str = " -> ") -> str:
    """First and last value of a series as percentages (in ``H`` order)."""
    return f"{values.iloc[0]:+.2%}{sep}{values.iloc[-1]:+.2%}"


# -------------------------------------------------------------------- plots
def plot_alpha(df: pd.DataFrame) -> Figure:
    """Fig. 12: JPS's mean JCT vs ``alpha`` per ``N`` (5-95% band); every category's JCT."""
    fig = Figure(figsize=(11.0, 4.3), layout="constrained")
    ax, ax2 = fig.subplots(1, 2)
    for j, (n, sub) in enumerate(summarize_alpha(df).groupby("n_samples")):
        ax.plot(
            sub["alpha"], sub["jct_mean"], "o-", color=f"C{j}", label=f"JPS N = {n}"
        )
        ax.fill_between(
            sub["alpha"], sub["jct_p5"], sub["jct_p95"], color=f"C{j}", alpha=0.15
        )
    ax.axhline(
        float(df["opt_objective"].iloc[0]), color="k", ls="--", lw=1, label="optimum"
    )
    ax.axvline(JPS_ALPHA, color="grey", ls=":", lw=1, label="paper default α = 0.7")
    ax.set(
        xlabel="α",
        ylabel="average JCT (s, checker)",
        title="JPS: mean over sampler seeds, 5-95% band",
    )
    cat = df[df["kind"] == "category"].sort_values("category_id")
    n_psi, best = (
        int(cat["n_psi"].iloc[0]),
        cat.loc[cast(Any, cat["avg_jct"].idxmin())],
    )
    ax2.plot(cat["category_id"], cat["avg_jct"], ".", ms=3, color="C0")
    ax2.plot(
        [best["category_id"]],
        [best["avg_jct"]],
        "*",
        ms=12,
        color="C3",
        label=f"lowest: ID {best['category_id']}",
    )
    ax2.axvline(
        PAPER_BEST_ID,
        color="C3",
        ls="--",
        lw=1,
        label=f"paper: ID {PAPER_BEST_ID} of 364",
    )
    for a in (0.7, 0.8, 0.9):
        ax2.axvline(rear_start(n_psi, a) + 1, color="grey", ls=":", lw=1)
    ax2.set(
        xlabel="category ID in Ψ (Alg. 1 order)",
        ylabel="average JCT (s, checker)",
        title="every category; dotted: rear part for α = 0.7, 0.8, 0.9",
    )
    for a in (ax, ax2):
        a.legend(fontsize=8)
    fig.suptitle(
        f"Fig. 12: impact of α, S = {df['n_jobs'].iloc[0]}, K = {df['n_workers'].iloc[0]}, H = {H_TARGET}",
        fontsize=10,
    )
    return fig


def plot_beta(df: pd.DataFrame) -> Figure:
    """Fig. 13: JPS's mean JCT and fairness vs ``beta`` per ``N`` (5-95% band), one panel each."""
    long = df[df["kind"] == "jps"].melt(
        id_vars=["n_samples", "beta"],
        value_vars=["avg_jct", "fairness"],
        var_name="metric",
    )
    line = Line(
        x="beta",
        y="value",
        hue="n_samples",
        facet="metric",
        labels={n: f"JPS N = {n}" for n in sorted(set(long["n_samples"]))},
        estimator="mean",
        band=(5.0, 95.0),
        xlabel="β",
        ylabel="mean over sampler seeds (5-95% band)",
        title="Fig. 13: impact of β (JPS, α = 0.7): average JCT (s) and fairness degree (33)",
    )
    return line(long)
