"""Worst certified ratios per paper (issue 14): the search against the random-instance mean.

For each paper, at its ``demo_size`` (optima proven in seconds):

1. the random-instance ratios of its own online algorithm(s) and its
   baselines (:data:`OWN`, :data:`BASELINES`; ``optsched.ratios`` on
   ``--random`` instances, seeds ``0..``), whose mean certified ratio (proven
   ratio, else the lower end of the interval) ranks the baselines;
2. ``optsched.worst_case`` for the own algorithm(s) and the two strongest
   baselines (lowest random mean), with each method (``anneal`` from the
   worst of :data:`STARTS` generated instances, ``evolve``), ``--evals``
   evaluations, seed 0;
3. instances on which an algorithm *raised* (``alg_error``, a bug found by
   the search) are counted (``failures``) and the first three per search
   saved to ``--data`` as ``<paper>_<algorithm>_<method>.failure<n>.json``;
4. the worst instance of every search is saved to ``--data``
   (``<paper>_<algorithm>_<method>.json``) with its certified ratio in
   ``manifest.csv`` -- the regression cases that
   ``tests/test_worst_case_regression.py`` re-checks.

Output: ``benchmarks/out/worst_case_bench.csv`` (one row per search:
worst certified ratio, its kind, the random mean and max, the paper's proven
bound) and one trace CSV per search.  The issue asks for 2,000 evaluations
per search: ``python -m benchmarks.worst_case_bench --evals 2000`` (hours on
2 cores); ``--quick`` is the smoke test (2 random instances, 3 evaluations,
``anneal`` only, data written to the output folder, not to ``--data``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from optsched.core.adversary import certified_ratio, worst_case
from optsched.core.experiment import write_atomic

#: The papers' own online algorithms.
OWN = {
    "oasis": ("oasis",),
    "hetero": ("has", "jps"),
    "edgecloud": ("a_online",),
    "okita": ("okita",),
    "asrpt": ("asrpt",),
}
#: The baselines of each paper's evaluation (named variants and exact
#: searches excluded).
BASELINES = {
    "oasis": ("fifo", "drf", "rrh", "dorm"),
    "hetero": ("optimus", "optimus_lb", "gavel", "las"),
    "edgecloud": ("a_online_e", "srtf", "tiresias_l", "batchsche"),
    "okita": ("fifo", "drf", "oasis"),
    "asrpt": ("spjf", "spwf", "wcs_duration", "wcs_workload", "wcs_subtime"),
}
METHODS = ("anneal", "evolve")
TIME_LIMIT = 30.0
#: ``anneal`` starts from the worst of this many generated instances.
STARTS = 8
DATA = Path(__file__).parent / "data" / "worst"
COLUMNS = [
    "paper", "algorithm", "role", "method", "n_evals", "worst_ratio", "kind",
    "opt_status", "start_ratio", "random_mean", "random_max", "random_n",
    "proven_bound", "size", "failures", "first_failure",
]  # fmt: skip


def random_ratios(key: str, n: int, size: dict[str, Any]) -> pd.DataFrame:
    """Mean / max certified ratio per algorithm over ``n`` random instances."""
    algs = [*OWN[key], *BASELINES[key]]
    df = optsched.ratios(key, n_instances=n, seed=0, algorithms=algs,
                         time_limit=TIME_LIMIT, progress=False, **size)  # fmt: skip
    df["certified"] = [certified_ratio(r) for r in df.to_dict("records")]
    return df.groupby("algorithm")["certified"].agg(["mean", "max", "count"])


def strongest(table: pd.DataFrame, key: str, k: int = 2) -> list[str]:
    """The ``k`` baselines with the lowest random mean (ties: listed order)."""
    order = {b: j for j, b in enumerate(BASELINES[key])}
    return sorted(BASELINES[key], key=lambda b: (table.loc[b, "mean"], order[b]))[:k]


def run(
    out_dir: Path, data_dir: Path, n_evals: int, n_random: int, methods: tuple[str, ...],
    papers: tuple[str, ...], workers: int | None,
) -> pd.DataFrame:  # fmt: skip
    """Every search of the module docstring; returns the summary table."""
    rows, manifest, files = [], [], {}
    for key in papers:
        p = optsched.get_paper(key)
        size = dict(p.demo_size)
        table = random_ratios(key, n_random, size)
        targets = [(a, "own") for a in OWN[key]] + [
            (b, "baseline") for b in strongest(table, key)
        ]
        for alg, role in targets:
            for method in methods:
                starts = min(STARTS, n_evals) if method == "anneal" else 1
                res = worst_case(key, alg, n_evals=n_evals, seed=0, time_limit=TIME_LIMIT,
                                 method=method, starts=starts, workers=workers,
                                 progress=False, **size)  # fmt: skip
                stem = f"{key}_{alg}_{method}"
                rows.append({
                    "paper": key, "algorithm": alg, "role": role, "method": method,
                    "n_evals": res.n_evals, "worst_ratio": res.ratio, "kind": res.kind,
                    "opt_status": res.status,
                    "start_ratio": float(res.trace["certified"].iloc[0]),
                    "random_mean": float(table.loc[alg, "mean"]),
                    "random_max": float(table.loc[alg, "max"]),
                    "random_n": int(table.loc[alg, "count"]),
                    "proven_bound": res.proven_bound or "",
                    "size": json.dumps(size, sort_keys=True),
                    "failures": len(res.failures),
                    "first_failure": res.failures[0][0] if res.failures else "",
                })  # fmt: skip
                for n, (_err, bad) in enumerate(res.failures[:3]):
                    text = bad.to_json(indent=1) + "\n"
                    files[f"{stem}.failure{n}.json"] = lambda f, t=text: Path(
                        f
                    ).write_text(t)
                print(f"  {stem}: worst {res.ratio:.4g} ({res.kind}) vs random mean "
                      f"{table.loc[alg, 'mean']:.4g}", flush=True)  # fmt: skip
                text = res.instance.to_json(indent=1) + "\n"
                files[f"{stem}.json"] = lambda f, t=text: Path(f).write_text(t)
                trace = res.trace
                files[f"{stem}.trace.csv"] = lambda f, t=trace: t.to_csv(f, index=False)
                manifest.append({"file": f"{stem}.json", "paper": key, "algorithm": alg,
                                 "method": method, "certified_ratio": res.ratio,
                                 "kind": res.kind, "time_limit": TIME_LIMIT})  # fmt: skip
    df = pd.DataFrame(rows, columns=COLUMNS)
    man = pd.DataFrame(manifest)
    traces = {k: v for k, v in files.items() if k.endswith(".trace.csv")}
    insts = {k: v for k, v in files.items() if k.endswith(".json")}
    write_atomic(out_dir, {"worst_case_bench.csv": lambda f: df.to_csv(f, index=False),
                           **traces})  # fmt: skip
    write_atomic(
        data_dir, {**insts, "manifest.csv": lambda f: man.to_csv(f, index=False)}
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(
            df.drop(columns=["size", "proven_bound", "first_failure"]).to_string(
                index=False
            )
        )
    return df


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--evals", type=int, default=200)
    ap.add_argument("--random", type=int, default=20, help="random instances per paper")
    ap.add_argument("--papers", default=",".join(OWN))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out"))
    ap.add_argument("--data", type=Path, default=DATA)
    a = ap.parse_args(argv)
    papers = tuple(x for x in a.papers.split(",") if x)
    if a.quick:
        return run(a.out, a.out / "worst", 3, 2, ("anneal",), papers, a.workers)
    if a.evals < 1 or math.isnan(a.evals):
        ap.error(f"--evals must be >= 1, got {a.evals}")
    return run(a.out, a.data, a.evals, a.random, METHODS, papers, a.workers)


if __name__ == "__main__":
    main()
