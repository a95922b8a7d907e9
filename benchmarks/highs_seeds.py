"""HiGHS's run-to-run spread at the frontier's open sizes: does a portfolio of random seeds prove more in 60 s?

The proof-time targets of the certificate (60 s on 2 cores; docs/ratios.md,
"Where the certificate stands") are measured by ``benchmarks/frontier.py``
with one HiGHS thread and HiGHS's default ``random_seed``.  The studies
of identical workers (``benchmarks/edgecloud_symmetry.py``) found the time
to proof to move between runs by more than their rows did.  Two cores can
run two differently seeded solves side by side and keep the first proof:
this script measures whether such a portfolio proves what one run does
not.

Per ``(paper, ladder step, seed)`` of :data:`CASES` (the open instances of
the frontier closest to proof: edgecloud 20 x 3 seeds 0, 2, 3, whose 60-s
intervals are one to three units wide, and okita 5 x 10 seeds 3 and 0,
seed 3 proven in 140 s) the paper's formulation :data:`FORMULATION` is
built once per solve and solved from the harness's start
(``optsched.core.ratio.best_start``, passed as MIP start by the model's
``start_values``) with ``--limit`` seconds (default 60) of HiGHS, one
thread and HiGHS's ``random_seed`` set to each of ``--random-seeds``
(default 0-3; 0 is HiGHS's default, as in the frontier's run).  The limit
is HiGHS's alone: the model is built before it starts (the frontier's
``solve_offline`` counts the building in its 60 s, so ``random_seed`` 0
here has a few seconds more than the frontier's row).  Runs go ``--workers`` at a time
(default 2: the portfolio's two cores).  Every incumbent is extracted and
its objective recomputed by the paper's checker (it must equal HiGHS's,
relative 1e-6).

Written to ``<out>/highs_seeds.csv`` (columns :data:`COLUMNS`; merged by
paper, size, seed, random seed and limit), and a summary per instance:
how many runs proved the optimum, the best bound and incumbent over the
runs (the portfolio's interval), and the frontier's 60-s row beside it.
Timings are measurements on 2 shared cores, not assertions.

Run::

    python -m benchmarks.highs_seeds --out benchmarks/data     # the cases, seeds 0-3, 60 s
    python -m benchmarks.highs_seeds --quick                   # edgecloud 5 x 2 seed 0, 2 seeds, 10 s
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table
from benchmarks.frontier import LADDERS, reference_row, size_label
from optsched.core import solver
from optsched.core.ratio import best_start

#: ``(paper, ladder step of benchmarks.frontier.LADDERS, instance seeds)``.
CASES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("edgecloud", 3, (0, 2, 3)),
    ("okita", 3, (3, 0)),
)
#: ``--quick``: the smallest edgecloud size, seed 0.
QUICK_CASES: tuple[tuple[str, int, tuple[int, ...]], ...] = (("edgecloud", 0, (0,)),)
#: The formulation solved, per paper (the frontier's best at these sizes).
FORMULATION = {"edgecloud": "v3", "okita": "v3"}
RANDOM_SEEDS = (0, 1, 2, 3)
LIMIT_S = 60.0
KEY = ["paper", "size_json", "seed", "random_seed", "time_limit_s"]
COLUMNS = [
    "paper", "size", "size_json", "seed", "formulation", "random_seed",
    "status", "objective", "bound", "gap", "proven", "runtime_s",
    "start_objective", "time_limit_s", "loadavg",
]  # fmt: skip


def solve_one(task: tuple[str, int, int, int, float]) -> dict[str, Any]:
    """One seeded solve of ``(paper, step, seed, random_seed, limit)``: its checked row.

    Raises
    ------
    RuntimeError
        The checker's objective of the incumbent differs from HiGHS's
        (relative 1e-6).
    """
    key, step, seed, random_seed, limit = task
    p = optsched.get_paper(key)
    size = LADDERS[key][step]
    inst = p.generate(seed, **size)
    start = best_start(p, inst)
    start_obj = math.nan if start is None else float(p.check(inst, start).objective)
    mod = importlib.import_module(f"optsched.models.{key}")
    began = time.perf_counter()
    model = mod.build_model(inst, formulation=FORMULATION[key])
    values = None if start is None else mod.start_values(model, inst, start)
    res = solver.solve(
        model,
        time_limit=limit,
        threads=1,
        start=values,
        options={"random_seed": int(random_seed)},
    )
    runtime = time.perf_counter() - began
    obj = math.nan
    if res.has_solution:
        obj = float(p.check(inst, mod.extract_schedule(model, inst)).objective)
        if not math.isclose(obj, res.objective, rel_tol=1e-6, abs_tol=1e-9):
            raise RuntimeError(
                f"{key} {size_label(key, size)} seed {seed} random_seed "
                f"{random_seed}: checker {obj!r} != HiGHS {res.objective!r}"
            )
    bound = float(res.bound)
    both = math.isfinite(obj) and math.isfinite(bound)
    return {
        "paper": key,
        "size": size_label(key, size),
        "size_json": json.dumps(size, sort_keys=True),
        "seed": seed,
        "formulation": FORMULATION[key],
        "random_seed": random_seed,
        "status": res.status,
        "objective": obj,
        "bound": bound,
        "gap": abs(obj - bound) / max(1.0, abs(obj)) if both else math.nan,
        "proven": res.status == "optimal",
        "runtime_s": runtime,
        "start_objective": start_obj,
        "time_limit_s": limit,
        "loadavg": os.getloadavg()[0],
    }


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per instance: runs, proofs, the portfolio's interval, the frontier's row.

    The portfolio's interval is the best bound and the best checked
    incumbent over its runs (both papers minimise); ``frontier`` is the
    60-s row of ``benchmarks/data/frontier.csv`` (``-`` when it has none).
    """
    out = []
    for (key, size_json, seed), g in df.groupby(
        ["paper", "size_json", "seed"], sort=False
    ):
        try:
            ref = reference_row(
                key, json.loads(size_json), g["formulation"].iloc[0], seed
            )
            frontier = f"[{ref['bound']:.6g}, {ref['objective']:.6g}]"
        except LookupError:
            frontier = "-"
        lo, hi = float(g["bound"].max()), float(g["objective"].min())
        out.append(
            {
                "paper": key,
                "size": g["size"].iloc[0],
                "seed": seed,
                "runs": len(g),
                "proven": int(g["proven"].sum()),
                "bounds": f"{g['bound'].min():.6g}-{g['bound'].max():.6g}",
                "portfolio": f"[{lo:.6g}, {hi:.6g}]",
                "portfolio_gap": (hi - lo) / max(1.0, abs(hi)),
                "frontier_60s": frontier,
            }
        )
    return pd.DataFrame(out)


