"""Reset events: jobs progressing in time under a static or recomputed policy (Fig. 17).

Liu et al. (TPDS 2024), Sec. V-C and VI-B2: "the parallelization policy will
be recomputed when a *reset* event occurs"; Fig. 17 compares, for every
scheme, the *static* policy (one placement at submission, kept until every
job is done) with the *dynamic* one (recomputed among the remaining jobs at
every job completion), by average JCT and makespan (largest JCT), and both
against Gavel's round-based scheduling (Figs. 17-18).

Model
-----
* All jobs are submitted at time 0; the JCT of a job is its completion time.
* Under a placement, job ``i`` progresses at ``1 / (l_i^[p] + l_i^[c])``
  epochs per second, the per-epoch latencies (2)-(6) recomputed by the
  independent checker (:func:`optsched.hetero.check.check`) on the **true**
  throughput with the placement's actual workloads (equal or proportional
  split).  So a job alone under a static placement finishes at exactly its
  JCT (7) ``T_i (l_i^[p] + l_i^[c])``.
* Static: the placement is computed once on the instance; workers of a
  finished job stay idle.  Dynamic: at every completion the policy is run
  again on the remaining jobs with all ``K`` workers ((8c) holds again),
  and the remaining jobs continue from where they are.
* Policies are the paper's algorithms: a name of
  ``optsched.hetero.paper.PAPER.algorithms`` or any callable
  ``(instance, **params) -> HeteroPlacement``.  The name ``"gavel"`` selects
  Gavel's round-based mechanism (:func:`simulate_gavel`), which is how the
  paper evaluates Gavel; pass the callable
  :func:`optsched.hetero.baselines.gavel` to get its static P1 reading
  instead.

Remaining work
--------------
The state of job ``i`` is its number of remaining epochs ``w_i`` (a real
number in ``(0, T_i]``; a job stopped mid-epoch keeps the fraction it has
not done).  At a reset, the policy sees a sub-instance of the remaining
jobs (all workers, same throughputs and links) whose ``epochs`` field is
``w_i`` expressed as an integer number of units of ``max_j w_j / 10^9``
epochs (``HeteroInstance`` validates epochs as integers).  A common unit
scales every JCT by the same factor, which leaves every decision of the
paper's algorithms unchanged (the argmin of (8), Optimus's arg-max gain,
JPS's priority order (Alg. 3 line 1), rule (34) and the fairness (33) are
scale-free) up to a relative rounding below ``5e-10 max_j w_j / w_i``; the
JCTs the policy reports in its ``meta`` are in those units.  At time 0 the
policy sees the instance itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .baselines import gavel_allocation, gavel_round
from .check import check
from .instance import HeteroInstance, Job
from .schedule import HeteroPlacement

#: Work unit of the sub-instances: the largest remaining job has this many units.
UNITS = 10**9

Policy = Callable[..., HeteroPlacement]


@dataclass(frozen=True, eq=False)
class Segment:
    """An interval during which the placement (or Gavel round) does not change.

    Attributes
    ----------
    start, end
        Seconds since submission.
    active
        Jobs not yet finished at ``start`` (instance indices).
    assignment
        Job of every worker (K,), ``-1`` for an idle worker.
    epoch_time
        Seconds per epoch ``l_i^[p] + l_i^[c]`` of every job (S,), ``inf``
        for a job without worker in this segment (finished or waiting).
    remaining
        Remaining epochs ``w_i`` at ``start`` (S,).
    category
        ``(K_i)`` of the active jobs when the policy reports one, else None.
    """

    start: float
    end: float
    active: tuple[int, ...]
    assignment: np.ndarray
    epoch_time: np.ndarray
    remaining: np.ndarray
    category: tuple[int, ...] | None = None


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Completion times of one simulated run.

    Attributes
    ----------
    policy
        Name of the policy.
    dynamic
        True when the policy was recomputed at every completion.
    completion
        JCT of every job (S,), seconds.
    segments
        The piecewise-constant schedule.
    decisions
        Number of policy evaluations (placements, or Gavel allocations).
    decision_time
        Wall-clock seconds spent in the policy.
    """

    policy: str
    dynamic: bool
    completion: np.ndarray
    segments: list[Segment] = field(repr=False)
    decisions: int
    decision_time: float

    @property
    def avg_jct(self) -> float:
        """Average JCT (8), seconds."""
        return float(self.completion.mean())

    @property
    def makespan(self) -> float:
        """Largest JCT (Fig. 17), seconds."""
        return float(self.completion.max())


