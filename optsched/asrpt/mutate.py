"""Small valid changes of an A-SRPT instance, for the worst-case search (issue 14).

One mutation moves one field (:data:`KNOBS`): a job's arrival, its true
iteration count or its predicted one (the prediction error is part of the
instance), one stage's forward / backward time, activation sizes or memory;
or the inter-server bandwidth.  Stage GPU counts ``k`` and the cluster's
size stay fixed (they are the size).  Jobs are re-sorted by arrival
(stable); the instance's validation rejects anything else invalid and the
draw is repeated.
"""

from __future__ import annotations

from typing import Any

from optsched.core.adversary import SearchSpace
from optsched.core.mutate import Knob, jobs_by_arrival, knob_mutator

from .instance import AsrptInstance

KNOBS = (
    Knob("jobs.*.arrival", 0, 100, integer=True, step=2.0, absolute=True),
    Knob("jobs.*.iterations", 1, 1_000_000, integer=True),
    Knob("jobs.*.predicted", 1.0, 1_000_000.0),
    Knob("jobs.*.stages.*.pf", 1e-3, 1000.0),
    Knob("jobs.*.stages.*.pb", 1e-3, 2000.0),
    # activations: the profiled models reach 201 MB per stage boundary
    Knob("jobs.*.stages.*.d_in", 0.0, 500.0),
    Knob("jobs.*.stages.*.d_out", 0.0, 500.0),
    Knob("jobs.*.stages.*.h", 0.1, 10_000.0),
    Knob("cluster.b_inter", 0.01, lambda d: d["cluster"]["b_intra"]),
)


#: ``mutate(inst, rng, **size) -> inst`` of the Paper record.
mutate = knob_mutator(AsrptInstance.from_dict, KNOBS, fix=jobs_by_arrival)


def _build(params: dict[str, Any], **size: Any) -> AsrptInstance:
    """``generate`` with the searched parameters (``evolve``)."""
    from .instance import generate

    return generate(
        int(params["instance_seed"]),
        **size,
        load=params["load"],
        single_gpu_share=params["single_gpu_share"],
        duration=params["duration"],
        b_inter=params["b_inter"],
    )


#: Generator parameters of the ``evolve`` search (``Paper.search_space``).
SEARCH_SPACE = SearchSpace(
    params={
        "instance_seed": (0, 1_000_000, "int"),
        "load": (0.3, 5.0, "log"),
        "single_gpu_share": (0.0, 1.0, "float"),
        "duration": (0.5, 20.0, "log"),
        "b_inter": (0.1, 100.0, "log"),
    },
    build=_build,
)
