"""Identical workers and PSs of edgecloud (2): does removing their symmetry bring proofs within 60 s?

The workers of one edge server and one worker type are identical (same
delays, same qualification), and so are its PSs of one PS type
(docs/edgecloud.md, "Which rule holds the last units").  Formulation v3
(``models/edgecloud.py``) removes the symmetry of a job's chunks; the
symmetry of the identical workers and PSs stays in the model: on the
frontier's 20 x 3 instances server 0 has six identical type-0 workers and
six identical PSs, so every schedule has thousands of copies that a
branch-and-bound explores apart.  This study adds, to v3, rows that keep one
copy (``v3_sym``; the model itself is not changed):

* workers, per pool ``w_1, ..., w_m`` (one edge server, one worker type,
  ``m >= 2``), for ``k >= 2`` and every chunk ``(j, d)`` that can use the
  pool::

      x[j, d, s, w_k] <= sum_{j' <= j} sum_{d'} x[j', d', s, w_{k-1}]
                                                      sym_worker_order

  ("a worker holds a chunk of job ``j`` only if the one before it holds a
  chunk of a job ``j' <= j``"): the workers of a pool in the order of the
  smallest job each holds, idle workers last;
* PSs, per pool ``p_1, ..., p_m`` (one edge server, one PS type), slot
  ``t``, ``k >= 2`` and job ``j``::

      z[j, s, p_k, t] <= sum_{j' < j} z[j', s, p_{k-1}, t]    sym_ps_order

  (a PS serves one job per slot, (2f)): in every slot the jobs served by
  the pool go to its PSs in job order, idle PSs last.

Valid: :func:`canonical` maps every schedule to one with the same checked
JCT that meets both families and v3's chunk order: it renumbers the workers
of each pool by the smallest job they hold (stable, idle last; the chunk
order of v3 is applied afterwards by :func:`optsched.models.edgecloud.
start_values` and changes only chunk numbers within a job, not which jobs
a worker holds) and, slot by slot, gives the pool's PSs to its jobs in job
order (a PS may change from slot to slot in (2); the pool's PSs are
interchangeable for those jobs).  So ``v3_sym`` has v3's optimum; the MIP
start is passed through :func:`canonical`.  Tests
(``tests/test_edgecloud_symmetry_quick.py``): the canonical schedule keeps
its checked JCT and meets every row of ``v3_sym``; a schedule with two
workers of a pool swapped violates a row (the rows do cut); ``v3_sym``'s
proven optimum equals v3's on small generated instances with pools.

``python -m benchmarks.edgecloud_symmetry`` solves the frontier's
edgecloud ladder (``benchmarks/frontier.py``; ``--steps`` picks sizes by
index, default 1-3: 10 x 2, 15 x 3, 20 x 3) with v3 and ``v3_sym`` from the
same start (``best_start``), one thread, ``--limit`` seconds (default 60),
into ``<out>/edgecloud_symmetry.csv`` (merged by size, seed,
formulation and time limit).  ``--formulations`` restricts the pair (two processes, one
per formulation, put the control on the same machine at the same time).
Every returned schedule goes through the checker.  Timings are
measurements on 2 shared cores, not assertions.

Run::

    python -m benchmarks.edgecloud_symmetry --formulations v3 --out benchmarks/data &
    python -m benchmarks.edgecloud_symmetry --formulations v3_sym --out benchmarks/data
    python -m benchmarks.edgecloud_symmetry --quick     # 5 x 2 and 10 x 2, seed 0, 20 s
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyomo.environ as pyo
from optsched.models import edgecloud as M

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table, seeds_parser
from benchmarks.frontier import LADDERS, size_label
from optsched.core.base import OfflineResult, certified_solve
from optsched.core.ratio import best_start
from optsched.core.solver import Deadline
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule

KEY = ["n_jobs", "n_servers", "seed", "formulation", "time_limit_s", "highs_seed"]
COLUMNS = [
    *KEY, "size", "status", "objective", "bound", "gap", "runtime_s",
    "start_objective", "worker_rows", "ps_rows", "loadavg",
]  # fmt: skip
FORMULATIONS = ("v3", "v3_sym")


def pools(types: np.ndarray) -> list[list[int]]:
    """Indices of equal entries of ``types`` (one pool per value, size >= 2)."""
    by: dict[int, list[int]] = defaultdict(list)
    for i, v in enumerate(np.asarray(types).tolist()):
        by[int(v)].append(i)
    return [ws for ws in by.values() if len(ws) >= 2]


def canonical(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> EdgeCloudSchedule:
    """``sched`` with identical workers and PSs renumbered (module docstring)."""
    runs = np.asarray(sched.runs).copy()
    for s in range(inst.cloud):
        for pool in pools(inst.worker_types[s]):
            on = runs[:, 3] == s
            low = {
                w: int(runs[on & (runs[:, 4] == w), 0].min())
                if (on & (runs[:, 4] == w)).any()
                else math.inf
                for w in pool
            }
            order = sorted(pool, key=lambda w: (low[w], w))
            new = dict(zip(order, pool, strict=True))
            mine = on & np.isin(runs[:, 4], pool)
            runs[mine, 4] = [new[w] for w in runs[mine, 4].tolist()]
    ps = np.asarray(sched.ps).copy()
    for s in range(inst.cloud):
        for pool in pools(inst.ps_types[s]):
            for t in np.unique(ps[ps[:, 2] == s, 1]).tolist():
                rows = np.flatnonzero(
                    (ps[:, 2] == s) & (ps[:, 1] == t) & np.isin(ps[:, 3], pool)
                )
                rows = rows[np.argsort(ps[rows, 0], kind="stable")]
                ps[rows, 3] = pool[: len(rows)]
    return dataclasses.replace(sched, runs=runs, ps=ps)


def add_symmetry_rows(
    model: pyo.ConcreteModel, inst: EdgeCloudInstance
) -> dict[str, int]:
    """Add ``sym_worker_order`` and ``sym_ps_order`` (module docstring) to ``model``.

    Returns the number of rows of each (``worker_rows``, ``ps_rows``).
    """
    x_on: dict[tuple[int, int], dict[int, list]] = defaultdict(
        lambda: defaultdict(list)
    )
    for j, d, s, w in model.X:
        if s != inst.cloud:
            x_on[s, w][j].append(model.x[j, d, s, w])
    worker_rows: list[tuple[Any, list[Any]]] = []
    for s in range(inst.cloud):
        for pool in pools(inst.worker_types[s]):
            for prev, w in zip(pool, pool[1:], strict=False):
                for j, xs in x_on[s, w].items():
                    before = [
                        v for jj, vs in x_on[s, prev].items() if jj <= j for v in vs
                    ]
                    worker_rows.extend((x, before) for x in xs)
    model.sym_worker_order = pyo.Constraint(
        range(len(worker_rows)),
        rule=lambda _, i: worker_rows[i][0] <= pyo.quicksum(worker_rows[i][1]),
    )
    z_on: dict[tuple[int, int], dict[int, dict[int, Any]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for j, s, p, t in model.Z:
        if s != inst.cloud:
            z_on[s, p][t][j] = model.z[j, s, p, t]
    ps_rows: list[tuple[Any, list[Any]]] = []
    for s in range(inst.cloud):
        for pool in pools(inst.ps_types[s]):
            for prev, p in zip(pool, pool[1:], strict=False):
                for t, zs in z_on[s, p].items():
                    earlier = z_on[s, prev].get(t, {})
                    for j, z in zs.items():
                        ps_rows.append((z, [v for jj, v in earlier.items() if jj < j]))
    model.sym_ps_order = pyo.Constraint(
        range(len(ps_rows)),
        rule=lambda _, i: (
            ps_rows[i][0] <= pyo.quicksum(ps_rows[i][1])
            if ps_rows[i][1]
            else ps_rows[i][0] <= 0
        ),
    )
    return {"worker_rows": len(worker_rows), "ps_rows": len(ps_rows)}


def solve_sym(
    inst: EdgeCloudInstance,
    *,
    time_limit: float | None = 60.0,
    start: EdgeCloudSchedule | None = None,
    threads: int | None = None,
    verbose: bool = False,
    rows: bool = True,
    highs_seed: int = 0,
    counts: dict[str, int] | None = None,
) -> OfflineResult:
    """(2) by HiGHS on v3 plus the symmetry rows (``rows=False``: v3 alone).

    The steps of ``optsched.models.edgecloud.solve_offline`` (the same
    builder, MIP start, bound and checker; with the rows the start is
    passed through :func:`canonical`); ``highs_seed`` is HiGHS's
    ``random_seed`` (0: its default).  ``counts``, when given, receives
    the row counts of :func:`add_symmetry_rows` (untouched without the rows).
    """
    mapped = (lambda sched: canonical(inst, sched)) if rows else (lambda sched: sched)

    def build(deadline: Deadline) -> pyo.ConcreteModel:
        model = M.build_model(inst, deadline=deadline, formulation="v3")
        if rows:
            found = add_symmetry_rows(model, inst)
            if counts is not None:
                counts.update(found)
        return model

    return certified_solve(
        inst,
        build=build,
        extract=lambda model: M.extract_schedule(model, inst),
        check=check,
        sense="min",
        time_limit=time_limit,
        start=None if start is None else mapped(start),
        start_values=lambda model, sched: M.start_values(model, inst, mapped(sched)),
        bound=lambda: M.jct_bound(inst),
        threads=threads,
        verbose=verbose,
        options={"random_seed": highs_seed} if highs_seed else None,
    )


def row(
    step: int, seed: int, name: str, limit: float, highs_seed: int = 0
) -> dict[str, Any]:
    """One frontier instance solved by formulation ``name``; its checked row."""
    p = optsched.get_paper("edgecloud")
    size = LADDERS["edgecloud"][step]
    inst = p.generate(seed, **size)
    start = best_start(p, inst)
    start_obj = float(check(inst, start).objective)
    counts = {"worker_rows": 0, "ps_rows": 0}
    res = solve_sym(
        inst, time_limit=limit, start=start, threads=1,
        rows=name == "v3_sym", highs_seed=highs_seed, counts=counts,
    )  # fmt: skip
    obj = float(res.objective)
    if res.schedule is not None and not math.isclose(
        float(check(inst, res.schedule).objective), obj, abs_tol=1e-6
    ):
        raise RuntimeError(f"seed {seed} {name}: checker disagrees with {obj}")
    bound = float(res.bound)
    return {
        "n_jobs": size["n_jobs"], "n_servers": size["n_servers"], "seed": seed,
        "formulation": name, "time_limit_s": limit, "highs_seed": highs_seed,
        "size": size_label("edgecloud", size), "status": res.status,
        "objective": obj, "bound": bound,
        "gap": (obj - bound) / max(1.0, abs(obj)), "runtime_s": float(res.runtime),
        "start_objective": start_obj, **counts, "loadavg": os.getloadavg()[0],
    }  # fmt: skip


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: tuple[int, ...] | None = None,
    limit: float | None = None,
    steps: tuple[int, ...] | None = None,
    names: tuple[str, ...] = FORMULATIONS,
    highs_seeds: tuple[int, ...] = (0,),
) -> pd.DataFrame:
    """Solve every (step, seed, HiGHS seed, formulation); CSV rewritten after each row."""
    steps = steps or ((0, 1) if quick else (1, 2, 3))
    seeds = seeds or ((0,) if quick else (0, 1, 2, 3, 4))
    limit = limit or (20.0 if quick else 60.0)
    name = "edgecloud_symmetry_quick.csv" if quick else "edgecloud_symmetry.csv"
    rows = []
    for step in steps:
        for seed, hs, f in itertools.product(seeds, highs_seeds, names):
            t0 = time.perf_counter()
            rows.append(row(step, seed, f, limit, hs))
            merge_into_csv(out_dir, name, rows, COLUMNS, KEY, keep_old=not quick)
            print(f"{rows[-1]['size']} seed {seed} {f} (HiGHS seed {hs}): "
                  f"{rows[-1]['status']} {rows[-1]['objective']} / "
                  f"{rows[-1]['bound']} ({time.perf_counter() - t0:.0f} s)",
                  flush=True)  # fmt: skip
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df[["size", "seed", "formulation", "status", "objective", "bound"]])
    return df


if __name__ == "__main__":
    ap = seeds_parser(__doc__)
    ap.add_argument("--steps", type=int, nargs="+")
    ap.add_argument("--formulations", nargs="+", choices=FORMULATIONS,
                    default=list(FORMULATIONS))  # fmt: skip
    ap.add_argument("--highs-seeds", type=int, nargs="+", default=[0],
                    help="HiGHS random_seed values (0: its default)")  # fmt: skip
    a = ap.parse_args()
    main(a.out, a.quick, a.seeds and tuple(a.seeds), a.limit,
         a.steps and tuple(a.steps), tuple(a.formulations),
         tuple(a.highs_seeds))  # fmt: skip
