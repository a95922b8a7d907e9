"""Local search over checked schedules: a better incumbent than the online start.

:func:`improve` is paper-neutral.  A slice supplies the neighbourhood (a
generator of labelled candidate schedules) and the evaluation (the slice's
independent checker, ``Paper.check``).  Every candidate is checked before it
can be accepted; a candidate the checker rejects is counted and discarded,
never kept, so the returned schedule is always one the checker accepted and
its objective is the checker's.

Two strategies: ``"first"`` accepts the first candidate that improves the
current objective (the neighbourhood's order decides, and the slice shuffles
it with the seeded generator), ``"best"`` scans the whole neighbourhood and
accepts its best improving candidate.  The search stops at a local optimum
(no candidate improves), at ``time_limit`` seconds (checked between
candidates), or after ``max_evaluations`` candidates.

:func:`iterated` is an iterated local search on top of it: from the local
optimum of :func:`improve` (the same descent, same generator, so never
worse), it perturbs the current local optimum by a slice-supplied *kick*,
descends again, and keeps the best; the walk continues from the new local
optimum when it is not worse than the current one, else from the best.  It
stops when the budget is spent or after ``patience`` kicks in a row that did
not improve the best.

Determinism: every random choice comes from one
``numpy.random.default_rng(seed)`` handed to the neighbourhood, so with the
same seed a search that ends at a local optimum or at ``max_evaluations``
returns the same schedule; a search cut by ``time_limit`` depends on the
machine's speed (use ``max_evaluations`` where reproducibility matters).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import TOL
from .errors import InfeasibleScheduleError

#: A neighbourhood: ``(inst, schedule, rng) -> iterable of (move label, candidate)``.
Neighbours = Callable[[Any, Any, np.random.Generator], Iterable[tuple[str, Any]]]
#: A kick (perturbation): ``(inst, schedule, rng) -> (label, candidate)``.
Perturb = Callable[[Any, Any, np.random.Generator], tuple[str, Any]]
#: The checker: ``(inst, schedule) -> evaluation with .objective``; raises
#: :class:`~optsched.core.errors.InfeasibleScheduleError` for an infeasible one.
Evaluate = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class SearchTrace:
    """What :func:`improve` did.

    Attributes
    ----------
    start
        Checker objective of the start schedule.
    objective
        Checker objective of the returned schedule.
    accepted
        ``(move label, objective after the move)`` per accepted move, in order.
    n_candidates
        Candidates evaluated (checked), accepted or not.
    n_infeasible
        Candidates the checker rejected (discarded).
    stop
        ``"local_optimum"``, ``"time_limit"``, ``"max_evaluations"`` or
        (:func:`iterated` only) ``"patience"``.
    runtime
        Wall time of the search in seconds.
    n_kicks
        Perturbations :func:`iterated` made (0 for :func:`improve`).
    """

    start: float
    objective: float
    accepted: tuple[tuple[str, float], ...]
    n_candidates: int
    n_infeasible: int
    stop: str
    runtime: float
    n_kicks: int = 0


def _better(new: float, cur: float, sense: str) -> bool:
    """``new`` improves ``cur`` by more than ``TOL * max(1, |cur|)``
    (:data:`optsched.core.base.TOL`: no cycling on floating noise)."""
    if not math.isfinite(new):
        return False
    margin = TOL * max(1.0, abs(cur))
    return new > cur + margin if sense == "max" else new < cur - margin


def _check_args(
    sense: str, strategy: str, time_limit: float | None, max_evaluations: int | None
) -> None:
    """Raise ValueError naming the first bad argument of :func:`improve`."""
    if sense not in ("max", "min"):
        raise ValueError(f"sense: must be 'max' or 'min', got {sense!r}")
    if strategy not in ("first", "best"):
        raise ValueError(f"strategy: must be 'first' or 'best', got {strategy!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit: must be > 0 or None, got {time_limit!r}")
    if max_evaluations is not None and (
        isinstance(max_evaluations, bool)
        or not isinstance(max_evaluations, int | np.integer)
        or max_evaluations < 0
    ):
        raise ValueError(
            f"max_evaluations: must be an int >= 0 or None, got {max_evaluations!r}"
        )


class _Run:
    """Shared state of one search: the budget, the counters and the trace."""

    def __init__(
        self,
        inst: Any,
        neighbours: Neighbours,
        evaluate: Evaluate,
        sense: str,
        strategy: str,
        time_limit: float | None,
        max_evaluations: int | None,
    ) -> None:
        self.inst, self.neighbours, self.evaluate = inst, neighbours, evaluate
        self.sense, self.strategy = sense, strategy
        self.t0 = time.perf_counter()
        self.deadline = math.inf if time_limit is None else self.t0 + time_limit
        self.max_evaluations = max_evaluations
        self.n_cand = self.n_bad = 0
        self.stop = "local_optimum"
        self.accepted: list[tuple[str, float]] = []

    def spent(self) -> bool:
        """True (and ``stop`` set) once the time or the evaluation budget is used."""
        if time.perf_counter() >= self.deadline:
            self.stop = "time_limit"
        elif self.max_evaluations is not None and self.n_cand >= self.max_evaluations:
            self.stop = "max_evaluations"
        return self.stop != "local_optimum"

    def objective(self, cand: Any) -> float | None:
        """The checker's objective of ``cand`` (counted); None if it is rejected."""
        self.n_cand += 1
        try:
            return float(self.evaluate(self.inst, cand).objective)
        except InfeasibleScheduleError:
            self.n_bad += 1
            return None

    def descend(
        self,
        cur: Any,
        cur_obj: float,
        rng: np.random.Generator,
        accepted: list[tuple[str, float]],
    ) -> tuple[Any, float]:
        """Improving moves from ``cur`` until a local optimum or the budget's end;
        each accepted move is appended to ``accepted``."""
        while True:
            best: tuple[str, Any, float] | None = None
            for label, cand in self.neighbours(self.inst, cur, rng):
                if self.spent():
                    break
                obj = self.objective(cand)
                if obj is None:
                    continue
                if _better(obj, cur_obj if best is None else best[2], self.sense):
                    best = (label, cand, obj)
                    if self.strategy == "first":
                        break
            if best is None:
                return cur, cur_obj
            cur, cur_obj = best[1], best[2]
            accepted.append((best[0], cur_obj))
            if self.stop != "local_optimum":
                return cur, cur_obj

    def trace(self, start_obj: float, obj: float, n_kicks: int = 0) -> SearchTrace:
        """The :class:`SearchTrace` of the run so far."""
        return SearchTrace(
            start=start_obj,
            objective=obj,
            accepted=tuple(self.accepted),
            n_candidates=self.n_cand,
            n_infeasible=self.n_bad,
            stop=self.stop,
            runtime=time.perf_counter() - self.t0,
            n_kicks=n_kicks,
        )


