"""The independent checker: a hand-computed JCT and one rejection per constraint."""

import dataclasses

import numpy as np
import pytest

from optsched.core.errors import InfeasibleScheduleError
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server
from optsched.edgecloud.schedule import EdgeCloudSchedule

CLOUD = 1


def hand_instance(storage_mb=None, chunk_mb=0.0) -> EdgeCloudInstance:
    """One edge server (index 0) plus the cloud (index 1), T = 8, 1 slot = 1 h.

    Edge server 0: workers w0, w1 of type 0 and w2 of type 1; PS p0 of type 0
    and p1 of type 1.  Every job: m = 0.25 h, G = 0, q = 450 MB, b = 8 Mbps,
    so 2q/b = 2 * 8 * 450 / 8 s = 900 s = 0.25 h and Eq. (1) gives
    n_j = 1 / 0.5 = 2 mini-batches/slot (zeta = 0) or 1 / 0.25 = 4 (zeta = 1).

    * job 0 (A): r = 1, D = 2, B = 2, E = 1: E B = 2 -> 1 slot per chunk at
      n = 2; Delta = 1 (edge), 3 (cloud).
    * job 1 (C): r = 1, D = 1, B = 4, E = 1: E B = 4 -> 1 slot at n = 4 in
      the cloud; Delta = 1 (edge), 2 (cloud).
    * job 2 (B): r = 2, D = 1, B = 2, E = 2: E B = 4 -> 2 slots at n = 2;
      Delta = 1 (edge), 3 (cloud).
    """
    common = dict(
        minibatch_hours=0.25,
        update_ms=0.0,
        model_mb=450.0,
        bandwidth_mbps=8.0,
        worker_type=0,
        ps_type=0,
        chunk_mb=chunk_mb,
    )
    jobs = (
        Job(arrival=1, chunks=2, minibatches=2, epochs=1, delay=(1, 3), **common),
        Job(arrival=1, chunks=1, minibatches=4, epochs=1, delay=(1, 2), **common),
        Job(arrival=2, chunks=1, minibatches=2, epochs=2, delay=(1, 3), **common),
    )
    server = Server(workers=(2, 1), ps=(1, 1), storage_mb=storage_mb)
    return EdgeCloudInstance(8, 2, 2, (server,), jobs)


#: (job, chunk, slot, server, worker)
RUNS = [
    (0, 0, 2, 0, 0),  # A chunk 0 on w0 in slot 2 (r + Delta = 2)
    (0, 1, 4, 0, 0),  # A chunk 1 on w0 in slot 4
    (2, 0, 3, 0, 0),  # B on w0 in slot 3 ...
    (2, 0, 5, 0, 0),  # ... and slot 5: preempted once by A chunk 1
    (1, 0, 3, CLOUD, 0),  # C on cloud worker 0 in slot 3 (r + Delta = 3)
]
#: (job, slot, server, ps)
PS = [(0, 2, 0, 0), (0, 4, 0, 0), (2, 3, 0, 0), (2, 5, 0, 0), (1, 3, CLOUD, 0)]


def sched(runs=RUNS, ps=PS, zeta=None):
    """The hand schedule (or a variant); zeta derived by (2g)-(2h) unless given."""
    return EdgeCloudSchedule.build(hand_instance(), runs, ps, zeta, "hand")


def test_hand_schedule_jct_by_hand():
    """c = (4, 3, 5), JCT = (4-1) + (3-1) + (5-2) = 3 + 2 + 3 = 8, one preemption."""
    inst = hand_instance()
    assert inst.rate.tolist() == [[2.0, 4.0]] * 3
    ev = check(inst, sched())
    assert ev.objective == 8.0
    assert ev.completion.tolist() == [4, 3, 5]
    assert ev.jct.tolist() == [3, 2, 3]
    assert ev.zeta.tolist() == [False, True, False]
    assert ev.preemptions.tolist() == [0, 0, 1] and ev.n_preemptions == 1
    third = 1 / 3  # one of the three edge workers busy in slots 2-5
    assert ev.utilization.tolist() == pytest.approx(
        [0, third, third, third, third, 0, 0, 0]
    )
    assert ev.ps_utilization.tolist() == [0, 0.5, 0.5, 0.5, 0.5, 0, 0, 0]
    assert ev.cloud_workers.tolist() == [0, 0, 1, 0, 0, 0, 0, 0]
    assert ev.mean_jct == pytest.approx(8 / 3)


