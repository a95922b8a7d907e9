"""Experiment logic of Fig. 16 and Table V: ``S = 4`` jobs on ``K = 15-300`` workers.

Both run on ``generate(seed, 4, K)`` (:func:`.common.make_instance` setting
``mix111``: the generator's 1:1:1 GPU mix, 4 distinct random Table III jobs;
the same seed draws the same jobs at every ``K``):

* :func:`workers` (Fig. 16): one task per instance -- Optimus, Optimus-LB,
  JPS ``N = 40`` with the market and with the exact P3, HAS and the
  certified optimum (:func:`optsched.core.experiment.optimum`), each up to
  its ``K`` cap; every placement is checked and its JCT split into the
  communication and computation terms of (7);
* :func:`running_times` (Table V): one task that times every scheme on
  every instance serially in this process (so that no two timings
  compete), with HAS extrapolated from sampled categories where it is too
  slow to run in full.

Task keys of :func:`workers`: ``seed``, ``n_jobs``, ``n_workers`` (the
instance), ``has_max_k``, ``market_max_k``, ``opt_max_k`` (largest ``K`` of
HAS, of JPS with the market and of the optimum) and ``time_limit`` (of the
optimum).  Task keys of :func:`running_times`: see its docstring.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from optsched.core.experiment import optimum, optimum_columns
from optsched.core.ratio import best_start
from optsched.hetero.instance import HeteroInstance
from optsched.hetero.online import (
    HasParams,
    JpsParams,
    category_at,
    market,
    n_categories,
)

from .common import category, gpu_counts, make_instance, paper
from .jct import timed

#: Jobs of every instance (Sec. VI-B1, "Impact of K").
N_JOBS = 4
#: ``K`` of Fig. 16 and of Table V.
FIG16_KS = (15, 30, 50, 100, 200, 300)
TABLE5_KS = (50, 100, 200, 300)
#: JPS samples ``N`` of both.
JPS_N = 40
#: Fig. 16's schemes in row (and legend) order; Table V's besides the category samples.
SCHEMES = ("optimus", "optimus_lb", "jps_market", "jps_exact", "has", "optimum")
TABLE5_SCHEMES = (*SCHEMES[:5], "has_extrapolated")
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "jps_market": "JPS N=40 (market)",
    "jps_exact": "JPS N=40 (exact P3)",
    "has": "HAS",
    "optimum": "optimum (MILP)",
    "has_extrapolated": "HAS (extrapolated)",
    "has_category": "HAS (one category)",
}
#: Fig. 16 at K = 300: (average communication, average computation) latency, s.
PAPER_K300 = {"jps": (68.86, 201.30), "optimus_lb": (69.13, 217.96)}
PAPER_K = 300
#: Table V: the paper's ART in seconds at :data:`TABLE5_KS` (HAS: N/A at K >= 200).
_TABLE5 = {
    "optimus": (4.0e-3, 8.31e-3, 22.56e-3, 44.16e-3),
    "optimus_lb": (5.05e-3, 10.03e-3, 24.99e-3, 48.68e-3),
    "jps": (2.11, 8.35, 35.92, 114.61),
    "has": (857.81, 12.98 * 3600.0, math.nan, math.nan),
}
#: Table V by (the paper's scheme, K), N/A entries left out.
PAPER_ART_S = {
    (s, k): v
    for s, row in _TABLE5.items()
    for k, v in zip(TABLE5_KS, row, strict=True)
    if not math.isnan(v)
}
#: Our scheme -> the paper's column (a single sampled category has none).
PAPER_SCHEME = {
    "optimus": "optimus",
    "optimus_lb": "optimus_lb",
    "jps_market": "jps",
    "jps_exact": "jps",
    "has": "has",
    "has_extrapolated": "has",
}

FIG16_COLUMNS = [
    "seed", "n_jobs", "n_workers", "gpu_counts", "jobs", "heterogeneity",
    "scheme", "algorithm", "n_samples", "jps_seed", "p3", "split", "category",
    "assignment", "avg_jct", "avg_comm_s", "avg_comp_s", "makespan", "n_cycled",
    "opt_status", "opt_objective", "opt_bound", "bound_kind", "ratio_to_opt",
    "paper_avg_jct", "paper_avg_comm_s", "paper_avg_comp_s", "runtime_s",
]  # fmt: skip
TABLE5_COLUMNS = [
    "seed", "n_jobs", "n_workers", "scheme", "algorithm", "p3", "n_samples",
    "rep", "kind", "category", "runtime_s", "threads", "avg_jct", "n_psi",
    "n_categories_timed", "paper_art_s",
]  # fmt: skip
_CAPS = {"has": "has_max_k", "jps_market": "market_max_k", "optimum": "opt_max_k"}


def _rank(schemes: pd.Series, order: Sequence[str]) -> pd.Series:
    return schemes.map({s: j for j, s in enumerate(order)})


# ---------------------------------------------------------------- Fig. 16
def fig16_schemes(task: Mapping[str, Any]) -> list[str]:
    """The schemes a task runs at its ``K`` (:data:`SCHEMES` order, caps applied)."""
    K = task["n_workers"]
    return [s for s in SCHEMES if s not in _CAPS or K <= task[_CAPS[s]]]


def paper_latencies(scheme: str, K: int) -> dict[str, float]:
    """The paper's K = 300 JCT and latency terms for Optimus-LB and JPS rows, else NaN."""
    key = "optimus_lb" if scheme == "optimus_lb" else "jps"
    if K != PAPER_K or scheme not in ("optimus_lb", "jps_market", "jps_exact"):
        comm = comp = math.nan
    else:
        comm, comp = PAPER_K300[key]
    return {
        "paper_avg_jct": comm + comp,
        "paper_avg_comm_s": comm,
        "paper_avg_comp_s": comp,
    }


