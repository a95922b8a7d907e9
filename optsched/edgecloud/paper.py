"""Registry record of the edge-cloud paper (Wang, Zhou, Jiao, Zhang, Li, Li)."""

from __future__ import annotations

from collections.abc import Mapping

from optsched.core.base import best_checked, lazy_solve_offline
from optsched.core.registry import Paper

from .baselines import batchsche, srtf, tiresias_l
from .check import check
from .instance import EdgeCloudInstance, generate
from .local_search import improve
from .mutate import SEARCH_SPACE, mutate
from .online import a_online, a_online_e
from .schedule import EdgeCloudSchedule, cloud_only

solve_offline = lazy_solve_offline(
    "optsched.models.edgecloud",
    "Exact offline optimum of (2) by the MILP of ``optsched.models.edgecloud``.",
)


#: Checked candidates the local search of :func:`default_start` may try
#: (:func:`optsched.edgecloud.local_search.improve`, no time limit: the start
#: is the same on every machine); 0 keeps the better of the two schedules.
START_EVALUATIONS = 2000


def default_start(
    inst: EdgeCloudInstance, runs: Mapping[str, EdgeCloudSchedule] | None = None
) -> EdgeCloudSchedule | None:
    """The MIP start of :func:`solve_offline`: the better of the all-cloud
    schedule (:func:`~optsched.edgecloud.schedule.cloud_only`) and A_online's
    (seed 0), among those the checker accepts at this ``T`` (None if neither),
    improved by the checked local search
    :func:`optsched.edgecloud.local_search.improve` (plain descent: the
    iterated search, ``method="ils"``, found the same or 1-2 lower total JCT
    on five Fig. 12-size seeds for 4-5x the candidates) within
    :data:`START_EVALUATIONS` candidates (deterministic: seed 0, no time
    limit; every accepted schedule passed the checker, its total JCT is never
    above the start's; named ``<algorithm>+ls``).

    ``runs`` holds schedules of ``inst`` already computed (name -> schedule,
    default parameters); ``a_online`` is run here when it is not among them.
    """
    got = runs or {}

    def candidates():
        yield cloud_only(inst)
        yield got["a_online"] if "a_online" in got else a_online(inst)

    best = best_checked(inst, candidates(), check, "min", skip_infeasible=True)
    if best is None or START_EVALUATIONS <= 0:
        return best
    return improve(
        inst,
        best,
        time_limit=None,
        seed=0,
        max_evaluations=START_EVALUATIONS,
        method="descent",
    )[0]


PAPER = Paper(
    key="edgecloud",
    title=(
        "Wang, Zhou, Jiao, Zhang, Li, Li: Preemptive Scheduling for Distributed "
        "Machine Learning Jobs in Edge-Cloud Networks"
    ),
    seed_file="000_a44943ade8091d87.txt",
    sense="min",
    instance_type=EdgeCloudInstance,
    schedule_type=EdgeCloudSchedule,
    generate=generate,
    algorithms={
        "a_online": a_online,
        "a_online_e": a_online_e,
        "srtf": srtf,
        "tiresias_l": tiresias_l,
        "batchsche": batchsche,
    },
    check=check,
    solve_offline=solve_offline,
    default_start=default_start,
    # Figs. 12-13: observed ratio "< 1.7" (against the ILP (4) bound with
    # zeta_j = 1, Sec. V); ours is against the exact optimum of (2).
    reported_ratio={"a_online": (1.0, 1.7)},
    # sizes the exact MILP proves in about 0.5 s and where every algorithm
    # finishes by T (at T = 24, 5-13 of 200 seeds per algorithm ran past T)
    demo_size={
        "n_jobs": 3,
        "n_servers": 1,
        "n_slots": 36,
        "max_chunks": 2,
        "slot_hours": 24.0,
        "n_worker_types": 2,
        "n_ps_types": 2,
    },
    size_options={
        "n_jobs": (int, 3, "number of jobs J"),
        "n_servers": (int, 1, "edge servers (the cloud is added)"),
        "n_slots": (int, 36, "number of slots T"),
        "max_chunks": (int, 2, "cap on D_j (Table II values above it are capped)"),
        "slot_hours": (float, 24.0, "hours per slot"),
        "n_worker_types": (int, 2, "worker types (paper: 8-10)"),
        "n_ps_types": (int, 2, "PS types (paper: 8-10)"),
    },
    mutate=mutate,
    proven_bound={
        "a_online": "D_max (1 + 1/eps) with (1 + eps)-speed augmentation, for (2) "
        "(Theorem 3; (1 + 1/eps) for ILP (4))",
    },
    search_space=SEARCH_SPACE,
)
