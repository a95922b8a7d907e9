"""Edge-cloud local search: checked, not worse than the start, not below the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server
from optsched.edgecloud.local_search import Priority, decode, improve
from optsched.edgecloud.paper import default_start
from optsched.edgecloud.schedule import EdgeCloudSchedule, cloud_only
from tests.edgecloud.instances import small


def _job(arrival: int, chunks: int, work: int, delay: tuple[int, ...]) -> Job:
    """``m_j = 1`` h, no update time, no model: ``n_j = 1`` mini-batch per 1-h
    slot for both ``zeta``, so a chunk of ``E_j B_j = work`` takes ``work`` slots."""
    return Job(
        arrival=arrival, chunks=chunks, minibatches=work, epochs=1,
        minibatch_hours=1.0, update_ms=0.0, model_mb=0.0, bandwidth_mbps=100.0,
        worker_type=0, ps_type=0, delay=delay,
    )  # fmt: skip


def test_moves_a_cloud_job_to_the_edge():
    # one job, 2 chunks of 3 slots; edge delay 1, cloud delay 10, two edge
    # workers and one PS.  By hand: both chunks in parallel on the edge in
    # slots 2-4 sharing the PS, JCT 4 - 1 = 3 (no chunk can start before
    # slot 2 nor train faster); all-cloud: slots 11-13, JCT 12.
    inst = EdgeCloudInstance(
        n_slots=20,
        n_worker_types=1,
        n_ps_types=1,
        servers=(Server(workers=(2,), ps=(1,)),),
        jobs=(_job(1, 2, 3, (1, 10)),),
    )
    assert inst.chunk_slots.tolist() == [[3, 3]]
    start = cloud_only(inst)
    assert check(inst, start).objective == 12
    sched, tr = improve(inst, start, time_limit=None)
    assert check(inst, sched).objective == 3
    assert tr.start == 12 and tr.objective == 3


def test_finds_the_shortest_first_order():
    # one edge worker, one PS; long job L (6 slots) and short S (1 slot) both
    # arrive in slot 1, edge delay 1, cloud delay 50 (cloud never pays off).
    # By hand: L first gives 6 + 7 = 13; S first gives 1 + 7 = 8, the optimum
    # (one worker, SPT minimises the sum of completions).
    inst = EdgeCloudInstance(
        n_slots=60,
        n_worker_types=1,
        n_ps_types=1,
        servers=(Server(workers=(1,), ps=(1,)),),
        jobs=(_job(1, 1, 6, (1, 50)), _job(1, 1, 1, (1, 50))),
    )
    runs = [(0, 0, t, 0, 0) for t in range(2, 8)] + [(1, 0, 8, 0, 0)]
    ps = [(0, t, 0, 0) for t in range(2, 8)] + [(1, 8, 0, 0)]
    start = EdgeCloudSchedule.build(inst, runs, ps, algorithm="hand")
    assert check(inst, start).objective == 13
    sched, tr = improve(inst, start, time_limit=None)
    assert check(inst, sched).objective == 8
    assert tr.stop == "local_optimum"


def test_decode_refuses_a_bad_priority():
    inst = small(0)
    J = inst.n_jobs
    with pytest.raises(ValueError, match="order"):
        decode(inst, Priority(tuple(range(J - 1)), (False,) * J))
    with pytest.raises(ValueError, match="cloud"):
        decode(inst, Priority(tuple(range(J)), (False,) * (J + 1)))


@pytest.mark.parametrize("seed", range(6))
def test_small_instances_never_beat_the_proven_optimum(seed):
    p = optsched.get_paper("edgecloud")
    inst = small(seed)
    start = default_start(inst)
    assert start is not None
    sched, tr = improve(inst, start, time_limit=None, strategy="best")
    ev = p.check(inst, sched)
    assert ev.objective <= p.check(inst, start).objective
    opt = p.solve_offline(inst, time_limit=120)
    assert opt.status == "optimal"
    assert ev.objective >= opt.objective * (1 - 1e-9) - 1e-9


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_jobs=st.integers(1, 6),
    n_servers=st.integers(0, 2),
    storage=st.booleans(),
    ls_seed=st.integers(0, 3),
)
def test_random_small_instances_checked_and_not_worse(
    seed, n_jobs, n_servers, storage, ls_seed
):
    p = optsched.get_paper("edgecloud")
    inst = p.generate(
        seed=seed, n_jobs=n_jobs, n_servers=n_servers, n_slots=40, max_chunks=3,
        slot_hours=8.0, n_worker_types=2, n_ps_types=2, storage=storage,
        storage_range=(60.0, 200.0),
    )  # fmt: skip
    start = default_start(inst)
    assert start is not None  # the generator guarantees the all-cloud one
    sched, tr = improve(inst, start, time_limit=None, seed=ls_seed, max_evaluations=80)
    ev = p.check(inst, sched)  # raises if infeasible
    assert ev.objective == tr.objective <= p.check(inst, start).objective
    objs = [tr.start] + [o for _, o in tr.accepted]
    assert all(b < a for a, b in zip(objs, objs[1:], strict=False))


def test_same_seed_same_schedule():
    p = optsched.get_paper("edgecloud")
    inst = p.generate(
        seed=3, n_jobs=8, n_servers=2, n_slots=60, max_chunks=3, slot_hours=8.0
    )
    a, ta = improve(inst, time_limit=None, seed=2, max_evaluations=50)
    b, tb = improve(inst, time_limit=None, seed=2, max_evaluations=50)
    assert ta.accepted == tb.accepted
    assert np.array_equal(a.runs, b.runs) and np.array_equal(a.ps, b.ps)