def improve(
    inst: Any,
    schedule: Any,
    *,
    neighbours: Neighbours,
    evaluate: Evaluate,
    sense: str,
    time_limit: float | None = 10.0,
    seed: int = 0,
    strategy: str = "first",
    max_evaluations: int | None = None,
) -> tuple[Any, SearchTrace]:
    """Improve ``schedule`` by local search; every accepted candidate is checked.

    Parameters
    ----------
    inst
        The instance.
    schedule
        The start; must pass ``evaluate`` (its error propagates otherwise).
    neighbours
        ``(inst, schedule, rng) -> iterable of (label, candidate)``; may be a
        lazy generator (first improvement stops consuming it early).
    evaluate
        The paper's checker; its ``objective`` is the only objective used.
    sense
        ``"max"`` or ``"min"``.
    time_limit
        Seconds (None: no limit), checked between candidates.
    seed
        Seed of the generator passed to ``neighbours``.
    strategy
        ``"first"`` or ``"best"`` improvement.
    max_evaluations
        Stop after this many candidates (None: no limit).

    Returns
    -------
    tuple
        ``(schedule, SearchTrace)``: the best checked schedule (``schedule``
        itself when nothing improved) and the trace.

    Raises
    ------
    ValueError
        Naming the argument: ``sense``, ``strategy``, ``time_limit``,
        ``max_evaluations``.
    InfeasibleScheduleError
        If the start schedule fails the checker.
    """
    _check_args(sense, strategy, time_limit, max_evaluations)
    run = _Run(inst, neighbours, evaluate, sense, strategy, time_limit, max_evaluations)
    rng = np.random.default_rng(seed)
    start_obj = float(evaluate(inst, schedule).objective)
    cur, cur_obj = run.descend(schedule, start_obj, rng, run.accepted)
    return cur, run.trace(start_obj, cur_obj)


