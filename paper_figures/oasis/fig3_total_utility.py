"""Fig. 3 of Bao et al. (INFOCOM 2018): total job utility vs number of jobs.

The paper runs ``T = 300`` slots on ``H = K = 50`` servers and reports that
*OASiS performs the best, especially when the number of jobs in the fixed
timespan is larger (resources are more scarce)* (Sec. V-A, "Results").

We compare all five schemes of the registry (``oasis``, ``fifo``, ``drf``,
``rrh``, ``dorm``) on the same instances, ``T = 300``, for job counts that go
from abundant to scarce resources with our calibrated generator.  Scarcity is
measured by the offered worker load ``max_r sum_i work_i w_i^r / (T sum_h
c_h^r)`` (column ``load``; > 1 means the jobs cannot all be served).  We use
``H = K = 10`` servers instead of 50: Dorm re-solves a MILP at every arrival
and completion and takes minutes per instance on 50 servers, and fewer servers
reach scarcity with fewer jobs (see paper_figures/README.md).

Every utility is the checker's recomputation (``p.check``).  Each CSV row is
one instance (seed) x number of jobs x scheme.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import optsched
from optsched.core import sweep
from optsched.core.figures import ScriptFunction as _ScriptFunction
from optsched.core.figures import write_outputs as _write_outputs

NAME = "fig3_total_utility"
COLUMNS = [
    "n_slots",
    "n_jobs",
    "seed",
    "scheme",
    "utility",
    "n_admitted",
    "sum_gamma1",
    "load",
    "runtime_s",
    "solver_limit_hits",
    "n_worker_servers",
    "n_ps_servers",
]

LABELS = {"oasis": "OASiS", "fifo": "FIFO", "drf": "DRF", "rrh": "RRH", "dorm": "Dorm"}


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


# ------------------------------------------------------------ experiment
def run_scheme(task: dict[str, Any]) -> dict[str, Any]:
    """Generate one instance, run one scheme on it and check the schedule."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=task["seed"], **task["size"])
    scheme = task["scheme"]
    t0 = time.perf_counter()
    sched = p.run(scheme, inst)
    runtime = time.perf_counter() - t0
    ev = p.check(inst, sched)
    solves = sched.meta.get("solves")
    hits = (
        float(sum(1 for s in solves if s[1] != "optimal"))
        if solves is not None
        else np.nan
    )
    return {
        "n_slots": inst.n_slots,
        "n_jobs": inst.n_jobs,
        "seed": task["seed"],
        "scheme": scheme,
        "utility": ev.objective,
        "n_admitted": ev.n_admitted,
        "sum_gamma1": float(sum(j.gamma1 for j in inst.jobs)),
        "load": offered_load(inst),
        "runtime_s": runtime,
        "solver_limit_hits": hits,
        "n_worker_servers": inst.n_worker_servers,
        "n_ps_servers": inst.n_ps_servers,
    }


def _sizes(quick: bool) -> tuple[list[int], int, int, int]:
    """Job counts, T, servers per side, number of seeds."""
    if quick:
        return [4, 12], 30, 2, 2
    return [25, 50, 100, 200], 300, 10, 5


def _plot(df: pd.DataFrame, schemes: Sequence[str]) -> Figure:
    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.subplots()
    for scheme in schemes:
        g = df[df["scheme"] == scheme].groupby("n_jobs")["utility"]
        s = g.agg(["mean", "std"])
        ax.errorbar(
            s.index,
            s["mean"],
            yerr=s["std"].fillna(0.0),
            marker="o",
            capsize=3,
            label=LABELS.get(scheme, scheme),
        )
    loads = df.groupby("n_jobs")["load"].mean()
    ax.set_xticks(loads.index, [f"{n}\n(load {ld:.2f})" for n, ld in loads.items()])
    ax.set_xlabel("number of jobs (offered worker load)")
    ax.set_ylabel("total utility (mean ± std over seeds)")
    T = int(df["n_slots"].iloc[0])
    H = int(df["n_worker_servers"].iloc[0])
    ax.set_title(f"Fig. 3: total job utility, T = {T}, H = K = {H}")
    ax.legend()
    return fig


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    t = df.pivot_table(
        index="n_jobs", columns="scheme", values="utility", aggfunc="mean"
    )
    t.insert(0, "load", df.groupby("n_jobs")["load"].mean())
    others = [c for c in t.columns if c not in ("load", "oasis")]
    if "oasis" in t.columns and others:
        best = t[others].max(axis=1)
        t["best_baseline"] = t[others].idxmax(axis=1)
        t["oasis/best_baseline"] = t["oasis"] / best
    return t


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    schemes: Sequence[str] | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 3 and write ``fig3_total_utility.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Tiny sizes for smoke tests (well under a minute).
    schemes
        Algorithm names (default: all five of the paper).
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per job count x seed x scheme.
    """
    out_dir = Path(out_dir)
    p = optsched.get_paper("oasis")
    schemes = list(schemes) if schemes is not None else list(p.algorithms)
    job_counts, T, servers, n_seeds = _sizes(quick)
    # Largest instances first (Dorm dominates), so both workers stay busy.
    tasks = [
        {
            "seed": seed,
            "scheme": scheme,
            "size": {
                "n_jobs": n,
                "n_slots": T,
                "n_worker_servers": servers,
                "n_ps_servers": servers,
            },
        }
        for n in sorted(job_counts, reverse=True)
        for scheme in schemes
        for seed in range(n_seeds)
    ]
    rows = sweep.map(
        _ScriptFunction(run_scheme),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = (
        pd.DataFrame(rows, columns=COLUMNS)
        .sort_values(["n_jobs", "seed", "scheme"], kind="stable")
        .reset_index(drop=True)
    )
    fig = _plot(df, schemes)
    _write_outputs(out_dir, NAME, df, fig)
    print(f"{NAME}: mean total utility, T = {T}, H = K = {servers}, {n_seeds} seeds")
    print("paper: OASiS best; its advantage grows with more jobs (scarcer resources)")
    with pd.option_context("display.width", 160, "display.precision", 3):
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
