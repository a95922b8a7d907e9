"""The typed contract between core and the slices.

Core (the registry, the ratio harness, the horizon rule, the worst-case
search, the CLI) knows a paper only through these protocols; a slice
satisfies them structurally (no base class to inherit).

* :class:`Instance`: a problem instance with an exact JSON round trip
  (``to_dict`` / ``to_json`` / ``from_json``).  A slot horizon
  ``n_slots`` is *not* part of the protocol: papers without one (``hetero``,
  ``asrpt``) are instances too (:mod:`optsched.core.horizon`).
* :class:`Schedule`: an algorithm's or the solver's decisions, with an
  exact JSON round trip and ``meta``, a free-form dict for *traces only*
  (never serialised, never read by core).  Facts core must read are typed
  members of the schedule class, and survive JSON:

  - :class:`SlottedSchedule` ``last_slot``: the needed horizon, computed
    from the schedule's own rows (edgecloud, okita), read by
    :func:`optsched.core.horizon.needed_slots`;
  - ``ps_gaps`` of :class:`optsched.okita.schedule.OkitaSchedule`: the
    violation of strict (2c) the algorithm declares, read by
    :func:`optsched.core.ratio.declared_violation`.
* :class:`Evaluation`: what a paper's checker returns; core reads only
  ``objective``.
* :class:`Algorithm`: the one signature of every algorithm,
  ``alg(inst, *, seed=0, params=None) -> schedule``;
  :func:`signature_mismatch` says how a callable differs from it.
* :data:`Status` and :class:`OfflineResult`: the status and the result of
  an offline solve (every ``solve_offline`` returns an OfflineResult).

The protocols are ``runtime_checkable`` where an ``isinstance`` check means
something (presence of the members; signatures are not checked by
``isinstance``, hence :func:`signature_mismatch`).
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    Protocol,
    Self,
    TypeVar,
    cast,
    get_args,
    runtime_checkable,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .solver import SolveResult

__all__ = [
    "BOUND_KINDS",
    "STATUSES",
    "Algorithm",
    "BoundKind",
    "Evaluation",
    "Instance",
    "OfflineResult",
    "Schedule",
    "Sense",
    "SlottedSchedule",
    "Status",
    "signature_mismatch",
]

#: Status of an offline solve: ``optimal`` (proven), ``time_limit`` (an
#: incumbent or none, with the solver's dual bound), ``infeasible``, ``error``.
Status = Literal["optimal", "time_limit", "infeasible", "error"]

#: The values of :data:`Status`, in order.
STATUSES: tuple[str, ...] = get_args(Status)

#: Name of the bound in :attr:`OfflineResult.bound`: ``milp`` (HiGHS's dual
#: bound of the paper's exact MILP; a proven optimum's bound), ``lp`` (an LP
#: relaxation), ``colgen`` (column generation / Lagrangian dual bound),
#: ``branch_price`` (branch and price: the least bound of the open nodes of
#: a branching over a column-generation relaxation), ``combinatorial`` (a slice's simple bound computed without a solve),
#: ``none`` (no finite bound).
BoundKind = Literal["milp", "lp", "colgen", "branch_price", "combinatorial", "none"]

#: The values of :data:`BoundKind`, in order.
BOUND_KINDS: tuple[str, ...] = get_args(BoundKind)

#: Sense of a paper's objective.
Sense = Literal["max", "min"]

I_contra = TypeVar("I_contra", contravariant=True)
S_co = TypeVar("S_co", covariant=True)


@runtime_checkable
class Instance(Protocol):
    """A paper's problem instance: a frozen dataclass with an exact JSON round trip.

    ``type(inst).from_json(inst.to_json())`` equals ``inst``; ``from_json``
    refuses unknown keys and out-of-domain values, naming the field.
    """

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (with the slice's format tag)."""
        ...

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        ...

    @classmethod
    def from_json(cls, text: str) -> Self:
        """Parse :meth:`to_json` output (exact inverse)."""
        ...


@runtime_checkable
class Schedule(Protocol):
    """A slice's schedule: exact JSON round trip; ``meta`` holds traces only.

    ``meta`` is a read-only attribute here (schedules are frozen
    dataclasses; the dict itself is filled by the algorithm).  It is not
    written by ``to_json`` and core never reads it.
    """

    @property
    def meta(self) -> dict[str, Any]:
        """Algorithm traces (not serialised, not part of the contract)."""
        ...

    def to_json(self) -> str:
        """JSON text of the schedule's decisions and declared facts."""
        ...

    @classmethod
    def from_json(cls, text: str) -> Self:
        """Parse :meth:`to_json` output (exact inverse, strict)."""
        ...


@runtime_checkable
class SlottedSchedule(Schedule, Protocol):
    """A schedule of a paper with a slot horizon ``T`` whose runs may pass it.

    ``last_slot`` is the last slot any row of the schedule uses (0 for an
    empty schedule): the horizon it needs (:mod:`optsched.core.horizon`).
    It is computed from the rows, so it survives JSON with no extra key.
    """

    @property
    def last_slot(self) -> int:
        """The last slot any row uses (0 if none)."""
        ...


