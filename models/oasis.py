r"""Offline models of OASiS (Bao et al., INFOCOM 2018): MILP (1)-(13), ILP (14)-(18), dual (19)-(20).

Exact MILP of problem (1)-(13)
------------------------------
Variables (Pyomo indices: jobs ``i``, servers ``h``/``k`` and resources ``r``
0-based as in the instance arrays, slots ``t`` 1-based as in the paper):

* ``x[i]`` binary, admission (11);
* ``y[i, h, t]``, ``z[i, k, t]`` non-negative integers (12)-(13), created only
  for ``t >= a_i`` -- this *is* (9)-(10) -- and only on servers where a single
  worker (parameter server) of job ``i`` fits the empty server, with the upper
  bound ``min(N_max_i, floor(min_r c^r / w_i^r))``;
* ``u[i, t]`` binary, "job ``i`` completes in slot ``t``", created only for
  ``t >= a_i + ceil(W_i / N_max_i) - 1`` (no earlier completion is possible);
* ``n[i, t] = sum_h y[i, h, t]`` (row ``n_def``), integer: the workers of job
  ``i`` in slot ``t``; branching on it is much more effective than on ``y``.

Here ``W_i = ceil(E_i N_i M_i (tau_i + 2 e_i/b_i))``: the ``y`` are integers, so
the right-hand side of (2) can be rounded up (``optsched.oasis.instance.ceil_eps``,
which is never stricter than the checker's tolerance), and ``N_max_i <= N_i``
is the largest number of workers of job ``i`` that, together with the
``min(ceil(n b_i/B_i), n)`` parameter servers (6)-(7) require, fits the empty
cluster in one slot (0 if none fits, or if the job cannot finish by ``T``:
then ``x_i`` is fixed to 0).  (3) is written with ``N_max_i x_i``.

The arg max (8) is linearised with the completion indicators::

    sum_t u[i, t] == x_i                                   (c8_completion_once)
    n[i, t] <= N_max_i * sum_{t' >= t} u[i, t']            (c8_completion_upper)
    n[i, t] >= u[i, t]                                     (c8_completion_lower)
    objective (1) = sum_{i, t} f_i(t - a_i) u[i, t]

In formulas, with ``n_{i,t} = sum_h y[i, h, t]`` and the capacity rows
(4)-(7) unchanged:

.. math::

   \max\ & \sum_{i \in [I]} \sum_{t \ge a_i} f_i(t - a_i) \, u_{i,t} \\
   \text{s.t.}\ & \sum_{t} u_{i,t} = x_i, \qquad
       u_{i,t} \le n_{i,t} \le N_i^{\max} \sum_{t' \ge t} u_{i,t'}, \\
   & \sum_{t \ge a_i} n_{i,t} \ge W_i \, x_i \ \ \text{(2)}, \qquad
       n_{i,t} \le N_i^{\max} x_i \ \ \text{(3)}.

This is exact: if ``u[i, t] = 1`` the upper rows forbid workers after ``t``
and the lower row puts at least one worker in ``t``, so ``t`` is precisely the
last slot with workers, ``t_hat_i`` of (8); a rejected job has ``u = 0`` hence
no workers, which is (3) with ``x_i = 0``.  Conversely every feasible schedule
of (1)-(13) maps to ``u[i, t_hat_i] = x_i`` with the same objective.  Because
``f_i`` is non-increasing the lower row is not even needed for the optimum
value (the solver would put ``u`` on the earliest slot after the last worker,
which is ``t_hat_i``, and gain ``f_i(t_hat_i - a_i) >= f_i(t - a_i)``); it is
kept so that every feasible point, not only the optimal ones, has the
objective the checker recomputes.  Upper rows for ``t`` before the earliest
completion coincide with (3) and are not repeated.

Valid inequality (holds for every integer schedule, tightens the LP):
``c8_work_by_completion``: ``sum_{t' <= t} n[i, t'] >= W_i sum_{t' <= t}
u[i, t']`` (a job that completed by ``t`` has done all its work by ``t``).
Capacity rows (4)-(5) that cannot bind (every variable at its upper bound)
are skipped.

Dominance restrictions (``dominance=True``, the default) remove feasible
schedules but never all optimal ones, so the optimum of (1) is unchanged:

* ``dom_no_surplus_work``: ``sum_t n[i, t] <= W_i x_i``.  A schedule with
  surplus worker-slots stays feasible, with the same completion slot, when a
  worker is removed from a slot other than a completion slot holding a
  single worker (and ``z`` is lowered to ``min(z, n)``, which (6) allows since
  ``b_i <= B_i``).
* ``dom_min_ps``: ``sum_k z[i, k, t] <= n[i, t] b_i/B_i + 1 - delta_i``, i.e. at
  most ``ceil(n b_i/B_i)`` parameter servers, the fewest (6) allows
  (``delta_i > 0`` is computed from the grid ``n = 0..N_max_i``).  Dropping
  surplus parameter servers keeps (5)-(7).

Both restrictions and ``n`` cut HiGHS's solve times on the Fig. 5 setting
(e.g. ``generate(24, 10, 10, 8, 8)``: not closed in 90 s without them, 14-26 s
with them).  ``dominance=False`` gives the plain feasible set of (1)-(13).

Schedule ILP (14)-(18), its dual (19)-(20) and column generation
----------------------------------------------------------------
``L_i`` is taken as the schedules of job ``i`` that satisfy (2), (3), (6),
(7), (9)-(13) *and fit the empty cluster* (``y_ih(t) w_i^r <= c_h^r``,
``z_ik(t) s_i^r <= c_k^r``).  Every integer solution of (14) only uses such
schedules, so (14) keeps its optimum, and the LP relaxation can only get
tighter.  :func:`best_column` solves the pricing problem (21) *exactly* over
this ``L_i``; :func:`dual_bound` evaluates the Lagrangian dual function
``D(p, q)`` of (19)-(20); :func:`column_generation` solves the LP relaxation of
(14)-(17) to optimality; :func:`build_dual` writes (19)-(20) restricted to a
set of columns.  The bounds chain is ``OPT <= LP(14) <= D(p, q)`` for every
``p, q >= 0``, with ``LP(14) == min_{p, q} D(p, q)``.

Alg. 2 of the paper (``optsched.oasis.online.best_schedule``) prices only
*chunk-granular* schedules: ``d`` chunks in a slot need
``ceil(d M_i (tau_i + 2e_i/b_i))`` workers, so a slot always gets a rounded-up
worker count per chunk total.  :func:`best_column` instead chooses the worker
count ``n_t`` of each slot directly (the ILP (14) only asks
``sum_t n_t >= E_i N_i M_i (tau_i + 2e_i/b_i)``), so its profit is never below
Alg. 2's payoff at the same prices on the empty cluster and can be strictly
above it.  Both are kept: Alg. 2 is the paper's online subroutine, the oracle
is what a valid dual bound needs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from optsched.core.base import OfflineResult, certified_solve
from optsched.core.errors import SolverError
from optsched.core.solver import Deadline, PersistentLP
from optsched.oasis.check import check
from optsched.oasis.instance import OasisInstance, ceil_eps
from optsched.oasis.online import place, slot_cost_curve
from optsched.oasis.schedule import OasisSchedule

__all__ = [
    "CGResult",
    "Column",
    "best_column",
    "build_dual",
    "build_master",
    "colgen_bound",
    "completion_bound",
    "build_model",
    "job_limits",
    "column_cost",
    "column_generation",
    "dual_bound",
    "extract_schedule",
    "solve_offline",
    "start_values",
    "utility_bound",
]


#: HiGHS options of :func:`solve_offline`, on top of
#: :data:`optsched.core.solver.MIP_DEFAULTS` (presolve rules 12 and 13 off:
#: highspy 1.15.1's presolve returned 0 instead of 91.17 on a one-job
#: instance of this model, and 250.52 instead of 251.90 on
#: ``generate(4, n_jobs=10, n_slots=10, n_worker_servers=4, n_ps_servers=4)``).
#:
#: Override, measured: sigmoid utilities of time-critical jobs differ by
#: < 1e-6 between completion slots; with ``mip_feasibility_tolerance`` 1e-6
#: HiGHS returned completions up to 8e-7 worse than optimal as "optimal"
#: (with an equally wrong bound).  1e-9 fixes it at no measurable cost.
HIGHS_OPTIONS: dict[str, float] = {"mip_feasibility_tolerance": 1e-9}

#: HiGHS options of the full solve of :func:`solve_offline`:
#: :data:`HIGHS_OPTIONS` and ``mip_heuristic_effort`` 0.3 (HiGHS's default
#: 0.05).  Measured on the record of Fig. 5 at 50 jobs (2026-11-27 22:12,
#: 120 s per solve, against the record of 19:33 with the default): 26 of
#: 45 proven (was 25), 6 intervals above 5% (was 7), widest 13.8% (was
#: 14.5%), mean width 1.6% (was 1.9%); on the 20 instances open in either
#: record the interval narrowed on 14 and widened on 5 (docs/oasis.md,
#: "Fig. 5 at 50 jobs").  The node-limited sub-solves of the window and
#: neighbourhood searches keep :data:`HIGHS_OPTIONS` (their node budget is
#: spent on search already).
SOLVE_OPTIONS: dict[str, float] = {**HIGHS_OPTIONS, "mip_heuristic_effort": 0.3}


# --------------------------------------------------------------------------
# Per-job quantities shared by the MILP and the oracle
# --------------------------------------------------------------------------
def _fit(cap: np.ndarray, dem: np.ndarray) -> np.ndarray:
    """Units of demand ``dem`` (R,) fitting each empty server ``cap`` (S, R), cf. (30)-(31)."""
    pos = dem > 0
    if not pos.any():  # pragma: no cover - bandwidth demand is always > 0
        return np.full(cap.shape[0], np.iinfo(np.int64).max // 4)
    per = np.floor(cap[:, pos] / dem[pos] + 1e-9)
    return np.maximum(per.min(axis=1), 0).astype(np.int64)


def _empty_curve(inst: OasisInstance, i: int) -> np.ndarray:
    """Feasibility of ``n = 0..N_i`` workers of job ``i`` in one empty slot."""
    H, K, R = inst.n_worker_servers, inst.n_ps_servers, inst.n_resources
    zh, zk = np.zeros((H, R)), np.zeros((K, R))
    return slot_cost_curve(inst, i, zh, zk, zh, zk)


def _max_workers(inst: OasisInstance, i: int) -> int:
    """``N_max_i``: most workers (with their PS) fitting the empty cluster, (3)-(7)."""
    finite = np.flatnonzero(np.isfinite(_empty_curve(inst, i)))
    return int(finite.max())  # n = 0 is always feasible


# --------------------------------------------------------------------------
# Exact MILP of (1)-(13)
# --------------------------------------------------------------------------
def job_limits(
    inst: OasisInstance, jobs: Iterable[int] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Per job ``N_max_i`` (:func:`_max_workers`), ``W_i`` (the work rounded
    up), the earliest completion slot (``T + 1`` when the job cannot finish
    within the horizon) and the live jobs (those that can).

    ``jobs`` iterates over ``range(n_jobs)`` (e.g. through a deadline's
    ``iterate``); the default is ``range(n_jobs)``.
    """
    I, T = inst.n_jobs, inst.n_slots
    W = ceil_eps(inst.work)
    order = range(I) if jobs is None else jobs
    nmax = np.array([_max_workers(inst, i) for i in order], dtype=np.int64)
    first = np.full(I, T + 1, dtype=np.int64)
    for i in range(I):
        if nmax[i] > 0:
            first[i] = int(inst.arrival[i]) + int(math.ceil(W[i] / nmax[i])) - 1
    live = [i for i in range(I) if first[i] <= T]
    return nmax, W, first, live


