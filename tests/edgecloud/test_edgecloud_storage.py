"""Storage extension (Sec. VI) in the algorithms: A_online, A_online-E and the baselines."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from optsched.edgecloud.baselines import batchsche, srtf, tiresias_l
from optsched.edgecloud.certificate import certificate
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server, generate
from optsched.edgecloud.online import a_online, a_online_e
from optsched.edgecloud.storage import StorageLedger

ALGORITHMS = (a_online, a_online_e, srtf, tiresias_l, batchsche)

# m = 0.25 h, G = 0, 2q/b = 0.25 h: n_j = 2 mini-batches/slot on the edge and
# 4 with zeta = 1 (Eq. (1)); E B = 2 -> every chunk trains 1 slot anywhere.
COMMON = dict(
    minibatches=2,
    epochs=1,
    minibatch_hours=0.25,
    update_ms=0.0,
    model_mb=450.0,
    bandwidth_mbps=8.0,
    worker_type=0,
    ps_type=0,
    chunk_mb=100.0,
)


def two_servers(
    caps: tuple[float | None, float | None],
    *jobs: Job,
    workers: tuple[int, int] = (1, 1),
    n_slots: int = 16,
) -> EdgeCloudInstance:
    """Edge servers 0 and 1 (``workers`` type-0 workers, one PS, ``U_s = caps``), cloud 2."""
    servers = tuple(
        Server(workers=(n,), ps=(1,), storage_mb=u)
        for n, u in zip(workers, caps, strict=True)
    )
    return EdgeCloudInstance(n_slots, 1, 1, servers, jobs)


def without_storage(inst: EdgeCloudInstance) -> EdgeCloudInstance:
    """``inst`` with every ``U_s`` removed (problem (2) without (7))."""
    servers = tuple(dataclasses.replace(s, storage_mb=None) for s in inst.servers)
    return dataclasses.replace(inst, servers=servers)


def long_enough(inst: EdgeCloudInstance, sched) -> EdgeCloudInstance:
    """``inst`` with ``T`` raised to the makespan (the paper's "T large enough")."""
    return dataclasses.replace(inst, n_slots=max(inst.n_slots, sched.meta["makespan"]))


def runs(sched) -> list[tuple[int, ...]]:
    """The run rows (j, d, t, s, w), sorted."""
    return sorted(map(tuple, sched.runs.tolist()))


def test_a_online_storage_forces_the_second_chunk_to_another_server():
    """Server 0 stores one chunk: d_2 goes to server 1; job 1 avoids server 0 until job 0 ends.

    U = (150, 1000) MB, u_j = 100 MB, every chunk 1 slot; Delta = (1, 3, 10).
    Job 0 (r = 1, D = 2), Eq. (5): d_1 on s0 (1 + 0 + 1 + 0) / 2 = 1, s1
    (3 + 1) / 2 = 2, cloud (10 + 1) / 2 = 5.5 -> s0, slot 2.  Without
    storage d_2 on s0 waits 1 slot: (1 + 1 + 1) / 2 = 1.5 < 2 -> s0, slot 3,
    c_0 = 3.  With storage s0 holds 100 of 150 MB, so s0 is excluded and d_2
    goes to s1 (Q = 2 < cloud at zeta = 0, 5.5), t0 = 4, c_0 = 4.
    Job 1 (r = 4, D = 1): job 0 is not complete at slot 4 (it trains on s1),
    so its chunk on s0 still holds 100 MB ((7c) with the job's c_j) and s0
    is excluded again: s1 (3 + 1 = 4) beats the cloud (11), slot 7.
    Total JCT (4 - 1) + (7 - 4) = 6; without storage job 1 takes s0 in
    slot 5 and the total is 2 + 1 = 3.  A_online-E decides the same.
    """
    inst = two_servers(
        (150.0, 1000.0),
        Job(arrival=1, chunks=2, delay=(1, 3, 10), **COMMON),
        Job(arrival=4, chunks=1, delay=(1, 3, 10), **COMMON),
    )
    # |C_j| after excluding full servers: A_online keeps the cloud entry.
    for algo, n_cand in ((a_online, [3, 2, 2]), (a_online_e, [2, 1, 1])):
        sched = algo(inst)
        ev = check(inst, sched)
        assert runs(sched) == [(0, 0, 2, 0, 0), (0, 1, 4, 1, 0), (1, 0, 7, 1, 0)]
        assert ev.objective == 6.0
        tr = sched.meta["trace"]
        assert tr.alpha.tolist() == [1.0, 2.0, 4.0]
        assert tr.n_candidates.tolist() == n_cand
        assert sched.meta["storage_cloud"] == []
    free = a_online(without_storage(inst))
    assert runs(free) == [(0, 0, 2, 0, 0), (0, 1, 3, 0, 0), (1, 0, 5, 0, 0)]
    assert check(without_storage(inst), free).objective == 3.0


def test_a_online_e_falls_back_to_the_cloud_when_edge_storage_is_full():
    """With U = (150, 150) job 1 finds no edge room: A_online picks the cloud, A_online-E falls back.

    Job 0 as in the previous test puts d_1 on s0 and d_2 on s1 (100 MB each,
    held until c_0 = 4).  Job 1 (r = 4) finds 50 MB free on both servers, so
    the cloud is A_online's only candidate (alpha = 10 + 1 = 11) and
    A_online-E's fallback (reading 11): slot r + Delta_c = 14 at zeta = 1
    (1 slot), its own cloud PS.  Total JCT 3 + 10 = 13.
    """
    inst = two_servers(
        (150.0, 150.0),
        Job(arrival=1, chunks=2, delay=(1, 3, 10), **COMMON),
        Job(arrival=4, chunks=1, delay=(1, 3, 10), **COMMON),
    )
    a, e = a_online(inst), a_online_e(inst)
    assert runs(a) == runs(e) == [(0, 0, 2, 0, 0), (0, 1, 4, 1, 0), (1, 0, 14, 2, 0)]
    for sched in (a, e):
        ev = check(inst, sched)
        assert ev.objective == 13.0 and ev.zeta.tolist() == [False, True]
    assert a.meta["trace"].alpha.tolist() == [1.0, 2.0, 11.0]
    assert a.meta["storage_cloud"] == [] and e.meta["storage_cloud"] == [1]
    assert e.meta["cloud_jobs"] == [1]


def test_baselines_storage_splits_the_gang_and_counts_storage_from_arrival():
    """Gang and cloud fallback of SRTF / Tiresias-L / BatchSche under (7b), by hand.

    Server 0 has 2 workers and U_0 = 150 MB, server 1 one worker and
    U_1 = 150 MB; two jobs with r = 1, D = 2 (k_j = 2), u_j = 100 MB,
    Delta = (1, 1, 10), one slot per chunk.
    SRTF / Tiresias-L: slot 2, job 0 first; the consolidated gang would be
    both workers of s0 (200 MB > 150), so position 0 takes (0, 0) and
    position 1 (0, 1) does not fit (50 MB left): it takes (1, 0).  Job 1
    sees one free worker and waits.  Slot 3: job 0 is done, but job 1's
    chunks would occupy storage from r_1 = 1, and slots 1-2 already hold
    job 0's 100 MB on each server: 50 MB room over [1, 3] everywhere, no
    gang fits even with every worker free, so job 1 goes to the cloud from
    max(3, 1 + 10) = 11.  Total JCT (2 - 1) + (11 - 1) = 11.
    BatchSche: one batch at slot 1; job 0 gets the gang (0, 0), (1, 0)
    (edge finishes at 2 < cloud 11); job 1 finds 50 MB on each server over
    [1, 1] and is planned in the cloud (slot 11).  Same schedule.
    Without storage job 1 trains on the edge in slot 3 (JCT 1 + 2 = 3).
    """
    job = Job(arrival=1, chunks=2, delay=(1, 1, 10), **COMMON)
    inst = two_servers((150.0, 150.0), job, job, workers=(2, 1))
    for algo in (srtf, tiresias_l, batchsche):
        sched = algo(inst)
        ev = check(inst, sched)
        assert runs(sched) == [
            (0, 0, 2, 0, 0),
            (0, 1, 2, 1, 0),
            (1, 0, 11, 2, 0),
            (1, 1, 11, 2, 1),
        ], algo.__name__
        assert ev.objective == 11.0
        assert sched.meta["storage_cloud"] == [1]
        free = algo(without_storage(inst))
        assert check(without_storage(inst), free).objective == 3.0


@pytest.mark.parametrize("seed", range(60))
def test_every_algorithm_passes_the_checker_with_storage(seed):
    """60 generated storage instances: every algorithm's schedule meets (2a)-(2k) and (7b)."""
    inst = generate(
        seed,
        n_jobs=2 + seed % 5,
        n_servers=1 + seed % 3,
        n_slots=60,
        max_chunks=1 + seed % 4,
        slot_hours=8.0,
        n_worker_types=2,
        n_ps_types=2,
        storage=True,
        storage_range=(60.0, 300.0),
    )
    assert inst.storage
    for algo in ALGORITHMS:
        sched = algo(inst)
        ev = check(long_enough(inst, sched), sched)
        assert np.isfinite(ev.objective), algo.__name__


def test_storage_binds_on_the_generated_family():
    """On the family above storage changes some schedule of every algorithm."""
    changed = dict.fromkeys(ALGORITHMS, False)
    for seed in range(20):
        inst = generate(
            seed, 4, 2, n_slots=60, max_chunks=3, slot_hours=8.0,
            n_worker_types=2, n_ps_types=2, storage=True,
            storage_range=(60.0, 300.0),
        )  # fmt: skip
        for algo in ALGORITHMS:
            if runs(algo(inst)) != runs(algo(without_storage(inst))):
                changed[algo] = True
    assert all(changed.values())


@pytest.mark.parametrize("seed", range(10))
def test_storage_that_never_binds_changes_nothing(seed):
    """With U_s above the total of every u_j, each algorithm returns its storage-free schedule."""
    inst = generate(
        seed, 5, 2, n_slots=80, max_chunks=4, slot_hours=8.0,
        n_worker_types=2, n_ps_types=2, storage=True,
        storage_range=(1e4, 2e4),
    )  # fmt: skip
    assert sum(j.chunk_mb * j.chunks for j in inst.jobs) < 1e4
    for algo in ALGORITHMS:
        a, b = algo(inst), algo(without_storage(inst))
        assert runs(a) == runs(b) and sorted(map(tuple, a.ps.tolist())) == sorted(
            map(tuple, b.ps.tolist())
        )


def test_ledger_counts_a_late_placement_from_arrival():
    """A job bound at slot 3 occupies its server from r_j = 1; release frees later slots."""
    inst = two_servers(
        (150.0, None),
        Job(arrival=1, chunks=1, delay=(1, 1, 10), **COMMON),
        Job(arrival=2, chunks=1, delay=(1, 1, 10), **COMMON),
    )
    led = StorageLedger(inst)
    for t in (1, 2, 3):
        led.start_slot(t)
    assert led.room(0).tolist() == [150.0, np.inf]
    led.place(0, 0)
    assert led.hist[0, 1:4].tolist() == [100.0, 100.0, 100.0]
    assert led.room(1)[0] == 50.0 and not led.fits(led.room(1), 0, 100.0)
    assert led.fits(led.room(1), 1, 1e9)  # server 1 is uncapped
    led.release(0)
    led.start_slot(4)
    assert led.hist[0, 4] == 0.0 and led.room(1)[0] == 50.0  # slots 2-3 stay
    with pytest.raises(ValueError, match="after slot"):
        StorageLedger(inst).room(1)


def test_sec6_dual_point_with_eta_zero_fails_on_the_excluded_server():
    """Sec. VI's dual point (Sec. IV's alpha, beta and eta = 0) violates (9a) where storage excluded a server.

    Instance of the first test.  Job 1 (r = 4, D = 1, one slot, a = 1) got
    alpha = Q on s1 = 4, while s0 was excluded for lack of storage.  Row
    (9a) of s0's worker at t = r + Delta_s0 = 5: 4 <= (5 - 4) + beta_s0(5)
    + eta_s0(5) u_j, and beta_s0(5) = 0 (job 0's chunk on s0 counts on
    [1, 2] only), so eta = 0 misses by 3.  Without storage the same
    construction is feasible (every chunk went to its unrestricted argmin).
    """
    inst = two_servers(
        (150.0, 1000.0),
        Job(arrival=1, chunks=2, delay=(1, 3, 10), **COMMON),
        Job(arrival=4, chunks=1, delay=(1, 3, 10), **COMMON),
    )
    assert certificate(without_storage(inst), a_online(without_storage(inst))).lemma2
    cert = certificate(inst, a_online(inst))
    assert cert.max_violation == pytest.approx(3.0)
    v = cert.violations
    assert (v.server == 0).all()  # only rows of the excluded server
    worst = v.loc[v.excess.idxmax()]
    assert (worst.job, worst.chunk, worst.slot) == (1, 0, 5)
