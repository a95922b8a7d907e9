"""Fig. 6 of Bao et al. (INFOCOM 2018): OASiS under inaccurate U/L estimates.

The paper feeds OASiS estimates of ``U_1^r / L_1`` and ``U_2^r / L_2`` at
25%, 50%, 100%, 200% and 400% of their actual values (``T = 300``) and
reports that *underestimation gives a higher total utility than
overestimation when resources are scarce* (Sec. V-A, "Results").

We run ``p.run("oasis", inst, ul_scale=x)`` (which multiplies ``U^r / L``
and keeps ``L``) on the same instances for every ``x``, ``T = 300``, for job
counts from abundant to scarce resources (offered worker load in column
``load``).  Column ``ln_max_ul`` records ``ln max_r U/L``: with sigmoid
utilities ``L`` is a minimum of ``f_i(T - a_i)``, which for a time-critical
job is about ``gamma1 exp(-5 (T - a_i - gamma3))``, so ``ln(U/L)`` is in the
thousands and a factor 0.25-4 (``+-ln 4``) barely moves the prices.

Besides the absolute utility, the figure shows the paired change
``rel_to_actual`` (utility over the same instance's utility with the exact
U/L), since the spread between instances is much larger than the effect.

Each CSV row is one instance (seed) x job count x ``ul_scale``.
"""

from __future__ import annotations

import argparse
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
from optsched.oasis.online import price_params

NAME = "fig6_ul_estimates"
SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)
COLUMNS = [
    "n_slots",
    "n_jobs",
    "resources",
    "seed",
    "ul_scale",
    "scheme",
    "utility",
    "n_admitted",
    "sum_gamma1",
    "load",
    "ln_max_ul",
    "rel_to_actual",
    "runtime_s",
    "n_worker_servers",
    "n_ps_servers",
]


# --------------------------------------------------------------- helpers
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


def ln_max_ul(inst: Any) -> float:
    """``ln max_r (U_1^r / L_1, U_2^r / L_2)`` of the instance (exact in log space)."""
    return price_params(inst).log_ul


