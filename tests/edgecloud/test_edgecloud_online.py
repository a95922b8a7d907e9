"""A_online and A_online-E: hand traces, checker on generated instances, trace."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server, generate
from optsched.edgecloud.online import AOnlineParams, a_online, a_online_e, sped_up

# m = 0.25 h, G = 0, 2q/b = 2 * 8 * 450 / 8 s = 0.25 h: Eq. (1) gives
# n_j = 2 mini-batches/slot on the edge (zeta = 0) and 4 with zeta = 1.
COMMON = dict(
    minibatch_hours=0.25,
    update_ms=0.0,
    model_mb=450.0,
    bandwidth_mbps=8.0,
    worker_type=0,
    ps_type=0,
)


def tiny(*jobs: Job, n_slots: int = 8) -> EdgeCloudInstance:
    """One edge server (index 0) with one worker and one PS, plus the cloud (1)."""
    return EdgeCloudInstance(n_slots, 1, 1, (Server(workers=(1,), ps=(1,)),), jobs)


def long_enough(inst: EdgeCloudInstance, sched) -> EdgeCloudInstance:
    """``inst`` with ``T`` raised to the makespan (the paper's "T large enough")."""
    return dataclasses.replace(inst, n_slots=max(inst.n_slots, sched.meta["makespan"]))


def beta_total(sched) -> float:
    """``sum_s sum_w sum_t beta_sw(t)``, chunks counted on ``[r_j, c_jd]``."""
    tr = sched.meta["trace"]
    return float((tr.weight * (tr.completion - tr.arrival + 1)).sum())


def test_hand_trace_haprf_preemption():
    """A short job arriving later preempts the long one (HAPRF), JCT 5 by hand.

    Job 0: r = 1, D = 1, E B = 3 * 2 = 6 -> p = 3 slots on the edge (n = 2),
    ceil(6/4) = 2 in the cloud; Delta = (1, 10); gamma_0 = 2 / 6 = 1/3.
    Job 1: r = 2, D = 1, E B = 2 -> p = 1 slot; Delta = (1, 10); gamma_1 = 1.

    Slot 1, job 0: C_0 = {edge: 1 + 0 + 3 + 0 = 4 (t0 = 2, empty queue),
    cloud: 10 + 2 = 12} -> edge, alpha = 4, plan slots 2-4.
    Slot 2, job 1: t0 = 3, A(3) = {job 0's chunk} (released 2, p^(3) = 2),
    gamma_0 < gamma_1 so it is in A_2: Q = 1 + 0 + 1 + 1 * (1/1) = 3;
    cloud 10 + 1 = 11 -> edge, alpha = 3, t* = 3.
    Execution: job 0 in 2, job 1 in 3 (job 0 preempted), job 0 in 4, 5.
    c = (5, 3), total JCT (5 - 1) + (3 - 2) = 5, one preemption; the only PS
    serves job 0 in 2, job 1 in 3, job 0 in 4-5 (new random pick after the gap).
    Lemma 4: sum alpha = 7 = beta over [1, 5] (5) + [2, 3] (2).
    """
    inst = tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=3, delay=(1, 10), **COMMON),
        Job(arrival=2, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )
    sched = a_online(inst)
    ev = check(inst, sched)
    assert ev.objective == 5.0
    assert ev.completion.tolist() == [5, 3]
    assert ev.preemptions.tolist() == [1, 0]
    assert sorted(map(tuple, sched.runs.tolist())) == [
        (0, 0, 2, 0, 0),
        (0, 0, 4, 0, 0),
        (0, 0, 5, 0, 0),
        (1, 0, 3, 0, 0),
    ]
    assert sorted(map(tuple, sched.ps.tolist())) == [
        (0, 2, 0, 0),
        (0, 4, 0, 0),
        (0, 5, 0, 0),
        (1, 3, 0, 0),
    ]
    tr = sched.meta["trace"]
    assert tr.alpha.tolist() == [4.0, 3.0]
    assert tr.q_postpone.tolist() == [0.0, 1.0]
    assert tr.t_star.tolist() == [2, 3]
    assert tr.planned_completion.tolist() == [4, 3]
    assert tr.completion.tolist() == [5, 3]
    assert tr.n_candidates.tolist() == [2, 2]
    assert tr.alpha.sum() == beta_total(sched) == 7.0


def test_hand_trace_split_job_cloud_at_zeta_0():
    """d_1 goes to the edge, d_2 to the cloud with the zeta_j = 0 rate (lines 17-20).

    One job: r = 1, D = 2, E B = 6 -> 3 slots on the edge, 2 in the cloud at
    zeta = 1, 3 at zeta = 0; Delta = (1, 3).
    d_1: edge (1 + 0 + 3) / 2 = 2 < cloud (3 + 2) / 2 = 2.5 -> edge, slots 2-4.
    Lines 18-20: cloud recomputed with zeta = 0: (3 + 3) / 2 = 3.
    d_2: edge waits for d_1 (equal gamma, p^(2) = 3): (1 + 3 + 3) / 2 = 3.5
    > 3 -> cloud, slots 4-6 (3 slots at n = 2, no preemption).
    c = 6, JCT 5, zeta = 0; the edge PS (reachable from slot 2) serves 2-6.
    Lemma 4: alpha = 2 + 3 = 5 = 0.5 * 4 (edge, [1, 4]) + 0.5 * 6 (cloud, [1, 6]).
    """
    inst = tiny(
        Job(arrival=1, chunks=2, minibatches=2, epochs=3, delay=(1, 3), **COMMON)
    )
    sched = a_online(inst)
    ev = check(inst, sched)
    assert ev.objective == 5.0 and ev.zeta.tolist() == [False]
    tr = sched.meta["trace"]
    assert tr.server.tolist() == [0, 1]
    assert tr.alpha.tolist() == [2.0, 3.0]
    assert tr.completion.tolist() == [4, 6]
    assert sorted(r[2] for r in sched.runs.tolist() if r[3] == 1) == [4, 5, 6]
    assert sched.ps.tolist() == [[0, t, 0, 0] for t in range(2, 7)]
    assert tr.alpha.sum() == beta_total(sched) == 5.0
    # A_online-E keeps both chunks on the edge worker: slots 2-4 and 5-7.
    e = a_online_e(inst)
    assert check(inst, e).objective == 6.0
    assert (e.runs[:, 3] == 0).all()


