"""Table V of Liu et al. (TPDS 2024): algorithm running time (ART) versus K.

What the paper shows (Sec. VI-B1, "Impact of K", Table V): the average ART
of Optimus, Optimus-LB, JPS (``N = 40``) and HAS for ``S = 4`` jobs on
``K = 50, 100, 200, 300`` workers:

=========  =========  ===========  ==========  ========
K          Optimus    Optimus-LB   JPS N=40    HAS
=========  =========  ===========  ==========  ========
50         4.0 ms     5.05 ms      2.11 s      857.81 s
100        8.31 ms    10.03 ms     8.35 s      12.98 h
200        22.56 ms   24.99 ms     35.92 s     N/A
300        44.16 ms   48.68 ms     114.61 s    N/A
=========  =========  ===========  ==========  ========

and concludes that JPS *works well when applied to a cluster comprising tens
to hundreds of GPU workers*, while Optimus-LB is cheaper still.

What we do: the instances of ``fig16_workers`` (``generate(seed, 4, K)``,
1:1:1 GPUs, seeds ``0..n_seeds-1``), wall-clock time of ``p.run`` (the
registry call) measured sequentially in this process with
``time.perf_counter``; every placement is re-evaluated by the checker
(``avg_jct``).  Schemes (column ``scheme``):

* ``optimus``, ``optimus_lb``: ``reps`` repetitions per instance (default 5);
* ``jps_market``: JPS ``N = 40`` with Alg. 2's matching market (the paper's
  JPS; the compiled market loop of ``optsched.hetero._market_nb`` when numba
  is installed), one repetition (deterministic, slow);
* ``jps_exact``: JPS ``N = 40`` with P3 by the Hungarian method
  (``p3="exact"``), ``reps`` repetitions;
* ``has``: HAS over all of ``Psi``, measured only for ``K <= has_full_max_k``
  (default 50, quick 0: ``C(49, 3) = 18,424`` markets took 34-55 s at
  ``K = 50`` here; ``has`` runs the categories' markets on all of numba's
  threads, column ``threads``, while the category samples below run one
  market each);
* ``has_category`` (``kind == "category_sample"``): HAS restricted to one
  category (``p.run("has", inst, categories=[c])``: one market plus the
  category's JCT), for ``n_timed`` categories drawn uniformly without
  replacement from all of ``Psi`` (``numpy.random.default_rng(seed)``,
  unranked with ``category_at``), at ``K`` in ``has_extrapolate_ks``
  (default 50 and 100, where the paper has numbers);
* ``has_extrapolated`` (``kind == "extrapolation"``): **an extrapolation,
  not a measurement**: mean time of the sampled categories x ``|Psi| =
  C(K-1, 3)`` (an unbiased estimate of HAS's total for uniform samples).

Readings and choices
--------------------
* "Average ART" is read as a typical run; we report the **median** over
  instances and repetitions (the CSV keeps every repetition).
* Before timing, one small market and one Optimus run warm up numba's
  cached compilation and the imports; the times exclude instance generation
  and the checker.
* The machine is shared (2 cores): timings from a loaded machine are upper
  bounds (the script never runs its timings in parallel).

CSV: one row per instance x scheme x repetition (or sampled category) with
``seed``, ``n_jobs``, ``n_workers`` (regenerate with ``generate(seed,
n_jobs, n_workers)``), ``p3``, ``n_samples``, ``category`` (sampled
categories, in the instance's job order), ``runtime_s``, the checker's
``avg_jct``, ``n_psi`` and the paper's ART in seconds (``paper_art_s``,
NaN where the paper prints N/A).
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
from optsched.core.figures import write_outputs as _write_outputs
from optsched.hetero.online import category_at, market, n_categories

NAME = "table5_running_time"
COLUMNS = [
    "seed",
    "n_jobs",
    "n_workers",
    "scheme",
    "algorithm",
    "p3",
    "n_samples",
    "rep",
    "kind",
    "category",
    "runtime_s",
    "threads",
    "avg_jct",
    "n_psi",
    "n_categories_timed",
    "paper_art_s",
]
N_JOBS = 4
KS = (50, 100, 200, 300)
JPS_N = 40
SCHEMES = ("optimus", "optimus_lb", "jps_market", "jps_exact", "has")
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "jps_market": "JPS N=40 (market)",
    "jps_exact": "JPS N=40 (exact P3)",
    "has": "HAS (measured)",
    "has_extrapolated": "HAS (extrapolated)",
}
#: Table V in seconds (HAS at K = 200, 300 is N/A in the paper).
PAPER_ART_S = {
    ("optimus", 50): 4.0e-3,
    ("optimus", 100): 8.31e-3,
    ("optimus", 200): 22.56e-3,
    ("optimus", 300): 44.16e-3,
    ("optimus_lb", 50): 5.05e-3,
    ("optimus_lb", 100): 10.03e-3,
    ("optimus_lb", 200): 24.99e-3,
    ("optimus_lb", 300): 48.68e-3,
    ("jps", 50): 2.11,
    ("jps", 100): 8.35,
    ("jps", 200): 35.92,
    ("jps", 300): 114.61,
    ("has", 50): 857.81,
    ("has", 100): 12.98 * 3600.0,
}


# --------------------------------------------------------------- helpers
def make_instance(seed: int, n_jobs: int, n_workers: int):
    """The instance of a CSV row: ``generate(seed, n_jobs, n_workers)`` (1:1:1 GPUs)."""
    return optsched.get_paper("hetero").generate(
        seed=seed, n_jobs=n_jobs, n_workers=n_workers
    )


def paper_art(scheme: str, K: int) -> float:
    """The paper's Table V entry in seconds for our scheme name (NaN if none)."""
    key = {
        "optimus": "optimus",
        "optimus_lb": "optimus_lb",
        "jps_market": "jps",
        "jps_exact": "jps",
        "has": "has",
        "has_extrapolated": "has",
    }.get(scheme)  # a single category (has_category) has no counterpart
    return PAPER_ART_S.get((key, K), math.nan)


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


