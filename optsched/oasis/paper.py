"""Registry record of the OASiS paper (Bao et al., INFOCOM 2018)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from optsched.core.registry import OfflineResult, Paper

from .check import check
from .instance import OasisInstance, generate
from .mutate import SEARCH_SPACE, mutate
from .online import oasis, price_params
from .schedule import OasisSchedule


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """Import ``module.name`` on first call (keeps ``import optsched`` light)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"Lazy alias of {module}.{name}."
    return call


def solve_offline(
    inst: OasisInstance, *, time_limit: float | None = 60.0, **kw: Any
) -> OfflineResult:
    """Exact offline optimum of (1)-(13) by the MILP of ``optsched.models.oasis``."""
    from optsched.models.oasis import solve_offline as _solve

    return _solve(inst, time_limit=time_limit, **kw)


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
