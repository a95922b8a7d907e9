"""Certified lower bounds on OPT of (8), Lemma 1 and Theorem 1 (Luo et al., Sec. IV-C-2).

For instances too large for the exact MILP, a run reports the interval
``[ALG / lower_bound, ALG / ...]``: ``ALG / lower_bound`` is a certified upper
end of its ratio.  Bounds (all in slots):

``per_job``
    ``sum_i (r_i + n_i alpha_i^min)``: no job starts before its arrival or
    runs faster than its best placement.  ``alpha_i^min`` is the *exact*
    least per-iteration time over every placement on an empty cluster
    (the placement MILP of :mod:`optsched.models.asrpt_placement`, its dual bound if
    not proven within the time limit), not Heavy-Edge's estimate.
``srpt``
    SRPT on one machine with job ``i`` released at ``r_i`` and processing
    ``(g_i / G) n_i alpha_i^min``: Lemma 1's construction with the exact
    ``alpha^min`` (at every instant OPT's running jobs hold at most ``G``
    GPUs, so giving job ``i`` the share ``g_i / G`` of one machine finishes
    it by its completion in OPT; SRPT is optimal for ``1 | r_i, pmtn | sum
    C_i``).  No factor ``rho`` is needed.
``lower_bound``
    The larger of the two.

``lemma1`` reports Lemma 1 as printed, ``OPT_{A_1} / rho`` with ``A_1``
built on Heavy-Edge's ``alpha~^min`` and ``rho = max_i alpha_i^max /
alpha~_i^min``.  Its proof needs ``alpha~_i^min <= rho alpha_i^min``, which
the printed ``rho`` does not guarantee (Heavy-Edge may miss the best
placement); ``lemma1_certified`` divides by ``rho' = max(rho, max_i
alpha~_i^min / alpha_i^min)``, for which the proof holds (docs/errata.md).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .instance import AsrptInstance
from .sim import srpt
from .timing import Cluster, Stage, stage_times


@lru_cache(maxsize=4096)
def alpha_min_exact(
    stages: tuple[Stage, ...], cluster: Cluster, time_limit: float = 30.0
) -> float:
    """Least ``alpha`` (ms) over all placements on an empty cluster (a valid lower bound).

    At most ``g_i`` servers are ever useful, so the MILP sees
    ``min(M, g_i)`` empty servers; with a single stage of one replica the
    answer is ``p^f + p^b``.  The MILP (Pyomo, HiGHS) is imported on the
    first call, so that importing this module (the paper record does) stays
    light.
    """
    from optsched.core.solver import solve
    from optsched.models.asrpt_placement import build_placement

    gi = sum(s.k for s in stages)
    if gi == 1:
        return stages[0].pf + stages[0].pb
    m = min(cluster.n_servers, gi)  # m g >= g_i as the instance fits the cluster
    sub = Cluster(m, cluster.gpus, cluster.b_inter, cluster.b_intra)
    mod = build_placement(stages, sub, [cluster.gpus] * m)
    res = solve(mod, time_limit=time_limit, threads=1)
    if res.status == "optimal":
        x = np.array([[round(mod.x[s, k].value) for k in mod.M] for s in mod.S])
        return float(stage_times(stages, x, sub).max())
    return float(res.bound)  # the solver's proven lower bound


def alpha_min(inst: AsrptInstance) -> np.ndarray:
    """``alpha_i^min`` (exact, ms) per job."""
    return np.array([alpha_min_exact(j.stages, inst.cluster) for j in inst.jobs])


def lower_bound(inst: AsrptInstance) -> dict[str, float]:
    """``per_job``, ``srpt``, ``lower_bound``, ``lemma1``, ``lemma1_certified`` (module doc)."""
    if inst.n_jobs == 0:
        return dict.fromkeys(
            ("per_job", "srpt", "lower_bound", "lemma1", "lemma1_certified"), 0.0
        )
    r = inst.arrival.astype(float)
    amin = alpha_min(inst)
    share = inst.gpus / inst.total_gpus
    per_job = float((r + inst.slots(inst.iterations, amin)).sum())
    lb_srpt = float(srpt(r, share * inst.slots(inst.iterations, amin)).sum())
    opt_a1 = float(
        srpt(r, share * inst.slots(inst.iterations, inst.alpha_min_est)).sum()
    )
    rho = float((inst.alpha_max / inst.alpha_min_est).max())
    rho_c = max(rho, float((inst.alpha_min_est / amin).max()))
    return {
        "per_job": per_job,
        "srpt": lb_srpt,
        "lower_bound": max(per_job, lb_srpt),
        "lemma1": opt_a1 / rho,
        "lemma1_certified": opt_a1 / rho_c,
    }


def theorem1(inst: AsrptInstance, tau: float = 1.0) -> float:
    """Theorem 1's ratio bound as printed, with the instance's predictions.

    ``[2 + tau + rho G / (G - g^max)] rho + 2 rho g^max rho_bar [1 + tau +
    (1 + rho) G / (G - g^max)] eps_bar`` with ``rho_bar = alpha^max /
    alpha^min`` (over jobs) and ``eps_bar`` the mean absolute prediction
    error in iterations.  Infinite when a job needs the whole cluster
    (``g^max = G``).  As printed the second term is not dimensionless
    (``eps_bar`` counts iterations; docs/errata.md); it is evaluated as
    printed.
    """
    G, gmax = inst.total_gpus, int(inst.gpus.max())
    if gmax >= G:
        return float("inf")
    rho = float((inst.alpha_max / inst.alpha_min_est).max())
    rho_bar = float(inst.alpha_max.max() / alpha_min(inst).min())
    eps_bar = float(np.abs(inst.iterations - inst.predicted).mean())
    return (2 + tau + rho * G / (G - gmax)) * rho + 2 * rho * gmax * rho_bar * (
        1 + tau + (1 + rho) * G / (G - gmax)
    ) * eps_bar
