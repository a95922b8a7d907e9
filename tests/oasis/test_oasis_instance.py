"""Instance validation, JSON round trip and the generator."""

import json

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.oasis.instance import OasisInstance, generate


def test_json_round_trip_exact():
    """to_json / from_json round-trips to an equal instance."""
    inst = generate(5, n_jobs=12, n_slots=20, n_worker_servers=3, n_ps_servers=2)
    again = OasisInstance.from_json(inst.to_json())
    assert again == inst
    assert np.array_equal(again.work, inst.work)


def test_same_seed_same_instance():
    """generate is deterministic in its seed and differs across seeds."""
    assert generate(1, n_jobs=8) == generate(1, n_jobs=8)
    assert generate(1, n_jobs=8) != generate(2, n_jobs=8)


def test_generator_calibration_and_fit():
    """Generated jobs fit on some server, have b <= B and need a few to tens of slots."""
    inst = generate(0, n_jobs=200, n_slots=300, n_worker_servers=10, n_ps_servers=10)
    assert (inst.b <= inst.B).all()
    for i in range(inst.n_jobs):
        assert (inst.c_worker >= inst.w[i]).all(axis=1).any()
        assert (inst.c_ps >= inst.s[i]).all(axis=1).any()
    assert np.median(inst.min_duration) <= 15
    assert (inst.E * inst.N <= 400).all()
    kinds = [j.kind for j in inst.jobs]
    assert 0.2 < kinds.count("critical") / len(kinds) < 0.5


def _data():
    return json.loads(generate(0, n_jobs=3).to_json())


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d["jobs"][1].pop("epochs"), "jobs[1].epochs: missing"),
        (lambda d: d["jobs"][0].__setitem__("chunks", 0), "jobs[0].chunks (N_i)"),
        (lambda d: d["jobs"][2].__setitem__("tau", "fast"), "jobs[2].tau"),
        (lambda d: d["jobs"][0].__setitem__("arrival", 99), "jobs[0].arrival (a_i)"),
        (lambda d: d["worker_servers"][0].pop(), "worker_servers[0]"),
        (lambda d: d.__setitem__("n_slots", -3), "n_slots"),
        (lambda d: d.pop("resources"), "resources: missing"),
        (lambda d: d["jobs"][0]["ps_demand"].__setitem__(4, 0.0), "B_i"),
        (lambda d: d["jobs"][0].__setitem__("kind", "urgent"), "jobs[0].kind"),
    ],
)
def test_malformed_json_names_field(mutate, needle):
    """Malformed instance JSON raises InvalidInstanceError naming the field."""
    d = _data()
    mutate(d)
    with pytest.raises(InvalidInstanceError) as info:
        OasisInstance.from_json(json.dumps(d))
    assert needle in str(info.value)


def test_not_json():
    """Text that is not JSON raises InvalidInstanceError."""
    with pytest.raises(InvalidInstanceError):
        OasisInstance.from_json("{not json")
