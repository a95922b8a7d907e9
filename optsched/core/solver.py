"""The one entry point to HiGHS (through Pyomo's new solver interface).

Facts this module relies on (pyomo 6.10, highspy 1.15-1.16, see DESIGN.md):

* ``pyomo.environ`` must be imported before the contrib ``SolverFactory``.
* ``rel_gap=0`` is passed by default: HiGHS otherwise stops at 1e-4 and still
  reports convergence, which must never be called "optimal" here.  With
  ``rel_gap=0`` the absolute gap is set to 0 too (HiGHS's ``mip_abs_gap``
  defaults to 1e-6): ``oasis.generate(seed=0, n_jobs=6, n_slots=12,
  n_worker_servers=2, n_ps_servers=2)`` without a MIP start was "optimal"
  at 45.58359667849995 with the bound 45.58359729827941 (the optimum; SCIP
  agrees).
* With ``load_solutions=False`` and ``raise_exception_on_nonoptimal_result=False``
  HiGHS reports time limits and infeasibility instead of raising; a solution
  is loaded only when one exists.
* The reported runtime is the wall time measured around the call (HiGHS may
  overshoot its time limit during root cuts).

MIP defaults (:data:`MIP_DEFAULTS`, applied to every model with an unfixed
integer or binary variable; a model overrides a key only with a measured
reason next to its override):

* ``presolve_rule_off = (1 << 12) | (1 << 13)`` (aggregator; parallel rows
  and columns).  highspy 1.15.1's MIP presolve returned wrong "optimal"
  values: 0 instead of 91.17 on a one-job OASiS instance, and 250.52 instead
  of 251.90 on ``oasis.generate(4, n_jobs=10, n_slots=10,
  n_worker_servers=4, n_ps_servers=4)`` (below OASiS's own checked 251.90).
  Switching off either rule avoided it; both are off.  No measurable cost
  on the OASiS and HAS/JPS MILPs.
* ``mip_feasibility_tolerance = 1e-7`` (the LP tolerance; HiGHS's default
  is 1e-6).  On the HAS/JPS P1 MILP the default ended in "solve error" on
  ``hetero.generate(seed=2, ...)`` instances and let near-optimal incumbents
  through as "optimal"; 1e-7 avoided both.  The OASiS model tightens it to
  1e-9 (sigmoid utilities differ by < 1e-6 between completion slots, see
  ``optsched.models.oasis.HIGHS_OPTIONS``).

HiGHS keeps one thread scheduler per process: a run that asks for a
different ``threads`` than the first run of the process ends in "Solve error"
("the scheduler has already been initialized to use 2 threads").
:func:`solve` therefore resets the scheduler whenever the requested number
of threads changes (solves never run concurrently inside one process here;
sweeps use processes).

A MIP start (``start=``, a feasible assignment such as the best checked
online schedule) is handed to HiGHS with ``Highs.setSolution`` before the
run: a full assignment as a dense solution, a partial one by column index
(HiGHS then completes it by a sub-MIP).  HiGHS checks the start itself and
ignores it when infeasible ("MIP start solution is infeasible" in the log).
highspy 1.16.0 can, with a start and presolve on, report the incumbent of
the presolved problem as "optimal" while handing back the start's own
vector (seen on an edge-cloud MILP: reported and bound 6, returned point
worth 10; 1 of 80 tiny instances).  :func:`solve` therefore compares the
objective of the loaded point with the reported incumbent and, when they
differ, solves again without the start; a mismatch without a start (never
seen) is reported as status ``error``.

Dual sign convention (LPs, ``duals=True``): the dual of a constraint is
d(objective)/d(right-hand side) in Pyomo's (lower, body, upper) form.  Hence
``<=`` rows of a *max* problem have duals >= 0 and ``<=`` rows of a *min*
problem have duals <= 0.  Duals are returned keyed by the constraint data
object (``model.c[idx]``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import highspy
import numpy as np
import pyomo.environ as pyo  # noqa: F401  (must precede the contrib factory)
from pyomo.contrib.solver.common.factory import SolverFactory
from pyomo.contrib.solver.common.results import (
    SolutionStatus,
    TerminationCondition,
)

from .errors import SolverError
from .protocols import OfflineResult

STATUSES = ("optimal", "time_limit", "infeasible", "unbounded", "error")
#: HiGHS options of every MIP solve (reasons in the module docstring).
MIP_DEFAULTS: dict[str, Any] = {
    "presolve_rule_off": (1 << 12) | (1 << 13),
    "mip_feasibility_tolerance": 1e-7,
}


_threads_in_use: list[int | None] = []


def _use_threads(threads: int | None) -> None:
    """Reset HiGHS's process-wide thread scheduler when ``threads`` changes."""
    if _threads_in_use and _threads_in_use[0] != threads:
        highspy.Highs.resetThreadScheduler(True)
    _threads_in_use[:] = [threads]


