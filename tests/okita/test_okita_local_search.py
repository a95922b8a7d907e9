"""Okita local search: checked, never worse than the start, never below the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.okita import paper as okita_paper
from optsched.okita.check import check
from optsched.okita.instance import Job, LatencyCost, OkitaInstance, Site, generate
from optsched.okita.local_search import (
    ANY_PS,
    LEVELS,
    META_KEY,
    Plan,
    decode,
    improve,
    levels,
    neighbours,
    seed_plans,
)
from optsched.okita.paper import default_start, online_start
from optsched.okita.schedule import local_first


def _two_site_instance() -> OkitaInstance:
    """Two sites of 1 GPU each, one job with 2 chunks on each site.

    ``q^{01} = q^{10} = 0.1`` per MB; resources (gpu, vcpu), capacities
    (1, 4) on both sites.  The job: ``a = 1``, ``D = (2, 2)``, ``E = 1``,
    ``rho = 2`` (one worker trains 2 chunks per slot), worker (1, 1), PS
    (0, 1), ``delta = 10`` MB, ``pi = 100`` MB, ``f(d) = 4 d + 50``, ``T = 2``.
    """
    return OkitaInstance(
        n_slots=2,
        sites=(Site((1.0, 4.0), "a"), Site((1.0, 4.0), "b")),
        bandwidth_cost=((0.0, 0.1), (0.1, 0.0)),
        resources=("gpu", "vcpu"),
        jobs=(
            Job(
                arrival=1,
                data=(2, 2),
                epochs=1,
                rho=2.0,
                worker_demand=(1.0, 1.0),
                ps_demand=(0.0, 1.0),
                chunk_mb=10.0,
                param_mb=100.0,
                cost=LatencyCost.linear(4.0, 50.0),
            ),
        ),
    )


def test_hand_instance_trades_latency_for_exchange():
    # By hand.  One GPU per site: a site trains at most 2 chunks per slot.
    # local_first trains all 4 chunks in slot 1 (one worker per site, PS on
    # site 0): duration 0, latency f(0) = 50, exchange pi q^{10} y = 100 x
    # 0.1 x 1 = 10, total 60.  Finishing in slot 1 needs both sites, so one
    # worker is remote (exchange 10) whatever the PS site: 60 is the best
    # with duration 0.  With duration 1: site 0's chunks in slot 1 with the
    # PS on site 0, site 1's chunks in slot 2 with the PS on site 1: no
    # transfer, no exchange, latency f(1) = 54 (moving site 1's chunks to
    # site 0 instead costs 2 x 10 x 0.1 = 2 more).  Optimum 54: the search
    # must find the move from 60 to 54 (level 0: chunks only on the PS site).
    inst = _two_site_instance()
    start = local_first(inst)
    ev0 = check(inst, start)
    assert ev0.objective == pytest.approx(60.0, rel=1e-12)
    assert ev0.exchange_cost == pytest.approx(10.0, rel=1e-12)
    sched, tr = improve(inst, start, time_limit=None)
    ev = check(inst, sched)
    assert ev.objective == pytest.approx(54.0, rel=1e-12)
    assert tr.start == pytest.approx(60.0) and tr.objective == ev.objective
    assert ev.bandwidth_cost == 0.0 and ev.completion.tolist() == [2]
    assert sorted(sched.ps[:, 2].tolist()) == [0, 1]  # the PS moves with the data
    assert sched.algorithm == "local_first+ls"
    # the plan that gives it, decoded directly
    assert levels(inst, 0)[0] == 0.0
    plan = Plan((0,), (ANY_PS,), (0,), (True,), (False,), (ANY_PS,))
    direct = decode(inst, plan)
    assert direct is not None
    assert check(inst, direct).objective == pytest.approx(54.0, rel=1e-12)
    # the MILP agrees with the hand computation
    opt = optsched.get_paper("okita").solve_offline(inst, time_limit=60)
    assert opt.status == "optimal"
    assert opt.objective == pytest.approx(54.0, rel=1e-9)


def test_undecodable_plan_and_bad_fields():
    inst = _two_site_instance()
    # PS fixed on site 0 and level 0: site 1's chunks are never trained by T
    plan = Plan((0,), (0,), (0,), (True,), (False,), (ANY_PS,))
    assert decode(inst, plan) is None
    good = dict(
        order=(0,), ps=(ANY_PS,), level=(0,), reserve=(True,), frugal=(False,),
        first=(ANY_PS,),
    )  # fmt: skip
    for field, bad, msg in (
        ("order", (1,), "order"),
        ("ps", (2,), r"ps\[0\]"),
        ("level", (LEVELS,), r"level\[0\]"),
        ("first", (-2,), r"first\[0\]"),
        ("reserve", (True, False), "reserve"),
    ):
        with pytest.raises(ValueError, match=msg):
            decode(inst, Plan(**{**good, field: bad}))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(4))
def test_tiny_instances_never_beat_the_proven_optimum(seed):
    # the MILP proves these in well under a second (a checked schedule below a
    # proven optimum would be a bug of the search, the checker or the solver)
    p = optsched.get_paper("okita")
    n_sites, n_jobs = ((2, 3), (3, 2), (3, 3), (2, 4))[seed]
    inst = generate(seed, n_sites, n_jobs, 10)
    start = online_start(inst)
    assert start is not None
    sched, tr = improve(inst, start, time_limit=None, strategy="best")
    ev = check(inst, sched)
    assert ev.objective == tr.objective
    assert ev.objective <= check(inst, start).objective
    opt = p.solve_offline(inst, time_limit=120)
    assert opt.status == "optimal"
    assert ev.objective >= opt.objective * (1 - 1e-9) - 1e-9


def test_search_is_deterministic_and_every_accepted_move_improves():
    inst = generate(1, 3, 6, 16)  # about 280 candidates to a local optimum
    start = local_first(inst)
    runs = [improve(inst, start, time_limit=None, max_evaluations=150) for _ in "ab"]
    (a, ta), (b, tb) = runs
    for col in ("workers", "ps", "data"):
        assert np.array_equal(getattr(a, col), getattr(b, col))
    assert ta.accepted == tb.accepted and ta.n_candidates == tb.n_candidates == 150
    assert ta.stop == "max_evaluations"
    values = [ta.start, *(v for _, v in ta.accepted)]
    assert all(x > y for x, y in zip(values, values[1:], strict=False))
    assert isinstance(a.meta[META_KEY], Plan)
    assert check(inst, a).objective == ta.objective < ta.start


def test_neighbourhood_seeds_then_moves_all_checked():
    inst = generate(1, 3, 3, 12)
    start = local_first(inst)
    seeds = seed_plans(inst, start)
    assert len(seeds) == 4
    got = list(neighbours(inst, start, np.random.default_rng(0)))
    labels = [lab for lab, _ in got]
    assert labels[0].startswith("seed")
    assert any(lab.startswith("level") for lab in labels)
    assert any(lab.startswith("move") or lab.startswith("swap") for lab in labels)
    for _, cand in got[:40]:
        check(inst, cand)  # decoded schedules are feasible by construction


def test_default_start_improves_local_first(monkeypatch):
    inst = generate(0, 3, 4, 16)
    lf = local_first(inst)
    st_ = default_start(inst)
    assert st_ is not None and st_.algorithm == "local_first+ls"
    assert check(inst, st_).objective < check(inst, lf).objective
    again = default_start(inst)
    assert again is not None and np.array_equal(again.workers, st_.workers)
    monkeypatch.setattr(okita_paper, "START_EVALUATIONS", 0)
    plain = default_start(inst)
    assert plain is not None and plain.algorithm == "local_first"


def test_improve_without_start():
    inst = generate(2, 2, 2, 10)
    sched, tr = improve(inst, time_limit=None, max_evaluations=30)
    assert tr.start == check(inst, local_first(inst)).objective
    assert check(inst, sched).objective <= tr.start
    # T = 1 is too short for local_first: no start to improve
    short = OkitaInstance(
        n_slots=1,
        sites=inst.sites,
        bandwidth_cost=inst.bandwidth_cost,
        jobs=tuple(
            Job(**{**j.__dict__, "arrival": 1, "data": (1000,) * inst.n_sites})
            for j in inst.jobs
        ),
        resources=inst.resources,
    )
    assert online_start(short) is None
    with pytest.raises(ValueError, match="start"):
        improve(short)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_sites=st.integers(2, 3),
    n_jobs=st.integers(1, 5),
    n_slots=st.integers(8, 14),
    ls_seed=st.integers(0, 3),
)
def test_random_small_instances_checked_and_not_worse(
    seed, n_sites, n_jobs, n_slots, ls_seed
):
    try:
        inst = generate(seed, n_sites, n_jobs, n_slots)
    except InvalidInstanceError:  # no room for a PS (two p2.xlarge sites), short T
        assume(False)
    start = online_start(inst)
    assert start is not None  # the generator's calibration witness
    sched, tr = improve(inst, start, time_limit=None, seed=ls_seed, max_evaluations=40)
    ev = check(inst, sched)  # raises if infeasible
    assert ev.objective == tr.objective <= check(inst, start).objective
    assert tr.n_candidates <= 40
