"""Experiment logic of the OASiS figures (specs in ``paper_figures/oasis``).

Each task function takes one task dict of a spec's grid and returns the
tidy rows of that task; every schedule goes through the paper's checker
(``p.check``) and every optimum through :func:`optsched.core.experiment.optimum`.
The plots and summaries that are particular to one figure live here too, so
the specs stay declarative.

Instance keys shared by every task (:func:`instance_size`): ``seed``,
``n_jobs``, ``n_slots``, ``servers_per_side`` (``H = K``) and, optionally,
the generator's ``job_mix`` and ``gamma1_range``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import optsched
from optsched.core.experiment import optimum, optimum_columns
from optsched.core.ratio import best_start

from .duality import certificate
from .online import OasisParams
from .variants import CLAIMS_THEOREM4, VARIANTS

#: The paper's five schemes (the registry's order).
SCHEMES = ("oasis", "fifo", "drf", "rrh", "dorm")
#: The paper's four baselines.
BASELINES = SCHEMES[1:]
#: OASiS and its named variants (:mod:`optsched.oasis.variants`).
VARIANT_NAMES = tuple(VARIANTS)
#: Display names of the schemes.
LABELS = {
    "oasis": "OASiS", "fifo": "FIFO", "drf": "DRF", "rrh": "RRH", "dorm": "Dorm",
    "oasis_lfloor": "OASiS-Lfloor", "oasis_eta_one": "OASiS-eta1",
    "oasis_per_class": "OASiS-class",
}  # fmt: skip
#: The reading each variant stands for (a claim's ``reading=``; the literal
#: ``oasis`` is the default reading and has none).
READINGS = {
    "oasis_lfloor": "oasis_lfloor: L floored by the best single job's utility",
    "oasis_eta_one": "oasis_eta_one: eta_1 = eta_2 = 1",
    "oasis_per_class": "oasis_per_class: U, L, eta per job class",
}
#: Optional ``generate`` keywords a task may carry.
_GENERATOR_KEYS = ("job_mix", "gamma1_range")


def instance_size(task: dict[str, Any]) -> dict[str, Any]:
    """``generate`` keywords of a task (servers split evenly: ``H = K``)."""
    h = task["servers_per_side"]
    return {
        "n_jobs": task["n_jobs"],
        "n_slots": task["n_slots"],
        "n_worker_servers": h,
        "n_ps_servers": h,
        **{k: task[k] for k in _GENERATOR_KEYS if k in task},
    }


def _generate(task: dict[str, Any]):
    """The registry and the instance of a task: ``generate(seed, **instance_size(task))``."""
    p = optsched.get_paper("oasis")
    return p, p.generate(seed=task["seed"], **instance_size(task))


def checked_run(p, inst, scheme: str, params: Any = None):
    """``p.run(scheme, inst, params=params)``, its wall time and the checker's evaluation."""
    t0 = time.perf_counter()
    sched = p.run(scheme, inst, params=params)
    runtime = time.perf_counter() - t0
    return sched, runtime, p.check(inst, sched)


def offered_load(inst: Any) -> float:
    """Offered worker load ``max_r sum_i work_i w_i^r / (T sum_h c_h^r)``.

    Worker-slots of all jobs (constraint (2)) times their per-worker demand,
    over the cluster's worker capacity in the horizon; > 1 means the jobs
    cannot all be served even with perfect packing.
    """
    cap = inst.n_slots * inst.c_worker.sum(axis=0)
    dem = (inst.work[:, None] * inst.w).sum(axis=0)
    pos = cap > 0
    return float(np.max(dem[pos] / cap[pos]))


def _instance_columns(inst: Any, seed: int) -> dict[str, Any]:
    """Columns that regenerate a row's instance (with the task's generator keys)."""
    return {
        "n_slots": inst.n_slots,
        "n_jobs": inst.n_jobs,
        "seed": seed,
        "n_worker_servers": inst.n_worker_servers,
        "n_ps_servers": inst.n_ps_servers,
    }


# ------------------------------------------------------------- Figs. 3, 4
#: Fig. 4's job mix: each job time-sensitive or time-critical with prob. 1/2.
JOB_MIX = (0.0, 0.5, 0.5)
#: Fig. 4's job types, in panel order.
KINDS = ("sensitive", "critical")
FIG3_COLUMNS = [
    "n_slots", "n_jobs", "seed", "scheme", "utility", "n_admitted", "sum_gamma1",
    "load", "runtime_s", "solver_limit_hits", "n_worker_servers", "n_ps_servers",
]  # fmt: skip
FIG4_COLUMNS = [
    "n_slots", "n_jobs", "seed", "scheme", "job", "kind", "admitted", "lateness",
    "utility", "gamma1", "gamma3", "runtime_s", "n_worker_servers", "n_ps_servers",
]  # fmt: skip