def run_fig16_scheme(inst: HeteroInstance, scheme: str) -> tuple[Any, float]:
    """Placement of a non-optimum scheme (JPS: ``N = 40``, sampler seed 0) and its wall time."""
    if scheme.startswith("jps_"):
        p3 = scheme.removeprefix("jps_")
        params = JpsParams(n_samples=JPS_N, p3=p3)
        return timed(lambda: paper().run("jps", inst, seed=0, params=params))
    return timed(lambda: paper().run(scheme, inst))


def latency_row(
    inst: HeteroInstance, scheme: str, placement: Any, runtime: float
) -> dict[str, Any]:
    """A placement's columns: the checker's JCT and its comm./comp. terms (means over jobs)."""
    ev = paper().check(inst, placement)
    T, jps = inst.epochs, scheme.startswith("jps_")
    algorithm = "solve_offline" if scheme == "optimum" else scheme
    return {
        "scheme": scheme,
        "algorithm": "jps" if jps else algorithm,
        "n_samples": JPS_N if jps else math.nan,
        "jps_seed": 0 if jps else -1,
        "p3": scheme.removeprefix("jps_") if jps else "",
        "split": "equal" if scheme == "optimus" else "proportional",
        "category": category(ev),
        "assignment": " ".join(str(int(a)) for a in placement.assignment),
        "avg_jct": float(ev.objective),
        "avg_comm_s": float(np.mean(T * ev.comm_latency)),
        "avg_comp_s": float(np.mean(T * ev.compute_latency)),
        "makespan": ev.makespan,
        "n_cycled": len(placement.meta.get("cycled", [])),
        **paper_latencies(scheme, inst.n_workers),
        "runtime_s": runtime,
    }