def main(argv: Sequence[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--limit", type=float, help=f"seconds per solve ({LIMIT_S:g})")
    ap.add_argument(
        "--random-seeds", type=int, nargs="+", help="HiGHS random_seed values"
    )
    ap.add_argument("--workers", type=int, default=2, help="solves at a time (1: here)")
    a = ap.parse_args(argv)
    cases = QUICK_CASES if a.quick else CASES
    limit = a.limit if a.limit is not None else (10.0 if a.quick else LIMIT_S)
    seeds = a.random_seeds or ((0, 1) if a.quick else RANDOM_SEEDS)
    tasks = [
        (key, step, seed, rs, limit)
        for key, step, inst_seeds in cases
        for seed in inst_seeds
        for rs in seeds
    ]
    name = "highs_seeds_quick.csv" if a.quick else "highs_seeds.csv"
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if a.workers > 1:
            pool = stack.enter_context(ProcessPoolExecutor(a.workers))
            results: Iterable[dict[str, Any]] = pool.map(solve_one, tasks)
        else:  # here, one after the other
            results = map(solve_one, tasks)
        for row in results:
            rows.append(row)
            print(
                f"{row['paper']} {row['size']} seed {row['seed']} random_seed "
                f"{row['random_seed']}: {row['status']} [{row['bound']:.6g}, "
                f"{row['objective']:.6g}] {row['runtime_s']:.1f} s",
                flush=True,
            )
            merge_into_csv(a.out, name, rows, COLUMNS, KEY, keep_old=not a.quick)
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(summary(df))
    return df


if __name__ == "__main__":
    main()