def iterated(
    inst: Any,
    schedule: Any,
    *,
    neighbours: Neighbours,
    perturb: Perturb,
    evaluate: Evaluate,
    sense: str,
    time_limit: float | None = 10.0,
    seed: int = 0,
    strategy: str = "first",
    max_evaluations: int | None = None,
    patience: int | None = 50,
) -> tuple[Any, SearchTrace]:
    """Iterated local search (module docstring); every candidate is checked.

    Its first phase is :func:`improve` with the same arguments and seed, so
    the result is never worse than :func:`improve`'s for the same seed and
    budget.  Kicked candidates count as evaluations and go through
    ``evaluate`` like every other; a rejected kick counts as a kick that did
    not improve.

    Parameters
    ----------
    inst, schedule, neighbours, evaluate, sense, time_limit, seed, strategy, max_evaluations
        As :func:`improve`.
    perturb
        ``(inst, schedule, rng) -> (label, candidate)``: the kick applied to
        the current local optimum.
    patience
        Stop after this many kicks in a row without a new best (None: no
        limit; then ``time_limit`` or ``max_evaluations`` must be set).

    Returns
    -------
    tuple
        ``(schedule, SearchTrace)``: the best checked schedule and the trace;
        ``accepted`` lists the descent's moves, then one entry
        ``"kick <k>: <label> +<n>"`` (``n`` moves after the kick) per new best.

    Raises
    ------
    ValueError
        Naming the argument (as :func:`improve`, and ``patience``).
    InfeasibleScheduleError
        If the start schedule fails the checker.
    """
    _check_args(sense, strategy, time_limit, max_evaluations)
    if patience is not None and (
        isinstance(patience, bool)
        or not isinstance(patience, int | np.integer)
        or patience < 1
    ):
        raise ValueError(f"patience: must be an int >= 1 or None, got {patience!r}")
    if patience is None and time_limit is None and max_evaluations is None:
        raise ValueError(
            "patience: None needs a time_limit or max_evaluations (the search "
            "would not stop)"
        )
    run = _Run(inst, neighbours, evaluate, sense, strategy, time_limit, max_evaluations)
    rng = np.random.default_rng(seed)
    start_obj = float(evaluate(inst, schedule).objective)
    cur, cur_obj = run.descend(schedule, start_obj, rng, run.accepted)
    best, best_obj = cur, cur_obj
    kicks = idle = 0
    while not run.spent():
        if patience is not None and idle >= patience:
            run.stop = "patience"
            break
        kicks += 1
        idle += 1
        label, cand = perturb(inst, cur, rng)
        obj = run.objective(cand)
        if obj is None:
            continue
        moves: list[tuple[str, float]] = []
        cand, obj = run.descend(cand, obj, rng, moves)
        if _better(obj, best_obj, sense):
            best, best_obj = cand, obj
            run.accepted.append((f"kick {kicks}: {label} +{len(moves)}", obj))
            idle = 0
        if not _better(cur_obj, obj, sense):  # not worse: walk on (plateaus too)
            cur, cur_obj = cand, obj
        else:
            cur, cur_obj = best, best_obj
    return best, run.trace(start_obj, best_obj, kicks)
