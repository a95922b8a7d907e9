"""OASiS MIP neighbourhood search and the MILP's ``used=`` capacity.

Known answers: a hand instance (two jobs, room for one), the full MILP with
the other jobs' variables fixed (an independent construction of the same
sub-problem), and the proven optimum of the whole instance.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models.oasis import (
    HIGHS_OPTIONS,
    build_model,
    extract_schedule,
    start_values,
)
from test_oasis_local_search import _blocking_instance

import optsched
from optsched.core.base import best_checked
from optsched.core.solver import solve
from optsched.oasis import lns
from optsched.oasis import paper as oasis_paper
from optsched.oasis.check import check
from optsched.oasis.instance import generate
from optsched.oasis.local_search import usage
from optsched.oasis.schedule import OasisSchedule

SMALL = dict(n_jobs=8, n_slots=12, n_worker_servers=2, n_ps_servers=2)
TINY = dict(n_jobs=6, n_slots=12, n_worker_servers=2, n_ps_servers=2)


def _normalised(inst, sched: OasisSchedule) -> OasisSchedule:
    """``sched`` moved into the MILP's dominance form (same checked value)."""
    model = build_model(inst)
    for var, val in start_values(model, inst, sched).items():
        var.set_value(val)
    out = extract_schedule(model, inst)
    assert check(inst, out).objective == pytest.approx(
        check(inst, sched).objective, rel=1e-12
    )
    return out


def _online(inst) -> OasisSchedule:
    p = optsched.get_paper("oasis")
    runs = (p.algorithms[n](inst) for n in oasis_paper.START_ALGORITHMS)
    best = best_checked(inst, runs, check, "max")
    assert best is not None
    return best


def test_hand_instance_two_jobs_one_slot_pair():
    # _blocking_instance: one server fits one worker, both jobs need both
    # slots; job 0 earns 0.5, job 1 earns 5.  Re-optimising job 1 alone
    # beside job 0 cannot admit it (no capacity left); both jobs together
    # give the optimum 5 (job 1 alone).
    inst = _blocking_instance()
    start = OasisSchedule.empty(inst, "hand")
    start.admitted[0] = True
    start.workers[0, 0, :] = 1
    start.ps[0, 0, :] = 1
    assert check(inst, start).objective == pytest.approx(0.5)
    alone = lns.lns_round(inst, start, [1])
    assert alone is not None
    assert check(inst, alone).objective == pytest.approx(0.5)
    assert not alone.admitted[1]
    both = lns.lns_round(inst, start, [0, 1])
    assert both is not None
    assert check(inst, both).objective == pytest.approx(5.0)
    assert both.admitted.tolist() == [False, True]
    best, tr = lns.improve(inst, start, rounds=1, k=2)
    assert check(inst, best).objective == pytest.approx(5.0)
    assert tr.start == pytest.approx(0.5) and tr.objective == pytest.approx(5.0)
    assert best.algorithm == "hand+lns"


@pytest.mark.parametrize("seed", [1, 3])
def test_used_capacity_equals_fixing_the_other_jobs(seed):
    # Sub-problem two ways: build_model(sub-instance, used=others' usage)
    # vs the full MILP with every variable of the other jobs fixed.
    inst = generate(seed, **SMALL)
    base = _normalised(inst, _online(inst))
    jobs = build_model(inst)._oasis["live"][:3]  # jobs that can finish
    assert len(jobs) == 3
    others = [i for i in range(inst.n_jobs) if i not in jobs]
    sub = lns.subinstance(inst, jobs)
    m1 = build_model(sub, used=usage(inst, base, drop=jobs))
    r1 = solve(m1, threads=1, options=HIGHS_OPTIONS)
    assert r1.status == "optimal"
    rest = float(check(inst, base).utility[others].sum())

    m2 = build_model(inst)
    for var, val in start_values(m2, inst, base).items():
        idx = var.index()
        if (idx[0] if isinstance(idx, tuple) else idx) in others:
            var.fix(val)
    r2 = solve(m2, threads=1, options=HIGHS_OPTIONS)
    assert r2.status == "optimal"
    assert r1.objective + rest == pytest.approx(r2.objective, rel=1e-9, abs=1e-9)
    merged = lns.lns_round(inst, base, jobs)
    assert merged is not None
    assert check(inst, merged).objective == pytest.approx(r2.objective, rel=1e-9)


