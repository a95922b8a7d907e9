"""The one entry point to HiGHS (through Pyomo's new solver interface).

Facts this module relies on (pyomo 6.10, highspy 1.15, see DESIGN.md):

* ``pyomo.environ`` must be imported before the contrib ``SolverFactory``.
* ``rel_gap=0`` is passed by default: HiGHS otherwise stops at 1e-4 and still
  reports convergence, which must never be called "optimal" here.
* With ``load_solutions=False`` and ``raise_exception_on_nonoptimal_result=False``
  HiGHS reports time limits and infeasibility instead of raising; a solution
  is loaded only when one exists.
* The reported runtime is the wall time measured around the call (HiGHS may
  overshoot its time limit during root cuts).

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

import pyomo.environ as pyo  # noqa: F401  (must precede the contrib factory)
from pyomo.contrib.solver.common.factory import SolverFactory
from pyomo.contrib.solver.common.results import (
    SolutionStatus,
    TerminationCondition,
)

from .errors import SolverError

STATUSES = ("optimal", "time_limit", "infeasible", "unbounded", "error")


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
        Extra HiGHS options by name (e.g. ``{"presolve_rule_off": 12288}``).

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
    if time_limit is not None:
        kwargs["time_limit"] = float(time_limit)
    if threads is not None:
        kwargs["threads"] = int(threads)
    if options:
        kwargs["solver_options"] = dict(options)
    start = time.perf_counter()
    try:
        res = opt.solve(model, **kwargs)
    except Exception as exc:  # pragma: no cover - defensive
        raise SolverError(f"HiGHS failed: {exc}") from exc
    runtime = time.perf_counter() - start
    return _finish(model, res, runtime, duals)


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
