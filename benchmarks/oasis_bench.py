"""OASiS speed benchmarks against the paper's reported times (footnote 4).

* Per-job decision time of OASiS (Alg. 1 + Alg. 2) vs horizon T and number
  of servers.  Paper: "less than 1 second to produce the best schedule for each
  job in the case of 100 time slots and 80 worker/parameter servers"; we aim
  for 10x better (0.1 s).
* Offline optimum (exact MILP of (1)-(13), HiGHS) in the Fig. 5 setting:
  10 jobs, T = 10.  Paper: "It takes 2 days to compute the optimal offline
  solution with 10 jobs"; we aim for seconds.
* MIP start: the exact MILP on 50-job instances (T = 20, 4 + 4 servers,
  120 s, one HiGHS thread), without and with the best checked online
  schedule as HiGHS's start (``solve_offline(start=...)``): time to a
  proven optimum, or the gap left at the limit.

Medians over seeds are printed with the paper's number beside ours and
written to ``benchmarks/out/oasis_bench.csv``.  Timings are measurements, not
assertions: nothing here is part of ``make test`` except the ``--quick``
smoke run.

Run: ``python -m benchmarks.oasis_bench [--quick]``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import cli
from optsched.oasis.instance import generate
from optsched.oasis.online import oasis


def decision_times(quick: bool = False) -> pd.DataFrame:
    """Per-job OASiS decision time for several (T, H + K) settings."""
    if quick:
        grid, seeds, n_jobs = [(20, 4)], [0], 10
    else:
        grid = [(50, 80), (100, 40), (100, 80), (100, 160), (200, 80), (300, 80)]
        seeds, n_jobs = [0, 1, 2], 60
    rows = []
    for T, servers in grid:
        for seed in seeds:
            inst = generate(
                seed,
                n_jobs=n_jobs,
                n_slots=T,
                n_worker_servers=servers // 2,
                n_ps_servers=servers // 2,
            )
            sched = oasis(inst)
            for i, dt in enumerate(sched.meta["decision_time_s"]):
                rows.append(
                    {
                        "bench": "oasis_decision",
                        "T": T,
                        "servers": servers,
                        "seed": seed,
                        "job": i,
                        "seconds": float(dt),
                        "EN": int(inst.E[i] * inst.N[i]),
                    }
                )
    return pd.DataFrame(rows)


def offline_times(quick: bool = False) -> pd.DataFrame:
    """Exact MILP solve time in the Fig. 5 setting (10 jobs, T = 10)."""
    from optsched.models.oasis import solve_offline

    from optsched.core.ratio import best_start

    grid = [(2, 2)] if quick else [(2, 2), (4, 4), (6, 6), (8, 8)]
    seeds = [0] if quick else list(range(5))
    n_jobs, T = (6, 6) if quick else (10, 10)
    rows = []
    for H, K in grid:
        for seed in seeds:
            inst = generate(
                seed, n_jobs=n_jobs, n_slots=T, n_worker_servers=H, n_ps_servers=K
            )
            t0 = time.perf_counter()
            start = best_start("oasis", inst)  # best online schedule
            res = solve_offline(inst, time_limit=600.0, start=start)
            rows.append(
                {
                    "bench": "offline_milp",
                    "T": T,
                    "servers": H + K,
                    "seed": seed,
                    "jobs": n_jobs,
                    "status": res.status,
                    "seconds": time.perf_counter() - t0,
                }
            )
    return pd.DataFrame(rows)


def mip_start_times(
    quick: bool = False, seeds: list[int] | None = None
) -> pd.DataFrame:
    """Exact MILP on 50-job instances without / with the online MIP start."""
    from optsched.models.oasis import solve_offline

    from optsched.core.ratio import best_start

    n_jobs, T, H, limit = (12, 10, 2, 10.0) if quick else (50, 20, 4, 120.0)
    rows = []
    for seed in seeds if seeds is not None else ([0] if quick else list(range(5))):
        inst = generate(
            seed, n_jobs=n_jobs, n_slots=T, n_worker_servers=H, n_ps_servers=H
        )
        for use_start in (False, True):
            t0 = time.perf_counter()
            start = best_start("oasis", inst) if use_start else None
            res = solve_offline(inst, time_limit=limit, threads=1, start=start)
            rows.append(
                {
                    "bench": "mip_start",
                    "T": T,
                    "servers": 2 * H,
                    "seed": seed,
                    "jobs": n_jobs,
                    "mip_start": use_start,
                    "status": res.status,
                    "objective": res.objective,
                    "bound": res.bound,
                    "gap": (res.bound - res.objective) / max(abs(res.bound), 1e-9),
                    "seconds": time.perf_counter() - t0,
                }
            )
    return pd.DataFrame(rows)


def main(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Run both benchmarks, print medians beside the paper's numbers, write CSV."""
    dec = decision_times(quick)
    off = offline_times(quick)
    mip = mip_start_times(quick)
    print(
        "OASiS per-job decision time (paper: < 1 s at T = 100, 80 servers; target 0.1 s)"
    )
    summary = (
        dec.groupby(["T", "servers"])["seconds"]
        .agg(median="median", p90=lambda s: float(np.quantile(s, 0.9)), max="max")
        .reset_index()
    )
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print()
    print("Offline optimum, exact MILP (paper: 2 days for 10 jobs; target: seconds)")
    osum = (
        off.groupby(["jobs", "T", "servers"])
        .agg(
            median_s=("seconds", "median"),
            max_s=("seconds", "max"),
            proven=("status", lambda s: f"{int((s == 'optimal').sum())}/{len(s)}"),
        )
        .reset_index()
    )
    print(osum.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print()
    print("Exact MILP without / with the online MIP start (seconds, gap at the limit)")
    print(mip.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    out_dir.mkdir(parents=True, exist_ok=True)
    df = pd.concat([dec, off, mip], ignore_index=True)
    tmp = out_dir / ".oasis_bench.csv.tmp"
    df.to_csv(tmp, index=False)
    tmp.replace(out_dir / "oasis_bench.csv")
    return df


if __name__ == "__main__":
    cli(main, __doc__)
