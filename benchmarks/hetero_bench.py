"""hetero speed benchmarks against the paper's running times (Tables IV and V).

Targets (S = 4 jobs, ``generate(seed, 4, K)``, 1:1:1 GPUs):

1. ``exact_optimum``: certified optimum of P1 (``solve_offline``, exact MILP)
   at ``K = 30``.  Paper: exhaustive search 2.21 h (47.89 s at ``K = 15``,
   Table IV); target < 60 s.
2. ``has_all``: HAS over all ``C(29, 3) = 3,654`` categories at ``K = 30``.
   Paper 55.54 s (1.07 s at ``K = 15``); target 5 s.
3. ``jps_n60``: JPS ``N = 60`` (market) at ``K = 30`` (paper 1.13 s, target
   0.2 s) and ``K = 15`` (paper 0.22 s).
4. ``jps_n40_k300``: JPS ``N = 40`` at ``K = 300``, with the market
   (``p3="market"``, the paper's JPS) and with ``p3="exact"`` (Hungarian).
   Paper 114.61 s (Table V); target 10 s.

HAS (and JPS's batch of markets) may run the markets on all of numba's
threads (column ``threads``).  Every placement is re-evaluated by the checker (``avg_jct``; the optimum's
``status`` says whether it was proven).  Medians over instances and
repetitions are printed beside the paper's number and the target, and all
timings are written to ``benchmarks/out/hetero_bench.csv`` (atomically).
Timings are measurements, not assertions: only the ``--quick`` smoke run is
part of ``make test``.  ``--quick`` uses tiny settings (``K = 15`` for the
optimum and HAS, one seed, no market at ``K = 300``) and is not comparable
with the targets.

Run: ``python -m benchmarks.hetero_bench [--quick]``.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.common import cli, print_table, run_benches
from optsched.core.base import write_atomic
from optsched.hetero.check import check
from optsched.hetero.instance import generate
from optsched.hetero.online import JpsParams, has, jps, market

N_JOBS = 4
#: (bench, K, variant) -> (paper seconds, target seconds); NaN when none.
PAPER_TARGET = {
    ("exact_optimum", 15, "milp"): (47.89, math.nan),
    ("exact_optimum", 30, "milp"): (2.21 * 3600.0, 60.0),
    ("has_all", 15, "market"): (1.07, math.nan),
    ("has_all", 30, "market"): (55.54, 5.0),
    ("jps_n60", 15, "market"): (0.22, math.nan),
    ("jps_n60", 30, "market"): (1.13, 0.2),
    ("jps_n40_k300", 300, "market"): (114.61, 10.0),
    ("jps_n40_k300", 300, "exact"): (114.61, 10.0),
}
COLUMNS = [
    "bench",
    "variant",
    "n_jobs",
    "n_workers",
    "seed",
    "rep",
    "seconds",
    "threads",
    "status",
    "avg_jct",
    "paper_s",
    "target_s",
]


def _threads() -> int:
    """Threads numba's parallel markets may use (1 without numba)."""
    try:
        import numba
    except ImportError:
        return 1
    return int(numba.get_num_threads())


def _row(bench, variant, K, seed, rep, seconds, status, avg_jct) -> dict[str, Any]:
    paper, target = PAPER_TARGET.get((bench, K, variant), (math.nan, math.nan))
    return {
        "bench": bench,
        "variant": variant,
        "n_jobs": N_JOBS,
        "n_workers": K,
        "seed": seed,
        "rep": rep,
        "seconds": seconds,
        "threads": _threads(),
        "status": status,
        "avg_jct": avg_jct,
        "paper_s": paper,
        "target_s": target,
    }


def exact_optimum(quick: bool = False) -> list[dict[str, Any]]:
    """Exact MILP (``models.hetero.solve_exact``) at K = 30 (quick: K = 15)."""
    from optsched.models.hetero import solve_exact

    from optsched.core.ratio import best_start

    K, seeds = (15, [0]) if quick else (30, list(range(5)))
    rows = []
    for seed in seeds:
        inst = generate(seed, N_JOBS, K)
        t0 = time.perf_counter()
        start = best_start("hetero", inst)  # best online placement
        res = solve_exact(inst, time_limit=600.0, threads=1, start=start)
        dt = time.perf_counter() - t0
        obj = check(inst, res.schedule).objective
        rows.append(_row("exact_optimum", "milp", K, seed, 0, dt, res.status, obj))
    return rows


