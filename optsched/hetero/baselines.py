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
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from optsched.core.errors import SolverError

from .instance import HeteroInstance
from .jct import job_jct
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
        np.add.at(per_node, (slice(None), node_of, slice(None)), counts)
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


def exhaustive(
    inst: HeteroInstance, *, max_placements: int | None = None
) -> HeteroPlacement:
    """Exhaustive search (Sec. VI-A): the placement minimising the average JCT (14).

    Enumerates every placement satisfying (8b)-(8d) up to worker symmetry
    (module docstring) with the proportional split (12) on ``inst.rho_hat``;
    exact optimum of P1 (8) when the prediction is exact.

    Raises
    ------
    SolverError
        When more than ``max_placements`` (default :data:`MAX_PLACEMENTS`)
        placements would have to be enumerated.
    """
    a, val, _ = exhaustive_search(inst, inst.rho_hat, max_placements, None)
    return HeteroPlacement.from_assignment(
        inst, a, algorithm="exhaustive", meta={"avg_jct_predicted": val}
    )


def v_equal(rho: np.ndarray) -> np.ndarray:
    """``V_i^Equal = sum_k rho_{i,k} / S``: throughput with an equal share (32)."""
    r = np.asarray(rho, dtype=float)
    return r.sum(axis=1) / r.shape[0]


def las(inst: HeteroInstance, *, max_placements: int | None = None) -> HeteroPlacement:
    """LAS as in Sec. IV-A: max-min of ``sum_k sigma_{i,k} rho_{i,k} / V_i^Equal``.

    Placement (8b)-(8d) maximising the smallest normalised throughput, ties
    broken leximin, then by the lower average JCT (14), then by enumeration
    order (module docstring); the data are then split proportionally (12)
    ("load balancing after placement").  Decides on ``inst.rho_hat``.  No
    JCT guarantee (Sec. IV-A: 20.6% above the optimum).

    Raises
    ------
    SolverError
        When more than ``max_placements`` placements would be enumerated.
    """
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
        meta={"min_normalised_throughput": -best_key[0][0]},
    )


def lower_bound(inst: HeteroInstance) -> float:
    """A valid lower bound on P1 (8): every job alone on all workers, no communication.

    ``(1/S) sum_i T_i |Pi_i| / sum_k rho*_{i,k}`` (true throughput).
    """
    return float(np.mean(inst.epochs * inst.dataset_size / inst.rho.sum(axis=1)))