# ------------------------------------------------------------ experiment
def run_instance(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run OASiS with every ``ul_scale`` on one instance; one row per scale."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=task["seed"], **task["size"])
    base = {
        "n_slots": inst.n_slots,
        "n_jobs": inst.n_jobs,
        "resources": task["resources"],
        "seed": task["seed"],
        "sum_gamma1": float(sum(j.gamma1 for j in inst.jobs)),
        "load": offered_load(inst),
        "n_worker_servers": inst.n_worker_servers,
        "n_ps_servers": inst.n_ps_servers,
    }
    base["ln_max_ul"] = ln_max_ul(inst)
    rows = []
    for x in task["scales"]:
        t0 = time.perf_counter()
        sched = p.run("oasis", inst, ul_scale=x)
        runtime = time.perf_counter() - t0
        ev = p.check(inst, sched)
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


def _configs(quick: bool) -> tuple[list[tuple[int, int, str]], int, int]:
    """``[(T, n_jobs, label)]``, servers per side, number of seeds."""
    if quick:
        return [(30, 6, "abundant"), (30, 30, "scarce")], 2, 2
    return (
        [(300, 50, "abundant"), (300, 200, "medium"), (300, 400, "scarce")],
        20,
        5,
    )


def add_relative(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``rel_to_actual``: utility over the same instance's utility at 100%."""
    key = ["n_slots", "n_jobs", "seed"]
    ref = df[df["ul_scale"] == 1.0].set_index(key)["utility"]
    base = df.join(ref.rename("_ref"), on=key)["_ref"]
    rel = df["utility"] / base.where(base > 0)
    return df.assign(rel_to_actual=rel)


def _plot(df: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(11.0, 4.2), layout="constrained")
    ax_abs, ax_rel = fig.subplots(1, 2)
    for i, ((n, res), g) in enumerate(df.groupby(["n_jobs", "resources"], sort=True)):
        label = f"{n} jobs ({res}), load {g['load'].mean():.2f}"
        for ax, col, scale in (
            (ax_abs, "utility", 1.0),
            (ax_rel, "rel_to_actual", 100.0),
        ):
            s = g.groupby("ul_scale")[col].agg(["mean", "std"]) * scale
            ax.errorbar(
                s.index * 100 * (1 + 0.03 * (i - 1)),  # small offset per series
                s["mean"] - (100.0 if col == "rel_to_actual" else 0.0),
                yerr=s["std"].fillna(0.0),
                marker="o",
                capsize=3,
                label=label,
            )
    for ax in (ax_abs, ax_rel):
        ax.set_xscale("log", base=2)
        ax.set_xticks([x * 100 for x in SCALES], [f"{x:.0%}" for x in SCALES])
        ax.set_xticks([], minor=True)
        ax.set_xlabel("U/L estimate (% of actual value)")
    ax_abs.set_ylabel("OASiS total utility (mean ± std over seeds)")
    ax_abs.legend(fontsize=8)
    ax_rel.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax_rel.set_ylabel("change vs. exact U/L on the same instance (%)")
    ax_rel.set_title("paired change (mean ± std over seeds)", fontsize=10)
    ax_abs.set_title("total utility", fontsize=10)
    T = int(df["n_slots"].iloc[0])
    H = int(df["n_worker_servers"].iloc[0])
    fig.suptitle(f"Fig. 6: OASiS under inaccurate U/L, T = {T}, H = K = {H}")
    return fig


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    cfg = ["n_slots", "n_jobs", "resources"]
    g = df.groupby([*cfg, "ul_scale"])
    s = g["utility"].mean().unstack("ul_scale")
    s.columns = [f"{c:.0%}" for c in s.columns]
    per_seed = df.assign(side=np.sign(df["ul_scale"] - 1.0)).pivot_table(
        index=[*cfg, "seed"], columns="side", values="utility", aggfunc="mean"
    )
    diff = (per_seed[-1.0] - per_seed[1.0]) / per_seed[0.0].where(per_seed[0.0] > 0)
    s["under-over_%"] = 100 * diff.groupby(level=[0, 1, 2]).mean()
    s["seeds_under>over"] = (
        (per_seed[-1.0] > per_seed[1.0]).groupby(level=[0, 1, 2]).sum().astype(int)
    )
    s["seeds"] = per_seed.groupby(level=[0, 1, 2]).size()
    s["ln_max_ul"] = df.groupby(cfg)["ln_max_ul"].mean()
    s["load"] = df.groupby(cfg)["load"].mean()
    return s


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 6 and write ``fig6_ul_estimates.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Tiny sizes for smoke tests (well under a minute).
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x seed x ``ul_scale``.
    """
    out_dir = Path(out_dir)
    configs, servers, n_seeds = _configs(quick)
    tasks = [
        {
            "seed": seed,
            "resources": label,
            "scales": SCALES,
            "size": {
                "n_jobs": n,
                "n_slots": T,
                "n_worker_servers": servers,
                "n_ps_servers": servers,
            },
        }
        for T, n, label in configs
        for seed in range(n_seeds)
    ]
    results = sweep.map(
        _ScriptFunction(run_instance),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = add_relative(pd.DataFrame([r for rs in results for r in rs]))[COLUMNS]
    fig = _plot(df)
    _write_outputs(out_dir, NAME, df, fig)
    print(f"{NAME}: mean OASiS total utility per U/L estimate ({n_seeds} seeds)")
    print("paper (T=300): underestimation > overestimation when resources are scarce")
    with pd.option_context("display.width", 160):
        print(_summary(df).to_string())
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke-test sizes")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/oasis"), help="output dir"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes")
    args = parser.parse_args()
    main(args.out, quick=args.quick, workers=args.workers)