def scheme_run(task: dict[str, Any]):
    """Figs. 3-4: the task's instance, its scheme's checked run and the shared columns.

    Task keys: the instance keys (module docstring) and ``scheme``.  Returns
    ``(inst, sched, ev, columns)``.
    """
    p, inst = _generate(task)
    sched, runtime, ev = checked_run(p, inst, task["scheme"])
    cols = {
        **_instance_columns(inst, task["seed"]),
        "scheme": task["scheme"],
        "runtime_s": runtime,
    }
    return inst, sched, ev, cols


def total_utility(task: dict[str, Any]) -> dict[str, Any]:
    """Fig. 3 row: one scheme's checked total utility on one instance.

    ``load`` is :func:`offered_load`; ``solver_limit_hits`` counts Dorm's
    MILP re-solves that stopped before proving optimality (NaN for the
    schemes that solve nothing).
    """
    inst, sched, ev, cols = scheme_run(task)
    solves = sched.meta.get("solves")
    hits = (
        np.nan if solves is None else float(sum(1 for s in solves if s[1] != "optimal"))
    )
    return {
        **cols,
        "utility": ev.objective,
        "n_admitted": ev.n_admitted,
        "sum_gamma1": float(sum(j.gamma1 for j in inst.jobs)),
        "load": offered_load(inst),
        "solver_limit_hits": hits,
    }


