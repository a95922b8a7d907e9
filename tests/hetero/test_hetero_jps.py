"""Alg. 3 (JPS): sampling range, prioritising, fairness (32)-(33), rule (34), checker."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.hetero.baselines import exhaustive
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example, generate
from optsched.hetero.online import (
    HasParams,
    JpsParams,
    JPSSample,
    categories_array,
    category_at,
    enumerate_categories,
    equal_share_jct,
    fairness_degree,
    has,
    jain_index,
    jps,
    jps_samples,
    n_categories,
    priority_order,
    rear_start,
    select_sample,
)
from optsched.hetero.schedule import HeteroPlacement


@st.composite
def instances(draw, max_workers: int = 7, noise: bool = True):
    """Small instances: typed or arbitrary throughputs, random nodes, optional prediction."""
    S = draw(st.integers(1, 3))
    K = draw(st.integers(S, max_workers))
    typed = draw(st.booleans())
    if typed:
        tab = np.array(
            draw(st.lists(st.integers(20, 900), min_size=3 * S, max_size=3 * S)),
            dtype=float,
        ).reshape(S, 3)
        types = draw(st.lists(st.integers(0, 2), min_size=K, max_size=K))
        rho = tab[:, types]
        gpus = [("T4", "P100", "V100")[t] for t in types]
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
        gpus = ["X"] * K
    nodes = draw(st.lists(st.integers(0, 2), min_size=K, max_size=K))
    jobs = tuple(
        Job(
            f"j{i}",
            draw(st.integers(100, 100_000)),
            draw(st.integers(1, 200)),
            draw(st.floats(0.0, 200.0, allow_nan=False)),
        )
        for i in range(S)
    )
    predicted = None
    if noise and draw(st.booleans()):
        eps = np.array(
            draw(st.lists(st.floats(0.7, 1.3), min_size=S * K, max_size=S * K))
        ).reshape(S, K)
        predicted = tuple(map(tuple, rho * eps))
    return HeteroInstance(
        jobs=jobs,
        workers=tuple(Worker(g, n) for g, n in zip(gpus, nodes, strict=True)),
        throughput=tuple(map(tuple, rho)),
        predicted=predicted,
        communication=draw(st.booleans()),
    )


# ----------------------------------------------------------------- Psi, line 1-2


@pytest.mark.parametrize(("K", "S"), [(5, 3), (9, 4), (15, 4), (7, 1), (6, 2), (8, 5)])
def test_category_at_is_alg1_order(K, S):
    """Unranking reproduces Alg. 1's list position by position."""
    cats = categories_array(K, S)
    assert [category_at(i, K, S) for i in range(len(cats))] == list(
        enumerate_categories(K, S)
    )


def test_category_at_paper_ids_and_large_k():
    """IDs 18, 94, 159 of Sec. V (K = 15); K = 300 ends without listing 4.4 M categories."""
    assert category_at(18 - 1, 15, 4) == (6, 6, 2, 1)
    assert category_at(94 - 1, 15, 4) == (6, 5, 2, 2)
    assert category_at(159 - 1, 15, 4) == (5, 5, 2, 3)
    n = n_categories(300, 4)
    assert n == math.comb(299, 3)
    assert category_at(0, 300, 4) == (297, 1, 1, 1)
    assert category_at(n - 1, 300, 4) == (1, 1, 1, 297)
    with pytest.raises(IndexError):
        category_at(n, 300, 4)


def test_rear_part_sizes():
    """Sec. VI-B: for K = 15 the sampled part shrinks from 364 (alpha 0) to 36 (alpha 0.9)."""
    n = n_categories(15, 4)
    assert n - rear_start(n, 0.0) == 364
    assert n - rear_start(n, 0.9) == 36
    assert n - rear_start(n, 0.7) == 109  # floor(0.3 * 364)
    assert 3 - rear_start(3, 0.99) == 1  # at least one category


def test_priority_order_sec_iv_a():
    """Line 1: VGG-19 (200*5e4/(2*5276) = 947.7) precedes ResNet-18 (200*1e5/(2*1838) = 5440.7)."""
    assert priority_order(example()).tolist() == [1, 0]


def test_jps_sec_iv_a_example():
    """alpha = 0.7 keeps only the last category, ResNet-18 gets 3 workers: Table II's {3, 1}."""
    inst = example()
    p = jps(inst)
    assert p.meta["sampled_ids"] == [3]
    assert p.meta["category_prioritised"] == (1, 3)
    assert p.category == (3, 1)
    assert check(inst, p).objective == pytest.approx(11_225.8, abs=0.05)


