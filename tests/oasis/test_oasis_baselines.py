"""Tests of the Sec. V-A baselines (FIFO, DRF, RRH, Dorm) of the OASiS paper.

Hand-built instances use ``grad_mb = 0`` (no communication time), one epoch
and one mini-batch per chunk, so that ``work_i = N_i tau_i`` worker-slots is
chosen directly; with ``b_i = 1`` and ``B_i = 10`` every job needs exactly one
parameter server for up to 10 workers.  Expected numbers are derived by hand
in each test's comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optsched.oasis.baselines import (
    DormParams,
    FifoParams,
    dorm,
    drf,
    fifo,
    rrh,
)
from optsched.oasis.check import check
from optsched.oasis.instance import Job, OasisInstance, generate

BASELINES = {"fifo": fifo, "drf": drf, "rrh": rrh, "dorm": dorm}


def job(
    arrival: int,
    n_chunks: int,
    work: float,
    *,
    demand: tuple[float, ...] = (1.0, 1.0),
    ps_demand: tuple[float, ...] = (0.0, 10.0),
    gamma: tuple[float, float, float] = (10.0, 0.5, 5.0),
) -> Job:
    """A job with ``N_i = n_chunks`` and ``work_i = work`` worker-slots."""
    g1, g2, g3 = gamma
    return Job(
        arrival=arrival,
        epochs=1,
        chunks=n_chunks,
        minibatches=1,
        tau=work / n_chunks,
        grad_mb=0.0,
        worker_demand=demand,
        ps_demand=ps_demand,
        gamma1=g1,
        gamma2=g2,
        gamma3=g3,
        kind="insensitive" if g2 == 0 else "sensitive",
    )


def cluster(jobs: list[Job], n_slots: int, gpus: float = 4.0) -> OasisInstance:
    """One worker server with ``gpus`` GPUs and one roomy PS server."""
    return OasisInstance(
        n_slots=n_slots,
        resources=("gpu", "bandwidth"),
        worker_servers=((gpus, 100.0),),
        ps_servers=((0.0, 100.0),),
        jobs=tuple(jobs),
    )


def per_slot(sched, i: int) -> list[int]:
    """Worker count of job ``i`` in slots 1..T."""
    return sched.workers[i].sum(axis=0).tolist()


# ------------------------------------------------------------ properties

sizes = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10_000),
        "n_jobs": st.integers(1, 8),
        "n_slots": st.integers(2, 12),
        "n_worker_servers": st.integers(1, 3),
        "n_ps_servers": st.integers(1, 3),
    }
)


@pytest.mark.parametrize("name", sorted(BASELINES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=sizes)
def test_schedules_pass_checker(name, size):
    """Every baseline's schedule passes the independent checker of (2)-(13)."""
    inst = generate(**size)
    sched = BASELINES[name](inst)
    ev = check(inst, sched)
    assert sched.algorithm == name
    n = sched.workers.sum(axis=1)  # (I, T)
    m = sched.ps.sum(axis=1)
    for i in range(inst.n_jobs):
        if not sched.admitted[i]:  # unfinished or rejected: nothing deployed
            assert not sched.workers[i].any() and not sched.ps[i].any()
            assert ev.utility[i] == 0.0
            continue
        # PS count is exactly min(ceil(n b/B), n) in every slot (6)(7)
        need = np.minimum(np.ceil(n[i] * inst.b[i] / inst.B[i] - 1e-9), n[i])
        assert (m[i] == need).all()


@settings(max_examples=40, deadline=None)
@given(size=sizes)
def test_fifo_starts_in_arrival_order_with_fixed_counts(size):
    """FIFO starts jobs as a prefix in arrival order and never resizes or pauses them."""
    inst = generate(**size)
    sched = fifo(inst)
    first = sched.meta["first_slot"]
    started = first > 0
    # strict FIFO: started jobs form a prefix, with non-decreasing start slots
    k = int(started.sum())
    assert started[:k].all() and not started[k:].any()
    assert (np.diff(first[:k]) >= 0).all()
    for i in np.flatnonzero(sched.admitted):
        n = np.array(per_slot(sched, i))
        on = np.flatnonzero(n)
        assert (np.diff(on) == 1).all()  # contiguous: never paused
        assert len(set(n[on])) == 1  # one fixed count
        assert n[on[0]] <= math.ceil(inst.N[i] / 2)


