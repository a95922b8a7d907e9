"""OASiS exact optimum at 5x the paper's size: which lever proves optimality fastest.

Setting: 50 jobs, T = 30, 20 + 20 servers (``generate(seed, 50, 30, 20,
20)``, seeds 0-4), one HiGHS thread (except ``two_threads``), 60 s per
solve; target: every seed
proven optimal within 60 s.  Each lever is applied on top of
``models.oasis.build_model`` (exact MILP of (1)-(13), dominance rows on)
and solved like ``solve_offline`` (the incumbent is re-evaluated by the
checker; ``optimal`` only when HiGHS proved a zero gap):

``baseline``
    ``solve_offline`` as shipped (MIP start from the best online schedule).
``no_start``
    Without the MIP start.
``vub``
    Per-server variable upper bounds linked to the completion indicators:
    ``y[i,h,t] <= min(N_max_i, fit_ih) sum_{t' >= t} u[i,t']`` (and
    ``z`` alike) -- valid: a job has no worker after its completion slot.
``symmetry``
    For servers with identical capacity vectors, per slot the worker
    (parameter-server) load on the first resource is non-increasing in the
    server index -- valid: servers of equal capacity can be permuted slot by
    slot (no constraint ties a server's identity across slots).
``heuristics``
    HiGHS ``mip_heuristic_effort = 0.3`` (default 0.05): more primal search.
``two_threads``
    The shipped solve with two HiGHS threads (the machine has 2 cores; run
    alone, not beside another lever).
``lfloor_start``
    MIP start from the best checked schedule of the online algorithms *and*
    the variant ``oasis_lfloor`` (``optsched.oasis.variants``), which earns
    more than the literal OASiS on these instances.

The column-generation bound (``models.oasis.column_generation``) was tried
as a cut-off and dropped: on seed 0 it had not converged after 120 s
(exact pricing of 50 jobs per round), twice the whole budget.

:func:`ladder` then answers the converse question: at ``T = 30`` and
20 + 20 servers, the largest number of jobs (:data:`JOB_LADDER`) at which
every seed is proven optimal within 60 s with the shipped solver
(``solve_offline``), stopping at the first size that fails.

Run: ``python -m benchmarks.oasis_levers [--quick]`` (quick: 12 jobs,
T = 10, 2 + 2 servers, seed 0, 10 s; ladder 4, 8 jobs); writes
``benchmarks/out/oasis_levers.csv`` and ``oasis_job_ladder.csv``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyomo.environ as pyo
from optsched.models.oasis import (
    HIGHS_OPTIONS,
    build_model,
    extract_schedule,
    start_values,
)

from benchmarks.common import cli, print_table
from optsched.core.experiment import write_atomic
from optsched.core.registry import OfflineResult
from optsched.core.solver import solve
from optsched.oasis.check import check
from optsched.oasis.instance import OasisInstance, generate
from optsched.oasis.paper import default_start
from optsched.oasis.variants import oasis_lfloor

SIZE = {"n_jobs": 50, "n_slots": 30, "n_worker_servers": 20, "n_ps_servers": 20}
QUICK_SIZE = {"n_jobs": 12, "n_slots": 10, "n_worker_servers": 2, "n_ps_servers": 2}
SEEDS = (0, 1, 2, 3, 4)
#: Job counts of :func:`ladder` (T = 30, 20 + 20 servers).
JOB_LADDER = (10, 20, 30, 40, 50)
QUICK_JOB_LADDER = (4, 8)
LIMIT_S = 60.0
COLUMNS = [
    "lever", "seed", "status", "objective", "bound", "gap", "runtime_s", "target_s",
    "proven_within_target",
]  # fmt: skip


def _later(m: pyo.ConcreteModel, i: int, t: int):
    first, T = m._oasis["first"], max(m.T)
    if t < first[i]:
        return m.x[i]
    return pyo.quicksum(m.u[i, s] for s in range(t, T + 1))


def add_vub(m: pyo.ConcreteModel, inst: OasisInstance) -> None:
    """``y, z <= ub * (completion at or after t)`` where ``ub`` is below ``N_max_i``."""
    nmax = m._oasis["nmax"]
    for name, var in (("lever_vub_y", m.y), ("lever_vub_z", m.z)):
        idx = [k for k in var if var[k].ub < nmax[k[0]]]
        rule = lambda _, i, s, t, v=var: v[i, s, t] <= v[i, s, t].ub * _later(m, i, t)  # noqa: E731
        m.add_component(name, pyo.Constraint(idx, rule=rule))


def add_symmetry(m: pyo.ConcreteModel, inst: OasisInstance) -> None:
    """Identical servers: per slot, load on resource 0 non-increasing in the server index."""
    for name, var, cap, dem in (
        ("lever_sym_y", m.y, inst.c_worker, inst.w),
        ("lever_sym_z", m.z, inst.c_ps, inst.s),
    ):
        r = int(np.argmax(dem.sum(axis=0)))  # a resource every job demands
        pairs = []
        for h in range(cap.shape[0]):
            same = [g for g in range(h) if np.array_equal(cap[g], cap[h])]
            if same:
                pairs.append((same[-1], h))
        by_server: dict[tuple[int, int], list] = {}
        for i, s, t in var:
            by_server.setdefault((s, t), []).append(float(dem[i, r]) * var[i, s, t])
        rows = [
            (g, h, t)
            for g, h in pairs
            for t in m.T
            if (g, t) in by_server or (h, t) in by_server
        ]

        def rule(_, g, h, t, b=by_server):
            lhs = pyo.quicksum(b.get((g, t), []))
            rhs = pyo.quicksum(b.get((h, t), []))
            return lhs >= rhs

        m.add_component(name, pyo.Constraint(rows, rule=rule))


LEVERS: dict[str, tuple[Callable | None, bool | str, dict[str, Any]]] = {
    # name: (model hook, MIP start, extra HiGHS options)
    "baseline": (None, True, {}),
    "no_start": (None, False, {}),
    "vub": (add_vub, True, {}),
    "symmetry": (add_symmetry, True, {}),
    "heuristics": (None, True, {"mip_heuristic_effort": 0.3}),
    "lfloor_start": (None, "lfloor", {}),
    "two_threads": (None, True, {"threads": 2}),
}


def start_schedule(inst: OasisInstance, which: bool | str):
    """The MIP start's schedule: None, the shipped one, or the best with ``oasis_lfloor``."""
    if not which:
        return None
    sched = default_start(inst)  # the shipped start: the best online schedule
    value = check(inst, sched).objective
    if which == "lfloor":
        alt = oasis_lfloor(inst)
        if check(inst, alt).objective > value:
            sched = alt
    return sched