# ----------------------------------------------------------------- fairness (32)-(33)


def test_jain_index_by_hand():
    """Jain's index: 1 for equal values, 1/S when one job takes all, 9/10 for (1, 2)."""
    assert jain_index([2.0, 2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert jain_index([3.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain_index([5.0, 0.0]) == pytest.approx(0.5)
    assert jain_index([1.0, 2.0]) == pytest.approx(0.9)


def _homogeneous(S, m, communication, epochs=(10, 20, 30, 40)):
    K = S * m
    return HeteroInstance(
        jobs=tuple(Job(f"j{i}", 1_000 * (i + 1), epochs[i], 50.0) for i in range(S)),
        workers=tuple(Worker("V100", 0) for _ in range(K)),
        throughput=tuple(tuple([100.0 * (i + 1)] * K) for i in range(S)),
        communication=communication,
    )


@pytest.mark.parametrize("communication", [False, True])
def test_fairness_is_one_for_equal_allocation(communication):
    """K/S identical workers per job reproduce Lambda_i^[e] (32) exactly, so F = 1 (33)."""
    inst = _homogeneous(4, 3, communication)
    p = has(inst, params=HasParams(categories=[(3, 3, 3, 3)]))
    ev = check(inst, p)
    assert ev.jct == pytest.approx(equal_share_jct(inst), rel=1e-12)
    assert fairness_degree(inst, ev.jct) == pytest.approx(1.0, abs=1e-12)


def test_fairness_by_hand_two_jobs():
    """Two jobs on 4 workers of 100 samples/s: Lambda^e = 2*1000/400 = 5 s; {3, 1} gives F = 0.8."""
    inst = HeteroInstance(
        jobs=(Job("a", 1_000, 1, 0.0), Job("b", 1_000, 1, 0.0)),
        workers=tuple(Worker("X", 0) for _ in range(4)),
        throughput=((100.0,) * 4, (100.0,) * 4),
        communication=False,
    )
    assert equal_share_jct(inst).tolist() == pytest.approx([5.0, 5.0])
    ev = check(inst, has(inst, params=HasParams(categories=[(3, 1)])))
    assert ev.jct.tolist() == pytest.approx([1000 / 300, 10.0])
    # x = (2/3, 2): (8/3)^2 / (2 (4/9 + 4)) = 0.8
    assert fairness_degree(inst, ev.jct) == pytest.approx(0.8)


# ----------------------------------------------------------------- rule (34)


def _sample(i, lam, fair):
    return JPSSample(
        i, (1,), (1,), np.zeros(1, int), None, np.array([lam]), lam, fair, True
    )


def test_selection_rule_34_by_hand():
    """beta = 1 takes the lowest JCT, beta = 0 the fairest, beta = 0.5 the hand-computed best."""
    samples = [_sample(1, 100.0, 0.5), _sample(2, 110.0, 0.9), _sample(3, 200.0, 1.0)]
    assert select_sample(samples, 1.0) == 0
    assert select_sample(samples, 0.0) == 2
    # 0.5*100/100 + 0.25 = 0.75; 0.5*100/110 + 0.45 = 0.9045; 0.25 + 0.5 = 0.75
    assert select_sample(samples, 0.5) == 1
    tie = [_sample(1, 120.0, 0.7), _sample(2, 100.0, 0.7)]
    assert select_sample(tie, 0.0) == 1  # equal scores: lower JCT wins
    assert select_sample(tie[::-1], 0.0) == 0
    same = [_sample(1, 100.0, 0.7), _sample(2, 100.0, 0.7)]
    assert select_sample(same, 0.3) == 0  # then the earlier category


def test_parameter_validation():
    """Out-of-range N, alpha, beta and p3 are rejected."""
    inst = example()
    for kw in (
        {"n_samples": 0},
        {"alpha": 1.0},
        {"alpha": -0.1},
        {"beta": 1.5},
        {"p3": "lp"},
    ):
        with pytest.raises(ValueError):
            jps(inst, params=JpsParams(**kw))


# ----------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    instances(),
    st.integers(1, 12),
    st.sampled_from([0.0, 0.3, 0.7, 0.95]),
    st.sampled_from([0.0, 0.4, 1.0]),
    st.booleans(),
    st.sampled_from(["market", "exact"]),
    st.integers(0, 2**31),
)
def test_jps_passes_checker_and_records_its_choice(
    inst, n, alpha, beta, prioritise, p3, seed
):
    """Any JPS placement satisfies (8a)-(8d); meta records the sampled set, category and fairness."""
    p = jps(
        inst,
        seed=seed,
        params=JpsParams(
            n_samples=n, alpha=alpha, beta=beta, prioritise=prioritise, p3=p3
        ),
    )
    ev = check(inst, p)
    n_psi = n_categories(inst.n_workers, inst.n_jobs)
    start = rear_start(n_psi, alpha)
    ids = p.meta["sampled_ids"]
    assert ids == sorted(set(ids)) and len(ids) == min(n, n_psi - start)
    assert all(start < i <= n_psi for i in ids)
    assert p.meta["category_id"] in ids
    assert tuple(ev.n_workers.tolist()) == p.category
    order = p.meta["job_order"]
    assert tuple(p.category[j] for j in order) == p.meta["category_prioritised"]
    assert p.meta["category_prioritised"] == category_at(
        p.meta["category_id"] - 1, inst.n_workers, inst.n_jobs
    )
    assert 1 / inst.n_jobs - 1e-12 <= p.meta["fairness"] <= 1 + 1e-12
    if inst.predicted is None:
        assert ev.objective == pytest.approx(p.meta["avg_jct_predicted"], rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(instances(max_workers=6, noise=False), st.integers(1, 8), st.integers(0, 99))
def test_jps_never_beats_exhaustive(inst, n, seed):
    """On exact throughputs JPS's average JCT (checker) is at least the exhaustive optimum."""
    opt = check(inst, exhaustive(inst)).objective
    got = check(inst, jps(inst, seed=seed, params=JpsParams(n_samples=n))).objective
    assert got >= opt * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(instances())
def test_jps_with_all_categories_is_has(inst):
    """alpha = 0, N >= |Psi|, no prioritising, beta = 1: JPS returns HAS's placement."""
    n_psi = n_categories(inst.n_workers, inst.n_jobs)
    p = jps(
        inst,
        params=JpsParams(n_samples=n_psi + 3, alpha=0.0, beta=1.0, prioritise=False),
    )
    h = has(inst)
    assert p.meta["sampled_ids"] == list(range(1, n_psi + 1))
    assert p.category == h.category
    assert np.array_equal(p.sigma, h.sigma)
    assert np.array_equal(p.prices, h.prices)
    assert check(inst, p).objective == check(inst, h).objective


def test_same_seed_same_result():
    """The seed fixes the sample: equal seeds give equal placements, other seeds other samples."""
    inst = generate(0, n_jobs=4, n_workers=15)
    n20 = JpsParams(n_samples=20)
    a = jps(inst, seed=7, params=n20)
    b = jps(inst, seed=7, params=n20)
    c = jps(inst, seed=np.random.default_rng(7), params=n20)  # type: ignore[arg-type]
    assert a.meta["sampled_ids"] == b.meta["sampled_ids"] == c.meta["sampled_ids"]
    assert np.array_equal(a.sigma, b.sigma) and a.category == b.category
    others = {tuple(jps(inst, seed=s, params=n20).meta["sampled_ids"]) for s in (8, 9)}
    assert tuple(a.meta["sampled_ids"]) not in others


def test_exact_p3_matches_market_throughput():
    """p3='exact' reaches the same P3 throughput (18) as the market on every sample (Theorem 2)."""
    inst = generate(4, n_jobs=3, n_workers=9)
    kw = {"n_samples": 15, "alpha": 0.2, "seed": 3}
    _, m = jps_samples(inst, p3="market", **kw)
    _, e = jps_samples(inst, p3="exact", **kw)
    rho = inst.rho_hat
    K = inst.n_workers
    for a, b in zip(m, e, strict=True):
        assert a.id == b.id
        assert rho[a.assignment, np.arange(K)].sum() == pytest.approx(
            rho[b.assignment, np.arange(K)].sum()
        )


def test_prioritising_puts_heavy_jobs_last():
    """With prioritising, the rear categories give the job with the largest key the most workers."""
    inst = generate(1, n_jobs=4, n_workers=12)
    order = priority_order(inst)
    key = inst.epochs * inst.dataset_size / inst.rho_hat.sum(axis=1)
    assert np.all(np.diff(key[order]) >= 0)
    # only the last category (1, ..., 1, K-S+1)
    last = jps(inst, params=JpsParams(n_samples=1, alpha=0.99))
    assert last.category[order[-1]] == inst.n_workers - inst.n_jobs + 1
    assert isinstance(last, HeteroPlacement)
