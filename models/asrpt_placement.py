"""Exact placement MILP of Luo et al. (A-SRPT), Table II's "ILP".

Given a job's stages and the GPUs ``free[m]`` it may use on each server,
choose ``x[s, m]`` (replicas of stage ``s`` on server ``m``) minimising the
per-iteration time ``alpha`` of Eq. (7) under the readings of
:mod:`optsched.asrpt.timing`.  The model is exact and linear because, in
reading 2, the ``x_s^m`` replicas' inter-server traffic goes through their
share ``(x_s^m / g) B_inter``, so ``x_s^m`` cancels::

    comm_s^m = g (2 d_in (k_prev - x_prev^m)/k_prev + 2 d_out (k_next - x_next^m)/k_next) / B_inter
             + (2 d_in x_prev^m / k_prev + 2 d_out x_next^m / k_next) / B_intra

which is linear in the neighbours' ``x``.  With binaries ``z[s, m] = [x_s^m
> 0]`` and ``w[s, m] = [x_s^m = k_s]`` (AllReduce over ``B_intra`` or over
the NIC share)::

    sum_m x[s, m] = k_s                               (2)
    sum_s x[s, m] <= free[m]                          (3), one job
    z <= x <= k_s z,   k_s w <= x <= k_s - 1 + w      (indicators)
    alpha >= comp_s + comm_s^m(x) + AR_inter_s (z - w) + AR_intra_s w
             - BIG_s (1 - z)                          (7) where x_s^m > 0

``BIG_s`` bounds the right-hand side (every neighbour on other servers).
At an integer point the active rows are exactly ``beta_s^m`` of
:func:`optsched.asrpt.timing.stage_times` and inactive rows are ``<= 0``, so
the minimum of ``alpha`` is the least ``max beta`` over placements (tested
against enumeration).

Kept apart from the scheduling model (:mod:`optsched.models.asrpt`, which
re-exports both functions) so that the certified lower bounds of
:mod:`optsched.asrpt.bounds`, which solve it for the least ``alpha``, and
the scheduling model, which reports those bounds, import each other in one
direction only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyomo.environ as pyo

from optsched.asrpt.timing import Cluster, Stage, check_placement, stage_times
from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import solve

__all__ = ["build_placement", "solve_placement"]


def build_placement(
    stages: Sequence[Stage], cluster: Cluster, free: Sequence[int]
) -> pyo.ConcreteModel:
    """The exact placement MILP of the module docstring."""
    S, M = len(stages), cluster.n_servers
    free = [int(f) for f in free]
    if len(free) != M or any(f < 0 for f in free):
        raise InvalidInstanceError(f"free: need {M} counts >= 0, got {free}")
    g, bi, bb = cluster.gpus, cluster.b_inter, cluster.b_intra
    mod = pyo.ConcreteModel(name="asrpt_placement")
    mod.S, mod.M = pyo.RangeSet(0, S - 1), pyo.RangeSet(0, M - 1)
    k = [st.k for st in stages]
    mod.x = pyo.Var(
        mod.S,
        mod.M,
        domain=pyo.NonNegativeIntegers,
        bounds=lambda _, s, m: (0, min(k[s], free[m])),
    )
    mod.z = pyo.Var(mod.S, mod.M, domain=pyo.Binary)
    mod.w = pyo.Var(mod.S, mod.M, domain=pyo.Binary)
    mod.alpha = pyo.Var(domain=pyo.NonNegativeReals)
    mod.c2 = pyo.Constraint(
        mod.S, rule=lambda _, s: sum(mod.x[s, m] for m in mod.M) == k[s]
    )
    mod.c3 = pyo.Constraint(
        mod.M, rule=lambda _, m: sum(mod.x[s, m] for s in mod.S) <= free[m]
    )
    mod.z_lo = pyo.Constraint(
        mod.S, mod.M, rule=lambda _, s, m: mod.z[s, m] <= mod.x[s, m]
    )
    mod.z_hi = pyo.Constraint(
        mod.S, mod.M, rule=lambda _, s, m: mod.x[s, m] <= k[s] * mod.z[s, m]
    )
    mod.w_lo = pyo.Constraint(
        mod.S, mod.M, rule=lambda _, s, m: k[s] * mod.w[s, m] <= mod.x[s, m]
    )
    mod.w_hi = pyo.Constraint(
        mod.S, mod.M, rule=lambda _, s, m: mod.x[s, m] <= k[s] - 1 + mod.w[s, m]
    )

    def beta(s: int, m: int):
        st = stages[s]
        expr = st.pf + st.pb
        big = st.pf + st.pb
        for nb, d in ((s - 1, st.d_in), (s + 1, st.d_out)):
            if 0 <= nb < S and d > 0:
                kn = k[nb]
                expr += g * 2 * d * (kn - mod.x[nb, m]) / (kn * bi)
                expr += 2 * d * mod.x[nb, m] / (kn * bb)
                big += max(g * 2 * d / bi, 2 * d / bb)
        vol = 2 * (st.k - 1) * st.h / st.k
        expr += vol * g / bi * (mod.z[s, m] - mod.w[s, m]) + vol / bb * mod.w[s, m]
        big += max(vol * g / bi, vol / bb)
        return expr, big

    def c7(_, s, m):
        expr, big = beta(s, m)
        return mod.alpha >= expr - big * (1 - mod.z[s, m])

    mod.c7 = pyo.Constraint(mod.S, mod.M, rule=c7)
    mod.obj = pyo.Objective(expr=mod.alpha)
    return mod


def solve_placement(
    stages: Sequence[Stage],
    cluster: Cluster,
    free: Sequence[int],
    *,
    time_limit: float | None = 60.0,
    threads: int | None = 1,
) -> tuple[float, np.ndarray | None, str, float]:
    """Solve :func:`build_placement`; ``(alpha, x, status, runtime)``.

    ``alpha`` is recomputed from ``x`` by :func:`~optsched.asrpt.timing.stage_times`
    (the independent evaluation), NaN and ``x = None`` without a solution.
    """
    mod = build_placement(stages, cluster, free)
    res = solve(mod, time_limit=time_limit, threads=threads)
    if not res.has_solution:
        return float("nan"), None, res.status, res.runtime
    x = np.array(
        [[round(pyo.value(mod.x[s, m])) for m in mod.M] for s in mod.S], dtype=np.int64
    )
    check_placement(tuple(stages), x, cluster)
    return (
        float(stage_times(tuple(stages), x, cluster).max()),
        x,
        res.status,
        res.runtime,
    )
