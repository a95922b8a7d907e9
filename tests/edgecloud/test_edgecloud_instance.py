"""Edge-cloud instances: Eq. (1), validation, JSON round trip and the generator."""

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.core.errors import InvalidInstanceError
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import (
    MODELS,
    EdgeCloudInstance,
    Job,
    Server,
    generate,
    throughput,
)
from optsched.edgecloud.schedule import EdgeCloudSchedule, cloud_only


def test_throughput_eq1_by_hand():
    """Eq. (1): 2q/b = 2 * 8 * 450 / 8 s = 0.25 h and G in ms are added to m_j."""
    assert throughput(0.25, 0.0, 450.0, 8.0, zeta=False) == 2.0  # 1 / (0.25 + 0.25)
    assert throughput(0.25, 0.0, 450.0, 8.0, zeta=True) == 4.0  # 1 / 0.25
    assert throughput(0.001, 3600.0, 0.0, 100.0, zeta=True) == pytest.approx(500.0)
    assert throughput(0.25, 0.0, 450.0, 8.0, zeta=True, slot_hours=2.0) == 8.0


def test_rate_and_chunk_slots_arrays():
    """inst.rate holds n_j per zeta and chunk_slots = ceil(E_j B_j / n_j)."""
    inst = generate(3, n_jobs=6, n_servers=2)
    for j, job in enumerate(inst.jobs):
        for z in (0, 1):
            n = job.throughput(bool(z), inst.slot_hours)
            assert inst.rate[j, z] == n
            assert inst.chunk_slots[j, z] == np.ceil(job.epochs * job.minibatches / n)
    assert (inst.rate[:, 1] >= inst.rate[:, 0]).all()  # communication only slows


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_jobs=st.integers(0, 8),
    n_servers=st.integers(0, 5),
    storage=st.booleans(),
    max_chunks=st.one_of(st.none(), st.integers(1, 4)),
)
def test_json_round_trip_exact(seed, n_jobs, n_servers, storage, max_chunks):
    """to_json / from_json round-trips every generated instance to an equal one."""
    inst = generate(seed, n_jobs, n_servers, storage=storage, max_chunks=max_chunks)
    again = EdgeCloudInstance.from_json(inst.to_json())
    assert again == inst
    assert again.to_json() == inst.to_json()
    assert np.array_equal(again.rate, inst.rate)


def test_same_seed_same_instance():
    """generate is deterministic in its seed and differs across seeds."""
    assert generate(1, n_jobs=8) == generate(1, n_jobs=8)
    assert generate(1, n_jobs=8) != generate(2, n_jobs=8)


def test_generator_within_section_v_ranges():
    """Types, b_j, m_j, G_j, q_j, E_j, Table II, Delta_js and arrivals follow Sec. V-A."""
    inst = generate(0, n_jobs=300, n_servers=30, n_slots=240)
    assert 8 <= inst.n_worker_types <= 10 and 8 <= inst.n_ps_types <= 10
    assert inst.meta["redraws"] == 0  # defaults never redraw (paper distribution)
    assert set(inst.n_workers.tolist()) <= {2, 4, 8}
    assert ((inst.n_ps >= 2) & (inst.n_ps <= 8)).all()
    bw = {}
    for job in inst.jobs:
        assert 100.0 <= job.bandwidth_mbps <= 5120.0
        assert bw.setdefault(job.worker_type, job.bandwidth_mbps) == job.bandwidth_mbps
        assert 0.001 <= job.minibatch_hours <= 0.05
        assert 10.0 <= job.update_ms <= 100.0
        assert 30.0 <= job.model_mb <= 575.0
        assert 20 <= job.epochs <= 60
        assert MODELS[job.model][1:] == (job.chunks, job.minibatches)
        assert all(1 <= d <= 4 for d in job.delay[:-1])
        assert 10 <= job.delay[-1] <= 15
        assert 0 <= job.worker_type < inst.n_worker_types
        assert 0 <= job.ps_type < inst.n_ps_types
    assert inst.arrival.min() >= 1 and inst.arrival.max() <= 48
    assert {j.model for j in inst.jobs} == set(MODELS)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_slots=st.integers(30, 80),
    slot_hours=st.sampled_from([4.0, 8.0, 24.0]),
)
def test_calibration_all_cloud_schedule_finishes_within_T(seed, n_slots, slot_hours):
    """The all-cloud schedule of any generated instance is feasible and ends by T."""
    inst = generate(
        seed, 6, 3, n_slots, max_chunks=3, slot_hours=slot_hours, arrival_window=0.3
    )
    ev = check(inst, cloud_only(inst))
    assert (ev.completion <= inst.n_slots).all()
    assert (ev.completion >= inst.arrival + inst.delay[:, -1]).all()
    assert ev.zeta.all() and ev.n_preemptions == 0


def test_calibration_at_paper_scale():
    """At the defaults (T = 240, slot = 1 h) all 300 jobs finish in the cloud by T."""
    inst = generate(7, n_jobs=300, n_servers=10)
    sched = cloud_only(inst)
    ev = check(inst, sched)
    assert ev.completion.max() <= 240
    again = EdgeCloudSchedule.from_json(sched.to_json())
    assert check(inst, again).objective == ev.objective


def test_generator_rejects_too_short_horizon():
    """A horizon shorter than the cloud upload delay raises naming n_slots."""
    with pytest.raises(InvalidInstanceError, match="n_slots: 5 too short"):
        generate(0, n_jobs=2, n_slots=5, max_redraws=3)


