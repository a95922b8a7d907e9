r"""Models of Liu et al. (TPDS 2024): P3 assignment LP with duals; exact MILP of P1.

P3 for a fixed category (assignment LP)
---------------------------------------
For a category ``(K_1, ..., K_S)`` of Alg. 1, P3 (18) s.t. (17) and the
placement constraints (8d) is::

    max  sum_{i,k} rho_{i,k} x_{i,k}
    s.t. sum_k x_{i,k} == K_i          for every job i      (c17_workers_per_job)
         sum_i x_{i,k} <= 1            for every worker k   (c8d_worker_once)
         x_{i,k} >= 0                  (x <= 1 is implied by (8d))

In formulas (:func:`build_p3`):

.. math::

   \max \sum_{i,k} \rho_{i,k} \, x_{i,k}
   \quad \text{s.t.} \quad \sum_k x_{i,k} = K_i \ \ \forall i, \qquad
   \sum_i x_{i,k} \le 1 \ \ \forall k, \qquad x_{i,k} \ge 0.

(``sum_i K_i = K`` makes every (8d) row tight, which is (8c).)  The
constraint matrix is that of a bipartite transportation problem, hence
totally unimodular: the LP has an integral optimal vertex and its value is
the optimum of the binary P3.  The LP dual (:func:`build_p3_dual`) is::

    min  sum_i K_i u_i + sum_k p_k
    s.t. u_i + p_k >= rho_{i,k}        for every (i, k)     (c_dual_cover)
         p_k >= 0,  u_i free

and ``p_k`` are worker prices.  Market prices are *not* always part of an
optimal solution of this bound-free dual: for fixed ``p`` its best ``u_i``
is ``max_k (rho_{i,k} - p_k)`` (example: ``rho = [[10, 5, 0], [0, 0, 1]]``,
category ``(2, 1)``, the market clears at ``p = 0`` with P3 = 16, but the
bound-free dual at ``p = 0`` is 21).  They are optimal for the dual of the
same LP with the bounds ``x <= 1`` written explicitly (multipliers
``w_{i,k} >= 0``; ``u_i + p_k + w_{i,k} >= rho_{i,k}``, objective
``sum_i K_i u_i + sum_k p_k + sum_{i,k} w_{i,k}``) with ``u_i`` the
``K_i``-th best payoff of job ``i`` and ``w_{i,k} = max(0, rho_{i,k} - p_k -
u_i)``.  Equivalently ``D(p) = sum_k p_k + sum_i sum_top(rho_i - p, K_i)``
(:func:`dual_value`) is the Lagrangian dual function of P3 relaxing (8d)
only (``0 <= x <= 1`` kept in the inner problem): an upper bound on P3 for
every ``p >= 0`` that is tight exactly at market-clearing prices.  HAS
(Alg. 2) ends at such prices, so ``D(p_HAS) == P3`` certifies Theorem 2
(the notebook ``notebooks/hetero_matching_markets.ipynb`` checks both duals
and complementary slackness).

Dual signs (``optsched.core.solver`` convention, max problem): the duals of
the ``<=`` rows ``c8d_worker_once`` are ``>= 0`` and equal optimal ``p_k``;
the duals of the equality rows ``c17_workers_per_job`` are the ``u_i``.

Exact offline optimum of P1 (8): MILP with outer approximation
--------------------------------------------------------------
:func:`build_model` / :func:`solve_exact` solve P1 (8)-(8d) on the **true**
throughput ``rho* = inst.rho`` (the offline optimum of the ratio harness;
``inst.predicted`` is ignored).  Indices: jobs ``i``, workers ``k``,
worker counts ``m = 1..M`` with ``M = K - S + 1`` (every other job needs a
worker), nodes ``h``.

*Workloads (8a) are eliminated.*  For a fixed ``sigma`` the straggler
latency (3) ``max_k |pi_{i,k}| / rho_{i,k}`` subject to (8a) is minimised by
the proportional split (12), with value (11) ``|Pi_i| / V_i`` and
``V_i = sum_k sigma_{i,k} rho_{i,k}`` (13); the communication term does not
depend on ``pi``.  So P1 is exactly ``min_sigma`` of (14) over (8b)-(8d),
and a solution is turned into a placement by (12)
(:func:`extract_schedule`).

Variables and rows (objective in seconds times ``scale``; ``scale = 1``
unless :func:`solve_exact` rescales, see "Numerics" below):

* ``sigma[i, k]`` binary (8b); ``c8d_worker_once``:
  ``sum_i sigma[i, k] <= 1``; ``c8c_all_workers``:
  ``sum_{i,k} sigma[i, k] == K``.
* ``n[i, m]`` binary, one-hot ``K_i = m``: ``c8b_one_hot``
  ``sum_m n[i, m] == 1`` and ``c8b_worker_count``
  ``sum_k sigma[i, k] == sum_m m n[i, m]``; since ``m >= 1`` this is
  (8b) ``K_i >= 1``.
* ``V[i]`` continuous, ``c13_throughput``: ``V[i] == sum_k rho_{i,k}
  sigma[i, k]`` (13), with bounds ``[lo_i(1), hi_i(M)]`` and the valid rows
  ``v_count_lower`` / ``v_count_upper``:
  ``sum_m lo_i(m) n[i, m] <= V[i] <= sum_m hi_i(m) n[i, m]``, where
  ``lo_i(m)`` (``hi_i(m)``) is the sum of the ``m`` smallest (largest)
  ``rho_{i,k}``: the attainable range of ``V_i`` given ``K_i``.
* ``theta[i]`` continuous, the epigraph of the computation term of (14) in
  objective units: ``theta[i] >= c_i / V[i]`` with ``c_i = (T_i / S)
  |Pi_i|``.  ``c_i / V`` is convex for ``V > 0``, so every tangent is a
  global underestimator; the tangent at ``V0`` is the row (in ``oa_cuts``,
  one ``ConstraintList`` for all jobs)::

      theta[i] >= c_i (2 / V0 - V[i] / V0**2)

  :func:`build_model` adds the tangent at ``hi_i(M)`` and ``cuts`` tangents
  per job at geometrically spaced ``V0`` in ``[lo_i(1), hi_i(M)]`` (or
  explicit points); :func:`add_tangent_cuts` adds more, to a job and to
  every job identical to it (same ``|Pi|``, ``T``, ``D``, ``rho*`` row, hence
  the same function).  Also valid: the bounds ``c_i / hi_i(M) <= theta[i]
  <= c_i / lo_i(1)`` and ``theta_count_lower``: ``theta[i] >= sum_m
  (c_i / hi_i(m)) n[i, m]``.
* Communication (5)-(6) for job ``i`` with ``K_i = m`` and bottleneck rate
  ``r``: ``(T_i / S) 2 (m - 1) (8 D_i / 1000) / (r m)`` seconds, linear in
  ``n`` for a fixed ``r``.  With ``r_fast = max(intra, inter)`` and
  ``r_slow = min(intra, inter)`` the expression ``comm[i]`` is
  ``sum_{m >= 2} a_i(m) n[i, m] + sum_{m >= 2} d_i(m) u[i, m]`` with
  ``a_i(m)`` the term at ``r_fast`` and ``d_i(m) >= 0`` the extra cost at
  ``r_slow``; ``u[i, m] in [0, 1]`` with ``c5_slow_link``
  ``u[i, m] >= n[i, m] + z[i] - 1`` is the product ``n[i, m] z[i]``, and
  ``z[i]`` binary is the node-span indicator "the bottleneck link (5) of
  job ``i`` is the slow one":

  - ``intra > inter`` (the paper's setting): the bottleneck is the
    inter-node link iff the job spans two nodes.  ``home[i, h]`` binary,
    ``c5_home``: ``sum_h home[i, h] + z[i] == 1`` and ``c5_span``:
    ``sigma[i, k] <= home[i, node(k)] + z[i]``, so ``z[i] = 0`` confines all
    of job ``i``'s workers to one node.
  - ``intra < inter``: the bottleneck is an intra-node link iff two of its
    workers share a node.  ``c5_span``: ``sum_{k on h} sigma[i, k] <= 1 +
    (|h| - 1) z[i]`` for every node ``h`` with ``|h| >= 2`` (no ``home``).

  ``K_i = 1`` has no communication.  ``z``, ``u``, ``home`` exist only for
  jobs with ``D_i > 0`` when ``M >= 2``, the rates differ and the slow link
  can occur (two nodes, resp. a node with two workers); ``comm`` is 0 when
  ``inst.communication`` is False.
* Objective ``obj`` (8)/(14): ``sum_i (theta[i] + comm[i])`` =
  ``(1/S) sum_i T_i (l_i^[p] + l_i^[c])``.
* Symmetry (``symmetry=True``).  ``sym_workers``: workers with equal
  ``rho*`` columns (and the same node when ``z`` exists) are
  interchangeable; along such a class ``k_1 < k_2 < ...`` the rows
  ``sum_{i' <= i} sigma[i', k_{j+1}] <= sum_{i' <= i} sigma[i', k_j]``
  (``i < S - 1``) make the job index non-decreasing.  ``sym_jobs``:
  ``V[i] >= V[j]`` for consecutive identical jobs ``i < j``.  Relabelling
  identical jobs by decreasing ``V`` and then sorting each worker class
  changes no job's ``V_i``, ``K_i`` or node set, so every placement has a
  representative satisfying both families with the same objective, in P1
  and in the MILP (identical jobs share their tangents): the optimum and
  the bounds are unchanged.

In formulas, the MILP solved (valid and symmetry rows left out), with
:math:`c_i = (T_i / S) \lvert \Pi_i \rvert`, tangent points :math:`V^0`
and :math:`\mathrm{comm}_i` the communication term above:

.. math::

   \min\ & \sum_{i} \left(\theta_i + \mathrm{comm}_i\right), \qquad
       \theta_i \ge c_i \left(\frac{2}{V^0} - \frac{V_i}{(V^0)^2}\right)
       \ \ \text{for every tangent point } V^0, \\
   \text{s.t.}\ & V_i = \sum_k \rho^*_{i,k} \, \sigma_{i,k}, \qquad
       \sum_k \sigma_{i,k} = \sum_{m=1}^{M} m \, n_{i,m}, \qquad
       \sum_{m=1}^{M} n_{i,m} = 1, \\
   & \sum_i \sigma_{i,k} \le 1, \qquad
       \sum_{i,k} \sigma_{i,k} = K, \qquad
       \sigma_{i,k}, n_{i,m} \in \{0, 1\},

a relaxation of (14) (the tangents under-estimate :math:`c_i / V_i`) that
is exact wherever a tangent touches.

Why it is exact at convergence.  For a feasible ``sigma`` the cheapest
``u``, ``z``, ``home`` give exactly the communication term (6) with (5) (the
slow rate is forced exactly when the bottleneck is slow; a needless
``z[i] = 1`` only costs more), and the smallest ``theta[i]`` is the largest
of the tangents and count bounds at ``V[i]``, which is ``<= c_i / V[i]``
with equality when a tangent at ``V[i]`` itself is present.  So the MILP is
a relaxation of P1 -- its optimum and every HiGHS dual bound, even from a
round stopped by the time limit, are valid lower bounds on P1 -- and it
agrees with (14) at every ``sigma`` whose ``V_i`` all carry a tangent.
:func:`solve_exact` solves it (``mip_gap=0``), evaluates the incumbent with
the independent checker (:func:`optsched.hetero.check.check` on the split
(12) over ``rho*``), adds the tangents at the incumbent's ``V_i`` and
repeats until ``(true incumbent - bound) / true incumbent <= rel_gap``.
This terminates: if a proven MILP optimum's tangents are all present, its
MILP value is its true value, so the bound reaches the incumbent; otherwise
the round adds a tangent at a new value of ``V_i``, of which there are
finitely many.

Numerics.  HiGHS accepts row violations and prunes nodes at absolute
tolerances of about 1e-6 (in objective units), which in seconds would be
~1e-9 of a 1,000 s objective -- the size of ``rel_gap``.
:func:`solve_exact` therefore measures the objective in units in which
the trivial bound ``sum_i c_i / hi_i(M)`` is :data:`P1_OBJECTIVE_SCALE`
(1e4), runs HiGHS with the MIP defaults of :mod:`optsched.core.solver`, and
starts from the better (checked) of a greedy placement and the caller's
start re-split by (12) (:func:`start_placement`; the harness passes the
best of the online algorithms' placements,
:func:`optsched.hetero.paper.default_start`), passed to HiGHS as a MIP
start when the caller gave one, so that a time limit always leaves an
incumbent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from optsched.core.base import OfflineResult, certified_solve, start_objective
from optsched.core.confirm import check_confirm
from optsched.core.errors import SolverError
from optsched.core.protocols import BoundKind, Status
from optsched.core.solver import Deadline, solve
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance
from optsched.hetero.schedule import HeteroPlacement


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


# ==========================================================================
# Exact offline optimum of P1 (8): MILP with outer-approximation cuts
# ==========================================================================

#: HiGHS runs P1 with :data:`optsched.core.solver.MIP_DEFAULTS`.  The
#: reason for ``mip_feasibility_tolerance = 1e-7`` there came from this model:
#: highspy 1.15.1 with HiGHS's default 1e-6 sometimes ended a P1 round with
#: "MIP solver claims optimality, but with num/max/sum primal(1/1e-06/1e-06)
#: infeasibilities" and model status "Solve error" (a tangent row violated by
#: the MIP feasibility tolerance; cf. HiGHS issues #2782, #2808): 1 of 300
#: random generated instances, e.g. round 1 of ``generate(488619, 5, 15,
#: gpus_per_node=1, gpu_mix=(1, 3, 2))``, also with presolve rules 12 and 13
#: off; 1e-7 avoided it on those 300 and keeps row violations far below
#: ``rel_gap``.  Presolve rules 12 and 13 (off by default, a wrong-optimum
#: bug of the OASiS model) are not needed for correctness here in our tests
#: and cost no measurable time.
#:
#: Options of the one retry :func:`solve_exact` makes when a round still ends
#: in a HiGHS error.
P1_FALLBACK_OPTIONS: dict[str, Any] = {"presolve": "off"}

#: :func:`solve_exact` measures the objective in units that make the trivial
#: lower bound (every job alone on its ``K - S + 1`` fastest workers, no
#: communication) equal to this, so that HiGHS's absolute tolerances (1e-6
#: on rows and on the MIP gap) are at most ~1e-10 of the objective.  Seconds
#: (scale 1) left the gap at ~1.1e-9 on ``generate(0, 4, 30)``; much larger
#: units are numerically worse: at 1e6, rows reach 1e7 and HiGHS ended
#: rounds with "Solve error" (violations of 1.0002e-6 after postsolve), and
#: during development (a variant of this model without ``theta_count_lower``
#: and ``sym_jobs``) 1e6 with feasibility tolerances of 1e-9 gave a wrong
#: "optimal" round (6212.04 s instead of 5451.76 s on
#: ``generate(720144, 5, 9, gpus_per_node=5)``).
P1_OBJECTIVE_SCALE = 1e4


@dataclass(frozen=True, eq=False)
class _P1Data:
    """Numbers :func:`build_model` derives from an instance (kept on the model)."""

    rho: np.ndarray  # (S, K) true throughput
    weight: np.ndarray  # (S,) c_i = scale (T_i / S) |Pi_i|
    v_lo: np.ndarray  # (S, M + 1) lo_i(m), column 0 unused
    v_hi: np.ndarray  # (S, M + 1) hi_i(m), column 0 unused
    n_max: int  # M = K - S + 1
    twins: tuple[tuple[int, ...], ...]  # classes of identical jobs

    @property
    def trivial_bound(self) -> float:
        """``sum_i c_i / hi_i(M)``: every job alone on its best workers, no (6)."""
        return float(np.sum(self.weight / self.v_hi[:, self.n_max]))


def _p1_data(inst: HeteroInstance, scale: float = 1.0) -> _P1Data:
    """``c_i``, ``lo_i(m)``, ``hi_i(m)`` and identical-job classes of ``inst`` on ``rho*``."""
    rho = np.asarray(inst.rho, dtype=float)
    S, K = rho.shape
    M = K - S + 1
    srt = np.sort(rho, axis=1)
    v_lo = np.zeros((S, M + 1))
    v_hi = np.zeros((S, M + 1))
    for m in range(1, M + 1):
        v_lo[:, m] = srt[:, :m].sum(axis=1)
        v_hi[:, m] = srt[:, K - m :].sum(axis=1)
    weight = scale * inst.epochs * inst.dataset_size / S
    groups: dict[tuple, list[int]] = {}
    for i, job in enumerate(inst.jobs):
        key = (job.dataset_size, job.epochs, job.model_size_mb, *rho[i].tolist())
        groups.setdefault(key, []).append(i)
    twins = tuple(tuple(g) for g in groups.values())
    return _P1Data(rho, weight, v_lo, v_hi, M, twins)


def _tangent_points(lo: float, hi: float, count: int) -> list[float]:
    """``count`` geometrically spaced points in ``[lo, hi]`` (endpoints included)."""
    if count <= 0:
        return []
    if count == 1 or hi <= lo:
        return [hi]
    return [float(x) for x in np.geomspace(lo, hi, count)]


def add_tangent_cuts(
    model: pyo.ConcreteModel, job: int, points: Sequence[float]
) -> int:
    """Add tangents of ``c_i / V`` at ``points`` to ``model.oa_cuts``.

    Row ``theta[i] >= c_i (2 / V0 - V[i] / V0**2)`` for each ``V0 > 0``, with
    ``c_i = (T_i / S) |Pi_i|`` in the model's objective unit
    (outer approximation of the computation term of (14), module docstring),
    for job ``i = job`` and every job identical to it (same ``|Pi|``, ``T``,
    ``D`` and ``rho*`` row: the same function, so the same valid cut).
    Points whose tangent is already present (relative distance ``<= 1e-12``)
    are skipped.

    Returns
    -------
    int
        Number of rows added.
    """
    data: _P1Data = model._hetero_p1
    twins = next(g for g in data.twins if job in g)
    added = 0
    for i in twins:
        have: list[float] = model._hetero_p1_points[i]
        c = float(data.weight[i])
        for v0 in points:
            v0 = float(v0)
            if not (v0 > 0 and math.isfinite(v0)):
                raise ValueError(
                    f"tangent point for job {job}: need V0 > 0, got {v0!r}"
                )
            if any(abs(v0 - p) <= 1e-12 * max(v0, p) for p in have):
                continue
            model.oa_cuts.add(model.theta[i] + (c / v0**2) * model.V[i] >= 2.0 * c / v0)
            have.append(v0)
            added += 1
    return added


def _worker_classes(
    inst: HeteroInstance, rho: np.ndarray, use_node: bool
) -> list[list[int]]:
    """Classes (size >= 2) of interchangeable workers: equal ``rho`` column (and node)."""
    index: dict[tuple, list[int]] = {}
    for k in range(inst.n_workers):
        key = (tuple(rho[:, k].tolist()), int(inst.node[k]) if use_node else 0)
        index.setdefault(key, []).append(k)
    return [ws for ws in index.values() if len(ws) > 1]


def build_model(
    inst: HeteroInstance,
    *,
    cuts: int | Sequence[Sequence[float]] = 64,
    relax: bool = False,
    symmetry: bool = True,
    scale: float = 1.0,
) -> pyo.ConcreteModel:
    """MILP of P1 (8) on the true throughput, with outer-approximation cuts for (14).

    The formulation and why it is exact are in the module docstring.

    Parameters
    ----------
    inst
        The instance; ``inst.rho`` (true throughput) is used.
    cuts
        Initial tangents of ``c_i / V_i``: an integer ``c`` places ``c``
        geometrically spaced points per job in ``[lo_i(1), hi_i(M)]``; a
        sequence gives explicit points per job.  The tangent at ``hi_i(M)``
        is always added.
    relax
        Relax all binaries to ``[0, 1]`` (the LP relaxation).
    symmetry
        Add the symmetry-breaking rows ``sym_workers`` and ``sym_jobs``
        (module docstring).
    scale
        Objective unit: ``theta``, ``comm`` and the objective are ``scale``
        times their values in seconds (:func:`solve_exact` scales so that
        HiGHS's absolute tolerances are negligible next to ``rel_gap``).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``sigma``, ``n``, ``V``, ``theta``, ``z``, ``u``, ``home``;
        expression ``comm``; rows ``c8b_one_hot``, ``c8b_worker_count``,
        ``c8c_all_workers``, ``c8d_worker_once``, ``c13_throughput``,
        ``v_count_lower``, ``v_count_upper``, ``theta_count_lower``,
        ``c5_slow_link``, ``c5_home``, ``c5_span``, ``sym_workers``,
        ``sym_jobs``, ``oa_cuts``; objective ``obj`` (8).

    Raises
    ------
    ValueError
        If ``scale`` is not a finite number > 0, ``cuts`` is not one list per
        job, or a tangent point is not > 0.
    """
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale: must be a finite number > 0, got {scale!r}")
    if not isinstance(cuts, int) and len(cuts) != inst.n_jobs:
        raise ValueError(
            f"cuts: need an integer or {inst.n_jobs} lists of points, got {len(cuts)}"
        )
    data = _p1_data(inst, scale)
    rho = data.rho
    S, K = rho.shape
    M = data.n_max
    w = scale * inst.epochs / S
    gigabits = inst.model_size_mb * 8.0 / 1000.0
    domain = pyo.UnitInterval if relax else pyo.Binary

    m = pyo.ConcreteModel(name="hetero_P1")
    m._hetero_p1 = data
    m._hetero_p1_points = {i: [] for i in range(S)}
    m.I = pyo.RangeSet(0, S - 1)
    m.K = pyo.RangeSet(0, K - 1)
    m.M = pyo.RangeSet(1, M)
    m.M2 = pyo.RangeSet(2, M)
    m.sigma = pyo.Var(m.I, m.K, domain=domain, doc="(8b) sigma_{i,k}")
    m.n = pyo.Var(m.I, m.M, domain=domain, doc="one-hot K_i = m")
    m.V = pyo.Var(
        m.I,
        bounds=lambda m, i: (float(data.v_lo[i, 1]), float(data.v_hi[i, M])),
        doc="(13) V_i = sum_k sigma_{i,k} rho_{i,k}",
    )
    m.theta = pyo.Var(
        m.I,
        bounds=lambda m, i: (
            float(data.weight[i] / data.v_hi[i, M]),
            float(data.weight[i] / data.v_lo[i, 1]),
        ),
        doc="epigraph of (T_i / S) |Pi_i| / V_i, computation term of (14)",
    )

    _add_assignment_rows(m, data)
    slow_jobs = _add_communication(m, inst, w, gigabits, domain)
    _add_symmetry_rows(m, inst, slow_jobs, symmetry)
    _add_oa_cuts(m, cuts)
    m.obj = pyo.Objective(
        expr=sum(m.theta[i] + m.comm[i] for i in m.I),
        sense=pyo.minimize,
        doc="(8)/(14) average JCT (1/S) sum_i T_i (l_i^[p] + l_i^[c])",
    )
    return m


def _add_assignment_rows(m: pyo.ConcreteModel, data: _P1Data) -> None:
    """(8b)-(8d), (13) and the valid rows on ``V`` and ``theta`` given ``K_i``."""
    rho = data.rho
    K = rho.shape[1]
    # (8b)-(8d)
    m.c8b_one_hot = pyo.Constraint(
        m.I,
        rule=lambda m, i: sum(m.n[i, c] for c in m.M) == 1,
        doc="(8b) exactly one worker count K_i = m >= 1 per job",
    )
    m.c8b_worker_count = pyo.Constraint(
        m.I,
        rule=lambda m, i: (
            sum(m.sigma[i, k] for k in m.K) == sum(c * m.n[i, c] for c in m.M)
        ),
        doc="(8b) K_i = sum_k sigma_{i,k} >= 1",
    )
    m.c8c_all_workers = pyo.Constraint(
        expr=sum(m.sigma[i, k] for i in m.I for k in m.K) == K,
        doc="(8c) all workers participate",
    )
    m.c8d_worker_once = pyo.Constraint(
        m.K,
        rule=lambda m, k: sum(m.sigma[i, k] for i in m.I) <= 1,
        doc="(8d) worker k serves at most one job",
    )
    # (13) and valid inequalities given K_i
    m.c13_throughput = pyo.Constraint(
        m.I,
        rule=lambda m, i: m.V[i] == sum(float(rho[i, k]) * m.sigma[i, k] for k in m.K),
        doc="(13) V_i = sum_k sigma_{i,k} rho_{i,k}",
    )
    m.v_count_lower = pyo.Constraint(
        m.I,
        rule=lambda m, i: (
            m.V[i] >= sum(float(data.v_lo[i, c]) * m.n[i, c] for c in m.M)
        ),
        doc="valid: V_i >= sum of the K_i smallest rho_{i,k}",
    )
    m.v_count_upper = pyo.Constraint(
        m.I,
        rule=lambda m, i: (
            m.V[i] <= sum(float(data.v_hi[i, c]) * m.n[i, c] for c in m.M)
        ),
        doc="valid: V_i <= sum of the K_i largest rho_{i,k}",
    )
    m.theta_count_lower = pyo.Constraint(
        m.I,
        rule=lambda m, i: (
            m.theta[i]
            >= sum(float(data.weight[i] / data.v_hi[i, c]) * m.n[i, c] for c in m.M)
        ),
        doc="valid: (T_i / S) |Pi_i| / V_i >= (T_i / S) |Pi_i| / hi_i(K_i)",
    )


def _add_communication(
    m: pyo.ConcreteModel,
    inst: HeteroInstance,
    w: np.ndarray,
    gigabits: np.ndarray,
    domain: Any,
) -> list[int]:
    """(5)-(6): the bottleneck link's variables, rows and the expression ``comm``.

    Returns the jobs whose bottleneck can be the slow link.
    """
    S, K = m._hetero_p1.rho.shape
    M = m._hetero_p1.n_max
    # (5)-(6) communication
    r_fast = max(inst.intra_gbps, inst.inter_gbps)
    r_slow = min(inst.intra_gbps, inst.inter_gbps)
    nodes = sorted({int(h) for h in inst.node})
    node_size = {h: int((inst.node == h).sum()) for h in nodes}
    if inst.intra_gbps > inst.inter_gbps:
        has_choice = len(nodes) > 1  # spanning two nodes is possible
    else:
        has_choice = any(node_size[h] > 1 for h in nodes)  # sharing is possible
    comm_jobs = [
        i for i in range(S) if inst.communication and gigabits[i] > 0 and M > 1
    ]
    slow_jobs = comm_jobs if (r_slow < r_fast and has_choice) else []

    def coef(i: int, c: int, r: float) -> float:
        return float(w[i] * 2.0 * (c - 1) * gigabits[i] / (r * c))

    m.J_slow = pyo.Set(initialize=slow_jobs, ordered=True)
    m.z = pyo.Var(m.J_slow, domain=domain, doc="(5) bottleneck link is the slow one")
    m.u = pyo.Var(
        m.J_slow, m.M2, bounds=(0.0, 1.0), doc="n[i, m] z[i]: slow link and K_i = m"
    )
    m.c5_slow_link = pyo.Constraint(
        m.J_slow,
        m.M2,
        rule=lambda m, i, c: m.u[i, c] >= m.n[i, c] + m.z[i] - 1,
        doc="(5)-(6) u >= n + z - 1: slow-link cost when K_i = m",
    )
    spans = inst.intra_gbps > inst.inter_gbps  # slow link = between nodes
    shared = [h for h in nodes if node_size[h] > 1]
    m.H = pyo.Set(initialize=nodes if spans else shared, ordered=True)
    m.J_home = pyo.Set(initialize=slow_jobs if spans else [], ordered=True)
    m.home = pyo.Var(m.J_home, m.H, domain=domain, doc="job i confined to node h")
    m.c5_home = pyo.Constraint(
        m.J_home,
        rule=lambda m, i: sum(m.home[i, h] for h in m.H) + m.z[i] == 1,
        doc="(5) one home node unless the job spans nodes (intra > inter)",
    )
    if spans:
        m.c5_span = pyo.Constraint(
            m.J_slow,
            m.K,
            rule=lambda m, i, k: m.sigma[i, k] <= m.home[i, int(inst.node[k])] + m.z[i],
            doc="(5) a job on two nodes has the inter-node bottleneck",
        )
    else:
        m.c5_span = pyo.Constraint(
            m.J_slow,
            m.H,
            rule=lambda m, i, h: (
                sum(m.sigma[i, k] for k in range(K) if int(inst.node[k]) == h)
                <= 1 + (node_size[h] - 1) * m.z[i]
            ),
            doc="(5) two workers on one node: intra-node bottleneck (intra < inter)",
        )

    def comm_rule(m, i):
        if i not in comm_jobs:
            return 0.0
        expr = sum(coef(i, c, r_fast) * m.n[i, c] for c in m.M2)
        if i in slow_jobs:
            expr += sum(
                (coef(i, c, r_slow) - coef(i, c, r_fast)) * m.u[i, c] for c in m.M2
            )
        return expr

    m.comm = pyo.Expression(
        m.I, rule=comm_rule, doc="(6) (T_i / S) l_i^[c] in objective units"
    )

    return slow_jobs


def _add_symmetry_rows(
    m: pyo.ConcreteModel, inst: HeteroInstance, slow_jobs: list[int], symmetry: bool
) -> None:
    """``sym_workers`` and ``sym_jobs`` (module docstring; empty sets without ``symmetry``)."""
    data = m._hetero_p1
    rho = data.rho
    S = rho.shape[0]
    # symmetry breaking
    worker_pairs: list[tuple[int, int]] = []
    job_pairs: list[tuple[int, int]] = []
    if symmetry:
        for ws in _worker_classes(inst, rho, use_node=bool(slow_jobs)):
            worker_pairs += [(ws[j], ws[j + 1]) for j in range(len(ws) - 1)]
        for g in data.twins:
            job_pairs += [(g[j], g[j + 1]) for j in range(len(g) - 1)]
    m.P_workers = pyo.Set(initialize=worker_pairs, dimen=2, ordered=True)
    m.I_sym = pyo.RangeSet(0, S - 2)
    m.sym_workers = pyo.Constraint(
        m.P_workers,
        m.I_sym,
        rule=lambda m, a, b, i: (
            sum(m.sigma[j, b] for j in range(i + 1))
            <= sum(m.sigma[j, a] for j in range(i + 1))
        ),
        doc="symmetry: job(k_j) <= job(k_{j+1}) in a class of identical workers",
    )
    m.P_jobs = pyo.Set(initialize=job_pairs, dimen=2, ordered=True)
    m.sym_jobs = pyo.Constraint(
        m.P_jobs,
        rule=lambda m, i, j: m.V[i] >= m.V[j],
        doc="symmetry: V_i >= V_j for identical jobs i < j",
    )


def _add_oa_cuts(m: pyo.ConcreteModel, cuts: int | Sequence[Sequence[float]]) -> None:
    """Initial tangents of the computation term of (14) (``oa_cuts``)."""
    data = m._hetero_p1
    S, M = data.rho.shape[0], data.n_max
    # outer approximation of (T_i / S) |Pi_i| / V_i
    m.oa_cuts = pyo.ConstraintList(doc="tangent cuts of the computation term of (14)")
    for i in range(S):
        lo, hi = float(data.v_lo[i, 1]), float(data.v_hi[i, M])
        if isinstance(cuts, int):
            pts = _tangent_points(lo, hi, cuts)
        else:
            pts = [float(x) for x in cuts[i]]
        add_tangent_cuts(m, i, [hi, *pts])


def extract_schedule(
    model: pyo.ConcreteModel, inst: HeteroInstance, *, algorithm: str = "offline_milp"
) -> HeteroPlacement:
    """Placement of the loaded solution: ``sigma`` rounded, split (12) on ``inst.rho``."""
    S, K = inst.n_jobs, inst.n_workers
    sig = np.array(
        [[pyo.value(model.sigma[i, k]) or 0.0 for k in range(K)] for i in range(S)]
    )
    return HeteroPlacement.from_assignment(
        inst, sig.argmax(axis=0), algorithm=algorithm, rho=inst.rho
    )


def _greedy_assignment(inst: HeteroInstance) -> np.ndarray:
    """A feasible start for :func:`solve_exact` (ignores communication).

    Jobs in descending ``T_i |Pi_i|`` each take their fastest free worker
    (8b); every other worker, in descending ``sum_i rho*_{i,k}``, goes to the
    job whose computation term ``T_i |Pi_i| / V_i`` (11) it lowers most
    (8c)-(8d).
    """
    rho = np.asarray(inst.rho, dtype=float)
    S, K = rho.shape
    c = inst.epochs * inst.dataset_size
    a = np.full(K, -1, dtype=np.int64)
    V = np.zeros(S)
    for i in np.argsort(-c, kind="stable"):
        free = np.flatnonzero(a < 0)
        k = int(free[np.argmax(rho[i, free])])
        a[k] = i
        V[i] += rho[i, k]
    for k in np.argsort(-rho.sum(axis=0), kind="stable"):
        if a[k] < 0:
            i = int(np.argmax(c / V - c / (V + rho[:, k])))
            a[k] = i
            V[i] += rho[i, k]
    return a


def resplit(inst: HeteroInstance, sched: HeteroPlacement) -> HeteroPlacement:
    """``sched``'s worker assignment with the split (12) on the true throughput.

    The split P1 optimises for a fixed ``sigma``, so the re-split placement
    is never worse than ``sched`` (``algorithm="offline_milp"``).
    """
    return HeteroPlacement.from_assignment(
        inst,
        np.asarray(sched.sigma).argmax(axis=0),
        algorithm="offline_milp",
        rho=inst.rho,
    )


def start_placement(
    inst: HeteroInstance, start: HeteroPlacement | None = None
) -> tuple[HeteroPlacement, Any]:
    """The start of :func:`solve_exact`: ``(placement, evaluation)``.

    Candidates: :func:`_greedy_assignment` and ``start`` (a checked
    placement of ``inst``, e.g. an online algorithm's), each re-split by
    (12) on the true throughput (:func:`resplit`) and evaluated by the
    checker; the lower average JCT (8) wins, the greedy one on ties.
    """
    greedy = HeteroPlacement.from_assignment(
        inst, _greedy_assignment(inst), algorithm="offline_milp", rho=inst.rho
    )
    best = (greedy, check(inst, greedy))
    if start is not None:
        sched = resplit(inst, start)
        ev = check(inst, sched)
        if ev.objective < best[1].objective:
            best = (sched, ev)
    return best


def _sigma_start(model: pyo.ConcreteModel, sched: HeteroPlacement) -> ComponentMap:
    """Partial MIP start: ``sigma`` and the one-hot ``n`` of a placement (HiGHS completes the rest)."""
    sigma = np.asarray(sched.sigma)
    values = ComponentMap()
    for (i, k), v in model.sigma.items():
        values[v] = float(sigma[i, k] > 0.5)
    counts = (sigma > 0.5).sum(axis=1)
    for (i, c), v in model.n.items():
        values[v] = float(counts[i] == c)
    return values


def solve_exact(
    inst: HeteroInstance,
    *,
    time_limit: float | None = 60.0,
    start: HeteroPlacement | None = None,
    rel_gap: float = 1e-9,
    max_rounds: int = 50,
    cuts: int = 64,
    threads: int | None = None,
    verbose: bool = False,
    confirm: str | None = None,
) -> OfflineResult:
    """Certified optimum of P1 (8) on the true throughput by outer approximation.

    The steps are :func:`optsched.core.base.certified_solve`'s, with the
    outer-approximation loop as the solve step: solve :func:`build_model`
    with HiGHS (``mip_gap=0``), evaluate the incumbent with the checker
    (:func:`optsched.hetero.check.check` on
    ``HeteroPlacement.from_assignment(..., rho=inst.rho)``), add the tangent
    cuts at the incumbent's ``V_i`` (:func:`add_tangent_cuts`) and re-solve,
    until ``(true incumbent - bound) / true incumbent <= rel_gap``.  The
    bound is the largest HiGHS dual bound over the rounds (and at least the
    trivial bound of ``_P1Data.trivial_bound``); every round's MILP is a
    relaxation of P1, so it is valid even when a round stopped at its time
    limit.

    Parameters
    ----------
    inst
        The instance (``inst.rho`` is used; the prediction is ignored).
    time_limit
        Wall-clock budget in seconds for all rounds together (None = none);
        each MILP gets what is left, and HiGHS may overshoot it.
    start
        A checked placement of ``inst`` (the harness passes the best of the
        online placements, :func:`optsched.hetero.paper.default_start`), or
        None.  The run starts from :func:`start_placement` (the better of
        the greedy placement and ``start``, both re-split by (12)), whose
        tangents are added before round 1; with ``start`` it is also passed
        to HiGHS as a MIP start in round 1, without it HiGHS gets no start.
    rel_gap
        Relative gap at which the incumbent is declared optimal.
    max_rounds
        Largest number of MILP solves.
    cuts
        Initial tangents per job (:func:`build_model`).
    threads, verbose
        Passed to :func:`optsched.core.solver.solve`.
    confirm
        None or ``"scip"``: a second opinion from SCIP (:func:`_last_proven_milp`).

    Returns
    -------
    OfflineResult
        ``objective``: the checker's average JCT (8) of the best incumbent
        (the start of :func:`start_placement` if HiGHS found nothing
        better); ``bound``: the best valid lower bound
        (never above ``objective``); ``status``: ``optimal`` only when the
        gap closed and every MILP solve was proven optimal, ``time_limit``
        when the budget or ``max_rounds`` ran out first, ``error`` when
        HiGHS failed twice on a round (MIP defaults of
        :mod:`optsched.core.solver`, then :data:`P1_FALLBACK_OPTIONS`), when a HiGHS bound exceeded a true
        incumbent (an invalid bound; the trivial bound is then reported), or
        when the gap stayed open although every incumbent tangent was
        present (numerical tolerances); ``schedule``: the incumbent
        placement, whose ``meta`` holds ``rounds``, ``gap`` and the per-round
        ``history`` (seconds).  An instance without jobs has the empty
        placement, optimal with objective 0 (no HiGHS call).

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker (``"start: ..."``).
    """
    check_confirm(confirm)
    deadline = Deadline(time_limit)
    if inst.n_jobs == 0:
        K = inst.n_workers
        empty = HeteroPlacement(
            np.zeros((0, K), dtype=np.int64), np.zeros((0, K)), "offline_milp"
        )
        start_objective(inst, start, check)
        value = check(inst, empty).objective
        return OfflineResult(value, value, "optimal", deadline.elapsed(), empty)
    start_objective(inst, start, check)  # the caller's start must be feasible
    best_sched, ev = start_placement(inst, start)
    data = _p1_data(inst)
    trivial = data.trivial_bound
    scale = P1_OBJECTIVE_SCALE / trivial

    def build(_: Deadline) -> pyo.ConcreteModel:
        model = build_model(inst, cuts=cuts, scale=scale)
        for i in range(inst.n_jobs):
            add_tangent_cuts(model, i, [float(ev.throughput[i])])
        return model

    def oa_rounds(
        model: pyo.ConcreteModel, seed: ComponentMap | None, dl: Deadline
    ) -> OfflineResult:
        return _oa_loop(
            inst, model, seed, dl, best_sched, ev.objective, trivial, scale,
            rel_gap=rel_gap, max_rounds=max_rounds, threads=threads,
            verbose=verbose,
        )  # fmt: skip

    return certified_solve(
        inst,
        build=build,
        extract=lambda model: extract_schedule(model, inst),
        check=check,
        sense="min",
        time_limit=time_limit,
        start=best_sched,
        start_values=_sigma_start if start is not None else None,
        bound=lambda: min(trivial, ev.objective),
        solve_step=oa_rounds,
        deadline=deadline,
        confirm=confirm,
        final_model=_last_proven_milp,
    )


def _last_proven_milp(model: pyo.ConcreteModel) -> tuple[pyo.ConcreteModel, float]:
    """The MILP of the last round of :func:`_oa_loop` and HiGHS's optimum of it.

    For ``confirm="scip"``: the tangents added after that solve are
    deactivated (the model is not solved again), so SCIP gets exactly the
    model HiGHS proved optimal; they would raise the optimum where the loop
    stopped at ``rel_gap`` with new tangents.  The value is in the model's
    (scaled) units.  SCIP's time and a mismatch follow
    :func:`optsched.core.base.certified_solve` (one thread, what is left of
    ``time_limit``; the result is unchanged when SCIP proves nothing).
    """
    n_cuts, objective = model._p1_last_round
    for index in model.oa_cuts:
        if index > n_cuts:
            model.oa_cuts[index].deactivate()
    return model, objective


def solve_offline(
    inst: HeteroInstance,
    *,
    time_limit: float | None = 60.0,
    start: HeteroPlacement | None = None,
    confirm: str | None = None,
    **options: Any,
) -> OfflineResult:
    """Certified optimum of P1 (8): :func:`solve_exact` (``options`` are its keywords).

    Parameters
    ----------
    inst
        The instance.
    time_limit
        Wall-clock budget in seconds (None = none).
    start
        A checked placement of ``inst``, or None.
    confirm
        None, or ``"scip"``: confirm the proven optimum of the last
        outer-approximation MILP with SCIP (see :func:`solve_exact`;
        ``pip install optsched[scip]``).
    **options
        Further keywords of :func:`solve_exact` (``rel_gap``, ``threads``, ...).

    Returns
    -------
    OfflineResult
        :func:`solve_exact`'s result.
    """
    return solve_exact(
        inst, time_limit=time_limit, start=start, confirm=confirm, **options
    )


def _oa_loop(
    inst: HeteroInstance,
    model: pyo.ConcreteModel,
    seed: ComponentMap | None,
    deadline: Deadline,
    best_sched: HeteroPlacement,
    best_obj: float,
    trivial: float,
    scale: float,
    *,
    rel_gap: float,
    max_rounds: int,
    threads: int | None,
    verbose: bool,
) -> OfflineResult:
    """The outer-approximation rounds of :func:`solve_exact` (its solve step)."""
    best_bound = trivial
    kind: BoundKind = "combinatorial"  # which bound best_bound is
    status: Status = "time_limit"
    history: list[dict[str, Any]] = [{"status": "start", "true_objective": best_obj}]
    for _ in range(max_rounds):
        left = deadline.remaining()
        if left is not None and left <= 0:
            break
        kw: dict[str, Any] = {"threads": threads, "verbose": verbose}
        res = solve(model, time_limit=left, start=seed, **kw)
        seed = None  # round 1 only; later rounds find the incumbent's tangents
        if res.status == "error":
            history.append({"status": "error", "runtime": res.runtime})
            if left is not None:
                left = max(1.0, deadline.remaining() or 0.0)
            res = solve(model, time_limit=left, options=P1_FALLBACK_OPTIONS, **kw)
        if res.status not in ("optimal", "time_limit"):
            history.append({"status": res.status, "runtime": res.runtime})
            status = "error"
            break
        if not math.isnan(res.bound) and res.bound / scale > best_bound:
            best_bound, kind = res.bound / scale, "milp"
        true_obj = math.nan
        added = 0
        # what HiGHS solved this round (for confirm="scip", _last_proven_milp)
        model._p1_last_round = (len(model.oa_cuts), res.objective)
        if res.has_solution:
            sched = extract_schedule(model, inst)
            ev = check(inst, sched)
            true_obj = ev.objective
            if true_obj < best_obj:
                best_obj, best_sched = true_obj, sched
            for i in range(inst.n_jobs):
                added += add_tangent_cuts(model, i, [float(ev.throughput[i])])
        history.append(
            {
                "status": res.status,
                "milp_objective": res.objective / scale,
                "milp_bound": res.bound / scale,
                "true_objective": true_obj,
                "runtime": res.runtime,
                "cuts_added": added,
            }
        )
        if best_bound > best_obj * (1.0 + rel_gap + 1e-9):
            # an invalid HiGHS bound
            status, best_bound, kind = "error", trivial, "combinatorial"
            break
        if res.status != "optimal":
            break
        if best_obj - best_bound <= rel_gap * best_obj:
            status, kind = "optimal", "milp"  # proven by the MILP rounds
            break
        if added == 0:
            status = "error"  # tangents present, gap open: tolerances
            break
    runtime = deadline.elapsed()
    # a valid bound stays valid when lowered to the incumbent (float noise)
    best_bound = min(best_bound, best_obj)
    best_sched.meta.update(
        {
            "rounds": sum(1 for h in history if "milp_objective" in h),
            "gap": (best_obj - best_bound) / best_obj,
            "history": history,
        }
    )
    return OfflineResult(best_obj, best_bound, status, runtime, best_sched, kind)
