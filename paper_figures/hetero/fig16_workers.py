"""Fig. 16 of Liu et al. (TPDS 2024): average JCT versus the number of workers K.

What the paper shows (Sec. VI-B1, "Impact of K", Fig. 16): the average JCT
(8) of Optimus, Optimus-LB, JPS (``N = 40``) and HAS for ``S = 4`` jobs on
``K = 15, 30, 50, 100, 200, 300`` workers, the GPU types in the proportions
of the 15-worker scenario; *HAS is not applied to the scenarios of K = 200
and K = 300 due to the prohibitively high computational overheads*.  Claims:

* *with the increase of K, the average JCT produced by all four schemes
  decreases*;
* *JPS consistently achieves lower JCT compared to Optimus and Optimus-LB*,
  but *the performance gain of JPS over Optimus-LB diminishes* with K,
  because communication takes a growing share of the latency;
* at ``K = 300``, JPS (``N = 40``) has an *average communication latency of
  68.86 s and an average computation latency of 201.30 s*, Optimus-LB
  *69.13 s and 217.96 s*.  We read these as the averages over the jobs of
  ``T_i l_i^[c]`` and ``T_i l_i^[p]`` (the two terms of the JCT (7), so that
  they add up to the average JCT: 270.16 s and 287.09 s).

What we do: every scheme runs through the registry (``p.run``) and every
placement through the checker (``p.check``); the JCT and both latency terms
come from the checker's evaluation (``jct``, ``comm_latency``,
``compute_latency`` per job), never from the algorithm.  Schemes (column
``scheme``):

* ``optimus``, ``optimus_lb``: the baselines (equal split / proportional
  split (12); docs/hetero.md);
* ``jps_market``: JPS ``N = 40`` with Alg. 2's matching market (the paper's
  JPS), ``jps_exact``: JPS ``N = 40`` with P3 solved by the Hungarian method
  (``p3="exact"``: the same total throughput per category by Theorem 2,
  ties broken differently).  Both run at every K by default (the compiled
  market takes 3-11 s at ``K = 300`` here on 2 threads, 2026-11-24);
  ``market_max_k`` limits the market runs, column ``p3`` says which P3
  solver a row used;
* ``has``: only for ``K <= has_max_k`` (default 50: HAS over all
  ``C(49, 3) = 18,424`` categories took 34-55 s at ``K = 50`` here with the
  compiled, multi-threaded markets, the paper's Table V 857.81 s; at
  ``K = 100`` the paper needed 12.98 h);
* ``optimum``: the certified optimum of P1 (``p.solve_offline``, exact
  MILP) with a time limit; ``opt_status`` is ``optimal`` only when proven.
  ``ratio_to_opt`` (the checker's JCT over the proven optimum of the same
  instance) is NaN when the optimum is not proven; ``opt_bound`` is a valid
  lower bound in every case.

Readings and choices
--------------------
* Instances: ``generate(seed, 4, K)`` (the generator's default 1:1:1 GPU
  mix of T4 / P100 / V100 laid out 5 per node, 4 distinct random Table III
  jobs); seeds ``0..n_seeds-1`` (default 3, quick 1).  The same seed draws
  the same jobs at every K, so each seed is a curve.  ``H`` (35) is about
  1.27 (with AlexNet) to 1.5, not the paper's 1.15 (docs/hetero.md).
* JPS: ``alpha = 0.7``, ``beta = 1``, prioritising, sampler seed 0
  (``jps_seed``), one run per instance.
* The paper's K = 300 latencies are printed beside our mean over seeds of the
  same quantities for ``jps_market`` and ``optimus_lb``
  (``paper_avg_comm_s`` / ``paper_avg_comp_s`` / ``paper_avg_jct`` on
  those rows).  Our JCT scale differs (estimated throughputs, model sizes
  from parameter counts: docs/hetero.md), so only the shares and the
  ordering are comparable.

CSV: one row per instance x scheme with ``seed``, ``n_jobs``,
``n_workers`` (regenerate with ``generate(seed, n_jobs, n_workers)``), the
placement (``assignment``: job of each worker; ``split``: ``equal`` for
Optimus, ``proportional`` (12) otherwise), the checker's ``avg_jct``,
``avg_comm_s``, ``avg_comp_s`` (seconds, averages over jobs; they sum to
``avg_jct``) and ``makespan``, the optimum's status/bound, the paper's
values, and the algorithm's wall-clock ``runtime_s`` (informational only;
see ``table5_running_time``).
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
from matplotlib.ticker import NullLocator

import optsched
from optsched.core import sweep
from optsched.core.figures import ScriptFunction as _ScriptFunction
from optsched.core.figures import write_outputs as _write_outputs
from optsched.hetero.instance import GPU_TYPES

NAME = "fig16_workers"
COLUMNS = [
    "seed",
    "n_jobs",
    "n_workers",
    "gpu_counts",
    "jobs",
    "heterogeneity",
    "scheme",
    "algorithm",
    "n_samples",
    "jps_seed",
    "p3",
    "split",
    "category",
    "assignment",
    "avg_jct",
    "avg_comm_s",
    "avg_comp_s",
    "makespan",
    "n_cycled",
    "opt_status",
    "opt_objective",
    "opt_bound",
    "ratio_to_opt",
    "paper_avg_jct",
    "paper_avg_comm_s",
    "paper_avg_comp_s",
    "runtime_s",
]
N_JOBS = 4
KS = (15, 30, 50, 100, 200, 300)
JPS_N = 40
SCHEMES = ("optimus", "optimus_lb", "jps_market", "jps_exact", "has", "optimum")
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "jps_market": "JPS N=40 (market)",
    "jps_exact": "JPS N=40 (exact P3)",
    "has": "HAS",
    "optimum": "optimum (MILP)",
}
#: Sec. VI-B1 at K = 300: (average communication, average computation) latency, s.
PAPER_K300 = {"jps": (68.86, 201.30), "optimus_lb": (69.13, 217.96)}
PAPER_K = 300


# --------------------------------------------------------------- helpers
def make_instance(seed: int, n_jobs: int, n_workers: int):
    """The instance of a CSV row: ``generate(seed, n_jobs, n_workers)`` (1:1:1 GPUs)."""
    return optsched.get_paper("hetero").generate(
        seed=seed, n_jobs=n_jobs, n_workers=n_workers
    )


def _paper_values(scheme: str, algorithm: str, K: int) -> tuple[float, float, float]:
    key = "optimus_lb" if scheme == "optimus_lb" else algorithm
    if K != PAPER_K or scheme not in ("optimus_lb", "jps_market", "jps_exact"):
        return math.nan, math.nan, math.nan
    comm, comp = PAPER_K300[key]
    return comm + comp, comm, comp


# ------------------------------------------------------------ experiment
def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Run one scheme on one instance and return the checker's row."""
    p = optsched.get_paper("hetero")
    seed, S, K, scheme = task["seed"], task["n_jobs"], task["n_workers"], task["scheme"]
    inst = make_instance(seed, S, K)
    opt_status, opt_bound = "", math.nan
    n_samples, jps_seed, p3 = math.nan, -1, ""
    t0 = time.perf_counter()
    if scheme == "optimum":
        res = p.solve_offline(inst, time_limit=task["time_limit"], threads=1)
        runtime = res.runtime
        placement, algorithm = res.schedule, "solve_offline"
        opt_status, opt_bound = res.status, float(res.bound)
    elif scheme in ("jps_market", "jps_exact"):
        p3 = scheme.removeprefix("jps_")
        n_samples, jps_seed = JPS_N, 0
        placement = p.run("jps", inst, n_samples=JPS_N, seed=jps_seed, p3=p3)
        runtime, algorithm = time.perf_counter() - t0, "jps"
    else:
        placement = p.run(scheme, inst)
        runtime, algorithm = time.perf_counter() - t0, scheme
    ev = p.check(inst, placement)
    T = inst.epochs
    assignment = np.asarray(placement.sigma).argmax(axis=0)
    paper_jct, paper_comm, paper_comp = _paper_values(scheme, algorithm, K)
    return {
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "gpu_counts": "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES),
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity": inst.heterogeneity(),
        "scheme": scheme,
        "algorithm": algorithm,
        "n_samples": n_samples,
        "jps_seed": jps_seed,
        "p3": p3,
        "split": "equal" if scheme == "optimus" else "proportional",
        "category": "-".join(str(int(x)) for x in ev.n_workers),
        "assignment": " ".join(str(int(a)) for a in assignment),
        "avg_jct": float(ev.objective),
        "avg_comm_s": float(np.mean(T * ev.comm_latency)),
        "avg_comp_s": float(np.mean(T * ev.compute_latency)),
        "makespan": ev.makespan,
        "n_cycled": len(placement.meta.get("cycled", [])),
        "opt_status": opt_status,
        "opt_objective": math.nan,
        "opt_bound": opt_bound,
        "ratio_to_opt": math.nan,
        "paper_avg_jct": paper_jct,
        "paper_avg_comm_s": paper_comm,
        "paper_avg_comp_s": paper_comp,
        "runtime_s": runtime,
    }