def is_mip(model: pyo.ConcreteModel) -> bool:
    """Whether the model has an unfixed integer or binary variable."""
    return any(
        not v.fixed and (v.is_integer() or v.is_binary())
        for v in model.component_data_objects(pyo.Var, active=True, descend_into=True)
    )


def mip_options(
    model: pyo.ConcreteModel, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The HiGHS options of a solve: :data:`MIP_DEFAULTS` for a MIP, overridden key by key."""
    merged = dict(MIP_DEFAULTS) if is_mip(model) else {}
    merged.update(options or {})
    return merged


@dataclass(frozen=True)
class SolveResult:
    """Outcome of one solve.

    Attributes
    ----------
    status
        One of ``optimal``, ``time_limit``, ``infeasible``, ``unbounded``,
        ``error``.  ``optimal`` means HiGHS proved optimality with the
        requested gap (0 by default).
    objective
        Objective value of the loaded incumbent, or NaN when there is none.
    bound
        Best dual bound reported by HiGHS (NaN when unavailable).
    gap
        Relative gap ``|objective - bound| / max(1e-12, |objective|)``.
    runtime
        Wall-clock seconds measured around the solver call.
    duals
        Constraint duals (LPs with ``duals=True`` only), keyed by the Pyomo
        constraint data object.
    """

    status: str
    objective: float
    bound: float
    gap: float
    runtime: float
    duals: dict[Any, float] = field(default_factory=dict, repr=False)

    @property
    def has_solution(self) -> bool:
        """Whether an incumbent was loaded into the model."""
        return not math.isnan(self.objective)


def _new_highs():
    opt = SolverFactory("highs")
    if opt is None or not opt.available():
        raise SolverError("HiGHS is not available (pip install highspy>=1.15)")
    return opt


def _num(x: Any) -> float:
    if x is None:
        return math.nan
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def solve(
    model: pyo.ConcreteModel,
    *,
    time_limit: float | None = None,
    mip_gap: float = 0.0,
    threads: int | None = None,
    duals: bool = False,
    verbose: bool = False,
    options: Mapping[str, Any] | None = None,
    start: Mapping[Any, float] | None = None,
) -> SolveResult:
    """Solve a Pyomo model with HiGHS and map the outcome to a SolveResult.

    Parameters
    ----------
    model
        A Pyomo ``ConcreteModel`` with exactly one active objective.
    time_limit
        Wall-clock limit in seconds passed to HiGHS (None = no limit).
    mip_gap
        Relative MIP gap at which HiGHS may stop; the default 0 means the
        optimum must be proven.
    threads
        Number of HiGHS threads (None = HiGHS default).
    duals
        Import constraint duals (LPs only; must be False for MIPs).
    verbose
        Show the HiGHS log.
    options
        HiGHS options by name; for a MIP they override :data:`MIP_DEFAULTS`
        key by key (e.g. ``{"mip_feasibility_tolerance": 1e-9}``).
    start
        Optional MIP start: values by Pyomo variable (a
        ``pyomo.core.expr.numeric_expr.ComponentMap`` or any mapping keyed
        by variable data objects).  Variables not in the model are ignored;
        a start that covers every variable is passed as a full solution.

    Returns
    -------
    SolveResult
        The incumbent (if any) is loaded into ``model``.
    """
    opt = _new_highs()
    had_suffix = hasattr(model, "dual")
    if duals and not had_suffix:
        model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    kwargs: dict[str, Any] = {
        "load_solutions": False,
        "raise_exception_on_nonoptimal_result": False,
        "tee": verbose,
        "rel_gap": mip_gap,
    }
    if mip_gap == 0:  # an exact optimum: no absolute gap either (module docstring)
        kwargs["abs_gap"] = 0.0
    if time_limit is not None:
        kwargs["time_limit"] = float(time_limit)
    if threads is not None:
        kwargs["threads"] = int(threads)
    merged = mip_options(model, options)
    if merged:
        kwargs["solver_options"] = merged
    _use_threads(threads)
    began = time.perf_counter()
    try:
        if start:
            _set_start(opt, model, start, kwargs)
        res = opt.solve(model, **kwargs)
        out = _finish(model, res, time.perf_counter() - began, duals)
        if start and _returned_other_point(model, out):
            # see the module docstring: solve again without the start
            opt = _new_highs()
            res = opt.solve(model, **kwargs)
            out = _finish(model, res, time.perf_counter() - began, duals)
    except Exception as exc:  # pragma: no cover - defensive
        raise SolverError(f"HiGHS failed: {exc}") from exc
    if _returned_other_point(model, out):
        # the loaded point is not the incumbent HiGHS reports: trust neither
        out = SolveResult("error", math.nan, out.bound, math.nan, out.runtime)
    return out


def _returned_other_point(model: pyo.ConcreteModel, res: SolveResult) -> bool:
    """Whether the loaded variables' objective differs from HiGHS's reported incumbent."""
    if not res.has_solution:
        return False
    obj = next(model.component_data_objects(pyo.Objective, active=True))
    loaded = float(pyo.value(obj))
    return abs(loaded - res.objective) > 1e-6 * max(1.0, abs(res.objective))


def _set_start(opt, model, start: Mapping[Any, float], kwargs: dict[str, Any]) -> None:
    """Load ``model`` into the persistent HiGHS object and give it ``start``.

    ``opt.solve`` then finds the model already loaded (same object) and only
    runs ``update``, which keeps the solution set here.
    """
    opt._active_config = opt.config(
        value={k: v for k, v in kwargs.items() if k not in ("rel_gap", "abs_gap")}
    )
    opt.set_instance(model)
    col = opt._pyomo_var_to_solver_var_map
    idx, vals = [], []
    for var, value in start.items():
        j = col.get(id(var))
        if j is not None and value is not None:
            idx.append(j)
            vals.append(float(value))
    h = opt._solver_model
    n = h.getNumCol()
    if len(set(idx)) == n:
        sol = highspy.HighsSolution()
        dense = np.zeros(n)
        dense[idx] = vals
        sol.col_value = dense.tolist()
        sol.value_valid = True
        h.setSolution(sol)
    elif idx:
        h.setSolution(
            len(idx),
            np.asarray(idx, dtype=np.int32),
            np.asarray(vals, dtype=np.float64),
        )


def _finish(model, res, runtime: float, duals: bool) -> SolveResult:
    tc = res.termination_condition
    has_sol = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    if tc == TerminationCondition.convergenceCriteriaSatisfied:
        status = "optimal"
    elif tc in (
        TerminationCondition.maxTimeLimit,
        TerminationCondition.iterationLimit,
        TerminationCondition.interrupted,
    ):
        status = "time_limit"
    elif tc == TerminationCondition.provenInfeasible:
        status, has_sol = "infeasible", False
    elif tc in (
        TerminationCondition.unbounded,
        TerminationCondition.infeasibleOrUnbounded,
    ):
        status, has_sol = "unbounded", False
    else:
        status = "error"
    objective = math.nan
    dual_values: dict[Any, float] = {}
    if has_sol:
        res.solution_loader.load_vars()
        objective = _num(res.incumbent_objective)
        if duals:
            dual_values = dict(res.solution_loader.get_duals())
    bound = _num(res.objective_bound)
    if status == "optimal" and math.isnan(bound):
        bound = objective
    gap = math.nan
    if not math.isnan(objective) and not math.isnan(bound):
        gap = abs(objective - bound) / max(1e-12, abs(objective))
    return SolveResult(status, objective, bound, gap, runtime, dual_values)


class PersistentLP:
    """A HiGHS LP kept alive between solves (column generation, repeated LPs).

    Uses one solver object so that Pyomo translates the model once and then
    only sends changes.  Call :meth:`solve` after adding variables or
    constraints to the model; Pyomo's persistent interface picks them up.
    """

    def __init__(self, model: pyo.ConcreteModel, *, verbose: bool = False) -> None:
        self.model = model
        self.verbose = verbose
        self._opt = _new_highs()

    def solve(self, *, time_limit: float | None = None) -> SolveResult:
        """Re-solve the LP and return duals (see module docstring for signs)."""
        kwargs: dict[str, Any] = {
            "load_solutions": False,
            "raise_exception_on_nonoptimal_result": False,
            "tee": self.verbose,
        }
        if time_limit is not None:
            kwargs["time_limit"] = float(time_limit)
        start = time.perf_counter()
        res = self._opt.solve(self.model, **kwargs)
        runtime = time.perf_counter() - start
        return _finish(self.model, res, runtime, duals=True)


# ------------------------------------------------------------------ deadlines
class DeadlineExceeded(Exception):
    """The time limit of a ``solve_offline`` call passed while building its model.

    Internal: raised by :meth:`Deadline.check` inside model building and
    caught by the ``solve_offline`` that owns the :class:`Deadline`, which
    then returns status ``time_limit``.
    """

    def __init__(self, where: str = "") -> None:
        super().__init__(f"time limit reached while {where or 'building the model'}")
        self.where = where


class Deadline:
    """Wall-clock budget of one ``solve_offline`` call, model building included.

    Measured from construction (or from ``began``, a ``time.perf_counter()``
    value).  Model builders call :meth:`check` at loop granularity (one
    ``time.perf_counter()`` call), wrap Pyomo rules with :meth:`rule` (a rule
    must not raise: Pyomo logs the exception as an error) and give HiGHS
    :meth:`remaining` seconds.

    Parameters
    ----------
    time_limit
        Seconds (None = no limit: :meth:`check` never raises).
    began
        Start of the budget (default: now).
    """

    def __init__(self, time_limit: float | None, *, began: float | None = None) -> None:
        if time_limit is not None:
            time_limit = float(time_limit)
            if math.isnan(time_limit) or time_limit < 0:
                raise ValueError(
                    f"time_limit: must be a number of seconds >= 0, got {time_limit!r}"
                )
        self.time_limit = time_limit
        self.began = time.perf_counter() if began is None else float(began)
        self._end = math.inf if time_limit is None else self.began + time_limit
        self.hit = False

    def elapsed(self) -> float:
        """Seconds since the start of the budget."""
        return time.perf_counter() - self.began

    def remaining(self) -> float | None:
        """Seconds left (>= 0), or None without a limit."""
        if self.time_limit is None:
            return None
        return max(0.0, self._end - time.perf_counter())

    def expired(self) -> bool:
        """Whether the budget is used up (remembered in :attr:`hit`)."""
        if not self.hit and time.perf_counter() >= self._end:
            self.hit = True
        return self.hit

    def check(self, where: str = "") -> None:
        """Raise :class:`DeadlineExceeded` when the budget is used up."""
        if self.expired():
            raise DeadlineExceeded(where)

    def iterate(self, items: Any, where: str = "", every: int = 256) -> Any:
        """Yield ``items``, calling :meth:`check` before every ``every``-th one."""
        for n, item in enumerate(items):
            if n % every == 0:
                self.check(where)
            yield item

    def rule(self, fn: Any, where: str = "") -> Any:
        """A Pyomo constraint rule that skips its rows once the budget is used up.

        After the component is constructed, call :meth:`check` (the skipped
        rows make the model incomplete, so it must not be solved).
        """

        def wrapped(*args: Any) -> Any:
            if self.expired():
                return pyo.Constraint.Skip
            return fn(*args)

        return wrapped

    def constraint(self, *args: Any, rule: Any, **kwargs: Any) -> pyo.Constraint:
        """``pyo.Constraint(*args, rule=self.rule(rule), **kwargs)`` after a :meth:`check`.

        A model builder that creates every rule-based component this way
        stops at the first component after the budget ran out; it calls
        :meth:`check` once more at its end.
        """
        self.check(kwargs.get("name") or "building the model")
        return pyo.Constraint(*args, rule=self.rule(rule), **kwargs)


def timed_out(
    deadline: Deadline,
    bound: float,
    schedule: Any = None,
    objective: float = math.nan,
) -> OfflineResult[Any]:
    """The ``OfflineResult`` of a ``solve_offline`` whose budget ran out before HiGHS.

    Status ``time_limit``, ``runtime`` measured by ``deadline``, the checked
    ``schedule`` (e.g. the best online schedule, computed as the MIP start)
    as incumbent with its checker ``objective`` (NaN without one), and a
    valid ``bound`` that needs no solve.
    """
    if schedule is None:
        objective = math.nan
    return OfflineResult(
        float(objective), float(bound), "time_limit", deadline.elapsed(), schedule
    )


def keep_better(result: Any, sense: str, schedule: Any, objective: float) -> Any:
    """``result`` with ``schedule`` as incumbent when HiGHS stopped at its limit
    without one, or with a worse one (a MIP start it did not reach or use).

    ``schedule`` is checked, ``objective`` its checker value; results other
    than ``time_limit`` are returned unchanged.
    """
    from dataclasses import replace

    if schedule is None or result.status != "time_limit" or math.isnan(objective):
        return result
    have = result.objective
    better = objective > have if sense == "max" else objective < have
    if math.isnan(have) or better:
        return replace(result, objective=float(objective), schedule=schedule)
    return result
