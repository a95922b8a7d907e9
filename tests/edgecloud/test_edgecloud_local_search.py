"""Edge-cloud local search: checked, not worse than the start, not below the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server
from optsched.edgecloud.local_search import (
    FOCUS_KEY,
    META_KEY,
    Priority,
    decode,
    improve,
    kick,
    neighbours,
)
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
    sched, tr = improve(inst, start, time_limit=None, method="descent")
    assert check(inst, sched).objective == 8
    assert tr.stop == "local_optimum"
    sched, tr = improve(inst, start, time_limit=None)  # iterated: same optimum
    assert check(inst, sched).objective == 8
    assert tr.stop == "patience" and tr.n_kicks > 0


def test_lazy_decoder_leaves_the_edge_to_later_jobs():
    # one edge worker and one PS (edge delay 1); job A: 2 chunks of 3 slots,
    # cloud delay 2; job B: 1 chunk of 3 slots, cloud delay 50; both arrive
    # in slot 1.  By hand, order (A, B): greedily A's chunk 0 takes the edge
    # in slots 2-4 and chunk 1 the cloud in 3-5 (C_A = 5), so B waits for
    # slots 5-7: 4 + 6 = 10.  Both of A's chunks end by C_A = 5 in the cloud,
    # so the decoder puts A entirely in the cloud (zeta_A = 1, slots 3-5) and
    # B gets the edge in slots 2-4: 4 + 3 = 7.  That is the optimum: B ends
    # at slot 4 at the earliest (JCT >= 3); A's JCT 3 would need both chunks
    # done by slot 4, impossible in the cloud (from slot 3) and on the one
    # edge worker, so A's JCT >= 4.
    inst = EdgeCloudInstance(
        n_slots=30,
        n_worker_types=1,
        n_ps_types=1,
        servers=(Server(workers=(1,), ps=(1,)),),
        jobs=(_job(1, 2, 3, (1, 2)), _job(1, 1, 3, (1, 50))),
    )
    sched = decode(inst, Priority((0, 1), (False, False)))
    ev = check(inst, sched)
    assert ev.objective == 7
    assert bool(sched.zeta[0]) and not bool(sched.zeta[1])


def test_kick_and_its_focused_neighbourhood():
    p = optsched.get_paper("edgecloud")
    inst = p.generate(
        seed=3, n_jobs=8, n_servers=2, n_slots=60, max_chunks=3, slot_hours=8.0
    )
    base = decode(inst, Priority(tuple(range(8)), (False,) * 8))
    rng = np.random.default_rng(4)
    label, cand = kick(inst, base, rng, strength=2)
    prio = cand.meta[META_KEY]
    assert sorted(prio.order) == list(range(8)) and len(prio.cloud) == 8
    focus = cand.meta[FOCUS_KEY]
    assert 1 <= len(focus) <= 4 and label
    base_prio = base.meta[META_KEY]
    assert {j for j in range(8) if prio.cloud[j] != base_prio.cloud[j]} <= focus
    labels = [lab for lab, c in neighbours(inst, cand, np.random.default_rng(0))]
    for lab in labels:  # every move touches a job of the focus
        kind, rest = lab.split(" ", 1)
        jobs = {int(x) for x in rest.split(" to ")[0].split(",")}
        assert jobs & focus, lab
    full = list(neighbours(inst, base, np.random.default_rng(0)))
    assert len(labels) < len(full)
    for _, c in full:  # the unfocused neighbourhood stays unfocused
        assert FOCUS_KEY not in c.meta


@pytest.mark.parametrize("budget", [40, 250])
@pytest.mark.parametrize("gen_seed", [3, 7])
def test_ils_never_worse_than_descent_and_deterministic(gen_seed, budget):
    p = optsched.get_paper("edgecloud")
    inst = p.generate(
        seed=gen_seed, n_jobs=8, n_servers=2, n_slots=60, max_chunks=3,
        slot_hours=8.0,
    )  # fmt: skip
    kw = {"time_limit": None, "seed": 1, "max_evaluations": budget}
    d, td = improve(inst, method="descent", **kw)
    a, ta = improve(inst, **kw)
    b, tb = improve(inst, **kw)
    assert ta.objective <= td.objective
    assert ta.accepted[: len(td.accepted)] == td.accepted  # same first phase
    assert ta.accepted == tb.accepted and ta.n_kicks == tb.n_kicks
    assert np.array_equal(a.runs, b.runs) and np.array_equal(a.ps, b.ps)
    assert check(inst, a).objective == ta.objective
    assert ta.n_candidates <= budget


def test_bad_method_names_the_field():
    with pytest.raises(ValueError, match="method"):
        improve(small(0), cloud_only(small(0)), method="tabu")


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
    opt = p.solve_offline(inst, time_limit=120)
    assert opt.status == "optimal"
    for method, strategy in (("descent", "best"), ("ils", "best"), ("ils", "first")):
        sched, tr = improve(
            inst, start, time_limit=None, strategy=strategy, method=method
        )
        ev = p.check(inst, sched)
        assert ev.objective == tr.objective <= p.check(inst, start).objective
        assert ev.objective >= opt.objective * (1 - 1e-9) - 1e-9


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_jobs=st.integers(1, 6),
    n_servers=st.integers(0, 2),
    storage=st.booleans(),
    ls_seed=st.integers(0, 3),
    method=st.sampled_from(["ils", "descent"]),
)
def test_random_small_instances_checked_and_not_worse(
    seed, n_jobs, n_servers, storage, ls_seed, method
):
    p = optsched.get_paper("edgecloud")
    inst = p.generate(
        seed=seed, n_jobs=n_jobs, n_servers=n_servers, n_slots=40, max_chunks=3,
        slot_hours=8.0, n_worker_types=2, n_ps_types=2, storage=storage,
        storage_range=(60.0, 200.0),
    )  # fmt: skip
    start = default_start(inst)
    assert start is not None  # the generator guarantees the all-cloud one
    sched, tr = improve(
        inst, start, time_limit=None, seed=ls_seed, max_evaluations=80, method=method
    )
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