def _attach_optimum(df: pd.DataFrame) -> pd.DataFrame:
    """Fill ``opt_*`` and ``ratio_to_opt`` of every row from its instance's optimum row."""
    opt = df[df["scheme"] == "optimum"].set_index(["n_workers", "seed"])
    for idx, r in df.iterrows():
        key = (r["n_workers"], r["seed"])
        if key not in opt.index:
            continue
        o = opt.loc[key]
        df.at[idx, "opt_status"] = o["opt_status"]
        df.at[idx, "opt_bound"] = o["opt_bound"]
        df.at[idx, "opt_objective"] = o["avg_jct"]
        if o["opt_status"] == "optimal":
            df.at[idx, "ratio_to_opt"] = r["avg_jct"] / o["avg_jct"]
    return df


def build_tasks(
    ks: tuple[int, ...],
    seeds: list[int],
    *,
    has_max_k: int,
    market_max_k: int,
    opt_max_k: int,
    time_limit: float,
) -> list[dict[str, Any]]:
    """One task per (K, seed, scheme); the expensive ones first."""
    tasks = []
    for K in ks:
        for seed in seeds:
            for scheme in SCHEMES:
                if scheme == "has" and K > has_max_k:
                    continue
                if scheme == "jps_market" and K > market_max_k:
                    continue
                if scheme == "optimum" and K > opt_max_k:
                    continue
                tasks.append(
                    {
                        "seed": seed,
                        "n_jobs": N_JOBS,
                        "n_workers": K,
                        "scheme": scheme,
                        "time_limit": time_limit,
                    }
                )
    cost = {"optimum": 3, "has": 2, "jps_market": 1}
    return sorted(
        tasks, key=lambda t: (-cost.get(t["scheme"], 0), -t["n_workers"])
    )  # stable


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "ks": (15, 30),
            "n_seeds": 1,
            "has_max_k": 15,
            "market_max_k": 300,
            "opt_max_k": 15,
            "time_limit": 30.0,
        }
    return {
        "ks": KS,
        "n_seeds": 3,
        "has_max_k": 50,
        "market_max_k": 300,
        "opt_max_k": 300,
        "time_limit": 120.0,
    }


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Mean over seeds per K x scheme of the JCT and its two terms."""
    g = df.groupby(["n_workers", "scheme"], sort=True)
    out = g.agg(
        n=("avg_jct", "size"),
        avg_jct=("avg_jct", "mean"),
        avg_comm_s=("avg_comm_s", "mean"),
        avg_comp_s=("avg_comp_s", "mean"),
        ratio_to_opt=("ratio_to_opt", "mean"),
        runtime_s=("runtime_s", "median"),
    ).reset_index()
    rank = out["scheme"].map({s: j for j, s in enumerate(SCHEMES)})
    return (
        out.assign(_rank=rank)
        .sort_values(["n_workers", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def _plot(df: pd.DataFrame) -> Figure:
    summ = summarize(df)
    fig = Figure(figsize=(11.0, 4.3), layout="constrained")
    ax, bx = fig.subplots(1, 2, width_ratios=[1.3, 1.0])
    markers = {
        "optimus": "s",
        "optimus_lb": "^",
        "jps_market": "o",
        "jps_exact": "x",
        "has": "D",
        "optimum": "*",
    }
    for j, s in enumerate(SCHEMES):
        sub = summ[summ["scheme"] == s]
        if sub.empty:
            continue
        ax.plot(
            sub["n_workers"],
            sub["avg_jct"],
            marker=markers[s],
            color=f"C{j}",
            ls=":" if s in ("optimum", "jps_exact") else "-",
            label=LABELS[s],
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ks = sorted(df["n_workers"].unique())
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("number of workers K")
    ax.set_ylabel("average JCT (s, checker; mean over seeds)")
    n_seeds = df["seed"].nunique()
    ax.set_title(f"S = {N_JOBS}, 1:1:1 GPUs, {n_seeds} instance(s) per K", fontsize=9)
    ax.legend(fontsize=8)
    # right: the two latency terms at the largest K, ours and the paper's
    K = int(max(ks))
    sub = summ[summ["n_workers"] == K].set_index("scheme")
    bars = [(LABELS[s], sub.loc[s]) for s in SCHEMES if s in sub.index]
    labels = [b[0] for b in bars]
    comm = [float(b[1]["avg_comm_s"]) for b in bars]
    comp = [float(b[1]["avg_comp_s"]) for b in bars]
    if K == PAPER_K:
        for key, lab in (("jps", "paper JPS N=40"), ("optimus_lb", "paper Optimus-LB")):
            labels.append(lab)
            comm.append(PAPER_K300[key][0])
            comp.append(PAPER_K300[key][1])
    x = np.arange(len(labels))
    hatch = ["" if not lab.startswith("paper") else "//" for lab in labels]
    bx.bar(x, comp, color="C0", hatch=hatch, label="computation T l^[p]")
    bx.bar(x, comm, bottom=comp, color="C1", hatch=hatch, label="communication T l^[c]")
    bx.set_xticks(x, labels, rotation=35, ha="right", fontsize=7)
    bx.set_ylabel("average latency over jobs (s)")
    bx.set_title(f"K = {K}: JCT = computation + communication", fontsize=9)
    bx.legend(fontsize=7)
    fig.suptitle("Fig. 16: impact of the number of workers", fontsize=10)
    return fig


def report(df: pd.DataFrame) -> None:
    """Print our numbers beside the paper's claims."""
    summ = summarize(df)
    print(f"{NAME}: average JCT (s, checker) vs K, S = {N_JOBS}, mean over seeds")
    with pd.option_context("display.width", 160, "display.precision", 4):
        print(summ.to_string(index=False))
    # claim 1: JCT decreases with K (per scheme and seed)
    piv = df.pivot_table(
        index=["scheme", "seed"], columns="n_workers", values="avg_jct"
    )
    dec = [bool((np.diff(r.dropna().to_numpy()) < 0).all()) for _, r in piv.iterrows()]
    print(
        f"paper: JCT decreases with K for all schemes | ours: {sum(dec)}/{len(dec)} "
        "(scheme, seed) curves strictly decreasing"
    )
    # claim 2: JPS below Optimus and Optimus-LB
    w = df.pivot_table(index=["n_workers", "seed"], columns="scheme", values="avg_jct")
    for jps in ("jps_market", "jps_exact"):
        if jps not in w:
            continue
        for base in ("optimus", "optimus_lb"):
            m = w[[jps, base]].dropna()
            gain = (1 - m[jps] / m[base]).groupby(level=0).mean()
            print(
                f"paper: JPS below {LABELS[base]} at every K | ours {LABELS[jps]}: "
                f"{int((m[jps] < m[base]).sum())}/{len(m)} instances; mean gain by K: "
                + ", ".join(f"{k}: {v:+.1%}" for k, v in gain.items())
            )
    # claim 3: K = 300 latencies
    k300 = summ[summ["n_workers"] == PAPER_K].set_index("scheme")
    for scheme, key in (
        ("jps_market", "jps"),
        ("jps_exact", "jps"),
        ("optimus_lb", "optimus_lb"),
    ):
        if scheme not in k300.index:
            continue
        c, p = PAPER_K300[key]
        r = k300.loc[scheme]
        print(
            f"K = {PAPER_K} {LABELS[scheme]:20s} paper comm {c:.2f} s, comp {p:.2f} s "
            f"(comm share {c / (c + p):.1%}) | ours comm {r.avg_comm_s:.2f} s, comp "
            f"{r.avg_comp_s:.2f} s (comm share {r.avg_comm_s / r.avg_jct:.1%})"
        )
    opt = df[df["scheme"] == "optimum"]
    if len(opt):
        print(
            "optimum status by K: "
            + ", ".join(
                f"{k}: {int((s == 'optimal').sum())}/{len(s)} proven"
                for k, s in opt.groupby("n_workers")["opt_status"]
            )
        )


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    ks: tuple[int, ...] | None = None,
    n_seeds: int | None = None,
    has_max_k: int | None = None,
    market_max_k: int | None = None,
    opt_max_k: int | None = None,
    time_limit: float | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 16 and write ``fig16_workers.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: ``K = 15, 30``, one seed, HAS and the optimum at
        ``K = 15`` only.
    ks
        Numbers of workers (default 15, 30, 50, 100, 200, 300).
    n_seeds
        Instances per K (default 3, quick 1).
    has_max_k
        Largest K at which HAS runs (default 50, quick 15).
    market_max_k
        Largest K at which JPS runs with the market (default 300);
        ``jps_exact`` always runs.
    opt_max_k
        Largest K at which the optimum is computed (default 300, quick 15).
    time_limit
        Budget of each ``solve_offline`` in seconds (default 120, quick 30).
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per instance x scheme, columns :data:`COLUMNS`.
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    tasks = build_tasks(
        tuple(cfg["ks"] if ks is None else ks),
        list(range(cfg["n_seeds"] if n_seeds is None else n_seeds)),
        has_max_k=cfg["has_max_k"] if has_max_k is None else has_max_k,
        market_max_k=cfg["market_max_k"] if market_max_k is None else market_max_k,
        opt_max_k=cfg["opt_max_k"] if opt_max_k is None else opt_max_k,
        time_limit=cfg["time_limit"] if time_limit is None else time_limit,
    )
    rows = sweep.map(
        _ScriptFunction(run_task), tasks, workers=workers, progress=progress, desc=NAME
    )
    df = pd.DataFrame(rows, columns=COLUMNS)
    rank = df["scheme"].map({s: j for j, s in enumerate(SCHEMES)})
    df = (
        df.assign(_rank=rank)
        .sort_values(["n_workers", "seed", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )
    df = _attach_optimum(df)
    fig = _plot(df)
    _write_outputs(out_dir, NAME, df, fig)
    report(df)
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke-test sizes")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/hetero"), help="output dir"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes")
    parser.add_argument("--seeds", type=int, default=None, help="instances per K")
    parser.add_argument("--ks", type=int, nargs="+", default=None, help="values of K")
    parser.add_argument("--has-max-k", type=int, default=None, help="HAS up to this K")
    parser.add_argument(
        "--market-max-k", type=int, default=None, help="JPS market up to this K"
    )
    parser.add_argument("--opt-max-k", type=int, default=None, help="MILP up to this K")
    parser.add_argument("--time-limit", type=float, default=None, help="s per MILP")
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        ks=None if args.ks is None else tuple(args.ks),
        n_seeds=args.seeds,
        has_max_k=args.has_max_k,
        market_max_k=args.market_max_k,
        opt_max_k=args.opt_max_k,
        time_limit=args.time_limit,
        workers=args.workers,
    )
