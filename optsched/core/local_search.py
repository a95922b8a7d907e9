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

from .errors import InfeasibleScheduleError

#: A neighbourhood: ``(inst, schedule, rng) -> iterable of (move label, candidate)``.
Neighbours = Callable[[Any, Any, np.random.Generator], Iterable[tuple[str, Any]]]
#: The checker: ``(inst, schedule) -> evaluation with .objective``; raises
#: :class:`~optsched.core.errors.InfeasibleScheduleError` for an infeasible one.
Evaluate = Callable[[Any, Any], Any]

#: Relative margin a candidate must improve by to be accepted (no cycling on
#: floating noise).
RTOL = 1e-9


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
        ``"local_optimum"``, ``"time_limit"`` or ``"max_evaluations"``.
    runtime
        Wall time of the search in seconds.
    """

    start: float
    objective: float
    accepted: tuple[tuple[str, float], ...]
    n_candidates: int
    n_infeasible: int
    stop: str
    runtime: float


def _better(new: float, cur: float, sense: str) -> bool:
    """``new`` improves ``cur`` by more than ``RTOL * max(1, |cur|)``."""
    if not math.isfinite(new):
        return False
    margin = RTOL * max(1.0, abs(cur))
    return new > cur + margin if sense == "max" else new < cur - margin


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
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    rng = np.random.default_rng(seed)
    cur, cur_obj = schedule, float(evaluate(inst, schedule).objective)
    start_obj = cur_obj
    accepted: list[tuple[str, float]] = []
    n_cand = n_bad = 0
    stop = "local_optimum"
    while True:
        best: tuple[str, Any, float] | None = None
        for label, cand in neighbours(inst, cur, rng):
            if time.perf_counter() >= deadline:
                stop = "time_limit"
                break
            if max_evaluations is not None and n_cand >= max_evaluations:
                stop = "max_evaluations"
                break
            n_cand += 1
            try:
                obj = float(evaluate(inst, cand).objective)
            except InfeasibleScheduleError:
                n_bad += 1
                continue
            if _better(obj, cur_obj if best is None else best[2], sense):
                best = (label, cand, obj)
                if strategy == "first":
                    break
        if best is None:
            break
        cur, cur_obj = best[1], best[2]
        accepted.append((best[0], cur_obj))
        if stop != "local_optimum":
            break
    trace = SearchTrace(
        start=start_obj,
        objective=cur_obj,
        accepted=tuple(accepted),
        n_candidates=n_cand,
        n_infeasible=n_bad,
        stop=stop,
        runtime=time.perf_counter() - t0,
    )
    return cur, trace