def test_preemption_counted_by_checker():
    """Two short jobs arriving after a long one each preempt it on the one worker."""
    inst = tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=5, delay=(1, 12), **COMMON),
        Job(arrival=3, chunks=1, minibatches=2, epochs=1, delay=(1, 12), **COMMON),
        Job(arrival=6, chunks=1, minibatches=2, epochs=1, delay=(1, 12), **COMMON),
        n_slots=12,
    )
    for algo in (a_online, a_online_e):
        sched = algo(inst)
        ev = check(inst, sched)
        assert ev.preemptions.tolist() == [2, 0, 0]
        assert ev.completion.tolist() == [8, 4, 7]  # long job: 2, 3, 5, 6, 8
        assert (sched.runs[:, 3] == 0).all()


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_jobs=st.integers(1, 6),
    n_servers=st.integers(0, 3),
    max_chunks=st.integers(1, 4),
    slot_hours=st.sampled_from([4.0, 8.0]),
    speed=st.sampled_from([1.0, 1.25, 2.0]),
)
def test_outputs_pass_the_checker(
    seed, n_jobs, n_servers, max_chunks, slot_hours, speed
):
    """Every A_online / A_online-E schedule satisfies (2a)-(2k) (T large enough)."""
    inst = generate(
        seed,
        n_jobs,
        n_servers,
        n_slots=60,
        slot_hours=slot_hours,
        max_chunks=max_chunks,
    )
    fast = sped_up(inst, speed)
    for algo in (a_online, a_online_e):
        sched = algo(inst, seed=seed % 7, params=AOnlineParams(speed=speed))
        ev = check(long_enough(fast, sched), sched)
        tr = sched.meta["trace"]
        assert len(tr) == int(inst.D.sum())
        # the trace's c_jd is the last slot each chunk trains
        last = {}
        for j, d, t, _s, _w in sched.runs.tolist():
            last[j, d] = max(last.get((j, d), 0), t)
        assert [last[j, d] for j, d in zip(tr.job, tr.chunk, strict=True)] == (
            tr.completion.tolist()
        )
        q = tr.q_delay + tr.q_wait + tr.q_proc + tr.q_postpone
        assert np.allclose(q, tr.alpha)
        assert ev.completion.max() == sched.meta["makespan"]


def test_a_online_e_stays_on_the_edge():
    """A_online-E never puts a worker in the cloud unless no edge worker qualifies."""
    seen_fallback = seen_edge = False
    for seed in range(12):
        inst = generate(seed, 5, 2, n_slots=60, slot_hours=8.0, max_chunks=3)
        sched = a_online_e(inst)
        check(long_enough(inst, sched), sched)
        cloud_jobs = set(sched.meta["cloud_jobs"])
        for j, job in enumerate(inst.jobs):
            hosts = any(job.worker_type in inst.worker_types[s] for s in range(2))
            on_cloud = (sched.runs[:, 0] == j) & (sched.runs[:, 3] == inst.cloud)
            assert on_cloud.any() == (not hosts) == (j in cloud_jobs)
            seen_fallback |= not hosts
            seen_edge |= hosts
    assert seen_fallback and seen_edge
    inst = generate(0, 3, 0, n_slots=60, slot_hours=8.0, max_chunks=2)
    sched = a_online_e(inst)  # no edge server at all: every job in the cloud
    assert check(inst, sched).zeta.all()
    assert sched.meta["cloud_jobs"] == [0, 1, 2]


def test_same_seed_same_schedule():
    """Same seed -> identical rows and trace; the seed only drives Alg. 5 line 6."""
    inst = generate(5, 8, 3, n_slots=80, slot_hours=8.0, max_chunks=4)
    for algo in (a_online, a_online_e):
        a, b = algo(inst, seed=3), algo(inst, seed=3)
        assert np.array_equal(a.runs, b.runs) and np.array_equal(a.ps, b.ps)
        assert a.meta["trace"].equals(b.meta["trace"])


def test_speed_augmentation_scales_rates():
    """sped_up multiplies n_j by the speed; speed 1 is the instance itself."""
    inst = generate(2, 4, 2, n_slots=60, slot_hours=8.0, max_chunks=3)
    assert sped_up(inst, 1.0) is inst
    fast = sped_up(inst, 1.5)
    assert np.allclose(fast.rate, 1.5 * inst.rate)
    assert (fast.chunk_slots <= inst.chunk_slots).all()
    assert (fast.delay == inst.delay).all() and fast.n_slots == inst.n_slots
    sched = a_online(inst, params=AOnlineParams(speed=1.5))
    assert sched.meta["speed"] == 1.5
    check(long_enough(fast, sched), sched)
    with pytest.raises(ValueError, match="speed"):
        a_online(inst, params=AOnlineParams(speed=0.0))
