"""Experiment logic of Figs. 9-11 and Table IV: JCT, fairness, jobs and running times.

Figs. 9-11 run the same experiment on one instance per task
(:func:`normalized_jct`): the certified optimum of P1
(:func:`optsched.core.experiment.optimum`), Optimus, Optimus-LB, HAS and JPS
(``N = 20, 40, 60`` over ``rounds`` sampler seeds), every placement checked
by the paper's checker (:func:`.common.checked`).  Fig. 10 adds the paper's
fairness band to those rows (:func:`fairness`); Fig. 11 sweeps ``S`` instead
of ``K``.  Table IV (:func:`running_times`) times the same schemes, the
MILP and the paper's enumeration on the ``h115`` instance of each
configuration, serially in one task so that no two timings compete.

Task keys of Figs. 9-11 (see :func:`instance_grid`): ``setting``, ``seed``,
``n_jobs``, ``n_workers`` (the instance, :func:`.common.make_instance`),
``jps_n``, ``rounds``, ``time_limit`` (of the optimum) and
``has_max_workers`` (HAS only up to that ``K``; ``None``: always).
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import pandas as pd

from optsched.core.errors import SolverError
from optsched.core.experiment import Cells, Span, optimum, optimum_columns
from optsched.core.ratio import best_start, certify
from optsched.core.registry import OfflineResult
from optsched.hetero.baselines import count_placements
from optsched.hetero.instance import HeteroInstance
from optsched.hetero.online import JpsParams, n_categories
from optsched.hetero.paper import solve_by_enumeration

from .common import H_TARGET, checked, gpu_counts, make_instance, mean_ci90, paper

#: JPS sample counts ``N`` of Figs. 9-11 and Table IV.
JPS_N = (20, 40, 60)
#: Schemes of Figs. 9-11 in row (and legend) order.
SCHEMES = ("optimum", "optimus", "optimus_lb", "has", *(f"jps_n{n}" for n in JPS_N))
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "has": "HAS",
    **{f"jps_n{n}": f"JPS N={n}" for n in JPS_N},
    "optimum": "optimum",
    "exhaustive_milp": "OPT (MILP)",
    "exhaustive_enum": "exhaustive (enum.)",
}
SETTING_LABELS = {"h115": "first S jobs, H = 1.15", "mix111": "1:1:1 GPUs, random jobs"}
#: The setting the claims are read on (the figures' main bars).
MAIN_SETTING = "h115"
#: Fig. 9 numbers stated in the text (Sec. VI-B1), by (K, scheme).
PAPER_NORMALIZED = {
    **{(k, "optimus_lb"): 1.151 for k in (15, 30)},
    **{(k, s): 1.0 for k in (15, 30) for s in ("has", "optimum")},
    (15, "jps_n60"): 1.0054,
    (30, "jps_n60"): 1.0204,
}
#: Fig. 10: "HAS and JPS ... fairness degree ranging from 0.779 to 0.829".
PAPER_FAIRNESS = (0.779, 0.829)
PAPER_FAIRNESS_SCHEMES = ("has", *(f"jps_n{n}" for n in JPS_N))
#: Fig. 11: JPS (N = 60) below Optimus-LB by 9.38%-14.5%, above OPT by 0.53%-5.68%.
PAPER_VS_OPTIMUS_LB = (0.0938, 0.145)
PAPER_VS_OPT = (0.0053, 0.0568)

#: Table IV: configurations (S, K), timed schemes, |Psi| and ART in seconds.
CONFIGS = ((4, 15), (4, 30), (3, 15), (5, 15))
TABLE4_SCHEMES = (
    "optimus", "optimus_lb", *(f"jps_n{n}" for n in JPS_N), "has",
    "exhaustive_milp", "exhaustive_enum",
)  # fmt: skip
PAPER_N_PSI = {(4, 15): 364, (4, 30): 3654, (3, 15): 91, (5, 15): 1001}
_MS, _H = 1e-3, 3600.0
#: (S, K) -> (Optimus, Optimus-LB, N=20, N=40, N=60, HAS, exhaustive).
PAPER_ART = {
    (4, 15): (0.96 * _MS, 0.99 * _MS, 0.07, 0.14, 0.22, 1.07, 47.89),
    (4, 30): (1.99 * _MS, 1.99 * _MS, 0.38, 0.74, 1.13, 55.54, 2.21 * _H),
    (3, 15): (0.91 * _MS, 0.92 * _MS, 0.04, 0.06, 0.06, 0.17, 1.55),
    (5, 15): (1.01 * _MS, 1.07 * _MS, 0.06, 0.12, 0.19, 24.34, 127.36),
}
#: Table IV's ratios stated in the text: (claim, the paper's value, numerator
#: and denominator cells (S, K, scheme) of our medians).
PAPER_ART_RATIOS = (
    ("JPS (N = 60) cuts HAS's ART, K = 15", 4.86, (4, 15, "has"), (4, 15, "jps_n60")),
    ("JPS (N = 60) cuts HAS's ART, K = 30", 49.15, (4, 30, "has"), (4, 30, "jps_n60")),
    *(
        (f"ART growth S = 3 -> 5 (K = 15), {name}", v, (5, 15, s), (3, 15, s))
        for name, v, s in (
            ("exhaustive (ours: MILP)", 82.17, "exhaustive_milp"),
            ("exhaustive (ours: enumeration)", 82.17, "exhaustive_enum"),
            ("HAS", 143.18, "has"),
            ("JPS (N = 60)", 3.16, "jps_n60"),
        )
    ),
)

_INSTANCE_COLUMNS = [
    "setting", "seed", "n_jobs", "n_workers", "heterogeneity_target",
    "heterogeneity", "gpu_counts", "jobs",
]  # fmt: skip
_PLACEMENT_COLUMNS = [
    "scheme", "algorithm", "n_samples", "jps_seed", "category", "avg_jct", "fairness",
]  # fmt: skip
FIG9_COLUMNS = [
    *_INSTANCE_COLUMNS, *_PLACEMENT_COLUMNS, "opt_objective", "opt_bound",
    "bound_kind", "opt_status", "kind", "normalized", "normalized_lo", "normalized_hi",
    "paper_normalized", "alg_runtime_s", "opt_runtime_s",
]  # fmt: skip
FIG10_COLUMNS = [
    *_INSTANCE_COLUMNS, *_PLACEMENT_COLUMNS, "opt_status", "paper_fairness_lo",
    "paper_fairness_hi", "in_paper_range", "alg_runtime_s",
]  # fmt: skip
TABLE4_COLUMNS = [
    "n_jobs", "n_workers", "setting", "seed", "heterogeneity", "gpu_counts",
    "n_psi", "paper_n_psi", "scheme", "rep", "runtime_s", "status", "avg_jct",
    "enum_placements", "estimate_s", "paper_art_s", "cpu_count", "load_avg_1m",
    "note",
]  # fmt: skip


# ------------------------------------------------------------------- grids
def instance_grid(
    sizes: Mapping[str, Any],
    *,
    mix_seeds: int,
    settings: Sequence[str] = ("h115", "mix111"),
    **fixed: Any,
) -> list[dict[str, Any]]:
    """Grid of Figs. 9-11: per setting, ``sizes`` x seeds, then the ``fixed`` keys.

    ``h115`` uses seed 0 only (the seed only permutes its jobs), ``mix111``
    seeds ``0..mix_seeds-1``; the tasks come in setting x size x seed order.
    """
    return [
        {
            "setting": s,
            **sizes,
            "seed": [0] if s == "h115" else list(range(mix_seeds)),
            "jps_n": JPS_N,
            **fixed,
        }
        for s in settings
    ]


def full_grid(sizes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Full run of Figs. 9-11: both settings (5 ``mix111`` seeds), 100 rounds, 600 s per optimum."""
    return instance_grid(
        sizes, mix_seeds=5, rounds=100, time_limit=600.0, has_max_workers=None
    )