def _warm_up() -> None:
    p = optsched.get_paper("hetero")
    market(np.array([[2.0, 1.0], [1.0, 2.0]]), (1, 1))
    inst = make_instance(0, N_JOBS, 15)
    for name in ("optimus", "optimus_lb"):
        p.run(name, inst)
    p.run("jps", inst, n_samples=2, p3="exact")
    p.run("jps", inst, n_samples=2)


def time_instance(
    seed: int,
    K: int,
    *,
    reps: int,
    market_max_k: int,
    has_full_max_k: int,
    has_extrapolate_ks: tuple[int, ...],
    n_cats: int,
) -> list[dict[str, Any]]:
    """All timing rows of one instance (sequential, in this process)."""
    p = optsched.get_paper("hetero")
    inst = make_instance(seed, N_JOBS, K)
    n_psi = n_categories(K, N_JOBS)
    base = {"seed": seed, "n_jobs": N_JOBS, "n_workers": K, "n_psi": n_psi}
    rows: list[dict[str, Any]] = []

    def timed(scheme, algorithm, rep, kind="measured", **params):
        t0 = time.perf_counter()
        pl = p.run(algorithm, inst, **params)
        dt = time.perf_counter() - t0
        rows.append(
            {
                **base,
                "scheme": scheme,
                "algorithm": algorithm,
                "p3": params.get("p3", ""),
                "n_samples": params.get("n_samples", math.nan),
                "rep": rep,
                "kind": kind,
                "category": "-".join(str(int(x)) for x in pl.category)
                if kind == "category_sample"
                else "",
                "runtime_s": dt,
                "threads": numba_threads(),
                "avg_jct": float(p.check(inst, pl).objective),
                "n_categories_timed": math.nan,
                "paper_art_s": paper_art(scheme, K),
            }
        )

    for r in range(reps):
        timed("optimus", "optimus", r)
        timed("optimus_lb", "optimus_lb", r)
        timed("jps_exact", "jps", r, n_samples=JPS_N, seed=0, p3="exact")
    if K <= market_max_k:
        timed("jps_market", "jps", 0, n_samples=JPS_N, seed=0, p3="market")
    if K <= has_full_max_k:
        timed("has", "has", 0)
    if K in has_extrapolate_ks and n_cats > 0:
        cats = sample_categories(K, N_JOBS, n_cats, seed)
        for j, c in enumerate(cats):
            timed("has_category", "has", j, kind="category_sample", categories=[c])
        times = [r["runtime_s"] for r in rows if r["scheme"] == "has_category"]
        rows.append(
            {
                **base,
                "scheme": "has_extrapolated",
                "algorithm": "has",
                "p3": "market",
                "n_samples": math.nan,
                "rep": 0,
                "kind": "extrapolation",
                "category": "",
                "runtime_s": float(np.mean(times)) * n_psi,
                "threads": numba_threads(),
                "avg_jct": math.nan,
                "n_categories_timed": len(times),
                "paper_art_s": paper_art("has_extrapolated", K),
            }
        )
    return rows


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "ks": (50, 100),
            "n_seeds": 1,
            "reps": 2,
            "market_max_k": 100,
            "has_full_max_k": 0,
            "has_extrapolate_ks": (50,),
            "n_categories": 3,
        }
    return {
        "ks": KS,
        "n_seeds": 3,
        "reps": 5,
        "market_max_k": 300,
        "has_full_max_k": 50,
        "has_extrapolate_ks": (50, 100),
        "n_categories": 30,
    }


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Median ART per K x scheme (category samples left out), with the paper's value."""
    d = df[df["kind"] != "category_sample"]
    out = (
        d.groupby(["n_workers", "scheme"], sort=True)
        .agg(
            median_s=("runtime_s", "median"),
            max_s=("runtime_s", "max"),
            n=("runtime_s", "size"),
            paper_s=("paper_art_s", "first"),
        )
        .reset_index()
    )
    order = [*SCHEMES, "has_extrapolated"]
    rank = out["scheme"].map({s: j for j, s in enumerate(order)})
    return (
        out.assign(_rank=rank)
        .sort_values(["n_workers", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def fmt_time(s: float) -> str:
    """Seconds as the paper writes them (ms, s or h)."""
    if s is None or math.isnan(s):
        return "N/A"
    if s < 1.0:
        return f"{s * 1e3:.3g} ms"
    if s < 3600.0:
        return f"{s:.3g} s"
    return f"{s / 3600.0:.3g} h"


def _plot(df: pd.DataFrame) -> Figure:
    summ = summarize(df)
    fig = Figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.subplots()
    paper_key = {
        "optimus": "optimus",
        "optimus_lb": "optimus_lb",
        "jps_market": "jps",
        "has_extrapolated": "has",
    }
    for j, s in enumerate([*SCHEMES, "has_extrapolated"]):
        sub = summ[summ["scheme"] == s]
        if not sub.empty:
            ax.plot(
                sub["n_workers"],
                sub["median_s"],
                marker="o",
                color=f"C{j}",
                ls="--" if s == "has_extrapolated" else "-",
                label=f"ours: {LABELS[s]}",
            )
        if s in paper_key:
            ks = sorted(k for (name, k) in PAPER_ART_S if name == paper_key[s])
            ax.plot(
                ks,
                [PAPER_ART_S[(paper_key[s], k)] for k in ks],
                marker="s",
                mfc="none",
                color=f"C{j}",
                ls=":",
                label=f"paper: {LABELS[s].split(' (')[0]}",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ks = sorted(set(df["n_workers"]) | set(KS))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("number of workers K")
    ax.set_ylabel("algorithm running time (s, median; log)")
    ax.set_title(
        f"Table V: ART, S = {N_JOBS} (dashed: extrapolated from sampled categories)",
        fontsize=9,
    )
    ax.legend(fontsize=7, ncol=2)
    return fig


def report(df: pd.DataFrame) -> None:
    """Print Table V, the paper's entries beside our medians."""
    summ = summarize(df)
    print(
        f"{NAME}: median ART (this machine, one process, up to "
        f"{numba_threads()} numba thread(s)) | paper's Table V"
    )
    for r in summ.itertuples(index=False):
        note = " (EXTRAPOLATION)" if r.scheme == "has_extrapolated" else ""
        print(
            f"  K={int(r.n_workers):3d} {LABELS[r.scheme]:20s} paper "
            f"{fmt_time(r.paper_s):>9s} | ours median {fmt_time(r.median_s):>9s} "
            f"(max {fmt_time(r.max_s)}, n={int(r.n)}){note}"
        )
    samp = df[df["kind"] == "category_sample"]
    if len(samp):
        g = samp.groupby("n_workers")["runtime_s"]
        print(
            "  HAS extrapolation = mean time of one category's market x |Psi|; "
            "sampled categories: "
            + ", ".join(
                f"K={k}: {len(s)} categories, median {fmt_time(s.median())}, "
                f"mean {fmt_time(s.mean())}"
                for k, s in g
            )
        )


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    ks: tuple[int, ...] | None = None,
    n_seeds: int | None = None,
    reps: int | None = None,
    market_max_k: int | None = None,
    has_full_max_k: int | None = None,
    has_extrapolate_ks: tuple[int, ...] | None = None,
    n_timed: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Table V and write ``table5_running_time.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: ``K = 50, 100``, one seed, 2 repetitions, HAS
        extrapolated at ``K = 50`` from 3 categories.
    ks
        Numbers of workers (default 50, 100, 200, 300).
    n_seeds
        Instances per K (default 3, quick 1).
    reps
        Repetitions of Optimus, Optimus-LB and JPS exact (default 5, quick 2).
    market_max_k
        Largest K at which JPS runs with the market (default 300, quick 100).
    has_full_max_k
        Largest K at which the full HAS is timed (default 50, quick 0).
    has_extrapolate_ks
        K values at which HAS is extrapolated (default (50, 100), quick (50,)).
    n_timed
        Categories timed per instance for the extrapolation (default 30,
        quick 3).
    progress
        Print one line per instance.

    Returns
    -------
    pandas.DataFrame
        One row per instance x scheme x repetition, columns :data:`COLUMNS`.
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    ks = tuple(cfg["ks"] if ks is None else ks)
    n_seeds = cfg["n_seeds"] if n_seeds is None else n_seeds
    _warm_up()
    rows: list[dict[str, Any]] = []
    for K in ks:
        for seed in range(n_seeds):
            t0 = time.perf_counter()
            rows += time_instance(
                seed,
                K,
                reps=cfg["reps"] if reps is None else reps,
                market_max_k=cfg["market_max_k"]
                if market_max_k is None
                else market_max_k,
                has_full_max_k=cfg["has_full_max_k"]
                if has_full_max_k is None
                else has_full_max_k,
                has_extrapolate_ks=tuple(
                    cfg["has_extrapolate_ks"]
                    if has_extrapolate_ks is None
                    else has_extrapolate_ks
                ),
                n_cats=cfg["n_categories"] if n_timed is None else n_timed,
            )
            if progress:
                print(f"  {NAME}: K={K} seed={seed} {time.perf_counter() - t0:.1f} s")
    df = pd.DataFrame(rows, columns=COLUMNS)
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
    parser.add_argument("--seeds", type=int, default=None, help="instances per K")
    parser.add_argument("--ks", type=int, nargs="+", default=None, help="values of K")
    parser.add_argument("--reps", type=int, default=None, help="timing repetitions")
    parser.add_argument(
        "--market-max-k", type=int, default=None, help="JPS market up to this K"
    )
    parser.add_argument(
        "--has-full-max-k", type=int, default=None, help="full HAS up to this K"
    )
    parser.add_argument(
        "--has-extrapolate-ks", type=int, nargs="*", default=None, help="HAS estimate"
    )
    parser.add_argument(
        "--categories", type=int, default=None, help="categories timed per instance"
    )
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        ks=None if args.ks is None else tuple(args.ks),
        n_seeds=args.seeds,
        reps=args.reps,
        market_max_k=args.market_max_k,
        has_full_max_k=args.has_full_max_k,
        has_extrapolate_ks=None
        if args.has_extrapolate_ks is None
        else tuple(args.has_extrapolate_ks),
        n_timed=args.categories,
    )