@settings(max_examples=25, deadline=None)
@given(size=sizes)
def test_rrh_counts_are_fixed(size):
    """RRH runs each admitted job with one fixed worker count (it may pause)."""
    inst = generate(**size)
    sched = rrh(inst)
    for i in np.flatnonzero(sched.admitted):
        n = np.array(per_slot(sched, i))
        assert len(set(n[n > 0])) == 1


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_same_seed_same_schedule(name):
    """Running a baseline twice on the same generated instance gives identical schedules."""
    inst = generate(7, n_jobs=8, n_slots=12, n_worker_servers=3, n_ps_servers=2)
    a = BASELINES[name](inst)
    b = BASELINES[name](generate(7, 8, 12, 3, 2))
    assert np.array_equal(a.admitted, b.admitted)
    assert np.array_equal(a.workers, b.workers)
    assert np.array_equal(a.ps, b.ps)


# --------------------------------------------------------------- FIFO


def test_fifo_single_job_completion_slot():
    """A lone job under FIFO runs ceil(N/2) workers until its work is done."""
    # work 10, N = 4 -> 2 workers -> 10 / 2 = 5 slots from its arrival 3: 3..7
    inst = cluster([job(3, 4, 10.0)], n_slots=10)
    sched = fifo(inst)
    assert per_slot(sched, 0) == [0, 0, 2, 2, 2, 2, 2, 0, 0, 0]
    assert sched.ps[0].sum(axis=0).tolist() == [0, 0, 1, 1, 1, 1, 1, 0, 0, 0]
    ev = check(inst, sched)
    assert ev.completion[0] == 7
    assert ev.objective == pytest.approx(10.0 / (1.0 + math.exp(0.5 * (4 - 5))))


def test_fifo_explicit_worker_count():
    """With n_workers=3 the same job needs ceil(10/3) = 4 slots."""
    inst = cluster([job(1, 4, 10.0)], n_slots=10)
    assert check(inst, fifo(inst, params=FifoParams(n_workers=3))).completion[0] == 4


def test_fifo_never_overtakes():
    """A later job that would fit waits for the earlier job blocked at the queue head."""
    # 4 GPUs.  A: N=6 -> 3 workers, work 6 -> slots 1-2.  B (arrives 2):
    # N=4 -> 2 workers, does not fit next to A (1 GPU free).  C (arrives 2,
    # after B): N=2 -> 1 worker, would fit, but must wait for B.  At slot 3
    # both start (2 + 1 <= 4): B work 4 -> slots 3-4, C work 2 -> slots 3-4.
    inst = cluster(
        [job(1, 6, 6.0), job(2, 4, 4.0), job(2, 2, 2.0)], n_slots=6, gpus=4.0
    )
    sched = fifo(inst)
    assert per_slot(sched, 0) == [3, 3, 0, 0, 0, 0]
    assert per_slot(sched, 1) == [0, 0, 2, 2, 0, 0]
    assert per_slot(sched, 2) == [0, 0, 1, 1, 0, 0]
    check(inst, sched)


# ---------------------------------------------------------------- DRF


def test_drf_identical_jobs_get_equal_counts():
    """Two identical jobs on 4 GPUs get 2 workers each under DRF."""
    # progressive filling alternates: 1+0, 1+1, 2+1, 2+2 = 4 GPUs; work 4
    # each -> both complete at the end of slot 2
    inst = cluster([job(1, 5, 4.0), job(1, 5, 4.0)], n_slots=3, gpus=4.0)
    sched = drf(inst)
    assert per_slot(sched, 0) == [2, 2, 0] and per_slot(sched, 1) == [2, 2, 0]


def test_drf_reproduces_ghodsi_example():
    """DRF's textbook example: <9 CPU, 18 GB>, A <1, 4>, B <3, 1> -> 3 and 2 tasks."""
    # Ghodsi et al. (NSDI 2011), Sec. 4: dominant shares equalise at 2/3.
    demands = {"A": (1.0, 4.0, 1.0), "B": (3.0, 1.0, 1.0)}
    # works 6 and 4: both complete after 2 slots, with no event in between
    jobs = [
        job(1, 10, work, demand=d, ps_demand=(1.0, 1.0, 10.0))
        for d, work in zip(demands.values(), (6.0, 4.0), strict=True)
    ]
    inst = OasisInstance(
        n_slots=3,
        resources=("cpu", "memory", "bandwidth"),
        worker_servers=((9.0, 18.0, 1000.0),),
        ps_servers=((1000.0, 1000.0, 1000.0),),
        jobs=tuple(jobs),
    )
    sched = drf(inst)
    assert per_slot(sched, 0) == [3, 3, 0] and per_slot(sched, 1) == [2, 2, 0]


