"""Lagrangian (column-generation) lower bound of the okita MILP vs HiGHS's bound.

For every instance of the frontier's largest okita size (``benchmarks/frontier.py``,
``LADDERS["okita"][-1]``: 5 sites x 10 jobs x 20 slots, seeds 0-4, the same
``p.generate(seed, **size)``): the LP relaxation of formulation v3, the
Lagrangian bound at its duals ``L(lambda_LP)``, the best Lagrangian bound
of :func:`optsched.models.okita_colgen.lagrangian_bound` (proximal bundle)
after 120 s and 300 s (``lagr_120s``, ``lagr_300s``: the best of the rounds
completed by then) and at the end of ``--time-limit`` seconds (default 300,
``lagr_best``), all from one run started with the LP,
beside the frontier CSV's row of formulation v3 (HiGHS's 60 s bound and the
checked incumbent, ``benchmarks/data/frontier.csv``).  Widths
``incumbent / bound - 1``: ``width_highs`` with HiGHS's bound,
``width_lagr`` with the Lagrangian bound alone, ``width_best`` with the
larger of the two (what a certified result would report).  ``history``:
``[seconds, L]`` of every completed round (JSON).  Written to
``<out>/okita_colgen.csv`` after every row (rows of other seeds already in
the file are kept); the committed run is ``benchmarks/data/okita_colgen.csv``.

``--quick``: 3 sites x 4 jobs x 12 slots, seed 0, 20 s; the incumbent and
HiGHS's bound come from ``solve_offline(formulation="v3")`` (10 s, proven
on that size), not from the frontier CSV.

Run (timings are measurements, not assertions; 2 shared cores, one HiGHS
thread)::

    python -m benchmarks.okita_colgen --out benchmarks/data --seeds 4 0 1 2 3
    python -m benchmarks.okita_colgen --quick
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, print_table, seeds_cli
from benchmarks.frontier import CSV, reference_row
from optsched.core.experiment import write_atomic

SIZE: dict[str, int] = {"n_sites": 5, "n_jobs": 10, "n_slots": 20}
QUICK_SIZE: dict[str, int] = {"n_sites": 3, "n_jobs": 4, "n_slots": 12}
#: Seconds after which the best bound so far is recorded (``lagr_<s>s``).
CHECKPOINTS = (120.0, 300.0)
FRONTIER = CSV  # benchmarks/data/frontier.csv
COLUMNS = [
    "n_sites", "n_jobs", "n_slots", "seed", "lp", "lagr_lp", "lagr_120s",
    "lagr_300s", "lagr_best", "time_limit_s", "runtime_s", "rounds",
    "converged", "highs_bound", "incumbent", "width_highs", "width_lagr",
    "width_best", "loadavg", "history",
]  # fmt: skip


def frontier_row(seed: int, size: dict[str, int], csv: Path = FRONTIER) -> dict:
    """The frontier's okita v3 row of ``size``, ``seed``: HiGHS's bound, incumbent."""
    r = reference_row("okita", size, "v3", seed, csv)
    return {"highs_bound": r["bound"], "incumbent": r["objective"]}


def best_by(history: list[tuple[float, float, float, float]], seconds: float) -> float:
    """The best ``L`` among the rounds completed within ``seconds`` (-inf: none)."""
    done = [h[2] for h in history if h[0] <= seconds]
    return max(done) if done else -math.inf


def row(seed: int, quick: bool, time_limit: float) -> dict[str, Any]:
    """One instance: LP, ``L(lambda_LP)``, best bounds, HiGHS's bound, widths."""
    from optsched.models.okita import solve_offline
    from optsched.models.okita_colgen import default_starts, lagrangian_bound

    p = optsched.get_paper("okita")
    size = QUICK_SIZE if quick else SIZE
    inst = p.generate(seed, **size)
    if quick:
        start = (default_starts(inst) or (None,))[0]
        res = solve_offline(
            inst, time_limit=10.0, start=start, threads=1, formulation="v3"
        )
        ref = {"highs_bound": float(res.bound), "incumbent": float(res.objective)}
    else:
        ref = frontier_row(seed, size)
    lag = lagrangian_bound(inst, time_limit=time_limit, threads=1)
    inc, hb, lb = ref["incumbent"], ref["highs_bound"], lag.best_bound
    return {
        **size,
        "seed": seed,
        "lp": lag.lp_value,
        "lagr_lp": lag.lp_lagrangian,
        **{f"lagr_{c:.0f}s": best_by(lag.history, c) for c in CHECKPOINTS},
        "lagr_best": lb,
        "time_limit_s": time_limit,
        "runtime_s": lag.runtime,
        "rounds": lag.rounds,
        "converged": lag.converged,
        **ref,
        "width_highs": inc / hb - 1.0,
        "width_lagr": inc / lb - 1.0,
        "width_best": inc / max(hb, lb) - 1.0,
        "loadavg": os.getloadavg()[0],
        "history": json.dumps([[round(h[0], 1), round(h[1], 2)] for h in lag.history]),
    }


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: list[int] | None = None,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """Run the seeds, write the CSV atomically after every row, print the table."""
    seeds = ([0] if quick else [4, 0, 1, 2, 3]) if seeds is None else seeds
    limit = (20.0 if quick else 300.0) if time_limit is None else time_limit
    out = Path(out_dir)
    csv = out / "okita_colgen.csv"
    old = pd.read_csv(csv) if csv.exists() and not quick else None
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        rows.append(row(seed, quick, limit))
        r = rows[-1]
        print(
            f"seed {seed}: LP {r['lp']:.1f} L(LP) {r['lagr_lp']:.1f} "
            f"best {r['lagr_best']:.1f} ({r['runtime_s']:.0f} s, {r['rounds']} rounds)"
            f" HiGHS {r['highs_bound']:.1f} incumbent {r['incumbent']:.1f}"
            f" width {r['width_highs']:.2%} -> {r['width_best']:.2%}",
            flush=True,
        )
        df = pd.DataFrame(rows, columns=COLUMNS)
        if old is not None:
            keep = old[~old["seed"].isin(df["seed"])]
            df = pd.concat([keep, df], ignore_index=True).sort_values("seed")
        write_atomic(
            out, {"okita_colgen.csv": lambda f, d=df: d.to_csv(f, index=False)}
        )
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df)
    return df


if __name__ == "__main__":
    seeds_cli(main, __doc__)
