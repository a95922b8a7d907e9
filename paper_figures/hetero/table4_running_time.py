"""Table IV of Liu et al. (TPDS 2024): average algorithm running time (ART).

What the paper shows (Sec. VI-B1, Table IV): the ART of Optimus, Optimus-LB,
JPS (``N = 20, 40, 60``), HAS and exhaustive search for ``(S, K) = (4, 15),
(4, 30), (3, 15), (5, 15)``, with ``|Psi| = 364, 3,654, 91, 1,001``:

========  ========  ==========  =====  =====  =====  =======  ==========
(S, K)    Optimus   Optimus-LB  N=20   N=40   N=60   HAS      exhaustive
========  ========  ==========  =====  =====  =====  =======  ==========
(4, 15)   0.96 ms   0.99 ms     0.07s  0.14s  0.22s  1.07 s   47.89 s
(4, 30)   1.99 ms   1.99 ms     0.38s  0.74s  1.13s  55.54 s  2.21 h
(3, 15)   0.91 ms   0.92 ms     0.04s  0.06s  0.06s  0.17 s   1.55 s
(5, 15)   1.01 ms   1.07 ms     0.06s  0.12s  0.19s  24.34 s  127.36 s
========  ========  ==========  =====  =====  =====  =======  ==========

The text derives from it: JPS (N = 60) cuts HAS's ART by 4.86x (K = 15) and
49.15x (K = 30); from S = 3 to 5 the ART of exhaustive search grows 82.17x,
HAS's 143.18x and JPS's (N = 60) only 3.16x.

What we do: on one instance per configuration (setting ``h115`` of
``fig9_normalized_jct``: the first ``S`` jobs of Table III, GPU counts for
``H = 1.15``, seed 0) we time, with ``time.perf_counter`` around
``p.run`` / the solver call, in this process, one call after the other
(never in parallel, so that timings do not compete with each other):

* ``optimus``, ``optimus_lb``: 21 repetitions (quick 3);
* ``jps_n20/40/60``: 5 repetitions with sampler seeds 0..4 (quick 1);
* ``has``: 3 repetitions (quick 1), but once at ``K = 30`` (3,654 markets);
  skipped at ``K = 30`` in ``--quick`` mode (``status == "skipped"``, as is
  the MILP there);
* the *exhaustive search* column twice: ``exhaustive_milp`` = the certified
  optimum ``p.solve_offline`` (exact MILP with outer-approximation cuts,
  ``threads=1``; 3 repetitions, quick 1), and ``exhaustive_enum`` =
  ``solve_by_enumeration``, the paper's method (all placements up to worker
  symmetry, split (12)), once, only where it is tractable: at most
  ``max_placements`` (1e9; quick 1e5) symmetry-reduced placements and
  finished within ``enum_time_limit`` (1,800 s; quick 10 s), else
  ``status`` ``intractable`` / ``time_limit``.  For an intractable
  enumeration ``estimate_s`` extrapolates the per-placement time of the
  largest enumeration that completed in the same run.

Before timing, every scheme runs once untimed on a tiny instance (numba and
Pyomo warm-up).  Every timed placement goes through the checker
(``avg_jct`` column).  The table reports medians over the repetitions (the
paper says "average").  Timings depend on the machine and its load:
``cpu_count`` and the 1-minute load average at each measurement are in the
CSV, and numbers measured on a shared or loaded machine are not final.

CSV: one row per configuration x scheme x repetition (raw runtime), with
``paper_art_s`` (the paper's value in seconds) and ``paper_n_psi``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import optsched
from optsched.core.errors import SolverError
from optsched.core.figures import write_outputs as _write_outputs
from optsched.hetero.baselines import count_placements
from optsched.hetero.instance import GPU_TYPES
from optsched.hetero.online import n_categories
from optsched.hetero.paper import solve_by_enumeration


def _load_fig9() -> ModuleType:
    name = "_optsched_hetero_fig9_normalized_jct"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().with_name("fig9_normalized_jct.py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


FIG9 = _load_fig9()

NAME = "table4_running_time"
COLUMNS = [
    "n_jobs",
    "n_workers",
    "setting",
    "seed",
    "heterogeneity",
    "gpu_counts",
    "n_psi",
    "paper_n_psi",
    "scheme",
    "rep",
    "runtime_s",
    "status",
    "avg_jct",
    "enum_placements",
    "estimate_s",
    "paper_art_s",
    "cpu_count",
    "load_avg_1m",
    "note",
]
CONFIGS = ((4, 15), (4, 30), (3, 15), (5, 15))
SCHEMES = (
    "optimus",
    "optimus_lb",
    "jps_n20",
    "jps_n40",
    "jps_n60",
    "has",
    "exhaustive_milp",
    "exhaustive_enum",
)
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "jps_n20": "JPS N=20",
    "jps_n40": "JPS N=40",
    "jps_n60": "JPS N=60",
    "has": "HAS",
    "exhaustive_milp": "OPT (MILP)",
    "exhaustive_enum": "exhaustive (enum.)",
}
_MS, _H = 1e-3, 3600.0
#: Table IV in seconds: (S, K) -> (Optimus, Optimus-LB, N=20, N=40, N=60, HAS, exhaustive).
PAPER_ART = {
    (4, 15): (0.96 * _MS, 0.99 * _MS, 0.07, 0.14, 0.22, 1.07, 47.89),
    (4, 30): (1.99 * _MS, 1.99 * _MS, 0.38, 0.74, 1.13, 55.54, 2.21 * _H),
    (3, 15): (0.91 * _MS, 0.92 * _MS, 0.04, 0.06, 0.06, 0.17, 1.55),
    (5, 15): (1.01 * _MS, 1.07 * _MS, 0.06, 0.12, 0.19, 24.34, 127.36),
}
PAPER_N_PSI = {(4, 15): 364, (4, 30): 3654, (3, 15): 91, (5, 15): 1001}


def paper_art(S: int, K: int, scheme: str) -> float:
    """The paper's ART in seconds (both exhaustive columns get the paper's exhaustive value)."""
    j = min(SCHEMES.index(scheme), 6)
    return PAPER_ART[(S, K)][j]


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "reps_greedy": 3,
            "reps_jps": 1,
            "reps_has": 1,
            "reps_milp": 1,
            "has_max_workers": 15,
            "max_placements": 100_000,
            "enum_time_limit": 10.0,
            "time_limit": 60.0,
        }
    return {
        "reps_greedy": 21,
        "reps_jps": 5,
        "reps_has": 3,
        "reps_milp": 3,
        "has_max_workers": None,
        "max_placements": 1_000_000_000,
        "enum_time_limit": 1800.0,
        "time_limit": 600.0,
    }


def _load() -> float:
    try:
        return float(os.getloadavg()[0])
    except OSError:  # pragma: no cover - not on Linux
        return math.nan


def _warm_up() -> None:
    """Run every scheme once on a tiny instance (numba JIT / cache, Pyomo imports)."""
    p = optsched.get_paper("hetero")
    inst = p.generate(seed=0, n_jobs=2, n_workers=4)
    for name in ("optimus", "optimus_lb", "has"):
        p.run(name, inst)
    p.run("jps", inst, n_samples=2, seed=0)
    p.solve_offline(inst, time_limit=30.0, threads=1)
    solve_by_enumeration(inst, time_limit=30.0)


def run_config(S: int, K: int, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Time every scheme on the configuration's instance; one row per repetition."""
    p = optsched.get_paper("hetero")
    inst = FIG9.make_instance("h115", 0, S, K)
    base = {
        "n_jobs": S,
        "n_workers": K,
        "setting": "h115",
        "seed": 0,
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES),
        "n_psi": n_categories(K, S),
        "paper_n_psi": PAPER_N_PSI[(S, K)],
        "enum_placements": math.nan,
        "estimate_s": math.nan,
        "cpu_count": os.cpu_count(),
    }
    rows: list[dict[str, Any]] = []

    def add(scheme, rep, runtime, status, placement=None, note="", **extra):
        avg = (
            float(p.check(inst, placement).objective)
            if placement is not None
            else math.nan
        )
        rows.append(
            {
                **base,
                "scheme": scheme,
                "rep": rep,
                "runtime_s": runtime,
                "status": status,
                "avg_jct": avg,
                "paper_art_s": paper_art(S, K, scheme),
                "load_avg_1m": _load(),
                "note": note,
                **extra,
            }
        )

    def timed(fn):
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0

    for name in ("optimus", "optimus_lb"):
        for rep in range(cfg["reps_greedy"]):
            pl, dt = timed(lambda name=name: p.run(name, inst))
            add(name, rep, dt, "ok", pl)
    for n in FIG9.JPS_N:
        for rep in range(cfg["reps_jps"]):
            pl, dt = timed(
                lambda n=n, rep=rep: p.run("jps", inst, n_samples=n, seed=rep)
            )
            add(f"jps_n{n}", rep, dt, "ok", pl, note=f"sampler seed {rep}")
    cap = cfg["has_max_workers"]
    if cap is not None and K > cap:
        add("has", 0, math.nan, "skipped", note=f"quick mode: HAS only for K <= {cap}")
    else:
        for rep in range(1 if K > 15 else cfg["reps_has"]):
            pl, dt = timed(lambda: p.run("has", inst))
            add("has", rep, dt, "ok", pl)
    if cap is not None and K > cap:
        add(
            "exhaustive_milp",
            0,
            math.nan,
            "skipped",
            note=f"quick mode: MILP only for K <= {cap}",
        )
    for rep in range(0 if cap is not None and K > cap else cfg["reps_milp"]):
        res, dt = timed(
            lambda: p.solve_offline(inst, time_limit=cfg["time_limit"], threads=1)
        )
        add("exhaustive_milp", rep, dt, res.status, res.schedule, note="solve_offline")
    count = count_placements(inst, inst.rho)
    if count > cfg["max_placements"]:
        add(
            "exhaustive_enum",
            0,
            math.nan,
            "intractable",
            note=f"{count:,} placements > max_placements {cfg['max_placements']:,}",
            enum_placements=count,
        )
    else:
        try:
            res, dt = timed(
                lambda: solve_by_enumeration(
                    inst,
                    time_limit=cfg["enum_time_limit"],
                    max_placements=cfg["max_placements"],
                )
            )
        except SolverError as exc:  # pragma: no cover - guarded by the count above
            add("exhaustive_enum", 0, math.nan, "intractable", note=str(exc))
        else:
            add(
                "exhaustive_enum",
                0,
                dt,
                res.status,
                res.schedule,
                note=f"time limit {cfg['enum_time_limit']:g} s",
                enum_placements=count,
            )
    return rows