@dataclass(frozen=True)
class _ModelData:
    """Limits and index lists of one :func:`build_model` call.

    ``nmax``, ``W``, ``first``, ``live`` as :func:`job_limits` returns them;
    ``psmax[i]`` bounds one PS server's ``z`` (the fewest PS for ``N_max_i``
    workers with ``dominance``, else ``N_max_i``); ``delta[i]`` is the slack
    of the fewest-PS row; ``fit_w`` (I, H) / ``fit_p`` (I, K) the units of a
    job fitting each empty server; ``y_idx`` / ``z_idx`` / ``u_idx`` / ``jt``
    the index lists of ``y``, ``z``, ``u`` and ``n``.
    """

    nmax: np.ndarray
    W: np.ndarray
    first: np.ndarray
    live: list[int]
    psmax: np.ndarray
    delta: np.ndarray
    fit_w: np.ndarray
    fit_p: np.ndarray
    y_idx: list[tuple[int, int, int]]
    z_idx: list[tuple[int, int, int]]
    u_idx: list[tuple[int, int]]
    jt: list[tuple[int, int]]


def _model_data(inst: OasisInstance, dominance: bool, dl: Deadline) -> _ModelData:
    """The limits and index lists of :func:`build_model` (:class:`_ModelData`)."""
    I, H, K, T = inst.n_jobs, inst.n_worker_servers, inst.n_ps_servers, inst.n_slots
    a = inst.arrival
    nmax, W, first, live = job_limits(inst, dl.iterate(range(I), every=1))
    fit_w = np.array([_fit(inst.c_worker, inst.w[i]) for i in range(I)]).reshape(I, H)
    fit_p = np.array([_fit(inst.c_ps, inst.s[i]) for i in range(I)]).reshape(I, K)
    # parameter servers: ceil(n b/B) <= n PS are needed for n workers (6)-(7)
    # (b_i <= B_i for every live job, else no worker could run)
    psmax = nmax.copy()
    delta = np.zeros(I)
    for i in live:
        grid = np.arange(int(nmax[i]) + 1) * float(inst.b[i] / inst.B[i])
        need = ceil_eps(grid)
        if dominance:
            psmax[i] = int(need[-1])
        # largest delta with ceil(n b/B) <= n b/B + 1 - delta for all n <= N_max
        delta[i] = max(0.0, float(np.min(1.0 + grid - need)) - 1e-6)
    return _ModelData(
        nmax=nmax,
        W=W,
        first=first,
        live=live,
        psmax=psmax,
        delta=delta,
        fit_w=fit_w,
        fit_p=fit_p,
        y_idx=[
            (i, h, t)
            for i in live
            for h in range(H)
            if fit_w[i, h] > 0
            for t in range(a[i], T + 1)
        ],
        z_idx=[
            (i, k, t)
            for i in live
            for k in range(K)
            if fit_p[i, k] > 0
            for t in range(a[i], T + 1)
        ],
        u_idx=[(i, t) for i in live for t in range(first[i], T + 1)],
        jt=[(i, t) for i in live for t in range(a[i], T + 1)],
    )


