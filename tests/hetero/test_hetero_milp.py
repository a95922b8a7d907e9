"""Exact MILP of P1 (models/hetero.py): outer approximation vs brute force, Sec. IV-A, bounds."""

import itertools
import math

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optsched.models.hetero import (
    add_tangent_cuts,
    build_model,
    extract_schedule,
    solve_exact,
)

from optsched.core.solver import solve
from optsched.hetero.baselines import exhaustive_search
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example, generate
from optsched.hetero.schedule import HeteroPlacement


def _assignments(S, K):
    """Every assignment worker -> job with each job getting a worker ((8b)-(8d))."""
    for a in itertools.product(range(S), repeat=K):
        if len(set(a)) == S:
            yield np.array(a)


def _brute_force(inst):
    """Optimum of P1 by the checker over all assignments with the split (12) on rho*."""
    return min(
        check(inst, HeteroPlacement.from_assignment(inst, a, rho=inst.rho)).objective
        for a in _assignments(inst.n_jobs, inst.n_workers)
    )


@st.composite
def _instances(draw, communication):
    S = draw(st.integers(1, 3))
    K = draw(st.integers(S, 7))
    if draw(st.booleans()):  # few distinct values: many identical workers and jobs
        vals = st.integers(1, 3).map(lambda x: 100.0 * x)
    else:
        vals = st.floats(10.0, 2000.0)
    rho = draw(st.lists(st.lists(vals, min_size=K, max_size=K), min_size=S, max_size=S))
    same_jobs = draw(st.booleans())
    jobs = []
    for i in range(S):
        if same_jobs and i > 0:
            jobs.append(
                Job(
                    f"j{i}", jobs[0].dataset_size, jobs[0].epochs, jobs[0].model_size_mb
                )
            )
            rho[i] = list(rho[0])
        else:
            jobs.append(
                Job(
                    f"j{i}",
                    draw(st.integers(1, 100_000)),
                    draw(st.integers(1, 200)),
                    draw(st.sampled_from([0.0, 9.9, 45.1, 170.0])),
                )
            )
    rates = st.sampled_from([1.0, 10.0, 50.0, 300.0])
    inter, intra = sorted((draw(rates), draw(rates)))  # validated: inter <= intra
    return HeteroInstance(
        jobs=tuple(jobs),
        workers=tuple(Worker("g", draw(st.integers(0, 2))) for _ in range(K)),
        throughput=tuple(tuple(r) for r in rho),
        intra_gbps=intra,
        inter_gbps=inter,
        communication=communication,
    )


