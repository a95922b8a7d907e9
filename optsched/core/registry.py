"""Paper records and the registry (adding a paper = one slice + one line here)."""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import horizon

#: key -> module that defines ``PAPER`` (a :class:`Paper`).  One line per paper.
_SLICES: dict[str, str] = {
    "oasis": "optsched.oasis.paper",
    "hetero": "optsched.hetero.paper",
    "edgecloud": "optsched.edgecloud.paper",
    "okita": "optsched.okita.paper",
    "asrpt": "optsched.asrpt.paper",
}


@dataclass(frozen=True)
class OfflineResult:
    """Offline optimum of one instance as certified by the solver.

    Attributes
    ----------
    objective
        Objective of the incumbent schedule as recomputed by the paper's
        checker (NaN when there is no incumbent).  It is the optimum only when
        ``status == "optimal"``.
    bound
        Solver's dual bound (upper bound for max, lower bound for min).
    status
        ``optimal``, ``time_limit``, ``infeasible`` or ``error``.
    runtime
        Wall-clock seconds of the solve.
    schedule
        The incumbent schedule (the slice's Schedule type) or None.
    """

    objective: float
    bound: float
    status: str
    runtime: float
    schedule: Any = None

    @classmethod
    def from_solve(
        cls,
        res: Any,
        began: float,
        extract: Callable[[], Any],
        evaluate: Callable[[Any], Any],
    ) -> OfflineResult:
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
        return cls(objective, res.bound, res.status, time.perf_counter() - began, sched)


@dataclass(frozen=True)
class Paper:
    """Everything the harness, CLI, figures and notebooks need about one paper.

    Attributes
    ----------
    key, title, seed_file
        Registry key, citation, file in ``../shared/seeds``.
    sense
        ``"max"`` or ``"min"``: sense of the paper's objective.
    instance_type
        The slice's instance class (has ``from_json`` / ``to_json``).
    schedule_type
        The slice's schedule class (has ``from_json`` / ``to_json``): what
        ``run`` returns and ``check`` accepts.
    generate
        ``generate(seed=..., **size) -> instance``.
    algorithms
        Algorithm name -> callable ``(inst, **params) -> schedule``; the
        paper's own algorithm first, then its baselines.
    check
        ``check(inst, schedule) -> evaluation`` with ``.objective``; raises
        ``InfeasibleScheduleError``.
    solve_offline
        ``solve_offline(inst, time_limit=..., **kw) -> OfflineResult``.
    reported_ratio
        Algorithm name -> the paper's reported empirical ratio range
        ``(lo, hi)`` of that algorithm against the optimum (``ALG/OPT`` for
        minimisation, ``OPT/ALG`` for maximisation); algorithms the paper
        reports no ratio for are absent.
    demo_size
        Size keywords for ``optsched demo`` (small, solved in seconds).
    size_options
        Size keyword -> (type, default, help) for the CLI.
    mutate
        ``mutate(inst, rng, **size) -> inst``: one small valid change of an
        instance (:mod:`optsched.core.mutate`), for the worst-case search
        (:mod:`optsched.core.adversary`); None if the slice has none.
    proven_bound
        Algorithm name -> the competitive ratio the paper proves for it, as
        text (with the theorem); algorithms without a proven bound are absent.
    search_space
        Generator parameters for the ``evolve`` worst-case search
        (:class:`optsched.core.adversary.SearchSpace`), or None.
    bound_value
        Algorithm name -> ``f(inst) -> float``: an instance-dependent proven
        bound evaluated on ``inst`` (to set beside a ratio found on it);
        absent where the bound is a constant or not comparable.
    """

    key: str
    title: str
    seed_file: str
    sense: str
    instance_type: type
    schedule_type: type
    generate: Callable[..., Any]
    algorithms: Mapping[str, Callable[..., Any]]
    check: Callable[[Any, Any], Any]
    solve_offline: Callable[..., OfflineResult]
    reported_ratio: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    demo_size: Mapping[str, Any] = field(default_factory=dict)
    size_options: Mapping[str, tuple[type, Any, str]] = field(default_factory=dict)
    mutate: Callable[..., Any] | None = None
    proven_bound: Mapping[str, str] = field(default_factory=dict)
    search_space: Any = None
    bound_value: Mapping[str, Callable[[Any], float]] = field(default_factory=dict)

    def run(self, name: str, inst: Any, **params: Any) -> Any:
        """Run algorithm ``name`` on ``inst`` and return its schedule.

        The schedule is returned as the algorithm made it.  An online
        algorithm without admission control may need more slots than the
        instance's horizon ``T`` (edgecloud, okita); by the horizon rule
        (:mod:`optsched.core.horizon`) it is checked on the instance with
        ``T`` extended to its makespan: ``p.check(p.fit_horizon(inst,
        sched)[0], sched)`` (:meth:`fit_horizon`).
        """
        try:
            fn = self.algorithms[name]
        except KeyError:
            known = ", ".join(self.algorithms)
            raise KeyError(
                f"{self.key}: unknown algorithm {name!r} (known: {known})"
            ) from None
        return fn(inst, **params)

    def fit_horizon(self, inst: Any, *scheds: Any) -> tuple[Any, bool]:
        """The instance every schedule of ``scheds`` fits, and whether ``T`` grew.

        :func:`optsched.core.horizon.fit`: ``inst`` itself when no schedule
        runs past ``T`` (or the paper has no slot horizon), else ``inst``
        with ``n_slots`` extended to the largest makespan.  Check the
        schedules, and solve the optimum they are compared with, on it.
        """
        return horizon.fit(inst, *scheds)


def get_paper(key: str) -> Paper:
    """Return the registered :class:`Paper` for ``key`` (e.g. ``"oasis"``)."""
    try:
        module = _SLICES[key]
    except KeyError:
        raise KeyError(f"unknown paper {key!r} (known: {', '.join(_SLICES)})") from None
    return importlib.import_module(module).PAPER


PAPERS: tuple[str, ...] = tuple(_SLICES)
