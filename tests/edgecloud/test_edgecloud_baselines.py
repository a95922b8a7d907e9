"""SRTF, Tiresias-L, BatchSche: hand traces, checker on generated instances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.edgecloud.baselines import (
    TiresiasParams,
    batchsche,
    srtf,
    tiresias_l,
)
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import Job, generate
from tests.edgecloud.test_edgecloud_online import COMMON, long_enough, tiny

BASELINES = (srtf, tiresias_l, batchsche)


def runs_of(sched, job):
    """Slots in which ``job`` trains."""
    return sorted(r[2] for r in sched.runs.tolist() if r[0] == job)


def test_hand_trace_srtf_preempts_for_a_shorter_job():
    """SRTF suspends the long job when a shorter one becomes reachable.

    One edge worker, one PS (``tiny``); n = 2 mini-batches/slot on the edge.
    Job 0: r = 1, E B = 3 * 2 -> 3 slots, Delta = (1, 10); runs in slot 2.
    Job 1: r = 2, E B = 2 -> 1 slot, reachable from slot 3.
    Slot 3: remaining times 2 (job 0) > 1 (job 1) -> job 1 runs, job 0 is
    suspended; job 0 resumes in 4-5.  c = (5, 3), total JCT
    (5 - 1) + (3 - 2) = 5, one preemption.
    """
    inst = tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=3, delay=(1, 10), **COMMON),
        Job(arrival=2, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )
    sched = srtf(inst)
    ev = check(inst, sched)
    assert sched.algorithm == "srtf"
    assert ev.objective == 5.0
    assert ev.completion.tolist() == [5, 3]
    assert ev.preemptions.tolist() == [1, 0]
    assert runs_of(sched, 0) == [2, 4, 5] and runs_of(sched, 1) == [3]
    assert sorted(map(tuple, sched.ps.tolist())) == [
        (0, 2, 0, 0),
        (0, 4, 0, 0),
        (0, 5, 0, 0),
        (1, 3, 0, 0),
    ]


def test_hand_trace_tiresias_demotes_after_threshold():
    """Tiresias-L demotes job 0 once its attained service reaches 2 worker-hours.

    Job 0: r = 1, E B = 4 * 2 -> 4 slots, Delta = (1, 10); job 1: r = 3,
    E B = 2 -> 1 slot, reachable from slot 4.  slot_hours = 1, one worker,
    thresholds = (2,).  Job 0 trains in 2 and 3 (service 1, then 2 after
    slot 3 -> queue 1).  Slot 4: job 1 is in queue 0 and runs; job 0 (queue
    1) is suspended and resumes in 5-6.  c = (6, 4), total JCT
    (6 - 1) + (4 - 3) = 6.  Without thresholds (one FIFO queue) job 0 is
    never preempted: c = (5, 6), total JCT 4 + 3 = 7.
    """
    inst = tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=4, delay=(1, 10), **COMMON),
        Job(arrival=3, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )
    assert inst.slot_hours == 1
    sched = tiresias_l(inst, params=TiresiasParams(thresholds=(2.0,)))
    ev = check(inst, sched)
    assert sched.algorithm == "tiresias_l"
    assert ev.objective == 6.0
    assert ev.completion.tolist() == [6, 4]
    assert runs_of(sched, 0) == [2, 3, 5, 6] and runs_of(sched, 1) == [4]
    assert ev.preemptions.tolist() == [1, 0]
    fifo = check(inst, tiresias_l(inst, params=TiresiasParams(thresholds=())))
    assert fifo.objective == 7.0 and fifo.completion.tolist() == [5, 6]
    # the defaults (10, 100) worker-hours are not reached here: FIFO as well
    assert check(inst, tiresias_l(inst)).objective == 7.0
    with pytest.raises(ValueError, match="thresholds"):
        tiresias_l(inst, params=TiresiasParams(thresholds=(5.0, 2.0)))


def test_hand_trace_batchsche_runs_one_batch_before_the_next():
    """Job 1 arrives while batch {0} runs and waits for it (no preemption).

    Same jobs as the SRTF trace.  Batch 1 at slot 1 = {job 0}: edge plan
    finishes at 2 + 3 - 1 = 4, cloud at (1 + 10) + 2 - 1 = 12 -> edge,
    slots 2-4.  Batch 2 starts in slot 5 = {job 1}: edge 5, cloud
    max(5, 12) + 1 - 1 = 12 -> edge, slot 5.  c = (4, 5), total JCT
    (4 - 1) + (5 - 2) = 6 (SRTF: 5).
    """
    inst = tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=3, delay=(1, 10), **COMMON),
        Job(arrival=2, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )
    sched = batchsche(inst)
    ev = check(inst, sched)
    assert sched.algorithm == "batchsche"
    assert ev.objective == 6.0
    assert ev.completion.tolist() == [4, 5]
    assert ev.preemptions.tolist() == [0, 0]
    assert sched.meta["batches"] == [[0], [1]]


def test_hand_trace_batchsche_picks_the_cloud_when_it_finishes_earlier():
    """A long job goes to the cloud (zeta = 1) when that finishes it earlier.

    Two chunks, E B = 20 * 2 = 40 each: 20 slots per chunk on the edge
    (n = 2), 10 in the cloud (n = 4).  Delta = (1, 3).  The one edge worker
    trains both chunks: 2 + 2 * 20 - 1 = 41; the cloud trains them side by
    side: 4 + 10 - 1 = 13 -> cloud, JCT 13 - 1 = 12.  SRTF (an edge
    scheduler) keeps the job on the edge: JCT 41 - 1 = 40.
    """
    inst = tiny(
        Job(arrival=1, chunks=2, minibatches=2, epochs=20, delay=(1, 3), **COMMON),
        n_slots=60,
    )
    sched = batchsche(inst)
    ev = check(inst, sched)
    assert ev.objective == 12.0 and ev.zeta.tolist() == [True]
    assert sched.meta["cloud_jobs"] == [0]
    ev_srtf = check(inst, srtf(inst))
    assert ev_srtf.objective == 40.0 and ev_srtf.zeta.tolist() == [False]


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_jobs=st.integers(1, 6),
    n_servers=st.integers(0, 3),
    max_chunks=st.integers(1, 4),
    slot_hours=st.sampled_from([4.0, 8.0]),
)
def test_outputs_pass_the_checker(seed, n_jobs, n_servers, max_chunks, slot_hours):
    """Every baseline schedule satisfies (2a)-(2k) (T large enough), as A_online's."""
    inst = generate(
        seed,
        n_jobs,
        n_servers,
        n_slots=60,
        slot_hours=slot_hours,
        max_chunks=max_chunks,
    )
    for algo in BASELINES:
        sched = algo(inst, seed=seed % 7)
        ev = check(long_enough(inst, sched), sched)
        assert sched.algorithm == algo.__name__
        assert ev.completion.max() == sched.meta["makespan"]
        cloud = set(sched.meta["cloud_jobs"])
        assert cloud == set(np.flatnonzero(ev.zeta).tolist())
        if algo is not batchsche:  # edge schedulers: cloud only without edge workers
            for j in cloud:
                wt = inst.jobs[j].worker_type
                assert all(wt not in inst.worker_types[s] for s in range(n_servers))
        else:
            assert ev.preemptions.sum() == 0
            assert sorted(sum(sched.meta["batches"], [])) == list(range(n_jobs))


def test_same_seed_same_schedule():
    """Same seed -> identical rows (the seed drives only the PS draw)."""
    inst = generate(5, 8, 3, n_slots=80, slot_hours=8.0, max_chunks=4)
    for algo in BASELINES:
        a, b = algo(inst, seed=3), algo(inst, seed=3)
        assert np.array_equal(a.runs, b.runs) and np.array_equal(a.ps, b.ps)
        assert np.array_equal(a.zeta, b.zeta)