def test_2j_completion_is_last_run_slot():
    """Moving B's second slot from 5 to 7 gives c_B = 7 and total JCT 10 (2j)."""
    runs = [r if r != (2, 0, 5, 0, 0) else (2, 0, 7, 0, 0) for r in RUNS]
    ps = [p if p != (2, 5, 0, 0) else (2, 7, 0, 0) for p in PS]
    ev = check(hand_instance(), sched(runs, ps))
    assert ev.completion.tolist() == [4, 3, 7]
    assert ev.objective == 10.0


def test_schedule_json_round_trip():
    """A schedule survives to_json / from_json with the same evaluation."""
    s = sched()
    again = EdgeCloudSchedule.from_json(s.to_json())
    assert np.array_equal(again.runs, s.runs) and np.array_equal(again.ps, s.ps)
    assert check(hand_instance(), again).objective == 8.0


def _expect(schedule, eq, needle="", inst=None):
    with pytest.raises(InfeasibleScheduleError) as info:
        check(inst or hand_instance(), schedule)
    assert info.value.constraint == eq
    assert str(info.value).startswith(f"constraint {eq}")
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("runs", "ps", "zeta", "needle"),
    [
        (RUNS + [(0, 0, 9, 0, 0)], PS, None, "(0, 0, 9, 0, 0) outside"),  # T = 8
        (RUNS + [(0, 2, 6, 0, 1)], PS, None, "(0, 2, 6, 0, 1) outside"),  # D_A = 2
        (RUNS + [(0, 1, 6, 0, 3)], PS, None, "(0, 1, 6, 0, 3) outside"),  # W_0 = 3
        (RUNS + [(0, 1, 6, 2, 0)], PS, None, "(0, 1, 6, 2, 0) outside"),  # S = 2
        (RUNS, PS + [(0, 6, 0, 2)], None, "(0, 6, 0, 2) outside"),  # P_0 = 2
        (RUNS + [RUNS[0]], PS, None, "appears twice"),
        (RUNS, PS, [0, 2, 0], "zeta must be 3 values"),
    ],
)
def test_violation_2k_domain(runs, ps, zeta, needle):
    """Indices outside [J], [D_j], [T], [S], [W_s], [P_s] or non-binary values violate (2k)."""
    s = sched(runs, ps) if zeta is None else sched(runs, ps, np.array(zeta))
    _expect(s, "(2k)", needle)


def test_violation_2k_float_rows():
    """A non-integer run array violates (2k)."""
    s = dataclasses.replace(sched(), runs=sched().runs.astype(float))
    _expect(s, "(2k)", "integer array")


def test_violation_2a_unqualified_worker():
    """A chunk on a worker of another type (v_jsw = 0) violates (2a)."""
    runs = [(0, 0, 2, 0, 2)] + RUNS[1:]  # w2 has type 1, A needs type 0
    _expect(sched(runs), "(2a)", "worker 2 of edge server 0 has type 1")


def test_violation_2i_run_before_upload():
    """A chunk trained before r_j + Delta_js violates (2i)."""
    runs = [(0, 0, 1, 0, 0)] + RUNS[1:]
    ps = [(0, 1, 0, 0)] + PS[1:]
    _expect(sched(runs, ps), "(2i)", "job 0 has a worker on edge server 0 in slot 1")


def test_violation_2i_ps_before_upload():
    """A PS of job j on server s before r_j + Delta_js violates (2i)."""
    _expect(sched(RUNS, PS + [(1, 2, CLOUD, 5)]), "(2i)", "PS on the cloud in slot 2")


def test_violation_2c_two_workers_at_once():
    """One chunk on two workers in the same slot violates (2c)."""
    _expect(sched(RUNS + [(0, 0, 2, 0, 1)]), "(2c)", "two workers in slot 2")


def test_violation_2c_migration():
    """A chunk moving to another worker (data migration) violates (2c)."""
    runs = [r if r != (2, 0, 5, 0, 0) else (2, 0, 5, 0, 1) for r in RUNS]
    _expect(sched(runs), "(2c)", "job 2 chunk 0 migrates")


