"""MIP neighbourhood search for OASiS: re-optimise a few jobs exactly, keep the rest.

A better incumbent than the move-based search of :mod:`optsched.oasis.local_search` on
large instances (50 jobs, T = 30, 20 + 20 servers), where HiGHS spends its
60 s at the root node and the greedy insertions leave 5-8% to the bound.

One round (:func:`lns_round`): pick ``k`` jobs (a random job and the jobs
that arrive closest to it, admitted or not), take them out of the
incumbent, and solve the exact MILP of :func:`optsched.models.oasis.build_model`
for these ``k`` jobs alone in the capacity the other jobs leave
(``used=``), from their current rows as MIP start.  HiGHS's incumbent of
that sub-problem, put back beside the untouched jobs, is a schedule of the
whole instance; it goes through the paper's checker
(:func:`~.check.check`), and replaces the incumbent only when the checker
says it earns more.  A sub-problem holds every schedule of the ``k`` jobs
that fits beside the others (and the current one, its start), so a round
never loses value.

Determinism: each sub-solve has a node limit (``mip_max_nodes``) and a
time cap far above what the measured sub-problems take; within the cap the
result depends on the seed and the instance only.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np

from optsched.core.errors import InfeasibleScheduleError
from optsched.core.local_search import SearchTrace

from .check import check
from .instance import OasisInstance
from .local_search import usage
from .schedule import OasisSchedule

#: Jobs re-optimised per round, rounds, HiGHS nodes and seconds per sub-solve.
#: 14 x 15 was measured against 8 x 20 and 12 x 20 on 50 jobs, T = 30,
#: 20 + 20 servers, seeds 0-4 (docs/oasis.md): the larger neighbourhood
#: ended highest on every seed, in 100-300 s (under load).
K_JOBS, ROUNDS, MAX_NODES, SUB_CAP_S = 14, 15, 200, 60.0
#: Suffix of the ``algorithm`` name of a schedule this search improved.
SUFFIX = "+lns"


def subinstance(inst: OasisInstance, jobs: Sequence[int]) -> OasisInstance:
    """``inst`` with only ``jobs`` (ascending indices: arrival order kept)."""
    return dataclasses.replace(inst, jobs=tuple(inst.jobs[i] for i in jobs))


def _rows(sched: OasisSchedule, jobs: Sequence[int], name: str) -> OasisSchedule:
    idx = list(jobs)
    return OasisSchedule(
        admitted=np.asarray(sched.admitted, dtype=bool)[idx].copy(),
        workers=np.asarray(sched.workers)[idx].copy(),
        ps=np.asarray(sched.ps)[idx].copy(),
        algorithm=name,
    )


def _merge(
    sched: OasisSchedule, jobs: Sequence[int], part: OasisSchedule, name: str
) -> OasisSchedule:
    idx = list(jobs)
    admitted = np.asarray(sched.admitted, dtype=bool).copy()
    workers = np.asarray(sched.workers).copy()
    ps = np.asarray(sched.ps).copy()
    admitted[idx] = part.admitted
    workers[idx] = part.workers
    ps[idx] = part.ps
    return OasisSchedule(admitted=admitted, workers=workers, ps=ps, algorithm=name)


def pick(inst: OasisInstance, rng: np.random.Generator, k: int) -> list[int]:
    """A random job and the ``k - 1`` jobs arriving closest to it (sorted)."""
    n = inst.n_jobs
    if n <= k:
        return list(range(n))
    j = int(rng.integers(n))
    a = np.asarray(inst.arrival, dtype=float)
    near = np.argsort(np.abs(a - a[j]) + rng.random(n) * 0.5, kind="stable")
    return sorted(int(i) for i in near[:k])


def lns_round(
    inst: OasisInstance, sched: OasisSchedule, jobs: Sequence[int]
) -> OasisSchedule | None:
    """Re-optimise ``jobs`` beside the others; the merged schedule (unchecked) or None."""
    from optsched.core.solver import solve
    from optsched.models.oasis import (
        HIGHS_OPTIONS,
        build_model,
        extract_schedule,
        start_values,
    )

    sub = subinstance(inst, jobs)
    used = usage(inst, sched, drop=jobs)
    model = build_model(sub, used=used)
    if not model._oasis["live"]:
        return None
    current = _rows(sched, jobs, "current")
    values = start_values(model, sub, current)
    options = {**HIGHS_OPTIONS, "mip_max_nodes": MAX_NODES}
    res = solve(model, time_limit=SUB_CAP_S, threads=1, options=options, start=values)
    if not res.has_solution:
        return None
    part = extract_schedule(model, sub)
    return _merge(sched, jobs, part, _name(sched))


def window(inst: OasisInstance, start: OasisSchedule) -> OasisSchedule:
    """The completion-window search of :mod:`optsched.models.oasis_window`
    from ``start`` (checked, never below ``start``; Pyomo imported on use)."""
    from optsched.models.oasis_window import window_search

    return window_search(inst, start)[0]


def _name(sched: OasisSchedule) -> str:
    name = sched.algorithm or "start"
    return name if name.endswith(SUFFIX) else name + SUFFIX


def improve(
    inst: OasisInstance,
    start: OasisSchedule,
    *,
    rounds: int = ROUNDS,
    k: int = K_JOBS,
    seed: int = 0,
) -> tuple[OasisSchedule, SearchTrace]:
    """``rounds`` rounds of :func:`lns_round` from ``start`` (checked); the best schedule.

    Returns the best checked schedule (never worse than ``start``) and a
    trace of the accepted rounds.
    """
    began = time.perf_counter()
    rng = np.random.default_rng(seed)
    best = start
    start_obj = best_obj = float(check(inst, best).objective)
    accepted: list[tuple[str, float]] = []
    n_infeasible = 0
    for _ in range(rounds):
        jobs = pick(inst, rng, k)
        cand = lns_round(inst, best, jobs)
        if cand is None:
            continue
        try:
            obj = float(check(inst, cand).objective)
        except InfeasibleScheduleError:
            n_infeasible += 1  # never seen: a model bug; the candidate is dropped
            continue
        if obj > best_obj + 1e-9 * max(1.0, abs(best_obj)):
            best, best_obj = cand, obj
            accepted.append((f"lns {jobs}", best_obj))
    trace = SearchTrace(
        start=start_obj,
        objective=best_obj,
        accepted=tuple(accepted),
        n_candidates=rounds,
        n_infeasible=n_infeasible,
        stop="max_evaluations",
        runtime=time.perf_counter() - began,
    )
    return best, trace
