r"""Aggregated relaxation of (1)-(13) and the completion-window incumbent search.

A better incumbent for the offline optimum of OASiS on the instances where
HiGHS's own heuristics are slow: Fig. 5's grid at 50 jobs (docs/oasis.md,
"Fig. 5 at 50 jobs: certified intervals").  Measured there: with the
admissions *and completion slots* of the optimum fixed, HiGHS packs the
workers onto the servers in seconds, while with only the admissions fixed
it finds no schedule in 60 s -- choosing the completion slots is the hard
part.  The search below therefore asks a much smaller model for them.

Aggregated relaxation (:func:`build_aggregate`)
-----------------------------------------------
The MILP of :func:`optsched.models.oasis.build_model` without the servers:
per job and slot the worker count ``n[i, t]`` and the parameter-server
count ``p[i, t]`` (integers), with the completion indicators ``u[i, t]``,
the admission ``x_i``, rows (2), (3), (6), (7), (8) and the valid rows
``c8_work_by_completion`` and ``dom_no_surplus_work`` exactly as there, and
(4)-(5) summed over the servers::

    sum_i w_i^r n[i, t] <= sum_h c_h^r,     sum_i s_i^r p[i, t] <= sum_k c_k^r.

Every schedule of the dominance-restricted MILP maps to a point of this
model with the same objective (``n`` and ``p`` the per-slot sums), so its
optimum is an upper bound on the optimum of (1)-(13).  Measured (50 jobs,
``T = 10``): on 8 + 8 servers (seed 1, gamma1 <= 10) it is proven in 10 s
at 109.25, below HiGHS's bound of the full MILP after 120 s (110.16;
optimum 108.30); on 4 + 4 servers (seed 4, gamma1 <= 100) it is weak
(599 after 30 s, against 567.6 and an optimum near 548): whole servers
matter more when there are few.  It is used here for its completion
slots only, not as a certified bound.

Completion-window search (:func:`window_search`)
------------------------------------------------
1. Solve the aggregated relaxation (node limit :data:`AGG_NODES`); read each
   admitted job's completion slot ``c_i``.
2. Solve the exact MILP of ``build_model`` with every completion indicator
   restricted to 0 except ``u[i, t]`` for ``c_i <= t <= c_i + WINDOW`` and the
   start's own completion slot of job ``i`` (a job the start and the
   relaxation both reject stays rejected), from the start as MIP start
   (node limit :data:`WINDOW_NODES`).  Every schedule of this restricted
   MILP is a schedule of (1)-(13), and the start is one of them, so the
   result never earns less than the start.  The indicators are restricted
   by an upper bound of 0, not by ``fix(0)``: with a fixed variable inside
   a row, HiGHS silently ignores the MIP start that
   :func:`optsched.core.solver.solve` sets (no "MIP start" line in its log):
   Pyomo's persistent interface treats a fixed variable as a parameter and
   re-applies its value as the column's bounds when the solve begins, which
   clears the solution set before (verified with the start passed and with
   that update switched off; tests/core/test_solver_start_fixed.py).  Measured
   on 4 + 4 servers, seed 4, gamma1 <= 100 (a restricted MILP of this
   kind): with ``fix`` HiGHS's incumbent after 300 nodes was 428.7 against
   the start's 513.7; with the bound it starts from 513.7.
3. The incumbent goes through the paper's checker; the better of it and the
   start is returned.

Measured on the two instances above (one thread, from the harness's start
before this search, 2026-11-27): 8 + 8, seed 1: 96.34 -> 104.44 in 38 s in
all (optimum 108.30); 4 + 4, seed 4: 392.9 -> 489.8 in 39 s (the MIP
neighbourhood search after it reaches 510.2; given 600 s from the
harness's start, HiGHS reaches 531.1 and bounds the optimum by 550.3).
Neither restricted solve is proven within its node limit.

Determinism: both solves have node limits and a seconds cap
(:data:`CAP_S`) above what they take on Fig. 5's grid at 50 jobs (under 80 s
for both together); within the cap the result depends on the instance and
the start only.  On larger instances the cap is reached (``T = 30``, 20 +
20 servers: both solves), which is why :mod:`optsched.oasis.paper` runs the
search only up to ``WINDOW_MAX_CELLS`` slots times servers.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import pyomo.environ as pyo

from optsched.core.solver import solve
from optsched.oasis.check import check
from optsched.oasis.instance import OasisInstance
from optsched.oasis.schedule import OasisSchedule

from .oasis import (
    HIGHS_OPTIONS,
    build_model,
    extract_schedule,
    job_limits,
    start_values,
)

__all__ = ["WindowResult", "build_aggregate", "completion_slots", "window_search"]

#: Slots a job may complete after the aggregated relaxation's completion slot.
#: 1 measured against 2 on 8 + 8 servers, 50 jobs, seed 1, with the first
#: version of this search (whose restricted solve ran without its MIP start,
#: see the module docstring): 106.22 proven in 8 s against 104.41 unproven
#: after 60 s.
WINDOW = 1
#: HiGHS node limits of the aggregated and of the restricted solve, and the
#: seconds cap of each (far above the measured solves: determinism).
AGG_NODES, WINDOW_NODES, CAP_S = 2000, 2000, 120.0
#: Suffix of the ``algorithm`` name of a schedule this search improved.
SUFFIX = "+win"


def build_aggregate(inst: OasisInstance) -> pyo.ConcreteModel:
    """The aggregated relaxation of (1)-(13) (module docstring): a maximisation
    model with ``x[i]``, ``u[i, t]``, ``n[i, t]``, ``p[i, t]`` and objective ``obj``."""
    T, R = inst.n_slots, inst.n_resources
    a = inst.arrival
    nmax, W, first, live = job_limits(inst)
    jt = [(i, t) for i in live for t in range(int(a[i]), T + 1)]
    ut = [(i, t) for i in live for t in range(int(first[i]), T + 1)]
    m = pyo.ConcreteModel(name="oasis_aggregate")
    m.x = pyo.Var(live, domain=pyo.Binary)
    m.u = pyo.Var(ut, domain=pyo.Binary)
    m.n = pyo.Var(
        jt, domain=pyo.NonNegativeIntegers, bounds=lambda _, i, t: (0, int(nmax[i]))
    )
    m.p = pyo.Var(
        jt, domain=pyo.NonNegativeIntegers, bounds=lambda _, i, t: (0, int(nmax[i]))
    )
    m.obj = pyo.Objective(
        expr=pyo.quicksum(float(inst.utility(i, t - a[i])) * m.u[i, t] for i, t in ut),
        sense=pyo.maximize,
    )
    m.rows = pyo.ConstraintList()
    add = m.rows.add
    for i in live:
        slots = range(int(a[i]), T + 1)
        done = range(int(first[i]), T + 1)
        add(pyo.quicksum(m.u[i, t] for t in done) == m.x[i])  # (8)
        add(
            pyo.quicksum(m.n[i, t] for t in slots) == int(W[i]) * m.x[i]
        )  # (2), no surplus
        for t in slots:
            later = pyo.quicksum(m.u[i, s] for s in range(max(t, int(first[i])), T + 1))
            add(m.n[i, t] <= int(nmax[i]) * later)  # (3), (8)
            add(float(inst.b[i]) * m.n[i, t] <= float(inst.B[i]) * m.p[i, t])  # (6)
            add(m.p[i, t] <= m.n[i, t])  # (7)
            if t >= first[i]:
                add(m.n[i, t] >= m.u[i, t])  # (8)
                if t < T:  # c8_work_by_completion
                    work = pyo.quicksum(m.n[i, s] for s in range(int(a[i]), t + 1))
                    fin = pyo.quicksum(m.u[i, s] for s in range(int(first[i]), t + 1))
                    add(work >= int(W[i]) * fin)
    cw, cp = inst.c_worker.sum(axis=0), inst.c_ps.sum(axis=0)
    for t in range(1, T + 1):
        js = [i for i in live if a[i] <= t]
        for r in range(R):  # (4), (5) summed over the servers
            if any(inst.w[i, r] > 0 for i in js):
                add(
                    pyo.quicksum(float(inst.w[i, r]) * m.n[i, t] for i in js)
                    <= float(cw[r])
                )
            if any(inst.s[i, r] > 0 for i in js):
                add(
                    pyo.quicksum(float(inst.s[i, r]) * m.p[i, t] for i in js)
                    <= float(cp[r])
                )
    return m


def completion_slots(model: pyo.ConcreteModel) -> dict[int, int]:
    """Job -> completion slot of a solved :func:`build_aggregate` (admitted jobs only)."""
    return {
        int(i): int(t)
        for (i, t), v in model.u.items()
        if v.value is not None and v.value > 0.5
    }


@dataclass(frozen=True)
class WindowResult:
    """What :func:`window_search` did: the aggregated relaxation's status and
    value, the restricted MILP's status and checked value, the start's, seconds.

    The statuses are :func:`optsched.core.solver.solve`'s, or ``"empty"``
    when no job can finish within ``T`` (no solve; both values 0)."""

    aggregate_status: str
    aggregate_objective: float
    window_status: str
    window_objective: float
    start_objective: float
    runtime: float


def window_search(
    inst: OasisInstance, start: OasisSchedule, *, window: int = WINDOW
) -> tuple[OasisSchedule, WindowResult]:
    """The completion-window search of the module docstring from ``start``.

    Parameters
    ----------
    inst
        The instance.
    start
        A schedule of ``inst`` that passes the checker (kept feasible in
        the restricted MILP, and its MIP start).
    window
        Slots after the relaxation's completion slot a job may complete in
        (``>= 0``; ``window >= T`` restricts nothing but the rejections).

    Returns
    -------
    tuple
        The better checked schedule of the restricted MILP's incumbent and
        ``start`` (named ``<start's algorithm>+win`` when it improved), and
        a :class:`WindowResult`.
    """
    if window < 0:
        raise ValueError(f"window: must be >= 0, got {window!r}")
    began = time.perf_counter()
    start_obj = float(check(inst, start).objective)
    agg = build_aggregate(inst)
    if not len(agg.x):  # no job can finish: nothing to search
        info = WindowResult("empty", 0.0, "empty", 0.0, start_obj, 0.0)
        return start, dataclasses.replace(info, runtime=time.perf_counter() - began)
    options = {**HIGHS_OPTIONS, "mip_max_nodes": AGG_NODES}
    res_a = solve(agg, time_limit=CAP_S, threads=1, options=options)
    comp = completion_slots(agg) if res_a.has_solution else {}
    model = build_model(inst)
    values = start_values(model, inst, start)
    for (i, t), var in model.u.items():
        c = comp.get(int(i))
        keep = values[var] > 0.5 or (c is not None and c <= t <= c + window)
        if not keep:  # a bound, not fix(): see the module docstring
            var.setub(0)
    options = {**HIGHS_OPTIONS, "mip_max_nodes": WINDOW_NODES}
    res_w = solve(model, time_limit=CAP_S, threads=1, options=options, start=values)
    best, win_obj = start, math.nan
    if res_w.has_solution:
        cand = extract_schedule(model, inst)
        win_obj = float(check(inst, cand).objective)
        if win_obj > start_obj + 1e-9 * max(1.0, abs(start_obj)):
            name = start.algorithm or "start"
            name = name if name.endswith(SUFFIX) else name + SUFFIX
            best = dataclasses.replace(cand, algorithm=name)
    info = WindowResult(
        aggregate_status=res_a.status,
        aggregate_objective=float(res_a.objective) if res_a.has_solution else math.nan,
        window_status=res_w.status,
        window_objective=win_obj,
        start_objective=start_obj,
        runtime=time.perf_counter() - began,
    )
    return best, info
