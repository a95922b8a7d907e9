"""Experiment logic of Table II and Figs. 4-6: the categories of HAS (specs in ``paper_figures/hetero``).

* :func:`table2` (Table II, Sec. IV-A example): Alg. 2's market on each
  category of ``optsched.hetero.example()``, HAS, the certified optimum
  (:func:`optsched.core.experiment.optimum`), the paper's exhaustive search
  and LAS, one row per method, beside the paper's printed values.
* :func:`landscape` (Figs. 4-6): the market once over all of ``Psi`` for
  one ``K``, every category in Alg. 1 order without (Figs. 4-5) and with
  (Fig. 6) job prioritising; :func:`summarize_landscape` derives the
  fairness range, the best category and the exact sampling analogue of
  Sec. V-B (:func:`expected_min`) per ``K``.

Every placement is re-evaluated by the paper's checker (``p.check``); the
JCTs, throughputs and fairness degrees in the rows are the checker's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from optsched.core.experiment import Cells, near, optimum
from optsched.core.ratio import best_start
from optsched.hetero.instance import GPU_TYPES, HeteroInstance, example
from optsched.hetero.online import (
    categories_array,
    fairness_degree,
    has_categories,
    priority_order,
    rear_start,
)
from optsched.hetero.paper import solve_by_enumeration
from optsched.hetero.schedule import HeteroPlacement

from .common import (
    H_TARGET,
    MODEL_ORDER,
    PCT_TOLERANCE,
    category,
    cells_hold,
    gpu_counts,
    make_instance,
    paper,
    pct_near,
)
from .jct import timed

# ================================================================ Table II
#: Table II and Sec. IV-A as printed, by row: GPU sets (ResNet-18, VGG-19),
#: throughputs (samples/s; LAS: none), avg JCT (s) and gap to the optimum.
PAPER_TABLE2: dict[str, dict[str, Any]] = {
    key: dict(zip(("gpus", "throughput", "avg_jct", "gap"), row, strict=True))
    for key, row in {
        "3-1": (("T4,T4,V100", "V100"), (1194.0, 1754.0), 11225.8, 0.060),
        "2-2": (("T4,T4", "V100,V100"), (550.0, 3508.0), 19607.1, math.nan),
        "1-3": (("T4", "T4,T4,V100"), (275.0, 4392.0), 37502.1, math.nan),
        "optimal": (("V100,V100", "T4,T4"), (1288.0, 1768.0), 10592.0, 0.0),
        "las": (("T4,V100", "T4,V100"), (math.nan, math.nan), 12776.8, 0.206),
    }.items()
}
#: Table II's categories in Alg. 1 order (K = 4, S = 2) and HAS's choice (Sec. IV-D).
TABLE2_CATEGORIES = ("3-1", "2-2", "1-3")
PAPER_HAS_CATEGORY = "3-1"
TABLE2_COLUMNS = [
    "instance", "n_jobs", "n_workers", "method", "category", "selected_by_has",
    "resnet18_gpus", "vgg19_gpus", "resnet18_throughput", "vgg19_throughput",
    "resnet18_jct", "vgg19_jct", "avg_jct", "avg_jct_algorithm", "gap_to_opt",
    "status", "bound", "market_rounds", "prices", "assignment", "runtime_s",
    "paper_resnet18_gpus", "paper_vgg19_gpus", "paper_resnet18_throughput",
    "paper_vgg19_throughput", "paper_avg_jct", "paper_gap_to_opt",
    "paper_gpus_consistent", "abs_diff_avg_jct",
]  # fmt: skip


def gpu_set(inst: HeteroInstance, pl: HeteroPlacement, job: int) -> str:
    """GPU types of ``job``'s workers, sorted T4, P100, V100, e.g. ``"T4,T4,V100"``."""
    rank = {g: j for j, g in enumerate(GPU_TYPES)}
    return ",".join(
        sorted(
            (inst.gpu[k] for k in pl.workers_of(job)), key=lambda g: (rank.get(g, 9), g)
        )
    )


def set_throughput(inst: HeteroInstance, gpus: str, job: int) -> float:
    """Throughput of ``job`` on a printed GPU set (the instance's per-type throughput)."""
    per_type = {inst.gpu[k]: float(inst.rho[job, k]) for k in range(inst.n_workers)}
    return sum(per_type[g] for g in gpus.split(","))