def _extrapolate(df: pd.DataFrame) -> pd.DataFrame:
    """``estimate_s`` of intractable enumerations from the largest completed one."""
    enum = df[df["scheme"] == "exhaustive_enum"]
    done = enum[(enum["status"] == "optimal") & (enum["enum_placements"] > 0)]
    if done.empty:
        return df
    ref = done.loc[done["enum_placements"].idxmax()]
    rate = ref["runtime_s"] / ref["enum_placements"]
    todo = (df["scheme"] == "exhaustive_enum") & (df["status"] != "optimal")
    df.loc[todo, "estimate_s"] = df.loc[todo, "enum_placements"] * rate
    df.loc[todo, "note"] = (
        df.loc[todo, "note"]
        + f"; estimate at {rate * 1e6:.3g} us/placement (S={int(ref['n_jobs'])}, "
        f"K={int(ref['n_workers'])})"
    )
    return df


def medians(df: pd.DataFrame) -> pd.DataFrame:
    """Median runtime per configuration x scheme with the paper's value beside it."""
    g = df.groupby(["n_jobs", "n_workers", "scheme"], sort=False)
    out = g.agg(
        median_s=("runtime_s", "median"),
        reps=("runtime_s", "count"),
        status=("status", "first"),
        estimate_s=("estimate_s", "first"),
        paper_art_s=("paper_art_s", "first"),
    ).reset_index()
    return out