def solve_with(inst: OasisInstance, lever: str, limit: float) -> OfflineResult:
    """``solve_offline`` with one lever applied (module docstring)."""
    hook, use_start, extra = LEVERS[lever]
    began = time.perf_counter()
    m = build_model(inst)
    if hook is not None:
        hook(m, inst)
    sched = start_schedule(inst, use_start)
    seed = None if sched is None else start_values(m, inst, sched)
    options = {**HIGHS_OPTIONS, **extra}
    threads = int(options.pop("threads", 1))
    res = solve(m, time_limit=limit, threads=threads, options=options, start=seed)
    return OfflineResult.from_solve(
        res, began, lambda: extract_schedule(m, inst), lambda s: check(inst, s)
    )


def main(
    out_dir: Path = Path("benchmarks/out"),
    quick: bool = False,
    levers: tuple[str, ...] = tuple(LEVERS),
    name: str = "oasis_levers",
) -> pd.DataFrame:
    """Every lever x seed; print the per-lever summary and write ``<name>.csv``.

    ``levers``/``name`` let two processes share the levers on two cores.
    """
    size, seeds, limit = (QUICK_SIZE, (0,), 10.0) if quick else (SIZE, SEEDS, LIMIT_S)
    rows = []
    for lever in levers:
        for seed in seeds:
            inst = generate(seed, **size)
            r = solve_with(inst, lever, limit)
            gap = (r.bound - r.objective) / max(abs(r.objective), 1e-9)
            rows.append(
                {
                    "lever": lever,
                    "seed": seed,
                    "status": r.status,
                    "objective": r.objective,
                    "bound": r.bound,
                    "gap": gap,
                    "runtime_s": r.runtime,
                    "target_s": limit,
                    "proven_within_target": r.status == "optimal"
                    and r.runtime <= limit,
                }
            )
            print(
                f"  {lever:10s} seed {seed}: {r.status:10s} {r.objective:10.2f} "
                f"bound {r.bound:10.2f} gap {gap:6.2%} {r.runtime:6.1f} s",
                flush=True,
            )
    df = pd.DataFrame(rows, columns=COLUMNS)
    summary = df.groupby("lever", sort=False).agg(
        proven=("proven_within_target", "sum"),
        median_gap=("gap", "median"),
        max_gap=("gap", "max"),
        median_s=("runtime_s", "median"),
    )
    print(
        f"OASiS exact MILP, {size}, seeds {list(seeds)}, {limit:.0f} s, 1 thread (two_threads: 2)"
        + (" -- QUICK settings" if quick else "")
    )
    print_table(summary.reset_index())
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(out_dir, {f"{name}.csv": lambda p: df.to_csv(p, index=False)})
    return df


def ladder(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> pd.DataFrame:
    """Largest job count proven optimal on every seed within the limit (module docstring)."""
    size = dict(QUICK_SIZE if quick else SIZE)
    jobs, seeds, limit = (
        (QUICK_JOB_LADDER, (0,), 10.0) if quick else (JOB_LADDER, SEEDS, LIMIT_S)
    )
    rows = []
    for n in jobs:
        batch = []
        for seed in seeds:
            inst = generate(seed, **{**size, "n_jobs": n})
            r = solve_with(inst, "baseline", limit)
            batch.append({"n_jobs": n, "seed": seed, "status": r.status,
                          "runtime_s": r.runtime, "objective": r.objective,
                          "bound": r.bound})  # fmt: skip
            print(
                f"  {n} jobs, seed {seed}: {r.status} in {r.runtime:.1f} s", flush=True
            )
        ok = all(b["status"] == "optimal" and b["runtime_s"] <= limit for b in batch)
        rows += [{**b, "passes": ok} for b in batch]
        if not ok:
            break
    df = pd.DataFrame(rows)
    good = df[df["passes"]]
    best = int(good["n_jobs"].max()) if len(good) else 0
    print(f"largest job count proven on every seed within {limit:.0f} s: {best}")
    write_atomic(out_dir, {"oasis_job_ladder.csv": lambda p: df.to_csv(p, index=False)})
    return df


def run_all(out_dir: Path = Path("benchmarks/out"), quick: bool = False) -> None:
    """The lever table, then the job ladder."""
    main(out_dir, quick)
    ladder(out_dir, quick)


if __name__ == "__main__":
    cli(run_all, __doc__)