def _total(m: pyo.ConcreteModel, inst: OasisInstance, i: int):
    """Worker-slots of job ``i`` over the horizon, the left side of (2)."""
    return pyo.quicksum(m.n[i, t] for t in range(inst.arrival[i], inst.n_slots + 1))


def _nps(zs: dict[tuple[int, int], list], i: int, t: int):
    """Parameter servers of job ``i`` in slot ``t`` (``sum_k z[i, k, t]``)."""
    return pyo.quicksum(zs.get((i, t), []))


def _add_variables(
    m: pyo.ConcreteModel, inst: OasisInstance, d: _ModelData, relax: bool, dl: Deadline
) -> dict[tuple[int, int], list]:
    """Sets, ``x``, ``y``, ``z``, ``u``, ``n`` and ``n_def``; returns the
    PS variables of each (job, slot) for :func:`_nps`."""
    int_dom = pyo.NonNegativeReals if relax else pyo.NonNegativeIntegers
    bin_dom = pyo.UnitInterval if relax else pyo.Binary
    nmax, psmax, fit_w, fit_p = d.nmax, d.psmax, d.fit_w, d.fit_p
    m.I = pyo.Set(initialize=range(inst.n_jobs), ordered=True)
    m.T = pyo.RangeSet(1, inst.n_slots)
    m.Y = pyo.Set(initialize=d.y_idx, dimen=3, ordered=True)
    m.Z = pyo.Set(initialize=d.z_idx, dimen=3, ordered=True)
    m.U = pyo.Set(initialize=d.u_idx, dimen=2, ordered=True)

    m.x = pyo.Var(m.I, domain=bin_dom)
    for i in range(inst.n_jobs):
        if i not in d.live:
            m.x[i].fix(0)
    m.y = pyo.Var(
        m.Y, domain=int_dom, bounds=lambda _, i, h, t: (0, min(nmax[i], fit_w[i, h]))
    )
    m.z = pyo.Var(
        m.Z, domain=int_dom, bounds=lambda _, i, k, t: (0, min(psmax[i], fit_p[i, k]))
    )
    m.u = pyo.Var(m.U, domain=bin_dom)

    m.JT = pyo.Set(initialize=d.jt, dimen=2, ordered=True)
    # n[i, t] = sum_h y[i, h, t]: workers of job i in slot t (branching on it
    # is far more effective than on the per-server y)
    m.n = pyo.Var(m.JT, domain=int_dom, bounds=lambda _, i, t: (0, int(nmax[i])))
    ys: dict[tuple[int, int], list] = {}
    zs: dict[tuple[int, int], list] = {}
    for i, h, t in d.y_idx:
        ys.setdefault((i, t), []).append(m.y[i, h, t])
    for i, k, t in d.z_idx:
        zs.setdefault((i, t), []).append(m.z[i, k, t])
    m.n_def = dl.constraint(
        m.JT, rule=lambda _, i, t: m.n[i, t] == pyo.quicksum(ys.get((i, t), []))
    )
    return zs


def _add_worker_rows(
    m: pyo.ConcreteModel, inst: OasisInstance, d: _ModelData, dl: Deadline
) -> None:
    """(2) workload (integer ``y``: right-hand side rounded up) and (3)
    concurrent workers (``N_i`` replaced by the tighter ``N_max_i <= N_i``)."""
    W, nmax = d.W, d.nmax
    m.c2_workload = dl.constraint(
        d.live, rule=lambda _, i: _total(m, inst, i) >= int(W[i]) * m.x[i]
    )
    m.c3_max_workers = dl.constraint(
        m.JT, rule=lambda _, i, t: m.n[i, t] <= int(nmax[i]) * m.x[i]
    )


def _capacity_rows(
    idx: list[tuple[int, int, int]],
    var: pyo.Var,
    dem: np.ndarray,
    cap: np.ndarray,
    taken: np.ndarray | None,
    dl: Deadline,
) -> dict[tuple[int, int, int], object]:
    """Rows (4) (or (5)) that can bind, keyed by (server, resource, slot):
    ``sum_i dem[i, r] var[i, s, t] <= cap[s, r] - taken[s, r, t - 1]``; a
    row whose variables' upper bounds cannot exceed it is left out."""
    users: dict[tuple[int, int], list] = {}
    for i, s, t in idx:
        users.setdefault((s, t), []).append(i)
    rows = {}
    for (s, t), js in dl.iterate(users.items()):
        for r in range(dem.shape[1]):
            terms = [(float(dem[i, r]), var[i, s, t]) for i in js if dem[i, r] > 0]
            if not terms:
                continue
            left = float(cap[s, r]) - (0.0 if taken is None else taken[s, r, t - 1])
            left = max(left, 0.0)  # other jobs' use at capacity: round-off only
            most = sum(c * v.ub for c, v in terms)
            if most <= left + 1e-9:
                continue
            rows[(s, r, t)] = pyo.quicksum(c * v for c, v in terms) <= left
    return rows


def _add_capacity_rows(
    m: pyo.ConcreteModel,
    inst: OasisInstance,
    d: _ModelData,
    used: tuple[np.ndarray, np.ndarray] | None,
    dl: Deadline,
) -> None:
    """(4) worker-server and (5) PS-server capacity rows that can bind."""
    g_used, v_used = (None, None) if used is None else used
    rows4 = _capacity_rows(d.y_idx, m.y, inst.w, inst.c_worker, g_used, dl)
    rows5 = _capacity_rows(d.z_idx, m.z, inst.s, inst.c_ps, v_used, dl)
    m.c4_worker_capacity = dl.constraint(
        list(rows4), rule=lambda _, h, r, t: rows4[h, r, t]
    )
    m.c5_ps_capacity = dl.constraint(
        list(rows5), rule=lambda _, k, r, t: rows5[k, r, t]
    )


def _add_ps_rows(
    m: pyo.ConcreteModel,
    inst: OasisInstance,
    zs: dict[tuple[int, int], list],
    dl: Deadline,
) -> None:
    """(6) PS bandwidth covers worker bandwidth, (7) #PS <= #workers."""
    m.c6_ps_bandwidth = dl.constraint(
        m.JT,
        rule=lambda _, i, t: (
            float(inst.b[i]) * m.n[i, t] <= float(inst.B[i]) * _nps(zs, i, t)
        ),
    )
    m.c7_ps_count = dl.constraint(
        m.JT, rule=lambda _, i, t: _nps(zs, i, t) <= m.n[i, t]
    )


