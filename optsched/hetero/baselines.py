"""Baselines of Liu et al. (TPDS 2024): exhaustive search and LAS (Sec. IV-A, VI-A).

Both enumerate every placement that satisfies (8b)-(8d) (each worker in
exactly one job, each job at least one worker) with the proportional split
(12).  Enumeration is exact but exponential; it is done up to worker
symmetry: workers with the same throughput column (and, when communication
counts, the same node) are interchangeable, so only how many workers of each
such class go to each job is enumerated (``prod_c C(n_c + S - 1, S - 1)``
placements instead of ``S^K``).  Instances whose enumeration exceeds
``max_placements`` raise :class:`~optsched.core.errors.SolverError`.

* :func:`exhaustive` ("exhaustive search", Sec. VI-A): minimises the average
  JCT (14) exactly; it is the optimum of P1 (8), since for a fixed
  ``sigma`` the split (12) minimises every job's straggler latency (3) and
  the communication term depends on ``sigma`` only.  Ties: first placement
  in enumeration order.
* :func:`las` (Least Attained Service as used in Sec. IV-A, after Tiresias):
  maximises ``min_i sum_k sigma_{i,k} rho_{i,k} / V_i^Equal`` with
  ``V_i^Equal = sum_k rho_{i,k} / S``, the throughput of job ``i`` with an
  equal ``1/S`` share of every worker (the computation term of Eq. (32)).
  Ties (normalised throughputs equal to 1e-9): leximin (the larger
  second-smallest ratio wins, and so on), then the lower average JCT (14),
  then enumeration order.  The max-min problem is NP-hard in general (it
  contains max-min fair allocation), hence enumeration.

Greedy and round-based baselines of Sec. VI-A (rules in their docstrings):
:func:`optimus` (one worker each, then largest marginal JCT gain, equal
split), :func:`optimus_lb` (the same with the proportional split (12)),
:func:`gavel_allocation` / :func:`gavel_round` (Gavel's max-min allocation
and round mechanism, simulated in :mod:`optsched.hetero.simulate`) and
:func:`gavel` (that allocation as one P1 placement).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, cast

import numpy as np

from optsched.core.errors import SolverError
from optsched.core.params import NoParams, resolve

from .instance import HeteroInstance
from .jct import comm_latency, job_jct
from .schedule import HeteroPlacement

#: Default cap on the number of (symmetry-reduced) placements enumerated.
MAX_PLACEMENTS = 5_000_000
_CHUNK = 50_000


def _weak_compositions(n: int, parts: int) -> np.ndarray:
    """All ``(a_1, ..., a_parts) >= 0`` with sum ``n`` as an array."""
    rows = []
    for cuts in combinations(range(n + parts - 1), parts - 1):
        edges = (-1, *cuts, n + parts - 1)
        rows.append([edges[j + 1] - edges[j] - 1 for j in range(parts)])
    return np.array(rows, dtype=np.int64).reshape(-1, parts)


@dataclass(frozen=True)
class _Classes:
    members: list[list[int]]  # worker indices per class
    rho: np.ndarray  # (S, C) throughput of a class member
    node: np.ndarray  # (C,) node of the class (0 when nodes do not matter)
    comps: list[np.ndarray]  # weak compositions of each class size into S parts

    @property
    def count(self) -> int:
        return math.prod(len(c) for c in self.comps)


def _classes(inst: HeteroInstance, rho: np.ndarray) -> _Classes:
    use_node = inst.communication
    index: dict[tuple, int] = {}
    members: list[list[int]] = []
    for k in range(inst.n_workers):
        key = (tuple(rho[:, k].tolist()), int(inst.node[k]) if use_node else 0)
        if key not in index:
            index[key] = len(members)
            members.append([])
        members[index[key]].append(k)
    reps = [m[0] for m in members]
    return _Classes(
        members=members,
        rho=rho[:, reps],
        node=np.array([inst.node[r] if use_node else 0 for r in reps], dtype=np.int64),
        comps=[_weak_compositions(len(m), inst.n_jobs) for m in members],
    )


def count_placements(inst: HeteroInstance, rho: np.ndarray | None = None) -> int:
    """Number of placements the enumeration visits (after symmetry reduction)."""
    r = inst.rho_hat if rho is None else np.asarray(rho, dtype=float)
    return _classes(inst, r).count


def _chunks(
    inst: HeteroInstance, cl: _Classes
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Yield ``(counts, V, K_i, one_node, valid)`` for chunks of placements.

    ``counts[b, c, i]`` workers of class ``c`` go to job ``i``.
    """
    sizes = [len(c) for c in cl.comps]
    total = cl.count
    nodes = np.unique(cl.node)
    node_of = np.searchsorted(nodes, cl.node)
    for start in range(0, total, _CHUNK):
        idx = np.arange(start, min(total, start + _CHUNK), dtype=np.int64)
        counts = np.empty((idx.size, len(sizes), inst.n_jobs), dtype=np.int64)
        rest = idx.copy()
        for c in range(len(sizes) - 1, -1, -1):
            counts[:, c, :] = cl.comps[c][rest % sizes[c]]
            rest //= sizes[c]
        V = np.einsum("bci,ic->bi", counts, cl.rho)
        n = counts.sum(axis=1)
        per_node = np.zeros((idx.size, nodes.size, inst.n_jobs), dtype=np.int64)
        # numpy's stub rejects a tuple of slices and an index array (valid)
        np.add.at(per_node, (slice(None), node_of, slice(None)), counts)  # type: ignore[arg-type]
        one_node = (per_node > 0).sum(axis=1) == 1
        valid = (n >= 1).all(axis=1)
        yield counts, V, n, one_node, valid