def remaining_instance(
    inst: HeteroInstance, jobs: Sequence[int], remaining: Sequence[float] | np.ndarray
) -> HeteroInstance:
    """Sub-instance of ``jobs`` with ``remaining`` epochs, in units of ``max / 10^9`` epochs.

    All workers, throughput rows (true and predicted), links and the
    communication switch are kept; see the module docstring.
    """
    idx = [int(i) for i in jobs]
    w = np.asarray(remaining, dtype=float)
    if len(idx) == 0 or w.shape != (len(idx),) or not (w > 0).all():
        raise ValueError("remaining_instance: need positive remaining work per job")
    units = np.maximum(1, np.rint(w / w.max() * UNITS)).astype(np.int64)
    pred = inst.predicted
    return replace(
        inst,
        jobs=tuple(
            Job(
                inst.jobs[i].name,
                inst.jobs[i].dataset_size,
                int(u),
                inst.jobs[i].model_size_mb,
            )
            for i, u in zip(idx, units, strict=True)
        ),
        throughput=tuple(inst.throughput[i] for i in idx),
        predicted=None if pred is None else tuple(pred[i] for i in idx),
        meta={"remaining_of": idx, "epoch_unit": float(w.max() / UNITS)},
    )


def epoch_time(inst: HeteroInstance, placement: HeteroPlacement) -> np.ndarray:
    """Seconds per epoch ``l_i^[p] + l_i^[c]`` of every job, as recomputed by the checker."""
    ev = check(inst, placement)
    return ev.compute_latency + ev.comm_latency


def _resolve(policy: str | Policy) -> tuple[str, Policy]:
    if isinstance(policy, str):
        from .paper import PAPER

        if policy not in PAPER.algorithms:
            known = ", ".join(PAPER.algorithms)
            raise KeyError(f"unknown policy {policy!r} (known: {known})")
        return policy, PAPER.algorithms[policy]
    if not callable(policy):
        raise TypeError(f"policy: must be a name or a callable, got {policy!r}")
    return getattr(policy, "__name__", "policy"), policy


def simulate(
    inst: HeteroInstance,
    policy: str | Policy = "has",
    *,
    dynamic: bool = True,
    params: Mapping[str, Any] | None = None,
    round_s: float = 360.0,
) -> SimulationResult:
    """Run the jobs of ``inst`` to completion under ``policy``, with or without reset events.

    Parameters
    ----------
    inst
        The instance; every job is submitted at time 0.
    policy
        An algorithm name of ``PAPER.algorithms`` (``"has"``, ``"jps"``,
        ``"optimus"``, ...), ``"gavel"`` for Gavel's rounds
        (:func:`simulate_gavel`), or a callable ``(inst, **params)`` returning
        a :class:`~optsched.hetero.schedule.HeteroPlacement`.
    dynamic
        Recompute the policy among the remaining jobs at every completion
        (reset events); False keeps the placement computed at time 0.
    params
        Keyword arguments for the policy (e.g. ``{"seed": 0, "params":
        JpsParams(n_samples=40)}`` for JPS, ``{"scale_factor": [1, 5, 5, 5]}``
        for Gavel's rounds).
    round_s
        Round length of Gavel (seconds); ignored by placement policies.

    Returns
    -------
    SimulationResult
        Completion time of every job, average JCT, makespan and segments.
    """
    if isinstance(policy, str) and policy in ROUND_BASED:
        return ROUND_BASED[policy](
            inst, dynamic=dynamic, params=params, round_s=round_s
        )
    name, fn = _resolve(policy)
    kw = dict(params or {})
    S = inst.n_jobs
    w = inst.epochs.astype(float).copy()
    completion = np.full(S, np.nan)
    active = list(range(S))
    segments: list[Segment] = []
    t = 0.0
    t0 = time.perf_counter()
    placement = fn(inst, **kw)
    spent = time.perf_counter() - t0
    decisions = 1
    per_epoch = epoch_time(inst, placement)  # indexed by instance job
    assignment = np.asarray(placement.assignment, dtype=np.int64)
    category = placement.category
    while active:
        dt_i = {i: w[i] * per_epoch[i] for i in active}
        dt = min(dt_i.values())
        finishing = [i for i in active if dt_i[i] <= dt * (1 + 1e-12)]
        et = np.full(S, np.inf)
        et[active] = [per_epoch[i] for i in active]
        segments.append(
            Segment(t, t + dt, tuple(active), assignment.copy(), et, w.copy(), category)
        )
        for i in active:
            w[i] = 0.0 if i in finishing else w[i] - dt / per_epoch[i]
        t += dt
        for i in finishing:
            completion[i] = t
        active = [i for i in active if i not in finishing]
        if not active:
            break
        if dynamic:
            sub = remaining_instance(inst, active, w[active])
            t0 = time.perf_counter()
            p = fn(sub, **kw)
            spent += time.perf_counter() - t0
            decisions += 1
            sub_epoch = epoch_time(sub, p)
            per_epoch = np.full(S, np.inf)
            per_epoch[active] = sub_epoch
            sub_assign = np.asarray(p.assignment, dtype=np.int64)
            assignment = np.where(
                sub_assign >= 0, np.asarray(active)[np.maximum(sub_assign, 0)], -1
            )
            category = p.category
        else:
            assignment = np.where(np.isin(assignment, active), assignment, -1)
            category = None
    return SimulationResult(name, dynamic, completion, segments, decisions, spent)


