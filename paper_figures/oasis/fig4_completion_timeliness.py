"""Fig. 4 of Bao et al. (INFOCOM 2018): completion timeliness per scheme.

The paper runs 100 time-sensitive and 100 time-critical jobs in ``T = 100``
slots and reports that *the actual completion time minus target completion
time (gamma_3) achieved with OASiS is the closest to zero for both types of
jobs, with the smallest variance* (Sec. V-A, "Results").

We generate 200 jobs with ``job_mix=(0, 0.5, 0.5)`` (each job is sensitive or
critical with probability 1/2, so the split is about 100/100), ``T = 100``,
``H = K = 50`` servers as in the paper, and take ``lateness = t_hat_i - a_i -
gamma3_i`` from the checker (``p.check(...).lateness``).  Lateness exists
only for jobs that are admitted and completed; the ``admitted`` column and
the printed table keep the number of such jobs beside the statistics, since
a scheme that rejects hard jobs looks punctual on the rest.

Each CSV row is one job x instance (seed) x scheme.
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

NAME = "fig4_completion_timeliness"
JOB_MIX = (0.0, 0.5, 0.5)
KINDS = ("sensitive", "critical")
COLUMNS = [
    "n_slots",
    "n_jobs",
    "seed",
    "scheme",
    "job",
    "kind",
    "admitted",
    "lateness",
    "utility",
    "gamma1",
    "gamma3",
    "runtime_s",
    "n_worker_servers",
    "n_ps_servers",
]

LABELS = {"oasis": "OASiS", "fifo": "FIFO", "drf": "DRF", "rrh": "RRH", "dorm": "Dorm"}


# --------------------------------------------------------------- helpers
# ------------------------------------------------------------ experiment
def run_scheme(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one scheme on one instance; one row per job with its lateness."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=task["seed"], job_mix=JOB_MIX, **task["size"])
    t0 = time.perf_counter()
    sched = p.run(task["scheme"], inst)
    runtime = time.perf_counter() - t0
    ev = p.check(inst, sched)
    return [
        {
            "n_slots": inst.n_slots,
            "n_jobs": inst.n_jobs,
            "seed": task["seed"],
            "scheme": task["scheme"],
            "job": i,
            "kind": job.kind,
            "admitted": bool(ev.admitted[i]),
            "lateness": float(ev.lateness[i]),
            "utility": float(ev.utility[i]),
            "gamma1": job.gamma1,
            "gamma3": job.gamma3,
            "runtime_s": runtime,
            "n_worker_servers": inst.n_worker_servers,
            "n_ps_servers": inst.n_ps_servers,
        }
        for i, job in enumerate(inst.jobs)
    ]


def _sizes(quick: bool) -> tuple[int, int, int, int]:
    """Jobs, T, servers per side, number of seeds."""
    if quick:
        return 16, 20, 3, 2
    return 200, 100, 50, 3


def _plot(df: pd.DataFrame, schemes: Sequence[str]) -> Figure:
    fig = Figure(figsize=(10.0, 4.2), layout="constrained")
    axes = fig.subplots(1, len(KINDS), sharey=True)
    labels = [LABELS.get(s, s) for s in schemes]
    for ax, kind in zip(axes, KINDS, strict=True):
        sub = df[(df["kind"] == kind) & df["admitted"]]
        data = [sub.loc[sub["scheme"] == s, "lateness"].to_numpy() for s in schemes]
        counts = [len(d) for d in data]
        ax.boxplot([d if len(d) else np.array([np.nan]) for d in data])
        ax.set_xticks(
            range(1, len(schemes) + 1),
            [f"{lab}\n(n={c})" for lab, c in zip(labels, counts, strict=True)],
        )
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_title(f"time-{kind} jobs")
        ax.set_xlabel("scheme (n = completed jobs, all seeds)")
    axes[0].set_ylabel("actual - target completion time (slots)")
    T = int(df["n_slots"].iloc[0])
    fig.suptitle(f"Fig. 4: completion timeliness, T = {T}, {df['n_jobs'].iloc[0]} jobs")
    return fig


def _summary(df: pd.DataFrame) -> pd.DataFrame:
    done = df[df["admitted"]]
    g = done.groupby(["kind", "scheme"])["lateness"]
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


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    schemes: Sequence[str] | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 4 and write ``fig4_completion_timeliness.csv`` / ``.png``.

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
        One row per job x seed x scheme.
    """
    out_dir = Path(out_dir)
    p = optsched.get_paper("oasis")
    schemes = list(schemes) if schemes is not None else list(p.algorithms)
    n_jobs, T, servers, n_seeds = _sizes(quick)
    size = {
        "n_jobs": n_jobs,
        "n_slots": T,
        "n_worker_servers": servers,
        "n_ps_servers": servers,
    }
    # Dorm (slowest) first so that both workers stay busy.
    order = sorted(schemes, key=lambda s: s != "dorm")
    tasks = [
        {"seed": seed, "scheme": s, "size": size}
        for s in order
        for seed in range(n_seeds)
    ]
    results = sweep.map(
        _ScriptFunction(run_scheme),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = (
        pd.DataFrame([r for rs in results for r in rs], columns=COLUMNS)
        .sort_values(["seed", "scheme", "job"], kind="stable")
        .reset_index(drop=True)
    )
    fig = _plot(df, schemes)
    _write_outputs(out_dir, NAME, df, fig)
    print(
        f"{NAME}: lateness (t_hat - a - gamma3) of completed jobs, T = {T}, "
        f"{n_jobs} jobs, H = K = {servers}, {n_seeds} seeds"
    )
    print("paper: OASiS closest to zero with the smallest variance, both job types")
    with pd.option_context("display.width", 160, "display.precision", 2):
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