def has_all(quick: bool = False) -> list[dict[str, Any]]:
    """HAS over all of ``Psi`` at K = 30 (quick: K = 15)."""
    K, seeds = (15, [0]) if quick else (30, list(range(3)))
    rows = []
    for seed in seeds:
        inst = generate(seed, N_JOBS, K)
        t0 = time.perf_counter()
        pl = has(inst)
        dt = time.perf_counter() - t0
        status = f"{len(pl.meta['cycled'])} cycled"
        obj = check(inst, pl).objective
        rows.append(_row("has_all", "market", K, seed, 0, dt, status, obj))
    return rows


def _jps(bench, K, seeds, reps, n, p3) -> list[dict[str, Any]]:
    rows = []
    for seed in seeds:
        inst = generate(seed, N_JOBS, K)
        for rep in range(reps):
            t0 = time.perf_counter()
            pl = jps(inst, seed=0, params=JpsParams(n_samples=n, p3=p3))
            dt = time.perf_counter() - t0
            obj = check(inst, pl).objective
            rows.append(_row(bench, p3, K, seed, rep, dt, "", obj))
    return rows


def jps_n60(quick: bool = False) -> list[dict[str, Any]]:
    """JPS N = 60 with the market at K = 15 and K = 30."""
    seeds, reps = ([0], 1) if quick else (list(range(5)), 3)
    return [r for K in (15, 30) for r in _jps("jps_n60", K, seeds, reps, 60, "market")]


def jps_n40_k300(quick: bool = False) -> list[dict[str, Any]]:
    """JPS N = 40 at K = 300, market and exact P3 (quick: exact only)."""
    seeds = [0] if quick else list(range(3))
    rows = _jps("jps_n40_k300", 300, seeds, 1 if quick else 3, 40, "exact")
    if not quick:
        rows += _jps("jps_n40_k300", 300, seeds, 1, 40, "market")
    return rows


def _warm_up() -> None:
    """Load numba's cached market and the imports before timing."""
    market(np.array([[2.0, 1.0], [1.0, 2.0]]), (1, 1))
    jps(generate(0, N_JOBS, 15), params=JpsParams(n_samples=2))


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Median / max seconds per bench x K x variant, beside the paper and target."""
    out = (
        df.groupby(["bench", "n_workers", "variant"], sort=False)
        .agg(
            median_s=("seconds", "median"),
            max_s=("seconds", "max"),
            n=("seconds", "size"),
            paper_s=("paper_s", "first"),
            target_s=("target_s", "first"),
        )
        .reset_index()
    )
    out["speedup_vs_paper"] = out["paper_s"] / out["median_s"]
    out["meets_target"] = np.where(
        out["target_s"].isna(),
        "-",
        np.where(out["median_s"] <= out["target_s"], "yes", "NO"),
    )
    return out


def main(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Run the four benchmarks, print medians beside the paper, write the CSV."""
    _warm_up()
    rows = run_benches((exact_optimum, has_all, jps_n60, jps_n40_k300), quick)
    df = pd.DataFrame(rows, columns=COLUMNS)
    print(
        "paper: exhaustive search 2.21 h (K = 30), HAS 55.54 s (K = 30), "
        "JPS N = 60 1.13 s (K = 30) / 0.22 s (K = 15), JPS N = 40 114.61 s (K = 300)"
    )
    print(
        "hetero running times (S = 4; paper: Tables IV and V; exact_optimum's paper "
        "number is its exhaustive search)"
        + (" -- QUICK settings, not comparable with the targets" if quick else "")
    )
    print_table(summarize(df), width=160)
    statuses = df.loc[df["bench"] == "exact_optimum", "status"]
    print(f"exact optimum proven: {int((statuses == 'optimal').sum())}/{len(statuses)}")
    write_atomic(out_dir, {"hetero_bench.csv": lambda p: df.to_csv(p, index=False)})
    return df


if __name__ == "__main__":
    cli(main, __doc__)
