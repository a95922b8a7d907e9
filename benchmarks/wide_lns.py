"""Which side of an open interval at the frontier's largest size: a longer, wider neighbourhood search.

The frontier's largest instances (``benchmarks/frontier.py``: oasis 50
jobs, T = 30, 20 + 20 servers; okita 5 sites x 10 jobs x 20 slots) stay
open after 60 s of HiGHS.  This script measures the incumbent side alone:
from the harness's start (``best_start``: the online schedules, the
checked local search and the paper's shipped neighbourhood search) it runs
the paper's MIP neighbourhood search (:func:`optsched.oasis.lns.improve`,
:func:`optsched.okita.lns.improve`) again and again, with the
neighbourhood sizes ``k`` of :data:`SETUPS` in turn (4 rounds per call,
RNG seed ``100 + call``), until ``--budget`` seconds have passed or
``--calls`` calls are done.  Every schedule it keeps is checked by the
paper's checker, so each row's ``objective`` is a certified end of the
optimum's interval (the lower end for oasis, which maximises utility; the
upper end for okita, which minimises cost).

Columns (:data:`COLUMNS`): ``size_json`` (the generator's keywords),
``seed``, ``call``, ``k``, ``seconds`` since the start began, ``call_s``,
``objective`` (best checked value so far), ``start_objective``,
``frontier_bound`` (HiGHS's 60-s bound in the frontier CSV), ``width``
(``max / min - 1`` of that bound and ``objective``), ``loadavg``.  Written
to ``<out>/<paper>_wide_lns.csv`` after every call (rows of other seeds
kept); the best schedule to ``<out>/<paper>_wide_lns/seed<S>.json``.  The
sub-MILPs have node limits but also a 60-s time cap (``lns.SUB_CAP_S``),
so under load a re-run may keep other schedules.

``--prove SECONDS`` asks the other side: does the bound close once HiGHS
starts from the search's best schedule?  For each seed it reads
``<out>/<paper>_wide_lns/seed<S>.json``, checks it, and gives it to
the frontier's formulation (``benchmarks.frontier.formulations``; okita:
v3, whose bound is far stronger than the default v1's) with
``time_limit=SECONDS``, ``start=...``, ``threads=1``; one row
per (seed, start, time limit) in ``<out>/<paper>_wide_lns_highs.csv``
(:data:`PROVE_COLUMNS`: ``start_from`` (``search``, or ``harness`` with
``--from harness``: the harness's start ``best_start`` instead, the
control), ``start_objective`` the start's checked value,
``status``, ``objective`` (HiGHS's incumbent, re-checked), ``bound``,
``width`` (``max / min - 1`` of the two), ``frontier_bound``,
``runtime_s``, ``loadavg``).  A schedule HiGHS finds better than the start
is checked and saved as ``seed<S>_highs.json`` beside it (unless an earlier
run saved a better one there).

Run (one HiGHS thread per sub-solve; the times are measurements)::

    nice -n 5 python -m benchmarks.wide_lns --paper okita --seeds 4 --budget 1200 --out benchmarks/data
    python -m benchmarks.wide_lns --paper okita --seeds 0 1 2 3 4 --prove 60 --out benchmarks/data
    python -m benchmarks.wide_lns --paper okita --quick [--prove 60]

``python -m benchmarks.oasis_wide_lns`` is the same with ``--paper oasis``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, merge_into_csv
from benchmarks.frontier import CSV, LADDERS, formulations, reference_row
from optsched.core.ratio import best_start


@dataclass(frozen=True)
class Setup:
    """One paper's search: its neighbourhood search, sizes and the frontier's formulation."""

    lns: str  #: module with ``improve(inst, start, *, rounds, k, seed)``
    ks: tuple[int, ...]  #: jobs freed per call, in turn
    quick_size: dict[str, Any]  #: ``--quick``: a size HiGHS proves in seconds
    quick_ks: tuple[int, ...]
    #: the frontier's formulation (``benchmarks.frontier.formulations``): its
    #: CSV rows are the reference, and ``--prove`` solves it
    formulation: str


#: Per paper: the neighbourhood search and its sizes (oasis as measured on
#: 2026-12-06; okita's shipped search frees 2 jobs per round, ``K_JOBS``).
SETUPS: dict[str, Setup] = {
    "oasis": Setup(
        lns="optsched.oasis.lns", ks=(14, 18, 22, 26),
        quick_size={"n_jobs": 20, "n_slots": 12, "n_worker_servers": 3, "n_ps_servers": 3},
        quick_ks=(4, 6), formulation="current",
    ),
    "okita": Setup(
        lns="optsched.okita.lns", ks=(2, 3, 4, 5),
        quick_size={"n_sites": 3, "n_jobs": 5, "n_slots": 20},
        quick_ks=(2, 3), formulation="v3",
    ),
}  # fmt: skip
KEY = ["size_json", "seed", "call"]
COLUMNS = [
    "size_json", "seed", "call", "k", "seconds", "call_s", "objective", "start_objective",
    "frontier_bound", "width", "loadavg",
]  # fmt: skip
PROVE_KEY = ["size_json", "seed", "start_from", "time_limit_s"]
PROVE_COLUMNS = [
    *PROVE_KEY, "start_objective", "status", "objective", "bound", "width",
    "frontier_bound", "runtime_s", "loadavg",
]  # fmt: skip


def size_of(paper: str, quick: bool) -> dict[str, Any]:
    """The instance size: the frontier ladder's largest, or the quick one."""
    return dict(SETUPS[paper].quick_size if quick else LADDERS[paper][-1])


