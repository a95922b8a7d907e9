"""Average JCT (14) under proportional workload assignment, as the algorithms see it.

This is the algorithms' own (vectorised) bookkeeping on the throughput they
decide on (``inst.rho_hat``); tests and the ratio harness use the
independent checker (:mod:`optsched.hetero.check`) instead.

With the proportional split (12), job ``i`` on the worker set ``kappa_i``
has ``V_i = sum_{k in kappa_i} rho_{i,k}`` (13) and::

    Lambda_i = T_i ( |Pi_i| / V_i  +  2 (K_i - 1) (8 D_i / 1000) / (r_i^min K_i) )

with ``r_i^min`` the intra-node rate when ``kappa_i`` lies in one node and the
inter-node rate otherwise, and no communication term when ``K_i = 1`` or the
instance ignores communication (14).
"""

from __future__ import annotations

import numpy as np

from .instance import HeteroInstance


def comm_latency(
    inst: HeteroInstance, n_workers: np.ndarray, single_node: np.ndarray
) -> np.ndarray:
    """``l_i^[c]`` (6) in seconds for arrays of ``K_i`` and "one node" flags (..., S)."""
    k = np.asarray(n_workers, dtype=float)
    if not inst.communication:
        return np.zeros(np.broadcast(k, single_node).shape)
    r = np.where(single_node, inst.intra_gbps, inst.inter_gbps)
    gigabits = inst.model_size_mb * 8.0 / 1000.0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 2.0 * (k - 1.0) * gigabits / (r * k)
    return np.where(k > 1, out, 0.0)


def job_jct(
    inst: HeteroInstance,
    V: np.ndarray,
    n_workers: np.ndarray,
    single_node: np.ndarray,
) -> np.ndarray:
    """``Lambda_i`` (7) with (11): arrays of ``V_i``, ``K_i``, flags (..., S)."""
    with np.errstate(divide="ignore"):
        comp = np.where(V > 0, inst.dataset_size / V, np.inf)
    return inst.epochs * (comp + comm_latency(inst, n_workers, single_node))


def assignment_stats(
    inst: HeteroInstance, assignment: np.ndarray, rho: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(V_i, K_i, one-node flag)`` of ``assignment[k]`` = job of worker ``k``."""
    a = np.asarray(assignment, dtype=np.int64)
    S = inst.n_jobs
    K = inst.n_workers
    V = np.zeros(S)
    np.add.at(V, a, rho[a, np.arange(K)])
    n = np.bincount(a, minlength=S)
    single = np.zeros(S, dtype=bool)
    for i in range(S):
        nodes = inst.node[a == i]
        single[i] = nodes.size > 0 and bool((nodes == nodes[0]).all())
    return V, n, single


def avg_jct(
    inst: HeteroInstance, assignment: np.ndarray, rho: np.ndarray | None = None
) -> float:
    """Average JCT (14) of ``assignment`` with the proportional split (12) on ``rho``.

    ``rho`` defaults to ``inst.rho_hat``.  Returns ``inf`` if a job has no worker.
    """
    r = inst.rho_hat if rho is None else rho
    V, n, single = assignment_stats(inst, assignment, r)
    if (n < 1).any():
        return float("inf")
    return float(job_jct(inst, V, n, single).mean())
