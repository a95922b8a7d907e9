"""okita speed benchmarks (Okita online algorithm, exact MILP of (2)).

Sizes are the paper's (Sec. V-B): R = 50 sites, I = 100 jobs, T = 150 slots.
The paper reports Okita's running time in Fig. 13 (under 50 s in MATLAB at
this size); the target here is the project's:

1. ``okita_paper``: Okita on ``generate(seed, n_sites=50, n_jobs=100,
   n_slots=150)``, three seeds.  Target: at most 5 s on 2 cores (paper:
   < 50 s, Fig. 13).
2. ``okita_scaling``: Okita from 50 to 1,000 jobs (50, 100, 300, 1000) on
   R = 50 sites, seeds 0-2 (one seed at 1,000 jobs); time and peak memory
   against jobs, plotted to ``benchmarks/out/okita_scaling.png``.  ``T`` is
   raised with ``I`` (:data:`SCALING_T`: ``T = max(150, 1.5 I)``, so 150,
   150, 450, 1500): ``generate`` calibrates a feasible instance and fails at
   ``I = 300`` with ``T = 150`` ("n_slots: 150 too short for a job arriving
   in slot 52"); arrivals are spread over the first ``T / 2`` slots, so the
   number of jobs per slot stays about that of the paper size.
3. ``exact_milp``: exact MILP of (2) (``optsched.models.okita.solve_offline``,
   one HiGHS thread, 60 s limit) at a few small ``(R, I, T)`` sizes; status,
   runtime, objective (the checker's), bound, and the largest proven size.

Memory (column ``peak_mb``) is the ``tracemalloc`` peak of Python and numpy
allocations during one separate Okita run (``tracemalloc`` slows the run, so
the timed run is without it); it is not the process RSS.  Every Okita
schedule is re-checked by :func:`optsched.okita.check` with the reading it
declares (``ps_every_slot=sched.meta["ps_every_slot"]``) against the
instance with ``T`` extended to the makespan when the run goes past ``T``
(column ``checked``; ``objective`` is the total cost (2)).  Medians are
printed beside the target and all rows are written to
``benchmarks/out/okita_bench.csv`` (atomically).  Timings are measurements,
not assertions: only the ``--quick`` smoke run is tested; ``--quick`` uses
tiny sizes and a 10 s MILP limit, not comparable with the targets.

Run: ``python -m benchmarks.okita_bench [--quick]``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks import common
from benchmarks.common import cli, print_table, run_benches
from optsched.core.experiment import write_atomic
from optsched.okita import check, generate, okita

#: bench -> target seconds (project; the paper's Fig. 13 reports < 50 s).
TARGET_S = {
    "okita_paper": 5.0,
    "okita_scaling": math.nan,
    "exact_milp": 60.0,
}
#: the paper's simulation size (Sec. V-B).
PAPER_SIZE = dict(n_sites=50, n_jobs=100, n_slots=150)
#: jobs -> T of the scaling runs (generate must find a feasible instance).
SCALING_T = {50: 150, 100: 150, 300: 450, 1000: 1500}
#: the exact MILP's (R, I, T) sizes.
MILP_SIZES = [(2, 3, 10), (3, 5, 20), (3, 8, 20), (4, 10, 20), (5, 10, 30)]
COLUMNS = [
    "bench",
    "n_sites",
    "n_jobs",
    "n_slots",
    "seed",
    "seconds",
    "peak_mb",
    "status",
    "objective",
    "bound",
    "makespan",
    "checked",
    "target_s",
]


def _row(bench: str, inst, seed: int, seconds: float, **kw: Any) -> dict[str, Any]:
    row = {c: math.nan for c in COLUMNS}
    row.update(
        bench=bench,
        n_sites=inst.n_sites,
        n_jobs=inst.n_jobs,
        n_slots=inst.n_slots,
        seed=seed,
        seconds=seconds,
        status="",
        checked=False,
        target_s=TARGET_S[bench],
    )
    row.update(kw)
    return row


def _okita_row(bench: str, R: int, I: int, T: int, seed: int) -> dict[str, Any]:
    """Time Okita, measure its tracemalloc peak in a second run, check it."""
    inst = generate(seed, n_sites=R, n_jobs=I, n_slots=T)
    t0 = time.perf_counter()
    sched = okita(inst)
    dt = time.perf_counter() - t0
    tracemalloc.start()
    try:
        okita(inst)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    makespan = int(sched.meta["makespan"])
    longer = dataclasses.replace(inst, n_slots=max(inst.n_slots, makespan))
    ev = check(longer, sched, ps_every_slot=sched.meta["ps_every_slot"])  # raises
    status = "past_T" if sched.meta["horizon_exceeded"] else "within_T"
    if not sched.meta["ps_every_slot"]:
        status += "+ps_gaps"
    return _row(
        bench,
        inst,
        seed,
        dt,
        peak_mb=peak,
        status=status,
        objective=ev.objective,
        makespan=makespan,
        checked=True,
    )


def okita_paper(quick: bool = False) -> list[dict[str, Any]]:
    """Okita at the paper's size, 50 sites x 100 jobs x 150 slots."""
    (R, I, T), seeds = ((5, 10, 40), [0]) if quick else (PAPER_SIZE.values(), [0, 1, 2])
    return [_okita_row("okita_paper", R, I, T, seed) for seed in seeds]