def variant_utility(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 3 row of one scheme (OASiS variant or baseline), as :func:`total_utility`.

    With ``dorm_max_jobs`` in the task, Dorm is skipped (no row) on instances
    with more jobs: it re-solves a MILP at every arrival and completion and
    takes more than 7 minutes per 200-job instance here.
    """
    if task["scheme"] == "dorm" and task["n_jobs"] > task.get("dorm_max_jobs", np.inf):
        return []
    return [total_utility(task)]


def completion_timeliness(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 4 rows: one per job, with the checker's lateness ``t_hat_i - a_i - gamma3_i``.

    The lateness is NaN for jobs that are not admitted (and completed).
    """
    inst, _, ev, cols = scheme_run(task)
    return [
        {
            **cols,
            "job": i,
            "kind": job.kind,
            "admitted": bool(ev.admitted[i]),
            "lateness": float(ev.lateness[i]),
            "utility": float(ev.utility[i]),
            "gamma1": job.gamma1,
            "gamma3": job.gamma3,
        }
        for i, job in enumerate(inst.jobs)
    ]


def _schemes(df: pd.DataFrame) -> list[str]:
    """The schemes present, in :data:`SCHEMES` order."""
    present = set(df["scheme"])
    return [s for s in (*SCHEMES, *VARIANT_NAMES[1:]) if s in present]


def plot_total_utility(df: pd.DataFrame) -> Figure:
    """Fig. 3: mean +- std total utility per number of jobs, one line per scheme."""
    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.subplots()
    for scheme in _schemes(df):
        s = df[df["scheme"] == scheme].groupby("n_jobs")["utility"].agg(["mean", "std"])
        ax.errorbar(
            s.index, s["mean"], yerr=s["std"].fillna(0.0), marker="o", capsize=3,
            label=LABELS.get(scheme, scheme),
        )  # fmt: skip
    loads = df.groupby("n_jobs")["load"].mean()
    ax.set_xticks(loads.index, [f"{n}\n(load {ld:.2f})" for n, ld in loads.items()])
    ax.set_xlabel("number of jobs (offered worker load)")
    ax.set_ylabel("total utility (mean ± std over seeds)")
    T, H = int(df["n_slots"].iloc[0]), int(df["n_worker_servers"].iloc[0])
    ax.set_title(f"Fig. 3: total job utility, T = {T}, H = K = {H}")
    ax.legend()
    return fig


def summarize_total_utility(df: pd.DataFrame) -> pd.DataFrame:
    """Per number of jobs: load, mean utility per scheme, best baseline and OASiS / best."""
    t = df.pivot_table(
        index="n_jobs", columns="scheme", values="utility", aggfunc="mean"
    )
    t.insert(0, "load", df.groupby("n_jobs")["load"].mean())
    others = [c for c in t.columns if c in BASELINES]
    if others:
        t["best_baseline"] = t[others].idxmax(axis=1)
        for v in [c for c in t.columns if c in VARIANT_NAMES]:
            t[f"{v}/best_baseline"] = t[v] / t[others].max(axis=1)
    return t


@dataclass(frozen=True)
class Cases:
    """Our value of one claim per case (e.g. per number of jobs), printed ``case: value``."""

    cases: tuple[tuple[str, float, str], ...]  # (case, value, note)
    fmt: str = "{:.2f}"

    def __str__(self) -> str:
        return "; ".join(f"{c}: {self.fmt.format(v)}{n}" for c, v, n in self.cases)

    @property
    def values(self) -> list[float]:
        """The values, in case order."""
        return [v for _, v, _ in self.cases]


def oasis_vs_best(df: pd.DataFrame, variant: str = "oasis") -> Cases:
    """Mean utility of ``variant`` / best baseline's, per number of jobs.

    The note names the best baseline; for a variant other than ``oasis`` it
    also gives the variant's rank among itself and the four baselines.
    """
    t = summarize_total_utility(df)
    cases = []
    for n, r in t.iterrows():
        note = LABELS[r["best_baseline"]]
        if variant != "oasis":
            field = [c for c in (variant, *BASELINES) if c in t.columns]
            rank = 1 + sum(r[c] > r[variant] for c in field if c != variant)
            note = f"best baseline {note}; rank {rank}/{len(field)}"
        cases.append((f"{n} jobs", float(r[f"{variant}/best_baseline"]), f" ({note})"))
    return Cases(tuple(cases))


def loads(df: pd.DataFrame) -> Cases:
    """Mean offered worker load per number of jobs."""
    return Cases(
        tuple(
            (f"{n} jobs", float(v), "")
            for n, v in df.groupby("n_jobs")["load"].mean().items()
        )
    )


@dataclass(frozen=True)
class Rank:
    """A lateness statistic of OASiS and of the best other scheme, on one job type."""

    kind: str
    stat: str
    oasis: float
    oasis_done: str  # completed / jobs
    other: str | None
    other_value: float
    other_done: str

    def __str__(self) -> str:
        best = (
            "no other scheme"
            if self.other is None
            else f"{LABELS[self.other]} {self.other_value:.2f} ({self.other_done})"
        )
        return f"{self.kind}: OASiS {self.oasis:.2f} ({self.oasis_done}) vs {best}"

    @property
    def oasis_best(self) -> bool:
        """Whether OASiS's |statistic| is at most every other qualifying scheme's."""
        return self.other is None or abs(self.oasis) <= abs(self.other_value)


@dataclass(frozen=True)
class Ranks:
    """One :class:`Rank` per job type, printed ``a; b``."""

    ranks: tuple[Rank, ...]

    def __str__(self) -> str:
        return "; ".join(str(r) for r in self.ranks)

    @property
    def oasis_best(self) -> bool:
        """Whether OASiS is best on every job type."""
        return all(r.oasis_best for r in self.ranks)


def summarize_lateness(df: pd.DataFrame) -> pd.DataFrame:
    """Per job type x scheme: completed jobs (of all) and the lateness statistics."""
    g = df[df["admitted"]].groupby(["kind", "scheme"])["lateness"]
    t = pd.DataFrame(
        {
            "completed": g.size(),
            "of_jobs": df.groupby(["kind", "scheme"]).size(),
            "median": g.median(),
            "mean": g.mean(),
            "std": g.std(),
            "mean_abs": g.apply(lambda s: s.abs().mean()),
        }
    )
    t["completed"] = t["completed"].fillna(0).astype(int)
    return t


def lateness_ranks(df: pd.DataFrame, stat: str, min_relative: float = 0.0) -> Ranks:
    """OASiS against the other schemes on lateness ``stat`` (``median`` or ``std``), per job type.

    "Best" is the smallest absolute value.  Another scheme qualifies when its
    statistic exists and it completed at least ``min_relative`` times as many
    jobs of that type as OASiS (so that rejecting hard jobs does not count
    as punctuality).
    """
    t = summarize_lateness(df)
    ranks = []
    for kind in ("critical", "sensitive"):
        k: Any = t.loc[kind]  # pandas-stubs: .at/.loc scalars are a wide union
        done = {s: f"{k.at[s, 'completed']}/{k.at[s, 'of_jobs']}" for s in k.index}
        floor = min_relative * k.at["oasis", "completed"]
        others = k[(k.index != "oasis") & k[stat].notna() & (k["completed"] >= floor)]
        best = others[stat].abs().idxmin() if len(others) else None
        ranks.append(
            Rank(
                kind,
                stat,
                float(k.at["oasis", stat]),
                done["oasis"],
                best,
                np.nan if best is None else float(others.at[best, stat]),
                "" if best is None else done[best],
            )
        )
    return Ranks(tuple(ranks))


def completed(df: pd.DataFrame) -> str:
    """Completed / jobs per scheme and job type."""
    t: Any = summarize_lateness(df)  # pandas-stubs: .at scalars are a wide union
    return "; ".join(
        f"{kind}: " + ", ".join(
            f"{LABELS[s]} {t.at[(kind, s), 'completed']}/{t.at[(kind, s), 'of_jobs']}"
            for s in _schemes(df)
        )
        for kind in ("critical", "sensitive")
    )  # fmt: skip


def plot_completion_timeliness(df: pd.DataFrame) -> Figure:
    """Fig. 4: box plots of the lateness of completed jobs, one panel per job type."""
    fig = Figure(figsize=(10.0, 4.2), layout="constrained")
    axes = fig.subplots(1, len(KINDS), sharey=True)
    schemes = _schemes(df)
    for ax, kind in zip(axes, KINDS, strict=True):
        sub = df[(df["kind"] == kind) & df["admitted"]]
        data = [sub.loc[sub["scheme"] == s, "lateness"].to_numpy() for s in schemes]
        ax.boxplot([d if len(d) else np.array([np.nan]) for d in data])
        ax.set_xticks(
            range(1, len(schemes) + 1),
            [
                f"{LABELS.get(s, s)}\n(n={len(d)})"
                for s, d in zip(schemes, data, strict=True)
            ],
        )
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_title(f"time-{kind} jobs")
        ax.set_xlabel("scheme (n = completed jobs, all seeds)")
    axes[0].set_ylabel("actual - target completion time (slots)")
    T = int(df["n_slots"].iloc[0])
    fig.suptitle(f"Fig. 4: completion timeliness, T = {T}, {df['n_jobs'].iloc[0]} jobs")
    return fig


# ------------------------------------------------------------------ Fig. 5
FIG5_COLUMNS = [
    "n_servers",
    "n_worker_servers",
    "n_ps_servers",
    "gamma1_lo",
    "gamma1_hi",
    "seed",
    "n_jobs",
    "n_slots",
    "alg_objective",
    "opt_objective",
    "opt_bound",
    "bound_kind",
    "opt_status",
    "kind",
    "ratio",
    "ratio_lo",
    "ratio_hi",
    "ln_max_ul",
    "two_alpha",
    "alg_runtime_s",
    "opt_runtime_s",
]


def _log_ul(sched) -> float:
    """``ln max_r U/L`` of a primal-dual run (largest over its parameter sets)."""
    sets = sched.meta.get("param_sets") or [sched.meta["params"]]
    return max(pp.log_ul for pp in sets)


def _ratio_row(p, inst, task: dict[str, Any], scheme: str):
    """Fig. 5 columns of one OASiS run (``scheme``) against the certified optimum.

    Returns ``(row, sched, opt)``.
    """
    size = instance_size(task)
    sched, alg_runtime, ev = checked_run(p, inst, scheme)
    alg = float(ev.objective)
    start = best_start("oasis", inst)  # the MIP start: best online schedule
    opt = optimum("oasis", inst, time_limit=task["time_limit"], start=start)
    where = f"oasis seed={task['seed']} {size}"
    row = {
        "n_servers": inst.n_worker_servers + inst.n_ps_servers,
        "n_worker_servers": inst.n_worker_servers,
        "n_ps_servers": inst.n_ps_servers,
        "gamma1_lo": size["gamma1_range"][0],
        "gamma1_hi": size["gamma1_range"][1],
        "seed": task["seed"],
        "n_jobs": inst.n_jobs,
        "n_slots": inst.n_slots,
        "alg_objective": alg,
        **optimum_columns(opt, "max", alg, instance=where, algorithm=scheme),
        "ln_max_ul": _log_ul(sched),
        "two_alpha": 2.0 * float(sched.meta["alpha"]),
        "alg_runtime_s": alg_runtime,
    }
    return row, sched, opt


def performance_ratio(task: dict[str, Any]) -> dict[str, Any]:
    """Fig. 5 row: OASiS (checked) against the certified offline optimum.

    Task keys: ``seed``, ``servers_per_side``, ``gamma1_range``, ``n_jobs``,
    ``n_slots``, ``time_limit``.  ``kind`` is ``proven``, ``interval``,
    ``alg_zero`` (OASiS earns 0: infinite ratio) or ``no_opt``.
    """
    p, inst = _generate(task)
    return _ratio_row(p, inst, task, "oasis")[0]


FIG5_VARIANT_COLUMNS = [
    "variant", *FIG5_COLUMNS[:-2], "theorem4_claimed", "within_two_alpha",
    "d0_le_half_opt", "dual_feasible", "n_violations", "max_violation",
    "lemma2_holds", "opt_le_d_exact", "d0", "d_run", "d_exact", "max_share",
    "alg_runtime_s", "opt_runtime_s",
]  # fmt: skip


def max_share(inst, sched) -> float:
    """Largest share of one server's capacity of one resource that one job takes in a slot.

    Theorem 4's proof assumes ``w_i^r << c_h^r`` (Appendix B); this is how
    far the run is from that.
    """
    best = 0.0
    for cap, dem, use in (
        (inst.c_worker, inst.w, sched.workers),
        (inst.c_ps, inst.s, sched.ps),
    ):
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(cap > 0, 1.0 / np.where(cap > 0, cap, 1.0), 0.0)
        # job i, server h, slot t, resource r: use[i,h,t] dem[i,r] / cap[h,r]
        share = np.einsum("iht,ir,hr->ihtr", use, dem, frac)
        if share.size:
            best = max(best, float(share.max()))
    return best


def variant_ratios(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 5 rows for OASiS and every named variant on one instance (one solve).

    Beside the ratio columns of :func:`performance_ratio`, each row checks
    Theorem 4's argument on the run (:func:`optsched.oasis.duality.certificate`):
    ``within_two_alpha`` (``OPT / ALG <= 2 alpha``, proven optima only, else
    NaN), ``d0_le_half_opt`` ((35), with OPT the proven optimum or the
    incumbent), ``dual_feasible`` / ``n_violations`` / ``max_violation``
    (the run's ``mu`` and final prices against the exact oracle),
    ``lemma2_holds`` (``P >= (D_I - D_0) / alpha``), ``opt_le_d_exact`` (weak
    duality, must be true) and ``max_share`` (:func:`max_share`).
    Task keys: those of :func:`performance_ratio` and ``variants``.
    """
    p, inst = _generate(task)
    rows = []
    for v in task["variants"]:
        row, sched, opt = _ratio_row(p, inst, task, v)
        cert = certificate(inst, sched)
        proven = row["kind"] == "proven"
        opt_value = float(opt.objective)
        rows.append(
            {
                "variant": v,
                **row,
                "theorem4_claimed": CLAIMS_THEOREM4[v],
                "within_two_alpha": (
                    float(row["ratio"] <= row["two_alpha"] + 1e-9) if proven else np.nan
                ),
                "d0_le_half_opt": bool(cert.d0 <= opt_value / 2 + 1e-9),
                "dual_feasible": cert.dual_feasible,
                "n_violations": cert.n_violations,
                "max_violation": cert.max_violation,
                "lemma2_holds": cert.lemma2_holds,
                "opt_le_d_exact": cert.bounds_opt(opt_value),
                "d0": cert.d0,
                "d_run": cert.d_run,
                "d_exact": cert.d_exact,
                "max_share": max_share(inst, sched),
            }
        )
    return rows


def variant_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per variant: Fig. 5 ratio statistics and the checks of Theorem 4's argument."""
    g = df.groupby("variant", sort=False)
    proven = df[df["kind"] == "proven"]
    finite = proven[np.isfinite(proven["ratio"])]
    out = pd.DataFrame(
        {
            "instances": g.size(),
            "proven": proven.groupby("variant", sort=False).size(),
            "ratio_median": finite.groupby("variant", sort=False)["ratio"].median(),
            "ratio_mean": finite.groupby("variant", sort=False)["ratio"].mean(),
            "ratio_max": finite.groupby("variant", sort=False)["ratio"].max(),
            "alg_zero": (df["kind"] == "alg_zero").groupby(df["variant"]).sum(),
            "ln_max_ul_median": g["ln_max_ul"].median(),
            "within_two_alpha": g["within_two_alpha"].mean(),
            "dual_feasible": g["dual_feasible"].mean(),
            "lemma2_holds": g["lemma2_holds"].mean(),
            "opt_le_d_exact": g["opt_le_d_exact"].mean(),
        }
    )
    return out.reindex([v for v in VARIANT_NAMES if v in out.index])


def variant_cell(df: pd.DataFrame, variant: str, column: str) -> float:
    """One cell of :func:`variant_table` (NaN when the variant did not run)."""
    t: Any = variant_table(df)  # pandas-stubs: .loc scalars are a wide union
    return float(t.loc[variant, column]) if variant in t.index else float("nan")


def plot_variant_ratios(df: pd.DataFrame) -> Figure:
    """Proven OPT / ALG per variant (log scale), with the paper's 1.1-1.5 band."""
    fig = Figure(figsize=(7.0, 4.2), layout="constrained")
    ax = fig.subplots()
    names = [v for v in VARIANT_NAMES if v in set(df["variant"])]
    data = [proven_ratios(df[df["variant"] == v]).to_numpy() for v in names]
    ax.boxplot(data, showfliers=True)
    ax.set_xticks(range(1, len(names) + 1), [LABELS.get(v, v) for v in names])
    for x, v in enumerate(names, start=1):
        zero = int(((df["variant"] == v) & (df["kind"] == "alg_zero")).sum())
        if zero:
            ax.annotate(f"ALG=0: {zero}", (x, 1.0), fontsize=7, ha="center")
    ax.axhspan(1.1, 1.5, color="grey", alpha=0.15, label="paper: 1.1-1.5")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_ylabel("OPT / ALG (proven optima, log scale)")
    n, T = int(df["n_jobs"].iloc[0]), int(df["n_slots"].iloc[0])
    ax.set_title(f"Fig. 5 per OASiS variant: {n} jobs, T = {T}")
    ax.legend(fontsize=8)
    return fig


def proven_ratios(df: pd.DataFrame) -> pd.Series:
    """The finite ratios against proven optima."""
    r = df.loc[df["kind"] == "proven", "ratio"]
    return r[np.isfinite(r)]


#: Fig. 5's factors of "no clear trend" and how a case is printed.
_FACTOR_LABELS = {"n_servers": "{:g} servers", "gamma1_hi": "gamma1 <= {:g}"}


def median_ratio_per(
    df: pd.DataFrame, column: str, variant: str | None = None
) -> Cases:
    """Median proven finite ratio per value of ``column`` (``n_servers`` or ``gamma1_hi``).

    With ``variant``, only that variant's rows (``oasis_variants_fig5``).
    """
    if variant is not None:
        df = df[df["variant"] == variant]
    r = proven_ratios(df)
    med = r.groupby(df.loc[r.index, column]).median()
    label = _FACTOR_LABELS[column]
    return Cases(tuple((label.format(k), float(v), "") for k, v in med.items()))


def flat(cases: Cases, rel: float = 0.10) -> bool:
    """``holds`` of "no clear trend": at least two cases, ``(max - min) / min <= rel``."""
    v = cases.values
    return len(v) >= 2 and min(v) > 0 and (max(v) - min(v)) <= rel * min(v)


def no_direction(cases: Cases) -> bool:
    """``trend`` of "no clear trend": the values neither rise nor fall throughout.

    True when the sequence (in case order) is not monotone, so it needs at
    least three cases.
    """
    d = np.diff(cases.values)
    return len(d) >= 2 and bool((d > 0).any() and (d < 0).any())


def plot_performance_ratio(df: pd.DataFrame) -> Figure:
    """Fig. 5: proven ratios per configuration, unproven intervals, Theorem 4's 2 alpha."""
    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    ax = fig.subplots()
    keys = ["n_servers", "gamma1_hi"]
    configs = df.groupby(keys)["ln_max_ul"].median().reset_index()
    configs = configs.sort_values(["n_servers", "ln_max_ul"], kind="stable")
    ticks, labels, seen = [], [], set()

    def once(label: str) -> str | None:
        if label in seen:
            return None
        seen.add(label)
        return label

    for x, row in enumerate(configs.itertuples(index=False)):
        sub = df[
            (df["n_servers"] == row.n_servers) & (df["gamma1_hi"] == row.gamma1_hi)
        ]
        proven = sub[sub["kind"] == "proven"]
        jitter = np.linspace(-0.15, 0.15, max(len(proven), 1))[: len(proven)]
        if len(proven):
            ax.scatter(
                x + jitter,
                proven["ratio"],
                color="C0",
                s=18,
                label=once("proven OPT / OASiS"),
            )
            ax.scatter(
                [x],
                [proven["ratio"].median()],
                marker="_",
                s=400,
                color="k",
                label=once("median of proven"),
            )
        ax.scatter(
            [x],
            [sub["two_alpha"].median()],
            marker="v",
            color="C3",
            s=30,
            label=once("Theorem 4 bound 2α (median)"),
        )
        inter = sub[sub["kind"] == "interval"]
        for k, r in enumerate(cast(Iterable[Any], inter.itertuples(index=False))):
            ax.vlines(
                x + 0.25 + 0.05 * k,
                r.ratio_lo,
                r.ratio_hi,
                color="C1",
                # matplotlib's stub wants str; None (no legend entry) is valid
                label=once("[incumbent, bound] / OASiS (not proven)"),  # type: ignore[arg-type]
            )
        n_zero = int((sub["kind"] == "alg_zero").sum())
        ticks.append(x)
        extra = f"\nALG=0: {n_zero}" if n_zero else ""
        labels.append(
            f"{row.n_servers} srv\nγ1≤{row.gamma1_hi:g}\nln U/L={row.ln_max_ul:.1f}{extra}"
        )
    ax.axhspan(1.1, 1.5, color="grey", alpha=0.15, label="paper: 1.1-1.5")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_xlabel("servers (workers + PS), priority range, median ln max_r U/L")
    ax.set_yscale("log")
    ax.set_ylabel("performance ratio OPT / OASiS (log scale)")
    n, T = int(df["n_jobs"].iloc[0]), int(df["n_slots"].iloc[0])
    ax.set_title(f"Fig. 5: performance ratio, {n} jobs, T = {T}")
    ax.legend(fontsize=8)
    return fig


def summarize_performance_ratio(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: counts by kind and the proven ratios' statistics."""
    keys = ["n_servers", "gamma1_hi"]
    g = df.groupby(keys)
    proven = df[df["kind"] == "proven"].groupby(keys)["ratio"]
    counts = pd.crosstab([df[k] for k in keys], df["kind"])
    return pd.DataFrame(
        {
            "instances": g.size(),
            **{
                k: counts.get(k, 0)
                for k in ("proven", "interval", "alg_zero", "no_opt")
            },
            "ratio_median": proven.median(),
            "ratio_mean": proven.mean(),
            "ratio_max": proven.max(),
            "ln_max_ul_median": g["ln_max_ul"].median(),
            "two_alpha_median": g["two_alpha"].median(),
        }
    )


# ------------------------------------------------------------------ Fig. 6
#: Fig. 6's U/L estimates, as fractions of the actual values.
SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)
FIG6_COLUMNS = [
    "n_slots", "n_jobs", "resources", "seed", "ul_scale", "scheme", "utility",
    "n_admitted", "sum_gamma1", "load", "ln_max_ul", "rel_to_actual", "runtime_s",
    "n_worker_servers", "n_ps_servers",
]  # fmt: skip


def ul_estimates(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Fig. 6 rows: OASiS with every ``ul_scale`` of ``task["scales"]`` on one instance.

    Task keys: the instance keys, ``resources`` (a label of the
    configuration) and ``scales``.  ``ln_max_ul`` is ``ln max_r U/L`` of the
    exact estimates; ``rel_to_actual`` is added by :func:`add_relative`.
    """
    p, inst = _generate(task)
    base = {
        **_instance_columns(inst, task["seed"]),
        "resources": task["resources"],
        "sum_gamma1": float(sum(j.gamma1 for j in inst.jobs)),
        "load": offered_load(inst),
        "ln_max_ul": _log_ul(p.run("oasis", inst)),
    }
    rows = []
    for x in task["scales"]:
        _, runtime, ev = checked_run(p, inst, "oasis", OasisParams(ul_scale=x))
        rows.append(
            {
                **base,
                "ul_scale": x,
                "scheme": "oasis",
                "utility": ev.objective,
                "n_admitted": ev.n_admitted,
                "runtime_s": runtime,
            }
        )
    return rows


def add_relative(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``rel_to_actual``: utility over the same instance's utility at 100% (NaN if that is 0)."""
    key = ["n_slots", "n_jobs", "seed"]
    ref = df[df["ul_scale"] == 1.0].set_index(key)["utility"]
    base = df.join(ref.rename("_ref"), on=key)["_ref"]
    return df.assign(rel_to_actual=df["utility"] / base.where(base > 0))


def plot_ul_estimates(df: pd.DataFrame) -> Figure:
    """Fig. 6: utility and paired change vs exact U/L per estimate, one line per configuration."""
    fig = Figure(figsize=(11.0, 4.2), layout="constrained")
    ax_abs, ax_rel = fig.subplots(1, 2)
    for i, ((n, res), g) in enumerate(df.groupby(["n_jobs", "resources"], sort=True)):
        label = f"{n} jobs ({res}), load {g['load'].mean():.2f}"
        for ax, col, scale, shift in (
            (ax_abs, "utility", 1.0, 0.0),
            (ax_rel, "rel_to_actual", 100.0, 100.0),
        ):
            s = g.groupby("ul_scale")[col].agg(["mean", "std"]) * scale
            ax.errorbar(
                s.index * 100 * (1 + 0.03 * (i - 1)),  # small offset per series
                s["mean"] - shift, yerr=s["std"].fillna(0.0), marker="o", capsize=3, label=label,
            )  # fmt: skip
    for ax in (ax_abs, ax_rel):
        ax.set_xscale("log", base=2)
        ax.set_xticks([x * 100 for x in SCALES], [f"{x:.0%}" for x in SCALES])
        ax.set_xticks([], minor=True)
        ax.set_xlabel("U/L estimate (% of actual value)")
    ax_abs.set_ylabel("OASiS total utility (mean ± std over seeds)")
    ax_abs.legend(fontsize=8)
    ax_abs.set_title("total utility", fontsize=10)
    ax_rel.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax_rel.set_ylabel("change vs. exact U/L on the same instance (%)")
    ax_rel.set_title("paired change (mean ± std over seeds)", fontsize=10)
    T, H = int(df["n_slots"].iloc[0]), int(df["n_worker_servers"].iloc[0])
    fig.suptitle(f"Fig. 6: OASiS under inaccurate U/L, T = {T}, H = K = {H}")
    return fig


def summarize_ul_estimates(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: mean utility per estimate, under - over, seeds with under > over, ln U/L, load.

    ``under-over_%`` is the per-seed difference of the mean utilities with
    under- (< 100%) and overestimates (> 100%), in % of the exact estimate's
    utility, averaged over seeds.
    """
    cfg = ["n_slots", "n_jobs", "resources"]
    s = df.groupby([*cfg, "ul_scale"])["utility"].mean().unstack("ul_scale")
    s.columns = [f"{c:.0%}" for c in s.columns]
    per_seed = df.assign(side=np.sign(df["ul_scale"] - 1.0)).pivot_table(
        index=[*cfg, "seed"], columns="side", values="utility", aggfunc="mean"
    )
    diff = (per_seed[-1.0] - per_seed[1.0]) / per_seed[0.0].where(per_seed[0.0] > 0)
    levels = [0, 1, 2]
    s["under-over_%"] = 100 * diff.groupby(level=levels).mean()
    s["seeds_under>over"] = (
        (per_seed[-1.0] > per_seed[1.0]).groupby(level=levels).sum().astype(int)
    )
    s["seeds"] = per_seed.groupby(level=levels).size()
    s["ln_max_ul"] = df.groupby(cfg)["ln_max_ul"].mean()
    s["load"] = df.groupby(cfg)["load"].mean()
    return s


def _per_config(
    df: pd.DataFrame,
    column: str,
    fmt: str,
    note: Callable[[pd.Series], str] = lambda r: "",
) -> Cases:
    """A column of :func:`summarize_ul_estimates` per configuration, ``note(row)`` appended."""
    s = summarize_ul_estimates(df)
    return Cases(
        tuple(
            (f"{n} jobs ({res})", float(r[column]), note(r))
            for (_, n, res), r in cast(Iterable[Any], s.iterrows())
        ),
        fmt,
    )


def under_minus_over(df: pd.DataFrame, resources: str | None = None) -> Cases:
    """``under-over_%`` per configuration (or of the ``resources`` one), with seeds where under > over."""
    if resources is not None:
        df = df[df["resources"] == resources]
    return _per_config(
        df,
        "under-over_%",
        "{:+.2f}%",
        lambda r: (
            f" ({r['seeds_under>over']:.0f}/{r['seeds']:.0f} seeds with under > over)"
        ),
    )


def max_change(df: pd.DataFrame) -> float:
    """Largest ``|utility / utility at 100% - 1|`` over all rows, in %."""
    return float(100 * (df["rel_to_actual"] - 1.0).abs().max())


def ln_ul(df: pd.DataFrame) -> Cases:
    """Mean ``ln max_r U/L`` per configuration."""
    return _per_config(df, "ln_max_ul", "{:.1f}")
