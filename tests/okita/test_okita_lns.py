"""Okita MIP neighbourhood search (optsched.okita.lns) and formulation v3 (the valid rows).

Known answers, none from the code under test: the enumeration of
``tests/okita/test_okita_milp.py`` (``brute_force``, ``_plans``: every
dominant plan of one job) for the optimum of tiny instances and for the
best re-optimisation of one job beside another job's fixed rows; the plain
MILP (``optsched.models.okita``, proven) for small generated instances,
also with the other jobs' variables fixed (an independent construction of
an LNS sub-problem).  Every schedule the code returns goes through
``check``.
"""

from __future__ import annotations

import math

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from optsched.models.okita import (
    ALL_CUTS,
    add_cuts,
    build_model,
    earliest_completion,
    extract_schedule,
    solve_offline,
    start_values,
)

from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import solve
from optsched.okita import check, generate, lns, local_first
from optsched.okita.local_search import online_start
from tests.okita.test_okita_milp import (
    _assert_feasible_point,
    _plans,
    brute_force,
    tiny,
)

REL = 1e-6
#: Tiny seeds of test_okita_milp.py (feasible and infeasible ones).
TINY_SEEDS = range(0, 40, 2)
SMALL = (2, 3, 8)  # generate(seed, R, I, T): proven in well under a second


def _all_cuts(inst, relax: bool = False):
    """Formulation v2 with every row family of ``add_cuts`` (``last_load`` too)."""
    model = build_model(inst, relax=relax, formulation="v2")
    add_cuts(model, inst, ALL_CUTS)
    return model


def _rows(sched) -> tuple[list, list, list]:
    return tuple(
        sorted(map(tuple, np.asarray(a).tolist()))
        for a in (sched.workers, sched.ps, sched.data)
    )  # type: ignore[return-value]


def _dense_usage(inst, sched, jobs) -> np.ndarray:
    """What ``jobs`` use per (slot, site, resource), written out loop by loop."""
    use = np.zeros((inst.n_slots + 1, inst.n_sites, inst.n_resources))
    for i, t, r, c in np.asarray(sched.workers).tolist():
        if i in jobs:
            for k in range(inst.n_resources):
                use[t, r, k] += inst.jobs[i].worker_demand[k] * c
    for i, t, r in np.asarray(sched.ps).tolist():
        if i in jobs:
            for k in range(inst.n_resources):
                use[t, r, k] += inst.jobs[i].ps_demand[k]
    return use


# --------------------------------------------------------------------------
# the cut rows: valid against brute force and proven optima
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", TINY_SEEDS)
def test_cuts_keep_the_brute_force_optimum(seed):
    inst = tiny(seed)
    value, sched = brute_force(seed)
    v3 = solve_offline(inst, time_limit=30.0, threads=1, formulation="v3")
    model = _all_cuts(inst)
    res = solve(model, time_limit=30.0, threads=1)
    lp = solve(_all_cuts(inst, relax=True), threads=1)
    if not math.isfinite(value):
        assert res.status == v3.status == "infeasible" and v3.schedule is None
        return
    assert res.status == v3.status == "optimal"
    assert v3.objective == pytest.approx(value, rel=REL, abs=1e-6)
    assert v3.bound <= value * (1 + 1e-7) + 1e-7
    assert check(inst, v3.schedule).objective == pytest.approx(value, rel=REL)
    assert res.objective == pytest.approx(value, rel=REL, abs=1e-6)
    got = check(inst, extract_schedule(model, inst)).objective
    assert got <= value * (1 + REL) + 1e-6  # the model's point, checked
    assert lp.objective <= value * (1 + 1e-7) + 1e-7
    # the enumeration's optimum (fewest workers, load in its last slot) is a
    # point of the model with every row, at its checked value
    model = _all_cuts(inst)
    got = _assert_feasible_point(model, start_values(model, inst, sched))
    assert got == pytest.approx(check(inst, sched).objective, rel=1e-9)


