"""Small valid changes of an OASiS instance, for the worst-case search (issue 14).

One mutation moves one field (:data:`KNOBS`): a job's arrival, size
(``E_i``, ``N_i``, ``tau_i``), one entry of its worker or PS demand, one
utility parameter, or one entry of one server's capacity.  Jobs are
re-sorted by arrival afterwards (stable), since the instance lists them in
online order; the instance's own validation rejects anything else invalid
(:func:`optsched.core.mutate.knob_mutator` then redraws).
"""

from __future__ import annotations

from typing import Any

from optsched.core.adversary import SearchSpace
from optsched.core.mutate import ARRIVAL_IN_HORIZON, Knob, jobs_by_arrival, knob_mutator

from .instance import GAMMA3_RANGE, OasisInstance


def _largest_capacity(key: str):
    return lambda d: max(max(c) for c in d[key])


KNOBS = (
    ARRIVAL_IN_HORIZON,
    Knob("jobs.*.epochs", 1, 100, integer=True),
    Knob("jobs.*.chunks", 1, 100, integer=True),
    Knob("jobs.*.tau", 1e-4, 1.0),
    Knob("jobs.*.worker_demand.*", 0.0, _largest_capacity("worker_servers")),
    Knob("jobs.*.ps_demand.*", 0.0, _largest_capacity("ps_servers")),
    Knob("jobs.*.gamma1", 0.01, 1000.0),
    Knob("jobs.*.gamma2", 0.0, 10.0, step=0.5, absolute=True),
    # gamma3 is a target duration after arrival, drawn up to 15 even when T < 15
    Knob(
        "jobs.*.gamma3",
        0.0,
        lambda d: max(d["n_slots"], GAMMA3_RANGE[1]),
        step=1.0,
        absolute=True,
    ),
    Knob("worker_servers.*.*", 0.0, 2000.0),
    Knob("ps_servers.*.*", 0.0, 2000.0),
)


#: ``mutate(inst, rng, **size) -> inst`` of the Paper record.
mutate = knob_mutator(OasisInstance.from_dict, KNOBS, fix=jobs_by_arrival)


def _build(params: dict[str, Any], **size: Any) -> OasisInstance:
    """``generate`` with the searched parameters (``evolve``)."""
    from .instance import generate

    mix = (
        params["share_insensitive"],
        params["share_sensitive"],
        params["share_critical"],
    )
    total = sum(mix)
    return generate(
        int(params["instance_seed"]),
        **size,
        job_mix=tuple(m / total for m in mix),
        gamma1_range=(1.0, params["gamma1_hi"]),
        epochs_range=(5, int(params["epochs_hi"])),
        chunks_range=(5, int(params["chunks_hi"])),
        tau_range=(0.001, params["tau_hi"]),
        arrival_window=params["arrival_window"],
    )


#: Generator parameters of the ``evolve`` search (``Paper.search_space``).
SEARCH_SPACE = SearchSpace(
    params={
        "instance_seed": (0, 1_000_000, "int"),
        "share_insensitive": (0.01, 1.0, "float"),
        "share_sensitive": (0.01, 1.0, "float"),
        "share_critical": (0.01, 1.0, "float"),
        "gamma1_hi": (1.5, 1000.0, "log"),
        "epochs_hi": (5, 60, "int"),
        "chunks_hi": (5, 60, "int"),
        "tau_hi": (0.0011, 0.1, "log"),
        "arrival_window": (0.05, 1.0, "float"),
    },
    build=_build,
)