def test_round_over_every_job_is_the_proven_optimum():
    inst = generate(3, **SMALL)
    start = _online(inst)
    res = optsched.get_paper("oasis").solve_offline(inst, time_limit=None, threads=1)
    assert res.status == "optimal"
    whole = lns.lns_round(inst, start, range(inst.n_jobs))
    assert whole is not None
    assert check(inst, whole).objective == pytest.approx(res.objective, rel=1e-9)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(1, 4))
def test_improve_is_checked_monotone_and_below_the_optimum(seed, k):
    inst = generate(seed, **TINY)
    start = _online(inst)
    s0 = check(inst, start).objective
    best, tr = lns.improve(inst, start, rounds=3, k=k, seed=seed)
    val = check(inst, best).objective  # raises if infeasible
    assert val >= s0 - 1e-9 and tr.objective == pytest.approx(val)
    assert tr.n_infeasible == 0 and len(tr.accepted) <= 3
    # the MILP's bound (its proven optimum when it finishes in time) caps it
    opt = optsched.get_paper("oasis").solve_offline(inst, time_limit=10, threads=1)
    assert val <= opt.bound * (1 + 1e-9) + 1e-9
    again, _ = lns.improve(inst, start, rounds=3, k=k, seed=seed)
    assert np.array_equal(again.workers, best.workers)
    assert np.array_equal(again.ps, best.ps)


def test_pick_is_seeded_sorted_and_sized():
    inst = generate(1, n_jobs=20, n_slots=10, n_worker_servers=2, n_ps_servers=2)
    a = lns.pick(inst, np.random.default_rng(5), 8)
    b = lns.pick(inst, np.random.default_rng(5), 8)
    assert a == b and a == sorted(set(a)) and len(a) == 8
    assert lns.pick(inst, np.random.default_rng(0), 30) == list(range(20))


def test_default_start_runs_the_lns_from_lns_min_jobs(monkeypatch):
    inst = generate(1, **SMALL)
    calls: list[tuple[int, float]] = []
    real = lns.improve

    def spy(inst_, start, **kw):
        best, tr = real(inst_, start, **kw)
        calls.append((tr.n_candidates, tr.objective))
        return best, tr

    monkeypatch.setattr(oasis_paper.lns, "improve", spy)
    plain = oasis_paper.default_start(inst)
    assert plain is not None and not calls  # below LNS_MIN_JOBS: no round
    assert not plain.algorithm.endswith(lns.SUFFIX)
    monkeypatch.setattr(oasis_paper, "LNS_MIN_JOBS", inst.n_jobs)
    with_lns = oasis_paper.default_start(inst)
    assert with_lns is not None
    # the search ran its default rounds from the local-search start and
    # default_start returned its (checked) result
    assert calls == [(lns.ROUNDS, pytest.approx(check(inst, with_lns).objective))]
    assert check(inst, with_lns).objective >= check(inst, plain).objective - 1e-9
    monkeypatch.setattr(oasis_paper, "LNS_MIN_JOBS", inst.n_jobs + 1)
    again = oasis_paper.default_start(inst)
    assert again is not None and len(calls) == 1
    assert np.array_equal(again.workers, plain.workers)


def test_used_none_and_zero_build_the_same_rows():
    inst = generate(0, **SMALL)
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    zero = (np.zeros((H, R, T)), np.zeros((K, R, T)))
    m0, m1 = build_model(inst), build_model(inst, used=zero)
    for name in ("c4_worker_capacity", "c5_ps_capacity"):
        c0, c1 = getattr(m0, name), getattr(m1, name)
        assert list(c0) == list(c1)
        assert all(pyo.value(c0[i].upper) == pyo.value(c1[i].upper) for i in c0)
