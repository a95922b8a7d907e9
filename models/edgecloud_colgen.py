r"""Column-generation (Dantzig-Wolfe / Lagrangian) lower bound for problem (2).

The exact MILP of :mod:`optsched.models.edgecloud` couples its jobs only
through two families of capacity rows:

* ``c2d_worker_capacity``: ``sum_{j,d} y[j,d,s,w,t] <= 1`` per edge worker
  ``(s, w)`` and slot ``t``;
* ``c2f_ps_capacity``: ``sum_j z[j,s,p,t] <= 1`` per edge PS ``(s, p)`` and
  slot ``t``;

and, with storage, through (7b) (``c7b_storage``), which this bound drops
(a relaxation, so the bound stays valid on instances with storage).  Every
other row (dispatch, no migration, (2b) per chunk, one PS per training slot,
(2g)-(2h), no cloud preemption, completion (2j), the v2 work-by-completion
and v3 chunk-order rows) and the objective ``sum_j (c_j - r_j)`` involve one
job only.

Two couplings (``pricing=`` of :func:`column_generation`).  ``"dp"`` (the
default) keeps only the worker rows (2d) as coupling rows and drops the PS
rows (2f): the bound is then a bound on the MILP without (2f), a relaxation,
so it is valid for (2); its pricing is exact and fast (:class:`DPPricer`,
an enumeration over the completion slot and the split of the ``D_j``
chunks among workers, tested equal to the one-job MILP).  ``"milp"`` keeps
both families and prices with the one-job MILP (:class:`JobPricer`), exact
and about 1-3 s per job at the size of Fig. 12, too slow there.  Below,
"coupling rows" means the rows kept; dropping a row from the coupling only
enlarges the feasible set, so every argument holds for both.

Job sets.  ``X_j`` is the set of integer points of :func:`build_model` (v3,
no storage) on the one-job instance ``inst`` restricted to job ``j`` (same
servers, same ``T``): job ``j``'s whole schedule (``x, y, z, zeta, u, st,
W, Ucum``), with the capacity rows restricted to job ``j``'s own terms.

Master.  The Dantzig-Wolfe master picks, per job, a convex combination
``lambda`` of points of ``X_j`` subject to the coupling rows above
(``sum_{j, q in X_j} a_{q,r} lambda_q <= 1`` per edge worker-slot and PS-slot
``r``), minimising ``sum_{j,q} c_q lambda_q`` with ``c_q = c_j - r_j``.

*Every integer schedule of the full MILP is a master point.*  Take an integer
feasible point of the full MILP (any formulation, storage or not).  Its
restriction to job ``j`` has the variables of the one-job model (the domains
of :func:`build_model` depend on the job, the servers and ``T`` only; the
cloud virtual worker ``off_j + d`` becomes ``d``, and the one cloud PS index
``j`` becomes ``0``, neither has a capacity row), meets every per-job row
(they are the same rows), and meets the job's own capacity rows because the
full rows add only nonnegative terms of other jobs.  It is therefore a point
``q_j`` of ``X_j`` with cost ``c_j - r_j``; ``lambda_{q_j} = 1`` for every
``j`` satisfies the coupling rows, because they *are* the full MILP's
``c2d`` / ``c2f`` rows, and the master objective equals (2).  So the master
optimum (with all columns) is at most the MILP optimum.

Valid bound at any iteration (Lagrangian).  For any prices ``pi >= 0`` on the
coupling rows,

.. math::

   L(\pi) = \sum_j \min_{q \in X_j} \Bigl(c_q + \sum_r \pi_r a_{q,r}\Bigr)
            - \sum_r \pi_r \le \mathrm{OPT}

(relax the coupling rows with multipliers ``pi``; every MILP schedule is a
master point, and ``a_{q,r} \le 1``-rows give ``pi_r (sum a - 1) <= 0``).  The
inner minimum is the pricing MILP of job ``j`` (the one-job model with the
prices added to the cost of its edge ``y`` and ``z`` columns); only its
*proven* lower bound (HiGHS's MIP dual bound, which equals the optimum when
it is proven) enters ``L``, so a pricing solve stopped early still gives a
valid (weaker) ``L``.  ``pi`` comes from the master LP's duals (clipped at 0)
or a stabilised combination of them; ``L`` is valid for every such ``pi``
whatever the columns of the master, which only steer ``pi``.  The master LP
value itself is never reported as a bound.  The total JCT is an integer,
so ``ceil(L - tol)`` is valid too (:attr:`ColgenResult.bound`).

At convergence (no column with a negative reduced cost) ``L`` equals the
master LP optimum, which is at least the LP relaxation of the full v3 MILP
without storage (``conv(X_j)`` lies inside the one-job LP polytope, and the
full LP's rows for job ``j`` imply that polytope's rows); tested.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import highspy
import numpy as np
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

from optsched.core.solver import MIP_DEFAULTS, _use_threads
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule, cloud_only

from .edgecloud import build_model

__all__ = [
    "ColgenResult", "DPPricer", "JobPricer", "Master", "colgen_bound",
    "column_generation", "generate", "schedule_columns",
]  # fmt: skip

#: A coupling row: ``("w", s, w, t)`` (edge worker) or ``("p", s, p, t)`` (edge PS).
Resource = tuple[str, int, int, int]
#: Cost of the artificial column that keeps every master LP feasible.
ARTIFICIAL_COST = 1e4
#: HiGHS model statuses after which a MIP dual bound is trusted: the branch
#: and bound ran to an end or to a limit.
_RAN = frozenset(
    {
        highspy.HighsModelStatus.kOptimal,
        highspy.HighsModelStatus.kTimeLimit,
        highspy.HighsModelStatus.kIterationLimit,
        highspy.HighsModelStatus.kSolutionLimit,
        highspy.HighsModelStatus.kInterrupt,
    }
)


@dataclasses.dataclass(frozen=True)
class Column:
    """One job's schedule as a master column: cost ``c_j - r_j`` and its rows."""

    job: int
    cost: float
    uses: frozenset[Resource]


