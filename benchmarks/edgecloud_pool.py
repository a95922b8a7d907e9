"""Which rule holds the last units of the edgecloud 20 x 3 intervals: the pool relaxation.

The frontier's 20 x 3 instances (``benchmarks/frontier.py``, T = 30) stay
open after 60 s on seeds 0, 2, 3 and 4, and every bound tried so far (the
MILP's own, the column generation over jobs, branch and price) stops at the
same values.  This script removes one rule of (2) and nothing else: the
*no migration* of a chunk between identical workers.  The workers of one
edge server and one worker type are identical (same delays, same
qualification), so they are merged into a *pool* with its number of
workers as capacity per slot, and a chunk is dispatched to a pool, not to a
worker (:func:`build_pool`):

* ``a[j, d, s]`` binary: chunk ``d`` of job ``j`` on server ``s`` (the
  pool of ``s`` and the job's worker type; the cloud as in
  ``models/edgecloud.py``: unlimited, no preemption);
* ``y[j, d, s, t]`` binary: the chunk trains there in slot ``t``; per pool
  and slot at most its number of workers train ((2d) summed over the pool);
* ``z[j, s, t]`` binary: the job's PS in slot ``t`` is one of server
  ``s``'s PSs of its type, at most that many per slot ((2f) summed).  This
  is exact for PSs: a PS may change from slot to slot, so any per-slot
  count up to the pool's size is a set of distinct PSs;
* ``zeta``, the cloud's start rows, the completion indicators ``u`` and
  the work-by-completion rows as in formulation v2; the chunks of a job in
  non-decreasing server order (they are interchangeable).

Every schedule of (2) maps onto a point of it with the same total JCT (sum
its workers into pools), so its proven optimum is a lower bound on (2)
(``pool_objective``; ``pool_bound`` at a time limit).  It differs from (2)
only where its schedule needs a chunk to change workers inside a pool:
``migrating`` counts the pools whose solved slots cannot be given to their
workers without migration (an exact colouring of the chunks' overlaps,
:func:`migrating_pools`; a pool with enough workers is never counted).

Repair: the exact MILP of (2) (formulation v3) with every job's completion
capped at its slot in the pool solution (:func:`repair`); its proven
optimum, run through the checker, is a schedule of (2).  When it reaches
the pool's proven optimum, that schedule is optimal for (2)
(``certified``); when it is infeasible, no schedule of (2) completes every
job by those slots, so the pool optimum needs migration there.  Then a
second repair solves the same MILP with every completion within
:data:`WINDOW` slots of the pool optimum's either way (``window_*``), a
neighbourhood where a schedule of (2) at the pool optimum may still lie.

Written to ``<out>/edgecloud_pool.csv`` (columns :data:`COLUMNS`;
``frontier_bound`` is HiGHS's 60-s bound on v3 in
``benchmarks/data/frontier.csv``).  Timings are measurements on 2 shared
cores, not assertions.

Run::

    python -m benchmarks.edgecloud_pool --out benchmarks/data   # seeds 0-4, 60 s per solve
    python -m benchmarks.edgecloud_pool --seeds 4 --limit 600
    python -m benchmarks.edgecloud_pool --quick            # 5 x 2, seed 0, 20 s
    python -m benchmarks.edgecloud_pool --out benchmarks/data \
        --save benchmarks/data/edgecloud_pool_schedules        # and the schedules
"""

from __future__ import annotations

import math
import os
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyomo.environ as pyo

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table, seeds_parser
from benchmarks.edgecloud_bp import FRONTIER_20X3
from benchmarks.frontier import reference_row
from optsched.core import solver
from optsched.core.base import write_atomic
from optsched.core.errors import InvalidInstanceError
from optsched.core.ratio import best_start
from optsched.edgecloud.check import check