def test_generator_storage():
    """storage=True draws U_s in the range and u_j = dataset size / D_j."""
    inst = generate(2, n_jobs=5, n_servers=4, storage=True, storage_range=(50, 60))
    assert inst.storage
    assert all(50.0 <= s.storage_mb <= 60.0 for s in inst.servers)
    for job in inst.jobs:
        assert job.chunk_mb * job.chunks == pytest.approx(
            {"CIFAR10": 163.0, "Caltech101": 131.0, "ImageNet-12": 101.8}[
                MODELS[job.model][0]
            ]
        )
    assert not generate(2, n_jobs=5, n_servers=4).storage


def test_worker_and_ps_types_expand_counts():
    """Local workers are numbered by type; the cloud qualifies for every job."""
    job = Job(1, 1, 1, 1, 0.01, 10.0, 100.0, 1000.0, 1, 0, (1, 10))
    inst = EdgeCloudInstance(
        n_slots=20,
        n_worker_types=3,
        n_ps_types=2,
        servers=(Server(workers=(2, 0, 1), ps=(0, 3)),),
        jobs=(job,),
    )
    assert inst.worker_types[0].tolist() == [0, 0, 2]
    assert inst.ps_types[0].tolist() == [1, 1, 1]
    assert not inst.worker_qualified(0, 0, 2)
    assert not inst.ps_qualified(0, 0, 0)
    assert inst.worker_qualified(0, inst.cloud, 123)
    assert inst.cloud == 1 and inst.n_servers == 2


def _data():
    return json.loads(generate(0, n_jobs=3, n_servers=2).to_json())


def _set(path, value):
    def mutate(d):
        *head, last = path
        for key in head:
            d = d[key]
        d[last] = value

    return mutate


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d["jobs"][1].pop("epochs"), "jobs[1].epochs: missing"),
        (_set(["jobs", 0, "chunks"], 0), "jobs[0].chunks (D_j): must be >= 1, got 0"),
        (
            _set(["jobs", 2, "epochs"], 2.5),
            "jobs[2].epochs (E_j): must be an integer, got 2.5",
        ),
        (
            _set(["jobs", 0, "arrival"], 999),
            "jobs[0].arrival (r_j): must be <= 240, got 999",
        ),
        (
            _set(["jobs", 0, "minibatch_hours"], -0.1),
            "jobs[0].minibatch_hours (m_j): must be > 0.0, got -0.1",
        ),
        (
            _set(["jobs", 1, "update_ms"], "slow"),
            "jobs[1].update_ms (G_j): must be a number, got 'slow'",
        ),
        (
            _set(["jobs", 0, "model_mb"], -5),
            "jobs[0].model_mb (q_j): must be >= 0.0, got -5",
        ),
        (
            _set(["jobs", 0, "bandwidth_mbps"], 0),
            "jobs[0].bandwidth_mbps (b_j): must be > 0.0, got 0",
        ),
        (
            _set(["jobs", 0, "worker_type"], 99),
            "jobs[0].worker_type: must be <= 9, got 99",
        ),
        (_set(["jobs", 0, "ps_type"], -1), "jobs[0].ps_type: must be >= 0, got -1"),
        (
            _set(["jobs", 0, "delay"], [1, 2]),
            "jobs[0].delay (Delta_js): must have 3 entries, got 2",
        ),
        (
            _set(["jobs", 0, "delay"], [1, -2, 12]),
            "jobs[0].delay (Delta_js)[1]: must be >= 0, got -2",
        ),
        (
            _set(["jobs", 0, "chunk_mb"], -1.0),
            "jobs[0].chunk_mb (u_j): must be >= 0.0, got -1.0",
        ),
        (_set(["jobs", 0, "model"], 5), "jobs[0].model: must be a string, got 5"),
        (
            _set(["servers", 1, "workers"], [1, 2]),
            "servers[1].workers: must have 10 entries, got 2",
        ),
        (
            _set(["servers", 0, "ps"], "many"),
            "servers[0].ps: must be a list, got 'many'",
        ),
        (
            _set(["servers", 0, "storage_mb"], -1),
            "servers[0].storage_mb (U_s): must be >= 0.0, got -1",
        ),
        (_set(["n_slots"], 0), "n_slots: must be >= 1, got 0"),
        (_set(["slot_hours"], 0.0), "slot_hours: must be > 0.0, got 0.0"),
        (_set(["n_ps_types"], "x"), "n_ps_types: must be an integer, got 'x'"),
        (_set(["format"], "v0"), "format: expected 'optsched.edgecloud/1', got 'v0'"),
        (lambda d: d.pop("servers"), "servers: missing"),
        (_set(["jobs", 0, "arrival"], 40), "jobs: must be sorted by arrival"),
    ],
)
def test_malformed_json_names_field_and_value(mutate, needle):
    """Malformed instance JSON raises InvalidInstanceError naming field and value."""
    d = _data()
    assert d["n_worker_types"] == 10 and len(d["servers"]) == 2  # seed 0 facts
    mutate(d)
    with pytest.raises(InvalidInstanceError) as info:
        EdgeCloudInstance.from_json(json.dumps(d))
    assert needle in str(info.value)


def test_constructor_validates_too():
    """Building an instance directly validates like from_json."""
    inst = generate(0, n_jobs=2, n_servers=1)
    bad = dataclasses.replace(inst.jobs[0], chunks=-3)
    with pytest.raises(InvalidInstanceError, match=r"jobs\[0\].chunks \(D_j\).*-3"):
        dataclasses.replace(inst, jobs=(bad, inst.jobs[1]))


def test_not_json():
    """Text that is not JSON raises InvalidInstanceError."""
    with pytest.raises(InvalidInstanceError, match="<json>"):
        EdgeCloudInstance.from_json("{not json")