@pytest.mark.parametrize("communication", [False, True])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_optimum_equals_brute_force(communication, data):
    """solve_exact == brute force over all sigma (and == exhaustive search), bound <= optimum."""
    inst = data.draw(_instances(communication))
    res = solve_exact(inst)
    opt = _brute_force(inst)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(opt, rel=1e-9)
    assert res.bound <= opt * (1 + 1e-12)  # float summation order only
    assert res.objective - res.bound <= 1e-9 * res.objective
    assert check(inst, res.schedule).objective == res.objective
    _, val, finished = exhaustive_search(inst, inst.rho, None, None)
    assert finished and val == pytest.approx(opt, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_single_milp_equals_brute_force_of_its_underestimator(data):
    """One HiGHS solve with few tangents == brute-force minimum of the same piecewise-linear model."""
    inst = data.draw(_instances(data.draw(st.booleans())))
    S, K = inst.n_jobs, inst.n_workers
    rho = inst.rho
    M = K - S + 1
    top = -np.sort(-rho, axis=1)
    hi = np.cumsum(top, axis=1)  # hi[i, m - 1]: sum of the m largest
    pts = [
        sorted(data.draw(st.lists(st.floats(rho[i].min(), hi[i, M - 1]), max_size=2)))
        for i in range(S)
    ]
    model = build_model(inst, cuts=pts)
    # add_tangent_cuts gives identical jobs (same |Pi|, T, D, rho row) each other's cuts
    key = [
        (j.dataset_size, j.epochs, j.model_size_mb, *rho[i])
        for i, j in enumerate(inst.jobs)
    ]
    shared = [
        [p for j in range(S) if key[j] == key[i] for p in pts[j]] for i in range(S)
    ]
    res = solve(model)
    assert res.status == "optimal"
    c = inst.epochs * inst.dataset_size / S
    best = math.inf
    for a in _assignments(S, K):
        ev = check(inst, HeteroPlacement.from_assignment(inst, a, rho=inst.rho))
        total = 0.0
        for i in range(S):
            V, n = ev.throughput[i], int(ev.n_workers[i])
            lower = [c[i] / hi[i, M - 1], c[i] / hi[i, n - 1]]
            lower += [c[i] * (2 / v0 - V / v0**2) for v0 in [hi[i, M - 1], *shared[i]]]
            total += max(lower) + inst.epochs[i] / S * ev.comm_latency[i]
        best = min(best, total)
    assert res.objective == pytest.approx(best, rel=1e-7, abs=1e-6 * S)
    # the loaded solution is a placement whose true objective is >= the MILP value
    assert check(inst, extract_schedule(model, inst)).objective >= res.objective - 1e-6


def test_section_iv_a_example():
    """Sec. IV-A: optimum 10,592 s with ResNet-18 on {V100, V100} and VGG-19 on {T4, T4}."""
    inst = example()
    res = solve_exact(inst)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(10_592, abs=0.05)
    assert res.bound == pytest.approx(res.objective, rel=1e-9)
    p = res.schedule
    assert sorted(inst.gpu[k] for k in p.workers_of(0)) == ["V100", "V100"]
    assert sorted(inst.gpu[k] for k in p.workers_of(1)) == ["T4", "T4"]
    assert check(inst, p).objective == res.objective


@pytest.mark.parametrize(
    "kw",
    [
        {"seed": 0, "n_jobs": 4, "n_workers": 15},
        {"seed": 3, "n_jobs": 4, "n_workers": 12, "gpus_per_node": 3},
        {"seed": 1, "n_jobs": 5, "n_workers": 11, "gpus_per_node": 4},
        {"seed": 4, "n_jobs": 6, "n_workers": 10},  # four identical Transformer jobs
        {"seed": 2, "n_jobs": 4, "n_workers": 20, "communication": False},
    ],
)
def test_generated_instances_equal_exhaustive(kw):
    """On the paper's setting (nodes of 5, 3 GPU types) the MILP optimum equals exhaustive search."""
    inst = generate(**kw)
    res = solve_exact(inst)
    _, val, finished = exhaustive_search(inst, inst.rho, 2_000_000, None)
    assert finished and res.status == "optimal"
    assert res.objective == pytest.approx(val, rel=1e-9)
    assert res.bound <= val * (1 + 1e-12)
    assert check(inst, res.schedule).objective == res.objective


def test_time_limit_keeps_a_valid_bound():
    """A 0.1 s budget at S = 6, K = 30 gives "time_limit" with bound <= optimum <= incumbent."""
    inst = generate(0, n_jobs=6, n_workers=30)
    res = solve_exact(inst, time_limit=0.1)
    assert res.status == "time_limit"
    assert math.isfinite(res.objective) and res.bound <= res.objective
    assert check(inst, res.schedule).objective == res.objective
    full = solve_exact(inst, time_limit=120)
    assert full.status == "optimal"
    assert res.bound <= full.objective * (1 + 1e-12) <= res.objective * (1 + 1e-12)


def test_round_limit_is_not_optimal():
    """With 2 initial tangents and one round the gap stays open, so the status is not "optimal"."""
    inst = generate(0, n_jobs=4, n_workers=15)
    res = solve_exact(inst, cuts=2, max_rounds=1)
    assert res.status == "time_limit"
    assert res.schedule.meta["gap"] > 1e-9 and res.bound < res.objective
    assert res.bound <= solve_exact(inst).objective


def test_lp_relaxation_is_a_lower_bound():
    """The LP relaxation (relax=True) of the Sec. IV-A model is below the optimum 10,592 s."""
    inst = example()
    m = build_model(inst, relax=True)
    res = solve(m)
    assert res.status == "optimal"
    assert res.objective <= solve_exact(inst).objective
    assert all(v.domain is pyo.UnitInterval for v in m.sigma.values())


def test_named_components_and_cut_validation():
    """Constraint families carry (8b)-(8d), (13), (5) in their docs; tangents need V0 > 0."""
    inst = generate(0, n_jobs=3, n_workers=10)
    m = build_model(inst, cuts=4)
    assert "(8b)" in m.c8b_one_hot.doc and "(8b)" in m.c8b_worker_count.doc
    assert "(8c)" in m.c8c_all_workers.doc and "(8d)" in m.c8d_worker_once.doc
    assert "(13)" in m.c13_throughput.doc and "(5)" in m.c5_span.doc
    assert len(m.sigma) == 3 * 10 and all(v.is_binary() for v in m.sigma.values())
    assert len(m.n) == 3 * (10 - 3 + 1)
    with pytest.raises(ValueError, match="V0 > 0"):
        add_tangent_cuts(m, 0, [0.0])


@pytest.mark.parametrize("seed", range(4))
def test_mip_start_changes_the_search_not_the_optimum(seed: int) -> None:
    """solve_exact with and without the online start proves the same optimum, never above the start."""
    from optsched.models.hetero import start_placement

    from optsched.hetero.paper import default_start

    inst = generate(seed, 3, 7)
    online = default_start(inst)
    sched, ev = start_placement(inst, online)
    assert check(inst, sched).objective == pytest.approx(ev.objective)
    a = solve_exact(inst, time_limit=60, threads=1, start=online)
    b = solve_exact(inst, time_limit=60, threads=1)
    assert a.status == b.status == "optimal"
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    assert a.objective <= ev.objective + 1e-9
