"""Experiment logic of Figs. 17-18: reset events and Gavel's scale factors (specs in ``paper_figures/hetero``).

Both figures submit every job of one instance at time 0 and run them to
completion with :func:`optsched.hetero.simulate.simulate`, on the same
instances (:func:`instance`: a GPU ``setting`` and a 4-job ``pool`` of
Table III):

* :func:`reset_events` (Fig. 17): every scheme with a static and a dynamic
  policy -- :func:`run_policy` re-checks every placement the policy made, at
  time 0 and at every reset, with the paper's checker -- and Gavel's rounds;
* :func:`gavel_scale` (Fig. 18): Gavel with one job's scale factor
  ``1..sf_max`` while the others stay at ``sf_max``.

Gavel's completions come from the checker's latencies of every round's
equal-split placement (inside ``simulate``).  Columns that do not apply to a
row (e.g. the JPS sampler seed of HAS) are left out of its dict and are
empty in the CSV.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from optsched.core.experiment import Span, optimum
from optsched.core.plots import Bars
from optsched.core.ratio import best_start
from optsched.hetero.check import HeteroEvaluation
from optsched.hetero.instance import MODELS, HeteroInstance
from optsched.hetero.online import JpsParams
from optsched.hetero.schedule import HeteroPlacement
from optsched.hetero.simulate import SimulationResult, simulate

from . import common
from .common import H_TARGET, gpu_counts, paper

#: GPU settings: 5 T4/P100/V100 each at K = 15, or ``generate(heterogeneity=1.15)``.
SETTINGS = ("1:1:1", "H=1.15")
#: The five 4-job subsets of Table III, by the job left out (``no_Transformer``
#: = ResNet-101, ResNet-18, VGG-19, AlexNet: the instance of Figs. 9-14).
POOLS = {f"no_{x}": tuple(m for m in MODELS if m != x) for x in MODELS}
DEFAULT_POOL = "no_Transformer"
#: Gavel's round: 6 minutes.
ROUND_S = 360.0
#: Fig. 17's schemes with a static and a dynamic policy (besides Gavel).
SCHEMES = ("optimus", "optimus_lb", "has", "jps", "exhaustive")
LABELS = {s: common.LABELS[s] for s in (*SCHEMES, "gavel")}
#: JPS samples ``N`` (the paper's default).
JPS_N = 60
#: Fig. 17, dynamic vs static: reductions over schemes (Sec. VI-B2).
PAPER_AVG = (0.1701, 0.4167)
PAPER_MAKESPAN = (0.2734, 0.4435)
#: Fig. 17, dynamic HAS vs Gavel: (average JCT, makespan) reductions.
PAPER_HAS_VS_GAVEL = (0.212, 0.713)
#: Fig. 18 (no numbers in the paper).
PAPER_TREND = "decreasing in scale_factor, lowest at [5, 5, 5, 5]"
#: Relative tolerance of "decreasing" and "lowest" (Fig. 18).
RTOL = 1e-9
#: Fig. 17's integer columns that are empty on some rows (nullable ``Int64``).
INT_COLUMNS = ("n_samples", "jps_seed", "scale_factor")

#: Task keys (and columns) that name an instance (:func:`task_instance`).
INSTANCE_KEYS = ("setting", "pool", "seed", "n_jobs", "n_workers")
_INSTANCE_COLUMNS = [*INSTANCE_KEYS, "jobs", "heterogeneity", "gpu_counts"]
FIG17_COLUMNS = [
    *_INSTANCE_COLUMNS, "scheme", "mode", "n_samples", "jps_seed", "scale_factor",
    "round_s", "avg_jct", "makespan", "completion_s", "decisions",
    "decision_time_s", "check_avg_jct", "opt_objective", "opt_status",
    "reduction_avg_jct", "reduction_makespan", "reduction_of",
    "paper_reduction_avg_jct_lo", "paper_reduction_avg_jct_hi",
    "paper_reduction_makespan_lo", "paper_reduction_makespan_hi",
]  # fmt: skip
FIG18_COLUMNS = [
    *_INSTANCE_COLUMNS, "varied_job", "varied_name", "scale_factor", "sf_max",
    "scale_factors", "round_s", "avg_jct", "makespan", "completion_s",
    "decisions", "normalized", "curve_decreasing", "curve_lowest_at_max",
    "paper_trend",
]  # fmt: skip


# ---------------------------------------------------------------- instances
def instance(
    setting: str, pool: str, seed: int, n_jobs: int, n_workers: int
) -> HeteroInstance:
    """The instance of a row: the jobs of ``pool`` on ``n_workers`` GPUs of ``setting``.

    ``"1:1:1"``: the generator's equal GPU mix; ``"H=1.15"``:
    ``generate(heterogeneity=1.15)``.  Throughputs carry no noise, so the
    seed only permutes the job order.
    """
    if pool not in POOLS:
        raise KeyError(f"unknown pool {pool!r} (known: {', '.join(POOLS)})")
    kw: dict[str, Any] = {"models": list(POOLS[pool])}
    if setting == "H=1.15":
        kw["heterogeneity"] = H_TARGET
    elif setting != "1:1:1":
        raise KeyError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")
    return paper().generate(seed=seed, n_jobs=n_jobs, n_workers=n_workers, **kw)


def task_instance(task: Mapping[str, Any]) -> HeteroInstance:
    """The instance named by a task's (or a row's) instance columns."""
    s, pool, seed, n, k = (task[c] for c in INSTANCE_KEYS)
    return instance(s, pool, int(seed), int(n), int(k))


def instance_columns(inst: HeteroInstance, task: Mapping[str, Any]) -> dict[str, Any]:
    """Columns that regenerate the instance, and what it looks like."""
    return {
        **{c: task[c] for c in INSTANCE_KEYS},
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": gpu_counts(inst),
    }


# --------------------------------------------------------------- simulation
def completions(values: Sequence[float] | np.ndarray) -> str:
    """Completion times as ``;``-separated text (instance order, 6 decimals)."""
    return ";".join(f"{float(x):.6f}" for x in values)


def result_columns(res: SimulationResult) -> dict[str, Any]:
    """``avg_jct``, ``makespan``, ``completion_s`` and ``decisions`` of a run."""
    return {
        "avg_jct": res.avg_jct,
        "makespan": res.makespan,
        "completion_s": completions(res.completion),
        "decisions": res.decisions,
    }


def gavel(
    inst: HeteroInstance, scale_factor: int | list[int], round_s: float
) -> SimulationResult:
    """Gavel's rounds with ``scale_factor`` (one for all jobs, or one per job)."""
    return simulate(
        inst, "gavel", params={"scale_factor": scale_factor}, round_s=round_s
    )