@dataclasses.dataclass
class ColgenResult:
    """Outcome of :func:`column_generation`.

    Attributes
    ----------
    value
        Best Lagrangian bound ``L(pi)`` found (a valid lower bound on (2)).
    bound
        ``ceil(value - 1e-6)`` (the objective is an integer), a valid bound.
    master
        Last master LP value (not a bound unless ``converged``).
    converged
        Whether the last pricing round found no negative reduced cost with
        every pricing problem proven optimal.
    iterations, columns, runtime
        Pricing rounds, master columns, wall seconds.
    history
        ``(seconds, L, master)`` per round.
    """

    value: float
    bound: float
    master: float
    converged: bool
    iterations: int
    columns: int
    runtime: float
    history: list[tuple[float, float, float]]


class JobPricer:
    """The exact pricing MILP of one job, kept alive in HiGHS between rounds.

    It is :func:`build_model` (formulation v3, no storage) on the one-job
    instance; the prices only change the costs of the job's edge ``y``
    (worker) and ``z`` (PS) columns (module docstring).
    """

    def __init__(self, inst: EdgeCloudInstance, j: int, threads: int = 1) -> None:
        self.job = j
        self.arrival = int(inst.arrival[j])
        sub = dataclasses.replace(inst, jobs=(inst.jobs[j],), meta={})
        model = build_model(sub, formulation="v3", storage=False)
        repn = LinearStandardFormCompiler().write(
            model, mixed_form=True, set_sense=None
        )
        cols = repn.columns
        self.base = np.asarray(repn.c.todense()).ravel().astype(float)
        A = repn.A.tocsc()
        lower, upper = [], []
        for bt, rhs in zip((r.bound_type for r in repn.rows), repn.rhs, strict=True):
            lower.append(-highspy.kHighsInf if bt == 1 else float(rhs))
            upper.append(highspy.kHighsInf if bt == -1 else float(rhs))
        self.threads = int(threads)
        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(threads))
        for option, value in MIP_DEFAULTS.items():
            h.setOptionValue(option, value)
        h.setOptionValue("mip_rel_gap", 1e-6)
        h.setOptionValue("mip_abs_gap", 1e-6)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = len(cols), len(lower)
        lp.col_cost_ = self.base
        lp.col_lower_ = np.array([0.0 if v.lb is None else v.lb for v in cols])
        lp.col_upper_ = np.array(
            [highspy.kHighsInf if v.ub is None else v.ub for v in cols]
        )
        lp.row_lower_, lp.row_upper_ = np.array(lower), np.array(upper)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = A.indptr
        lp.a_matrix_.index_ = A.indices
        lp.a_matrix_.value_ = A.data
        lp.integrality_ = [
            highspy.HighsVarType.kInteger
            if v.is_integer()
            else highspy.HighsVarType.kContinuous
            for v in cols
        ]
        h.passModel(lp)
        self.res_cols: dict[Resource, list[int]] = defaultdict(list)
        self.col_res: dict[int, Resource] = {}
        cloud = inst.cloud
        for i, v in enumerate(cols):
            name, idx = v.parent_component().name, v.index()
            if name == "y" and idx[2] != cloud:
                key: Resource = ("w", int(idx[2]), int(idx[3]), int(idx[4]))
            elif name == "z" and idx[1] != cloud:
                key = ("p", int(idx[1]), int(idx[2]), int(idx[3]))
            else:
                continue
            self.res_cols[key].append(i)
            self.col_res[i] = key
        self._priced = np.zeros(len(cols), dtype=bool)

    def price(
        self, prices: dict[Resource, float], time_limit: float | None
    ) -> tuple[float, Column | None, bool]:
        """Minimise ``c_j - r_j + sum_r pi_r a_r`` over the job's schedules.

        Returns
        -------
        tuple
            ``(lower, column, proven)``: a proven lower bound of the minimum
            (``-inf`` when HiGHS gives none), the best schedule found as a
            column (None without one) and whether the minimum was proven.
        """
        cost = self.base.copy()
        for key, cols in self.res_cols.items():
            p = prices.get(key, 0.0)
            if p:
                cost[cols] += p
        changed = np.flatnonzero((cost != self.base) | self._priced)
        self._priced = cost != self.base
        if len(changed):
            self.h.changeColsCost(len(changed), changed.astype(np.int32), cost[changed])
        self.h.setOptionValue(
            "time_limit",
            highspy.kHighsInf if time_limit is None else max(time_limit, 0.01),
        )
        _use_threads(self.threads)  # HiGHS's scheduler is process-wide
        self.h.run()
        status = self.h.getModelStatus()
        info = self.h.getInfo()
        proven = status == highspy.HighsModelStatus.kOptimal
        lower = (
            float(info.mip_dual_bound) if info.mip_dual_bound is not None else -math.inf
        )
        if status not in _RAN or not math.isfinite(lower):
            # HiGHS did not run its branch and bound to an end or a limit (e.g.
            # "Not Set" after a thread-scheduler mismatch): no bound to trust
            lower = -math.inf
        column = None
        if info.primal_solution_status == 2:  # feasible point available
            x = np.asarray(self.h.getSolution().col_value)
            uses = frozenset(
                self.col_res[int(i)]
                for i in np.flatnonzero(x > 0.5)
                if int(i) in self.col_res
            )
            column = Column(self.job, float(round(float(self.base @ x))), uses)
            if proven:
                lower = min(lower, float(cost @ x))
        return lower, column, proven