def _add_completion_rows(
    m: pyo.ConcreteModel, inst: OasisInstance, d: _ModelData, dl: Deadline
) -> None:
    """(8), the completion slot, with the indicators ``u`` (module docstring)."""
    a, T, first, nmax, W = inst.arrival, inst.n_slots, d.first, d.nmax, d.W
    m.c8_completion_once = dl.constraint(
        d.live,
        rule=lambda _, i: (
            pyo.quicksum(m.u[i, t] for t in range(first[i], T + 1)) == m.x[i]
        ),
    )

    def upper(_, i, t):
        later = pyo.quicksum(m.u[i, s] for s in range(max(t, first[i]), T + 1))
        return m.n[i, t] <= int(nmax[i]) * later

    m.c8_completion_upper = dl.constraint(
        [(i, t) for i, t in d.jt if t >= first[i]], rule=upper
    )
    m.c8_completion_lower = dl.constraint(
        m.U, rule=lambda _, i, t: m.n[i, t] >= m.u[i, t]
    )

    def by_completion(_, i, t):
        done = pyo.quicksum(m.n[i, s] for s in range(a[i], t + 1))
        return done >= int(W[i]) * pyo.quicksum(
            m.u[i, s] for s in range(first[i], t + 1)
        )

    m.c8_work_by_completion = dl.constraint(
        [(i, t) for i, t in d.u_idx if t < T], rule=by_completion
    )


def _add_dominance_rows(
    m: pyo.ConcreteModel,
    inst: OasisInstance,
    d: _ModelData,
    zs: dict[tuple[int, int], list],
    dl: Deadline,
) -> None:
    """The optimality-preserving restrictions of the module docstring."""
    W, delta = d.W, d.delta
    # no surplus worker-slots: with (2) this makes sum n == W_i x_i
    m.dom_no_surplus_work = dl.constraint(
        d.live, rule=lambda _, i: _total(m, inst, i) <= int(W[i]) * m.x[i]
    )

    # fewest parameter servers: sum_k z <= ceil(n b/B) <= n b/B + 1 - delta
    def min_ps(_, i, t):
        ratio = float(inst.b[i] / inst.B[i])
        return _nps(zs, i, t) <= ratio * m.n[i, t] + 1.0 - float(delta[i])

    m.dom_min_ps = dl.constraint(m.JT, rule=min_ps)


def build_model(
    inst: OasisInstance,
    *,
    relax: bool = False,
    dominance: bool = True,
    deadline: Deadline | None = None,
    used: tuple[np.ndarray, np.ndarray] | None = None,
) -> pyo.ConcreteModel:
    """Exact MILP of problem (1)-(13) (or its LP relaxation).

    The arg max (8) is linearised with completion indicators ``u[i, t]``
    (module docstring); (9)-(10) hold by construction (no variable before
    ``a_i``).  Constraint components carry the paper's equation numbers:
    ``c2_workload``, ``c3_max_workers``, ``c4_worker_capacity``,
    ``c5_ps_capacity``, ``c6_ps_bandwidth``, ``c7_ps_count``,
    ``c8_completion_once``, ``c8_completion_upper``, ``c8_completion_lower``,
    ``c8_work_by_completion``; ``n_def`` defines ``n``; with ``dominance``
    also ``dom_no_surplus_work`` and ``dom_min_ps``.  The objective ``obj``
    is (1).

    Parameters
    ----------
    inst
        The instance.
    relax
        Make every variable continuous (LP relaxation).
    dominance
        Add the optimality-preserving restrictions of the module docstring
        (same optimum, smaller search space).
    deadline
        Budget of the caller (:class:`optsched.core.solver.Deadline`),
        checked per job, per capacity row and per constraint row.
    used
        Capacity already taken by jobs outside ``inst``: ``g`` (H, R, T) on
        the worker servers and ``v`` (K, R, T) on the PS servers (as
        :func:`optsched.oasis.local_search.usage` returns them); the rows
        (4)-(5) then bound ``inst``'s jobs by ``c - g`` and ``c - v``
        (the sub-problems of :mod:`optsched.oasis.lns`; clamped at 0: the
        other jobs come from a checked schedule, so a negative rest is
        float round-off).  None: nothing taken.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Maximisation model; job data are kept in ``model._oasis`` (a dict).

    Raises
    ------
    optsched.core.solver.DeadlineExceeded
        When ``deadline`` runs out during the building.
    """
    dl = Deadline(None) if deadline is None else deadline
    d = _model_data(inst, dominance, dl)
    a = inst.arrival
    m = pyo.ConcreteModel(name="oasis_offline_relaxed" if relax else "oasis_offline")
    m._oasis = {"nmax": d.nmax, "W": d.W, "first": d.first, "live": d.live}
    zs = _add_variables(m, inst, d, relax, dl)
    # (1) with the completion indicators
    m.obj = pyo.Objective(
        expr=pyo.quicksum(
            float(inst.utility(i, t - a[i])) * m.u[i, t] for i, t in dl.iterate(d.u_idx)
        ),
        sense=pyo.maximize,
    )
    _add_worker_rows(m, inst, d, dl)
    _add_capacity_rows(m, inst, d, used, dl)
    _add_ps_rows(m, inst, zs, dl)
    _add_completion_rows(m, inst, d, dl)
    if dominance:
        _add_dominance_rows(m, inst, d, zs, dl)
    dl.check()
    return m


def extract_schedule(model: pyo.ConcreteModel, inst: OasisInstance) -> OasisSchedule:
    """Read ``x_i``, ``y_ih(t)``, ``z_ik(t)`` of (1)-(13) from a solved model.

    Values are rounded to the nearest integer (HiGHS returns integers up to
    its integrality tolerance).  Meaningful for integer solutions only.
    """
    sched = OasisSchedule.empty(inst, "milp")
    for i in range(inst.n_jobs):
        val = model.x[i].value
        sched.admitted[i] = val is not None and val > 0.5
    for (i, h, t), v in model.y.items():
        if v.value is not None:
            sched.workers[i, h, t - 1] = int(round(v.value))
    for (i, k, t), v in model.z.items():
        if v.value is not None:
            sched.ps[i, k, t - 1] = int(round(v.value))
    return sched


