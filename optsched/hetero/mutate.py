"""Small valid changes of a hetero instance, for the worst-case search (issue 14).

One mutation moves one field (:data:`KNOBS`): a job's dataset size,
epochs or model size, one true throughput entry ``rho_{i,k}`` (a
prediction matrix, when the instance has one, is left as it is), one
worker's node, or the inter-node rate.  GPU names and the
number of jobs and workers stay fixed (they are the size).  The instance's
validation rejects anything invalid (redrawn by
:func:`optsched.core.mutate.knob_mutator`).
"""

from __future__ import annotations

from typing import Any

from optsched.core.adversary import SearchSpace
from optsched.core.mutate import Knob, knob_mutator

from .instance import HeteroInstance

KNOBS = (
    Knob("jobs.*.dataset_size", 1000, 2_000_000, integer=True),
    Knob("jobs.*.epochs", 1, 500, integer=True),
    Knob("jobs.*.model_size_mb", 0.1, 2000.0),
    Knob("throughput.*.*", 1.0, 100_000.0),
    Knob(
        "workers.*.node",
        0,
        lambda d: len(d["workers"]) - 1,
        integer=True,
        step=1.0,
        absolute=True,
    ),  # fmt: skip
    Knob("inter_gbps", 0.1, lambda d: d["intra_gbps"]),
)


#: ``mutate(inst, rng, **size) -> inst`` of the Paper record.
mutate = knob_mutator(HeteroInstance.from_dict, KNOBS)


def _build(params: dict[str, Any], **size: Any) -> HeteroInstance:
    """``generate`` with the searched parameters (``evolve``)."""
    from .instance import generate

    return generate(
        int(params["instance_seed"]),
        **size,
        gpu_mix=(params["share_t4"], params["share_p100"], params["share_v100"]),
        gpus_per_node=int(params["gpus_per_node"]),
        inter_gbps=params["inter_gbps"],
    )


#: Generator parameters of the ``evolve`` search (``Paper.search_space``).
SEARCH_SPACE = SearchSpace(
    params={
        "instance_seed": (0, 1_000_000, "int"),
        "share_t4": (0.05, 1.0, "float"),
        "share_p100": (0.05, 1.0, "float"),
        "share_v100": (0.05, 1.0, "float"),
        "gpus_per_node": (1, 8, "int"),
        "inter_gbps": (0.5, 300.0, "log"),
    },
    build=_build,
)