def quick_grid(sizes: Mapping[str, Any], rounds: int) -> list[dict[str, Any]]:
    """Quick run of Figs. 9-11: ``h115`` only, ``rounds`` rounds, 60 s, HAS only up to K = 15."""
    return instance_grid(
        sizes,
        mix_seeds=1,
        settings=("h115",),
        rounds=rounds,
        time_limit=60.0,
        has_max_workers=15,
    )


# -------------------------------------------------------------------- runs
def jps_samples(scheme: str) -> int | None:
    """``N`` of a ``jps_n<N>`` scheme, else None."""
    return int(scheme.removeprefix("jps_n")) if scheme.startswith("jps_n") else None


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``fn()`` and its wall time."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run_scheme(inst: HeteroInstance, scheme: str, seed: int = 0) -> tuple[Any, float]:
    """Placement of ``scheme`` (``jps_n<N>``: JPS, ``N`` samples, sampler ``seed``) and its wall time."""
    n = jps_samples(scheme)
    if n is None:
        return timed(lambda: paper().run(scheme, inst))
    return timed(
        lambda: paper().run("jps", inst, seed=seed, params=JpsParams(n_samples=n))
    )


def has_allowed(task: Mapping[str, Any], n_workers: int) -> bool:
    """Whether the task runs HAS at ``K = n_workers`` (``has_max_workers`` cap)."""
    cap = task["has_max_workers"]
    return cap is None or n_workers <= cap