def start_values(
    model: pyo.ConcreteModel, inst: OasisInstance, sched: OasisSchedule
) -> ComponentMap:
    """A feasible point of :func:`build_model` with the objective of ``sched``.

    ``sched`` is a checked schedule (e.g. an online algorithm's).  It is moved
    into the dominance-restricted feasible set as the module docstring says:
    jobs that do not complete are dropped (they earn nothing), workers after
    the completion slot ``t_hat_i`` are dropped, surplus worker-slots are
    removed from the earliest slots (``t_hat_i`` keeps at least one worker,
    so the completion slot and the utility stay), and parameter servers are
    cut to the ``ceil(n b_i/B_i)`` that (6) needs.  Every variable of the
    model gets a value, so HiGHS receives a full solution.
    """
    data = model._oasis
    W, first = data["W"], data["first"]
    workers = np.zeros_like(sched.workers)
    ps = np.zeros_like(sched.ps)
    completion: dict[int, int] = {}
    for i in data["live"]:
        cum = np.cumsum(sched.workers[i].sum(axis=0))
        done = np.flatnonzero(cum >= W[i] - 1e-9)
        if not sched.admitted[i] or done.size == 0 or done[0] + 1 < first[i]:
            continue
        c = int(done[0])  # 0-based completion slot
        w = sched.workers[i, :, : c + 1].copy()
        surplus = int(w.sum() - W[i])
        for t in range(c + 1):
            for h in range(w.shape[0]):
                keep = 1 if t == c and w[:, t].sum() - w[h, t] == 0 else 0
                cut = min(surplus, max(0, int(w[h, t]) - keep))
                w[h, t] -= cut
                surplus -= cut
        workers[i, :, : c + 1] = w
        ratio = float(inst.b[i] / inst.B[i])
        for t in range(c + 1):
            need = int(ceil_eps(w[:, t].sum() * ratio))
            for k in range(ps.shape[1]):
                take = min(need, int(sched.ps[i, k, t]))
                ps[i, k, t] = take
                need -= take
        completion[i] = c + 1
    values = ComponentMap()
    for i in range(inst.n_jobs):
        if not model.x[i].fixed:
            values[model.x[i]] = float(i in completion)
    for (i, h, t), v in model.y.items():
        values[v] = float(workers[i, h, t - 1])
    for (i, k, t), v in model.z.items():
        values[v] = float(ps[i, k, t - 1])
    for (i, t), v in model.n.items():
        values[v] = float(workers[i, :, t - 1].sum())
    for (i, t), v in model.u.items():
        values[v] = float(completion.get(i) == t)
    return values


def utility_bound(inst: OasisInstance) -> float:
    """A valid upper bound on (1) without a solve: ``sum_i max(0, max_d f_i(d))``.

    ``d`` over ``0..T`` covers every completion ``t_hat_i - a_i`` in the
    horizon; a rejected job earns 0.
    """
    d = np.arange(inst.n_slots + 1, dtype=float)
    return float(
        sum(max(0.0, float(np.max(inst.utility(i, d)))) for i in range(inst.n_jobs))
    )


def completion_bound(inst: OasisInstance) -> float:
    """A valid upper bound on (1) without a solve: every job at its earliest completion.

    ``sum_i max(0, f_i(first_i - a_i))`` over the jobs that can finish by
    ``T``, with ``first_i = a_i + ceil(W_i / N_max_i) - 1`` (the earliest
    completion slot of :func:`build_model`).  Valid: a slot holds at most
    ``N_max_i`` workers of job ``i`` (with the parameter servers (6)-(7)
    they need, on the empty cluster, (4)-(5)), (2) needs ``W_i``
    worker-slots from ``a_i`` on (9), so ``t_hat_i >= first_i``, and
    ``f_i`` is non-increasing; a job that cannot finish is rejected (0).
    Never above :func:`utility_bound`; it equals the Lagrangian bound
    ``D(0, 0)`` of (19)-(20).
    """
    W = ceil_eps(inst.work)
    total = 0.0
    for i in range(inst.n_jobs):
        nmax = _max_workers(inst, i)
        if nmax == 0:
            continue
        first = int(inst.arrival[i]) + math.ceil(W[i] / nmax) - 1
        if first <= inst.n_slots:
            total += max(0.0, float(inst.utility(i, first - int(inst.arrival[i]))))
    return total


def colgen_bound(inst: OasisInstance, deadline: Deadline) -> dict[str, float]:
    """``{"colgen": bound}``: the column-generation bound within ``deadline``.

    :func:`column_generation` for what is left of ``deadline`` (checked
    between rounds; the first pricing round, at ``p = q = 0``, always
    runs), and its ``best_bound``: the least ``D(p, q)`` over the rounds
    (and the master LP value once converged), an upper bound on the optimum
    of (1)-(13) (module docstring: ``OPT <= LP(14) <= D(p, q)`` for every
    ``p, q >= 0`` under exact pricing, :func:`best_column`).  Empty when the
    budget is already used up.
    """
    left = deadline.remaining()
    if left is not None and left <= 0:
        return {}
    return {"colgen": column_generation(inst, time_limit=left).best_bound}


def solve_offline(
    inst: OasisInstance,
    *,
    time_limit: float | None = 60.0,
    start: OasisSchedule | None = None,
    threads: int | None = None,
    verbose: bool = False,
    confirm: str | None = None,
    bound_reserve: float = 0.0,
) -> OfflineResult:
    """Offline optimum of (1)-(13) with HiGHS on :func:`build_model`.

    The steps are :func:`optsched.core.base.certified_solve`'s; HiGHS runs
    with :data:`SOLVE_OPTIONS` (more primal heuristics than its default).

    Bounds of an unproven solve (``status == "time_limit"``): the smallest
    of HiGHS's dual bound (``bound_kind`` ``milp``), :func:`completion_bound`
    (``combinatorial``: every job earns at most its utility at its earliest
    possible completion) and,
    with ``bound_reserve > 0``, :func:`colgen_bound` (``colgen``: ``D(p,
    q) >= LP(14) >= OPT`` of (1)-(13) for every priced ``p, q >= 0``,
    module docstring; tested against the MILP's proven optima).  Only
    these three are used; the paper's own certificate (Theorem 4's ratio
    bound on OASiS's value) is not: as printed it fails on some Fig. 5
    instances (docs/oasis.md, "Theorem 4 fails for the literal reading"),
    so it bounds no optimum of this model.

    Parameters
    ----------
    inst
        The instance.
    time_limit
        Wall-clock limit in seconds for the whole call (None = none): the
        model building and HiGHS, which gets what is left (HiGHS, and Pyomo
        handing it a large model, may overshoot).
    start
        A checked schedule of ``inst`` handed to HiGHS as MIP start
        (:func:`start_values`) and kept as incumbent when HiGHS stops at
        the limit without a better one; None: no start.  The harness passes
        the best checked schedule of the online algorithms
        (:func:`optsched.oasis.paper.default_start`; measured in
        docs/oasis.md, "MIP start").
    threads
        HiGHS threads (None = HiGHS default).
    verbose
        Show the HiGHS log.
    confirm
        None, or ``"scip"``: SCIP's second opinion on an optimum HiGHS
        proved (:mod:`optsched.core.confirm` says how;
        ``pip install optsched[scip]``).
    bound_reserve
        Share of ``time_limit`` in ``[0, 1)`` withheld from HiGHS and spent
        on column generation when HiGHS does not prove optimality (0, the
        default: no column generation).  Off by default, measured (issue
        26, 2 loaded cores): at T = 30, 20 + 20 servers, 20 jobs (seed 4,
        40 s) and 50 jobs (seeds 0-1, 15 s) no pricing round after the
        first lowered the Lagrangian bound below ``D(0, 0)``
        (:func:`completion_bound`), which stays above HiGHS's bound, while
        the 15 s withheld from HiGHS cost incumbent value (50 jobs, seed 0:
        1240 instead of 1384).

    Returns
    -------
    OfflineResult
        ``objective`` is the checker's recomputation of (1) for the incumbent
        (NaN when there is none), ``bound`` the tightest bound above
        (``bound_kind`` names it; HiGHS's for a proven optimum), ``status``
        from :func:`optsched.core.solver.solve` (``optimal`` only when HiGHS
        proved a zero gap), ``runtime`` the wall time of build + solve.
        When ``time_limit`` runs out before HiGHS starts: status
        ``time_limit``, ``start`` as incumbent and :func:`completion_bound` as
        bound; when HiGHS stops at the limit without an incumbent as good as
        ``start``, ``start`` is the incumbent.  An instance without jobs (or
        none that can finish) is optimal with the empty schedule and value 0.

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker (``"start: ..."``), or the incumbent
        does (a model bug, never expected).
    """

    def build(deadline: Deadline) -> pyo.ConcreteModel | OfflineResult:
        model = build_model(inst, deadline=deadline) if inst.n_jobs else None
        if model is None or not model._oasis["live"]:
            # no job can finish within T on the empty cluster: rejecting all is optimal
            sched = OasisSchedule.empty(inst, "milp")
            objective = check(inst, sched).objective
            return OfflineResult(
                objective, objective, "optimal", deadline.elapsed(), sched
            )
        return model

    return certified_solve(
        inst,
        build=build,
        extract=lambda model: extract_schedule(model, inst),
        check=check,
        sense="max",
        time_limit=time_limit,
        start=start,
        start_values=lambda model, sched: start_values(model, inst, sched),
        bound=lambda: completion_bound(inst),
        extra_bounds=(lambda dl: colgen_bound(inst, dl)) if bound_reserve else None,
        bound_reserve=bound_reserve,
        threads=threads,
        verbose=verbose,
        confirm=confirm,
        options=SOLVE_OPTIONS,
    )