def _round_epoch_time(inst: HeteroInstance, job: int, workers: np.ndarray) -> float:
    """Seconds per epoch of ``job`` alone on ``workers`` with the equal split (checker)."""
    ws = [int(k) for k in workers]
    pred = inst.predicted
    one = replace(
        inst,
        jobs=(inst.jobs[job],),
        workers=tuple(inst.workers[k] for k in ws),
        throughput=(tuple(inst.throughput[job][k] for k in ws),),
        predicted=None if pred is None else (tuple(pred[job][k] for k in ws),),
        meta={},
    )
    n = len(ws)
    sigma = np.ones((1, n), dtype=np.int64)
    placement = HeteroPlacement(
        sigma=sigma, workload=np.full((1, n), inst.jobs[job].dataset_size / n)
    )
    return float(epoch_time(one, placement)[0])


def simulate_gavel(
    inst: HeteroInstance,
    *,
    dynamic: bool = True,
    params: Mapping[str, Any] | None = None,
    round_s: float = 360.0,
) -> SimulationResult:
    """Gavel's round-based scheduling (Sec. VI-A, Figs. 17-18).

    Every ``round_s`` seconds (Gavel's default round is 6 minutes) the
    round mechanism :func:`~optsched.hetero.baselines.gavel_round` places
    jobs on ``scale_factor_i`` GPUs of one type according to the
    allocation :func:`~optsched.hetero.baselines.gavel_allocation`; a
    scheduled job progresses at its equal-split epoch rate (checker) for
    the round, waiting jobs do not progress.  A job that finishes inside a
    round leaves its GPUs idle until the round ends (Gavel assigns GPUs per
    round).  With ``dynamic`` (default) the allocation is recomputed among
    the remaining jobs after every round in which a job finished, and the
    received-time counters restart (Gavel recomputes on job completion);
    otherwise the first allocation is kept and finished jobs are skipped.

    ``params`` may hold ``scale_factor``: one int for every job, or one value
    per job of ``inst`` (default: the smallest number of GPUs of a type, 5
    on the 15-worker testbed).
    """
    if not round_s > 0:
        raise ValueError(f"round_s: must be > 0, got {round_s!r}")
    kw = dict(params or {})
    unknown = set(kw) - {"scale_factor"}
    if unknown:
        raise TypeError(f"gavel: unknown parameters {sorted(unknown)}")
    sf = kw.get("scale_factor")
    S = inst.n_jobs
    w = inst.epochs.astype(float).copy()
    completion = np.full(S, np.nan)
    active = list(range(S))
    segments: list[Segment] = []

    def allocate(jobs: list[int]):
        sub = remaining_instance(inst, jobs, w[jobs])
        s: Any  # None, one int for every job, or one per job
        if sf is None or isinstance(sf, int | np.integer):
            s = sf
        else:
            s = [int(sf[i]) for i in jobs]
        return gavel_allocation(sub, s)

    t0 = time.perf_counter()
    alloc = allocate(active)
    spent = time.perf_counter() - t0
    decisions = 1
    members = list(active)  # jobs of the allocation, in its order
    recv = np.zeros_like(alloc.x)
    t = 0.0
    while active:
        mask = [i in active for i in members]
        sub_assign = gavel_round(alloc, recv, mask)
        assignment = np.where(
            sub_assign >= 0, np.asarray(members)[np.maximum(sub_assign, 0)], -1
        )
        et = np.full(S, np.inf)
        for i in active:
            ws = np.flatnonzero(assignment == i)
            if ws.size:
                et[i] = _round_epoch_time(inst, i, ws)
        segments.append(
            Segment(t, t + round_s, tuple(active), assignment, et, w.copy())
        )
        finished = []
        for pos, i in enumerate(members):
            if i not in active or not np.isfinite(et[i]):
                continue
            need = w[i] * et[i]
            ran = min(need, round_s)
            if need <= round_s * (1 + 1e-12):
                w[i] = 0.0
                completion[i] = t + need
                finished.append(i)
            else:
                w[i] -= round_s / et[i]
            ws = np.flatnonzero(assignment == i)
            recv[pos, alloc.type_of[ws[0]]] += ran
        active = [i for i in active if i not in finished]
        t += round_s
        if finished and active and dynamic:
            t0 = time.perf_counter()
            alloc = allocate(active)
            spent += time.perf_counter() - t0
            decisions += 1
            members = list(active)
            recv = np.zeros_like(alloc.x)
    return SimulationResult("gavel", dynamic, completion, segments, decisions, spent)


#: Policies that are not placements but round-based schedulers, by name.
ROUND_BASED: dict[str, Callable[..., SimulationResult]] = {"gavel": simulate_gavel}