def scheme_runs(task: Mapping[str, Any]) -> Iterator[tuple[str, int]]:
    """``(scheme, jps_seed)`` of every non-optimum row of a task, in row order (-1: no JPS)."""
    yield from (("optimus", -1), ("optimus_lb", -1))
    if has_allowed(task, task["n_workers"]):
        yield ("has", -1)
    for n in task["jps_n"]:
        yield from ((f"jps_n{n}", r) for r in range(task["rounds"]))


def instance_columns(inst: HeteroInstance, task: Mapping[str, Any]) -> dict[str, Any]:
    """Columns that regenerate a row's instance (:func:`.common.make_instance`) and describe it."""
    return {
        "setting": task["setting"],
        "seed": task["seed"],
        "n_jobs": task["n_jobs"],
        "n_workers": task["n_workers"],
        "heterogeneity_target": H_TARGET if task["setting"] == "h115" else math.nan,
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": gpu_counts(inst),
        "jobs": ";".join(j.name for j in inst.jobs),
    }


def normalized_columns(alg: float, opt: OfflineResult) -> dict[str, Any]:
    """``kind`` and ``normalized`` (ALG / OPT, proven only), ``normalized_lo/hi`` (ALG / incumbent, ALG / bound).

    A checked placement beating a certified value raises
    :class:`~optsched.core.errors.SolverError` (:func:`optsched.core.ratio.certify`).
    """
    certify("min", alg, opt.objective, opt.bound, opt.status)
    proven = opt.status == "optimal"
    return {
        "kind": "proven" if proven else "interval",
        "normalized": alg / opt.objective if proven else math.nan,
        "normalized_lo": alg / opt.objective,
        "normalized_hi": alg / opt.bound if opt.bound > 0 else math.inf,
    }


def jct_row(
    inst: HeteroInstance,
    opt: OfflineResult,
    scheme: str,
    placement: Any,
    runtime: float,
    jps_seed: int = -1,
) -> dict[str, Any]:
    """One checked placement's columns (no instance columns)."""
    n = jps_samples(scheme)
    cols = checked(inst, placement)
    return {
        "scheme": scheme,
        "algorithm": {"optimum": "solve_offline"}.get(scheme, "jps" if n else scheme),
        "n_samples": math.nan if n is None else n,
        "jps_seed": jps_seed,
        **cols,
        **optimum_columns(opt, "min"),
        **normalized_columns(cols["avg_jct"], opt),
        "paper_normalized": PAPER_NORMALIZED.get((inst.n_workers, scheme), math.nan),
        "alg_runtime_s": runtime,
    }