# --------------------------------------------------------------------------
# Pricing oracle (21) over all schedules, Lagrangian bound (19)-(20)
# --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Column:
    """One schedule ``l`` of job ``i`` in ILP (14), priced at some ``p, q``.

    Attributes
    ----------
    job
        ``i``.
    utility
        ``f_i(t_il - a_i)``.
    cost
        Resource cost of the schedule at the prices it was priced at (the
        subtracted terms of (20)); ``inf`` when job ``i`` has no schedule.
    completion
        ``t_il`` (1-based), 0 when job ``i`` has no schedule.
    workers, ps
        ``y_ih^l(t)`` (H, T) and ``z_ik^l(t)`` (K, T).
    """

    job: int
    utility: float
    cost: float
    completion: int
    workers: np.ndarray
    ps: np.ndarray

    @property
    def profit(self) -> float:
        """Right-hand side of (20): ``utility - cost`` (``-inf`` if no schedule)."""
        return self.utility - self.cost

    @property
    def key(self) -> tuple[int, bytes, bytes]:
        """Identity of the schedule (job and deployments), for de-duplication."""
        return (self.job, self.workers.tobytes(), self.ps.tobytes())


def _check_prices(
    inst: OasisInstance, p: np.ndarray, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Validate dual prices of (15)-(16): shapes (H, R, T), (K, R, T), finite, >= 0."""
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != (H, R, T) or q.shape != (K, R, T):
        raise ValueError(
            f"prices: expected p {(H, R, T)} and q {(K, R, T)}, got {p.shape}, {q.shape}"
        )
    if (
        (p < 0).any()
        or (q < 0).any()
        or not (np.isfinite(p).all() and np.isfinite(q).all())
    ):
        raise ValueError("prices: p and q must be finite and >= 0 (dual of (19)-(20))")
    return p, q


def column_cost(
    inst: OasisInstance, col: Column, p: np.ndarray, q: np.ndarray
) -> float:
    """Resource cost of ``col`` at prices ``p, q``: the subtracted sums of (20)."""
    i = col.job
    unit_w = np.einsum("hrt,r->ht", p, inst.w[i])
    unit_s = np.einsum("krt,r->kt", q, inst.s[i])
    return float((unit_w * col.workers).sum() + (unit_s * col.ps).sum())


def best_column(inst: OasisInstance, i: int, p: np.ndarray, q: np.ndarray) -> Column:
    """Exact pricing (21): the schedule of job ``i`` maximising the RHS of (20).

    Over every schedule satisfying (2), (3), (6), (7), (9)-(13) that fits the
    empty cluster.  For ``n`` workers in slot ``t`` the cheapest deployment
    costs ``slot_cost_curve(inst, i, p[:, :, t-1], q[:, :, t-1], 0, 0)[n]``
    (greedy on per-worker price, minimal ``min(ceil(n b_i/B_i), n)`` parameter
    servers; optimal per slot by Theorem 1 since prices are >= 0).  A dynamic
    programme over slots ``a_i..T`` with state "cumulative workers, capped at
    ``W_i = ceil(E_i N_i M_i (tau_i + 2e_i/b_i))``" gives, for every deadline
    ``t_hat``, the cheapest schedule finishing the work (2) by ``t_hat``; the
    oracle returns ``arg max_t_hat f_i(t_hat - a_i) - cost`` (first best).
    Since ``f_i`` is non-increasing, maximising over deadlines equals
    maximising over exact completion slots; the returned column's
    ``completion`` is its last slot with workers (8).

    Unlike Alg. 2 (``optsched.oasis.online.best_schedule``) the worker count of
    a slot is not restricted to ``ceil(d M_i (tau_i + 2e_i/b_i))`` for an
    integer number ``d`` of chunks, so ``profit >=`` Alg. 2's payoff at the
    same prices on the empty cluster whenever Alg. 2 finds a schedule.

    Parameters
    ----------
    inst
        The instance.
    i
        Job index.
    p, q
        Prices ``p_h^r(t)`` (H, R, T) and ``q_k^r(t)`` (K, R, T), >= 0.

    Returns
    -------
    Column
        With ``profit == -inf`` (utility 0, cost inf, completion 0) when job
        ``i`` cannot finish within ``T`` on the empty cluster.
    """
    p, q = _check_prices(inst, p, q)
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    a = int(inst.arrival[i])
    Wi = int(ceil_eps(inst.work[i]))
    zh, zk = np.zeros((H, R)), np.zeros((K, R))
    states = np.arange(Wi + 1)
    cost = np.full(Wi + 1, np.inf)
    cost[0] = 0.0
    choice = np.zeros((T + 1, Wi + 1), dtype=np.int64)  # workers in slot t
    prev = np.zeros((T + 1, Wi + 1), dtype=np.int64)  # state before slot t
    best_profit, best_t = -np.inf, 0
    for t in range(a, T + 1):
        curve = slot_cost_curve(inst, i, p[:, :, t - 1], q[:, :, t - 1], zh, zk)
        new, ch, pv = cost.copy(), np.zeros(Wi + 1, np.int64), states.copy()
        for n in range(1, len(curve)):
            if not np.isfinite(curve[n]):
                break  # feasible worker counts are downward closed
            cand = cost + curve[n]
            tgt = np.minimum(states + n, Wi)
            # states below the cap: one predecessor each
            lo = states[: max(0, Wi - n)]
            better = cand[lo] < new[lo + n]
            new[lo + n] = np.where(better, cand[lo], new[lo + n])
            ch[lo + n] = np.where(better, n, ch[lo + n])
            pv[lo + n] = np.where(better, lo, pv[lo + n])
            # the capped state W: best predecessor among s >= W - n
            src = np.flatnonzero(tgt == Wi)
            j = src[np.argmin(cand[src])]
            if cand[j] < new[Wi]:
                new[Wi], ch[Wi], pv[Wi] = cand[j], n, j
        cost, choice[t], prev[t] = new, ch, pv
        profit = float(inst.utility(i, t - a)) - cost[Wi]
        if profit > best_profit:
            best_profit, best_t = profit, t
    y = np.zeros((H, T), dtype=np.int64)
    z = np.zeros((K, T), dtype=np.int64)
    if best_t == 0 or not np.isfinite(best_profit):
        return Column(i, 0.0, math.inf, 0, y, z)
    s = Wi
    for t in range(best_t, a - 1, -1):
        n = int(choice[t, s])
        if n:
            y[:, t - 1], z[:, t - 1] = place(
                inst, i, n, p[:, :, t - 1], q[:, :, t - 1], zh, zk
            )
        s = int(prev[t, s])
    assert s == 0, "best_column: DP reconstruction did not reach zero work"
    active = np.flatnonzero(y.sum(axis=0))
    t_hat = int(active.max()) + 1
    col = Column(i, float(inst.utility(i, t_hat - a)), 0.0, t_hat, y, z)
    return Column(i, col.utility, column_cost(inst, col, p, q), t_hat, y, z)


def dual_bound(inst: OasisInstance, p: np.ndarray, q: np.ndarray) -> float:
    """Lagrangian dual function of (19)-(20) at prices ``p, q >= 0``.

    ``D(p, q) = sum_i max(0, max_l [f_i(t_il - a_i) - cost_l(p, q)])
    + sum_{h,r,t} p_h^r(t) c_h^r + sum_{k,r,t} q_k^r(t) c_k^r``: the dual
    objective (19) with the best ``mu_i`` for these prices (exact pricing by
    :func:`best_column`).  ``D(p, q) >= LP(14) >= OPT`` for every ``p, q >= 0``.

    Parameters
    ----------
    p, q
        Prices (H, R, T) and (K, R, T); ``c`` is broadcast over slots.
    """
    p, q = _check_prices(inst, p, q)
    payoff = sum(
        max(0.0, best_column(inst, i, p, q).profit) for i in range(inst.n_jobs)
    )
    return float(
        payoff
        + (p * inst.c_worker[:, :, None]).sum()
        + (q * inst.c_ps[:, :, None]).sum()
    )


# --------------------------------------------------------------------------
# Master LP (14)-(17), its dual (19)-(20), column generation
# --------------------------------------------------------------------------
class _Master:
    """LP relaxation of (14)-(17) over a growing list of columns (one Pyomo model).

    Rows of (15)-(16) are created only once a column uses them (a row no
    column touches has dual 0); when new columns touch an existing row its
    expression is replaced, which Pyomo's persistent HiGHS interface picks up
    by re-sending that row.
    """

    def __init__(self, inst: OasisInstance) -> None:
        self.inst = inst
        H, K, R, T = (
            inst.n_worker_servers,
            inst.n_ps_servers,
            inst.n_resources,
            inst.n_slots,
        )
        m = pyo.ConcreteModel(name="oasis_master_lp")
        m.I = pyo.Set(initialize=range(inst.n_jobs), ordered=True)
        m.H = pyo.Set(initialize=range(H), ordered=True)
        m.K = pyo.Set(initialize=range(K), ordered=True)
        m.R = pyo.Set(initialize=range(R), ordered=True)
        m.T = pyo.RangeSet(1, T)
        m.x = pyo.Var(pyo.Any, dense=False, domain=pyo.NonNegativeReals)
        m.c15_worker_capacity = pyo.Constraint(m.H, m.R, m.T)
        m.c16_ps_capacity = pyo.Constraint(m.K, m.R, m.T)
        m.c17_one_schedule = pyo.Constraint(m.I)
        m.obj = pyo.Objective(expr=0.0, sense=pyo.maximize)
        self.model = m
        self.columns: list[Column] = []
        self.keys: set[tuple[int, bytes, bytes]] = set()
        self._rows15: dict[tuple[int, int, int], list[tuple[float, int]]] = {}
        self._rows16: dict[tuple[int, int, int], list[tuple[float, int]]] = {}
        self._rows17: dict[int, list[int]] = {}

    def add(self, cols: list[Column]) -> int:
        """Add columns ``x_il`` to (14)-(17) (duplicates skipped); return how many."""
        inst, m = self.inst, self.model
        d15: set[tuple[int, int, int]] = set()  # dirty rows of (15), (16), (17)
        d16: set[tuple[int, int, int]] = set()
        d17: set[int] = set()
        added = 0
        for col in cols:
            if col.key in self.keys or not math.isfinite(col.cost):
                continue
            self.keys.add(col.key)
            l = len(self.columns)
            self.columns.append(col)
            added += 1
            i = col.job
            m.x[l]  # noqa: B018 - creates the variable x_il
            self._rows17.setdefault(i, []).append(l)
            d17.add(i)
            for rows, dirty, dep, dem in (
                (self._rows15, d15, col.workers, inst.w[i]),
                (self._rows16, d16, col.ps, inst.s[i]),
            ):
                for s, t0 in zip(*np.nonzero(dep), strict=True):
                    for r in np.flatnonzero(dem > 0):
                        key = (int(s), int(r), int(t0) + 1)
                        rows.setdefault(key, []).append((float(dem[r] * dep[s, t0]), l))
                        dirty.add(key)
        for key in d15:
            m.c15_worker_capacity[key] = pyo.quicksum(
                c * m.x[l] for c, l in self._rows15[key]
            ) <= float(inst.c_worker[key[0], key[1]])
        for key in d16:
            m.c16_ps_capacity[key] = pyo.quicksum(
                c * m.x[l] for c, l in self._rows16[key]
            ) <= float(inst.c_ps[key[0], key[1]])
        for i in d17:
            m.c17_one_schedule[i] = pyo.quicksum(m.x[l] for l in self._rows17[i]) <= 1
        if added:
            m.obj.expr = pyo.quicksum(
                c.utility * m.x[l] for l, c in enumerate(self.columns)
            )
        return added


def build_master(inst: OasisInstance, columns: list[Column]) -> pyo.ConcreteModel:
    """LP relaxation of (14)-(17) over ``columns`` (``x_il >= 0``, (18) relaxed).

    Components: ``x`` (indexed by the column's position in ``columns`` after
    de-duplication), ``c15_worker_capacity[h, r, t]``,
    ``c16_ps_capacity[k, r, t]``, ``c17_one_schedule[i]`` (rows only where a
    column has a nonzero coefficient), objective ``obj`` (14).
    """
    master = _Master(inst)
    master.add(list(columns))
    return master.model


def build_dual(inst: OasisInstance, columns: list[Column]) -> pyo.ConcreteModel:
    """Dual LP (19)-(20) of the master LP restricted to ``columns``.

    Variables ``p[h, r, t] >= 0``, ``q[k, r, t] >= 0``, ``mu[i] >= 0``;
    objective ``obj`` (19) minimised; one row ``c20_schedule_payoff[l]`` per
    column: ``mu_i + sum p w y + sum q s z >= f_i(t_il - a_i)`` (20).
    """
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    m = pyo.ConcreteModel(name="oasis_dual_lp")
    m.I = pyo.Set(initialize=range(inst.n_jobs), ordered=True)
    m.H = pyo.Set(initialize=range(H), ordered=True)
    m.K = pyo.Set(initialize=range(K), ordered=True)
    m.R = pyo.Set(initialize=range(R), ordered=True)
    m.T = pyo.RangeSet(1, T)
    m.L = pyo.Set(initialize=range(len(columns)), ordered=True)
    m.p = pyo.Var(m.H, m.R, m.T, domain=pyo.NonNegativeReals)
    m.q = pyo.Var(m.K, m.R, m.T, domain=pyo.NonNegativeReals)
    m.mu = pyo.Var(m.I, domain=pyo.NonNegativeReals)
    m.obj = pyo.Objective(
        expr=pyo.quicksum(m.mu[i] for i in m.I)
        + pyo.quicksum(
            float(inst.c_worker[h, r]) * m.p[h, r, t]
            for h in m.H
            for r in m.R
            for t in m.T
        )
        + pyo.quicksum(
            float(inst.c_ps[k, r]) * m.q[k, r, t] for k in m.K for r in m.R for t in m.T
        ),
        sense=pyo.minimize,
    )

    def row(_, l):
        col = columns[l]
        i = col.job
        terms = [m.mu[i]]
        for h, t0 in zip(*np.nonzero(col.workers), strict=True):
            for r in np.flatnonzero(inst.w[i] > 0):
                c = float(inst.w[i, r] * col.workers[h, t0])
                terms.append(c * m.p[int(h), int(r), int(t0) + 1])
        for k, t0 in zip(*np.nonzero(col.ps), strict=True):
            for r in np.flatnonzero(inst.s[i] > 0):
                c = float(inst.s[i, r] * col.ps[k, t0])
                terms.append(c * m.q[int(k), int(r), int(t0) + 1])
        return pyo.quicksum(terms) >= float(col.utility)

    m.c20_schedule_payoff = pyo.Constraint(m.L, rule=row)
    return m


@dataclass(frozen=True, eq=False)
class CGResult:
    """Outcome of :func:`column_generation`.

    Attributes
    ----------
    lp_value
        Value of the last master LP (14)-(17) solved (0 with no column); the
        LP relaxation optimum of (14) when ``converged``.
    lagrangian
        ``D(p, q)`` (:func:`dual_bound`) at the prices of every pricing round,
        starting with ``p = q = 0``.
    best_bound
        ``min(lagrangian)``, and ``lp_value`` too when converged: an upper
        bound on the optimum of (1) and (14).
    columns
        The master's columns (``Column`` list, order of ``x``).
    x
        Master LP values ``x_il`` per column.
    p, q, mu
        Final duals of (15), (16), (17): (H, R, T), (K, R, T), (I,).
    n_iter
        Number of master LP solves.
    converged
        No column with reduced profit above ``tol`` was left.
    """

    lp_value: float
    lagrangian: list[float]
    best_bound: float
    columns: list[Column]
    x: np.ndarray
    p: np.ndarray
    q: np.ndarray
    mu: np.ndarray
    n_iter: int
    converged: bool


def column_generation(
    inst: OasisInstance,
    *,
    max_iter: int = 500,
    tol: float = 1e-7,
    time_limit: float | None = None,
) -> CGResult:
    """Solve the LP relaxation of (14)-(17) by column generation.

    Each round prices every job exactly (:func:`best_column`, problem (21)) at
    the current duals ``p, q`` of (15)-(16), records ``D(p, q)`` of
    (19)-(20), and adds each job's best column when its reduced profit
    ``f_i - cost(p, q) - mu_i`` exceeds ``tol``; the master LP is then
    re-solved on one persistent HiGHS object and ``p, q, mu`` are read from
    its duals (max problem, ``<=`` rows: duals >= 0, tiny negative noise is
    clipped).  At convergence the master LP value equals ``D(p, q)`` (strong
    LP duality of (14)-(17) and (19)-(20)).

    Parameters
    ----------
    inst
        The instance.
    max_iter
        Most master LP solves.
    tol
        Reduced-profit threshold for adding a column.
    time_limit
        Wall-clock budget in seconds (checked between rounds).
    """
    H, K, R, T, I = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
        inst.n_jobs,
    )
    p, q, mu = np.zeros((H, R, T)), np.zeros((K, R, T)), np.zeros(I)
    master = _Master(inst)
    lp: PersistentLP | None = None
    lagr: list[float] = []
    lp_value, n_iter, converged = 0.0, 0, False
    start = time.perf_counter()
    while True:
        cols = [best_column(inst, i, p, q) for i in range(I)]
        lagr.append(
            float(
                sum(max(0.0, c.profit) for c in cols)
                + (p * inst.c_worker[:, :, None]).sum()
                + (q * inst.c_ps[:, :, None]).sum()
            )
        )
        new = [c for c in cols if c.profit - mu[c.job] > tol]
        if not new:
            converged = True
            break
        if n_iter >= max_iter or (
            time_limit is not None and time.perf_counter() - start > time_limit
        ):
            break
        if master.add(new) == 0:  # only re-priced existing columns: numerical noise
            converged = True
            break
        if lp is None:
            lp = PersistentLP(master.model)
        res = lp.solve()
        if res.status == "error":
            # a warm-started re-solve of the grown master can end in HiGHS's
            # "solve error" (seen: generate(3, 50, 30, 20, 20), iteration ~10);
            # solving the same LP afresh succeeds
            lp = PersistentLP(master.model)
            res = lp.solve()
        n_iter += 1
        if res.status != "optimal":
            raise SolverError(f"column generation: master LP ended {res.status!r}")
        lp_value = res.objective
        m = master.model
        p = np.zeros((H, R, T))
        q = np.zeros((K, R, T))
        mu = np.zeros(I)
        for (h, r, t), c in m.c15_worker_capacity.items():
            p[h, r, t - 1] = max(0.0, res.duals[c])
        for (k, r, t), c in m.c16_ps_capacity.items():
            q[k, r, t - 1] = max(0.0, res.duals[c])
        for i, c in m.c17_one_schedule.items():
            mu[i] = max(0.0, res.duals[c])
    m = master.model
    x = np.array([m.x[l].value or 0.0 for l in range(len(master.columns))])
    best = min(lagr + ([lp_value] if converged else []))
    return CGResult(
        lp_value=float(lp_value),
        lagrangian=lagr,
        best_bound=float(best),
        columns=list(master.columns),
        x=x,
        p=p,
        q=q,
        mu=mu,
        n_iter=n_iter,
        converged=converged,
    )
