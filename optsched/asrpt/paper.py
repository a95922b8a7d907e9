"""Registry record of the A-SRPT paper (Luo, Liu, Lee, Shroff)."""

from __future__ import annotations

from collections.abc import Mapping

from optsched.core.base import best_checked, lazy_solve_offline
from optsched.core.registry import Paper

from .baselines import spjf, spwf, wcs_duration, wcs_subtime, wcs_workload
from .bounds import theorem1
from .check import check
from .instance import AsrptInstance, generate
from .local_search import improve, searchable
from .mutate import SEARCH_SPACE, mutate
from .online import asrpt, asrpt_eager, asrpt_perfect
from .schedule import AsrptSchedule
from .variants import asrpt_consolidate

solve_offline = lazy_solve_offline(
    "optsched.models.asrpt",
    "Exact offline optimum of (8) by the time-indexed MILP of "
    "``optsched.models.asrpt``.",
)


#: Candidates the local search of :func:`default_start` may evaluate (on
#: five 20-job seeds 1,000 found what 2,000 found, at about 2 ms each).
START_EVALUATIONS = 1000
#: Largest instance whose start :func:`default_start` improves (the
#: decoder's cost grows with the cube of the job count).
START_MAX_JOBS = 50
#: Smallest instance whose start :func:`default_start` improves: below it
#: the MILP proves the optimum from any start (10 jobs: 0.1-0.8 s on the
#: frontier ladder), while the search would cost 0.2-0.8 s per instance of
#: the worst-case search's thousands of 4-job instances.
START_MIN_JOBS = 8


def default_start(
    inst: AsrptInstance, runs: Mapping[str, AsrptSchedule] | None = None
) -> AsrptSchedule | None:
    """The MIP start of :func:`solve_offline`: the best checked schedule of
    the registered algorithms, in registry order (the first on ties),
    improved by the checked local search
    :func:`optsched.asrpt.local_search.improve` (iterated, seed 0, at most
    :data:`START_EVALUATIONS` candidates, no time limit: deterministic;
    every accepted schedule passed the checker, its value is never above the
    best algorithm's; named ``<algorithm>+ls``) on instances of
    :data:`START_MIN_JOBS` to :data:`START_MAX_JOBS` jobs whose placements
    the MILP enumerates
    (:func:`optsched.models.asrpt.modelled`).  Its value bounds the horizon of the
    time-indexed MILP, and it is HiGHS's MIP start.

    ``runs`` holds schedules of ``inst`` already computed (name -> schedule,
    default parameters); the other algorithms are run here.
    """
    got = runs or {}
    best = best_checked(
        inst,
        (got[n] if n in got else alg(inst) for n, alg in PAPER.algorithms.items()),
        check,
        "min",
    )
    if best is None or START_EVALUATIONS <= 0:
        return best
    if not START_MIN_JOBS <= inst.n_jobs <= START_MAX_JOBS:
        return best
    if not searchable(inst):  # the options the search moves over are too many
        return best
    return improve(
        inst, best, time_limit=None, seed=0, max_evaluations=START_EVALUATIONS
    )[0]


PAPER = Paper(
    key="asrpt",
    title=(
        "Luo, Liu, Lee, Shroff: Prediction-Assisted Online Distributed Deep "
        "Learning Workload Scheduling in GPU Clusters"
    ),
    seed_file="004_840fe1e89fefba79.txt",
    sense="min",
    instance_type=AsrptInstance,
    schedule_type=AsrptSchedule,
    generate=generate,
    algorithms={
        "asrpt": asrpt,
        "asrpt_perfect": asrpt_perfect,
        "asrpt_eager": asrpt_eager,
        "asrpt_consolidate": asrpt_consolidate,
        "spjf": spjf,
        "spwf": spwf,
        "wcs_duration": wcs_duration,
        "wcs_workload": wcs_workload,
        "wcs_subtime": wcs_subtime,
    },
    check=check,
    solve_offline=solve_offline,
    default_start=default_start,
    # The paper reports no empirical ratio against an optimum (only Theorem
    # 1's worst-case bound and comparisons with baselines).
    reported_ratio={},
    # Synthetic tiny instances (2 servers x 2 GPUs, 60 s slots): the exact
    # MILP proves them in well under a second.
    demo_size={"n_jobs": 4, "n_servers": 2, "gpus_per_server": 2},
    size_options={
        "n_jobs": (int, 4, "number of jobs I"),
        "n_servers": (int, 2, "servers M"),
        "gpus_per_server": (int, 2, "GPUs per server g"),
        "predictor": (str, "rf", "iteration predictor: rf, mean, median, perfect"),
    },
    mutate=mutate,
    proven_bound={
        "asrpt": "(2 + tau + rho G/(G - g_max)) rho + 2 rho g_max alpha_max/alpha_min "
        "(1 + tau + (1 + rho) G/(G - g_max)) eps_bar (Theorem 1; instance-dependent)",
    },
    search_space=SEARCH_SPACE,
    bound_value={"asrpt": theorem1},
)
