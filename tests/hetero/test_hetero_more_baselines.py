"""Optimus, Optimus-LB and Gavel (Sec. VI-A): hand-computed cases, checker, split dominance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.hetero.baselines import (
    equal_workload,
    gavel,
    gavel_allocation,
    gavel_round,
    gavel_scale_factors,
    optimus,
    optimus_lb,
)
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example
from optsched.hetero.paper import PAPER
from optsched.hetero.schedule import HeteroPlacement, proportional_workload


@st.composite
def instances(draw, noise: bool = True):
    """Small instances with GPU-typed or arbitrary throughputs, random nodes and prediction."""
    S = draw(st.integers(1, 3))
    K = draw(st.integers(S, 7))
    typed = draw(st.booleans())
    types = draw(st.lists(st.integers(0, 2), min_size=K, max_size=K))
    if typed:
        tab = np.array(
            draw(st.lists(st.integers(20, 900), min_size=3 * S, max_size=3 * S)),
            dtype=float,
        ).reshape(S, 3)
        rho = tab[:, types]
    else:
        rho = np.array(
            draw(
                st.lists(
                    st.floats(5.0, 900.0, allow_nan=False),
                    min_size=S * K,
                    max_size=S * K,
                )
            )
        ).reshape(S, K)
    nodes = draw(st.lists(st.integers(0, 2), min_size=K, max_size=K))
    predicted = None
    if noise and draw(st.booleans()):
        eps = np.array(
            draw(st.lists(st.floats(0.7, 1.3), min_size=S * K, max_size=S * K))
        ).reshape(S, K)
        predicted = tuple(map(tuple, rho * eps))
    return HeteroInstance(
        jobs=tuple(
            Job(
                f"j{i}",
                draw(st.integers(100, 100_000)),
                draw(st.integers(1, 200)),
                draw(st.floats(0.0, 200.0, allow_nan=False)),
            )
            for i in range(S)
        ),
        workers=tuple(
            Worker(("T4", "P100", "V100")[t], n)
            for t, n in zip(types, nodes, strict=True)
        ),
        throughput=tuple(map(tuple, rho)),
        predicted=predicted,
        communication=draw(st.booleans()),
    )


def _gpus(inst, p, i):
    return sorted(inst.gpu[k] for k in p.workers_of(i))


# ----------------------------------------------------------------- Optimus, Optimus-LB


def test_optimus_sec_iv_a_by_hand():
    """Equal split: VGG-19 takes both T4s (gains +45.1 s, +1,885.7 s; ResNet-18's are < 0)."""
    # ResNet-18 {V100}: 200 * 1e5 / 644 = 31,055.9 s; VGG-19 {V100, T4, T4}:
    # 200 * 5e4 / (3 * 884) = 3,770.7 s; average 17,413.3 s.
    inst = example()
    p = optimus(inst)
    assert _gpus(inst, p, 0) == ["V100"]
    assert _gpus(inst, p, 1) == ["T4", "T4", "V100"]
    ev = check(inst, p)
    assert ev.jct == pytest.approx([200 * 1e5 / 644, 200 * 5e4 / (3 * 884)])
    assert ev.objective == pytest.approx(17_413.3, abs=0.05)
    gains = [g for _, _, g in p.meta["steps"][2:]]
    assert gains == pytest.approx(
        [
            200 * (5e4 / 1754 - 5e4 / (2 * 884)),
            200 * (5e4 / (2 * 884) - 5e4 / (3 * 884)),
        ]
    )


def test_optimus_lb_sec_iv_a_is_table_ii_3_1():
    """Proportional split: ResNet-18 takes both T4s (gains 9,294 s and 5,012 s), Table II's {3, 1}."""
    inst = example()
    p = optimus_lb(inst)
    assert _gpus(inst, p, 0) == ["T4", "T4", "V100"]
    assert _gpus(inst, p, 1) == ["V100"]
    assert check(inst, p).objective == pytest.approx(11_225.8, abs=0.05)
    assert np.allclose(
        p.workload, proportional_workload(inst.dataset_size, inst.rho, p.sigma)
    )


def test_equal_split_is_charged_its_straggler():
    """1,000 samples on 100 and 300 samples/s: equal split 500/100 = 5 s, proportional 2.5 s."""
    inst = HeteroInstance(
        jobs=(Job("a", 1_000, 1, 0.0),),
        workers=(Worker("T4", 0), Worker("V100", 0)),
        throughput=((100.0, 300.0),),
        communication=False,
    )
    sigma = np.ones((1, 2), dtype=int)
    eq = HeteroPlacement(sigma=sigma, workload=equal_workload(inst.dataset_size, sigma))
    assert eq.workload.tolist() == [[500.0, 500.0]]
    assert check(inst, eq).objective == pytest.approx(5.0)
    prop = HeteroPlacement.from_assignment(inst, [0, 0])
    assert check(inst, prop).objective == pytest.approx(2.5)


@settings(max_examples=50, deadline=None)
@given(instances())
def test_new_baselines_pass_checker(inst):
    """Optimus, Optimus-LB and Gavel's static placement satisfy (8a)-(8d) with their splits."""
    for fn in (optimus, optimus_lb, gavel):
        p = fn(inst)
        check(inst, p)
        assert p.algorithm == fn.__name__
    for fn in (optimus, gavel):
        p = fn(inst)
        assert np.allclose(p.workload, equal_workload(inst.dataset_size, p.sigma))
    p = optimus_lb(inst)
    assert np.allclose(
        p.workload, proportional_workload(inst.dataset_size, inst.rho_hat, p.sigma)
    )


@settings(max_examples=60, deadline=None)
@given(instances(noise=False))
def test_proportional_split_dominates_equal_split(inst):
    """On Optimus's placement the split (12) never loses, and wins when a job's workers differ."""
    p = optimus(inst)
    lb = HeteroPlacement.from_assignment(inst, p.assignment)
    eq_ev, lb_ev = check(inst, p), check(inst, lb)
    assert np.all(lb_ev.jct <= eq_ev.jct * (1 + 1e-12))
    for i in range(inst.n_jobs):
        r = inst.rho[i, p.workers_of(i)]
        if r.max() > r.min() * (1 + 1e-9):
            assert lb_ev.jct[i] < eq_ev.jct[i]
    assert lb_ev.objective <= eq_ev.objective * (1 + 1e-12)


# ----------------------------------------------------------------- Gavel


def test_gavel_allocation_by_hand():
    """One job, scale 2: two V100 (100/s) but one T4, so x = (1, 0) and s*100/V^Equal = 200/250."""
    inst = HeteroInstance(
        jobs=(Job("a", 1_000, 1, 0.0),),
        workers=(Worker("V100", 0), Worker("V100", 0), Worker("T4", 1)),
        throughput=((100.0, 100.0, 50.0),),
        communication=False,
    )
    al = gavel_allocation(inst, 2)
    assert al.types == ("V100", "T4") and al.counts.tolist() == [2, 1]
    assert al.x == pytest.approx(np.array([[1.0, 0.0]]), abs=1e-9)
    assert al.fairness == pytest.approx(0.8)


def test_gavel_allocation_two_jobs_by_hand():
    """Two equal jobs, one GPU of each type (100/s, 50/s), scale 1: half time each, F = 75/75 = 1."""
    inst = HeteroInstance(
        jobs=(Job("a", 1_000, 1, 0.0), Job("b", 1_000, 1, 0.0)),
        workers=(Worker("V100", 0), Worker("T4", 0)),
        throughput=((100.0, 50.0), (100.0, 50.0)),
        communication=False,
    )
    al = gavel_allocation(inst, 1)
    assert al.fairness == pytest.approx(1.0)
    assert al.x == pytest.approx(np.full((2, 2), 0.5), abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(instances(), st.data())
def test_gavel_allocation_and_round_constraints(inst, data):
    """x respects GPU capacity, time fractions and fit; a round gives each job s_i GPUs of one type."""
    counts = np.bincount(
        [("T4", "P100", "V100").index(g) for g in inst.gpu], minlength=3
    )
    hi = int(counts.max())
    s = data.draw(
        st.lists(st.integers(1, hi), min_size=inst.n_jobs, max_size=inst.n_jobs)
    )
    al = gavel_allocation(inst, s)
    x = al.x
    assert (x >= -1e-9).all() and (x.sum(axis=1) <= 1 + 1e-7).all()
    assert (al.scale_factor @ x <= al.counts + 1e-7).all()
    assert (x[al.scale_factor[:, None] > al.counts[None, :]] == 0).all()
    recv = np.array(
        data.draw(st.lists(st.floats(0, 1000), min_size=x.size, max_size=x.size))
    ).reshape(x.shape)
    a = gavel_round(al, recv)
    for i in range(inst.n_jobs):
        ws = np.flatnonzero(a == i)
        assert ws.size in (0, al.scale_factor[i])
        assert len({al.type_of[k] for k in ws}) <= 1
    assert (a >= 0).any()  # some job always fits on an empty cluster


def test_gavel_round_priorities_by_hand():
    """Two jobs share one 2-GPU type (x = 0.5 each, s = 2): the job with less received time runs."""
    inst = HeteroInstance(
        jobs=(Job("a", 1_000, 1, 0.0), Job("b", 1_000, 1, 0.0)),
        workers=(Worker("V100", 0), Worker("V100", 0)),
        throughput=((50.0, 50.0), (50.0, 50.0)),
        communication=False,
    )
    al = gavel_allocation(inst, 2)
    assert al.x == pytest.approx(np.array([[0.5], [0.5]]))
    assert gavel_round(al, np.zeros((2, 1))).tolist() == [0, 0]  # tie: job order
    assert gavel_round(al, np.array([[360.0], [0.0]])).tolist() == [1, 1]
    assert gavel_round(al, np.array([[720.0], [360.0]])).tolist() == [1, 1]
    assert gavel_round(al, np.array([[360.0], [720.0]])).tolist() == [0, 0]
    assert gavel_round(al, np.zeros((2, 1)), active=[False, True]).tolist() == [1, 1]


def test_gavel_scale_factor_validation():
    """The default scale factor is the smallest GPU count per type; oversized requests are rejected."""
    inst = example()  # 2 T4, 2 V100
    assert gavel_scale_factors(inst).tolist() == [2, 2]
    assert gavel_scale_factors(inst, [1, 2]).tolist() == [1, 2]
    with pytest.raises(ValueError):
        gavel_scale_factors(inst, 3)
    with pytest.raises(ValueError):
        gavel_scale_factors(inst, [1, 2, 2])


# ----------------------------------------------------------------- registry


def test_registry_order_and_optimum():
    """PAPER lists has, jps, then the baselines; every one passes the checker and is >= OPT."""
    assert list(PAPER.algorithms) == [
        "has",
        "jps",
        "optimus",
        "optimus_lb",
        "exhaustive",
        "gavel",
        "las",
    ]
    assert set(PAPER.reported_ratio) <= set(PAPER.algorithms)
    assert PAPER.reported_ratio["has"] == (1.0, 1.0)  # Fig. 9: HAS = exhaustive
    for seed in range(2):
        inst = PAPER.generate(seed=seed, **PAPER.demo_size)
        opt = PAPER.solve_offline(inst, time_limit=30)
        assert opt.status == "optimal"
        for name in PAPER.algorithms:
            obj = PAPER.check(inst, PAPER.run(name, inst)).objective
            assert obj >= opt.objective * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(instances())
def test_every_registered_algorithm_passes_checker(inst):
    """Each PAPER.algorithms entry passes (8a)-(8d); without prediction error none beats exhaustive search."""
    objectives = {}
    for name in PAPER.algorithms:
        placement = PAPER.run(name, inst)
        objectives[name] = PAPER.check(inst, placement).objective
    if inst.predicted is None:
        best = objectives["exhaustive"]
        for name, obj in objectives.items():
            assert obj >= best * (1 - 1e-9), name
