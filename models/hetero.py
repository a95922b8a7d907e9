"""P3 of Liu et al. (TPDS 2024) for a fixed category, as an assignment LP with duals.

For a category ``(K_1, ..., K_S)`` of Alg. 1, P3 (18) s.t. (17) and the
placement constraints (8d) is::

    max  sum_{i,k} rho_{i,k} x_{i,k}
    s.t. sum_k x_{i,k} == K_i          for every job i      (c17_workers_per_job)
         sum_i x_{i,k} <= 1            for every worker k   (c8d_worker_once)
         x_{i,k} >= 0                  (x <= 1 is implied by (8d))

(``sum_i K_i = K`` makes every (8d) row tight, which is (8c).)  The
constraint matrix is that of a bipartite transportation problem, hence
totally unimodular: the LP has an integral optimal vertex and its value is
the optimum of the binary P3.  The LP dual (:func:`build_p3_dual`) is::

    min  sum_i K_i u_i + sum_k p_k
    s.t. u_i + p_k >= rho_{i,k}        for every (i, k)     (c_dual_cover)
         p_k >= 0,  u_i free

and ``p_k`` are worker prices: for any ``p >= 0`` the best ``u`` gives the
dual function ``D(p) = sum_k p_k + sum_i sum_top(rho_i - p, K_i)``
(:func:`dual_value`), an upper bound on P3 that is tight exactly at
market-clearing prices.  HAS (Alg. 2) ends at such prices, so
``D(p_HAS) == P3`` certifies Theorem 2.

Dual signs (``optsched.core.solver`` convention, max problem): the duals of
the ``<=`` rows ``c8d_worker_once`` are ``>= 0`` and equal optimal ``p_k``;
the duals of the equality rows ``c17_workers_per_job`` are the ``u_i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo

from optsched.core.errors import SolverError
from optsched.core.solver import solve
from optsched.hetero.instance import HeteroInstance


def _inputs(
    inst_or_rho: HeteroInstance | np.ndarray,
    category: Sequence[int],
    rho: np.ndarray | None,
) -> tuple[np.ndarray, list[int]]:
    if rho is not None:
        r = np.asarray(rho, dtype=float)
    elif isinstance(inst_or_rho, HeteroInstance):
        r = np.asarray(inst_or_rho.rho_hat, dtype=float)
    else:
        r = np.asarray(inst_or_rho, dtype=float)
    S, K = r.shape
    cat = [int(c) for c in category]
    if len(cat) != S or min(cat) < 1 or sum(cat) != K:
        raise ValueError(
            f"category: need {S} positive integers summing to K = {K}, got {tuple(category)}"
        )
    return r, cat


def build_p3(
    inst: HeteroInstance | np.ndarray,
    category: Sequence[int],
    *,
    rho: np.ndarray | None = None,
) -> pyo.ConcreteModel:
    """LP of P3 (18) with (17) and (8d) for one category.

    Parameters
    ----------
    inst
        An instance (its ``rho_hat`` is used) or a throughput matrix (S, K).
    category
        ``(K_1, ..., K_S)`` summing to ``K``.
    rho
        Override the throughput matrix (e.g. ``inst.rho``, the truth).
    """
    r, cat = _inputs(inst, category, rho)
    S, K = r.shape
    m = pyo.ConcreteModel(name="hetero_P3")
    m.I = pyo.RangeSet(0, S - 1)
    m.K = pyo.RangeSet(0, K - 1)
    # no explicit upper bound 1: it is implied by (8d) and x >= 0, and leaving it
    # out makes the row duals a complete dual solution (no bound multipliers)
    m.x = pyo.Var(m.I, m.K, bounds=(0.0, None), doc="sigma_{i,k} relaxed")
    m.obj = pyo.Objective(
        expr=sum(float(r[i, k]) * m.x[i, k] for i in range(S) for k in range(K)),
        sense=pyo.maximize,
        doc="(18) total training throughput",
    )
    m.c17_workers_per_job = pyo.Constraint(
        m.I,
        rule=lambda m, i: sum(m.x[i, k] for k in m.K) == cat[i],
        doc="(17) job i gets K_i workers",
    )
    m.c8d_worker_once = pyo.Constraint(
        m.K,
        rule=lambda m, k: sum(m.x[i, k] for i in m.I) <= 1,
        doc="(8d) worker k serves at most one job",
    )
    return m


def build_p3_dual(
    inst: HeteroInstance | np.ndarray,
    category: Sequence[int],
    *,
    rho: np.ndarray | None = None,
) -> pyo.ConcreteModel:
    """LP dual of :func:`build_p3`: ``min sum_i K_i u_i + sum_k p_k``, ``u_i + p_k >= rho_{i,k}``."""
    r, cat = _inputs(inst, category, rho)
    S, K = r.shape
    m = pyo.ConcreteModel(name="hetero_P3_dual")
    m.I = pyo.RangeSet(0, S - 1)
    m.K = pyo.RangeSet(0, K - 1)
    m.u = pyo.Var(m.I, doc="dual of (17)")
    m.p = pyo.Var(m.K, bounds=(0.0, None), doc="dual of (8d): worker price")
    m.obj = pyo.Objective(
        expr=sum(cat[i] * m.u[i] for i in range(S)) + sum(m.p[k] for k in range(K)),
        sense=pyo.minimize,
    )
    m.c_dual_cover = pyo.Constraint(
        m.I, m.K, rule=lambda m, i, k: m.u[i] + m.p[k] >= float(r[i, k])
    )
    return m


def dual_value(rho: np.ndarray, category: Sequence[int], prices: np.ndarray) -> float:
    """``D(p) = sum_k p_k + sum_i sum_top(rho_i - p, K_i)``: an upper bound on P3 for ``p >= 0``."""
    r = np.asarray(rho, dtype=float)
    p = np.asarray(prices, dtype=float)
    g = np.sort(r - p[None, :], axis=1)[:, ::-1]
    return float(p.sum() + sum(g[i, : int(c)].sum() for i, c in enumerate(category)))


@dataclass(frozen=True, eq=False)
class P3Result:
    """Optimum of P3 for one category.

    Attributes
    ----------
    value
        Optimal total throughput ``sum_i V_i``.
    assignment
        Job of every worker (K,) from the (integral) optimal vertex.
    prices
        Duals of ``c8d_worker_once`` (``p_k >= 0``).
    job_duals
        Duals of ``c17_workers_per_job`` (``u_i``).
    status, runtime
        From :func:`optsched.core.solver.solve`.
    """

    value: float
    assignment: np.ndarray
    prices: np.ndarray
    job_duals: np.ndarray
    status: str
    runtime: float


def solve_p3(
    inst: HeteroInstance | np.ndarray,
    category: Sequence[int],
    *,
    rho: np.ndarray | None = None,
    time_limit: float | None = None,
) -> P3Result:
    """Solve :func:`build_p3` with HiGHS and return value, integral assignment and duals.

    Raises
    ------
    SolverError
        If HiGHS does not prove optimality or the vertex is not integral.
    """
    r, cat = _inputs(inst, category, rho)
    S, K = r.shape
    m = build_p3(r, cat)
    res = solve(m, duals=True, time_limit=time_limit)
    if res.status != "optimal":
        raise SolverError(f"P3 LP for category {tuple(cat)}: status {res.status}")
    x = np.array([[pyo.value(m.x[i, k]) for k in range(K)] for i in range(S)])
    if np.abs(x - np.round(x)).max() > 1e-6:
        raise SolverError(f"P3 LP for category {tuple(cat)}: fractional vertex")
    assignment = np.round(x).argmax(axis=0).astype(np.int64)
    prices = np.array([res.duals.get(m.c8d_worker_once[k], 0.0) for k in range(K)])
    u = np.array([res.duals.get(m.c17_workers_per_job[i], 0.0) for i in range(S)])
    return P3Result(res.objective, assignment, prices, u, res.status, res.runtime)