#: Seconds per solve (the pool relaxation and the repair, per seed).
LIMIT_S = 60.0
SEEDS = (0, 1, 2, 3, 4)
#: Slots either way of the pool optimum's completions in the second repair.
WINDOW = 1
#: ``--quick``: the frontier's smallest edgecloud size, seed 0.
QUICK_SIZE = {**FRONTIER_20X3, "n_jobs": 5, "n_servers": 2}
KEY = ["n_jobs", "n_servers", "seed"]
COLUMNS = [
    *KEY, "incumbent", "frontier_bound",
    "pool_status", "pool_objective", "pool_bound", "pool_s", "migrating",
    "repair_status", "repair_objective", "repair_s",
    "window_status", "window_objective", "window_s", "certified",
    "time_limit_s", "loadavg",
]  # fmt: skip


def build_pool(inst: Any) -> pyo.ConcreteModel:
    """The pool relaxation of (2) (module docstring); minimise total JCT.

    Storage rows (7b)-(7d) are left out (a relaxation of the instance with
    storage too).  Index data in ``model._pool``: ``"chunks"`` = ``(job,
    chunk) -> [server, ...]``, ``"first"`` = earliest completion per job.

    Raises
    ------
    optsched.InvalidInstanceError
        If some job cannot complete by ``T`` on any server.
    """
    from optsched.models.edgecloud import _usable as usable_servers

    T, c, J = inst.n_slots, inst.cloud, inst.n_jobs
    r = inst.arrival
    usable, first = usable_servers(inst)
    for j in range(J):
        if not usable[j]:  # the exact model's check and message
            raise InvalidInstanceError(
                f"n_slots: job {j} cannot complete by T = {T} on any server"
            )
    a_idx = [
        (j, d, s)
        for j in range(J)
        for d in range(int(inst.D[j]))
        for s, *_ in usable[j]
    ]
    ready = {
        (j, s): int(r[j] + inst.delay[j, s]) for j in range(J) for s in range(c + 1)
    }
    y_idx = [(j, d, s, t) for j, d, s in a_idx for t in range(ready[j, s], T + 1)]
    z_idx = [
        (j, s, t)
        for j in range(J)
        for s in range(c + 1)
        if s == c or np.any(inst.ps_types[s] == inst.jobs[j].ps_type)
        for t in range(ready[j, s], T + 1)
    ]
    u_idx = [(j, t) for j in range(J) for t in range(int(first[j]), T + 1)]
    m = pyo.ConcreteModel(name="edgecloud_pool")
    m.a = pyo.Var(a_idx, domain=pyo.Binary)
    m.y = pyo.Var(y_idx, domain=pyo.Binary)
    m.z = pyo.Var(z_idx, domain=pyo.Binary)
    m.u = pyo.Var(u_idx, domain=pyo.Binary)
    m.zeta = pyo.Var(range(J), domain=pyo.Binary)
    st_idx = [(j, d, t) for j, d, s, t in y_idx if s == c]
    m.st = pyo.Var(st_idx, domain=pyo.UnitInterval)
    m.obj = pyo.Objective(
        expr=pyo.quicksum(float(t - r[j]) * m.u[j, t] for j, t in u_idx)
    )
    chunks: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, d, s in a_idx:
        chunks[j, d].append(s)
    m._pool = {"chunks": dict(chunks), "first": first}
    g = _groups(inst, m, y_idx, z_idx)
    m.rows = pyo.ConstraintList()
    _chunk_rows(inst, m, chunks, g)
    _capacity_rows(inst, m, g)
    _completion_rows(inst, m, chunks, g, st_idx)
    return m


def _groups(inst: Any, m: Any, y_idx: list, z_idx: list) -> dict[str, dict]:
    """The run and PS variables grouped by chunk, job, pool and slot."""
    c = inst.cloud
    g: dict[str, dict] = {
        k: defaultdict(list) for k in ("chunk", "chunk_t", "job_t", "pool", "ps_t",
                                       "ps_edge", "ps_pool")
    }  # fmt: skip
    for j, d, s, t in y_idx:
        v = m.y[j, d, s, t]
        g["chunk"][j, d].append(v)
        g["chunk_t"][j, d, t].append(v)
        g["job_t"][j, t].append(v)
        if s != c:
            g["pool"][s, int(inst.jobs[j].worker_type), t].append(v)
    for j, s, t in z_idx:
        v = m.z[j, s, t]
        g["ps_t"][j, t].append(v)
        if s != c:
            g["ps_edge"][j, t].append(v)
            g["ps_pool"][s, int(inst.jobs[j].ps_type), t].append(v)
    return g