def _paper_columns(inst: HeteroInstance, key: str, avg: float) -> dict[str, Any]:
    """The printed values of row ``key`` (:data:`PAPER_TABLE2`) and how ours compare.

    ``paper_gpus_consistent``: whether the printed GPU sets give the printed
    throughputs on the instance (NaN where none is printed).
    """
    pp = PAPER_TABLE2[key]
    (g0, g1), (t0, t1) = pp["gpus"], pp["throughput"]
    consistent: Any = math.nan
    if not math.isnan(t0):
        consistent = bool(
            np.isclose(set_throughput(inst, g0, 0), t0)
            and np.isclose(set_throughput(inst, g1, 1), t1)
        )
    return {
        "paper_resnet18_gpus": g0,
        "paper_vgg19_gpus": g1,
        "paper_resnet18_throughput": t0,
        "paper_vgg19_throughput": t1,
        "paper_avg_jct": pp["avg_jct"],
        "paper_gap_to_opt": pp["gap"],
        "paper_gpus_consistent": consistent,
        "abs_diff_avg_jct": abs(avg - pp["avg_jct"]),
    }


def table2_row(
    inst: HeteroInstance,
    method: str,
    pl: HeteroPlacement,
    paper_key: str,
    **extra: Any,
) -> dict[str, Any]:
    """One Table II row: the checker's view of ``pl`` beside the paper's printed values."""
    ev = paper().check(inst, pl)
    row: dict[str, Any] = {
        "instance": "example",
        "n_jobs": inst.n_jobs,
        "n_workers": inst.n_workers,
        "method": method,
        "category": category(ev),
        "selected_by_has": False,
        "resnet18_gpus": gpu_set(inst, pl, 0),
        "vgg19_gpus": gpu_set(inst, pl, 1),
        "resnet18_throughput": float(ev.throughput[0]),
        "vgg19_throughput": float(ev.throughput[1]),
        "resnet18_jct": float(ev.jct[0]),
        "vgg19_jct": float(ev.jct[1]),
        "avg_jct": float(ev.objective),
        "avg_jct_algorithm": math.nan,
        "status": "",
        "bound": math.nan,
        "market_rounds": math.nan,
        "prices": "",
        "assignment": json.dumps([int(x) for x in pl.assignment]),
        "runtime_s": math.nan,
        **_paper_columns(inst, paper_key, float(ev.objective)),
    }
    return {**row, **extra}


def _prices(prices: Iterable[float]) -> str:
    return json.dumps([float(x) for x in prices])