def test_violation_2d_worker_shared():
    """Two chunks on one worker in one slot violate (2d)."""
    _expect(sched(RUNS + [(2, 0, 4, 0, 0)]), "(2d)", "worker 0 of edge server 0")


def test_violation_2e_missing_ps():
    """A training slot without a PS violates (2e)."""
    _expect(sched(RUNS, PS[1:]), "(2e)", "job 0 trains in slot 2 without a PS")


def test_violation_2e_unqualified_ps():
    """A PS of another type (o_jsp = 0) violates (2e)."""
    ps = [(0, 2, 0, 1)] + PS[1:]  # p1 has type 1
    _expect(sched(RUNS, ps), "(2e)", "o_jsp = 0")


def test_violation_2e_two_ps():
    """Two PSs for one job in one slot violate (2e)."""
    _expect(sched(RUNS, PS + [(0, 4, CLOUD, 7)]), "(2e)", "job 0 has two PSs in slot 4")


def test_violation_2f_ps_shared():
    """One PS serving two jobs in one slot violates (2f)."""
    # A keeps p0 in slot 3 (idle slot, allowed by (2e)) while B uses it
    _expect(sched(RUNS, PS + [(0, 3, 0, 0)]), "(2f)", "PS 0 of edge server 0")


def test_violation_2g_cloud_job_without_zeta():
    """A job entirely in the cloud declaring zeta_j = 0 violates (2g)."""
    _expect(sched(zeta=np.array([False, False, False])), "(2g)", "job 1")


def test_violation_2h_edge_job_with_zeta():
    """An edge job declaring zeta_j = 1 (cloud speed) violates (2h)."""
    _expect(sched(zeta=np.array([True, True, False])), "(2h)", "job 0")


def test_violation_no_preemption_in_the_cloud():
    """A cloud chunk suspended and resumed violates Sec. III (no cloud preemption)."""
    runs = RUNS + [(1, 0, 5, CLOUD, 0)]
    ps = PS + [(1, 5, CLOUD, 0)]
    _expect(sched(runs, ps), "Sec. III", "job 1 chunk 0 on cloud worker 0")


def test_violation_2b_workload():
    """A chunk trained for fewer than E_j B_j mini-batches violates (2b)."""
    runs = [r for r in RUNS if r != (2, 0, 5, 0, 0)]
    ps = [p for p in PS if p != (2, 5, 0, 0)]
    _expect(sched(runs, ps), "(2b)", "job 2 chunk 0 trains 1 slots x n_j = 2")


def test_violation_2b_unscheduled_job():
    """A job that never trains violates (2b) (every job must complete)."""
    runs = [r for r in RUNS if r[0] != 1]
    ps = [p for p in PS if p[0] != 1]
    _expect(sched(runs, ps), "(2b)", "job 1 chunk 0 trains 0 slots")


def test_violation_7b_storage():
    """Chunks stored on an edge server beyond U_s violate (7b); enough storage passes."""
    # A's two chunks (4 MB each) stored in [r_A, c_A] = [1, 4]; B's chunk in
    # [2, 5]: 12 MB in slots 2-4; C is in the cloud (unlimited storage).
    inst = hand_instance(storage_mb=10.0, chunk_mb=4.0)
    s = EdgeCloudSchedule.build(inst, RUNS, PS)
    _expect(s, "(7b)", "edge server 0, slot 2: stored chunks 12 MB > U_s = 10 MB", inst)
    roomy = hand_instance(storage_mb=12.0, chunk_mb=4.0)
    assert check(roomy, s).objective == 8.0


def test_fractional_rows_are_rejected_not_truncated():
    """A run row with slot 1.5 is kept as given (float) and fails (2k); it was cast to 1 before."""
    import pytest

    from optsched.core.errors import InfeasibleScheduleError
    from optsched.edgecloud.check import check as _check
    from optsched.edgecloud.schedule import EdgeCloudSchedule as _Sched
    from tests.edgecloud.instances import small as _small

    inst = _small(0)
    sched = _Sched.build(inst, [(0, 0, 1.5, inst.cloud, 0)], [])
    assert sched.runs.dtype.kind == "f" and sched.runs[0, 2] == 1.5
    with pytest.raises(InfeasibleScheduleError, match=r"\(2k\)"):
        _check(inst, sched)