def normalized_jct(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Figs. 9 and 11: the optimum and every scheme on one instance, checked.

    Parameters
    ----------
    task
        The keys of the module docstring.

    Returns
    -------
    list of dict
        The optimum's row, then Optimus, Optimus-LB, HAS (unless capped) and
        ``rounds`` JPS rows per ``N``.
    """
    inst = make_instance(
        task["setting"], task["seed"], task["n_jobs"], task["n_workers"]
    )
    opt = optimum(
        "hetero", inst, time_limit=task["time_limit"], start=best_start("hetero", inst)
    )
    rows = [jct_row(inst, opt, "optimum", opt.schedule, opt.runtime)]
    for scheme, seed in scheme_runs(task):
        placement, runtime = run_scheme(inst, scheme, max(seed, 0))
        rows.append(jct_row(inst, opt, scheme, placement, runtime, seed))
    base = instance_columns(inst, task)
    return [{**base, **r} for r in rows]


def fairness(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Fig. 10: :func:`normalized_jct`'s, with the paper's fairness band on HAS/JPS."""
    rows = normalized_jct(task)
    for r in rows:
        in_paper = r["scheme"] in PAPER_FAIRNESS_SCHEMES
        lo, hi = PAPER_FAIRNESS if in_paper else (math.nan, math.nan)
        r.update(
            paper_fairness_lo=lo,
            paper_fairness_hi=hi,
            in_paper_range=in_paper and lo <= r["fairness"] <= hi,
        )
    return rows


# -------------------------------------------------------------- Table IV
def paper_art(n_jobs: int, n_workers: int, scheme: str) -> float:
    """The paper's ART in seconds (both exhaustive columns get the paper's exhaustive value)."""
    return PAPER_ART[(n_jobs, n_workers)][min(TABLE4_SCHEMES.index(scheme), 6)]


def load_average() -> float:
    """The 1-minute load average (NaN where the OS has none)."""
    try:
        return float(os.getloadavg()[0])
    except OSError:  # pragma: no cover - not on Linux
        return math.nan


@functools.cache
def warm_up() -> None:
    """Run every timed scheme once, untimed, on a tiny instance (numba JIT, Pyomo imports)."""
    p = paper()
    inst = p.generate(seed=0, n_jobs=2, n_workers=4)
    for name in ("optimus", "optimus_lb", "has"):
        p.run(name, inst)
    p.run("jps", inst, seed=0, params=JpsParams(n_samples=2))
    p.solve_offline(inst, time_limit=30.0, threads=1)
    solve_by_enumeration(inst, time_limit=30.0)


class _Config:
    """The rows of one Table IV configuration: its instance and the shared columns."""

    def __init__(self, n_jobs: int, n_workers: int) -> None:
        self.inst = make_instance("h115", 0, n_jobs, n_workers)
        self.key = (n_jobs, n_workers)
        self.base = {
            "n_jobs": n_jobs,
            "n_workers": n_workers,
            "setting": "h115",
            "seed": 0,
            "heterogeneity": self.inst.heterogeneity(),
            "gpu_counts": gpu_counts(self.inst),
            "n_psi": n_categories(n_workers, n_jobs),
            "paper_n_psi": PAPER_N_PSI[self.key],
            "enum_placements": math.nan,
            "estimate_s": math.nan,
            "cpu_count": os.cpu_count(),
        }
        self.rows: list[dict[str, Any]] = []

    def add(
        self,
        scheme: str,
        rep: int,
        runtime: float,
        status: str,
        placement: Any = None,
        note: str = "",
        **extra: Any,
    ) -> None:
        """Append a row; a placement is checked (``avg_jct``)."""
        avg = (
            math.nan if placement is None else checked(self.inst, placement)["avg_jct"]
        )
        self.rows.append(
            {
                **self.base,
                "scheme": scheme,
                "rep": rep,
                "runtime_s": runtime,
                "status": status,
                "avg_jct": avg,
                "paper_art_s": paper_art(*self.key, scheme),
                "load_avg_1m": load_average(),
                "note": note,
                **extra,
            }
        )


def _skipped(c: _Config, scheme: str, task: Mapping[str, Any]) -> bool:
    """Add a ``skipped`` row when the task caps ``scheme`` below this ``K``."""
    if has_allowed(task, c.key[1]):
        return False
    note = f"quick mode: {LABELS[scheme]} only for K <= {task['has_max_workers']}"
    c.add(scheme, 0, math.nan, "skipped", note=note)
    return True


def _time_heuristics(c: _Config, task: Mapping[str, Any]) -> None:
    """Optimus and Optimus-LB (``reps_greedy``), JPS (``reps_jps`` sampler seeds), HAS."""
    for name in ("optimus", "optimus_lb"):
        for rep in range(task["reps_greedy"]):
            pl, dt = run_scheme(c.inst, name)
            c.add(name, rep, dt, "ok", pl)
    for n in JPS_N:
        for rep in range(task["reps_jps"]):
            pl, dt = run_scheme(c.inst, f"jps_n{n}", rep)
            c.add(f"jps_n{n}", rep, dt, "ok", pl, note=f"sampler seed {rep}")
    if _skipped(c, "has", task):
        return
    for rep in range(1 if c.key[1] > 15 else task["reps_has"]):
        pl, dt = run_scheme(c.inst, "has")
        c.add("has", rep, dt, "ok", pl)


def _time_milp(c: _Config, task: Mapping[str, Any]) -> None:
    """The MILP, solved afresh ``reps_milp`` times (not memoised: it is timed)."""
    if _skipped(c, "exhaustive_milp", task):
        return
    start = best_start("hetero", c.inst)  # the MIP start, outside the timing
    for rep in range(task["reps_milp"]):
        res, dt = timed(
            lambda: paper().solve_offline(
                c.inst, time_limit=task["time_limit"], threads=1, start=start
            )
        )
        c.add(
            "exhaustive_milp", rep, dt, res.status, res.schedule, note="solve_offline"
        )


def _time_enumeration(c: _Config, task: Mapping[str, Any]) -> None:
    """The paper's enumeration, once, if at most ``max_placements`` placements."""
    count, cap = count_placements(c.inst, c.inst.rho), task["max_placements"]
    limit = task["enum_time_limit"]
    if count > cap:
        note = f"{count:,} placements > max_placements {cap:,}"
        c.add(
            "exhaustive_enum",
            0,
            math.nan,
            "intractable",
            note=note,
            enum_placements=count,
        )
        return
    try:
        res, dt = timed(
            lambda: solve_by_enumeration(c.inst, time_limit=limit, max_placements=cap)
        )
    except SolverError as exc:  # pragma: no cover - guarded by the count above
        c.add("exhaustive_enum", 0, math.nan, "intractable", note=str(exc))
        return
    note = f"time limit {limit:g} s"
    c.add(
        "exhaustive_enum",
        0,
        dt,
        res.status,
        res.schedule,
        note=note,
        enum_placements=count,
    )


def running_times(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Table IV: every scheme timed on each configuration, one row per repetition.

    Parameters
    ----------
    task
        ``configs`` ((S, K) pairs), ``reps_greedy``, ``reps_jps``,
        ``reps_has``, ``reps_milp``, ``has_max_workers`` (HAS and the MILP
        only up to that ``K``; ``None``: always), ``max_placements`` and
        ``enum_time_limit`` (enumeration), ``time_limit`` (MILP).

    Returns
    -------
    list of dict
        Configuration x scheme x repetition, timed serially in this process
        after :func:`warm_up`.  The MILP is solved afresh at every
        repetition (timing, so not :func:`optsched.core.experiment.optimum`).
    """
    warm_up()
    rows = []
    for S, K in task["configs"]:
        c = _Config(S, K)
        _time_heuristics(c, task)
        _time_milp(c, task)
        _time_enumeration(c, task)
        rows += c.rows
    return rows


def extrapolate(df: pd.DataFrame) -> pd.DataFrame:
    """``estimate_s`` of intractable enumerations from the largest completed one (``post``)."""
    enum = df[df["scheme"] == "exhaustive_enum"]
    done = enum[(enum["status"] == "optimal") & (enum["enum_placements"] > 0)]
    if done.empty:
        return df
    ref: Any = done.loc[cast(Any, done["enum_placements"].idxmax())]
    rate = ref["runtime_s"] / ref["enum_placements"]
    todo = (df["scheme"] == "exhaustive_enum") & (df["status"] != "optimal")
    df.loc[todo, "estimate_s"] = df.loc[todo, "enum_placements"] * rate
    df.loc[todo, "note"] = df.loc[todo, "note"] + (
        f"; estimate at {rate * 1e6:.3g} us/placement "
        f"(S={int(ref['n_jobs'])}, K={int(ref['n_workers'])})"
    )
    return df


# ------------------------------------------------------------- summaries
def summarize(df: pd.DataFrame, value: str) -> pd.DataFrame:
    """:func:`.common.mean_ci90` of ``value`` per setting x S x K x scheme (scheme order)."""
    keys = ["setting", "n_jobs", "n_workers", "scheme"]
    out = df.groupby(keys, sort=False)[value].apply(mean_ci90).unstack().reset_index()
    rank = out["scheme"].map({s: j for j, s in enumerate(SCHEMES)})
    return (
        out.assign(_rank=rank)
        .sort_values(["setting", "n_workers", "n_jobs", "_rank"], kind="stable")
        .drop(columns="_rank")
        .set_index(keys)
    )


def summarize_normalized(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 9: the normalised JCT's mean, 90% CI and 5-95% band, the paper's value beside it."""
    out = summarize(df, "normalized")
    paper_values = df.groupby(["setting", "n_jobs", "n_workers", "scheme"])[
        "paper_normalized"
    ]
    return out.join(paper_values.first().rename("paper"))


def summarize_fairness(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10: the fairness degree's statistics and the share inside the paper's band."""
    keys = ["setting", "n_jobs", "n_workers", "scheme"]
    share = df.groupby(keys)["in_paper_range"].mean().rename("in_paper_range")
    out = summarize(df, "fairness").join(share)
    paper_rows = out.index.get_level_values("scheme").isin(PAPER_FAIRNESS_SCHEMES)
    out.loc[~paper_rows, "in_paper_range"] = math.nan
    return out


def jobs_table(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 11 per setting x S: mean JCT of Optimus-LB, JPS N=60 and OPT, and the paper's two ratios.

    Per instance first (JPS: mean over its rounds), then averaged over the
    setting's instances; ``vs_opt`` (JPS / OPT - 1) uses proven optima only,
    ``vs_optimus_lb`` is 1 - JPS / Optimus-LB.
    """
    keys = ["setting", "n_jobs", "seed"]
    inst = df.groupby([*keys, "scheme"])["avg_jct"].mean().unstack("scheme")
    proven = df[df["scheme"] == "optimum"].set_index(keys)["kind"] == "proven"
    inst["vs_optimus_lb"] = 1.0 - inst["jps_n60"] / inst["optimus_lb"]
    inst["vs_opt"] = (inst["jps_n60"] / inst["optimum"] - 1.0).where(proven)
    cols = ["optimus_lb", "jps_n60", "optimum", "vs_optimus_lb", "vs_opt"]
    out = inst.groupby(["setting", "n_jobs"])[cols].mean()
    out["instances"] = inst.groupby(["setting", "n_jobs"]).size()
    return out


def medians(df: pd.DataFrame) -> pd.DataFrame:
    """Table IV: median running time per configuration x scheme, the paper's value beside it."""
    g = df.groupby(["n_jobs", "n_workers", "scheme"], sort=False)
    return g.agg(
        median_s=("runtime_s", "median"),
        reps=("runtime_s", "count"),
        status=("status", "first"),
        estimate_s=("estimate_s", "first"),
        paper_art_s=("paper_art_s", "first"),
    )


# ---------------------------------------------------------------- claims
def span(values: pd.Series, fmt: str = "{:.2%}") -> Span:
    """The :class:`Span` of ``values`` (NaNs dropped)."""
    return Span(float(values.min()), float(values.max()), fmt)


def mean_ratios(df: pd.DataFrame, scheme: str, workers: Sequence[int]) -> Cells:
    """Mean ``normalized`` of ``scheme`` per ``K`` in ``workers`` (:data:`MAIN_SETTING`)."""
    main = df[(df["setting"] == MAIN_SETTING) & (df["scheme"] == scheme)]
    means = main.groupby("n_workers")["normalized"].mean()
    return Cells(tuple(float(means[k]) if k in means.index else None for k in workers))


@dataclass(frozen=True)
class Ranking:
    """Fig. 9: a scheme's mean ratio per ``K`` beside the schemes the paper ranks ahead of it."""

    cells: Cells
    ahead: tuple[tuple[str, Cells], ...]

    def __str__(self) -> str:
        others = "; ".join(f"{LABELS[s]} {c}" for s, c in self.ahead)
        return f"{self.cells} ({others})"

    def behind_all(self) -> bool:
        """Whether the scheme loses (ratio > 1) and trails every ``ahead`` scheme at every K both ran."""
        pairs = [
            (v, w)
            for _, o in self.ahead
            for j, v in enumerate(self.cells.values)
            if v is not None and (w := o.values[j]) is not None
        ]
        return bool(pairs) and all(v > 1.0 and v > w for v, w in pairs)


def ranking(
    df: pd.DataFrame, scheme: str, ahead: Sequence[str], workers: Sequence[int]
) -> Ranking:
    """:func:`mean_ratios` of ``scheme`` and of the schemes ``ahead`` of it in the paper."""
    return Ranking(
        mean_ratios(df, scheme, workers),
        tuple((s, mean_ratios(df, s, workers)) for s in ahead),
    )


def proven_optima(df: pd.DataFrame) -> str:
    """``proven/instances`` over the optimum rows."""
    opt = df[df["scheme"] == "optimum"]
    return f"{int((opt['opt_status'] == 'optimal').sum())}/{len(opt)}"


def fairness_span(df: pd.DataFrame) -> Span:
    """Range of the mean fairness of HAS and JPS per scheme x K in :data:`MAIN_SETTING`."""
    sel = df[
        (df["setting"] == MAIN_SETTING) & df["scheme"].isin(PAPER_FAIRNESS_SCHEMES)
    ]
    return span(sel.groupby(["n_workers", "scheme"])["fairness"].mean(), "{:.3f}")


def share_in_fairness_band(df: pd.DataFrame) -> float:
    """Share of the HAS and JPS placements (every setting) inside the paper's band."""
    return float(
        df.loc[df["scheme"].isin(PAPER_FAIRNESS_SCHEMES), "in_paper_range"].mean()
    )


def jobs_span(df: pd.DataFrame, col: str) -> Span:
    """Range over S of a :func:`jobs_table` column in :data:`MAIN_SETTING`."""
    return span(cast("pd.Series[Any]", jobs_table(df).loc[MAIN_SETTING, col]))


def fmt_seconds(s: float) -> str:
    """``0.96 ms``, ``1.07 s``, ``2.21 h``; ``-`` for NaN."""
    if math.isnan(s):
        return "-"
    if s < 1.0:
        return f"{s * 1e3:.3g} ms"
    return f"{s / 3600:.3g} h" if s >= 3600 else f"{s:.3g} s"


def art_cells(df: pd.DataFrame, scheme: str) -> str:
    """Our median ART of ``scheme`` per configuration (:data:`CONFIGS`), ``/``-separated."""
    med: Any = medians(df)  # pandas-stubs: .loc by a (K, S, scheme) tuple

    def cell(key: tuple[int, int]) -> str:
        if (*key, scheme) not in med.index:
            return "-"
        r = med.loc[(*key, scheme)]
        if math.isnan(r["median_s"]) and not math.isnan(r["estimate_s"]):
            return f"~{fmt_seconds(r['estimate_s'])} (est.)"
        return fmt_seconds(r["median_s"])

    return " / ".join(cell(k) for k in CONFIGS)


def paper_art_cells(scheme: str) -> str:
    """The paper's ART of ``scheme`` per configuration, as :func:`art_cells`."""
    return " / ".join(fmt_seconds(paper_art(*k, scheme)) for k in CONFIGS)


def art_ratio(
    df: pd.DataFrame, a: tuple[int, int, str], b: tuple[int, int, str]
) -> float | str:
    """Median ART of ``a`` over that of ``b`` (``(S, K, scheme)``); ``"not timed"`` if either is missing."""
    med = medians(df)["median_s"]
    v = float(med.get(a, math.nan) / med.get(b, math.nan))
    return "not timed" if math.isnan(v) else v


def faster(value: Any) -> bool:
    """Trend of a ratio of running times: a number above 1."""
    return isinstance(value, float) and value > 1.0


def paper_n_psi() -> str:
    """The paper's ``|Psi|`` per configuration, as :func:`n_psi`."""
    return " / ".join(f"{PAPER_N_PSI[k]:,}" for k in CONFIGS)


def n_psi(df: pd.DataFrame) -> str:
    """``|Psi|`` per configuration (:data:`CONFIGS`), ``/``-separated."""
    got = df.groupby(["n_jobs", "n_workers"])["n_psi"].first()
    return " / ".join(f"{int(got[k]):,}" for k in CONFIGS)