class DPPricer:
    """Exact pricing of one job by enumeration, with prices on edge *workers* only.

    With no price on the PS rows (the ``"dp"`` coupling of
    :func:`column_generation`), a schedule of job ``j`` with all runs in
    ``[1, C]`` costs ``C - r_j + sum of pi over its edge worker-slots``, and
    the job's rows decouple by worker:

    * ``zeta_j = 1``: every chunk in the cloud, completion ``r_j +
      Delta_jc + k_j1 - 1`` at the earliest, no worker price;
    * ``zeta_j = 0``: each chunk either on a cloud worker (``k_j0``
      consecutive slots in ``[r_j + Delta_jc, C]``, no price) or on a
      qualified edge worker ``g`` of a usable server (``k_j0`` slots in
      ``[r_j + Delta_js, C]``, distinct for chunks sharing ``g``: one chunk
      per worker and slot), in slots where some PS of the job exists (a
      qualified edge PS of a server ``s'`` with ``t >= r_j + Delta_js'``, or
      the cloud PS from ``r_j + Delta_jc``; (2e)).  ``n`` chunks on ``g``
      cost at least the ``n k_j0`` smallest prices of its allowed slots, and
      that choice is feasible.  (``zeta_j = 0`` with every chunk in the cloud
      costs at least the ``zeta_j = 1`` schedule, so allowing it does not
      change the minimum.)

    The minimum over ``C`` of ``C - r_j`` plus the best split of the ``D_j``
    chunks among workers (a knapsack over at most ``D_j`` units) is the
    exact minimum over ``X_j`` (tested against :class:`JobPricer`).
    """

    def __init__(self, inst: EdgeCloudInstance, j: int) -> None:
        T, c = inst.n_slots, inst.cloud
        self.job, self.T = j, T
        self.r = r = int(inst.arrival[j])
        self.D = int(inst.D[j])
        self.k0, k1 = int(inst.chunk_slots[j, 0]), int(inst.chunk_slots[j, 1])
        job = inst.jobs[j]
        self.cloud_ready = r + int(inst.delay[j, c])
        self.zeta1 = (
            self.cloud_ready + k1 - 1 - r
            if self.cloud_ready + k1 - 1 <= T
            else math.inf
        )
        ps_ok = np.zeros(T + 2, dtype=bool)  # index t = slot t
        ps_ok[min(self.cloud_ready, T + 1) :] = True
        for s in range(c):
            if np.any(inst.ps_types[s] == job.ps_type):
                ps_ok[min(r + int(inst.delay[j, s]), T + 1) :] = True
        self.workers: list[tuple[int, int, np.ndarray]] = []  # (s, w, allowed slots)
        for s in range(c):
            ready = r + int(inst.delay[j, s])
            if ready + self.k0 - 1 > T:
                continue
            slots = np.array(
                [t for t in range(ready, T + 1) if ps_ok[t]], dtype=np.int64
            )
            for w in np.flatnonzero(inst.worker_types[s] == job.worker_type):
                self.workers.append((s, int(w), slots))
        self.res_cols: dict[Resource, list[int]] = {
            ("w", s, w, int(t)): [] for s, w, slots in self.workers for t in slots
        }

    def _slots(self, g: int, C: int) -> tuple[list[int], list[int]]:
        """``(forced, free)`` slots up to ``C`` of worker ``g``: none forced, all allowed free.

        :class:`optsched.models.edgecloud_bp.RestrictedPricer` overrides it
        with a branch's forced and forbidden worker-slots.
        """
        _s, _w, slots = self.workers[g]
        return [], [int(t) for t in slots if t <= C]

    def _zeta1(self) -> float:
        """Cost of the all-cloud schedule (``zeta_j = 1``; inf when not allowed)."""
        return self.zeta1

    def _worker_costs(self, prices: dict[Resource, float], C: int) -> np.ndarray:
        """``cost[g, n]``: ``n`` chunks on worker ``g`` up to ``C``, its forced slots
        and the cheapest free ones (``n k0`` slots in all; inf when impossible)."""
        out = np.full((len(self.workers), self.D + 1), math.inf)
        for g, (s, w, _slots) in enumerate(self.workers):
            forced, free = self._slots(g, C)
            if forced and max(forced) > C:
                continue
            base = sum(prices.get(("w", s, w, t), 0.0) for t in forced)
            p = np.sort([prices.get(("w", s, w, t), 0.0) for t in free])
            csum = np.concatenate(([0.0], np.cumsum(p)))
            for n in range(0 if not forced else 1, self.D + 1):
                need = n * self.k0 - len(forced)
                if 0 <= need <= len(p):
                    out[g, n] = base + csum[need]
        return out

    def price(
        self, prices: dict[Resource, float], time_limit: float | None = None
    ) -> tuple[float, Column | None, bool]:
        """As :meth:`JobPricer.price`, exactly (``proven`` is always True)."""
        best, arg = self._zeta1(), None
        cloud_done = self.cloud_ready + self.k0 - 1  # a zeta = 0 cloud chunk
        first = min(
            (int(sl[self.k0 - 1]) for _s, _w, sl in self.workers if len(sl) >= self.k0),
            default=self.T + 1,
        )
        for C in range(min(first, cloud_done), self.T + 1):
            if C - self.r >= best:
                break
            cost = self._worker_costs(prices, C)
            cloud_ok = cloud_done <= C
            # knapsack over workers: f[n] = cheapest way to place n chunks on the edge
            f = np.full(self.D + 1, math.inf)
            pick: list[list[tuple[int, int]]] = [[] for _ in range(self.D + 1)]
            f[0] = 0.0
            for g in range(len(self.workers)):
                new, new_pick = f + cost[g, 0], [list(x) for x in pick]
                for n in range(1, self.D + 1):
                    for m in range(1, n + 1):
                        v = f[n - m] + cost[g, m]
                        if v < new[n] - 1e-12:
                            new[n], new_pick[n] = v, pick[n - m] + [(g, m)]
                f, pick = new, new_pick
            for n_edge in range(1, self.D + 1):
                if n_edge < self.D and not cloud_ok:
                    continue
                v = C - self.r + f[n_edge]
                if v < best - 1e-12:
                    best, arg = v, (C, pick[n_edge])
        return best, self._column(prices, arg), True

    def _column(self, prices, arg) -> Column | None:
        """The schedule ``arg = (C, [(worker, chunks), ...])`` as a column."""
        if arg is None:
            if math.isinf(self._zeta1()):
                return None  # no schedule at all
            return Column(self.job, float(self.zeta1), frozenset())
        C, placed = arg
        uses: set[Resource] = set()
        last = 0
        for g, n in placed:
            s, w, _slots = self.workers[g]
            forced, free = self._slots(g, C)
            p = np.array([prices.get(("w", s, w, t), 0.0) for t in free])
            order = np.argsort(p, kind="stable")[: n * self.k0 - len(forced)]
            chosen = forced + [free[i] for i in order]
            uses.update(("w", s, w, int(t)) for t in chosen)
            last = max(last, max(chosen))
        if sum(n for _g, n in placed) < self.D:
            last = max(last, self.cloud_ready + self.k0 - 1)
        return Column(self.job, float(last - self.r), frozenset(uses))