def test_drf_reallocates_on_completion():
    """When one of two DRF jobs completes, the other grows to its N_i cap."""
    # 4 GPUs, both N = 4: 2 + 2 workers.  Job 0 (work 4) completes after
    # slot 2; from slot 3 job 1 takes min(N, 4 GPUs) = 4 workers and its
    # work 12 = 2 + 2 + 4 + 4 is done at the end of slot 4.
    inst = cluster([job(1, 4, 4.0), job(1, 4, 12.0)], n_slots=5, gpus=4.0)
    sched = drf(inst)
    assert per_slot(sched, 0) == [2, 2, 0, 0, 0]
    assert per_slot(sched, 1) == [2, 2, 4, 4, 0]


# ---------------------------------------------------------------- RRH

CRITICAL = (100.0, 5.0, 2.0)  # f(d) = 100 / (1 + exp(5 (d - 2)))
FLAT = (1.0, 0.0, 0.0)  # f(d) = 0.5 for every d


def test_rrh_pauses_low_value_job_for_critical_one():
    """RRH pauses a running flat-utility job when a time-critical job arrives."""
    # 2 GPUs, both jobs N = 4 -> fixed 2 workers = the whole cluster
    # (share 1).  X (flat, work 8) starts alone at slot 1.  At slot 2 Y
    # (critical, work 4 -> 2 slots) arrives:
    #   reward_Y = f_Y(2+2-1-2) - 1 * [V_X(2) - V_X(4)] = 99.33 - (0.5 - 0.5) > 0
    #   reward_X = 0.5 - 1 * [V_Y(2) - V_Y(2+3)] = 0.5 - (99.33 - 0.0045) < 0
    # so X pauses, Y runs slots 2-3, X resumes at 4 for its remaining 6: 4-6.
    inst = cluster(
        [job(1, 4, 8.0, gamma=FLAT), job(2, 4, 4.0, gamma=CRITICAL)],
        n_slots=10,
        gpus=2.0,
    )
    sched = rrh(inst)
    assert per_slot(sched, 0) == [2, 0, 0, 2, 2, 2, 0, 0, 0, 0]
    assert per_slot(sched, 1) == [0, 2, 2, 0, 0, 0, 0, 0, 0, 0]
    ev = check(inst, sched)
    assert ev.objective == pytest.approx(0.5 + 100.0 / (1.0 + math.exp(-5.0)))
    # FIFO, for contrast, makes Y wait until X completes in slot 4
    assert check(inst, fifo(inst)).completion.tolist() == [4, 6]


def test_rrh_rejects_job_whose_delay_cost_exceeds_its_utility():
    """RRH rejects a low-value arrival that would delay a critical running job."""
    # Y (critical, work 4, 2 workers) runs slots 1-2.  X (flat) arrives in 2:
    #   reward_X = V_X(2) - 1 * [V_Y(2) - V_Y(2 + 4)]
    #            = 0.5 - (f_Y(1) - f_Y(5)) = 0.5 - (99.33 - 3e-5) < 0.
    inst = cluster(
        [job(1, 4, 4.0, gamma=CRITICAL), job(2, 4, 8.0, gamma=FLAT)],
        n_slots=10,
        gpus=2.0,
    )
    sched = rrh(inst)
    assert sched.admitted.tolist() == [True, False]
    assert sched.meta["rejected"].tolist() == [1]
    assert not sched.workers[1].any()


# --------------------------------------------------------------- Dorm


def test_dorm_fills_the_cluster():
    """Dorm's MILP uses all 4 GPUs for two jobs capped at 3 workers each."""
    inst = cluster([job(1, 3, 3.0), job(1, 3, 3.0)], n_slots=6, gpus=4.0)
    sched = dorm(inst)
    a, b = per_slot(sched, 0)[0], per_slot(sched, 1)[0]
    # max utilization: a + b = 4 GPUs; fairness 0.5 of DRF's 2 -> each >= 1
    assert a + b == 4 and min(a, b) >= 1


def test_dorm_full_fairness_is_drf_share():
    """With fairness=1 each job keeps at least its DRF share, here exactly 2 of 4."""
    # 2 + 2 workers in slots 1-2 complete both works of 3
    inst = cluster([job(1, 3, 3.0), job(1, 3, 3.0)], n_slots=6, gpus=4.0)
    sched = dorm(inst, params=DormParams(fairness=1.0))
    assert per_slot(sched, 0) == [2, 2, 0, 0, 0, 0]
    assert per_slot(sched, 1) == [2, 2, 0, 0, 0, 0]