def okita_scaling(quick: bool = False) -> list[dict[str, Any]]:
    """Okita from 50 to 1,000 jobs on 50 sites (quick: 5-20 jobs, 5 sites)."""
    if quick:
        return [_okita_row("okita_scaling", 5, I, 40, 0) for I in (5, 10, 20)]
    rows = []
    for I, T in SCALING_T.items():
        for seed in [0] if I >= 1000 else [0, 1, 2]:
            rows.append(_okita_row("okita_scaling", 50, I, T, seed))
    return rows


def exact_milp(quick: bool = False) -> list[dict[str, Any]]:
    """Exact MILP of (2): proven within the limit or not, at a few (R, I, T)."""
    from optsched.models.okita import solve_offline

    from optsched.core.ratio import best_start

    sizes, limit = ([(2, 3, 10)], 10.0) if quick else (MILP_SIZES, 60.0)
    rows = []
    for R, I, T in sizes:
        inst = generate(0, n_sites=R, n_jobs=I, n_slots=T)
        start = best_start("okita", inst)  # local_first when the checker accepts it
        res = solve_offline(inst, time_limit=limit, threads=1, start=start)
        checked = res.schedule is not None  # solve_offline checks its incumbent
        rows.append(
            _row(
                "exact_milp",
                inst,
                0,
                res.runtime,
                status=res.status,
                objective=res.objective,
                bound=res.bound,
                checked=checked,
                target_s=limit,
            )
        )
    return rows


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Medians per bench x size beside the target."""
    return common.summarize(
        df,
        ["bench", "n_sites", "n_jobs", "n_slots"],
        status=("status", common.statuses),
        objective=("objective", "median"),
        bound=("bound", "median"),
    )


def plot_scaling(df: pd.DataFrame, path: str) -> None:
    """Median time and peak memory of Okita against the number of jobs."""
    sc = df[df["bench"] == "okita_scaling"]
    R = int(sc["n_sites"].iloc[0]) if len(sc) else 0
    title = f"Okita scaling, {R} sites (median over seeds)"
    common.plot_time_memory(df, "okita_scaling", "Okita", title, path)


def main(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Run the three benchmarks, print medians beside the targets, write CSV + PNG."""
    okita(generate(0, n_sites=3, n_jobs=3, n_slots=12))  # warm-up (imports)
    rows = run_benches((okita_paper, okita_scaling, exact_milp), quick)
    df = pd.DataFrame(rows, columns=COLUMNS)
    print(
        "paper size: R = 50 sites, I = 100 jobs, T = 150 slots (Sec. V-B); "
        "targets: Okita <= 5 s (paper: < 50 s in MATLAB, Fig. 13), MILP proven "
        "within 60 s; peak_mb = tracemalloc peak"
    )
    print(
        f"okita running times (load average {os.getloadavg()[0]:.2f} on "
        f"{os.cpu_count()} cores)"
        + (" -- QUICK settings, not comparable with the targets" if quick else "")
    )
    print_table(summarize(df))
    milp = df[df["bench"] == "exact_milp"]
    proven = milp[milp["status"] == "optimal"]
    if len(proven):
        big = proven.sort_values(["n_jobs", "n_sites", "n_slots"]).iloc[-1]
        print(
            f"largest MILP proven: {int(big['n_sites'])} sites x "
            f"{int(big['n_jobs'])} jobs x T = {int(big['n_slots'])} "
            f"({big['seconds']:.1f} s)"
        )
    else:
        print("largest MILP proven: none")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(
        out_dir,
        {
            "okita_bench.csv": lambda p: df.to_csv(p, index=False),
            "okita_scaling.png": lambda p: plot_scaling(df, p),
        },
    )
    return df


if __name__ == "__main__":
    cli(main, __doc__)