def _to_assignment(cl: _Classes, counts: np.ndarray, n_workers: int) -> np.ndarray:
    """Workers of each class go to jobs in index order according to ``counts``."""
    a = np.empty(n_workers, dtype=np.int64)
    for c, ws in enumerate(cl.members):
        jobs = np.repeat(np.arange(counts.shape[1]), counts[c])
        a[ws] = jobs
    return a


def _prepare(
    inst: HeteroInstance, rho: np.ndarray, max_placements: int | None, who: str
) -> _Classes:
    cl = _classes(inst, rho)
    cap = MAX_PLACEMENTS if max_placements is None else int(max_placements)
    if cl.count > cap:
        raise SolverError(
            f"{who}: {cl.count:,} placements to enumerate (S = {inst.n_jobs}, "
            f"K = {inst.n_workers}, {len(cl.members)} worker classes) exceed "
            f"max_placements = {cap:,}; use a smaller instance or raise max_placements"
        )
    return cl


def exhaustive_search(
    inst: HeteroInstance,
    rho: np.ndarray,
    max_placements: int | None,
    time_limit: float | None,
) -> tuple[np.ndarray, float, bool]:
    """Enumerate placements on ``rho``: ``(best assignment, its average JCT (14), finished)``.

    ``finished`` is False when ``time_limit`` seconds passed before the
    enumeration ended (the assignment is then the best one seen so far).
    """
    cl = _prepare(inst, rho, max_placements, "exhaustive")
    t0 = time.perf_counter()
    best_val, best_counts = math.inf, None
    finished = True
    for counts, V, n, one, valid in _chunks(inst, cl):
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = job_jct(inst, V, n, one).mean(axis=1)
        lam = np.where(valid, lam, np.inf)
        j = int(np.argmin(lam))
        if lam[j] < best_val:
            best_val, best_counts = float(lam[j]), counts[j].copy()
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            finished = False
            break
    assert best_counts is not None
    return _to_assignment(cl, best_counts, inst.n_workers), best_val, finished


@dataclass(frozen=True)
class EnumerationParams:
    """Parameters of :func:`exhaustive` and :func:`las`.

    Attributes
    ----------
    max_placements
        Most placements enumerated before :class:`SolverError` (None:
        :data:`MAX_PLACEMENTS`).
    """

    max_placements: int | None = None


