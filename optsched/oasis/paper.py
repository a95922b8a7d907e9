"""Registry record of the OASiS paper (Bao et al., INFOCOM 2018)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from optsched.core.base import best_checked, lazy_solve_offline
from optsched.core.registry import Paper

from . import lns
from .check import check
from .instance import OasisInstance, generate
from .local_search import improve
from .mutate import SEARCH_SPACE, mutate
from .online import oasis, price_params
from .schedule import OasisSchedule


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """Import ``module.name`` on first call (keeps ``import optsched`` light)."""

    def call(inst: OasisInstance, /, *, seed: int = 0, params: Any = None) -> Any:
        fn = getattr(importlib.import_module(module), name)
        return fn(inst, seed=seed, params=params)

    call.__name__ = name
    call.__doc__ = f"Lazy alias of {module}.{name}."
    return call


solve_offline = lazy_solve_offline(
    "optsched.models.oasis",
    "Exact offline optimum of (1)-(13) by the MILP of ``optsched.models.oasis``.",
)

#: Online algorithms whose checked schedules are the MIP start the harness
#: passes to :func:`solve_offline` (Dorm is left out: it solves MILPs itself).
START_ALGORITHMS = ("oasis", "rrh", "drf", "fifo")

#: Checked candidates the local search of :func:`default_start` may try
#: (:func:`optsched.oasis.local_search.improve`, no time limit: the start is
#: the same on every machine); 0 keeps the best online schedule.
START_EVALUATIONS = 2000

#: Instances of at least this many jobs get the completion-window search of
#: :mod:`optsched.models.oasis_window` (see :data:`WINDOW_MAX_CELLS`) and
#: then the MIP neighbourhood search of :mod:`optsched.oasis.lns` after the
#: local search (its default rounds, seed 0): measured on 50 jobs, T = 30,
#: 20 + 20 servers, where HiGHS does not improve the local-search start
#: within 60 s, and on Fig. 5's grid at 50 jobs (docs/oasis.md).
LNS_MIN_JOBS = 30

#: The completion-window search runs only when ``T (H + K)`` (slots times
#: servers) is at most this.  Measured at 50 jobs (one thread): on Fig. 5's
#: grid (``T = 10``, 4 + 4 and 8 + 8 servers, 80 and 160) it raised the
#: start by 8-18% in under 30 s; at ``T = 30`` with 20 + 20 servers (1,200,
#: seed 4) both of its solves ran into their 120 s cap and it found nothing
#: better than the start (docs/oasis.md).
WINDOW_MAX_CELLS = 400


def default_start(
    inst: OasisInstance, runs: Mapping[str, OasisSchedule] | None = None
) -> OasisSchedule | None:
    """The MIP start of :func:`solve_offline`: the best checked schedule of
    :data:`START_ALGORITHMS` (the first on ties; measured in docs/oasis.md),
    improved by the checked local search
    :func:`optsched.oasis.local_search.improve` within
    :data:`START_EVALUATIONS` candidates (deterministic: seed 0, no time
    limit; every accepted schedule passed the checker, its objective is
    never below the online start's; named ``<algorithm>+ls``) and, on
    instances of at least :data:`LNS_MIN_JOBS` jobs, by the
    completion-window search
    :func:`optsched.models.oasis_window.window_search` (node limits;
    checked; ``...+win`` when it improved; only up to
    :data:`WINDOW_MAX_CELLS` slots times servers) and then the MIP neighbourhood
    search :func:`optsched.oasis.lns.improve` (seed 0, node limits: the
    same on every machine; checked; ``...+lns`` when it improved).

    ``runs`` holds schedules of ``inst`` already computed (name -> schedule,
    default parameters); the other algorithms are run here.
    """
    got = runs or {}
    best = best_checked(
        inst,
        (got[n] if n in got else PAPER.algorithms[n](inst) for n in START_ALGORITHMS),
        check,
        "max",
    )
    if best is None or START_EVALUATIONS <= 0:
        return best
    best = improve(
        inst, best, time_limit=None, seed=0, max_evaluations=START_EVALUATIONS
    )[0]
    if inst.n_jobs >= LNS_MIN_JOBS:
        cells = inst.n_slots * (inst.n_worker_servers + inst.n_ps_servers)
        if cells <= WINDOW_MAX_CELLS:
            best = lns.window(inst, best)
        best = lns.improve(inst, best, seed=0)[0]
    return best


def theorem4_bound(inst: OasisInstance) -> float:
    """Theorem 4's ``2 alpha`` for the literal ``oasis`` on ``inst`` (its run's
    ``meta["alpha"]``; assumes ``w << c``, see docs/oasis.md)."""
    return price_params(inst).competitive_ratio


PAPER = Paper(
    key="oasis",
    title="Bao, Peng, Wu, Li: Online Job Scheduling in Distributed Machine Learning Clusters (INFOCOM 2018)",
    seed_file="001_1db5ded823e0cb57.txt",
    sense="max",
    instance_type=OasisInstance,
    schedule_type=OasisSchedule,
    generate=generate,
    algorithms={
        "oasis": oasis,
        "fifo": _lazy("optsched.oasis.baselines", "fifo"),
        "drf": _lazy("optsched.oasis.baselines", "drf"),
        "rrh": _lazy("optsched.oasis.baselines", "rrh"),
        "dorm": _lazy("optsched.oasis.baselines", "dorm"),
        # named variants (readings of (23)-(26)), docs/oasis.md "Variants"
        "oasis_lfloor": _lazy("optsched.oasis.variants", "oasis_lfloor"),
        "oasis_eta_one": _lazy("optsched.oasis.variants", "oasis_eta_one"),
        "oasis_per_class": _lazy("optsched.oasis.variants", "oasis_per_class"),
    },
    check=check,
    solve_offline=solve_offline,
    default_start=default_start,
    reported_ratio={"oasis": (1.1, 1.5)},
    demo_size={"n_jobs": 6, "n_slots": 12, "n_worker_servers": 2, "n_ps_servers": 2},
    size_options={
        "n_jobs": (int, 10, "number of jobs I"),
        "n_slots": (int, 10, "number of slots T"),
        "n_worker_servers": (int, 2, "worker servers H"),
        "n_ps_servers": (int, 2, "parameter-server servers K"),
    },
    mutate=mutate,
    search_space=SEARCH_SPACE,
    proven_bound={
        "oasis": "2 alpha, alpha = max_r ln(U^r / L^r) (Theorem 4; instance-dependent, "
        "assumes w_i^r << c_h^r)",
    },
    bound_value={"oasis": theorem4_bound},
)