class Recorder:
    """Policy ``p.run(name, inst, **params)`` that keeps every (instance, placement)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = name
        self.calls: list[tuple[HeteroInstance, HeteroPlacement]] = []

    def __call__(self, inst: HeteroInstance, **params: Any) -> HeteroPlacement:
        """The policy's placement of ``inst`` (recorded)."""
        placement = paper().run(self.name, inst, **params)
        self.calls.append((inst, placement))
        return placement


def run_policy(
    inst: HeteroInstance,
    scheme: str,
    dynamic: bool,
    params: Mapping[str, Any] | None,
) -> tuple[SimulationResult, HeteroEvaluation]:
    """Simulate ``scheme`` and re-check every placement it made.

    Returns
    -------
    tuple
        The simulation and the checker's evaluation of the time-0 placement.
        ``p.check`` raises on an infeasible placement; in static mode every
        completion must equal the checker's JCT (7) of that placement.
    """
    rec = Recorder(scheme)
    res = simulate(inst, rec, dynamic=dynamic, params=params)
    evs = [paper().check(sub, pl) for sub, pl in rec.calls]
    if len(evs) != res.decisions:
        raise AssertionError(
            f"{scheme}: {len(evs)} placements, {res.decisions} decisions"
        )
    if not dynamic:
        np.testing.assert_allclose(res.completion, evs[0].jct, rtol=1e-9)
    return res, evs[0]