def workers(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Fig. 16 for one instance: every scheme of :func:`fig16_schemes`, checked.

    The optimum is solved first (when ``K <= opt_max_k``) so that every row
    carries its status, bound and ``ratio_to_opt`` (the checker's JCT over a
    proven optimum, else NaN; a placement beating it raises
    :class:`~optsched.core.errors.SolverError`).
    """
    seed, S, K = task["seed"], task["n_jobs"], task["n_workers"]
    inst = make_instance("mix111", seed, S, K)
    schemes = fig16_schemes(task)
    opt: Any = None  # the OfflineResult when "optimum" is a scheme
    if "optimum" in schemes:
        start = best_start("hetero", inst)  # the MIP start: best online placement
        opt = optimum(
            "hetero", inst, time_limit=task["time_limit"], threads=1, start=start
        )
    base = {
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "gpu_counts": gpu_counts(inst),
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity": inst.heterogeneity(),
    }
    rows = []
    for s in schemes:
        if s == "optimum":
            row = latency_row(inst, s, opt.schedule, opt.runtime)
        else:
            row = latency_row(inst, s, *run_fig16_scheme(inst, s))
        if opt is None:
            cols = {"opt_status": "", "opt_objective": math.nan, "opt_bound": math.nan,
                    "bound_kind": "none"}  # fmt: skip
            cols["ratio_to_opt"] = math.nan
        else:
            cols = optimum_columns(
                opt, "min", row["avg_jct"], instance=f"seed {seed}, K {K}", algorithm=s
            )
            cols["ratio_to_opt"] = cols["ratio"]
        rows.append({**base, **row, **cols})
    return rows


def summarize_workers(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over seeds per K x scheme of the JCT, its two terms and the ratio to OPT."""
    out = (
        df.groupby(["n_workers", "scheme"])
        .agg(
            n=("avg_jct", "size"),
            avg_jct=("avg_jct", "mean"),
            avg_comm_s=("avg_comm_s", "mean"),
            avg_comp_s=("avg_comp_s", "mean"),
            ratio_to_opt=("ratio_to_opt", "mean"),
            runtime_s=("runtime_s", "median"),
        )
        .reset_index()
    )
    return (
        out.assign(_rank=_rank(out["scheme"], SCHEMES))
        .sort_values(["n_workers", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def _k_axis(ax, ks: Sequence[int]) -> None:
    """Log-log axes with one tick per ``K``."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(list(ks), [str(k) for k in ks])
    ax.set_xlabel("number of workers K")


def plot_workers(df: pd.DataFrame) -> Figure:
    """Fig. 16: JCT vs K per scheme; JCT = computation + communication at the largest K."""
    summ = summarize_workers(df)
    fig = Figure(figsize=(11.0, 4.3), layout="constrained")
    ax, bx = fig.subplots(1, 2, width_ratios=[1.3, 1.0])
    for j, (s, marker) in enumerate(zip(SCHEMES, "s^oxD*", strict=True)):
        sub = summ[summ["scheme"] == s]
        if len(sub):
            ls = ":" if s in ("optimum", "jps_exact") else "-"
            ax.plot(
                sub["n_workers"],
                sub["avg_jct"],
                marker=marker,
                ls=ls,
                color=f"C{j}",
                label=LABELS[s],
            )
    ks = sorted(df["n_workers"].unique())
    _k_axis(ax, ks)
    ax.set_ylabel("average JCT (s, checker; mean over seeds)")
    n_seeds = df["seed"].nunique()
    ax.set_title(f"S = {N_JOBS}, 1:1:1 GPUs, {n_seeds} instance(s) per K", fontsize=9)
    ax.legend(fontsize=8)
    K = int(max(ks))
    sub = summ[summ["n_workers"] == K].set_index("scheme")
    bars = [
        (LABELS[s], *sub.loc[s, ["avg_comm_s", "avg_comp_s"]])
        for s in SCHEMES
        if s in sub.index
    ]
    if K == PAPER_K:
        bars += [("paper JPS N=40", *PAPER_K300["jps"])]
        bars += [("paper Optimus-LB", *PAPER_K300["optimus_lb"])]
    labels, comm, comp = (list(c) for c in zip(*bars, strict=True))
    x = np.arange(len(labels))
    hatch = ["//" if lab.startswith("paper") else "" for lab in labels]
    bx.bar(x, comp, color="C0", hatch=hatch, label="computation T l^[p]")
    bx.bar(x, comm, bottom=comp, color="C1", hatch=hatch, label="communication T l^[c]")
    bx.set_xticks(x, labels, rotation=35, ha="right", fontsize=7)
    bx.set_ylabel("average latency over jobs (s)")
    bx.set_title(f"K = {K}: JCT = computation + communication", fontsize=9)
    bx.legend(fontsize=7)
    fig.suptitle("Fig. 16: impact of the number of workers", fontsize=10)
    return fig


# ------------------------------------------------------------ Fig. 16 claims
@dataclass(frozen=True)
class Count:
    """``hits`` of ``total`` cases satisfy a claim; printed ``hits/total what`` ("not run" if none)."""

    hits: int
    total: int
    what: str = ""

    def __str__(self) -> str:
        if self.total == 0:
            return "not run"
        return f"{self.hits}/{self.total}" + (f" {self.what}" if self.what else "")

    @property
    def all(self) -> bool:
        """Every case (and at least one) satisfies the claim."""
        return self.total > 0 and self.hits == self.total


@dataclass(frozen=True)
class ByK:
    """One value per ``K``, printed ``K: value`` with ``fmt``."""

    values: tuple[tuple[int, float], ...]
    fmt: str = "{:+.1%}"

    def __str__(self) -> str:
        return (
            ", ".join(f"{k}: {self.fmt.format(v)}" for k, v in self.values)
            or "not timed"
        )

    def hold(self, tests: Mapping[int, Any]) -> bool:
        """Whether the test of every ``K`` of ``tests`` that ran holds (and one ran)."""
        pairs = [(v, tests[k]) for k, v in self.values if k in tests]
        return bool(pairs) and all(t(v) for v, t in pairs)

    def non_increasing(self) -> bool:
        """Whether the values do not grow with ``K`` (and there are two or more)."""
        v = [x for _, x in self.values]
        return len(v) > 1 and all(b <= a for a, b in zip(v[:-1], v[1:], strict=True))


def _strictly_decreasing(values: pd.Series) -> bool:
    return bool((np.diff(values.dropna().to_numpy()) < 0).all())


def decreasing_curves(df: pd.DataFrame) -> Count:
    """(scheme, seed) JCT curves over K, of every scheme but the optimum, that strictly decrease.

    Only curves with two or more ``K`` count (HAS runs up to ``has_max_k``).
    """
    d = df[df["scheme"] != "optimum"]
    piv = d.pivot_table(index=["scheme", "seed"], columns="n_workers", values="avg_jct")
    piv = piv[piv.notna().sum(axis=1) >= 2]
    hits = sum(_strictly_decreasing(r) for _, r in piv.iterrows())
    return Count(hits, len(piv), "curves")


def _wide(df: pd.DataFrame) -> pd.DataFrame:
    return df.pivot_table(
        index=["n_workers", "seed"], columns="scheme", values="avg_jct"
    )


def jps_below(df: pd.DataFrame, jps: str = "jps_market") -> Count:
    """Instances where ``jps`` has a lower JCT than both Optimus and Optimus-LB."""
    w = _wide(df)[[jps, "optimus", "optimus_lb"]].dropna()
    below = {b: w[jps] < w[b] for b in ("optimus", "optimus_lb")}
    what = "instances (below Optimus: {}/{n}, below Optimus-LB: {}/{n})".format(
        *(int(v.sum()) for v in below.values()), n=len(w)
    )
    return Count(int((below["optimus"] & below["optimus_lb"]).sum()), len(w), what)


def gain_by_k(
    df: pd.DataFrame, jps: str = "jps_market", base: str = "optimus_lb"
) -> ByK:
    """Mean gain ``1 - JCT(jps) / JCT(base)`` over the seeds, per ``K``."""
    w = _wide(df)[[jps, base]].dropna()
    gain = (1 - w[jps] / w[base]).groupby(level="n_workers").mean()
    return ByK(tuple((int(cast(int, k)), float(v)) for k, v in gain.items()))


def _latency_text(comm: float, comp: float) -> str:
    return f"{comm:.2f} s / {comp:.2f} s (comm {comm / (comm + comp):.1%})"


@dataclass(frozen=True)
class Latencies:
    """Fig. 16: mean communication and computation latency (s); NaN: not run."""

    comm: float
    comp: float
    note: str = ""

    def __str__(self) -> str:
        return self.note or _latency_text(self.comm, self.comp)

    @property
    def comm_share(self) -> float:
        """Communication's share of the JCT (NaN when not run)."""
        return self.comm / (self.comm + self.comp)


def latencies_at(df: pd.DataFrame, scheme: str, K: int = PAPER_K) -> Latencies:
    """Mean communication / computation latency of ``scheme`` at ``K`` and the comm. share."""
    sel = df[(df["scheme"] == scheme) & (df["n_workers"] == K)]
    if sel.empty:
        note = f"not run (largest K: {int(df['n_workers'].max())})"
        return Latencies(math.nan, math.nan, note)
    return Latencies(float(sel["avg_comm_s"].mean()), float(sel["avg_comp_s"].mean()))


def paper_comm_share(key: str) -> float:
    """The paper's K = 300 communication share of ``"jps"`` or ``"optimus_lb"``."""
    comm, comp = PAPER_K300[key]
    return comm / (comm + comp)


def paper_latencies_text(key: str) -> str:
    """The paper's K = 300 latencies of ``"jps"`` or ``"optimus_lb"``, as :func:`latencies_at`."""
    return _latency_text(*PAPER_K300[key])


def latency_order(df: pd.DataFrame, jps: str = "jps_market", K: int = PAPER_K) -> Count:
    """Latency terms (comm., comp.; means over seeds) where ``jps`` is below Optimus-LB at ``K``."""
    sel = df[df["n_workers"] == K].groupby("scheme")[["avg_comm_s", "avg_comp_s"]]
    m: Any = sel.mean()  # pandas-stubs: comparison of .loc rows
    if jps not in m.index or "optimus_lb" not in m.index:
        return Count(0, 0)
    return Count(int((m.loc[jps] < m.loc["optimus_lb"]).sum()), 2, "terms")


def proven_by_k(df: pd.DataFrame) -> str:
    """``K: proven/instances`` of the optimum rows."""
    opt = df[df["scheme"] == "optimum"].groupby("n_workers")["opt_status"]
    return ", ".join(f"{k}: {int((s == 'optimal').sum())}/{len(s)}" for k, s in opt)


# ---------------------------------------------------------------- Table V
def paper_art(scheme: str, K: int) -> float:
    """The paper's Table V entry in seconds for our scheme name (NaN if none)."""
    # a scheme the paper does not have (None) misses the table
    return PAPER_ART_S.get(cast(Any, (PAPER_SCHEME.get(scheme), K)), math.nan)


def sample_categories(
    n_workers: int, n_jobs: int, count: int, seed: int
) -> list[tuple[int, ...]]:
    """``count`` distinct categories drawn uniformly from all of ``Psi`` (Alg. 1 order)."""
    n_psi = n_categories(n_workers, n_jobs)
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(n_psi, size=min(count, n_psi), replace=False))
    return [category_at(int(i), n_workers, n_jobs) for i in idx]


def numba_threads() -> int:
    """Threads numba's parallel markets may use (1 without numba)."""
    try:
        import numba
    except ImportError:
        return 1
    return int(numba.get_num_threads())


@functools.cache
def warm_up() -> None:
    """Load numba's cached market and the imports: one small market, Optimus(-LB), JPS both ways."""
    p = paper()
    market(np.array([[2.0, 1.0], [1.0, 2.0]]), (1, 1))
    inst = make_instance("mix111", 0, N_JOBS, 15)
    for name in ("optimus", "optimus_lb"):
        p.run(name, inst)
    p.run("jps", inst, params=JpsParams(n_samples=2, p3="exact"))
    p.run("jps", inst, params=JpsParams(n_samples=2))


class _Timer:
    """The timing rows of one instance."""

    def __init__(self, seed: int, n_jobs: int, K: int) -> None:
        self.inst = make_instance("mix111", seed, n_jobs, K)
        self.K, self.n_psi = K, n_categories(K, n_jobs)
        self.base = {
            "seed": seed,
            "n_jobs": n_jobs,
            "n_workers": K,
            "n_psi": self.n_psi,
        }
        self.rows: list[dict[str, Any]] = []

    def time(
        self,
        scheme: str,
        algorithm: str,
        rep: int,
        kind: str = "measured",
        *,
        seed: int = 0,
        params: Any = None,
    ) -> None:
        """Time ``p.run(algorithm, seed=seed, params=params)``, check it, add the row."""
        pl, dt = timed(
            lambda: paper().run(algorithm, self.inst, seed=seed, params=params)
        )
        sample = kind == "category_sample"
        self.rows.append(
            {
                **self.base,
                "scheme": scheme,
                "algorithm": algorithm,
                "p3": getattr(params, "p3", ""),
                "n_samples": getattr(params, "n_samples", math.nan),
                "rep": rep,
                "kind": kind,
                "category": "-".join(str(int(x)) for x in pl.category)
                if sample
                else "",
                "runtime_s": dt,
                "threads": numba_threads(),
                "avg_jct": float(paper().check(self.inst, pl).objective),
                "n_categories_timed": math.nan,
                "paper_art_s": paper_art(scheme, self.K),
            }
        )

    def extrapolate_has(self, n_timed: int, seed: int) -> None:
        """Time HAS on ``n_timed`` sampled categories; add mean x ``|Psi|`` as HAS's estimate."""
        for j, c in enumerate(
            sample_categories(self.K, self.base["n_jobs"], n_timed, seed)
        ):
            self.time(
                "has_category",
                "has",
                j,
                kind="category_sample",
                params=HasParams(categories=[c]),
            )
        times = [r["runtime_s"] for r in self.rows if r["scheme"] == "has_category"]
        self.rows.append(
            {
                **self.base,
                "scheme": "has_extrapolated",
                "algorithm": "has",
                "p3": "market",
                "n_samples": math.nan,
                "rep": 0,
                "kind": "extrapolation",
                "category": "",
                "runtime_s": float(np.mean(times)) * self.n_psi,
                "threads": numba_threads(),
                "avg_jct": math.nan,
                "n_categories_timed": len(times),
                "paper_art_s": paper_art("has_extrapolated", self.K),
            }
        )


def time_instance(seed: int, K: int, task: Mapping[str, Any]) -> list[dict[str, Any]]:
    """All timing rows of one instance (sequential, in this process)."""
    t = _Timer(seed, task["n_jobs"], K)
    for r in range(task["reps"]):
        t.time("optimus", "optimus", r)
        t.time("optimus_lb", "optimus_lb", r)
        t.time("jps_exact", "jps", r, params=JpsParams(n_samples=JPS_N, p3="exact"))
    if K <= task["market_max_k"]:
        t.time("jps_market", "jps", 0, params=JpsParams(n_samples=JPS_N, p3="market"))
    if K <= task["has_full_max_k"]:
        t.time("has", "has", 0)
    if K in task["has_extrapolate_ks"] and task["n_timed"] > 0:
        t.extrapolate_has(task["n_timed"], seed)
    return t.rows


def running_times(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Table V: every scheme timed on every instance, serially, after :func:`warm_up`.

    Parameters
    ----------
    task
        ``ks`` and ``n_seeds`` (instances ``generate(seed, n_jobs, K)``),
        ``n_jobs``, ``reps`` (Optimus, Optimus-LB, JPS exact),
        ``market_max_k`` (JPS with the market, once), ``has_full_max_k``
        (HAS over all of ``Psi``, once), ``has_extrapolate_ks`` and
        ``n_timed`` (HAS timed on that many sampled categories, then
        extrapolated).

    Returns
    -------
    list of dict
        K x seed x (scheme x repetition, sampled categories, extrapolation).
    """
    warm_up()
    return [
        row
        for K in task["ks"]
        for seed in range(task["n_seeds"])
        for row in time_instance(seed, K, task)
    ]


def summarize_running_times(df: pd.DataFrame) -> pd.DataFrame:
    """Median (mean, max) ART per K x scheme, with the paper's value.

    The sampled HAS categories (``has_category``, one market each) come last
    per K; the claims and the plot use the other rows.
    """
    out = (
        df.groupby(["n_workers", "scheme"])
        .agg(
            median_s=("runtime_s", "median"),
            mean_s=("runtime_s", "mean"),
            max_s=("runtime_s", "max"),
            n=("runtime_s", "size"),
            paper_s=("paper_art_s", "first"),
        )
        .reset_index()
    )
    return (
        out.assign(_rank=_rank(out["scheme"], (*TABLE5_SCHEMES, "has_category")))
        .sort_values(["n_workers", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def plot_running_times(df: pd.DataFrame) -> Figure:
    """Table V: our median ART per scheme vs K (solid; HAS extrapolated: dashed), the paper's dotted."""
    summ = summarize_running_times(df)
    fig = Figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.subplots()
    with_paper = ("optimus", "optimus_lb", "jps_market", "has_extrapolated")
    for j, s in enumerate(TABLE5_SCHEMES):
        sub = summ[summ["scheme"] == s]
        label = "HAS (measured)" if s == "has" else LABELS[s]
        if len(sub):
            ls = "--" if s == "has_extrapolated" else "-"
            ax.plot(
                sub["n_workers"],
                sub["median_s"],
                marker="o",
                ls=ls,
                color=f"C{j}",
                label=f"ours: {label}",
            )
        if s in with_paper:
            ks = [k for k in TABLE5_KS if (PAPER_SCHEME[s], k) in PAPER_ART_S]
            art = [PAPER_ART_S[(PAPER_SCHEME[s], k)] for k in ks]
            ax.plot(
                ks,
                art,
                marker="s",
                mfc="none",
                ls=":",
                color=f"C{j}",
                label=f"paper: {label.split(' (')[0]}",
            )
    _k_axis(ax, sorted(set(df["n_workers"]) | set(TABLE5_KS)))
    ax.set_ylabel("algorithm running time (s, median; log)")
    ax.set_title(
        f"Table V: ART, S = {N_JOBS} (dashed: extrapolated from sampled categories)",
        fontsize=9,
    )
    ax.legend(fontsize=7, ncol=2)
    return fig


# ----------------------------------------------------------- Table V claims
def fmt_art(s: float, digits: int = 3) -> str:
    """Seconds as the paper writes them (ms, s or h) to ``digits`` significant digits; ``N/A`` for NaN."""
    if math.isnan(s):
        return "N/A"
    value, unit = (
        (s * 1e3, "ms") if s < 1.0 else (s, "s") if s < 3600.0 else (s / 3600.0, "h")
    )
    return f"{value:.{digits}g} {unit}"


def paper_art_cells(scheme: str) -> str:
    """The paper's ART of ``scheme`` at :data:`TABLE5_KS`, ``/``-separated."""
    return " / ".join(fmt_art(paper_art(scheme, k), 5) for k in TABLE5_KS)


def _medians(df: pd.DataFrame) -> pd.Series:
    return summarize_running_times(df).set_index(["scheme", "n_workers"])["median_s"]


def art_cells(df: pd.DataFrame, scheme: str) -> str:
    """Our median ART of ``scheme`` at :data:`TABLE5_KS` (``-``: not timed)."""
    med = _medians(df)
    return " / ".join(
        fmt_art(med[(scheme, k)]) if (scheme, k) in med.index else "-"
        for k in TABLE5_KS
    )


def art_grows(df: pd.DataFrame) -> Count:
    """Measured schemes (timed at two or more K) whose median ART strictly grows with K."""
    med = _medians(df[df["kind"] == "measured"]).unstack("n_workers")
    med = med[med.notna().sum(axis=1) >= 2]
    hits = sum(_strictly_decreasing(-r) for _, r in med.iterrows())
    return Count(hits, len(med), "schemes")


def cheaper_at_every_k(df: pd.DataFrame, a: str, b: str) -> Count:
    """Values of K (timed both) where the median ART of ``a`` is below that of ``b``."""
    med = _medians(df).unstack("scheme")
    both = med[[a, b]].dropna() if {a, b} <= set(med.columns) else med.iloc[:0]
    return Count(int((both[a] < both[b]).sum()), len(both), "K")


def has_over_jps(df: pd.DataFrame) -> ByK:
    """Median ART of HAS (measured, else extrapolated) over JPS's (market), per K."""
    med = _medians(df)
    parts = []
    for k in sorted(df["n_workers"].unique()):
        has = med.get(("has", k), med.get(("has_extrapolated", k), math.nan))
        v = has / med.get(("jps_market", k), math.nan)
        if not math.isnan(v):
            parts.append((int(k), float(v)))
    return ByK(tuple(parts), "{:,.0f}x")


def paper_has_over_jps_by_k() -> dict[int, float]:
    """The paper's HAS / JPS ART ratio by K where both are given (K = 50, 100)."""
    return {
        k: paper_art("has", k) / paper_art("jps_market", k)
        for k in TABLE5_KS
        if not math.isnan(paper_art("has", k))
    }


def paper_has_over_jps() -> str:
    """The paper's HAS / JPS ART ratio where both are given (K = 50, 100)."""
    return ", ".join(
        f"{k}: {paper_art('has', k) / paper_art('jps_market', k):,.0f}x"
        for k in TABLE5_KS
        if not math.isnan(paper_art("has", k))
    )
