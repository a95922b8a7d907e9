"""Alg. 1 (category enumeration) and Alg. 2 (HAS matching markets) against the paper."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optsched.models.hetero import dual_value
from scipy.optimize import linear_sum_assignment

from optsched.hetero.check import check
from optsched.hetero.instance import example, generate
from optsched.hetero.online import (
    HasParams,
    MarketCycleError,
    categories_array,
    enumerate_categories,
    equilibrium_prices,
    has,
    has_categories,
    market,
    n_categories,
    sum_top,
)
from optsched.hetero.schedule import HeteroPlacement

# ----------------------------------------------------------------- Alg. 1


def test_alg1_paper_example_order():
    """K = 5, S = 3 gives the six categories in the order printed in Sec. IV-C."""
    assert list(enumerate_categories(5, 3)) == [
        (3, 1, 1),
        (2, 2, 1),
        (1, 3, 1),
        (2, 1, 2),
        (1, 2, 2),
        (1, 1, 3),
    ]


def test_alg1_fig4_ids():
    """S = 4, K = 15: |Psi| = 364 and IDs 18, 94, 159 are {6,6,2,1}, {6,5,2,2}, {5,5,2,3} (Sec. V)."""
    cats = list(enumerate_categories(15, 4))
    assert len(cats) == 364
    assert cats[18 - 1] == (6, 6, 2, 1)
    assert cats[94 - 1] == (6, 5, 2, 2)
    assert cats[159 - 1] == (5, 5, 2, 3)
    assert cats[0] == (12, 1, 1, 1) and cats[-1] == (1, 1, 1, 12)


@pytest.mark.parametrize(
    ("K", "S"), [(k, s) for k in range(1, 10) for s in range(1, 5) if s <= k]
)
def test_alg1_size_and_vectorised_variant(K, S):
    """|Psi| = C(K-1, S-1), every category valid and distinct, array variant identical."""
    cats = list(enumerate_categories(K, S))
    assert len(cats) == math.comb(K - 1, S - 1) == n_categories(K, S)
    assert len(set(cats)) == len(cats)
    assert all(len(c) == S and min(c) >= 1 and sum(c) == K for c in cats)
    assert np.array_equal(categories_array(K, S), np.array(cats, dtype=np.int64))


def test_alg1_rejects_k_below_s():
    """S > K has no category (footnote 3)."""
    with pytest.raises(ValueError):
        list(enumerate_categories(2, 3))


# ----------------------------------------------------------------- Table II


def _gpus(inst, placement, i):
    return sorted(inst.gpu[k] for k in placement.workers_of(i))


TABLE_II = [
    ((3, 1), ["T4", "T4", "V100"], ["V100"], (1194, 1754), 11_225.8),
    ((2, 2), ["T4", "T4"], ["V100", "V100"], (550, 3508), 19_607.1),
    # printed VGG-19 {T4, T4, V100}, but its throughput 4,392 is T4 + V100 + V100
    ((1, 3), ["T4"], ["T4", "V100", "V100"], (275, 4392), 37_502.1),
]


@pytest.mark.parametrize(("cat", "r18", "vgg", "V", "jct"), TABLE_II)
def test_table_ii_rows(cat, r18, vgg, V, jct):
    """Each category's market reproduces Table II's placement, throughput and JCT (checker)."""
    inst = example()
    (res,) = has_categories(inst, [cat])
    p = HeteroPlacement.from_assignment(inst, res.market.assignment)
    assert (_gpus(inst, p, 0), _gpus(inst, p, 1)) == (r18, vgg)
    assert res.market.throughput.tolist() == list(V)
    assert check(inst, p).objective == pytest.approx(jct, abs=0.05)
    assert res.market.cleared


def test_table_ii_prices_by_hand():
    """Hand-run of (22): {3,1} V100s priced 644-275 = 369; {2,2} and {1,3} at 1754-884 = 870."""
    rho = example().rho
    assert market(rho, (3, 1)).prices.tolist() == [0, 0, 369, 369]
    assert market(rho, (2, 2)).prices.tolist() == [0, 0, 870, 870]
    assert market(rho, (1, 3)).prices.tolist() == [0, 0, 870, 870]


def test_has_picks_3_1():
    """HAS selects {3, 1}: ResNet-18 on {T4, T4, V100}, VGG-19 on {V100}, 11,225.8 s (6.0% loss)."""
    inst = example()
    p = has(inst)
    assert p.category == (3, 1)
    ev = check(inst, p)
    assert ev.objective == pytest.approx(11_225.8, abs=0.05)
    assert ev.objective / 10_592 - 1 == pytest.approx(0.060, abs=0.0005)
    assert p.prices.tolist() == [0, 0, 369, 369]
    assert [r.category for r in p.meta["per_category"]] == [(3, 1), (2, 2), (1, 3)]


# ----------------------------------------------------------------- Theorems 1 and 2


def _lsa(rho, cat):
    rows = np.repeat(rho, cat, axis=0)
    r, c = linear_sum_assignment(rows, maximize=True)
    return rows[r, c].sum()


def _holds_demanded_set(rho, cat, m, tol=1e-7):
    """Every job's workers are a top-K_i set of its payoffs rho - p."""
    gamma = rho - m.prices
    for i, n in enumerate(cat):
        mine = gamma[i, m.assignment == i]
        others = gamma[i, m.assignment != i]
        assert mine.size == n
        if others.size and mine.min() < others.max() - tol:
            return False
    return True