def _fmt(s: float) -> str:
    if math.isnan(s):
        return "-"
    if s < 1.0:
        return f"{s * 1e3:.3g} ms"
    if s >= 3600:
        return f"{s / 3600:.3g} h"
    return f"{s:.3g} s"


def _plot(med: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(10.0, 4.5), layout="constrained")
    ax = fig.subplots()
    configs = [
        c for c in CONFIGS if ((med.n_jobs == c[0]) & (med.n_workers == c[1])).any()
    ]
    width = 0.8 / len(SCHEMES)
    for j, scheme in enumerate(SCHEMES):
        x = np.arange(len(configs)) + (j - (len(SCHEMES) - 1) / 2) * width
        ours, est, paper = [], [], []
        for S, K in configs:
            r = med[(med.n_jobs == S) & (med.n_workers == K) & (med.scheme == scheme)]
            ours.append(float(r["median_s"].iloc[0]) if len(r) else math.nan)
            est.append(float(r["estimate_s"].iloc[0]) if len(r) else math.nan)
            paper.append(paper_art(S, K, scheme))
        ax.bar(x, ours, width, color=f"C{j}", label=LABELS[scheme])
        ax.bar(x, est, width, color=f"C{j}", alpha=0.3, hatch="//")
        ax.scatter(x, paper, marker="_", s=120, color="k", zorder=5)
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        Line2D(
            [], [], marker="_", ms=12, mew=2, ls="", color="k", label="paper (Table IV)"
        ),
        Patch(facecolor="grey", alpha=0.3, hatch="//", label="enum. estimate"),
    ]
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(configs)), [f"S = {S}, K = {K}" for S, K in configs])
    ax.set_ylabel("running time (s, median; log scale)")
    cpus = os.cpu_count()
    ax.set_title(
        f"Table IV: algorithm running time ({cpus} CPUs; shared machine, indicative only)",
        fontsize=10,
    )
    ax.legend(handles=handles, fontsize=7, ncol=2)
    return fig


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    configs: tuple[tuple[int, int], ...] = CONFIGS,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Table IV and write ``table4_running_time.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Few repetitions, no HAS or MILP at ``K = 30``, enumeration only up to 1e5
        placements (the ``S = 3`` configuration).
    configs
        ``(S, K)`` pairs, a subset of :data:`CONFIGS`.
    progress
        Print one line per configuration as it finishes.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x scheme x repetition.
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    for c in configs:
        if tuple(c) not in PAPER_ART:
            raise KeyError(f"unknown configuration {c!r} (known: {CONFIGS})")
    _warm_up()
    rows = []
    for S, K in configs:
        rows += run_config(S, K, cfg)
        if progress:
            print(f"  {NAME}: S={S}, K={K} done", file=sys.stderr)
    df = _extrapolate(pd.DataFrame(rows, columns=COLUMNS))
    med = medians(df)
    fig = _plot(med)
    _write_outputs(out_dir, NAME, df, fig)
    print(
        f"{NAME}: median running time, {'quick' if quick else 'full'} mode, "
        f"os.cpu_count() = {os.cpu_count()}, 1-min load {df['load_avg_1m'].min():.2f}-"
        f"{df['load_avg_1m'].max():.2f} (timings under load are indicative only)"
    )
    for (S, K), g in med.groupby(["n_jobs", "n_workers"], sort=False):
        print(
            f"  S={S}, K={K}, |Psi| = {n_categories(K, S):,} (paper {PAPER_N_PSI[(S, K)]:,})"
        )
        for r in g.itertuples(index=False):
            extra = (
                f" (est. {_fmt(r.estimate_s)})" if not math.isnan(r.estimate_s) else ""
            )
            print(
                f"    {LABELS[r.scheme]:18s} paper {_fmt(r.paper_art_s):>9s} | ours "
                f"{_fmt(r.median_s):>9s} [{r.status}, {r.reps} rep]{extra}"
            )
    m = med.set_index(["n_jobs", "n_workers", "scheme"])["median_s"]

    def ratio(a, b) -> str:
        v = m.get(a, math.nan) / m.get(b, math.nan)
        return "n/a" if math.isnan(v) else f"{v:.3g}x"

    print(
        "  HAS / JPS N=60: paper 4.86x (K=15), 49.15x (K=30) | ours "
        f"{ratio((4, 15, 'has'), (4, 15, 'jps_n60'))}, "
        f"{ratio((4, 30, 'has'), (4, 30, 'jps_n60'))}"
    )
    print(
        "  S=5 / S=3 (K=15): paper exhaustive 82.17x, HAS 143.18x, JPS N=60 3.16x | "
        f"ours MILP {ratio((5, 15, 'exhaustive_milp'), (3, 15, 'exhaustive_milp'))}, "
        f"enum {ratio((5, 15, 'exhaustive_enum'), (3, 15, 'exhaustive_enum'))}, "
        f"HAS {ratio((5, 15, 'has'), (3, 15, 'has'))}, "
        f"JPS N=60 {ratio((5, 15, 'jps_n60'), (3, 15, 'jps_n60'))}"
    )
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few reps, no HAS at K=30")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/hetero"), help="output dir"
    )
    args = parser.parse_args()
    main(args.out, quick=args.quick)
