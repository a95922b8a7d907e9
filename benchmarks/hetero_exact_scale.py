"""Largest hetero instance whose exact optimum is proven within 60 s.

For ``S = 4`` and ``S = 8`` jobs, ``K`` GPUs climbs a ladder
(:data:`LADDER`); at each ``K`` the exact MILP of P1
(``models.hetero.solve_exact``, one HiGHS thread, 60 s limit) solves
``generate(seed, S, K)`` for seeds 0-2 and the placement is re-checked by
the checker.  A ``K`` *passes* when every seed is proven optimal within the
limit; the ladder stops at the first ``K`` that does not pass.  The summary
prints, per ``S``, the largest passing ``K`` and the time-to-proof per
seed; all rows go to ``benchmarks/out/hetero_exact_scale.csv``.

Timings are measurements (2 cores, other load possible), not assertions:
only ``--quick`` (one seed, tiny ladders, 20 s limit) is tested.

Run: ``python -m benchmarks.hetero_exact_scale [--quick]``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.common import cli, print_table
from optsched.core.experiment import write_atomic
from optsched.hetero.check import check
from optsched.hetero.instance import generate

LIMIT_S = 60.0
#: S -> K ladder (full run); the quick run uses QUICK_LADDER.
LADDER = {4: [30, 60, 120, 180, 240, 300], 8: [15, 30, 40, 50, 60]}
QUICK_LADDER = {4: [8, 12], 8: [8]}
SEEDS = [0, 1, 2]
COLUMNS = ["n_jobs", "n_workers", "seed", "seconds", "status", "avg_jct", "passes"]


def climb(
    S: int, ladder: list[int], seeds: list[int], limit: float
) -> list[dict[str, Any]]:
    """Rows of the ladder for ``S`` jobs, up to the first ``K`` that does not pass."""
    from optsched.models.hetero import solve_exact

    from optsched.core.ratio import best_start

    rows = []
    for K in ladder:
        batch = []
        for seed in seeds:
            inst = generate(seed, S, K)
            t0 = time.perf_counter()
            start = best_start("hetero", inst)  # best online placement
            res = solve_exact(inst, time_limit=limit, threads=1, start=start)
            dt = time.perf_counter() - t0
            obj = (
                check(inst, res.schedule).objective
                if res.schedule is not None
                else float("nan")
            )
            batch.append({"n_jobs": S, "n_workers": K, "seed": seed, "seconds": dt,
                          "status": res.status, "avg_jct": obj})  # fmt: skip
            print(
                f"    S = {S}, K = {K}, seed {seed}: {res.status} in {dt:.1f} s",
                flush=True,
            )
        ok = all(r["status"] == "optimal" and r["seconds"] <= limit for r in batch)
        rows += [{**r, "passes": ok} for r in batch]
        if not ok:
            break
    return rows


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Per S: the largest K where every seed was proven within the limit."""
    out = []
    for S, d in df.groupby("n_jobs"):
        good = d[d["passes"]]
        k = int(good["n_workers"].max()) if len(good) else 0
        at = good[good["n_workers"] == k]
        out.append({
            "n_jobs": S,
            "largest_K_proven": k,
            "seconds_per_seed": " / ".join(f"{s:.1f}" for s in at["seconds"]),
            "next_K_tried": int(d[~d["passes"]]["n_workers"].min()) if (~d["passes"]).any() else None,
        })  # fmt: skip
    return pd.DataFrame(out)


def main(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Climb both ladders, print the largest proven K, write the CSV."""
    ladder, seeds, limit = (
        (QUICK_LADDER, [0], 20.0) if quick else (LADDER, SEEDS, LIMIT_S)
    )
    rows: list[dict[str, Any]] = []
    for S, ks in ladder.items():
        rows += climb(S, ks, seeds, limit)
    df = pd.DataFrame(rows, columns=COLUMNS)
    print(
        f"hetero exact MILP: largest K proven optimal within {limit:.0f} s on every seed "
        f"{seeds} (1 HiGHS thread)"
        + (" -- QUICK settings, not comparable with the targets" if quick else "")
    )
    print_table(summarize(df))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(
        out_dir, {"hetero_exact_scale.csv": lambda p: df.to_csv(p, index=False)}
    )
    return df


if __name__ == "__main__":
    cli(main, __doc__)