def test_dorm_adjustment_limit_keeps_running_job():
    """With max_adjust=0 Dorm leaves the running job as is; with 1 it shrinks it for utilization."""

    # Resources (gpu, cpu, bw); worker server (5, 100, 100).  A: <1, 1, 1>,
    # N=4, work 40; B (arrives 2): <1, 45, 1>, N=4, work 4.  Utilization per
    # worker u_A = (1/5 + 1/100 + 1/100)/3 = 0.0733, u_B = (1/5 + 45/100 +
    # 1/100)/3 = 0.22.  Slot 1: A alone -> N_A = 4 workers.  Slot 2: DRF
    # fair shares are A 3, B 2, so fairness 0.5 asks >= 1 each.
    # * max_adjust=0: A stays at 4, B gets the one free GPU: 1 worker, done
    #   after slots 2-5; A (4 per slot) is done after slot 10.
    # * max_adjust=1: A=3, B=2 (0.66) beats A=4, B=1 (0.51); B=3 needs
    #   135 cpu > 100.
    def inst_(T):
        ps = (0.0, 1.0, 10.0)
        return OasisInstance(
            n_slots=T,
            resources=("gpu", "cpu", "bandwidth"),
            worker_servers=((5.0, 100.0, 100.0),),
            ps_servers=((0.0, 100.0, 100.0),),
            jobs=(
                job(1, 4, 40.0, demand=(1.0, 1.0, 1.0), ps_demand=ps),
                job(2, 4, 4.0, demand=(1.0, 45.0, 1.0), ps_demand=ps),
            ),
        )

    inst = inst_(12)
    sched = dorm(inst, params=DormParams(max_adjust=0))
    assert per_slot(sched, 0) == [4] * 10 + [0, 0]
    assert per_slot(sched, 1) == [0, 1, 1, 1, 1] + [0] * 7
    check(inst, sched)
    sched = dorm(inst, params=DormParams(max_adjust=1))
    assert per_slot(sched, 0)[:2] == [4, 3]
    assert per_slot(sched, 1)[:3] == [0, 2, 2]
    check(inst, sched)


def test_dorm_limits_its_solves_by_nodes_not_by_the_clock(monkeypatch):
    """By default each of Dorm's solves is capped by the node limit only (no
    wall-clock limit, so the schedule does not depend on the machine's
    load); an explicit ``time_limit`` is passed on."""
    from optsched.oasis import baselines

    seen: list[tuple[object, object]] = []
    real = baselines.solve

    def spy(model, **kw):
        seen.append(
            (kw.get("time_limit"), (kw.get("options") or {}).get("mip_max_nodes"))
        )
        return real(model, **kw)

    monkeypatch.setattr(baselines, "solve", spy)
    inst = generate(3, n_jobs=8, n_slots=12, n_worker_servers=3, n_ps_servers=3)
    check(inst, dorm(inst))
    assert seen and set(seen) == {(None, 200)}
    seen.clear()
    check(inst, dorm(inst, params=DormParams(time_limit=5.0)))
    assert seen and {t for t, _ in seen} == {5.0}
    with pytest.raises(ValueError, match="time_limit.*-1"):
        dorm(inst, params=DormParams(time_limit=-1.0))


def test_dorm_survives_tiny_time_limit():
    """Dorm with a 1 ms time limit still returns a schedule that passes the checker."""
    inst = generate(3, n_jobs=8, n_slots=12, n_worker_servers=3, n_ps_servers=3)
    check(inst, dorm(inst, params=DormParams(time_limit=1e-3)))


# ------------------------------------------------- shared: unfinished jobs


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_job_that_cannot_finish_is_not_admitted(name):
    """A job needing 10 worker-slots with N=2 cannot finish in T=4 slots and is reported empty."""
    # at most N * T = 2 * 4 = 8 < 10 worker-slots fit in the horizon
    inst = cluster([job(1, 2, 10.0)], n_slots=4)
    sched = BASELINES[name](inst)
    assert not sched.admitted[0]
    assert not sched.workers.any() and not sched.ps.any()
    assert check(inst, sched).objective == 0.0


def test_invalid_parameters_raise():
    """Out-of-range baseline parameters raise ValueError naming the parameter."""
    inst = cluster([job(1, 2, 2.0)], n_slots=3)
    with pytest.raises(ValueError, match="n_workers"):
        fifo(inst, params=FifoParams(n_workers=0))
    with pytest.raises(ValueError, match="fairness"):
        dorm(inst, params=DormParams(fairness=1.5))
    with pytest.raises(ValueError, match="max_adjust"):
        dorm(inst, params=DormParams(max_adjust=-1))