def _chunk_rows(inst: Any, m: Any, chunks: dict, g: dict) -> None:
    """Dispatch once, runs on the dispatched server, (2b) per chunk, zeta, order."""
    c, k0, k1 = inst.cloud, inst.chunk_slots[:, 0], inst.chunk_slots[:, 1]
    add = m.rows.add
    for (j, d), servers in chunks.items():
        add(pyo.quicksum(m.a[j, d, s] for s in servers) == 1)
        need = int(k0[j]) - int(k0[j] - k1[j]) * m.zeta[j]
        add(pyo.quicksum(g["chunk"][j, d]) >= need)
        edge = [m.a[j, d, s] for s in servers if s != c]
        if edge:
            add(m.zeta[j] + pyo.quicksum(edge) <= 1)
        if (j, d + 1) in chunks:  # interchangeable chunks: server order
            add(
                pyo.quicksum(s * m.a[j, d, s] for s in servers)
                <= pyo.quicksum(s * m.a[j, d + 1, s] for s in chunks[j, d + 1])
            )
    for j, d, s, t in m.y:
        add(m.y[j, d, s, t] <= m.a[j, d, s])
    cloud_ok: set[int] = set()
    edge_of: dict[int, list] = defaultdict(list)  # job -> its edge dispatches and PSs
    for (j, d), servers in chunks.items():
        cloud_ok.update(j for s in servers if s == c)
        edge_of[j] += [m.a[j, d, s] for s in servers if s != c]
    for (j, _t), vs in g["ps_edge"].items():
        edge_of[j] += vs
        add(m.zeta[j] + pyo.quicksum(vs) <= 1)  # (2h) for PSs
    for j in range(inst.n_jobs):
        if j in cloud_ok:
            add(m.zeta[j] + pyo.quicksum(edge_of[j]) >= 1)  # (2g)
        else:
            m.zeta[j].fix(0)


def _capacity_rows(inst: Any, m: Any, g: dict) -> None:
    """(2d) and (2f) summed over a pool; (2e) one PS per job, a PS when training."""
    add = m.rows.add
    for (s, k, _t), vs in g["pool"].items():
        cap = int(np.sum(inst.worker_types[s] == k))
        if len(vs) > cap:
            add(pyo.quicksum(vs) <= cap)
    for (s, k, _t), vs in g["ps_pool"].items():
        cap = int(np.sum(inst.ps_types[s] == k))
        if len(vs) > cap:
            add(pyo.quicksum(vs) <= cap)
    for vs in g["ps_t"].values():
        if len(vs) > 1:
            add(pyo.quicksum(vs) <= 1)
    for (j, _d, t), vs in g["chunk_t"].items():
        add(pyo.quicksum(vs) <= pyo.quicksum(g["ps_t"].get((j, t), [])))


def _completion_rows(inst: Any, m: Any, chunks: dict, g: dict, st_idx: list) -> None:
    """No cloud preemption, (2j) by completion indicators, work by completion."""
    T, c, first = inst.n_slots, inst.cloud, m._pool["first"]
    k0, k1 = inst.chunk_slots[:, 0], inst.chunk_slots[:, 1]
    add = m.rows.add
    starts = defaultdict(list)
    for j, d, t in st_idx:
        prev = m.y[j, d, c, t - 1] if (j, d, c, t - 1) in m.y else 0
        add(m.st[j, d, t] >= m.y[j, d, c, t] - prev)
        starts[j, d].append(m.st[j, d, t])
    for vs in starts.values():
        add(pyo.quicksum(vs) <= 1)
    for j in range(inst.n_jobs):
        add(pyo.quicksum(m.u[j, t] for t in range(int(first[j]), T + 1)) == 1)
    for (j, _d, t), vs in g["chunk_t"].items():
        if t > first[j]:
            later = pyo.quicksum(m.u[j, s] for s in range(t, T + 1))
            add(pyo.quicksum(vs) <= later)
    for j, t in m.u:
        add(m.u[j, t] <= pyo.quicksum(g["job_t"].get((j, t), [])))
    for j, d in chunks:
        work = 0
        done = 0
        for t in range(1, T):
            work = work + pyo.quicksum(g["chunk_t"].get((j, d, t), []))
            if t >= first[j]:
                done = done + m.u[j, t]
                add(work >= int(k0[j]) * done - int(k0[j] - k1[j]) * m.zeta[j])