# ------------------------------------------------------------------ Fig. 17
def reduction_columns(
    res: SimulationResult,
    ref: SimulationResult,
    of: str,
    paper_avg: tuple[float, float],
    paper_makespan: tuple[float, float],
) -> dict[str, Any]:
    """``1 - res / ref`` per metric, what it compares, and the paper's range."""
    return {
        "reduction_avg_jct": 1 - res.avg_jct / ref.avg_jct,
        "reduction_makespan": 1 - res.makespan / ref.makespan,
        "reduction_of": of,
        "paper_reduction_avg_jct_lo": paper_avg[0],
        "paper_reduction_avg_jct_hi": paper_avg[1],
        "paper_reduction_makespan_lo": paper_makespan[0],
        "paper_reduction_makespan_hi": paper_makespan[1],
    }


def timed_columns(res: SimulationResult) -> dict[str, Any]:
    """:func:`result_columns` and the policy's wall time ``decision_time_s``."""
    return {**result_columns(res), "decision_time_s": res.decision_time}


def gavel_row(
    inst: HeteroInstance, task: Mapping[str, Any], has_dynamic: SimulationResult
) -> dict[str, Any]:
    """Gavel's row (``scale_factor`` for every job), with dynamic HAS's reductions against it."""
    g = gavel(inst, task["scale_factor"], task["round_s"])
    avg, mk = ((v, v) for v in PAPER_HAS_VS_GAVEL)
    return {
        "scheme": "gavel",
        "mode": "dynamic",
        "scale_factor": task["scale_factor"],
        "round_s": task["round_s"],
        **timed_columns(g),
        **reduction_columns(has_dynamic, g, "has dynamic vs gavel", avg, mk),
    }


def _runs(task: Mapping[str, Any]) -> list[tuple[str, dict[str, Any] | None]]:
    """(scheme, params) of Fig. 17's policies: JPS once per sampler seed."""
    runs: list[tuple[str, dict[str, Any] | None]] = [
        (s, None) for s in SCHEMES if s != "jps"
    ]
    n = task["n_samples"]
    runs += [
        ("jps", {"seed": r, "params": JpsParams(n_samples=n)})
        for r in range(task["jps_seeds"])
    ]
    return runs


def policy_rows(
    inst: HeteroInstance, scheme: str, params: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], SimulationResult]:
    """The static and the dynamic row of one policy, and its dynamic run."""
    rows, runs = [], []
    for mode in ("static", "dynamic"):
        res, ev0 = run_policy(inst, scheme, mode == "dynamic", params)
        runs.append(res)
        row = {"scheme": scheme, "mode": mode, "round_s": math.nan}
        if params is not None:
            row.update(n_samples=params["params"].n_samples, jps_seed=params["seed"])
        row.update(timed_columns(res), check_avg_jct=float(ev0.objective))
        rows.append(row)
    static, dynamic = runs
    of = f"{scheme} dynamic vs static"
    rows[1].update(reduction_columns(dynamic, static, of, PAPER_AVG, PAPER_MAKESPAN))
    return rows, dynamic


