"""Experiment logic of the A-SRPT figures and tables (specs in ``paper_figures/asrpt``).

Every task function takes one task dict of a spec's grid and returns tidy
rows; every placement's ``alpha`` is recomputed with Eqs. (4)-(7).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .heavy_edge import heavy_edge
from .instance import B_INTER, B_INTRA
from .profiles import configurations
from .sim import select
from .timing import Cluster, alpha

PLACEMENT_COLUMNS = [
    "model", "gpus", "n_stages", "case", "free", "he_alpha_ms", "he_time_ms",
    "ilp_alpha_ms", "ilp_status", "ilp_time_ms", "gap",
    "same_alpha_ms", "same_status", "same_gap",
]  # fmt: skip


def placement_case(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Table II: Heavy-Edge vs the exact placement MILP on one availability case.

    Task keys: ``model``, ``gpus`` (the configuration's GPUs), ``case``
    (seed), ``n_servers`` (default 8), ``gpus_per_server`` (8),
    ``time_limit`` (s).  Case ``c`` draws the free GPUs of every server
    uniformly in ``0..g`` (seeded, redrawn until they hold the job); Heavy-
    Edge maps the job onto the GPUs of the servers with the most free GPUs
    (A-SRPT's choice for a communication-heavy job); the MILP chooses among
    all free GPUs (``ilp_*``, ``gap``) and, as a second reference, among the
    same GPUs Heavy-Edge got (``same_*``, ``same_gap``: the mapping alone).
    The paper's ILP (after its ref. [47]) is not specified further.  One row
    per configuration of the model on ``gpus``.
    """
    from optsched.models.asrpt import solve_placement

    M, g = task.get("n_servers", 8), task.get("gpus_per_server", 8)
    cluster = Cluster(M, g, B_INTER, B_INTRA)
    rng = np.random.default_rng(task["case"])
    need = task["gpus"]
    free = rng.integers(0, g + 1, size=M)
    while free.sum() < need:
        free = rng.integers(0, g + 1, size=M)
    rows = []
    for stages in configurations(task["model"], need):
        began = time.perf_counter()
        picked = select(free, need, most=True)
        x = heavy_edge(stages, [u for _, u in picked])
        he_time = (time.perf_counter() - began) * 1000
        sub = Cluster(len(picked), g, B_INTER, B_INTRA)
        he = alpha(stages, x, sub)
        a, _, status, runtime = solve_placement(
            stages,
            cluster,
            [int(f) for f in free],
            time_limit=task.get("time_limit", 60.0),
        )
        sa, _, sstatus, _ = solve_placement(
            stages, sub, [u for _, u in picked], time_limit=task.get("time_limit", 60.0)
        )
        rows.append(
            {
                "model": task["model"],
                "gpus": need,
                "n_stages": len(stages),
                "case": task["case"],
                "free": " ".join(map(str, free)),
                "he_alpha_ms": he,
                "he_time_ms": he_time,
                "ilp_alpha_ms": a,
                "ilp_status": status,
                "ilp_time_ms": runtime * 1000,
                "gap": he / a - 1 if status == "optimal" else float("nan"),
                "same_alpha_ms": sa,
                "same_status": sstatus,
                "same_gap": he / sa - 1 if sstatus == "optimal" else float("nan"),
            }
        )
    return rows