def completion(m: pyo.ConcreteModel) -> dict[int, int]:
    """Job -> its completion slot in the loaded (integer) solution."""
    return {j: t for (j, t), v in m.u.items() if v.value is not None and v.value > 0.5}


def migrating_pools(inst: Any, m: pyo.ConcreteModel) -> list[tuple[int, int]]:
    """Edge pools ``(server, worker type)`` whose solved slots need migration.

    A pool's chunks can stay on one worker each iff their slot sets can be
    coloured with the pool's number of workers so that chunks sharing a
    slot get different colours (exact backtracking; pools are small).
    """
    c = inst.cloud
    slots: dict[tuple[int, int], dict[tuple[int, int], set[int]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for (j, d, s, t), v in m.y.items():
        if s != c and v.value is not None and v.value > 0.5:
            slots[s, int(inst.jobs[j].worker_type)][j, d].add(t)
    out = []
    for (s, k), by_chunk in sorted(slots.items()):
        cap = int(np.sum(inst.worker_types[s] == k))
        if not _colourable(list(by_chunk.values()), cap):
            out.append((s, k))
    return out


def _colourable(sets: list[set[int]], colours: int) -> bool:
    """Can ``sets`` get one of ``colours`` each, overlapping sets different ones?"""
    sets = sorted(sets, key=lambda x: (min(x), -len(x)))
    worker: list[set[int]] = [set() for _ in range(colours)]

    def place(i: int) -> bool:
        if i == len(sets):
            return True
        tried_empty = False
        for w in worker:
            if w & sets[i] or (not w and tried_empty):
                continue  # busy, or an empty worker like one already tried
            tried_empty = tried_empty or not w
            w |= sets[i]
            if place(i + 1):
                return True
            w -= sets[i]
        return False

    return place(0)


def repair(
    inst: Any, cap: dict[int, int], limit: float, window: int | None = None
) -> dict[str, Any]:
    """Exact v3 of (2) with completions tied to ``cap``: status, checked JCT, seconds.

    ``window`` None: job ``j`` completes by slot ``cap[j]``; an integer ``w``:
    within ``w`` slots of ``cap[j]`` either way (a neighbourhood of the pool
    optimum's completions).  The objective is the checker's value of the
    extracted schedule (NaN without one), ``schedule`` the schedule (None
    without one).
    """
    from optsched.models import edgecloud as M

    t0 = time.perf_counter()
    model = M.build_model(inst, formulation="v3")
    model.pool_cap = pyo.ConstraintList()
    for (j, t), v in model.u.items():
        if t > cap[j] if window is None else abs(t - cap[j]) > window:
            model.pool_cap.add(v <= 0)
    sol = solver.solve(model, time_limit=limit, threads=1)
    sched = M.extract_schedule(model, inst) if sol.has_solution else None
    objective = math.nan if sched is None else float(check(inst, sched).objective)
    return {
        "status": sol.status,
        "objective": objective,
        "s": time.perf_counter() - t0,
        "schedule": sched,
    }


def row(size: dict[str, Any], seed: int, limit: float) -> dict[str, Any]:
    """One seed: the checked incumbent, the pool relaxation and its repairs.

    The CSV's columns, and ``schedule``: the best checked schedule of the
    repairs (None without one).
    """
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed, **size)
    incumbent = float(p.check(inst, best_start(p, inst)).objective)
    try:
        frontier = reference_row("edgecloud", size, "v3", seed)["bound"]
    except LookupError:
        frontier = math.nan
    t0 = time.perf_counter()
    model = build_pool(inst)
    sol = solver.solve(model, time_limit=limit, threads=1)
    out: dict[str, Any] = {
        "n_jobs": size["n_jobs"], "n_servers": size["n_servers"], "seed": seed,
        "incumbent": incumbent, "frontier_bound": frontier,
        "pool_status": sol.status, "pool_objective": sol.objective,
        "pool_bound": sol.bound, "pool_s": time.perf_counter() - t0,
        "migrating": math.nan, "repair_status": "", "repair_objective": math.nan,
        "repair_s": math.nan, "window_status": "", "window_objective": math.nan,
        "window_s": math.nan, "time_limit_s": limit, "schedule": None,
    }  # fmt: skip
    if sol.has_solution:
        out["migrating"] = len(migrating_pools(inst, model))
        comp = completion(model)
        fixed = repair(inst, comp, limit)
        out["schedule"] = fixed.pop("schedule")
        out |= {f"repair_{k}": v for k, v in fixed.items()}
        if not out["repair_objective"] <= sol.objective + 1e-6:
            near = repair(inst, comp, limit, window=WINDOW)
            if not near["objective"] >= out["repair_objective"]:  # NaN: no schedule
                out["schedule"] = near["schedule"]
            del near["schedule"]
            out |= {f"window_{k}": v for k, v in near.items()}
    # a proven pool optimum is at most OPT of (2): it certifies a checked
    # schedule (the incumbent, the repair's or the window's) that reaches it
    found = (incumbent, out["repair_objective"], out["window_objective"])
    reached = min(v for v in found if not math.isnan(v))
    out["certified"] = bool(
        sol.status == "optimal" and out["pool_objective"] >= reached - 1e-6
    )
    out["loadavg"] = os.getloadavg()[0]
    return out


def _writer(text: str) -> Callable[[str], int]:
    """A ``write_atomic`` writer of ``text``."""
    return lambda path: Path(path).write_text(text)


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: tuple[int, ...] | None = None,
    limit: float | None = None,
    save: Path | None = None,
) -> pd.DataFrame:
    """Run the seeds, print the table, merge them into the CSV atomically.

    ``save``: a folder for each seed's best checked repair schedule,
    ``<n_jobs>x<n_servers>_seed<seed>.json`` (the schedule's ``to_json``),
    written atomically; seeds without one write nothing.
    """
    size = QUICK_SIZE if quick else FRONTIER_20X3
    seeds = seeds if seeds is not None else ((0,) if quick else SEEDS)
    limit = limit if limit is not None else (20.0 if quick else LIMIT_S)
    rows = []
    for seed in seeds:
        r = row(size, seed, limit)
        sched = r.pop("schedule")
        if save is not None and sched is not None:
            name = f"{size['n_jobs']}x{size['n_servers']}_seed{seed}.json"
            write_atomic(Path(save), {name: _writer(sched.to_json())})
        rows.append(r)
        window = (  # the window repair runs only when the capped one falls short
            f" window {r['window_status']} {r['window_objective']:.0f};"
            if r["window_status"]
            else ""
        )
        print(
            f"{size['n_jobs']} x {size['n_servers']} seed {seed}: incumbent"
            f" {r['incumbent']:.0f}; pool {r['pool_status']} {r['pool_objective']:.0f}"
            f" / {r['pool_bound']:.2f} ({r['pool_s']:.1f} s), migrating pools"
            f" {r['migrating']}; repair {r['repair_status']}"
            f" {r['repair_objective']:.0f} ({r['repair_s']:.1f} s);{window}"
            f" certified {r['certified']}",
            flush=True,
        )
    df = merge_into_csv(out_dir, "edgecloud_pool.csv", rows, COLUMNS, KEY)
    print_table(df)
    return df


if __name__ == "__main__":
    ap = seeds_parser(__doc__)
    ap.add_argument("--save", type=Path, help="folder for the repairs' schedules")
    a = ap.parse_args()
    main(a.out, a.quick, tuple(a.seeds) if a.seeds else None, a.limit, a.save)