def table2(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Table II: the three categories, HAS, two optima and LAS on the Sec. IV-A example.

    Parameters
    ----------
    task
        ``time_limit``: seconds for the MILP and for the enumeration.

    Returns
    -------
    list of dict
        ``method`` ``category`` (Alg. 2 on each category, Alg. 1 order),
        ``has``, ``optimal_milp`` (:func:`optsched.core.experiment.optimum`),
        ``optimal_enum`` (:func:`optsched.hetero.paper.solve_by_enumeration`)
        and ``las``, each checked; ``gap_to_opt`` is relative to the lower
        of the two optima.
    """
    p, inst = paper(), example()
    per_cat, dt = timed(lambda: has_categories(inst))
    rows = [
        table2_row(
            inst,
            "category",
            HeteroPlacement.from_assignment(
                inst, r.market.assignment, algorithm="has_category", category=r.category
            ),
            "-".join(str(int(x)) for x in r.category),
            avg_jct_algorithm=float(r.avg_jct),
            market_rounds=int(r.market.rounds),
            prices=_prices(r.market.prices),
            runtime_s=dt / max(1, len(per_cat)),
        )
        for r in per_cat
    ]
    has_pl, dt = timed(lambda: p.run("has", inst))
    has_row = table2_row(
        inst,
        "has",
        has_pl,
        PAPER_HAS_CATEGORY,
        avg_jct_algorithm=float(has_pl.meta["avg_jct_predicted"]),
        market_rounds=int(has_pl.meta["rounds"]),
        prices=_prices(has_pl.prices),
        runtime_s=dt,
        selected_by_has=True,
    )
    for r in rows:
        r["selected_by_has"] = r["category"] == has_row["category"]
    rows.append(has_row)
    limit = task["time_limit"]
    start = best_start("hetero", inst)  # the MIP start: best online placement
    for method, opt in (
        ("optimal_milp", optimum("hetero", inst, time_limit=limit, start=start)),
        ("optimal_enum", solve_by_enumeration(inst, time_limit=limit)),
    ):
        rows.append(
            table2_row(
                inst,
                method,
                cast(HeteroPlacement, opt.schedule),
                "optimal",
                avg_jct_algorithm=float(opt.objective),
                status=opt.status,
                bound=float(opt.bound),
                runtime_s=float(opt.runtime),
            )
        )
    las_pl, dt = timed(lambda: p.run("las", inst))
    rows.append(table2_row(inst, "las", las_pl, "las", runtime_s=dt))
    best = min(r["avg_jct"] for r in rows if r["method"].startswith("optimal"))
    for r in rows:
        r["gap_to_opt"] = r["avg_jct"] / best - 1.0
    return rows


def table2_label(method: str, cat: str) -> str:
    """Row label of Table II: ``{3, 1}``, ``optimal``, ``LAS``, ``HAS {3, 1}``, ..."""
    cat_set = "{" + cat.replace("-", ", ") + "}"
    names = {"optimal_milp": "optimal", "optimal_enum": "optimal (enum.)", "las": "LAS"}
    if method == "category":
        return cat_set
    return f"HAS {cat_set}" if method == "has" else names.get(method, method)


def summarize_table2(df: pd.DataFrame) -> pd.DataFrame:
    """Table II as ours vs printed: GPU sets, throughputs, avg JCT and gap to the optimum."""
    out = df.assign(
        row=[
            table2_label(m, c)
            for m, c in zip(df["method"], df["category"], strict=True)
        ],
        gpus=df["resnet18_gpus"] + " | " + df["vgg19_gpus"],
        paper_gpus=df["paper_resnet18_gpus"] + " | " + df["paper_vgg19_gpus"],
    )
    cols = [
        "gpus", "paper_gpus", "resnet18_throughput", "vgg19_throughput",
        "paper_resnet18_throughput", "paper_vgg19_throughput", "avg_jct",
        "paper_avg_jct", "gap_to_opt", "paper_gap_to_opt",
    ]  # fmt: skip
    return out.set_index("row")[cols]


def plot_table2(df: pd.DataFrame) -> Figure:
    """Table II: our (checker) and the paper's avg JCT per row as bars, the full table below."""
    fig = Figure(figsize=(11.0, 6.5), layout="constrained")
    ax, tab = fig.subplots(2, 1, height_ratios=[1.1, 1.0])
    shown = df[df["method"].isin(["category", "optimal_milp", "las"])]
    labels = [
        table2_label(m, c)
        for m, c in zip(shown["method"], shown["category"], strict=True)
    ]
    x = np.arange(len(shown))
    for dx, col, name, color in (
        (-0.2, "avg_jct", "ours (checker)", "C0"),
        (0.2, "paper_avg_jct", "paper", "C1"),
    ):
        ax.bar(x + dx, shown[col], width=0.4, label=name, color=color)
        for xx, v in zip(x, shown[col], strict=True):
            ax.text(xx + dx, v, f"{v:,.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, labels)
    ax.set_ylabel("average JCT (s)")
    ax.set_title(
        "Table II: Alg. 2 per category on the Sec. IV-A example (2 T4 + 2 V100)"
    )
    ax.legend(fontsize=8)
    tab.axis("off")

    def pair(a: float, b: float) -> str:
        return "-" if np.isnan(a) else f"{a:,.0f}, {b:,.0f}"

    cells = [
        [
            lab,
            f"{{{r.resnet18_gpus}}} / {{{r.vgg19_gpus}}}",
            f"{{{r.paper_resnet18_gpus}}} / {{{r.paper_vgg19_gpus}}}"
            + (" (sic)" if r.paper_gpus_consistent in (False,) else ""),
            pair(r.resnet18_throughput, r.vgg19_throughput),
            pair(r.paper_resnet18_throughput, r.paper_vgg19_throughput),
            f"{r.avg_jct:,.1f}",
            f"{r.paper_avg_jct:,.1f}",
        ]
        for lab, r in zip(
            labels, cast(Iterable[Any], shown.itertuples(index=False)), strict=True
        )
    ]
    t = tab.table(
        cellText=cells,
        colLabels=[
            "category",
            "ours: ResNet-18 / VGG-19",
            "paper",
            "ours: V (samples/s)",
            "paper",
            "ours: avg JCT (s)",
            "paper",
        ],  # fmt: skip
        loc="center",
    )
    t.auto_set_font_size(False)
    t.set_fontsize(8)
    t.auto_set_column_width(list(range(len(cells[0]))))
    t.scale(1.0, 1.5)
    return fig


# ---------------------------------------------------------- Table II claims
def table2_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Table II's rows by key: the categories, ``optimal`` (MILP), ``las`` and ``has``."""
    keys = [
        c if m == "category" else {"optimal_milp": "optimal"}.get(m, m)
        for m, c in zip(df["method"], df["category"], strict=True)
    ]
    return df.assign(key=keys).drop_duplicates("key").set_index("key")


def table2_jcts(df: pd.DataFrame, keys: Sequence[str] = TABLE2_CATEGORIES) -> Cells:
    """Our avg JCT (s) of Table II's rows ``keys``."""
    rows: Any = table2_rows(df)  # pandas-stubs: .loc scalars are a wide union
    return Cells(tuple(float(rows.loc[k, "avg_jct"]) for k in keys), "{:,.1f}")


def optimum_jcts(df: pd.DataFrame) -> Cells:
    """The optimum's avg JCT (s) from the MILP and from the paper's enumeration."""
    opt = df.set_index("method").loc[["optimal_milp", "optimal_enum"], "avg_jct"]
    return Cells(tuple(float(v) for v in opt), "{:,.1f}")


def as_printed(values: Cells, printed: Sequence[float]) -> bool:
    """Whether each value rounds to the printed one (to the printed decimals)."""
    return all(
        abs(cast(float, v) - p) <= 0.5 * 10.0 ** -_decimals(p) + 1e-9
        for v, p in zip(values.values, printed, strict=True)
    )


def _decimals(x: float) -> int:
    text = repr(float(x))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


def table2_throughputs(
    df: pd.DataFrame, keys: Sequence[str] = TABLE2_CATEGORIES
) -> str:
    """``{ResNet-18, VGG-19}`` throughputs (samples/s) of ``keys``, ``/``-separated."""
    rows: Any = table2_rows(df)  # pandas-stubs: .loc scalars are a wide union
    return " / ".join(
        f"{{{rows.loc[k, 'resnet18_throughput']:,.0f}, {rows.loc[k, 'vgg19_throughput']:,.0f}}}"
        for k in keys
    )


def paper_throughputs(keys: Sequence[str] = TABLE2_CATEGORIES) -> str:
    """The printed throughputs of ``keys`` in the format of :func:`table2_throughputs`."""
    tp = [PAPER_TABLE2[k]["throughput"] for k in keys]
    return " / ".join(f"{{{a:,.0f}, {b:,.0f}}}" for a, b in tp)


def table2_gpus(df: pd.DataFrame, keys: Sequence[str]) -> str:
    """``ResNet-18 | VGG-19`` GPU sets of ``keys``, ``/``-separated."""
    rows: Any = table2_rows(df)  # pandas-stubs: .loc scalars are a wide union
    return " / ".join(
        f"{rows.loc[k, 'resnet18_gpus']} | {rows.loc[k, 'vgg19_gpus']}" for k in keys
    )


def paper_gpus(keys: Sequence[str]) -> str:
    """The printed GPU sets of ``keys`` in the format of :func:`table2_gpus`."""
    return " / ".join(" | ".join(PAPER_TABLE2[k]["gpus"]) for k in keys)


#: Table II's ``{1, 3}`` VGG-19 set read from its printed throughput 4,392 =
#: 884 + 1,754 + 1,754 (seeds/INDEX.md), not the printed ``{T4, T4, V100}``.
TABLE2_GPU_READING = {("1-3", 1): "T4,V100,V100"}


def paper_gpus_read(keys: Sequence[str]) -> str:
    """:func:`paper_gpus` with :data:`TABLE2_GPU_READING` applied."""
    return " / ".join(
        " | ".join(
            TABLE2_GPU_READING.get((k, j), g)
            for j, g in enumerate(PAPER_TABLE2[k]["gpus"])
        )
        for k in keys
    )


def choice(df: pd.DataFrame, key: str) -> str:
    """``{3, 1}, +6.0%`` (HAS) or ``12,776.8 s, +20.6%`` (LAS): a row and its gap to the optimum."""
    r: Any = table2_rows(df).loc[key]
    head = (
        table2_label("category", r["category"])
        if key == "has"
        else f"{r['avg_jct']:,.1f} s"
    )
    return f"{head}, {r['gap_to_opt']:+.1%}"


# ============================================================== Figs. 4-6
#: Smallest seed for which ``generate`` draws the first four jobs of Table III in order.
SEED = 28
N_JOBS = 4
ALPHA = 0.7
N_SAMPLES = 20
#: Fig. 5's fairness ranges per K.
PAPER_FAIRNESS = {15: (0.527, 0.994), 30: (0.384, 0.999)}
#: Sec. V-A/B, K = 15, no prioritising: ID -> (category, avg JCT s, fairness).
PAPER_IDS = {
    15: {
        18: ((6, 6, 2, 1), 4047.59, math.nan),
        159: ((5, 5, 2, 3), 4046.35, math.nan),
        94: ((6, 5, 2, 2), 3948.9, 0.824),
    }
}
#: Sec. V-B: JCT increase of the best of N = 20 samples (all of Psi, rear after prioritising).
PAPER_SAMPLING = {15: (0.0765, 0.0295), 30: (0.1043, 0.0510)}
#: ``|Psi| = C(K-1, S-1)`` as printed (S = 4).
PAPER_N_PSI = {15: 364, 30: 3654}
FIG4_6_COLUMNS = [
    "seed", "n_jobs", "n_workers", "jobs", "heterogeneity_target",
    "heterogeneity", "gpu_counts", "ordering", "job_order", "category_id",
    "n_psi", "rear_start_id", "in_rear", "category", "category_jobs", "avg_jct",
    "avg_jct_algorithm", "fairness", "jct_jobs", "market_rounds",
    "market_cleared", "best_avg_jct", "opt_avg_jct", "opt_status",
    "market_runtime_s", "paper_avg_jct", "paper_fairness", "paper_fairness_lo",
    "paper_fairness_hi",
]  # fmt: skip


def _dash(xs: Iterable[Any]) -> str:
    return "-".join(str(int(x)) for x in xs)


def expected_min(values: Any, n_samples: int) -> float:
    """Exact ``E[min]`` of ``n_samples`` values drawn uniformly without replacement.

    With the values sorted ascending, ``v_(1) <= ... <= v_(m)``, the minimum
    of the sample is ``v_(j)`` with probability ``C(m - j, N - 1) / C(m, N)``
    (the sample holds ``v_(j)`` and ``N - 1`` of the ``m - j`` larger ones).
    All of them when ``N >= m``.
    """
    v = np.sort(np.asarray(values, dtype=float))
    m, n = len(v), int(n_samples)
    if m == 0 or n < 1:
        raise ValueError("expected_min: need values and n_samples >= 1")
    if n >= m:
        return float(v[0])
    total = math.comb(m, n)
    w = np.array([math.comb(m - 1 - j, n - 1) / total for j in range(m)])
    return float(w @ v)


def landscape_instance(seed: int, n_jobs: int, n_workers: int) -> HeteroInstance:
    """The ``h115`` instance, asserting that ``seed`` draws Table III's job order."""
    inst = make_instance("h115", seed, n_jobs, n_workers)
    got, want = [j.name for j in inst.jobs], list(MODEL_ORDER[:n_jobs])
    if got != want:
        raise RuntimeError(
            f"seed {seed}: generate drew {got}, not Table III's order {want}"
        )
    return inst


def _market_columns(inst: HeteroInstance, results: Sequence[Any]) -> dict[tuple, dict]:
    """Checked columns of every category's market placement, by category (instance job order)."""
    out = {}
    for r in results:
        pl = HeteroPlacement.from_assignment(
            inst, r.market.assignment, algorithm="has_category", category=r.category
        )
        ev = paper().check(inst, pl)
        out[tuple(int(x) for x in r.category)] = {
            "avg_jct": float(ev.objective),
            "avg_jct_algorithm": float(r.avg_jct),
            "fairness": fairness_degree(inst, ev.jct),
            "jct_jobs": ";".join(f"{x:.6f}" for x in ev.jct),
            "market_rounds": int(r.market.rounds),
            "market_cleared": bool(r.market.cleared),
        }
    return out


def landscape(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of Figs. 4-6 for one ``K``: every category of ``Psi`` in both orderings, checked.

    Parameters
    ----------
    task
        ``seed``, ``n_jobs``, ``n_workers`` (the ``h115`` instance,
        :func:`landscape_instance`), ``alpha`` (rear part) and
        ``time_limit`` (optimum).

    Returns
    -------
    list of dict
        Ordering (``instance``, then ``prioritised``) x category ID.  The
        market runs once over ``Psi``; prioritised ID ``j`` (category ``c``
        given to the jobs in priority order) is the instance-order category
        ``c_jobs[order] = c``, looked up.
    """
    seed, S, K = task["seed"], task["n_jobs"], task["n_workers"]
    inst = landscape_instance(seed, S, K)
    results, dt = timed(lambda: has_categories(inst))
    per_cat = _market_columns(inst, results)
    cats = categories_array(K, S)
    start = rear_start(len(cats), task["alpha"])
    opt = optimum(
        "hetero", inst, time_limit=task["time_limit"], start=best_start("hetero", inst)
    )
    lo, hi = PAPER_FAIRNESS.get(K, (math.nan, math.nan))
    base = {
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity_target": H_TARGET,
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": gpu_counts(inst),
        "n_psi": len(cats),
        "rear_start_id": start + 1,
        "best_avg_jct": min(v["avg_jct"] for v in per_cat.values()),
        "opt_avg_jct": float(opt.objective),
        "opt_status": opt.status,
        "market_runtime_s": dt,
        "paper_fairness_lo": lo,
        "paper_fairness_hi": hi,
    }
    rows = []
    for ordering, order in (
        ("instance", np.arange(S)),
        ("prioritised", priority_order(inst)),
    ):
        for pos, c in enumerate(cats):
            c_jobs = np.empty(S, dtype=np.int64)
            c_jobs[order] = c
            pp = PAPER_IDS.get(K, {}).get(pos + 1) if ordering == "instance" else None
            rows.append(
                {
                    **base,
                    "ordering": ordering,
                    "job_order": _dash(order),
                    "category_id": pos + 1,
                    "in_rear": pos >= start,
                    "category": _dash(c),
                    "category_jobs": _dash(c_jobs),
                    **per_cat[tuple(int(x) for x in c_jobs)],
                    "paper_avg_jct": math.nan if pp is None else pp[1],
                    "paper_fairness": math.nan if pp is None else pp[2],
                }
            )
    return rows


def _ordering(g: pd.DataFrame, name: str) -> pd.DataFrame:
    return g[g["ordering"] == name].sort_values("category_id")


def summarize_landscape(df: pd.DataFrame, n_samples: int = N_SAMPLES) -> pd.DataFrame:
    """Per K: fairness range, best category and optimum, sampling analogue, trend of decline.

    ``incr_all`` / ``incr_rear``: :func:`expected_min` of ``n_samples``
    categories over all of ``Psi`` / over the prioritised rear part, relative
    to the best category (``*_opt``: to the optimum).  ``front_mean_*`` /
    ``rear_mean_*`` and ``spearman_*`` (JCT vs ID) per ordering (``inst``,
    ``prio``).
    """
    out = []
    K: Any  # pandas-stubs: group keys are Hashable
    for K, g in df.groupby("n_workers", sort=True):
        inst_o, prio = _ordering(g, "instance"), _ordering(g, "prioritised")
        best, opt = float(g["best_avg_jct"].iloc[0]), float(g["opt_avg_jct"].iloc[0])
        e_all = expected_min(inst_o["avg_jct"], n_samples)
        e_rear = expected_min(prio.loc[prio["in_rear"], "avg_jct"], n_samples)
        top: Any = inst_o.loc[cast(Any, inst_o["avg_jct"].idxmin())]
        row: dict[str, Any] = {
            "K": int(K),
            "n_psi": int(g["n_psi"].iloc[0]),
            "fair_min": float(inst_o["fairness"].min()),
            "fair_max": float(inst_o["fairness"].max()),
            "paper_fair": PAPER_FAIRNESS.get(int(K)),
            "best_id": int(top["category_id"]),
            "best_category": top["category"],
            "best_fairness": float(top["fairness"]),
            "best": best,
            "opt": opt,
            "opt_status": g["opt_status"].iloc[0],
            "incr_all": e_all / best - 1.0,
            "incr_rear": e_rear / best - 1.0,
            "incr_all_opt": e_all / opt - 1.0,
            "incr_rear_opt": e_rear / opt - 1.0,
            "paper_incr": PAPER_SAMPLING.get(int(K)),
        }
        for name, sub in (("inst", inst_o), ("prio", prio)):
            rear = sub["in_rear"].astype(bool)
            row[f"front_mean_{name}"] = float(sub.loc[~rear, "avg_jct"].mean())
            row[f"rear_mean_{name}"] = float(sub.loc[rear, "avg_jct"].mean())
            row[f"spearman_{name}"] = float(
                spearmanr(sub["category_id"], sub["avg_jct"]).statistic
            )
        out.append(row)
    return pd.DataFrame(out)


def _dots(ax: Any, sub: pd.DataFrame, col: str, color: str, n_psi: int) -> None:
    """``col`` against the category ID, as a thin line with dots (smaller for large ``Psi``)."""
    ms, lw = (3, 0.5) if n_psi < 500 else (1, 0.15)
    ax.plot(sub["category_id"], sub[col], lw=lw, color=color)
    ax.scatter(sub["category_id"], sub[col], s=ms, color=color)
    ax.set_xlabel("category ID (Alg. 1 order)")


def _fig4(ax: Any, inst_o: pd.DataFrame, s: pd.Series, K: int) -> None:
    """Fig. 4: JCT per ID without prioritising, the optimum, the best and the paper's IDs."""
    _dots(ax, inst_o, "avg_jct", "C0", int(s["n_psi"]))
    ax.axhline(s["opt"], color="k", ls="--", lw=0.8, label="optimum (MILP)")
    best = f"best: ID {s['best_id']} {{{s['best_category'].replace('-', ',')}}}"
    ax.scatter(
        [s["best_id"]], [s["best"]], marker="*", s=120, color="C3", zorder=5, label=best
    )
    pp = inst_o[inst_o["paper_avg_jct"].notna()]
    if len(pp):
        values = ", ".join(f"{v:,.0f}" for v in pp["paper_avg_jct"])
        ax.scatter(
            pp["category_id"], pp["avg_jct"], marker="o", s=60, facecolors="none",
            edgecolors="C2", zorder=5, label=f"IDs 18, 94, 159 (paper: {values} s)",
        )  # fmt: skip
    ax.set_title(f"Fig. 4: no prioritising, S = {inst_o['n_jobs'].iloc[0]}, K = {K}")
    ax.set_ylabel("average JCT (s, checker)")
    ax.legend(fontsize=7)


def _fig5(ax: Any, inst_o: pd.DataFrame, s: pd.Series, K: int) -> None:
    """Fig. 5: fairness per ID, the paper's range as dashed lines."""
    _dots(ax, inst_o, "fairness", "C1", int(s["n_psi"]))
    if s["paper_fair"] is not None:
        lo, hi = s["paper_fair"]
        ax.axhline(lo, color="grey", ls="--", lw=0.8)
        ax.axhline(hi, color="grey", ls="--", lw=0.8, label=f"paper [{lo}, {hi}]")
        ax.legend(fontsize=7)
    ours = f"[{s['fair_min']:.3f}, {s['fair_max']:.3f}]"
    ax.set_title(f"Fig. 5: fairness degree (33), K = {K}; ours {ours}")
    ax.set_ylabel("fairness degree F")
    ax.set_ylim(0.25, 1.02)


def _fig6(ax: Any, prio: pd.DataFrame, s: pd.Series, K: int) -> None:
    """Fig. 6: JCT per prioritised ID, its rolling mean and the rear part."""
    n_psi = int(s["n_psi"])
    _dots(ax, prio, "avg_jct", "C4", n_psi)
    win = max(3, n_psi // 20)
    roll = prio["avg_jct"].rolling(win, center=True, min_periods=1).mean()
    ax.plot(prio["category_id"], roll, color="k", lw=1.2, label=f"rolling mean ({win})")
    start = int(prio["rear_start_id"].iloc[0])
    ax.axvspan(start - 0.5, n_psi + 0.5, color="C2", alpha=0.12, label="rear 30%")
    ratio = s["rear_mean_prio"] / s["front_mean_prio"]
    ax.set_title(
        f"Fig. 6: prioritised (order {prio['job_order'].iloc[0]}), K = {K}; "
        f"rear/front mean {ratio:.2f}"
    )
    ax.set_ylabel("average JCT (s, checker)")
    ax.legend(fontsize=7)


def plot_landscape(df: pd.DataFrame) -> Figure:
    """Figs. 4-6, one column per K: JCT and fairness per ID, then JCT per prioritised ID."""
    summ = summarize_landscape(df).set_index("K")
    fig = Figure(figsize=(6.0 * len(summ), 10.5), layout="constrained")
    axes = fig.subplots(3, len(summ), squeeze=False)
    K: Any  # pandas-stubs: index labels are Hashable
    for c, (K, s) in enumerate(summ.iterrows()):
        g = df[df["n_workers"] == K]
        inst_o, prio = _ordering(g, "instance"), _ordering(g, "prioritised")
        _fig4(axes[0, c], inst_o, s, K)
        _fig5(axes[1, c], inst_o, s, K)
        _fig6(axes[2, c], prio, s, K)
    return fig


# --------------------------------------------------------- Figs. 4-6 claims
class PerK(dict):
    """Our values of a claim per ``K`` (``{K: value}``), printed ``K=15: ..., K=30: ...``."""

    def __init__(self, values: Mapping[int, Any], fmt: str = "{}") -> None:
        super().__init__(values)
        self.fmt = fmt

    def __str__(self) -> str:
        return (
            ", ".join(f"K={k}: {self.fmt.format(v)}" for k, v in self.items())
            or "not run"
        )


def n_categories_per_k(df: pd.DataFrame) -> PerK:
    """Per K: the number of distinct categories listed in both orderings."""
    return PerK(
        {
            int(cast(int, k)): len(
                set.intersection(
                    *(set(c) for _, c in g.groupby("ordering")["category"])
                )
            )
            for k, g in df.groupby("n_workers")
        },
        "{:,}",
    )


def psi_sizes_hold(v: PerK, n_jobs: int = N_JOBS) -> bool:
    """Every K lists ``C(K-1, S-1)`` categories, the paper's count where it prints one."""
    return bool(v) and all(
        n == math.comb(k - 1, n_jobs - 1) == PAPER_N_PSI.get(k, n) for k, n in v.items()
    )


def paper_id_cells(df: pd.DataFrame, col: str, K: int = 15) -> str:
    """``col`` at the paper's IDs (18, 159, 94) of ``K`` without prioritising; ``not run`` when absent."""
    sel = df[(df["n_workers"] == K) & (df["ordering"] == "instance")].set_index(
        "category_id"
    )
    if sel.empty:
        return "not run"
    vals = [sel.loc[i, col] for i in PAPER_IDS[K]]
    return " / ".join(f"{v:,.2f}" if isinstance(v, float) else str(v) for v in vals)


def paper_id_categories(K: int = 15) -> str:
    """The paper's categories at IDs 18, 159, 94 as :func:`paper_id_cells` prints ours."""
    return " / ".join(_dash(c) for c, _, _ in PAPER_IDS[K].values())


def paper_id_jcts(df: pd.DataFrame, K: int = 15) -> Cells:
    """Our avg JCT (s) at the paper's IDs (18, 159, 94) of ``K`` without prioritising (None: not run)."""
    sel = df[(df["n_workers"] == K) & (df["ordering"] == "instance")].set_index(
        "category_id"
    )
    return Cells(
        tuple(
            float(cast(float, sel.loc[i, "avg_jct"])) if i in sel.index else None
            for i in PAPER_IDS[K]
        ),
        "{:,.2f}",
    )


def paper_id_jcts_hold(cells: Cells, K: int = 15) -> bool:
    """Fig. 4's JCTs at IDs 18 / 159 / 94: each within the house 10% of the paper's."""
    return cells_hold(cells, [near(jct) for _, jct, _ in PAPER_IDS[K].values()])


def id94_lowest(cells: Cells) -> bool:
    """The paper's relation of Fig. 4's IDs 18 / 159 / 94: ID 94 below the other two."""
    a, b, c = cells.values
    return None not in (a, b, c) and cast(float, c) < min(
        cast(float, a), cast(float, b)
    )


@dataclass(frozen=True)
class BestCategory:
    """Fig. 4: the lowest-JCT category of one K: ID, category, JCT, fairness, JCT / optimum."""

    id: int
    category: str
    avg_jct: float
    fairness: float
    ratio: float

    def __str__(self) -> str:
        return (
            f"ID {self.id} {{{self.category.replace('-', ',')}}} {self.avg_jct:,.1f} s, "
            f"F {self.fairness:.3f}, {self.ratio:.3f} x opt"
        )


def best_categories(df: pd.DataFrame) -> PerK:
    """Per K: ID, category, avg JCT and fairness of the best category, and its ratio to the optimum."""
    s = summarize_landscape(df)
    return PerK(
        {
            int(r.K): BestCategory(
                int(r.best_id),
                str(r.best_category),
                float(r.best),
                float(r.best_fairness),
                float(r.best / r.opt),
            )
            for r in cast(Iterable[Any], s.itertuples())
        }
    )


def best_category_holds(v: PerK, K: int = 15) -> bool:
    """Fig. 4's lowest category at ``K``: ID 94 = {6,5,2,2}, 3,948.9 s and F 0.824 within 10%."""
    best = v.get(K)
    if best is None:
        return False
    (cat, jct, fair) = PAPER_IDS[K][94]
    return (
        best.id == 94
        and best.category == _dash(cat)
        and near(jct)(best.avg_jct)
        and near(fair)(best.fairness)
    )


def fairness_ranges(df: pd.DataFrame) -> PerK:
    """Per K: ``(min, max)`` fairness degree over ``Psi``."""
    s = summarize_landscape(df)
    return PerK(
        {
            int(r.K): (r.fair_min, r.fair_max)
            for r in cast(Iterable[Any], s.itertuples())
        },
        "[{0[0]:.3f}, {0[1]:.3f}]",
    )


def fairness_ranges_hold(v: PerK, atol: float = 0.01) -> bool:
    """Every K with a printed range ran and both ends are within ``atol`` of the paper's (one ran)."""
    ran = [k for k in PAPER_FAIRNESS if k in v]
    return bool(ran) and all(
        abs(v[k][j] - PAPER_FAIRNESS[k][j]) <= atol for k in ran for j in (0, 1)
    )


def sampling_increases(df: pd.DataFrame) -> PerK:
    """Per K: expected increase of the best of N = 20 over all of ``Psi`` and over the prioritised rear."""
    s = summarize_landscape(df)
    return PerK(
        {
            int(r.K): (r.incr_all, r.incr_rear)
            for r in cast(Iterable[Any], s.itertuples())
        },
        "{0[0]:+.2%} -> {0[1]:+.2%}",
    )


#: Tolerance of Sec. V-B's sampling increases (the hetero rule for a percentage).
SAMPLING_TOLERANCE = f"each value {PCT_TOLERANCE}"


def sampling_holds(v: PerK) -> bool:
    """Sec. V-B: at every K the paper prints (and one ran), both increases within :func:`.common.pct_near`."""
    ran = [k for k in PAPER_SAMPLING if k in v]
    return bool(ran) and all(
        pct_near(PAPER_SAMPLING[k][j])(v[k][j]) for k in ran for j in (0, 1)
    )


def sampling_trend(v: PerK) -> bool:
    """Sec. V-B's direction: at every K (one ran) the prioritised rear beats all of ``Psi``."""
    return bool(v) and all(0 <= r < a for a, r in v.values())


def decline(df: pd.DataFrame) -> PerK:
    """Per K and ordering: mean JCT of the rear 30% over the front 70%, and Spearman (JCT, ID)."""
    s = summarize_landscape(df)
    return PerK(
        {
            int(r.K): (
                r.rear_mean_prio / r.front_mean_prio,
                r.spearman_prio,
                r.rear_mean_inst / r.front_mean_inst,
                r.spearman_inst,
            )
            for r in cast(Iterable[Any], s.itertuples())
        },
        "prioritised {0[0]:.2f} (rho {0[1]:+.2f}), not {0[2]:.2f} (rho {0[3]:+.2f})",
    )