def width(a: float, b: float) -> float:
    """``max / min - 1`` of an interval's two ends (NaN when one is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return max(a, b) / min(a, b) - 1


def _better(paper: str, new: float, old: float) -> bool:
    maximise = optsched.get_paper(paper).sense == "max"
    return new > old if maximise else new < old


def search(
    paper: str,
    inst: Any,
    *,
    budget: float,
    calls: int | None = None,
    ks: tuple[int, ...] | None = None,
    on_call: Any = None,
) -> tuple[Any, list[dict[str, Any]]]:
    """The best checked schedule and one row per call (module docstring).

    ``on_call(rows, best)`` is called after every call (the CSV writer).
    """
    import importlib

    lns = importlib.import_module(SETUPS[paper].lns)
    check = optsched.get_paper(paper).check
    ks = ks or SETUPS[paper].ks
    began = time.perf_counter()
    best = best_start(paper, inst)
    start_obj = best_obj = float(check(inst, best).objective)
    rows: list[dict[str, Any]] = []
    call = 0
    while time.perf_counter() - began < budget and (calls is None or call < calls):
        k = ks[call % len(ks)]
        t0 = time.perf_counter()
        cand, _trace = lns.improve(inst, best, rounds=4, k=k, seed=100 + call)
        obj = float(check(inst, cand).objective)
        if _better(paper, obj, best_obj):
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


def _reference(paper: str, size: dict[str, Any], seed: int, quick: bool) -> float:
    if quick:
        return math.nan
    formulation = SETUPS[paper].formulation
    return float(reference_row(paper, size, formulation, seed, CSV)["bound"])


def run_seed(
    paper: str, seed: int, out: Path, *, quick: bool, budget: float, calls: int | None
) -> pd.DataFrame:
    """Search one seed, writing the CSV and the best schedule after every call."""
    size = size_of(paper, quick)
    inst = optsched.get_paper(paper).generate(seed, **size)
    ref = _reference(paper, size, seed, quick)

    def write(rows: list[dict[str, Any]], best: Any) -> None:
        full = [
            {
                **r,
                "size_json": json.dumps(size, sort_keys=True),
                "seed": seed,
                "frontier_bound": ref,
                "width": width(ref, r["objective"]),
            }
            for r in rows
        ]
        name = f"{paper}_wide_lns"
        merge_into_csv(out, f"{name}.csv", full, COLUMNS, KEY, keep_old=True)
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"seed{seed}.json").write_text(best.to_json())

    ks = SETUPS[paper].quick_ks if quick else SETUPS[paper].ks
    _best, rows = search(paper, inst, budget=budget, calls=calls, ks=ks, on_call=write)
    return pd.DataFrame(rows)


def prove_seed(
    paper: str,
    seed: int,
    out: Path,
    *,
    quick: bool,
    time_limit: float,
    start_from: str = "search",
) -> dict[str, Any]:
    """HiGHS from the saved best schedule of ``seed`` (module docstring, ``--prove``).

    ``start_from="harness"`` starts from ``best_start`` instead (the control:
    same solver, time and machine, only the start differs); its incumbent
    is not saved.

    Raises
    ------
    RuntimeError
        The checker's value of HiGHS's incumbent differs from the reported
        one, or the incumbent is worse than the start it was given.
    """
    size = size_of(paper, quick)
    p = optsched.get_paper(paper)
    inst = p.generate(seed, **size)
    folder = out / f"{paper}_wide_lns"
    if start_from == "harness":
        start = best_start(paper, inst)
    else:
        start = p.schedule_type.from_json((folder / f"seed{seed}.json").read_text())
    start_obj = float(p.check(inst, start).objective)
    solve = formulations(paper)[SETUPS[paper].formulation]
    res = solve(inst, time_limit=time_limit, start=start, threads=1)
    obj = float(p.check(inst, res.schedule).objective)
    if not math.isclose(obj, float(res.objective), rel_tol=1e-6):
        raise RuntimeError(f"seed {seed}: checker {obj!r} != HiGHS {res.objective!r}")
    if _better(paper, start_obj, obj) and not math.isclose(
        obj, start_obj, rel_tol=1e-6
    ):
        raise RuntimeError(
            f"seed {seed}: incumbent {obj!r} worse than its start {start_obj!r}"
        )
    found = folder / f"seed{seed}_highs.json"
    kept = start_obj  # an earlier run's improvement is replaced only by a better one
    if found.exists():
        kept = float(
            p.check(inst, p.schedule_type.from_json(found.read_text())).objective
        )
    if (
        start_from == "search"
        and _better(paper, obj, start_obj)
        and _better(paper, obj, kept)
    ):
        found.write_text(res.schedule.to_json())
    ref = _reference(paper, size, seed, quick)
    row = {
        "size_json": json.dumps(size, sort_keys=True), "seed": seed,
        "start_from": start_from, "time_limit_s": time_limit, "start_objective": start_obj,
        "status": res.status, "objective": obj, "bound": float(res.bound),
        "width": width(float(res.bound), obj), "frontier_bound": ref,
        "runtime_s": float(res.runtime), "loadavg": os.getloadavg()[0],
    }  # fmt: skip
    name = f"{paper}_wide_lns_highs.csv"
    merge_into_csv(out, name, [row], PROVE_COLUMNS, PROVE_KEY)
    return row


def main(argv: list[str] | None = None, *, paper: str | None = None) -> int:
    """Run the seeds; print each seed's best value (or HiGHS's row with ``--prove``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    if paper is None:
        ap.add_argument("--paper", choices=sorted(SETUPS), required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[4])
    ap.add_argument("--budget", type=float, default=2700.0, help="seconds per seed")
    ap.add_argument("--calls", type=int, default=None, help="at most this many calls")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--quick", action="store_true", help="small size, 2 calls, seed 1")
    ap.add_argument(
        "--prove", type=float, default=None, metavar="SECONDS",
        help="HiGHS from each seed's saved best schedule instead of the search",
    )  # fmt: skip
    ap.add_argument(
        "--from", dest="start_from", choices=("search", "harness"), default="search",
        help="--prove from the search's best (default) or the harness's start (control)",
    )  # fmt: skip
    a = ap.parse_args(argv)
    key = paper or a.paper
    seeds, calls = ([1], 2) if a.quick else (a.seeds, a.calls)
    for seed in seeds:
        if a.prove is not None:
            row = prove_seed(
                key, seed, a.out, quick=a.quick, time_limit=a.prove,
                start_from=a.start_from,
            )  # fmt: skip
            print(json.dumps(row))
            continue
        df = run_seed(key, seed, a.out, quick=a.quick, budget=a.budget, calls=calls)
        print(json.dumps({"seed": seed, "calls": len(df),
                          "objective": float(df["objective"].iloc[-1])}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
