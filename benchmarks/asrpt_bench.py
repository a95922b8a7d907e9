"""asrpt speed benchmarks (Heavy-Edge, exact placement MILP, 150,000-job simulation).

Targets (the paper's Table II reports Heavy-Edge 1.5-1.9 ms and
Gurobi 2.3-55 s per placement):

1. ``heavy_edge``: one Heavy-Edge placement per Table I model and every
   configuration on 8 GPUs (4 when the model has none on 8), on free GPUs
   ``[4, 2, 1, 1]`` of four servers (a fragmented cluster) and ``[8]``;
   median of 200 repetitions per placement.  Target: <= 2 ms.
2. ``placement_milp``: the exact placement MILP
   (:func:`optsched.asrpt.experiments.placement_case`, Table II's cases:
   VGG19 and GPT-175B on 8 GPUs, 8 servers, cases 0-4).  Target: <= 10 s
   (paper: Gurobi 55 s for VGG19).
3. ``simulation``: every registered algorithm on 150,000 synthetic jobs on
   250 servers x 8 GPUs (the paper's Fig. 6 size; ``generate(0, trace=None,
   load=0.9, predictor="median")`` -- the shipped trace has only 6,203
   usable jobs), each schedule checked.  Target: <= 300 s per algorithm;
   peak memory = ``tracemalloc`` peak of a second run (Python and numpy
   allocations, not RSS).

All rows are written to ``benchmarks/out/asrpt_bench.csv`` (atomically) and
the medians printed beside the targets.  Timings are measurements, not
assertions: only ``--quick`` (2,000 jobs, fewer repetitions) is tested.

Run: ``python -m benchmarks.asrpt_bench [--quick]``.
"""

from __future__ import annotations

import math
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optsched
from benchmarks import common
from benchmarks.common import cli, print_table, run_benches
from optsched.asrpt import check, generate, heavy_edge
from optsched.asrpt.experiments import placement_case
from optsched.asrpt.profiles import MODELS, configurations
from optsched.core.experiment import write_atomic

TARGET_S = {"heavy_edge": 0.002, "placement_milp": 10.0, "simulation": 300.0}
SIM_SIZE = {"n_jobs": 150_000, "n_servers": 250, "gpus_per_server": 8}
COLUMNS = [
    "bench", "name", "detail", "seconds", "peak_mb", "objective", "checked",
    "target_s",
]  # fmt: skip


def _row(bench: str, name: str, detail: str, seconds: float, **kw: Any) -> dict:
    row = {c: math.nan for c in COLUMNS}
    row.update(bench=bench, name=name, detail=detail, seconds=seconds,
               checked=False, target_s=TARGET_S[bench])  # fmt: skip
    row.update(kw)
    return row


def bench_heavy_edge(quick: bool = False) -> list[dict[str, Any]]:
    """Median Heavy-Edge time per placement (seconds)."""
    reps = 20 if quick else 200
    rows = []
    for model in MODELS:
        gpus = 8 if configurations(model, 8) else 4
        for stages in configurations(model, gpus):
            for free in ([4, 2, 1, 1] if gpus == 8 else [2, 1, 1], [gpus]):
                times = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    heavy_edge(stages, free)
                    times.append(time.perf_counter() - t0)
                detail = f"{gpus} GPUs, {len(stages)} stages, free {free}"
                rows.append(_row("heavy_edge", model, detail, float(np.median(times)),
                                 checked=True))  # fmt: skip
    return rows


def bench_placement_milp(quick: bool = False) -> list[dict[str, Any]]:
    """Exact placement MILP on Table II's cases; ``objective`` = alpha (ms)."""
    rows = []
    for model in ("VGG19", "GPT-175B"):
        for case in range(1 if quick else 5):
            for r in placement_case({"model": model, "gpus": 8, "case": case}):
                rows.append(
                    _row(
                        "placement_milp",
                        model,
                        f"case {case}, {r['n_stages']} stages, {r['ilp_status']}",
                        r["ilp_time_ms"] / 1000,
                        objective=r["ilp_alpha_ms"],
                        checked=r["ilp_status"] == "optimal",
                    )  # fmt: skip
                )
    return rows


def bench_simulation(quick: bool = False) -> list[dict[str, Any]]:
    """Every algorithm on the 150,000-job instance (quick: 2,000 jobs)."""
    size = {**SIM_SIZE, "n_jobs": 2_000} if quick else SIM_SIZE
    inst = generate(0, trace=None, load=0.9, predictor="median", **size)
    p = optsched.get_paper("asrpt")
    rows = []
    for name in p.algorithms:
        t0 = time.perf_counter()
        sched = p.run(name, inst)
        dt = time.perf_counter() - t0
        tracemalloc.start()
        try:
            p.run(name, inst)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()
        ev = check(inst, sched)  # raises if infeasible
        detail = (
            f"{inst.n_jobs} jobs, {size['n_servers']} x {size['gpus_per_server']} GPUs"
        )
        rows.append(_row("simulation", name, detail, dt, peak_mb=peak,
                         objective=ev.objective, checked=True))  # fmt: skip
    return rows


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Medians per bench and name beside the target (met when the maximum is)."""
    return common.summarize(df, ["bench", "name"], meets="max_s")


def main(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Run the three benchmarks, print medians beside the targets, write the CSV."""
    rows = run_benches(
        (bench_heavy_edge, bench_placement_milp, bench_simulation), quick
    )
    df = pd.DataFrame(rows, columns=COLUMNS)
    print(
        "targets: Heavy-Edge <= 2 ms per placement (paper 1.5-1.9 ms), placement "
        "MILP <= 10 s (paper: Gurobi 2.3-55 s), 150,000-job simulation <= 300 s "
        f"per algorithm; load average {os.getloadavg()[0]:.2f} on "
        f"{os.cpu_count()} cores"
        + (" -- QUICK settings, not comparable with the targets" if quick else "")
    )
    print_table(summarize(df))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(out_dir, {"asrpt_bench.csv": lambda p: df.to_csv(p, index=False)})
    return df


if __name__ == "__main__":
    cli(main, __doc__)