def reset_events(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 17 rows of one instance: every scheme static and dynamic, then Gavel.

    Task keys: ``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers``
    (:func:`instance`), ``n_samples`` and ``jps_seeds`` (JPS ``N`` and
    sampler seeds ``0..jps_seeds-1``), ``scale_factor`` and ``round_s``
    (Gavel), ``time_limit`` (of the certified optimum of P1, a lower bound of
    every static average JCT).
    """
    inst = task_instance(task)
    start = best_start("hetero", inst)  # the MIP start: best online placement
    opt = optimum("hetero", inst, time_limit=task["time_limit"], threads=1, start=start)
    base = {**instance_columns(inst, task), "opt_objective": opt.objective}
    base["opt_status"] = opt.status
    rows: list[dict[str, Any]] = []
    dynamic: dict[str, SimulationResult] = {}
    for scheme, params in _runs(task):
        pair, dynamic[scheme] = policy_rows(inst, scheme, params)
        rows += pair
    rows.append(gavel_row(inst, task, dynamic["has"]))
    return [{**base, **r} for r in rows]


def integer_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Cast :data:`INT_COLUMNS` to nullable ``Int64`` (integers in the CSV)."""
    return df.astype({c: "Int64" for c in INT_COLUMNS if c in df})


def summarize_reset_events(df: pd.DataFrame) -> pd.DataFrame:
    """Per setting x scheme: mean metrics per mode and the reductions' mean [min, max].

    Gavel's reductions are those of dynamic HAS against it.
    """
    keys = ["setting", "scheme"]
    metrics = df.pivot_table(
        index=keys, columns="mode", values=["avg_jct", "makespan"], sort=False
    )
    pairs = cast("Iterable[tuple[str, str]]", metrics.columns)  # a MultiIndex
    metrics.columns = [f"{m}_{mode}" for m, mode in pairs]
    dyn = df[df["mode"] == "dynamic"].groupby(keys, sort=False)
    red = dyn[["reduction_avg_jct", "reduction_makespan"]].agg(["mean", "min", "max"])
    pairs = cast("Iterable[tuple[str, str]]", red.columns)  # a MultiIndex
    red.columns = [f"{c.replace('reduction', 'cut')}_{a}" for c, a in pairs]
    return metrics.join(red)


def plot_reset_events(df: pd.DataFrame) -> Figure:
    """Fig. 17: mean average JCT and makespan per scheme, static vs dynamic, per setting."""
    long = df.assign(scheme=df["scheme"].map(LABELS)).melt(
        id_vars=["setting", "scheme", "mode"],
        value_vars=["avg_jct", "makespan"],
        var_name="metric",
        value_name="seconds",
    )
    long["panel"] = long["metric"] + ", " + long["setting"]
    S, K = int(df["n_jobs"].iloc[0]), int(df["n_workers"].iloc[0])
    return Bars(
        x="scheme",
        y="seconds",
        hue="mode",
        facet="panel",
        order=("static", "dynamic"),
        labels={"static": "static", "dynamic": "dynamic (reset events; Gavel: rounds)"},
        ylabel="seconds (mean over instances, 5-95%)",
        title=f"Fig. 17: with / without reset events, S = {S}, K = {K}",
    )(long)


def scheme_reductions(df: pd.DataFrame, metric: str) -> pd.Series:
    """Mean reduction dynamic vs static of ``metric`` per setting x scheme (no Gavel)."""
    dyn = df[(df["mode"] == "dynamic") & (df["scheme"] != "gavel")]
    return dyn.groupby(["setting", "scheme"], sort=False)[f"reduction_{metric}"].mean()


def reduction_span(df: pd.DataFrame, metric: str) -> Span:
    """Smallest and largest scheme mean reduction of ``metric`` (over settings too)."""
    r = scheme_reductions(df, metric)
    return Span(float(r.min()), float(r.max()))


def share_improved(df: pd.DataFrame) -> float:
    """Share of dynamic runs (no Gavel) that cut both the average JCT and the makespan."""
    dyn = df[(df["mode"] == "dynamic") & (df["scheme"] != "gavel")]
    cut = (dyn["reduction_avg_jct"] > 0) & (dyn["reduction_makespan"] > 0)
    return float(cut.mean())


@dataclass(frozen=True)
class GavelCuts:
    """Fig. 17: per setting, dynamic HAS's mean cut of Gavel's average JCT and makespan."""

    values: tuple[tuple[str, float, float], ...]

    def __str__(self) -> str:
        return ", ".join(f"{s}: {a:.2%} / {m:.2%}" for s, a, m in self.values)

    def hold(self, avg: Callable[[Any], bool], makespan: Callable[[Any], bool]) -> bool:
        """Whether ``avg`` and ``makespan`` hold in every setting (and one ran)."""
        return bool(self.values) and all(
            avg(a) and makespan(m) for _, a, m in self.values
        )


def gavel_reductions(df: pd.DataFrame) -> GavelCuts:
    """Mean reductions (average JCT / makespan) of dynamic HAS vs Gavel per setting."""
    gv = df[df["scheme"] == "gavel"].groupby("setting", sort=False)
    red = gv[["reduction_avg_jct", "reduction_makespan"]].mean()
    return GavelCuts(
        tuple((str(s), float(a), float(m)) for s, (a, m) in red.iterrows())
    )


def share_beats_gavel(df: pd.DataFrame) -> float:
    """Share of instances where dynamic HAS beats Gavel on both average JCT and makespan."""
    gv = df[df["scheme"] == "gavel"]
    return float(
        ((gv["reduction_avg_jct"] > 0) & (gv["reduction_makespan"] > 0)).mean()
    )


# ------------------------------------------------------------------ Fig. 18
def is_decreasing(values: Sequence[float]) -> bool:
    """Non-increasing up to a relative :data:`RTOL`."""
    v = np.asarray(values, dtype=float)
    return bool(np.all(v[1:] <= v[:-1] * (1 + RTOL)))


def lowest_at_end(values: Sequence[float]) -> bool:
    """The last value is the minimum up to a relative :data:`RTOL`."""
    return bool(values[-1] <= min(values) * (1 + RTOL))


def curve_rows(
    inst: HeteroInstance,
    job: int,
    top: int,
    run: Callable[[tuple[int, ...]], SimulationResult],
) -> list[dict[str, Any]]:
    """Rows of one curve: ``job``'s scale factor ``1..top``, the others at ``top``."""
    n = len(inst.jobs)
    scales = [
        tuple(sf if i == job else top for i in range(n)) for sf in range(1, top + 1)
    ]
    runs = [run(scale) for scale in scales]
    jcts = [r.avg_jct for r in runs]
    flags = {
        "curve_decreasing": is_decreasing(jcts),
        "curve_lowest_at_max": lowest_at_end(jcts),
    }
    return [
        {
            "varied_job": job,
            "varied_name": inst.jobs[job].name,
            "scale_factor": scale[job],
            "scale_factors": ";".join(map(str, scale)),
            **result_columns(res),
            **flags,
        }
        for scale, res in zip(scales, runs, strict=True)
    ]


def gavel_scale(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 18 rows of one instance: each job's scale factor ``1..sf_max``, others ``sf_max``.

    Task keys: ``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers``
    (:func:`instance`), ``sf_max``, ``round_s``.  ``normalized`` is the
    average JCT over that of ``[sf_max] * S`` (one run shared by every
    curve).
    """
    inst = task_instance(task)
    top, round_s = task["sf_max"], task["round_s"]
    base = {**instance_columns(inst, task), "sf_max": top, "round_s": round_s}

    @functools.cache
    def run(scale: tuple[int, ...]) -> SimulationResult:
        return gavel(inst, list(scale), round_s)

    ref = run((top,) * task["n_jobs"]).avg_jct
    rows = [r for j in range(task["n_jobs"]) for r in curve_rows(inst, j, top, run)]
    return [
        {**base, **r, "normalized": r["avg_jct"] / ref, "paper_trend": PAPER_TREND}
        for r in rows
    ]


def curve_share(df: pd.DataFrame, flag: str, setting: str) -> float:
    """Share of the curves (instance x varied job) of ``setting`` whose ``flag`` is true."""
    keys = ["pool", "seed", "varied_job"]
    part = df[df["setting"] == setting]
    return float(part.groupby(keys, sort=False)[flag].first().mean())


def summarize_gavel_scale(df: pd.DataFrame) -> pd.DataFrame:
    """Average JCT per curve (columns: the varied job's scale factor) and its flags."""
    keys = ["setting", "pool", "varied_name"]
    jct = df.pivot_table(
        index=keys, columns="scale_factor", values="avg_jct", sort=False
    )
    flags = df.groupby(keys, sort=False)[["curve_decreasing", "curve_lowest_at_max"]]
    return jct.join(flags.first())
