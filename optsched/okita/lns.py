r"""MIP neighbourhood search for Okita: re-optimise a few jobs exactly, keep the rest.

Why.  On 5 sites x 10 jobs x 20 slots the incumbent HiGHS reaches in 60 s
(one thread) is often its MIP start (``default_start``, the plan-based
local search of :mod:`optsched.okita.local_search`; the okita rows of
``benchmarks/data/frontier.csv``), and even in 600 s it improves little:
``generate(4, 5, 10, 20)``, start 3,888.5, HiGHS 3,783.4 after 600 s, this
search 3,668.6 after 15 rounds of 3 jobs (106 s; 2 shared cores, load 3).
The MILP of 3 jobs in the capacity the other jobs leave is small (its
node limit, :data:`MAX_NODES`, or a few seconds).

One round (:func:`lns_round`): pick ``k`` jobs (:func:`pick`: a random job
and the jobs whose windows ``[a_i, t_i]`` in the incumbent overlap its
window most), take them out of the incumbent and solve the exact MILP of
:func:`optsched.models.okita.build_model` (formulation v3: v2 with the
valid rows of :func:`optsched.models.okita.add_cuts`) for these ``k``
jobs alone (:func:`subinstance`) with the *leftover-capacity rows*
(:func:`add_leftover_rows`)

.. math::

   \sum_{i \in S} m_i^k \, y_{i,r,t} + n_i^k \, s_{i,r,t} \le C_r^k - U_{r,t}^k
   \qquad \forall r, t, k,

where ``S`` are the freed jobs and ``U_{r,t}^k`` what the other jobs' workers
and PS use on site ``r`` in slot ``t`` (:func:`usage`), from the freed jobs'
current rows as MIP start.  HiGHS's incumbent of that sub-problem, put back
beside the untouched jobs (:func:`merge`), is a schedule of the whole
instance; it goes through the paper's checker (:func:`~.check.check`) and
replaces the incumbent only when the checker says it costs less.

Why a merged point is feasible.  Every constraint of (2) but (2d) is per
job ((2a), (2b), (2c), (2e), (2f), (2g), Sec. III-A), and the sub-model
writes them exactly for the freed jobs (the module docstrings of
:mod:`optsched.models.okita` and, for the added rows, which hold at every
schedule, "Formulation v3" there); the untouched jobs keep their
checked rows.
(2d) of the whole instance is ``U_{r,t}^k + sum_{i in S} (...) <= C_r^k``,
which is the leftover row.  The sub-model's own (2d) rows (full ``C_r^k``)
and worker bounds ``Ybar`` are implied by the leftover rows, so they cut
nothing off.  Conversely the freed jobs' current rows are a point of the
sub-model (:func:`optsched.models.okita.start_values`), so a round never
loses cost; with every job freed the sub-model is the full MILP.  The
checker decides in any case (a candidate it rejects is dropped and
counted).

Determinism: every sub-solve has a node limit (:data:`MAX_NODES`) and a
time cap (:data:`SUB_CAP_S`) far above what the measured sub-problems take;
within the cap the result depends on the seed and the instance only.
``time_limit`` of :func:`improve` (wall clock) stops between rounds.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence

import numpy as np
import pyomo.environ as pyo

from optsched.core.errors import InfeasibleScheduleError
from optsched.core.local_search import SearchTrace

from .check import TOL, check
from .instance import OkitaInstance
from .schedule import OkitaSchedule

#: Jobs re-optimised per round, rounds, HiGHS nodes and seconds per sub-solve.
#: Measured on ``generate(4, 5, 10, 20)`` from ``default_start`` (3,888.5), 60 s
#: each (2 shared cores, load 3): k = 2, 500 nodes: 3,653.5 (26 rounds); k = 3,
#: 200 nodes: 3,677.5 (8 rounds); k = 4, 100 nodes: 3,757.6 (6 rounds).
K_JOBS, ROUNDS, MAX_NODES, SUB_CAP_S = 2, 30, 500, 60.0
#: Suffix of the ``algorithm`` name of a schedule this search improved.
SUFFIX = "+lns"
#: Formulation of the sub-model (:data:`optsched.models.okita.FORMULATIONS`):
#: v3 = v2 with the valid rows of :func:`optsched.models.okita.add_cuts`
#: (not the dominance row ``last_load``, which the current rows may break:
#: they must stay a point of the sub-model).
FORMULATION = "v3"


def subinstance(inst: OkitaInstance, jobs: Sequence[int]) -> OkitaInstance:
    """``inst`` with only ``jobs`` (ascending indices: arrival order kept)."""
    return dataclasses.replace(inst, jobs=tuple(inst.jobs[i] for i in jobs))


def usage(
    inst: OkitaInstance, sched: OkitaSchedule, drop: Sequence[int] = ()
) -> np.ndarray:
    """``U[t, r, k]`` ((T + 1) x R x K): what the jobs not in ``drop`` use.

    Workers ``m_i^k y_i^r(t)`` plus PS ``n_i^k s_i^r(t)`` of every job of
    ``sched`` outside ``drop`` (row ``t = 0`` is unused).
    """
    out = np.zeros((inst.n_slots + 1, inst.n_sites, inst.n_resources))
    skip = set(int(i) for i in drop)
    for i, t, r, c in np.asarray(sched.workers, dtype=np.int64).reshape(-1, 4):
        if int(i) not in skip and c > 0:
            out[t, r] += inst.m[i] * c
    for i, t, r in np.asarray(sched.ps, dtype=np.int64).reshape(-1, 3):
        if int(i) not in skip:
            out[t, r] += inst.n[i]
    return out


def restrict(sched: OkitaSchedule, jobs: Sequence[int], name: str) -> OkitaSchedule:
    """The rows of ``jobs`` in ``sched``, job ``jobs[j]`` renumbered ``j``."""
    new = {int(i): j for j, i in enumerate(jobs)}

    def rows(arr: np.ndarray, width: int) -> list[list[int]]:
        out = []
        for row in np.asarray(arr, dtype=np.int64).reshape(-1, width).tolist():
            if row[0] in new:
                out.append([new[row[0]], *row[1:]])
        return out

    return OkitaSchedule.build(
        rows(sched.workers, 4), rows(sched.ps, 3), rows(sched.data, 5), algorithm=name
    )


def merge(
    sched: OkitaSchedule, jobs: Sequence[int], part: OkitaSchedule, name: str
) -> OkitaSchedule:
    """``sched`` with the rows of ``jobs`` replaced by ``part`` (numbered as
    :func:`restrict` numbers them)."""
    old = [int(i) for i in jobs]
    freed = set(old)

    def rows(mine: np.ndarray, theirs: np.ndarray, width: int) -> list[list[int]]:
        keep = [
            row
            for row in np.asarray(mine, dtype=np.int64).reshape(-1, width).tolist()
            if row[0] not in freed
        ]
        back = [
            [old[row[0]], *row[1:]]
            for row in np.asarray(theirs, dtype=np.int64).reshape(-1, width).tolist()
        ]
        return sorted(keep + back)

    return OkitaSchedule.build(
        rows(sched.workers, part.workers, 4),
        rows(sched.ps, part.ps, 3),
        rows(sched.data, part.data, 5),
        algorithm=name,
    )


def add_leftover_rows(
    model: pyo.ConcreteModel, sub: OkitaInstance, used: np.ndarray
) -> None:
    """Add the leftover-capacity rows ``lns_capacity[r, t, k]`` (module docstring).

    ``used`` is :func:`usage` of the untouched jobs.  Also lowers each
    ``y[i, r, t]``'s upper bound to the workers that fit in the leftover
    capacity (implied by the rows, so nothing is cut off) with the
    checker's tolerance on capacities.
    """
    a = sub.arrival
    cap = sub.capacity
    rows = {}
    for r in range(sub.n_sites):
        for t in range(1, sub.n_slots + 1):
            left = cap[r] - used[t, r] + TOL * np.maximum(1.0, cap[r])
            jobs = [i for i in range(sub.n_jobs) if a[i] <= t]
            for i in jobs:
                pos = sub.m[i] > 0
                fit = math.floor(np.min(np.maximum(left[pos], 0.0) / sub.m[i, pos]))
                var = model.y[i, r, t]
                if fit < (var.ub if var.ub is not None else math.inf):
                    var.setub(max(fit, 0))
            for k in range(sub.n_resources):
                most = sum(
                    sub.m[i, k] * (model.y[i, r, t].ub or 0) + sub.n[i, k] for i in jobs
                )
                if most <= left[k]:
                    continue
                rows[r, t, k] = pyo.quicksum(
                    float(sub.m[i, k]) * model.y[i, r, t]
                    + float(sub.n[i, k]) * model.s[i, r, t]
                    for i in jobs
                    if sub.m[i, k] > 0 or sub.n[i, k] > 0
                ) <= float(cap[r, k] - used[t, r, k])
    model.lns_capacity = pyo.Constraint(
        list(rows), rule=lambda _, r, t, k: rows[r, t, k]
    )


def lns_round(
    inst: OkitaInstance,
    sched: OkitaSchedule,
    jobs: Sequence[int],
    *,
    max_nodes: int = MAX_NODES,
    time_cap: float = SUB_CAP_S,
) -> OkitaSchedule | None:
    """Re-optimise ``jobs`` beside the others; the merged schedule (unchecked) or None.

    None when HiGHS finds no point of the sub-problem (never expected: the
    current rows are one).
    """
    from optsched.core.solver import solve
    from optsched.models.okita import build_model, extract_schedule, start_values

    jobs = sorted(int(i) for i in jobs)
    sub = subinstance(inst, jobs)
    model = build_model(sub, formulation=FORMULATION)
    add_leftover_rows(model, sub, usage(inst, sched, drop=jobs))
    try:
        values = start_values(model, sub, restrict(sched, jobs, "current"))
    except ValueError:  # more workers than Ybar, or beyond a lowered bound
        values = None
    if values is not None:
        for var, val in values.items():
            if var.ub is not None and val > var.ub:
                values = None
                break
    options = {"mip_max_nodes": int(max_nodes)}
    res = solve(model, time_limit=time_cap, threads=1, options=options, start=values)
    if not res.has_solution:
        return None
    part = extract_schedule(model, sub)
    return merge(sched, jobs, part, _name(sched))


def _name(sched: OkitaSchedule) -> str:
    name = sched.algorithm or "start"
    return name if name.endswith(SUFFIX) else name + SUFFIX


def pick(
    inst: OkitaInstance, sched: OkitaSchedule, rng: np.random.Generator, k: int
) -> list[int]:
    """A random job and the ``k - 1`` jobs whose windows overlap its window most.

    Windows are ``[a_i, t_i]`` of ``sched``; ties are broken at random
    (``rng``).  Sorted, distinct, ``min(k, I)`` jobs.
    """
    n = inst.n_jobs
    if n <= k:
        return list(range(n))
    a = np.asarray(inst.arrival, dtype=float)
    done = np.asarray(sched.completion(n), dtype=float)
    done = np.where(done >= a, done, a)
    j = int(rng.integers(n))
    overlap = np.minimum(done, done[j]) - np.maximum(a, a[j]) + 1.0
    score = -np.maximum(overlap, 0.0) + np.abs(a - a[j]) * 1e-3 + rng.random(n) * 0.5
    score[j] = -math.inf
    return sorted(int(i) for i in np.argsort(score, kind="stable")[:k])


def improve(
    inst: OkitaInstance,
    start: OkitaSchedule,
    *,
    rounds: int = ROUNDS,
    k: int = K_JOBS,
    seed: int = 0,
    time_limit: float | None = None,
    max_nodes: int = MAX_NODES,
) -> tuple[OkitaSchedule, SearchTrace]:
    """``rounds`` rounds of :func:`lns_round` from ``start`` (checked); the best schedule.

    Parameters
    ----------
    inst
        The instance.
    start
        A schedule the checker accepts (strict (2c)).
    rounds, k, seed, max_nodes
        Rounds, jobs freed per round, the generator's seed of :func:`pick`,
        HiGHS nodes per sub-solve.
    time_limit
        Wall-clock seconds (None = none); checked before each round, so the
        search may overrun by one sub-solve (at most :data:`SUB_CAP_S`).

    Returns
    -------
    tuple
        The best checked schedule (never costlier than ``start``) and a
        trace of the accepted rounds (``stop`` is ``"time_limit"`` when the
        clock ended it, else ``"max_evaluations"``).

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker.
    """
    began = time.perf_counter()
    rng = np.random.default_rng(seed)
    best = start
    start_obj = best_obj = float(check(inst, best).objective)
    accepted: list[tuple[str, float]] = []
    n_infeasible = n_done = 0
    stop = "max_evaluations"
    for _ in range(rounds):
        if time_limit is not None and time.perf_counter() - began >= time_limit:
            stop = "time_limit"
            break
        jobs = pick(inst, best, rng, k)
        cand = lns_round(inst, best, jobs, max_nodes=max_nodes)
        n_done += 1
        if cand is None:
            continue
        try:
            obj = float(check(inst, cand).objective)
        except InfeasibleScheduleError:
            n_infeasible += 1  # never seen: a model bug; the candidate is dropped
            continue
        if obj < best_obj - 1e-9 * max(1.0, abs(best_obj)):
            best, best_obj = cand, obj
            accepted.append((f"lns {jobs}", best_obj))
    trace = SearchTrace(
        start=start_obj,
        objective=best_obj,
        accepted=tuple(accepted),
        n_candidates=n_done,
        n_infeasible=n_infeasible,
        stop=stop,
        runtime=time.perf_counter() - began,
    )
    return best, trace