@st.composite
def _instance(draw, integer: bool):
    S = draw(st.integers(1, 3))
    K = draw(st.integers(S, 7))
    if integer:
        vals = st.integers(1, 12).map(float)
    else:
        vals = st.floats(0.05, 50.0, allow_nan=False, allow_infinity=False)
    rho = np.array(draw(st.lists(vals, min_size=S * K, max_size=S * K))).reshape(S, K)
    cats = list(enumerate_categories(K, S))
    cat = cats[draw(st.integers(0, len(cats) - 1))]
    return rho, cat


@settings(max_examples=150, deadline=None)
@given(_instance(integer=True))
def test_integer_throughput_clears_within_pmax_and_is_optimal(data):
    """Integer rho: rule (22) clears within P_max (28) rounds, optimal for P3, prices certify it."""
    rho, cat = data
    m = market(rho, cat, on_cycle="raise")
    p_max = sum(sum_top(rho[i], c) for i, c in enumerate(cat))
    assert m.cleared and m.rounds <= p_max
    opt = _lsa(rho, cat)
    assert m.total == pytest.approx(opt)
    assert _holds_demanded_set(rho, cat, m)
    assert (m.prices >= 0).all()
    assert dual_value(rho, cat, m.prices) == pytest.approx(opt)


@settings(max_examples=150, deadline=None)
@given(_instance(integer=False))
def test_fractional_throughput_terminal_state_optimal(data):
    """Fractional rho: whenever (22) clears it is optimal; otherwise the exact fallback is."""
    rho, cat = data
    m = market(rho, cat, on_cycle="exact")
    opt = _lsa(rho, cat)
    assert m.total == pytest.approx(opt, rel=1e-9)
    assert _holds_demanded_set(rho, cat, m)
    assert dual_value(rho, cat, m.prices) == pytest.approx(opt, rel=1e-9)


def test_theorem1_counterexample():
    """rho = [[1.5, 1.0], [1.4, 1.0]], category (1, 1): unit steps of (22) cycle for ever."""
    rho = np.array([[1.5, 1.0], [1.4, 1.0]])
    with pytest.raises(MarketCycleError) as info:
        market(rho, (1, 1), on_cycle="raise")
    assert info.value.category == (1, 1)
    m = market(rho, (1, 1), on_cycle="exact")
    assert not m.cleared
    assert m.assignment.tolist() == [0, 1] and m.total == pytest.approx(2.5)
    assert _holds_demanded_set(rho, (1, 1), m)


def _random_typed(rng, integer):
    S = int(rng.integers(2, 5))
    K = int(rng.integers(S, 10))
    types = rng.integers(0, 3, size=K)
    tab = rng.uniform(50, 2000, size=(S, 3))
    if integer:
        tab = np.round(tab)
    return tab[:, types]


@pytest.mark.parametrize("integer", [True, False])
def test_acceleration_is_exact(integer):
    """Fast-forwarding periodic rounds gives the same rounds, prices and placement."""
    rng = np.random.default_rng(11 if integer else 12)
    checked = 0
    for _ in range(15):
        rho = _random_typed(rng, integer)
        S, K = rho.shape
        for cat in categories_array(K, S)[:: max(1, n_categories(K, S) // 8)]:
            a = market(rho, cat, on_cycle="exact", accelerate=True)
            b = market(rho, cat, on_cycle="exact", accelerate=False)
            assert np.array_equal(a.assignment, b.assignment)
            np.testing.assert_allclose(a.prices, b.prices, rtol=1e-9, atol=1e-6)
            assert a.cleared == b.cleared
            if a.cleared:
                assert a.rounds == b.rounds
            checked += 1
    assert checked > 30


# ----------------------------------------------------------------- HAS on generated instances


def test_has_best_category_and_checker():
    """HAS returns the category of lowest JCT among its per-category results; the checker agrees."""
    inst = generate(2, n_jobs=3, n_workers=7)
    p = has(inst)
    res = p.meta["per_category"]
    assert len(res) == n_categories(7, 3)
    best = min(res, key=lambda r: r.avg_jct)
    assert p.category == best.category
    assert check(inst, p).objective == pytest.approx(best.avg_jct)
    assert p.meta["cycled"] == []


def test_has_decides_on_prediction():
    """With prediction error, HAS's markets run on rho_hat; the checker charges rho*."""
    inst = generate(3, n_jobs=2, n_workers=5, epsilon=0.3)
    p = has(inst)
    for r in p.meta["per_category"]:
        assert r.market.total == pytest.approx(_lsa(inst.rho_hat, r.category))
    check(inst, p)


def test_has_category_restriction():
    """Restricting Psi restricts the search (used by sampling, Alg. 3)."""
    inst = example()
    p = has(inst, params=HasParams(categories=[(2, 2)]))
    assert p.category == (2, 2)
    assert check(inst, p).objective == pytest.approx(19_607.1, abs=0.05)


def test_equilibrium_prices_certify_only_optimal_assignments():
    """Clearing prices exist for the P3 optimum and not for a sub-optimal assignment."""
    rho = example().rho
    p = equilibrium_prices(rho, np.array([0, 0, 1, 0]))  # Table II {3, 1} optimum
    assert p.min() == 0
    assert dual_value(rho, (3, 1), p) == pytest.approx(2948)
    with pytest.raises(ValueError):
        equilibrium_prices(rho, np.array([1, 0, 0, 0]))  # VGG-19 on a T4: 2447 < 2948
