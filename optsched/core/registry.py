"""Paper records and the registry (adding a paper = one slice + one line here)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from . import horizon
from .protocols import (
    Algorithm,
    Evaluation,
    Instance,
    OfflineResult,
    Schedule,
    Sense,
)

if TYPE_CHECKING:
    from .adversary import SearchSpace

#: A paper's instance, schedule and evaluation types (:class:`Paper` is
#: generic over them; typing only).
I = TypeVar("I", bound=Instance)  # noqa: E741
S = TypeVar("S", bound=Schedule)
E = TypeVar("E", bound=Evaluation)

#: key -> module that defines ``PAPER`` (a :class:`Paper`).  One line per paper.
_SLICES: dict[str, str] = {
    "oasis": "optsched.oasis.paper",
    "hetero": "optsched.hetero.paper",
    "edgecloud": "optsched.edgecloud.paper",
    "okita": "optsched.okita.paper",
    "asrpt": "optsched.asrpt.paper",
}


@dataclass(frozen=True)
class Paper(Generic[I, S, E]):
    """Everything the harness, CLI, figures and notebooks need about one paper.

    Generic over the slice's instance ``I``, schedule ``S`` and evaluation
    ``E`` types (:mod:`optsched.core.protocols`; typing only, e.g.
    ``Paper[OkitaInstance, OkitaSchedule, OkitaEvaluation]``).

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
        Algorithm name -> callable ``(inst, *, seed=0, params=None) ->
        schedule`` (:class:`optsched.core.protocols.Algorithm`); the
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
    default_start
        ``default_start(inst, runs=None) -> schedule | None``: the MIP start
        the harness, the CLI and the figures pass to ``solve_offline``
        (``start=``; the model never picks one itself).  ``runs`` maps
        algorithm names to schedules of ``inst`` already computed with
        default parameters, reused instead of running again
        (:func:`optsched.core.ratio.best_start`).  None: no start.
    """

    key: str
    title: str
    seed_file: str
    sense: Sense
    instance_type: type[I]
    schedule_type: type[S]
    generate: Callable[..., I]
    algorithms: Mapping[str, Algorithm[I, S]]
    check: Callable[[I, S], E]
    solve_offline: Callable[..., OfflineResult[S]]
    reported_ratio: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    demo_size: Mapping[str, Any] = field(default_factory=dict)
    size_options: Mapping[str, tuple[type, Any, str]] = field(default_factory=dict)
    mutate: Callable[..., I] | None = None
    proven_bound: Mapping[str, str] = field(default_factory=dict)
    search_space: SearchSpace | None = None
    bound_value: Mapping[str, Callable[[I], float]] = field(default_factory=dict)
    default_start: Callable[[I, Mapping[str, S] | None], S | None] | None = None

    def run(self, name: str, inst: Any, *, seed: int = 0, params: Any = None) -> Any:
        """Run algorithm ``name`` on ``inst`` and return its schedule.

        ``seed`` and ``params`` (the algorithm family's frozen ``...Params``
        dataclass, None for the paper's defaults;
        :mod:`optsched.core.params`) are passed on as
        ``algorithms[name](inst, seed=seed, params=params)``: every
        algorithm has that one signature.  The schedule is returned as the
        algorithm made it.  An online
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
        return fn(inst, seed=seed, params=params)

    def fit_horizon(self, inst: I, *scheds: S) -> tuple[I, bool]:
        """The instance every schedule of ``scheds`` fits, and whether ``T`` grew.

        :func:`optsched.core.horizon.fit`: ``inst`` itself when no schedule
        runs past ``T`` (or the paper has no slot horizon), else ``inst``
        with ``n_slots`` extended to the largest needed horizon
        (:func:`optsched.core.horizon.needed_slots`: the schedules'
        ``last_slot``, also after a JSON round trip).  Check the
        schedules, and solve the optimum they are compared with, on it.
        """
        return horizon.fit(inst, *scheds)


def get_paper(key: str) -> Paper[Any, Any, Any]:
    """Return the registered :class:`Paper` for ``key`` (e.g. ``"oasis"``)."""
    try:
        module = _SLICES[key]
    except KeyError:
        raise KeyError(f"unknown paper {key!r} (known: {', '.join(_SLICES)})") from None
    return importlib.import_module(module).PAPER


PAPERS: tuple[str, ...] = tuple(_SLICES)
