"""OASiS local search: checked, never worse than the start, never above the optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.oasis.check import check
from optsched.oasis.instance import Job, OasisInstance, generate
from optsched.oasis.local_search import MODES, improve, insert, neighbours, usage
from optsched.oasis.paper import default_start
from optsched.oasis.schedule import OasisSchedule


def test_hand_instance_reaches_the_optimum_from_empty(hand):
    # By hand (tests/oasis/conftest.py): the one PS server holds one PS, so
    # A (2 workers x 2 slots, f_A = 10 / 2 = 5 whenever it ends) and B (1
    # worker-slot from slot 2, f_B(d) = 20 / (1 + e^(d - 1))) never share a
    # slot.  Best: B in slot 2 (d = 0), A in slots 1 and 3: 5 + 20 / (1 + e^-1).
    inst, _ = hand
    sched, tr = improve(inst, OasisSchedule.empty(inst, "empty"), time_limit=None)
    want = 5.0 + 20.0 / (1.0 + math.exp(-1.0))
    assert check(inst, sched).objective == pytest.approx(want, rel=1e-12)
    assert tr.objective == pytest.approx(want, rel=1e-12)
    assert tr.start == 0.0 and tr.stop == "local_optimum"


def _blocking_instance() -> OasisInstance:
    """One worker server that fits one worker; two jobs of 2 worker-slots, T = 2.

    Only one job can run (each needs both slots).  ``gamma2 = 0``: constant
    utilities ``gamma1 / 2`` = 0.5 (job 0) and 5 (job 1).
    """
    job = dict(
        arrival=1, epochs=1, chunks=1, minibatches=2, tau=1.0, grad_mb=0.0,
        worker_demand=(1.0, 1.0), ps_demand=(1.0, 1.0), gamma2=0.0, gamma3=1.0,
    )  # fmt: skip
    return OasisInstance(
        n_slots=2,
        resources=("cpu", "bandwidth"),
        worker_servers=((1.0, 10.0),),
        ps_servers=((1.0, 10.0),),
        jobs=(Job(gamma1=1.0, **job), Job(gamma1=10.0, **job)),  # type: ignore
    )


def test_swap_drops_the_low_utility_job_for_the_better_one():
    inst = _blocking_instance()
    assert inst.work.tolist() == [2.0, 2.0]
    start = OasisSchedule.empty(inst, "hand")
    start.admitted[0] = True
    start.workers[0, 0, :] = 1
    start.ps[0, 0, :] = 1
    assert check(inst, start).objective == pytest.approx(0.5)
    sched, tr = improve(inst, start, time_limit=None)
    assert sched.admitted.tolist() == [False, True]
    assert check(inst, sched).objective == pytest.approx(5.0)
    # the swap move itself (the greedy rebuild of a start finds it as well)
    moves = dict(neighbours(inst, start, np.random.default_rng(0)))
    assert check(inst, moves["swap 0->1"]).objective == pytest.approx(5.0)


def test_insert_uses_exactly_the_work_and_finishes_earliest():
    inst = generate(seed=3, n_jobs=4, n_slots=12, n_worker_servers=2, n_ps_servers=2)
    empty = OasisSchedule.empty(inst)
    g, v = usage(inst, empty)
    for i in range(inst.n_jobs):
        maybe = {m: insert(inst, i, g, v, mode=m) for m in MODES}
        if maybe["late"] is None:
            assert all(y is None for y in maybe.values())
            continue
        got = {m: y for m, y in maybe.items() if y is not None}
        assert len(got) == len(MODES)
        last = {}
        for m, (y, _) in got.items():
            assert y.sum() == math.ceil(inst.work[i] - 1e-9)  # no surplus work
            n = y.sum(axis=0)
            assert n.max() <= inst.N[i]
            last[m] = int(np.flatnonzero(n)[-1]) + 1
        # on an empty cluster nothing else limits the job: its earliest
        # completion is a_i + ceil(W_i / n_max) - 1, n_max its peak count
        peak = got["early"][0].sum(axis=0).max()
        earliest = inst.arrival[i] + math.ceil(got["early"][0].sum() / peak) - 1
        assert last["late"] == last["early"] == earliest
        f = [inst.utility(i, last[m] - inst.arrival[i]) for m in ("late", "lazy")]
        assert last["lazy"] >= earliest and f[1] >= (1 - 1e-6) * f[0]
    with pytest.raises(ValueError, match="mode"):
        insert(inst, 0, g, v, mode="middle")


def test_lazy_insert_of_a_constant_utility_job_ends_at_the_horizon():
    # job 1 of the blocking instance alone: 1 worker per slot, W = 2, T = 2,
    # constant utility; with T = 5 (same jobs) lazy ends in slot 5, late in 2
    inst = _blocking_instance()
    inst = OasisInstance(
        n_slots=5,
        resources=inst.resources,
        worker_servers=inst.worker_servers,
        ps_servers=inst.ps_servers,
        jobs=inst.jobs,
    )
    g, v = usage(inst, OasisSchedule.empty(inst))
    lazy, late = insert(inst, 1, g, v, mode="lazy"), insert(inst, 1, g, v, mode="late")
    assert lazy is not None and late is not None
    assert lazy[0][0].tolist() == [0, 0, 0, 1, 1]
    assert late[0][0].tolist() == [1, 1, 0, 0, 0]


@pytest.mark.parametrize("seed", range(6))
def test_tiny_instances_never_beat_the_proven_optimum(seed):
    # the MILP proves these in < 0.2 s (an optimum below a checked schedule
    # would be a bug of the search or of the solver)
    p = optsched.get_paper("oasis")
    inst = p.generate(
        seed=seed, n_jobs=8, n_slots=12, n_worker_servers=2, n_ps_servers=2
    )
    start = default_start(inst)
    sched, tr = improve(inst, start, time_limit=None, strategy="best")
    ev = p.check(inst, sched)
    assert ev.objective >= p.check(inst, start).objective
    opt = p.solve_offline(inst, time_limit=120)
    assert opt.status == "optimal"
    assert ev.objective <= opt.objective * (1 + 1e-9) + 1e-9


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    n_jobs=st.integers(1, 8),
    n_slots=st.integers(2, 14),
    ls_seed=st.integers(0, 3),
)
def test_random_small_instances_checked_and_not_worse(seed, n_jobs, n_slots, ls_seed):
    p = optsched.get_paper("oasis")
    inst = p.generate(
        seed=seed, n_jobs=n_jobs, n_slots=n_slots, n_worker_servers=2, n_ps_servers=2
    )
    start = default_start(inst)
    assert start is not None
    sched, tr = improve(inst, start, time_limit=None, seed=ls_seed, max_evaluations=60)
    ev = p.check(inst, sched)  # raises if infeasible
    assert ev.objective == tr.objective
    assert ev.objective >= p.check(inst, start).objective
    objs = [tr.start] + [o for _, o in tr.accepted]
    assert all(b > a for a, b in zip(objs, objs[1:], strict=False))


def test_same_seed_same_schedule():
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=7, n_jobs=8, n_slots=12, n_worker_servers=2, n_ps_servers=2)
    a, ta = improve(inst, time_limit=None, seed=1, max_evaluations=40)
    b, tb = improve(inst, time_limit=None, seed=1, max_evaluations=40)
    assert ta.accepted == tb.accepted
    assert np.array_equal(a.workers, b.workers) and np.array_equal(a.ps, b.ps)


@pytest.mark.parametrize("seed", range(4))
def test_max_workers_agrees_with_alg2_slot_cost_curve(seed):
    # the vectorised count must be the last finite entry of Alg. 2's COST_t
    # curve (optsched.oasis.online.slot_cost_curve) on a half-full cluster
    from optsched.oasis.local_search import max_workers
    from optsched.oasis.online import slot_cost_curve

    inst = generate(seed=seed, n_jobs=12, n_slots=8, n_worker_servers=3, n_ps_servers=2)
    g, v = usage(inst, optsched.get_paper("oasis").run("oasis", inst))
    H, K, R = inst.n_worker_servers, inst.n_ps_servers, inst.n_resources
    for i in range(inst.n_jobs):
        got = max_workers(inst, i, g, v)
        for t in range(inst.n_slots):
            cost = slot_cost_curve(
                inst, i, np.zeros((H, R)), np.zeros((K, R)), g[:, :, t], v[:, :, t]
            )
            assert got[t] == np.flatnonzero(np.isfinite(cost)).max()