@pytest.mark.parametrize("seed", TINY_SEEDS)
def test_earliest_completion_below_the_brute_force_optimum(seed):
    value, sched = brute_force(seed)
    if sched is None:
        return
    inst = tiny(seed)
    done = check(inst, sched).completion
    assert (earliest_completion(inst) <= done).all()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), sizes=st.sampled_from([(2, 3, 8), (3, 4, 12)]))
def test_earliest_completion_below_every_checked_schedule(seed, sizes):
    try:
        inst = generate(seed, *sizes)
    except InvalidInstanceError:  # the generator found no instance: not a case
        assume(False)
    ev = check(inst, local_first(inst))
    assert (earliest_completion(inst) <= ev.completion).all()
    assert (earliest_completion(inst) >= inst.arrival).all()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cut_model_proves_the_plain_optimum(seed):
    inst = generate(seed, *SMALL, cost=("exp", "linear", "piecewise")[seed])
    plain = solve_offline(inst, time_limit=30.0, threads=1, formulation="v2")
    cut = solve_offline(
        inst, time_limit=30.0, threads=1, start=local_first(inst), formulation="v3"
    )
    assert plain.status == cut.status == "optimal"
    assert cut.objective == pytest.approx(plain.objective, rel=1e-7)
    assert check(inst, cut.schedule).objective == pytest.approx(cut.objective)
    assert cut.bound <= plain.objective * (1 + 1e-7)
    lp0 = solve(build_model(inst, relax=True, formulation="v2"), threads=1).objective
    lp1 = solve(build_model(inst, relax=True, formulation="v3"), threads=1).objective
    assert lp0 - 1e-6 <= lp1 <= plain.objective * (1 + 1e-7)


def test_unknown_cut_names_the_field():
    inst = tiny(0)
    with pytest.raises(ValueError, match="cuts: unknown.*'nope'"):
        add_cuts(build_model(inst), inst, ("nope",))


# --------------------------------------------------------------------------
# LNS pieces
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3])
def test_usage_restrict_merge(seed):
    inst = generate(seed, 3, 4, 12)
    sched = local_first(inst)
    drop = [1, 3]
    keep = {0, 2}
    assert np.allclose(lns.usage(inst, sched, drop), _dense_usage(inst, sched, keep))
    part = lns.restrict(sched, drop, "x")
    assert set(np.asarray(part.workers)[:, 0].tolist()) <= {0, 1}
    assert _rows(lns.merge(sched, drop, part, "x")) == _rows(sched)
    sub = lns.subinstance(inst, drop)
    assert check(sub, part).objective == pytest.approx(
        sum(
            float(check(inst, sched).latency[i] + check(inst, sched).transfer[i])
            + float(check(inst, sched).exchange[i])
            for i in drop
        )
    )


def test_pick_is_seeded_sorted_and_sized():
    inst = generate(1, 3, 8, 12)
    sched = local_first(inst)
    a = lns.pick(inst, sched, np.random.default_rng(5), 3)
    b = lns.pick(inst, sched, np.random.default_rng(5), 3)
    assert a == b and a == sorted(set(a)) and len(a) == 3
    assert lns.pick(inst, sched, np.random.default_rng(0), 30) == list(range(8))


#: Two-job tiny instances whose ``local_first`` the checker accepts.
PAIRS = [s for s in range(40) if tiny(s).n_jobs == 2 and online_start(tiny(s))][:6]


@pytest.mark.parametrize("seed", PAIRS)
def test_round_equals_enumeration_beside_the_other_job(seed):
    """Free one job of two, the other keeps its rows: the best plan of the
    freed job that fits in what the other leaves (enumerated)."""
    inst = tiny(seed)
    start = online_start(inst)
    assert start is not None
    ev = check(inst, start)
    for free in (0, 1):
        other = 1 - free
        used = _dense_usage(inst, start, {other})
        fits = [
            cost
            for cost, use, _ in _plans(inst, free)
            if (use + used <= inst.capacity[None] + 1e-9).all()
        ]
        expected = float(ev.latency[other] + ev.transfer[other] + ev.exchange[other])
        expected += min(fits)
        got = lns.lns_round(inst, start, [free], max_nodes=10**6, time_cap=30.0)
        assert got is not None
        assert check(inst, got).objective == pytest.approx(expected, rel=REL)