@runtime_checkable
class Evaluation(Protocol):
    """What a paper's checker recomputed; core reads ``objective`` only."""

    @property
    def objective(self) -> float:
        """The paper's objective recomputed from the schedule alone."""
        ...


class Algorithm(Protocol[I_contra, S_co]):
    """The one signature of every algorithm: ``(inst, *, seed=0, params=None)``.

    ``seed`` drives every random choice (``numpy.random.default_rng``);
    ``params`` is the algorithm's parameter object (a frozen dataclass) or
    None for its defaults.
    """

    def __call__(
        self, inst: I_contra, /, *, seed: int = 0, params: Any | None = None
    ) -> S_co:
        """Run the algorithm on ``inst`` and return its schedule."""
        ...


def signature_mismatch(fn: Any) -> str | None:
    """How ``fn``'s signature differs from :class:`Algorithm`'s, or None if it matches.

    Matches: exactly one positional parameter (the instance), then exactly
    the keyword-only ``seed`` with default ``0`` and ``params`` with default
    ``None``; no ``*args`` / ``**kwargs``, no other parameter.  Wrappers are
    followed (``inspect.signature``).

    Parameters
    ----------
    fn
        A callable (an entry of ``Paper.algorithms``).

    Returns
    -------
    str or None
        A one-line description of the first difference, or None.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return f"signature cannot be inspected ({exc})"
    params = list(sig.parameters.values())
    P = inspect.Parameter
    positional = [
        p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
    ]
    if len(positional) != 1 or positional[0] is not params[0]:
        return f"expected one positional parameter (the instance), got {sig}"
    if positional[0].default is not P.empty:
        return f"the instance parameter {positional[0].name!r} has a default: {sig}"
    rest = {p.name: p for p in params[1:]}
    if set(rest) != {"seed", "params"}:
        return f"expected keyword-only 'seed' and 'params' only, got {sig}"
    for name, default in (("seed", 0), ("params", None)):
        p = rest[name]
        if p.kind is not P.KEYWORD_ONLY:
            return f"{name!r} must be keyword-only: {sig}"
        if (
            p.default is P.empty
            or p.default != default
            or type(p.default) is not type(default)
        ):
            return f"{name!r} must default to {default!r}, got {p.default!r}: {sig}"
    return None


#: The schedule type of an :class:`OfflineResult`.
S = TypeVar("S", bound=Schedule)


@dataclass(frozen=True)
class OfflineResult(Generic[S]):
    """Offline optimum of one instance as certified by the solver.

    Attributes
    ----------
    objective
        Objective of the incumbent schedule as recomputed by the paper's
        checker (NaN when there is no incumbent).  It is the optimum only when
        ``status == "optimal"``.
    bound
        A valid bound on the optimum (upper bound for max, lower bound for
        min): the solver's dual bound, or, when the solve is not proven, the
        tightest bound the slice certifies (named by ``bound_kind``).
    status
        ``optimal``, ``time_limit``, ``infeasible`` or ``error``
        (:data:`optsched.core.protocols.Status`).
    runtime
        Wall-clock seconds of the solve.
    schedule
        The incumbent schedule (the slice's Schedule type) or None.
    bound_kind
        Which bound ``bound`` is (:data:`BOUND_KINDS`): ``milp`` (the
        default, and always for a proven optimum), ``lp``, ``colgen``,
        ``branch_price``, ``combinatorial`` or ``none``.  A bound that is not finite (NaN, or
        infinite while HiGHS has none yet) is ``none`` whatever was passed;
        ``none`` with a finite bound is a ValueError.  When a solve is not
        proven, ``solve_offline`` reports the tightest of the valid bounds
        its slice certifies and names it here.
    """

    objective: float
    bound: float
    status: Status
    runtime: float
    schedule: S | None = None
    bound_kind: BoundKind = "milp"

    def __post_init__(self) -> None:
        if self.bound_kind not in BOUND_KINDS:
            raise ValueError(
                f"bound_kind: must be one of {BOUND_KINDS}, got {self.bound_kind!r}"
            )
        if not math.isfinite(float(self.bound)):
            object.__setattr__(self, "bound_kind", "none")
        elif self.bound_kind == "none":
            raise ValueError(
                f"bound_kind: 'none' names no bound, but bound is {self.bound!r}"
            )

    @classmethod
    def from_solve(
        cls,
        res: SolveResult,
        began: float,
        extract: Callable[[], S],
        evaluate: Callable[[S], Evaluation],
    ) -> OfflineResult[S]:
        """The result of a MILP solve ``res`` (:class:`optsched.core.solver.SolveResult`).

        With an incumbent, ``extract()`` turns it into the slice's schedule
        and ``evaluate(schedule).objective`` (the paper's checker) is the
        reported objective -- never the solver's own value; ``runtime`` is
        the wall time since ``began`` (``time.perf_counter()``).
        """
        objective, sched = math.nan, None
        if res.has_solution:
            sched = extract()
            objective = float(evaluate(sched).objective)
        status = cast(Status, res.status)
        return cls(objective, res.bound, status, time.perf_counter() - began, sched)