def exhaustive(
    inst: HeteroInstance, /, *, seed: int = 0, params: EnumerationParams | None = None
) -> HeteroPlacement:
    """Exhaustive search (Sec. VI-A): the placement minimising the average JCT (14).

    Enumerates every placement satisfying (8b)-(8d) up to worker symmetry
    (module docstring) with the proportional split (12) on ``inst.rho_hat``;
    exact optimum of P1 (8) when the prediction is exact.  Deterministic
    (``seed`` unused); ``params``: :class:`EnumerationParams`.

    Raises
    ------
    SolverError
        When more than ``max_placements`` (default :data:`MAX_PLACEMENTS`)
        placements would have to be enumerated.
    """
    max_placements = resolve(params, EnumerationParams, "exhaustive").max_placements
    a, val, _ = exhaustive_search(inst, inst.rho_hat, max_placements, None)
    return HeteroPlacement.from_assignment(
        inst, a, algorithm="exhaustive", meta={"avg_jct_predicted": val}
    )


def v_equal(rho: np.ndarray) -> np.ndarray:
    """``V_i^Equal = sum_k rho_{i,k} / S``: throughput with an equal share (32)."""
    r = np.asarray(rho, dtype=float)
    return r.sum(axis=1) / r.shape[0]


def las(
    inst: HeteroInstance, /, *, seed: int = 0, params: EnumerationParams | None = None
) -> HeteroPlacement:
    """LAS as in Sec. IV-A: max-min of ``sum_k sigma_{i,k} rho_{i,k} / V_i^Equal``.

    Placement (8b)-(8d) maximising the smallest normalised throughput, ties
    broken leximin, then by the lower average JCT (14), then by enumeration
    order (module docstring); the data are then split proportionally (12)
    ("load balancing after placement").  Decides on ``inst.rho_hat``.  No
    JCT guarantee (Sec. IV-A: 20.6% above the optimum).  Deterministic
    (``seed`` unused); ``params``: :class:`EnumerationParams`.

    Raises
    ------
    SolverError
        When more than ``max_placements`` placements would be enumerated.
    """
    max_placements = resolve(params, EnumerationParams, "las").max_placements
    rho = inst.rho_hat
    cl = _prepare(inst, rho, max_placements, "las")
    veq = v_equal(rho)
    best_key: tuple | None = None
    best_counts = None
    for counts, V, n, one, valid in _chunks(inst, cl):
        ratios = np.round(np.sort(V / veq, axis=1), 9)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = job_jct(inst, V, n, one).mean(axis=1)
        ratios = np.where(valid[:, None], ratios, -np.inf)
        # lexsort: last key is primary -> leximin descending, then JCT ascending
        keys = [np.arange(len(lam)), lam] + [
            -ratios[:, j] for j in range(ratios.shape[1] - 1, -1, -1)
        ]
        j = int(np.lexsort(keys)[0])
        key = (tuple((-ratios[j]).tolist()), float(lam[j]))
        if best_key is None or key < best_key:
            best_key, best_counts = key, counts[j].copy()
    assert best_counts is not None
    a = _to_assignment(cl, best_counts, inst.n_workers)
    return HeteroPlacement.from_assignment(
        inst,
        a,
        algorithm="las",
        meta={"min_normalised_throughput": -cast(tuple[Any, ...], best_key)[0][0]},
    )


def lower_bound(inst: HeteroInstance) -> float:
    """A valid lower bound on P1 (8): every job alone on all workers, no communication.

    ``(1/S) sum_i T_i |Pi_i| / sum_k rho*_{i,k}`` (true throughput).
    """
    return float(np.mean(inst.epochs * inst.dataset_size / inst.rho.sum(axis=1)))


# ---------------------------------------------------------------------------
# Optimus and Optimus-LB (Sec. VI-A, after Peng et al., EuroSys 2018 [8])
# ---------------------------------------------------------------------------