def schedule_columns(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> list[Column]:
    """The per-job columns of a checked schedule (to seed the master)."""
    c = inst.cloud
    uses: dict[int, set[Resource]] = defaultdict(set)
    for j, _d, t, s, w in np.asarray(sched.runs).tolist():
        if s != c:
            uses[j].add(("w", s, w, t))
    for j, t, s, p in np.asarray(sched.ps).tolist():
        if s != c:
            uses[j].add(("p", s, p, t))
    done = sched.completion(inst.n_jobs)
    return [
        Column(j, float(int(done[j]) - int(inst.arrival[j])), frozenset(uses[j]))
        for j in range(inst.n_jobs)
    ]


class Master:
    """The restricted master LP in HiGHS: convexity rows, then coupling rows."""

    def __init__(
        self, n_jobs: int, resources: list[Resource], threads: int = 1
    ) -> None:
        self.threads = int(threads)
        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", int(threads))
        self.n_jobs = n_jobs
        self.row: dict[Resource, int] = {r: n_jobs + i for i, r in enumerate(resources)}
        self.resources = resources
        inf = highspy.kHighsInf
        h.addRows(n_jobs, np.ones(n_jobs), np.ones(n_jobs), 0, [], [], [])
        m = len(resources)
        h.addRows(m, np.full(m, -inf), np.ones(m), 0, [], [], [])
        self.columns: list[Column] = []
        self.seen: set[tuple[int, frozenset[Resource]]] = set()
        for j in range(
            n_jobs
        ):  # artificial columns: every restricted master is feasible
            h.addCol(
                ARTIFICIAL_COST, 0.0, inf, 1, np.array([j], dtype=np.int32), np.ones(1)
            )

    def add(self, col: Column) -> bool:
        """Add a column unless an identical one is there; whether it was added."""
        key = (col.job, col.uses)
        if key in self.seen:
            return False
        self.seen.add(key)
        rows = [col.job] + sorted(self.row[r] for r in col.uses if r in self.row)
        self.h.addCol(
            col.cost,
            0.0,
            highspy.kHighsInf,
            len(rows),
            np.array(rows, dtype=np.int32),
            np.ones(len(rows)),
        )
        self.columns.append(col)
        return True

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        """``(value, mu, pi)``: LP value, convexity duals, coupling prices (>= 0)."""
        _use_threads(self.threads)  # HiGHS's scheduler is process-wide
        self.h.run()
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(
                f"master LP: {self.h.modelStatusToString(self.h.getModelStatus())}"
            )
        dual = np.asarray(self.h.getSolution().row_dual)
        value = float(self.h.getInfo().objective_function_value)
        return value, dual[: self.n_jobs], np.maximum(-dual[self.n_jobs :], 0.0)


def column_generation(
    inst: EdgeCloudInstance,
    *,
    time_limit: float | None = 60.0,
    starts: tuple[EdgeCloudSchedule, ...] = (),
    target: float | None = None,
    smoothing: float = 0.5,
    pricing: str = "dp",
    threads: int = 1,
    tol: float = 1e-6,
) -> ColgenResult:
    """The column-generation (Lagrangian) lower bound of (2) (module docstring).

    Parameters
    ----------
    inst
        The instance (storage, if any, is dropped: a relaxation).
    time_limit
        Wall seconds (None: until convergence).  Checked between pricing
        problems; a pricing MILP gets what is left.
    starts
        Checked schedules whose per-job pieces seed the master.
    target
        Stop as soon as the bound reaches it (e.g. the incumbent's value).
    smoothing
        Wentges smoothing ``alpha``: price at ``alpha pi_best + (1 - alpha)
        pi_master`` (0 = plain Kelley / Dantzig-Wolfe); on a round without
        an improving column the master's own duals are priced.
    pricing
        ``"dp"`` (default): coupling rows = the edge worker rows (2d) only,
        priced exactly by :class:`DPPricer` (the PS rows (2f) are dropped, a
        relaxation); ``"milp"``: worker and PS rows, priced by the one-job
        MILP :class:`JobPricer` (exact, much slower).
    threads
        HiGHS threads.
    tol
        Reduced-cost and bound tolerance.

    Returns
    -------
    ColgenResult
        ``value`` / ``bound`` are valid lower bounds at any stop.
    """
    began = time.perf_counter()
    _use_threads(threads)

    def left() -> float | None:
        return (
            None if time_limit is None else time_limit - (time.perf_counter() - began)
        )

    pricers, shared, master = _setup(inst, pricing, starts, threads)
    best, _pi, value, converged, rounds, history = generate(
        master, pricers, shared, left, smoothing=smoothing, tol=tol, target=target,
        began=began,
    )  # fmt: skip
    return ColgenResult(
        value=best,
        bound=float(math.ceil(best - 1e-6)) if math.isfinite(best) else best,
        master=value,
        converged=converged,
        iterations=rounds,
        columns=len(master.columns),
        runtime=time.perf_counter() - began,
        history=history,
    )


def generate(
    master: Master,
    pricers: list[Any],
    shared: list[Resource],
    left: Callable[[], float | None],
    *,
    smoothing: float = 0.5,
    tol: float = 1e-6,
    target: float | None = None,
    began: float | None = None,
) -> tuple[float, np.ndarray, float, bool, int, list[tuple[float, float, float]]]:
    """Price and re-solve ``master`` until no improving column, the time or ``target``.

    The loop of :func:`column_generation`, shared with the branch and price
    of :mod:`optsched.models.edgecloud_bp` (one call per node, its pricers
    restricted by the node's branching).  ``left()`` gives the seconds left
    (None: no limit); ``history``'s seconds count from ``began`` (a
    ``time.perf_counter()``; None: from this call).

    Returns
    -------
    tuple
        ``(best, best_pi, master_value, converged, rounds, history)``: the
        best Lagrangian ``L`` (valid at any stop; ``-inf`` when no round
        ended, ``+inf`` when some job has no schedule at all), its prices,
        the last master LP value, whether the last round proved no column
        improves, the rounds and ``(seconds, L, master)`` per round.
    """
    began = time.perf_counter() if began is None else began
    best, best_pi = -math.inf, np.zeros(len(shared))
    history: list[tuple[float, float, float]] = []
    converged, rounds, value = False, 0, math.nan
    while True:
        value, mu, pi_m = master.solve()
        alpha = smoothing if rounds > 0 and math.isfinite(best) else 0.0
        improved, out = _round(
            master, pricers, shared, mu, pi_m, best_pi, alpha, left, tol
        )
        rounds += 1
        if out is not None and out[0] > best:
            best, best_pi = out[0], out[1]
        history.append((time.perf_counter() - began, best, value))
        if out is None:  # time ran out inside the round
            break
        if not improved and alpha > 0:  # mispricing: retry at the master's duals
            improved, out = _round(
                master, pricers, shared, mu, pi_m, best_pi, 0.0, left, tol
            )
            if out is not None and out[0] > best:
                best, best_pi = out[0], out[1]
            history.append((time.perf_counter() - began, best, value))
            if out is None:
                break
            converged = not improved and out[2]
        elif not improved:
            converged = out[2]
        lim = left()
        if converged or best == math.inf or (lim is not None and lim <= 0):
            break
        if target is not None and math.ceil(best - 1e-6) >= target - 1e-9:
            break
    return best, best_pi, value, converged, rounds, history


def _setup(
    inst: EdgeCloudInstance,
    pricing: str,
    starts: tuple[EdgeCloudSchedule, ...],
    threads: int,
) -> tuple[list[Any], list[Resource], Master]:
    """The pricers, the coupling rows (used by two jobs or more) and the master.

    The master starts with the all-cloud schedule's columns (no coupling
    row) and those of ``starts``.
    """
    if pricing not in ("dp", "milp"):
        raise ValueError(f"pricing: must be 'dp' or 'milp', got {pricing!r}")
    pricers: list[Any] = [
        DPPricer(inst, j) if pricing == "dp" else JobPricer(inst, j, threads)
        for j in range(inst.n_jobs)
    ]
    users: dict[Resource, set[int]] = defaultdict(set)
    for pr in pricers:
        for key in pr.res_cols:
            users[key].add(pr.job)
    shared = sorted(k for k, js in users.items() if len(js) > 1)
    master = Master(inst.n_jobs, shared, threads)
    for sched in (cloud_only(inst), *starts):
        for col in schedule_columns(inst, sched):
            if pricing == "dp":  # the PS rows are not coupling rows
                col = Column(
                    col.job, col.cost, frozenset(r for r in col.uses if r[0] == "w")
                )
            master.add(col)
    return pricers, shared, master


def _round(master, pricers, shared, mu, pi_m, best_pi, alpha, left, tol):
    """One pricing round at ``pi = alpha best_pi + (1 - alpha) pi_m``.

    Returns ``(improved, (L, pi, all_proven))``, or ``(improved, None)`` when
    the time ran out before every job was priced (no valid ``L``).  Columns
    with a negative reduced cost under the *master's* duals are added.
    """
    pi = alpha * best_pi + (1.0 - alpha) * pi_m
    prices = {r: float(p) for r, p in zip(shared, pi, strict=True) if p > 0}
    prices_m = {r: float(p) for r, p in zip(shared, pi_m, strict=True) if p > 0}
    total, proven_all, improved = -float(pi.sum()), True, False
    for pr in pricers:
        lim = left()
        if lim is not None and lim <= 0:
            return improved, None
        lower, col, proven = pr.price(prices, lim)
        proven_all = proven_all and proven
        # no schedule at all (+inf, a branch's restrictions) or no bound (-inf)
        total += lower - tol * (1.0 + abs(lower)) if math.isfinite(lower) else lower
        if col is not None:
            rc = col.cost + sum(prices_m.get(r, 0.0) for r in col.uses) - mu[pr.job]
            if rc < -tol and master.add(col):
                improved = True
    return improved, (total, pi, proven_all)


def colgen_bound(inst: EdgeCloudInstance, deadline: Any) -> dict[str, float]:
    """``{"colgen": bound}`` within what is left of ``deadline`` (for ``certified_solve``)."""
    res = column_generation(inst, time_limit=deadline.remaining())
    return {"colgen": res.bound} if math.isfinite(res.bound) else {}
