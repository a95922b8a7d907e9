"""Which side of the oasis 50-job interval is open: a longer, wider neighbourhood search.

The frontier's oasis 50-job instances (``benchmarks/frontier.py``: 50 jobs,
T = 30, 20 + 20 servers) stay open after 60 s, and on seed 4 fifteen
minutes of HiGHS moved neither end (1,436.85 / 1,512.39, width 5.26%,
docs/oasis.md).  Whether the incumbent or the bound is the open side was
not measured there.  This script spends more time on the incumbent side
only: from the harness's start (``best_start``: the online schedules, the
checked local search and the shipped 15 rounds of 14 jobs of
:mod:`optsched.oasis.lns`) it runs :func:`optsched.oasis.lns.improve` again
and again, with neighbourhoods of ``k`` = 14, 18, 22 and 26 jobs in turn
(4 rounds per call, RNG seed ``100 + call``), until ``--budget`` seconds
have passed or ``--calls`` calls are done.  Every schedule it keeps is
checked by the paper's checker (:func:`optsched.oasis.check.check`), so
each row's ``objective`` is a certified lower end of the optimum (oasis
maximises utility).

Columns (:data:`COLUMNS`): ``size_json`` (the generator's keywords),
``seed``, ``call``, ``k``, ``seconds`` since the
start began, ``call_s``, ``objective`` (best checked value so far),
``start_objective``, ``frontier_bound`` (HiGHS's 60-s bound of the
frontier CSV), ``width`` (``frontier_bound / objective - 1``), ``loadavg``.
Written to ``<out>/oasis_wide_lns.csv`` after every call (rows of other
seeds kept); the best schedule to ``<out>/oasis_wide_lns/seed<S>.json``.
The sub-MILPs have node limits but also a 60-s time cap
(``lns.SUB_CAP_S``), so under load a re-run may keep other schedules.

``--prove SECONDS`` asks the other side: does the bound close once HiGHS
starts from the search's best schedule?  For each seed it reads
``<out>/oasis_wide_lns/seed<S>.json``, checks it, and gives it to
``solve_offline(inst, time_limit=SECONDS, start=..., threads=1)``; one row
per (seed, time limit) in ``<out>/oasis_wide_lns_highs.csv``
(:data:`PROVE_COLUMNS`: ``start_objective`` the schedule's checked value,
``status``, ``objective`` (HiGHS's incumbent, re-checked), ``bound``,
``width`` = ``bound / objective - 1``, ``frontier_bound``, ``runtime_s``,
``loadavg``).  A schedule HiGHS finds above the start is checked and saved
as ``seed<S>_highs.json`` beside it.

Run (one HiGHS thread per sub-solve; the times are measurements)::

    nice -n 5 python -m benchmarks.oasis_wide_lns --seeds 4 --budget 2700 --out benchmarks/data
    python -m benchmarks.oasis_wide_lns --seeds 0 1 2 3 4 --prove 60 --out benchmarks/data
    python -m benchmarks.oasis_wide_lns --quick
    python -m benchmarks.oasis_wide_lns --quick --prove 20
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, merge_into_csv
from benchmarks.frontier import CSV, LADDERS, reference_row
from optsched.core.ratio import best_start
from optsched.oasis import lns
from optsched.oasis.check import check
from optsched.oasis.schedule import OasisSchedule

SIZE: dict[str, Any] = dict(LADDERS["oasis"][-1])
QUICK_SIZE: dict[str, Any] = {
    "n_jobs": 20, "n_slots": 12, "n_worker_servers": 3, "n_ps_servers": 3,
}  # fmt: skip
KS = (14, 18, 22, 26)
QUICK_KS = (4, 6)
KEY = ["size_json", "seed", "call"]
COLUMNS = [
    "size_json", "seed", "call", "k", "seconds", "call_s", "objective", "start_objective",
    "frontier_bound", "width", "loadavg",
]  # fmt: skip
PROVE_KEY = ["size_json", "seed", "time_limit_s"]
PROVE_COLUMNS = [
    *PROVE_KEY, "start_objective", "status", "objective", "bound", "width",
    "frontier_bound", "runtime_s", "loadavg",
]  # fmt: skip


def search(
    inst: Any,
    *,
    budget: float,
    calls: int | None = None,
    ks: tuple[int, ...] = KS,
    on_call: Any = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """The best checked schedule and one row per call (module docstring).

    ``on_call(rows, best)`` is called after every call (the CSV writer).
    """
    began = time.perf_counter()
    best = best_start("oasis", inst)
    start_obj = best_obj = float(check(inst, best).objective)
    rows: list[dict[str, Any]] = []
    call = 0
    while time.perf_counter() - began < budget and (calls is None or call < calls):
        k = ks[call % len(ks)]
        t0 = time.perf_counter()
        cand, _trace = lns.improve(inst, best, rounds=4, k=k, seed=100 + call)
        obj = float(check(inst, cand).objective)
        if obj > best_obj:
            best, best_obj = cand, obj
        rows.append({
            "call": call, "k": k, "seconds": time.perf_counter() - began,
            "call_s": time.perf_counter() - t0, "objective": best_obj,
            "start_objective": start_obj, "loadavg": os.getloadavg()[0],
        })  # fmt: skip
        if on_call is not None:
            on_call(rows, best)
        call += 1
    return best, rows


def run_seed(
    seed: int, out: Path, *, quick: bool, budget: float, calls: int | None
) -> pd.DataFrame:
    """Search one seed, writing the CSV and the best schedule after every call."""
    size = QUICK_SIZE if quick else SIZE
    inst = optsched.get_paper("oasis").generate(seed, **size)
    ref = float("nan")
    if not quick:
        ref = float(reference_row("oasis", size, "current", seed, CSV)["bound"])

    def write(rows: list[dict[str, Any]], best: Any) -> None:
        full = [
            {
                **r,
                "size_json": json.dumps(size, sort_keys=True),
                "seed": seed,
                "frontier_bound": ref,
                "width": ref / r["objective"] - 1,
            }
            for r in rows
        ]
        merge_into_csv(out, "oasis_wide_lns.csv", full, COLUMNS, KEY, keep_old=True)
        folder = out / "oasis_wide_lns"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"seed{seed}.json").write_text(best.to_json())

    ks = QUICK_KS if quick else KS
    _best, rows = search(inst, budget=budget, calls=calls, ks=ks, on_call=write)
    return pd.DataFrame(rows)


def prove_seed(
    seed: int, out: Path, *, quick: bool, time_limit: float
) -> dict[str, Any]:
    """HiGHS from the saved best schedule of ``seed`` (module docstring, ``--prove``).

    Raises
    ------
    RuntimeError
        The checker's value of HiGHS's incumbent differs from the reported
        one, or the incumbent is below the start it was given.
    """
    size = QUICK_SIZE if quick else SIZE
    p = optsched.get_paper("oasis")
    inst = p.generate(seed, **size)
    folder = out / "oasis_wide_lns"
    start = OasisSchedule.from_json((folder / f"seed{seed}.json").read_text())
    start_obj = float(check(inst, start).objective)
    res = p.solve_offline(inst, time_limit=time_limit, start=start, threads=1)
    obj = float(check(inst, res.schedule).objective)
    if not math.isclose(obj, float(res.objective), rel_tol=1e-6):
        raise RuntimeError(f"seed {seed}: checker {obj!r} != HiGHS {res.objective!r}")
    if obj < start_obj - 1e-6 * max(1.0, abs(start_obj)):
        raise RuntimeError(
            f"seed {seed}: incumbent {obj!r} below its start {start_obj!r}"
        )
    if obj > start_obj:
        (folder / f"seed{seed}_highs.json").write_text(res.schedule.to_json())
    ref = math.nan
    if not quick:
        ref = float(reference_row("oasis", size, "current", seed, CSV)["bound"])
    row = {
        "size_json": json.dumps(size, sort_keys=True), "seed": seed,
        "time_limit_s": time_limit, "start_objective": start_obj,
        "status": res.status, "objective": obj, "bound": float(res.bound),
        "width": float(res.bound) / obj - 1, "frontier_bound": ref,
        "runtime_s": float(res.runtime), "loadavg": os.getloadavg()[0],
    }  # fmt: skip
    merge_into_csv(out, "oasis_wide_lns_highs.csv", [row], PROVE_COLUMNS, PROVE_KEY)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the seeds; print each call's best value."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[4])
    ap.add_argument("--budget", type=float, default=2700.0, help="seconds per seed")
    ap.add_argument("--calls", type=int, default=None, help="at most this many calls")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--quick", action="store_true", help="20 jobs, 2 calls, seed 1")
    ap.add_argument(
        "--prove", type=float, default=None, metavar="SECONDS",
        help="HiGHS from each seed's saved best schedule instead of the search",
    )  # fmt: skip
    a = ap.parse_args(argv)
    seeds, calls = ([1], 2) if a.quick else (a.seeds, a.calls)
    if a.prove is not None:
        for seed in seeds:
            print(
                json.dumps(prove_seed(seed, a.out, quick=a.quick, time_limit=a.prove))
            )
        return 0
    for seed in seeds:
        df = run_seed(seed, a.out, quick=a.quick, budget=a.budget, calls=calls)
        print(json.dumps({"seed": seed, "calls": len(df),
                          "objective": float(df["objective"].iloc[-1])}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
