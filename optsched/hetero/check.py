"""Independent checker for placements: constraints (8a)-(8d) and objective (8).

The checker never calls algorithm code.  It validates the placement against
the constraints of P1 and recomputes the average JCT (8) on the **true**
throughput ``rho*`` with the placement's **actual** workloads:

* computation (2)-(3): ``l_i^[p] = max_{k in kappa_i} |pi_{i,k}| / rho*_{i,k}``
  (the straggler), so a non-proportional split, or a split computed from a
  wrong prediction (Fig. 15), is charged what it really costs;
* communication (5)-(6): ``r_i^min`` is the minimum link rate over all pairs
  of job ``i``'s workers (intra-node or inter-node), and
  ``l_i^[c] = 2 (K_i - 1) (8 D_i / 1000) / (r_i^min K_i)`` seconds (``D_i``
  in MB, rates in Gbps), 0 for ``K_i = 1`` or when the instance ignores
  communication;
* JCT (7) ``Lambda_i = T_i (l_i^[p] + l_i^[c])`` and objective (8)
  ``(1/S) sum_i Lambda_i``.

An instance without jobs (``S = 0``, accepted as in every paper) has one
placement, the empty ``0 x K`` one: (8c) is vacuous (no job to serve) and
the objective is 0 (not the undefined mean of no JCTs).

Order of the checks: ``sigma`` binary (8b), each worker at most once (8d),
each job at least one worker (8b), all workers used (8c), workloads (8a).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.base import TOL, EvaluationBase
from optsched.core.errors import InfeasibleScheduleError

from .instance import HeteroInstance
from .schedule import HeteroPlacement


@dataclass(frozen=True, eq=False)
class HeteroEvaluation(EvaluationBase):
    """What the checker recomputed (all on the true throughput).

    Attributes
    ----------
    objective
        Average JCT (8), seconds.
    jct
        ``Lambda_i`` (7) per job, seconds.
    compute_latency
        ``l_i^[p]`` (3) per job, seconds per epoch.
    comm_latency
        ``l_i^[c]`` (6) per job, seconds per epoch.
    throughput
        ``V_i = |Pi_i| / l_i^[p]`` (4) per job, samples/s.
    n_workers
        ``K_i`` per job.
    """

    SUMMARY = ("makespan",)
    PER_JOB = ("jct", "compute_latency", "comm_latency", "throughput", "n_workers")

    jct: np.ndarray
    compute_latency: np.ndarray
    comm_latency: np.ndarray
    throughput: np.ndarray
    n_workers: np.ndarray

    @property
    def makespan(self) -> float:
        """Largest JCT (Fig. 17)."""
        return float(self.jct.max())


def _fail(eq: str, msg: str) -> None:
    raise InfeasibleScheduleError(f"constraint {eq}: {msg}", constraint=eq)


def check(inst: HeteroInstance, placement: HeteroPlacement) -> HeteroEvaluation:
    """Validate ``placement`` against (8a)-(8d) and recompute the objective (8).

    Raises
    ------
    InfeasibleScheduleError
        Naming the violated equation and the job / worker.
    """
    S, K = inst.n_jobs, inst.n_workers
    sigma = np.asarray(placement.sigma)
    pi = np.asarray(placement.workload)
    if sigma.shape != (S, K):
        _fail("(8b)", f"sigma has shape {sigma.shape}, expected ({S}, {K})")
    if pi.shape != (S, K):
        _fail("(8a)", f"workload has shape {pi.shape}, expected ({S}, {K})")
    try:
        sig_f = sigma.astype(float)
        pi = pi.astype(float)
    except (TypeError, ValueError):
        _fail("(8b)", "sigma and workload must be numeric")
    bad = np.argwhere(~np.isin(sig_f, (0.0, 1.0)))
    if len(bad):
        i, k = bad[0]
        _fail("(8b)", f"sigma[job {i}, worker {k}] = {sigma[i, k]!r} is not 0 or 1")
    sig = sig_f.astype(np.int64)
    # (8d) each worker serves at most one job
    per_worker = sig.sum(axis=0)
    for k in range(K):
        if per_worker[k] > 1:
            jobs = np.flatnonzero(sig[:, k]).tolist()
            _fail("(8d)", f"worker {k} is assigned to {per_worker[k]} jobs {jobs}")
    # (8b) each job has at least one worker
    per_job = sig.sum(axis=1)
    for i in range(S):
        if per_job[i] < 1:
            _fail("(8b)", f"job {i} ({inst.jobs[i].name}) has no worker")
    # (8c) all workers participate (vacuous without jobs: nothing to serve)
    if S and int(sig.sum()) != K:
        idle = np.flatnonzero(per_worker == 0).tolist()
        _fail("(8c)", f"{int(sig.sum())} of {K} workers used; idle workers {idle}")
    # (8a) workloads: finite, >= 0, only on own workers, summing to |Pi_i|
    bad = np.argwhere(~np.isfinite(pi) | (pi < 0))
    if len(bad):
        i, k = bad[0]
        _fail("(8a)", f"workload[job {i}, worker {k}] = {pi[i, k]!r} is not >= 0")
    bad = np.argwhere((sig == 0) & (pi != 0))
    if len(bad):
        i, k = bad[0]
        _fail(
            "(8a)",
            f"job {i} has workload {pi[i, k]:.6g} on worker {k}, which is not one of its workers",
        )
    for i in range(S):
        got, need = float(pi[i].sum()), float(inst.jobs[i].dataset_size)
        if abs(got - need) > TOL * max(1.0, need):
            _fail("(8a)", f"job {i} workloads sum to {got:.10g} != |Pi_i| = {need:g}")
    # objective (8) on the true throughput
    rho = inst.rho
    l_p = np.zeros(S)
    l_c = np.zeros(S)
    for i in range(S):
        ks = np.flatnonzero(sig[i])
        l_p[i] = max(pi[i, k] / rho[i, k] for k in ks)
        n = len(ks)
        if inst.communication and n > 1:
            r_min = min(
                inst.intra_gbps
                if inst.workers[a].node == inst.workers[b].node
                else inst.inter_gbps
                for a in ks
                for b in ks
                if a != b
            )
            gigabits = inst.jobs[i].model_size_mb * 8.0 / 1000.0
            l_c[i] = 2.0 * (n - 1) * gigabits / (r_min * n)
    T = np.array([j.epochs for j in inst.jobs], dtype=float)
    jct = T * (l_p + l_c)
    size = np.array([j.dataset_size for j in inst.jobs], dtype=float)
    with np.errstate(divide="ignore"):
        V = np.where(l_p > 0, size / l_p, np.inf)
    return HeteroEvaluation(
        objective=float(jct.mean()) if S else 0.0,  # no job: objective 0
        jct=jct,
        compute_latency=l_p,
        comm_latency=l_c,
        throughput=V,
        n_workers=per_job,
    )
