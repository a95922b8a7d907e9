r"""Lagrangian / Dantzig-Wolfe lower bound for the Okita MILP (problem (2)).

The exact MILP of :mod:`optsched.models.okita` (any formulation) couples its
jobs only through the capacity rows (2d), ``c2d_capacity``: per site ``r``,
slot ``t`` and resource ``k``

.. math::

   \sum_i m_i^k \, y_{i,r,t} + n_i^k \, s_{i,r,t} \le C_r^k .

Every other row (data, balance, (2b), (2c), completion, the exchange rows of
v1 or v2, the cuts of v3) and the objective ``sum_i cost_i`` involve one job
only.  Below, the *coupling rows* are the rows ``c2d_capacity`` that
:func:`~optsched.models.okita.build_model` writes for ``inst`` (the others
cannot bind and carry no price).

Job sets.  ``X_i`` is the set of integer points of
:func:`~optsched.models.okita.build_model` (formulation v3 unless told
otherwise) on the *one-job instance*: ``inst`` with ``jobs = (job_i,)``, the
same sites, ``q`` and ``T``.  The variable domains and every per-job row of
the full model depend on job ``i``, the sites and ``T`` only
(:func:`~optsched.models.okita.worker_bound`,
:func:`~optsched.models.okita.ps_worker_bound`,
:func:`~optsched.models.okita.earliest_completion`), so *the restriction of
an integer point of the full model to job* ``i`` *is a point of* ``X_i`` with
cost ``cost_i``: it meets the job's rows (the same rows) and the one-job
capacity rows (the full rows add only nonnegative terms of other jobs).

Valid bound (Lagrangian).  For any prices ``lambda >= 0`` on the coupling
rows and ``usage_i(x)[r, t, k] = m_i^k y_{i,r,t} + n_i^k s_{i,r,t}``

.. math::

   L(\lambda) = \sum_i \min_{x \in X_i}
       \Bigl(\mathrm{cost}_i(x) + \sum_{r,t,k} \lambda_{r,t,k}\,
       \mathrm{usage}_i(x)_{r,t,k}\Bigr) - \sum_{r,t,k} \lambda_{r,t,k} C_r^k
       \;\le\; \mathrm{OPT}.

Proof: take an optimal schedule ``x*`` of the full MILP; its pieces are
points of the ``X_i``, so ``L(lambda) <= cost(x*) + sum lambda (usage(x*) -
C) <= cost(x*)`` since ``usage(x*) <= C`` row by row and ``lambda >= 0``.
``L`` stays valid when each inner minimum is replaced by a *lower bound* of
it: the pricing MILP's dual bound (HiGHS's ``mip_dual_bound``, which is the
optimum when proven), never its incumbent; a small tolerance ``tol (1 +
|lower|)`` is subtracted per job for HiGHS's optimality tolerances.  A
round stopped by the time limit before every job is priced gives no value.
The inner minimum is the pricing MILP of :class:`JobPricer`: the one-job
model with ``lambda m_i^k`` added to the cost of ``y[i, r, t]`` and
``lambda n_i^k`` to that of ``s[i, r, t]``.

Prices.  (a) :func:`lp_prices`: the duals of the coupling rows in the LP
relaxation of the full model (v3).  Then ``L(lambda_LP) >= LP``: the
Lagrangian of the LP at its optimal duals equals the LP value (LP duality),
and each inner minimum over the integer points ``X_i`` is at least the
minimum over the one-job LP polytope (which holds the full LP's rows of job
``i``, plus its own capacity rows).  Later rounds (:func:`lagrangian_bound`)
use every plan priced so far: (b) ``method="bundle"`` (the default), the
proximal bundle method: the cutting-plane model of ``L`` built from the
plans (:class:`Bundle`) maximised with a proximal term around the best
prices (a small convex QP in HiGHS); (c) ``method="wentges"``, column
generation: a restricted master LP over the plans (a convexity row per job,
the coupling rows, :class:`Master`) whose duals, smoothed towards the best
prices (Wentges), give the next prices.  The model and master values are
*not* bounds and are never reported as ones; only ``max L(lambda)`` over
the completed rounds is.  Both methods climb towards ``max_lambda
L(lambda)``, the Dantzig-Wolfe bound (the master LP with every plan); on
the 5 x 10 x 20 instances of the frontier a round costs 10-30 s (ten
pricing MILPs, one HiGHS thread); measured in ``benchmarks/okita_colgen.py``
(``benchmarks/data/okita_colgen.csv``): within 300 s the bundle stops at
its optimality test on seeds 1-3 and beats HiGHS's 60 s bound of v3 on
seeds 0-3, not on seed 4 (2,918 vs 3,129).  On seed 4 the Wentges rounds
(whose first master duals, from few columns, are poor) never beat
``L(lambda_LP)`` within 120 s; the bundle did (2,866.8 -> 2,886.7).

The objective of (2) is real (latency costs ``f_i`` are not integers), so
no rounding up is done.

Wiring.  :func:`colgen_bound` has the ``extra_bounds`` signature of
:func:`optsched.core.base.certified_solve` (``functools.partial(colgen_bound,
inst)``); :func:`optsched.models.okita.solve_offline` does not forward
``extra_bounds`` / ``bound_reserve`` yet, and :mod:`optsched.models.okita`
must not import this module (it imports that one).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import highspy
import numpy as np
import pyomo.environ as pyo
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler
from scipy import sparse

from optsched.core.solver import MIP_DEFAULTS, Deadline, _use_threads
from optsched.okita.check import check
from optsched.okita.instance import OkitaInstance
from optsched.okita.schedule import OkitaSchedule, local_first

from .okita import build_model, worker_bound

__all__ = [
    "Column",
    "JobPricer",
    "LagrangianResult",
    "Bundle",
    "Master",
    "colgen_bound",
    "default_starts",
    "coupling_rows",
    "lagrangian_bound",
    "lagrangian_value",
    "lp_prices",
    "schedule_columns",
]

#: A coupling row ``(r, t, k)``: site, slot (1-based), resource.
Row = tuple[int, int, int]
#: Wall seconds and iterations of one bundle QP (:meth:`Bundle.trial`).
QP_LIMIT_S = 20.0
QP_ITERATIONS = 200_000


@dataclasses.dataclass(frozen=True)
class Column:
    """One job's plan as a master column.

    ``cost`` is the job's share of objective (2) (latency, transfer and
    exchange cost), ``rows`` / ``amounts`` its nonzero usage of the coupling
    rows (indices into :func:`coupling_rows`).
    """

    job: int
    cost: float
    rows: tuple[int, ...]
    amounts: tuple[float, ...]


@dataclasses.dataclass
class LagrangianResult:
    """Outcome of :func:`lagrangian_bound`.

    Attributes
    ----------
    best_bound
        ``max L(lambda)`` over the completed rounds (a valid lower bound on
        the optimum of (2)); ``-inf`` when no round completed.
    lp_value
        The LP relaxation value (v3) when the LP duals were the first prices,
        else NaN.  A valid bound too, never above ``lp_lagrangian``.
    lp_lagrangian
        ``L`` at the first prices (``L(lambda_LP)``), NaN when that round did
        not complete.
    model
        The value of the last round's price model at its prices (the
        bundle model or the restricted master LP; not a bound).
    converged
        Whether the method stopped at its optimality test (no predicted
        gain, or no column with a negative reduced cost) with every
        pricing MILP of the last round proven.
    rounds, columns, runtime
        Completed pricing rounds, master columns, wall seconds.
    history
        Per completed round: ``(seconds, L of the round, best so far, model
        value or NaN)``.
    prices
        The prices of ``best_bound`` (per row of :func:`coupling_rows`).
    """

    best_bound: float
    lp_value: float
    lp_lagrangian: float
    model: float
    converged: bool
    rounds: int
    columns: int
    runtime: float
    history: list[tuple[float, float, float, float]]
    prices: np.ndarray


def coupling_rows(inst: OkitaInstance) -> list[Row]:
    """The ``(r, t, k)`` of the rows ``c2d_capacity`` the full model writes.

    Same rule as :func:`~optsched.models.okita.build_model`: a row is
    written unless every job present in slot ``t`` at its worker bound plus
    its PS fits (then it cannot bind).  Sorted.
    """
    ybar = worker_bound(inst)
    out = []
    for r in range(inst.n_sites):
        for t in range(1, inst.n_slots + 1):
            jobs = [i for i in range(inst.n_jobs) if inst.arrival[i] <= t]
            for k in range(inst.n_resources):
                most = sum(inst.m[i, k] * ybar[i, r] + inst.n[i, k] for i in jobs)
                if most > float(inst.capacity[r, k]):
                    out.append((r, t, k))
    return sorted(out)


def _to_highs(
    model: pyo.ConcreteModel, threads: int, mip: bool
) -> tuple[highspy.Highs, list[Any], list[Any], np.ndarray, float]:
    """``model`` passed to a fresh HiGHS (no output, ``threads`` threads).

    Returns ``(highs, columns, rows, cost, offset)``: the Pyomo variables of
    the columns, the compiler's row entries (``constraint``, ``bound_type``),
    the objective coefficients and constant.  ``mip=False`` drops
    integrality (an LP).
    """
    repn = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    if repn.eliminated_vars:
        raise RuntimeError("standard form eliminated variables (not expected)")
    cols = list(repn.columns)
    cost = np.asarray(repn.c.todense()).ravel().astype(float)
    A = repn.A.tocsc()
    inf = highspy.kHighsInf
    bts = [row.bound_type for row in repn.rows]
    rhs = np.asarray(repn.rhs, dtype=float)
    _use_threads(threads)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(cols), len(bts)
    lp.col_cost_ = cost
    lp.offset_ = float(np.asarray(repn.c_offset).ravel()[0])
    lp.col_lower_ = np.array([-inf if v.lb is None else float(v.lb) for v in cols])
    lp.col_upper_ = np.array([inf if v.ub is None else float(v.ub) for v in cols])
    lp.row_lower_ = np.array(
        [-inf if bt == 1 else b for bt, b in zip(bts, rhs, strict=True)]
    )
    lp.row_upper_ = np.array(
        [inf if bt == -1 else b for bt, b in zip(bts, rhs, strict=True)]
    )
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    if mip:
        for option, value in MIP_DEFAULTS.items():
            h.setOptionValue(option, value)
        lp.integrality_ = [
            highspy.HighsVarType.kInteger
            if v.is_integer()
            else highspy.HighsVarType.kContinuous
            for v in cols
        ]
    h.passModel(lp)
    return h, cols, list(repn.rows), cost, float(lp.offset_)


def lp_prices(
    inst: OkitaInstance, *, threads: int = 1, time_limit: float | None = None
) -> tuple[float, np.ndarray]:
    """LP relaxation of the full model (v3) and the prices of its coupling rows.

    Returns
    -------
    tuple
        ``(value, prices)``: the LP optimum (a valid lower bound on (2)) and
        ``max(0, -dual)`` of each row of :func:`coupling_rows` (HiGHS's dual
        of a ``<=`` row of a minimisation is ``<= 0``; clipping keeps
        ``lambda >= 0``, which is all the Lagrangian bound needs).

    Raises
    ------
    RuntimeError
        If HiGHS does not solve the LP to optimality (e.g. the time limit).
    """
    model = build_model(inst, relax=True, formulation="v3")
    h, _cols, rows, _cost, _off = _to_highs(model, threads, mip=False)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(float(time_limit), 0.01))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"LP: {h.modelStatusToString(h.getModelStatus())}")
    dual = np.asarray(h.getSolution().row_dual)
    index = {key: j for j, key in enumerate(coupling_rows(inst))}
    prices = np.zeros(len(index))
    cap = model.c2d_capacity
    for pos, row in enumerate(rows):
        con = row.constraint
        if con.parent_component() is cap:
            if row.bound_type != 1:  # never: the rows are written "<= C"
                raise RuntimeError(f"capacity row {con.index()} is not a <= row")
            prices[index[con.index()]] = max(0.0, -float(dual[pos]))
    return float(h.getInfo().objective_function_value), prices


#: Model statuses after which HiGHS's ``mip_dual_bound`` is a valid lower
#: bound: solved, or stopped by a limit during branch and bound.
_RAN = frozenset(
    {
        highspy.HighsModelStatus.kOptimal,
        highspy.HighsModelStatus.kTimeLimit,
        highspy.HighsModelStatus.kIterationLimit,
        highspy.HighsModelStatus.kSolutionLimit,
        highspy.HighsModelStatus.kInterrupt,
    }
)


class JobPricer:
    """The pricing MILP of one job, kept alive in HiGHS between rounds.

    It is :func:`~optsched.models.okita.build_model` (``formulation``, v3
    by default) on the one-job instance of job ``job`` (module docstring);
    the prices change only the costs of the job's ``y`` and ``s`` columns.
    ``usage`` (columns x coupling rows, sparse) maps a point to its usage
    of the coupling rows.
    """

    def __init__(
        self,
        inst: OkitaInstance,
        job: int,
        *,
        threads: int = 1,
        formulation: str = "v3",
        gap: float = 1e-6,
    ) -> None:
        self.job, self.threads = job, threads
        sub = dataclasses.replace(inst, jobs=(inst.jobs[job],), meta={})
        model = build_model(sub, formulation=formulation)
        self.h, cols, _rows, self.base, self.offset = _to_highs(model, threads, True)
        self.h.setOptionValue("mip_rel_gap", float(gap))
        self.h.setOptionValue("mip_abs_gap", 1e-9)
        self.h.setOptionValue("mip_improving_solution_save", True)
        index = {key: j for j, key in enumerate(coupling_rows(inst))}
        m, n = inst.m[job], inst.n[job]
        ri, ci, val = [], [], []
        for c, v in enumerate(cols):
            name = v.parent_component().local_name
            if name not in ("y", "s"):
                continue
            _, r, t = v.index()
            demand = m if name == "y" else n
            for k in range(inst.n_resources):
                if demand[k] > 0 and (r, t, k) in index:
                    ri.append(c)
                    ci.append(index[r, t, k])
                    val.append(float(demand[k]))
        self.usage = sparse.csr_matrix((val, (ri, ci)), shape=(len(cols), len(index)))
        self._last = self.base.copy()
        self._x: np.ndarray | None = None
        #: The other improving plans of the last :meth:`price` (more columns).
        self.extra: list[Column] = []

    def _column(self, x: np.ndarray) -> Column:
        """The plan ``x`` (a point of the pricing MILP) as a column."""
        use = self.usage.T @ x
        nz = np.flatnonzero(use > 1e-9)
        return Column(
            self.job,
            float(self.base @ x) + self.offset,
            tuple(int(j) for j in nz),
            tuple(float(u) for u in use[nz]),
        )

    def price(
        self, prices: np.ndarray, time_limit: float | None = None
    ) -> tuple[float, Column | None, bool]:
        """Minimise ``cost_i + lambda . usage_i`` over the job's plans ``X_i``.

        Returns
        -------
        tuple
            ``(lower, column, proven)``: a lower bound of the minimum (HiGHS's
            dual bound, ``-inf`` without one), the best plan found as a
            column (None without one) and whether the minimum was proven.
            The other improving plans HiGHS found go to :attr:`extra`.  The
            last plan is handed to HiGHS as a start (any plan is feasible
            whatever the prices).
        """
        cost = self.base + self.usage @ np.asarray(prices, dtype=float)
        changed = np.flatnonzero(cost != self._last)
        if len(changed):
            self.h.changeColsCost(len(changed), changed.astype(np.int32), cost[changed])
        self._last = cost
        inf = highspy.kHighsInf
        self.h.setOptionValue(
            "time_limit", inf if time_limit is None else max(time_limit, 0.01)
        )
        if self._x is not None:
            start = highspy.HighsSolution()
            start.col_value = list(self._x)
            start.value_valid = True
            self.h.setSolution(start)
        _use_threads(self.threads)
        self.h.run()
        status = self.h.getModelStatus()
        proven = status == highspy.HighsModelStatus.kOptimal
        info = self.h.getInfo()
        lower = float(info.mip_dual_bound)
        if status not in _RAN or not math.isfinite(lower):
            # HiGHS did not run its branch and bound to an end or a limit (e.g.
            # "Not Set" after a thread-scheduler mismatch): no bound to trust
            lower = -math.inf
        column, self.extra = None, []
        if info.primal_solution_status == 2:  # a feasible point
            x = np.asarray(self.h.getSolution().col_value)
            column, self._x = self._column(x), x
            if proven:  # the proven optimum is the incumbent's value
                lower = min(lower, float(cost @ x) + self.offset)
            self.extra = [
                self._column(np.asarray(sol.col_value))
                for sol in self.h.getSavedMipSolutions()
            ]
        return lower, column, proven


def schedule_columns(inst: OkitaInstance, sched: OkitaSchedule) -> list[Column]:
    """The per-job columns of a checked schedule of ``inst`` (master seeds).

    The cost of job ``i`` is the checker's latency, transfer and exchange
    cost of the job; its usage is read from the worker and PS rows.
    """
    ev = check(inst, sched)
    index = {key: j for j, key in enumerate(coupling_rows(inst))}
    use: list[dict[int, float]] = [{} for _ in range(inst.n_jobs)]

    def add(i: int, r: int, t: int, demand: np.ndarray, count: float) -> None:
        for k in range(inst.n_resources):
            j = index.get((r, t, k))
            if j is not None and demand[k] > 0:
                use[i][j] = use[i].get(j, 0.0) + float(demand[k]) * count

    for i, t, r, c in np.asarray(sched.workers).tolist():
        add(i, r, t, inst.m[i], c)
    for i, t, r in np.asarray(sched.ps).tolist():
        add(i, r, t, inst.n[i], 1.0)
    cost = ev.latency + ev.transfer + ev.exchange
    return [
        Column(
            i,
            float(cost[i]),
            tuple(sorted(use[i])),
            tuple(use[i][j] for j in sorted(use[i])),
        )
        for i in range(inst.n_jobs)
    ]


class Master:
    """The restricted master LP in HiGHS: convexity rows, then coupling rows.

    Every job also has an artificial column of cost ``artificial`` and no
    usage, so every restricted master is feasible; its duals only steer
    the prices (the master value is not a bound).
    """

    def __init__(
        self, n_jobs: int, capacity: np.ndarray, artificial: float, threads: int = 1
    ) -> None:
        self.threads = threads
        _use_threads(threads)
        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(threads))
        self.n_jobs = n_jobs
        inf = highspy.kHighsInf
        h.addRows(n_jobs, np.ones(n_jobs), np.ones(n_jobs), 0, [], [], [])
        m = len(capacity)
        h.addRows(m, np.full(m, -inf), np.asarray(capacity, dtype=float), 0, [], [], [])
        self.seen: set[tuple[int, tuple[int, ...], tuple[float, ...]]] = set()
        self.columns: list[Column] = []
        for j in range(n_jobs):
            h.addCol(
                float(artificial),
                0.0,
                inf,
                1,
                np.array([j], dtype=np.int32),
                np.ones(1),
            )

    def add(self, col: Column) -> bool:
        """Add a column unless an identical one is there; whether it was added."""
        key = (col.job, col.rows, tuple(round(a, 9) for a in col.amounts))
        if key in self.seen:
            return False
        self.seen.add(key)
        rows = np.array([col.job] + [self.n_jobs + j for j in col.rows], np.int32)
        vals = np.array([1.0, *col.amounts])
        self.h.addCol(col.cost, 0.0, highspy.kHighsInf, len(rows), rows, vals)
        self.columns.append(col)
        return True

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        """``(value, mu, lambda)``: LP value, convexity duals, prices (>= 0)."""
        _use_threads(self.threads)
        self.h.run()
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(
                f"master LP: {self.h.modelStatusToString(self.h.getModelStatus())}"
            )
        dual = np.asarray(self.h.getSolution().row_dual)
        value = float(self.h.getInfo().objective_function_value)
        return value, dual[: self.n_jobs], np.maximum(-dual[self.n_jobs :], 0.0)


class Bundle:
    """Proximal bundle model of the dual function ``L`` in HiGHS (a convex QP).

    Variables ``z_r = w_r lambda_r >= 0`` (one per coupling row, ``w_r =
    max(C_r, 1)``: the price of a row's whole capacity, which keeps the QP
    well scaled) and ``theta_i`` (one per job).  A column ``q`` of job ``i``
    (any plan of ``X_i``) is the cut ``theta_i <= cost_q + lambda .
    usage_q``, so ``theta_i`` over-estimates job ``i``'s priced minimum and
    ``sum_i theta_i - lambda . C`` (the model) over-estimates ``L(lambda)``.
    :meth:`trial` maximises the model minus ``|z - z_center|^2 / (2 t)``.
    The model only steers the prices; it is never a bound.
    """

    def __init__(self, n_jobs: int, capacity: np.ndarray, threads: int = 1) -> None:
        self.threads = threads
        _use_threads(threads)
        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(threads))
        self.capacity = np.asarray(capacity, dtype=float)
        self.w = np.maximum(self.capacity, 1.0)
        self.n = n = len(self.capacity)
        inf = highspy.kHighsInf
        lower = np.r_[np.zeros(n), np.full(n_jobs, -inf)]
        h.addVars(n + n_jobs, lower, np.full(n + n_jobs, inf))
        self.jobs_cut: set[int] = set()
        self.seen: set[tuple[int, tuple[int, ...], tuple[float, ...]]] = set()

    def add(self, col: Column) -> bool:
        """Add the cut of a column unless it is there; whether it was added."""
        key = (col.job, col.rows, tuple(round(a, 9) for a in col.amounts))
        if key in self.seen:
            return False
        self.seen.add(key)
        self.jobs_cut.add(col.job)
        idx = np.array([self.n + col.job, *col.rows], dtype=np.int32)
        val = np.r_[1.0, -np.asarray(col.amounts) / self.w[list(col.rows)]]
        self.h.addRow(-highspy.kHighsInf, col.cost, len(idx), idx, val)
        return True

    def trial(
        self, center: np.ndarray, t: float, time_limit: float | None = None
    ) -> tuple[np.ndarray, float]:
        """``(lambda, model value at lambda)``: the proximal point of ``center``.

        Needs a cut of every job (else the QP is unbounded).  HiGHS gets at
        most ``time_limit`` seconds (and :data:`QP_LIMIT_S`) and
        :data:`QP_ITERATIONS` iterations; when it fails from the last basis
        it retries once from scratch (its active-set solver was seen to
        cycle).

        Raises
        ------
        RuntimeError
            When HiGHS does not solve the QP (the caller stops).
        """
        n, h = self.n, self.h
        total = h.getNumCol()
        cost = np.r_[self.capacity / self.w - self.w * center / t, -np.ones(total - n)]
        h.changeColsCost(total, np.arange(total, dtype=np.int32), cost)
        hess = highspy.HighsHessian()
        hess.dim_, hess.format_ = total, highspy.HessianFormat.kTriangular
        hess.start_ = np.r_[np.arange(n + 1), np.full(total - n, n)].astype(np.int32)
        hess.index_ = np.arange(n, dtype=np.int32)
        hess.value_ = np.full(n, 1.0 / t)
        h.passHessian(hess)
        limit = QP_LIMIT_S if time_limit is None else min(time_limit, QP_LIMIT_S)
        h.setOptionValue("time_limit", max(limit, 0.01))
        h.setOptionValue("qp_iteration_limit", QP_ITERATIONS)
        _use_threads(self.threads)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            h.clearSolver()
            h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(
                f"bundle QP: {h.modelStatusToString(h.getModelStatus())}"
            )
        x = np.asarray(h.getSolution().col_value)
        lam = np.maximum(x[:n], 0.0) / self.w
        return lam, float(x[n:].sum() - lam @ self.capacity)


def lagrangian_value(
    pricers: list[JobPricer],
    prices: np.ndarray,
    capacity: np.ndarray,
    deadline: Deadline,
    tol: float = 1e-6,
) -> tuple[float, list[Column], bool] | None:
    """One pricing round: ``L(prices)`` (module docstring), its columns, proven.

    Each job's term is its pricing MILP's lower bound minus ``tol (1 +
    |lower|)``.  None when ``deadline`` runs out before every job is priced
    or a pricing MILP gives no finite lower bound (no valid value).
    """
    total = -float(np.asarray(prices) @ np.asarray(capacity))
    cols, proven_all = [], True
    for pr in pricers:
        left = deadline.remaining()
        if left is not None and left <= 0:
            return None
        lower, col, proven = pr.price(prices, left)
        if not math.isfinite(lower):
            return None
        total += lower - tol * (1.0 + abs(lower))
        proven_all = proven_all and proven
        if col is not None:
            cols.append(col)
        cols.extend(pr.extra)
    return total, cols, proven_all


def _capacity(inst: OkitaInstance, rows: list[Row]) -> np.ndarray:
    """``C_r^k`` of each coupling row."""
    return np.array([float(inst.capacity[r, k]) for r, _t, k in rows])


def default_starts(inst: OkitaInstance) -> tuple[OkitaSchedule, ...]:
    """:func:`~optsched.okita.schedule.local_first` when the checker accepts it.

    Its columns seed the master (a feasible restricted master from round
    one); the witness of the generator, cheap.
    """
    try:
        sched = local_first(inst)
        check(inst, sched)
    except Exception:  # noqa: BLE001 - any rejection: no seed
        return ()
    return (sched,)


def lagrangian_bound(
    inst: OkitaInstance,
    *,
    time_limit: float | None = 120.0,
    prices: np.ndarray | None = None,
    method: str = "bundle",
    starts: tuple[OkitaSchedule, ...] | None = None,
    max_rounds: int | None = None,
    target: float | None = None,
    threads: int = 1,
    formulation: str = "v3",
    gap: float = 1e-6,
    tol: float = 1e-6,
) -> LagrangianResult:
    """The best Lagrangian lower bound ``max L(lambda)`` of (2) within a budget.

    Round 0 prices at ``prices`` (None: the LP duals of :func:`lp_prices`,
    so ``L >= LP``).  Later rounds choose the prices from the plans priced
    so far (every plan found is a column / cut): ``method="bundle"``
    (default) by the proximal bundle method (:class:`Bundle`,
    :func:`_bundle_rounds`), ``"wentges"`` by column generation with the
    restricted master LP's duals smoothed towards the best prices
    (:class:`Master`, :func:`_wentges_rounds`).  Every completed round's
    ``L`` is a valid bound whatever the prices (module docstring); the
    result keeps the largest.

    Parameters
    ----------
    inst
        The instance (the one the MILP solves, e.g. with its horizon
        extended).
    time_limit
        Wall seconds for everything (LP, pricing models, rounds; None:
        until convergence or ``max_rounds``).  A pricing MILP gets what is
        left; a round cut by the limit gives no value.
    prices
        First prices, one per row of :func:`coupling_rows` (clipped at 0).
    method
        ``"bundle"`` or ``"wentges"`` (above).
    starts
        Checked schedules whose per-job plans seed the columns (None:
        :func:`default_starts`).
    max_rounds
        Stop after this many completed rounds, round 0 included (None: no
        limit).
    target
        Stop as soon as the bound reaches it (e.g. an incumbent's value).
    threads, formulation, gap, tol
        HiGHS threads; the formulation of the pricing MILP; its
        ``mip_rel_gap`` (only the speed depends on it: the dual bound is
        used); the per-job tolerance of :func:`lagrangian_value`.

    Returns
    -------
    LagrangianResult
        ``best_bound`` is a valid lower bound at any stop (``-inf`` when no
        round completed).
    """
    if method not in ("bundle", "wentges"):
        raise ValueError(f"method: must be 'bundle' or 'wentges', got {method!r}")
    dl = Deadline(time_limit)
    _use_threads(threads)
    capacity = _capacity(inst, coupling_rows(inst))
    lp_value = math.nan
    if prices is None:
        try:
            lp_value, prices = lp_prices(
                inst, threads=threads, time_limit=dl.remaining()
            )
        except RuntimeError:
            return _result(-math.inf, lp_value, math.nan, 0, False, [], dl, None)
    prices = np.maximum(np.asarray(prices, dtype=float), 0.0)
    pricers = [
        JobPricer(inst, i, threads=threads, formulation=formulation, gap=gap)
        for i in range(inst.n_jobs)
    ]
    first = lagrangian_value(pricers, prices, capacity, dl, tol)
    if first is None:
        return _result(-math.inf, lp_value, math.nan, 0, False, [], dl, None)
    seeds = [c for s in (default_starts(inst) if starts is None else starts)
             for c in schedule_columns(inst, s)]  # fmt: skip
    run = _Run(pricers, capacity, dl, tol, threads, max_rounds, target)
    rounds = _bundle_rounds if method == "bundle" else _wentges_rounds
    best, center, history, converged, n_cols = rounds(run, prices, first, seeds)
    return _result(best, lp_value, first[0], n_cols, converged, history, dl, center)


@dataclasses.dataclass
class _Run:
    """What the rounds of :func:`lagrangian_bound` share."""

    pricers: list[JobPricer]
    capacity: np.ndarray
    deadline: Deadline
    tol: float
    threads: int
    max_rounds: int | None
    target: float | None

    def stop(self, rounds: int, best: float) -> bool:
        """Whether the budget, the round limit or the target says stop."""
        return (
            self.deadline.expired()
            or (self.max_rounds is not None and rounds >= self.max_rounds)
            or (self.target is not None and best >= self.target)
        )

    def value(self, prices: np.ndarray) -> tuple[float, list[Column], bool] | None:
        """:func:`lagrangian_value` at ``prices``."""
        return lagrangian_value(
            self.pricers, prices, self.capacity, self.deadline, self.tol
        )


#: What a rounds function returns: best ``L``, its prices, the history
#: ``(seconds, L, best, model value)``, converged, number of columns.
Rounds = tuple[float, np.ndarray, list[tuple[float, float, float, float]], bool, int]


def _wentges_rounds(
    run: _Run,
    prices: np.ndarray,
    first: tuple[float, list[Column], bool],
    seeds: list[Column],
    smoothing: float = 0.8,
) -> Rounds:
    """Column generation with Wentges smoothing (``method="wentges"``).

    Each round prices at ``alpha lambda_best + (1 - alpha) lambda_master``;
    a round whose columns have no negative reduced cost under the master's
    duals (mispricing) lowers ``alpha`` by ``1 - smoothing`` for the next
    round; at ``alpha = 0`` with no such column and every pricing MILP
    proven, column generation has converged.  The model value of the history
    is the master LP value before the round (not a bound).
    """
    best, center = first[0], prices
    dl = run.deadline
    history = [(dl.elapsed(), best, best, math.nan)]
    master = _master(len(run.pricers), run.capacity, first[1] + seeds, run.threads)
    alpha, converged = smoothing, False
    while not run.stop(len(history), best):
        value, mu, lam_m = master.solve()
        lam = alpha * center + (1.0 - alpha) * lam_m
        out = run.value(lam)
        if out is None:
            break
        if out[0] > best:
            best, center = out[0], lam
        history.append((dl.elapsed(), out[0], best, value))
        improving = [
            c for c in out[1]
            if c.cost + float(lam_m[list(c.rows)] @ c.amounts) - mu[c.job] < -run.tol
        ]  # fmt: skip
        for c in out[1]:
            master.add(c)
        if improving:
            alpha = smoothing
        elif alpha > 0:  # mispricing: move towards the master's duals
            alpha -= 1.0 - smoothing
            alpha = alpha if alpha > 1e-9 else 0.0
        else:
            converged = out[2]
            break
    return best, center, history, converged, len(master.columns)


def _bundle_rounds(
    run: _Run,
    prices: np.ndarray,
    first: tuple[float, list[Column], bool],
    seeds: list[Column],
    serious: float = 0.1,
) -> Rounds:
    """The proximal bundle method (``method="bundle"``).

    The trial point maximises the cutting-plane model of :class:`Bundle`
    (every plan priced so far is a cut) minus the proximal term around the
    centre.  A trial whose ``L`` gains at least ``serious`` times the
    model's predicted gain over the centre's becomes the centre (serious
    step; the step size ``t`` doubles when it gains half the prediction),
    else only its cuts are kept (null step; ``t`` halves, down to a
    thousandth of its first value, when ``L`` fell below the centre's).
    Stops when the predicted gain is below ten times the tolerance, or when
    a null step adds no cut (the model is exact at the trial point, the next
    trial would be the same): converged when the last round was proven;
    also stops when the QP fails at three step sizes (:func:`_trial`).
    The best ``L`` of all rounds (serious or null) is returned.  The model
    value of the history is the model's value at the trial point (an
    over-estimate of ``L`` there, not a bound).
    """
    top, fc, center, proven = first[0], first[0], prices, first[2]
    dl = run.deadline
    history = [(dl.elapsed(), top, top, math.nan)]
    bundle = Bundle(len(run.pricers), run.capacity, run.threads)
    for c in first[1] + seeds:
        bundle.add(c)
    t, converged = _first_step(run.capacity, first[1], center, fc, run.target), False
    t_min, best_prices = 1e-3 * t, prices
    if len(bundle.jobs_cut) < len(run.pricers):  # a job without a plan: no model
        return top, best_prices, history, converged, len(bundle.seen)
    while not run.stop(len(history), top):
        trial = _trial(bundle, center, t, t_min, dl)
        if trial is None:  # the QP failed: keep what was found
            break
        (lam, predicted), t = trial
        gain = predicted - fc
        if gain <= 10 * run.tol * (1.0 + abs(fc)):
            converged = proven
            break
        out = run.value(lam)
        if out is None:
            break
        new = [bundle.add(c) for c in out[1]]
        if out[0] > top:
            top, best_prices = out[0], lam
        history.append((dl.elapsed(), out[0], top, predicted))
        proven = out[2]
        if out[0] >= fc + serious * gain:  # serious step
            t *= 2.0 if out[0] >= fc + 0.5 * gain else 1.0
            fc, center = out[0], lam
            continue
        if out[0] < fc:
            t = max(t / 2.0, t_min)
        if not any(new):  # null step without a new cut: the same trial again
            converged = proven
            break
    return top, best_prices, history, converged, len(bundle.seen)


def _trial(
    bundle: Bundle, center: np.ndarray, t: float, t_min: float, dl: Deadline
) -> tuple[tuple[np.ndarray, float], float] | None:
    """:meth:`Bundle.trial` at ``t``, else at ``t / 4`` and ``t / 16`` (not
    below ``t_min``): a different QP when HiGHS fails on one.  ``((lambda,
    model value), t used)``, or None when all three fail."""
    for _ in range(3):
        try:
            return bundle.trial(center, t, dl.remaining()), t
        except RuntimeError:
            t = max(t / 4.0, t_min)
    return None


def _first_step(
    capacity: np.ndarray,
    columns: list[Column],
    center: np.ndarray,
    value: float,
    target: float | None,
) -> float:
    """Initial proximal step ``t`` of :func:`_bundle_rounds`.

    The subgradient ``g = usage - C`` of round 0 (over ``w = max(C, 1)``,
    the metric of :class:`Bundle`, and projected on ``lambda >= 0``);
    a step along it gains about ``t |g|^2 / 2``; ``t`` is chosen to gain the
    distance to ``target`` (or 5 % of ``|L|``) if the function were linear.
    """
    use = -np.asarray(capacity, dtype=float)
    for c in columns:
        use[list(c.rows)] += c.amounts
    g = use / np.maximum(capacity, 1.0)
    g[(center <= 0) & (g < 0)] = 0.0
    norm = float(g @ g)
    aim = target - value if target is not None and target > value else 0.05 * abs(value)
    return 2.0 * max(aim, 1.0) / norm if norm > 0 else 1.0


def _master(
    n_jobs: int, capacity: np.ndarray, columns: list[Column], threads: int
) -> Master:
    """A master holding ``columns``; artificial cost twice the costliest plus 1."""
    most = max((abs(c.cost) for c in columns), default=0.0)
    master = Master(n_jobs, capacity, 2.0 * most + 1.0, threads)
    for c in columns:
        master.add(c)
    return master


def _result(
    best: float,
    lp_value: float,
    lp_lagrangian: float,
    n_cols: int,
    converged: bool,
    history: list[tuple[float, float, float, float]],
    dl: Deadline,
    prices: np.ndarray | None,
) -> LagrangianResult:
    """The :class:`LagrangianResult` of a stop."""
    return LagrangianResult(
        best_bound=best,
        lp_value=lp_value,
        lp_lagrangian=lp_lagrangian,
        model=history[-1][3] if history else math.nan,
        converged=converged,
        rounds=len(history),
        columns=n_cols,
        runtime=dl.elapsed(),
        history=history,
        prices=np.zeros(0) if prices is None else prices,
    )


def colgen_bound(inst: OkitaInstance, deadline: Deadline) -> dict[str, float]:
    """``{"colgen": bound}`` within what is left of ``deadline`` (``extra_bounds``).

    :func:`lagrangian_bound` (LP duals first, then column generation) for
    the remaining time of ``deadline`` (:func:`optsched.core.base.certified_solve`
    hands it the solve's budget); ``{}`` when the budget is used up or no
    pricing round completed (no valid value).
    """
    left = deadline.remaining()
    if left is not None and left <= 0:
        return {}
    res = lagrangian_bound(inst, time_limit=left)
    return {"colgen": res.best_bound} if math.isfinite(res.best_bound) else {}
