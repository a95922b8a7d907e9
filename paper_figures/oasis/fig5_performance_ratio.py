"""Fig. 5 of Bao et al. (INFOCOM 2018): performance ratio OPT / OASiS.

The paper solves the offline problem (1) exactly for 10 jobs in ``T = 10``
slots, varies the number of servers (split evenly between workers and
parameter servers) and the range of job priorities ``gamma_1`` (so that
``max_r (U_1^r / L_1, U_2^r / L_2)`` increases), and reports *a ratio around
1.1 to 1.5* with *no clear trend* in either factor (Sec. V-A, "Results").

We do the same with ``p.solve_offline`` (HiGHS on the exact MILP of
``optsched.models.oasis``) and ``p.run("oasis", ...)``; both objectives are
the checker's recomputation.  A point ratio ``OPT / ALG`` is reported only
when HiGHS proved optimality (``status == "optimal"``); otherwise the row
carries the interval ``[incumbent / ALG, bound / ALG]`` (``kind ==
"interval"``).  Instances where OASiS earns 0 (ratio infinite) are kept with
``kind == "alg_zero"`` and counted separately, as are solves that returned
no incumbent at all (``kind == "no_opt"``, e.g. status ``error``).  Every row also records
``ln_max_ul`` (``ln max_r U/L``) and Theorem 4's bound ``two_alpha = 2 max_r(1,
ln U/L)``.

Instance ``j`` of every configuration uses seed ``j``; for a fixed number of
servers the configurations differ only in the drawn ``gamma_1`` (same random
stream, rescaled range).  Each CSV row is one instance x configuration.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import optsched
from optsched.core import sweep
from optsched.core.figures import ScriptFunction as _ScriptFunction
from optsched.core.figures import write_outputs as _write_outputs
from optsched.core.ratio import ratio_bounds
from optsched.oasis.online import price_params

NAME = "fig5_performance_ratio"
COLUMNS = [
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
REPORTED = (1.1, 1.5)


# --------------------------------------------------------------- helpers
# ------------------------------------------------------------ experiment
def run_instance(task: dict[str, Any]) -> dict[str, Any]:
    """Solve one instance offline, run OASiS, return the checked ratio row."""
    p = optsched.get_paper("oasis")
    size = task["size"]
    inst = p.generate(seed=task["seed"], **size)
    pp = price_params(inst)
    t0 = time.perf_counter()
    sched = p.run("oasis", inst)
    alg_runtime = time.perf_counter() - t0
    alg = float(p.check(inst, sched).objective)
    opt = p.solve_offline(inst, time_limit=task["time_limit"], threads=1)
    ratio, lo, hi = ratio_bounds("max", alg, opt.objective, opt.bound, opt.status)
    if opt.status not in ("optimal", "time_limit") or math.isnan(opt.objective):
        kind = "no_opt"  # solver error / no incumbent: no ratio at all
    elif alg == 0 and not (opt.status == "optimal" and opt.objective == 0):
        kind = "alg_zero"  # OPT / 0 = inf (0 / 0 counts as a proven ratio 1)
    elif opt.status == "optimal":
        kind = "proven"
    else:
        kind = "interval"
    return {
        "n_servers": inst.n_worker_servers + inst.n_ps_servers,
        "n_worker_servers": inst.n_worker_servers,
        "n_ps_servers": inst.n_ps_servers,
        "gamma1_lo": size["gamma1_range"][0],
        "gamma1_hi": size["gamma1_range"][1],
        "seed": task["seed"],
        "n_jobs": inst.n_jobs,
        "n_slots": inst.n_slots,
        "alg_objective": alg,
        "opt_objective": opt.objective,
        "opt_bound": opt.bound,
        "opt_status": opt.status,
        "kind": kind,
        "ratio": ratio,
        "ratio_lo": lo,
        "ratio_hi": hi,
        "ln_max_ul": pp.log_ul,
        "two_alpha": pp.competitive_ratio,
        "alg_runtime_s": alg_runtime,
        "opt_runtime_s": opt.runtime,
    }


def _sizes(quick: bool) -> dict[str, Any]:
    """Servers per side, gamma1 ranges, jobs, T, seeds and solver time limit."""
    if quick:
        return {
            "servers": (2, 4),
            "gamma1": ((1.0, 10.0), (1.0, 100.0)),
            "n_jobs": 10,
            "n_slots": 10,
            "n_seeds": 1,
            "time_limit": 10.0,
        }
    return {
        "servers": (2, 4, 8),
        "gamma1": ((1.0, 10.0), (1.0, 50.0), (1.0, 100.0)),
        "n_jobs": 10,
        "n_slots": 10,
        "n_seeds": 10,
        "time_limit": 120.0,
    }


def _plot(df: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    ax = fig.subplots()
    configs = (
        df.groupby(["n_servers", "gamma1_hi"])["ln_max_ul"]
        .median()
        .reset_index()
        .sort_values(["n_servers", "ln_max_ul"], kind="stable")
    )
    ticks, labels = [], []
    first = {"proven": True, "interval": True, "median": True, "bound": True}
    for x, row in enumerate(configs.itertuples(index=False)):
        sub = df[
            (df["n_servers"] == row.n_servers) & (df["gamma1_hi"] == row.gamma1_hi)
        ]
        proven = sub[sub["kind"] == "proven"]
        jitter = np.linspace(-0.15, 0.15, max(len(proven), 1))[: len(proven)]
        ax.scatter(
            x + jitter,
            proven["ratio"],
            color="C0",
            s=18,
            label="proven OPT / OASiS" if first["proven"] and len(proven) else None,
        )
        first["proven"] &= not len(proven)
        if len(proven):
            ax.scatter(
                [x],
                [proven["ratio"].median()],
                marker="_",
                s=400,
                color="k",
                label="median of proven" if first["median"] else None,
            )
            first["median"] = False
        ax.scatter(
            [x],
            [sub["two_alpha"].median()],
            marker="v",
            color="C3",
            s=30,
            label="Theorem 4 bound 2α (median)" if first["bound"] else None,
        )
        first["bound"] = False
        inter = sub[sub["kind"] == "interval"]
        for k, r in enumerate(inter.itertuples(index=False)):
            xx = x + 0.25 + 0.05 * k
            ax.vlines(
                xx,
                r.ratio_lo,
                r.ratio_hi,
                color="C1",
                label="[incumbent, bound] / OASiS (not proven)"
                if first["interval"]
                else None,
            )
            first["interval"] = False
        n_zero = int((sub["kind"] == "alg_zero").sum())
        ticks.append(x)
        extra = f"\nALG=0: {n_zero}" if n_zero else ""
        labels.append(
            f"{row.n_servers} srv\nγ1≤{row.gamma1_hi:g}\nln U/L={row.ln_max_ul:.1f}{extra}"
        )
    ax.axhspan(*REPORTED, color="grey", alpha=0.15, label="paper: 1.1-1.5")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_xlabel("servers (workers + PS), priority range, median ln max_r U/L")
    ax.set_yscale("log")
    ax.set_ylabel("performance ratio OPT / OASiS (log scale)")
    n, T = int(df["n_jobs"].iloc[0]), int(df["n_slots"].iloc[0])
    ax.set_title(f"Fig. 5: performance ratio, {n} jobs, T = {T}")
    ax.legend(fontsize=8)
    return fig


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby(["n_servers", "gamma1_hi"])
    proven = df[df["kind"] == "proven"].groupby(["n_servers", "gamma1_hi"])["ratio"]
    t = pd.DataFrame(
        {
            "instances": g.size(),
            "proven": g["kind"].apply(lambda s: int((s == "proven").sum())),
            "interval": g["kind"].apply(lambda s: int((s == "interval").sum())),
            "alg_zero": g["kind"].apply(lambda s: int((s == "alg_zero").sum())),
            "no_opt": g["kind"].apply(lambda s: int((s == "no_opt").sum())),
            "ratio_median": proven.median(),
            "ratio_mean": proven.mean(),
            "ratio_min": proven.min(),
            "ratio_max": proven.max(),
            "interval_hull": g.apply(
                lambda s: (
                    f"[{s.loc[s.kind == 'interval', 'ratio_lo'].min():.2f}, "
                    f"{s.loc[s.kind == 'interval', 'ratio_hi'].max():.2f}]"
                    if (s.kind == "interval").any()
                    else "-"
                ),
                include_groups=False,
            ),
            "ln_max_ul_median": g["ln_max_ul"].median(),
            "two_alpha_median": g["two_alpha"].median(),
        }
    )
    return t


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    n_seeds: int | None = None,
    time_limit: float | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 5 and write ``fig5_performance_ratio.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Tiny sizes for smoke tests (well under a minute).
    n_seeds
        Instances per configuration (default 10, quick 1).
    time_limit
        HiGHS limit per offline solve in seconds (default 120, quick 10).
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x instance.
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    n_seeds = cfg["n_seeds"] if n_seeds is None else n_seeds
    time_limit = cfg["time_limit"] if time_limit is None else time_limit
    tasks = [
        {
            "seed": seed,
            "time_limit": time_limit,
            "size": {
                "n_jobs": cfg["n_jobs"],
                "n_slots": cfg["n_slots"],
                "n_worker_servers": h,
                "n_ps_servers": h,
                "gamma1_range": g1,
            },
        }
        for h in reversed(cfg["servers"])
        for g1 in cfg["gamma1"]
        for seed in range(n_seeds)
    ]
    rows = sweep.map(
        _ScriptFunction(run_instance),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = (
        pd.DataFrame(rows, columns=COLUMNS)
        .sort_values(["n_servers", "gamma1_hi", "seed"], kind="stable")
        .reset_index(drop=True)
    )
    fig = _plot(df)
    _write_outputs(out_dir, NAME, df, fig)
    proven = df.loc[df["kind"] == "proven", "ratio"]
    print(
        f"{NAME}: OPT/OASiS, {cfg['n_jobs']} jobs, T = {cfg['n_slots']}, "
        f"{n_seeds} instances per configuration, time limit {time_limit:g} s"
    )
    print(
        f"paper: ratio {REPORTED[0]}-{REPORTED[1]}, no clear trend | ours (proven, "
        f"{len(proven)}/{len(df)}): "
        + (
            f"{proven.min():.3f}-{proven.max():.3f}, median {proven.median():.3f}, "
            f"{(proven <= REPORTED[1]).mean():.0%} <= {REPORTED[1]}, "
            f"{(proven <= df.loc[proven.index, 'two_alpha']).mean():.0%} <= 2 alpha"
            if len(proven)
            else "n/a"
        )
    )
    with pd.option_context("display.width", 180, "display.precision", 3):
        print(_summary(df).to_string())
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke-test sizes")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/oasis"), help="output dir"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes")
    parser.add_argument("--seeds", type=int, default=None, help="instances per config")
    parser.add_argument("--time-limit", type=float, default=None, help="s per solve")
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        n_seeds=args.seeds,
        time_limit=args.time_limit,
        workers=args.workers,
    )
