"""Small valid changes of an Okita instance, for the worst-case search (issue 14).

One mutation moves one field (:data:`KNOBS`): a job's arrival, epochs,
one site's data amount, ``rho``, one entry of its worker or PS demand, its
chunk or parameter size, or one latency-cost parameter (``tau``; ``b`` of
the linear kind; ``tau1``, ``tau2`` of the piecewise kind; the exponent's
rate stays the paper's 0.25); one site's
capacity entry; or one inter-site bandwidth cost ``q^{rr'}`` (the model
does not require ``q`` symmetric; its zero diagonal is kept by the
validation, which rejects a diagonal draw).  Jobs are re-sorted by arrival
(stable); the instance's validation rejects anything else invalid and the
draw is repeated.
"""

from __future__ import annotations

from typing import Any

from optsched.core.adversary import SearchSpace
from optsched.core.mutate import ARRIVAL_IN_HORIZON, Knob, jobs_by_arrival, knob_mutator

from .instance import OkitaInstance

KNOBS = (
    ARRIVAL_IN_HORIZON,
    Knob("jobs.*.epochs", 1, 100, integer=True),
    Knob("jobs.*.data.*", 0, 100, integer=True, step=2.0, absolute=True),
    Knob("jobs.*.rho", 1.0, 5000.0),
    Knob("jobs.*.worker_demand.*", 0.0, 1000.0),
    Knob("jobs.*.ps_demand.*", 0.0, 1000.0),
    Knob("jobs.*.chunk_mb", 0.1, 1000.0),
    Knob("jobs.*.param_mb", 0.1, 5000.0),
    Knob("jobs.*.cost.tau", 0.1, 1000.0),  # exp and linear
    Knob("jobs.*.cost.b", 0.1, 2000.0),  # linear
    Knob("jobs.*.cost.tau1", 0.1, 1000.0),  # piecewise (tau2 >= tau1: validation)
    Knob("jobs.*.cost.tau2", 0.1, 5000.0),
    Knob("sites.*.capacity.*", 0.0, 2000.0),
    Knob("bandwidth_cost.*.*", 0.0, 1.0),
)


#: ``mutate(inst, rng, **size) -> inst`` of the Paper record.
mutate = knob_mutator(OkitaInstance.from_dict, KNOBS, fix=jobs_by_arrival)


def _build(params: dict[str, Any], **size: Any) -> OkitaInstance:
    """``generate`` with the searched parameters (``evolve``)."""
    from .instance import generate

    return generate(
        int(params["instance_seed"]),
        **size,
        arrival_window=params["arrival_window"],
        data_range=(1, int(params["data_hi"])),
        ps_share=params["ps_share"],
    )


#: Generator parameters of the ``evolve`` search (``Paper.search_space``).
SEARCH_SPACE = SearchSpace(
    params={
        "instance_seed": (0, 1_000_000, "int"),
        "arrival_window": (0.05, 1.0, "float"),
        "data_hi": (2, 40, "int"),
        "ps_share": (0.05, 0.9, "float"),
    },
    build=_build,
)