def equal_workload(dataset_size: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Equal split: ``|pi_{i,k}| = |Pi_i| / K_i`` on job ``i``'s ``K_i`` workers, 0 elsewhere.

    The split of Optimus and Gavel ("the training dataset is divided into
    equal-sized parts", Sec. VI-A).  With heterogeneous workers the
    straggler (3) is the slowest worker, ``l_i^[p] = |Pi_i| / (K_i min_k rho_{i,k})``;
    the checker charges it from the workloads.
    """
    s = np.asarray(sigma, dtype=float)
    n = s.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n > 0, s / n, 0.0)
    return np.asarray(dataset_size, dtype=float)[:, None] * out


def _placement(
    inst: HeteroInstance,
    assignment: np.ndarray,
    split: str,
    algorithm: str,
    meta: dict[str, Any],
) -> HeteroPlacement:
    if split == "proportional":
        return HeteroPlacement.from_assignment(
            inst, assignment, algorithm=algorithm, meta=meta
        )
    sigma = np.zeros((inst.n_jobs, inst.n_workers), dtype=np.int64)
    sigma[assignment, np.arange(inst.n_workers)] = 1
    return HeteroPlacement(
        sigma=sigma,
        workload=equal_workload(inst.dataset_size, sigma),
        algorithm=algorithm,
        meta=meta,
    )


def _split_jct(
    inst: HeteroInstance,
    n: np.ndarray,
    total: np.ndarray,
    slowest: np.ndarray,
    one_node: np.ndarray,
    split: str,
) -> np.ndarray:
    """Per-job JCT (7) from ``K_i``, ``sum rho``, ``min rho`` and the one-node flag."""
    if split == "equal":
        comp = inst.dataset_size / (n * slowest)  # straggler (3) with |Pi_i| / K_i each
    else:
        comp = inst.dataset_size / total  # (11)
    return inst.epochs * (comp + comm_latency(inst, n, one_node))


def optimus_greedy(
    inst: HeteroInstance, split: str = "equal"
) -> tuple[np.ndarray, list[tuple[int, int, float]]]:
    """Greedy of Optimus: ``(assignment, steps)``, steps = ``(job, worker, gain)``.

    See :func:`optimus`; ``split`` is ``"equal"`` (Optimus) or
    ``"proportional"`` (Optimus-LB).
    """
    if split not in ("equal", "proportional"):
        raise ValueError(f"split: must be 'equal' or 'proportional', got {split!r}")
    rho = inst.rho_hat
    S, K = inst.n_jobs, inst.n_workers
    pref = [np.argsort(-rho[i], kind="stable") for i in range(S)]
    ptr = [0] * S
    free = np.ones(K, dtype=bool)
    assignment = np.full(K, -1, dtype=np.int64)
    n = np.zeros(S)
    total = np.zeros(S)
    slowest = np.full(S, np.inf)
    node0 = np.full(S, -1, dtype=np.int64)
    one_node = np.ones(S, dtype=bool)
    steps: list[tuple[int, int, float]] = []

    def candidate(i: int) -> int:
        while not free[pref[i][ptr[i]]]:
            ptr[i] += 1
        return int(pref[i][ptr[i]])

    def give(i: int, k: int, gain: float) -> None:
        free[k] = False
        assignment[k] = i
        n[i] += 1
        total[i] += rho[i, k]
        slowest[i] = min(slowest[i], rho[i, k])
        if node0[i] < 0:
            node0[i] = inst.node[k]
        one_node[i] = one_node[i] and inst.node[k] == node0[i]
        steps.append((i, k, gain))

    for i in range(S):  # one worker each, in job order (footnote 2)
        give(i, candidate(i), math.nan)
    for _ in range(K - S):  # (8c): every worker is placed
        cand = np.array([candidate(i) for i in range(S)])
        r = rho[np.arange(S), cand]
        now = _split_jct(inst, n, total, slowest, one_node, split)
        new = _split_jct(
            inst,
            n + 1,
            total + r,
            np.minimum(slowest, r),
            one_node & (inst.node[cand] == node0),
            split,
        )
        gain = now - new
        i = int(np.argmax(gain))  # largest marginal gain, first job on ties
        give(i, int(cand[i]), float(gain[i]))
    return assignment, steps


def optimus(
    inst: HeteroInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> HeteroPlacement:
    """Optimus as described in Sec. VI-A (after Peng et al. [8]), equal split.

    Rule: every job first receives one worker (its fastest free worker, jobs
    in index order) to avoid starvation (footnote 2); then, while a worker
    is free, every job's marginal gain -- the decrease of its JCT (7) when
    it receives its fastest free worker -- is computed and the job with the
    largest gain gets that worker (first job on ties).  The data are split
    equally (``|Pi_i| / K_i``, :func:`equal_workload`): Optimus ignores load
    balancing, so a job's epoch time is set by its slowest worker (3).  No
    performance guarantee; ``O(S K)`` steps after sorting each job's
    throughputs.  Decides on ``inst.rho_hat``.

    Readings (not fixed by the paper): the candidate worker of a job is its
    fastest free one (ties: lowest index); marginal gains include the
    communication term (6); because of (8c) the loop continues until every
    worker is placed, even when every gain is negative (equal split: a slow
    worker can lengthen a job).  ``meta["steps"]`` lists
    ``(job, worker, gain)``.  Deterministic (``seed`` unused); no parameters.
    """
    resolve(params, NoParams, "optimus")
    a, steps = optimus_greedy(inst, "equal")
    return _placement(inst, a, "equal", "optimus", {"steps": steps})


def optimus_lb(
    inst: HeteroInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> HeteroPlacement:
    """Optimus-LB (Sec. VI-A): Optimus with the proportional workload assignment (12).

    The greedy of :func:`optimus` with every JCT -- in the marginal gains
    and in the result -- computed with the proportional split (11)-(12), so
    ``l_i^[p] = |Pi_i| / sum_{k in kappa_i} rho_{i,k}``.  On a fixed
    placement the proportional split is never slower than the equal one
    (the straggler time ``max_k |pi_{i,k}| / rho_{i,k}`` is minimised by (12)).
    No guarantee (the paper reports 15.1% above the optimum, Fig. 9).
    Deterministic (``seed`` unused); no parameters.
    """
    resolve(params, NoParams, "optimus_lb")
    a, steps = optimus_greedy(inst, "proportional")
    return _placement(inst, a, "proportional", "optimus_lb", {"steps": steps})


# ---------------------------------------------------------------------------
# Gavel (Narayanan et al., OSDI 2020 [4]; Sec. VI-A, Figs. 17-18)
# ---------------------------------------------------------------------------
#
# Gavel computes, per job i and GPU type t, the fraction of wall-clock time
# x_{i,t} the job should run on ``scale_factor_i`` GPUs of type t, with the
# heterogeneity-aware max-min fairness policy ("LAS" in Gavel,
# MaxMinFairnessPolicyWithPerf), and realises it with a round-based
# mechanism: every round, (job, type) pairs are visited by decreasing
# priority x_{i,t} / (share of type t's time the job received since the last
# reset) and a job is placed on ``scale_factor_i`` free GPUs of one type
# (gang scheduling); jobs that do not fit wait for a later round.  Data are
# split equally among the job's GPUs of the round (Sec. VI-A).
#
# Readings adopted:
# * Allocation LP: maximise min_i s_i sum_t rhobar_{i,t} x_{i,t} / V_i^Equal
#   s.t. sum_i s_i x_{i,t} <= n_t, sum_t x_{i,t} <= 1, x >= 0, and x_{i,t} = 0
#   when s_i > n_t (the job cannot run there); rhobar_{i,t} is job i's mean
#   per-GPU throughput on type t (rho_hat) and V_i^Equal = sum_k rho_{i,k} / S
#   (Sec. IV-A).  Gavel normalises by the throughput of its
#   heterogeneity-agnostic allocation instead; the two differ by a per-job
#   factor depending on s_i only, so they coincide when all scale factors
#   are equal.  Among max-min optimal x we take one maximising the total
#   normalised throughput (second LP), since the max-min optimum alone
#   leaves the allocation of non-bottleneck jobs arbitrary.
# * Round: priorities as in Gavel (x * 1e9 when the job has not run on the
#   type since the last reset), one global queue sorted by (priority, x),
#   then job and type index; Gavel's deficit tie-breaker is omitted; a
#   scheduled job takes the lowest-index free GPUs of the type.  The
#   received-time counters are reset when the allocation is recomputed.
# * Default scale factor: the smallest number of GPUs of a type present
#   (5 on the 15-worker testbed, the paper's best setting [5, 5, 5, 5]).


@dataclass(frozen=True, eq=False)
class GavelAllocation:
    """Gavel's heterogeneity-aware allocation for a set of jobs.

    Attributes
    ----------
    types
        GPU type labels in order of first appearance among the workers.
    type_of
        Type index of every worker (K,).
    counts
        ``n_t``, workers per type (T,).
    scale_factor
        ``scale_factor_i`` per job (S,).
    throughput
        ``rhobar_{i,t}``: mean per-GPU throughput of job ``i`` on type ``t``
        (S, T), on ``inst.rho_hat``.
    x
        Time fractions ``x_{i,t}`` (S, T).
    fairness
        The max-min value ``min_i s_i sum_t rhobar_{i,t} x_{i,t} / V_i^Equal``.
    """

    types: tuple[str, ...]
    type_of: np.ndarray
    counts: np.ndarray
    scale_factor: np.ndarray
    throughput: np.ndarray
    x: np.ndarray
    fairness: float


def gpu_types(inst: HeteroInstance) -> tuple[tuple[str, ...], np.ndarray]:
    """GPU type labels (order of first appearance) and the type index of every worker."""
    labels: dict[str, int] = {}
    for g in inst.gpu:
        labels.setdefault(g, len(labels))
    return tuple(labels), np.array([labels[g] for g in inst.gpu], dtype=np.int64)


def gavel_scale_factors(
    inst: HeteroInstance, scale_factor: int | Sequence[int] | None = None
) -> np.ndarray:
    """``scale_factor_i`` per job: one value for all, one per job, or the default.

    The default is the smallest number of workers of one GPU type, the
    largest request that fits every type (5 at ``K = 15``, Fig. 18).  Each
    value must fit at least one type.
    """
    _, type_of = gpu_types(inst)
    counts = np.bincount(type_of)
    if scale_factor is None:
        s = np.full(inst.n_jobs, int(counts.min()), dtype=np.int64)
    elif isinstance(scale_factor, int | np.integer) and not isinstance(
        scale_factor, bool
    ):
        s = np.full(inst.n_jobs, int(scale_factor), dtype=np.int64)
    else:
        s = np.array(
            [int(v) for v in cast(Sequence[int], scale_factor)], dtype=np.int64
        )
        if s.shape != (inst.n_jobs,):
            raise ValueError(
                f"scale_factor: need one value per job ({inst.n_jobs}), got {list(cast(Sequence[int], scale_factor))}"
            )
    if (s < 1).any() or (s > counts.max()).any():
        raise ValueError(
            f"scale_factor: every value must be in 1..{int(counts.max())} (the "
            f"largest number of GPUs of one type), got {s.tolist()}"
        )
    return s


def gavel_allocation(
    inst: HeteroInstance, scale_factor: int | Sequence[int] | None = None
) -> GavelAllocation:
    """Gavel's max-min fair time fractions ``x_{i,t}`` (two small LPs solved by HiGHS).

    See the comment above :class:`GavelAllocation` for the LP and its
    readings.  Decides on ``inst.rho_hat``.

    Raises
    ------
    SolverError
        If HiGHS does not prove an LP optimal.
    """
    import pyomo.environ as pyo

    from optsched.core.solver import solve

    types, type_of = gpu_types(inst)
    S, T = inst.n_jobs, len(types)
    counts = np.bincount(type_of, minlength=T)
    s = gavel_scale_factors(inst, scale_factor)
    rho = inst.rho_hat
    rbar = np.stack([rho[:, type_of == t].mean(axis=1) for t in range(T)], axis=1)
    coef = s[:, None] * rbar / v_equal(rho)[:, None]
    fits = s[:, None] <= counts[None, :]

    m = pyo.ConcreteModel(name="gavel_max_min")
    m.I = pyo.RangeSet(0, S - 1)
    m.T = pyo.RangeSet(0, T - 1)
    m.x = pyo.Var(m.I, m.T, bounds=lambda _, i, t: (0, 1 if fits[i, t] else 0))
    m.z = pyo.Var()
    m.fair = pyo.Constraint(
        m.I,
        rule=lambda m, i: sum(coef[i, t] * m.x[i, t] for t in m.T) >= m.z,
        doc="normalised throughput of every job >= z",
    )
    m.capacity = pyo.Constraint(
        m.T,
        rule=lambda m, t: sum(int(s[i]) * m.x[i, t] for i in m.I) <= int(counts[t]),
        doc="GPUs of type t in use on average",
    )
    m.time = pyo.Constraint(
        m.I, rule=lambda m, i: sum(m.x[i, t] for t in m.T) <= 1, doc="time fractions"
    )
    m.obj = pyo.Objective(expr=m.z, sense=pyo.maximize)
    res = solve(m)
    if res.status != "optimal":
        raise SolverError(f"gavel: max-min LP ended with status {res.status}")
    z = float(res.objective)
    m.obj.deactivate()
    m.z.fix(z * (1 - 1e-9) if z > 0 else z)
    m.total = pyo.Objective(
        expr=sum(coef[i, t] * m.x[i, t] for i in m.I for t in m.T), sense=pyo.maximize
    )
    res = solve(m)
    if res.status != "optimal":
        raise SolverError(f"gavel: second-stage LP ended with status {res.status}")
    x = np.array([[pyo.value(m.x[i, t]) for t in range(T)] for i in range(S)])
    x = np.clip(x, 0.0, 1.0)
    return GavelAllocation(types, type_of, counts, s, rbar, x, z)


def _largest_remainder(total: int, weights: np.ndarray) -> np.ndarray:
    """Split ``total`` units by ``weights`` (largest remainder, ties: earlier entry)."""
    exact = total * weights / weights.sum()
    base = np.floor(exact + 1e-12).astype(np.int64)
    order = sorted(range(len(weights)), key=lambda j: (-(exact[j] - base[j]), j))
    for j in order[: total - int(base.sum())]:
        base[j] += 1
    return base


@dataclass(frozen=True)
class GavelParams:
    """Parameters of :func:`gavel`.

    Attributes
    ----------
    scale_factor
        GPUs per job in a round: one int for every job, or one per job
        (None: :func:`gavel_scale_factors`' default).
    """

    scale_factor: int | Sequence[int] | None = None


def gavel(
    inst: HeteroInstance, /, *, seed: int = 0, params: GavelParams | None = None
) -> HeteroPlacement:
    """Gavel's allocation as one P1 placement (static view; Gavel itself is round-based).

    Gavel runs every job on a single GPU type per round and lets jobs wait
    (gang scheduling of ``scale_factor_i`` GPUs); such a round is not a
    placement of P1 ((8b) fails for waiting jobs, and (8c) cannot hold with
    one type per job when ``S`` is below the number of types).  The paper
    evaluates Gavel only with its rounds (Figs. 17-18):
    :func:`optsched.hetero.simulate.simulate` with ``policy="gavel"`` runs
    :func:`gavel_round` round by round.

    This function gives the registry a P1 placement built from Gavel's
    allocation (:func:`gavel_allocation`), realised in space: the ``n_t``
    workers of type ``t`` are divided among the jobs in proportion to their
    average GPU use ``scale_factor_i x_{i,t}`` (largest remainder; in
    proportion to ``scale_factor_i`` on a type nobody is allocated), a job
    left without a worker takes one from the job holding most workers of
    its best-allocated type (8b), and every job's data are split equally, as
    Gavel does.  A job may thus hold several types, which Gavel never does
    within a round; treat its JCT as that of this static reading, not of
    Gavel.  Decides on ``inst.rho_hat``.  Deterministic (``seed``
    unused); ``params``: :class:`GavelParams`.
    """
    al = gavel_allocation(inst, resolve(params, GavelParams, "gavel").scale_factor)
    S, T = al.x.shape
    n = np.zeros((S, T), dtype=np.int64)
    for t in range(T):
        w = al.scale_factor * al.x[:, t]
        if w.sum() <= 1e-12:
            w = al.scale_factor.astype(float)
        n[:, t] = _largest_remainder(int(al.counts[t]), w)
    for i in range(S):  # (8b)
        if n[i].sum() > 0:
            continue
        best = None
        for t in range(T):
            for j in range(S):
                if n[j, t] >= 1 and n[j].sum() >= 2:
                    key = (-al.x[i, t], -n[j, t], t, j)
                    if best is None or key < best:
                        best = key
        assert best is not None  # K >= S
        _, _, t, j = best
        n[j, t] -= 1
        n[i, t] += 1
    assignment = np.empty(inst.n_workers, dtype=np.int64)
    for t in range(T):
        ws = np.flatnonzero(al.type_of == t)
        assignment[ws] = np.repeat(np.arange(S), n[:, t])
    return _placement(
        inst,
        assignment,
        "equal",
        "gavel",
        {"allocation": al, "workers_per_type": n, "types": al.types},
    )


def gavel_round(
    alloc: GavelAllocation,
    time_received: np.ndarray,
    active: Sequence[bool] | None = None,
) -> np.ndarray:
    """One round of Gavel's scheduling mechanism: the job of every worker, -1 if idle.

    ``time_received[i, t]`` is the time job ``i`` ran on type ``t`` since the
    last reset.  Priority of ``(i, t)``: ``x_{i,t} / f_{i,t}`` with ``f_{i,t}``
    job ``i``'s share of the time received on type ``t`` (floored at ``1e-9``,
    so ``x_{i,t} 1e9`` when the job has not run there, as in Gavel), 0 when
    ``x_{i,t} = 0``.  Pairs are visited by decreasing
    priority (then ``x``, job, type); a job not yet scheduled takes
    ``scale_factor_i`` free workers of type ``t`` (lowest indices) if that
    many are free.  ``active`` masks jobs that are done (default: all).
    """
    S, T = alloc.x.shape
    recv = np.asarray(time_received, dtype=float)
    act = np.ones(S, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    tot = recv.sum(axis=0)
    entries = []
    for i in range(S):
        if not act[i]:
            continue
        for t in range(T):
            x = float(alloc.x[i, t])
            share = float(recv[i, t] / tot[t]) if tot[t] > 0 else 0.0
            prio = x / max(share, 1e-9) if x > 0 else 0.0
            entries.append((-prio, -x, i, t))
    entries.sort()
    free = [list(np.flatnonzero(alloc.type_of == t)) for t in range(T)]
    assignment = np.full(alloc.type_of.size, -1, dtype=np.int64)
    done = np.zeros(S, dtype=bool)
    for _, _, i, t in entries:
        s = int(alloc.scale_factor[i])
        if done[i] or s > len(free[t]):
            continue
        take, free[t] = free[t][:s], free[t][s:]
        assignment[take] = i
        done[i] = True
    return assignment