@pytest.mark.slow
def test_round_equals_the_full_milp_with_the_others_fixed():
    inst = generate(1, 3, 5, 12)
    base = local_first(inst)
    jobs = [1, 2]
    model = build_model(inst, formulation="v2")
    for var, val in start_values(model, inst, base).items():
        idx = var.index()
        if (idx[0] if isinstance(idx, tuple) else idx) not in jobs:
            var.fix(val)
    res = solve(model, threads=1)
    assert res.status == "optimal"
    got = lns.lns_round(inst, base, jobs, max_nodes=10**6, time_cap=60.0)
    assert got is not None
    assert check(inst, got).objective == pytest.approx(res.objective, rel=1e-7)
    assert pyo.value(model.obj) == pytest.approx(res.objective)


@pytest.mark.parametrize("seed", [0, 2])
def test_round_over_every_job_is_the_proven_optimum(seed):
    inst = generate(seed, *SMALL)
    res = solve_offline(inst, time_limit=30.0, threads=1, formulation="v1")
    assert res.status == "optimal"
    whole = lns.lns_round(inst, local_first(inst), range(inst.n_jobs), max_nodes=10**6)
    assert whole is not None
    assert check(inst, whole).objective == pytest.approx(res.objective, rel=1e-7)


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(1, 2))
def test_improve_is_checked_monotone_deterministic_and_above_the_optimum(seed, k):
    try:
        inst = generate(seed, *SMALL)
    except InvalidInstanceError:
        assume(False)  # the generator found no instance (110 of 10,001 seeds)
    start = local_first(inst)
    s0 = check(inst, start).objective
    best, tr = lns.improve(inst, start, rounds=2, k=k, seed=seed)
    val = check(inst, best).objective  # raises if infeasible
    assert val <= s0 + 1e-9 and tr.objective == pytest.approx(val)
    assert tr.start == pytest.approx(s0) and tr.n_infeasible == 0
    assert tr.n_candidates == 2 and len(tr.accepted) <= 2
    if tr.accepted:
        assert best.algorithm.endswith(lns.SUFFIX)
    opt = solve_offline(inst, time_limit=30.0, threads=1, formulation="v1")
    assert opt.status == "optimal"
    assert val >= opt.objective * (1 - 1e-7)
    again, _ = lns.improve(inst, start, rounds=2, k=k, seed=seed)
    assert _rows(again) == _rows(best)


def test_improve_time_limit_stops_before_a_round():
    inst = generate(0, *SMALL)
    start = local_first(inst)
    best, tr = lns.improve(inst, start, rounds=5, time_limit=0.0)
    assert tr.stop == "time_limit" and tr.n_candidates == 0
    assert _rows(best) == _rows(start)


def test_default_start_runs_the_lns_from_lns_min_size(monkeypatch):
    from optsched.okita import paper as okita_paper

    inst = generate(0, *SMALL)
    calls: list[tuple[int, float]] = []
    real = lns.improve

    def spy(inst_, start, **kw):
        best, tr = real(inst_, start, **kw)
        calls.append((tr.n_candidates, tr.objective))
        return best, tr

    monkeypatch.setattr(okita_paper.lns, "improve", spy)
    plain = okita_paper.default_start(inst)
    assert plain is not None and not calls  # 2 x 3 < LNS_MIN_SIZE: no round
    monkeypatch.setattr(okita_paper, "LNS_MIN_SIZE", inst.n_sites * inst.n_jobs)
    with_lns = okita_paper.default_start(inst)
    assert with_lns is not None
    # the search ran its default rounds and default_start returned its result
    assert calls == [(lns.ROUNDS, pytest.approx(check(inst, with_lns).objective))]
    assert check(inst, with_lns).objective <= check(inst, plain).objective + 1e-9
