"""A second opinion on a HiGHS optimum: the same Pyomo model re-solved by SCIP.

``solve_offline(..., confirm="scip")`` (every paper) and ``optsched solve
--confirm scip`` end in :func:`confirm_scip`: when HiGHS reports a proven
optimum, the very Pyomo model HiGHS solved is written to an LP file (Pyomo's
LP writer keeps the objective's sense and its constant term, the latter as
the fixed column ``ONE_VAR_CONSTANT``), read by SCIP through pyscipopt
(``pip install optsched[scip]``), and solved with one thread, no output and
the time left of the caller's budget.

* SCIP proves an optimum that differs from HiGHS's objective value of the
  model by more than :data:`CONFIRM_RTOL` ``* max(1, |HiGHS|)``:
  :class:`~optsched.core.errors.SolverError` naming both values and the
  model.
* SCIP proves the model infeasible or unbounded although HiGHS proved an
  optimum: :class:`~optsched.core.errors.SolverError` as well.
* SCIP stops without a proof (time limit, or any other status): no error,
  the caller's result is returned unchanged -- the check is a second
  opinion, not a requirement -- and an :class:`UnconfirmedWarning` says so.

The comparison is between the two solvers' values of the *model* objective,
not the checker's recomputation from the extracted schedule (which the
certified solve already makes).  SCIP runs with its default tolerances
(``limits/gap = limits/absgap = 0``: an optimum is a proven one).
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings
from typing import Any

from .errors import SolverError

__all__ = [
    "CONFIRM_RTOL",
    "CONFIRMERS",
    "UnconfirmedWarning",
    "check_confirm",
    "confirm_scip",
    "scip_value",
]

#: Relative tolerance of the agreement of two proven optima.
CONFIRM_RTOL = 1e-6
#: Accepted values of the ``confirm`` keyword (besides None).
CONFIRMERS = ("scip",)

_INSTALL = (
    "confirm='scip' needs pyscipopt (SCIP's Python interface): "
    "pip install optsched[scip]  (or pip install 'pyscipopt>=5')"
)


class UnconfirmedWarning(RuntimeWarning):
    """SCIP stopped without proving optimality: the HiGHS optimum stands unconfirmed."""


def _pyscipopt() -> Any:
    """The ``pyscipopt`` module, or an ImportError saying how to install it."""
    try:
        import pyscipopt
    except ImportError as exc:
        raise ImportError(_INSTALL) from exc
    return pyscipopt


def check_confirm(confirm: Any) -> None:
    """Refuse a ``confirm`` value other than None or ``"scip"``; for ``"scip"``
    also require pyscipopt (before any solve, so a missing package fails fast).

    Raises
    ------
    ValueError
        ``"confirm: expected None or 'scip', got 'gurobi'"``.
    ImportError
        ``confirm="scip"`` without pyscipopt installed.
    """
    if confirm is not None and confirm not in CONFIRMERS:
        raise ValueError(f"confirm: expected None or 'scip', got {confirm!r}")
    if confirm == "scip":
        _pyscipopt()


def scip_value(model: Any, *, time_limit: float | None = None) -> tuple[str, float]:
    """SCIP's status and optimum of a Pyomo model (written to an LP file).

    Parameters
    ----------
    model
        A Pyomo ``ConcreteModel`` with one active objective; it is written
        as is (active components, fixed variables as constants).
    time_limit
        SCIP's time limit in seconds (None = none).

    Returns
    -------
    tuple[str, float]
        SCIP's status (``"optimal"``, ``"timelimit"``, ``"infeasible"``,
        ...) and its objective value in the model's sense and units when the
        status is ``"optimal"``, NaN otherwise.

    Raises
    ------
    ImportError
        When pyscipopt is not installed (the message says how to install it).
    """
    Model = _pyscipopt().Model

    with tempfile.TemporaryDirectory(prefix="optsched-scip-") as tmp:
        path = os.path.join(tmp, "model.lp")
        model.write(path, io_options={"symbolic_solver_labels": True})
        scip = Model()
        scip.hideOutput()
        scip.readProblem(path)
    for param in ("lp/threads", "parallel/maxnthreads"):  # one thread
        try:
            scip.setParam(param, 1)
        except KeyError:  # pragma: no cover - an older or newer SCIP
            pass
    if time_limit is not None:
        scip.setParam("limits/time", max(0.0, float(time_limit)))
    scip.optimize()
    status = str(scip.getStatus())
    optimum = float(scip.getObjVal()) if status == "optimal" else math.nan
    return status, optimum


def confirm_scip(
    model: Any,
    highs_objective: float,
    *,
    time_limit: float | None = None,
) -> float:
    """Re-solve ``model`` with SCIP and compare its optimum with HiGHS's.

    Parameters
    ----------
    model
        The Pyomo model HiGHS proved optimal, unchanged since.
    highs_objective
        HiGHS's objective value of that optimum (the solver's, in the
        model's units).
    time_limit
        Seconds SCIP may take (None = none); at 0 SCIP is not run.

    Returns
    -------
    float
        SCIP's proven optimum, or NaN when SCIP stopped without a proof
        (then nothing is compared and an :class:`UnconfirmedWarning` is
        issued).

    Raises
    ------
    SolverError
        When SCIP proves an optimum more than :data:`CONFIRM_RTOL` relative
        (to ``max(1, |highs_objective|)``) away from ``highs_objective``, or
        proves the model infeasible or unbounded.
    ImportError
        When pyscipopt is not installed.
    """
    name = getattr(model, "name", "?")
    if time_limit is not None and time_limit <= 0:
        status, value = "timelimit", math.nan  # no time left: SCIP is not run
    else:
        status, value = scip_value(model, time_limit=time_limit)
    if status in ("infeasible", "unbounded", "inforunbd"):
        raise SolverError(
            f"model {name}: HiGHS reports the optimum {highs_objective!r}, "
            f"but SCIP proves the model {status}"
        )
    if status != "optimal" or math.isnan(value):
        warnings.warn(
            f"model {name}: SCIP stopped without proving optimality (status "
            f"{status}); HiGHS's optimum {highs_objective!r} is not confirmed",
            UnconfirmedWarning,
            stacklevel=2,
        )
        return math.nan
    if abs(value - highs_objective) > CONFIRM_RTOL * max(1.0, abs(highs_objective)):
        raise SolverError(
            f"model {name}: SCIP's optimum {value!r} differs from HiGHS's "
            f"{highs_objective!r} by more than {CONFIRM_RTOL:g} relative"
        )
    return value
