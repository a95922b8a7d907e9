"""P3 assignment LP (models/hetero.py): HAS == LP == linear_sum_assignment, strong duality."""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optsched.models.hetero import build_p3, build_p3_dual, dual_value, solve_p3
from scipy.optimize import linear_sum_assignment

from optsched.core.solver import solve
from optsched.hetero.instance import example
from optsched.hetero.online import enumerate_categories, market


def _lsa(rho, cat):
    rows = np.repeat(rho, cat, axis=0)
    r, c = linear_sum_assignment(rows, maximize=True)
    return rows[r, c].sum()


def test_named_constraint_families():
    """The LP carries (17) and (8d) as named components with one row per job / worker."""
    m = build_p3(example(), (3, 1))
    assert len(m.c17_workers_per_job) == 2 and len(m.c8d_worker_once) == 4
    assert "(17)" in m.c17_workers_per_job.doc and "(8d)" in m.c8d_worker_once.doc


@pytest.mark.parametrize(
    ("cat", "value"), [((3, 1), 2948), ((2, 2), 4058), ((1, 3), 4667)]
)
def test_table_ii_throughputs(cat, value):
    """P3 optima of the Sec. IV-A categories: Table II's summed throughputs."""
    res = solve_p3(example(), cat)
    assert res.value == pytest.approx(value)
    assert market(example().rho, cat).total == pytest.approx(value)


@st.composite
def _matrix_and_category(draw):
    S = draw(st.integers(1, 3))
    K = draw(st.integers(S, 6))
    vals = st.one_of(st.integers(1, 20).map(float), st.floats(0.1, 100.0))
    rho = np.array(draw(st.lists(vals, min_size=S * K, max_size=S * K))).reshape(S, K)
    cats = list(enumerate_categories(K, S))
    return rho, cats[draw(st.integers(0, len(cats) - 1))]


@settings(max_examples=30, deadline=None)
@given(_matrix_and_category())
def test_has_equals_lp_equals_lsa(data):
    """Theorem 2: HAS's per-category throughput == P3 LP optimum == linear_sum_assignment."""
    rho, cat = data
    lp = solve_p3(rho, cat)
    opt = _lsa(rho, cat)
    assert lp.value == pytest.approx(opt, rel=1e-9, abs=1e-9)
    got = rho[lp.assignment, np.arange(rho.shape[1])].sum()
    assert got == pytest.approx(opt, rel=1e-9, abs=1e-9)
    assert np.bincount(lp.assignment, minlength=len(cat)).tolist() == list(cat)
    assert market(rho, cat, on_cycle="exact").total == pytest.approx(opt, rel=1e-9)


@settings(max_examples=20, deadline=None)
@given(_matrix_and_category())
def test_strong_duality_and_price_certificates(data):
    """Primal LP == dual LP; LP worker duals are >= 0 and, like HAS's prices, attain D(p) = OPT."""
    rho, cat = data
    lp = solve_p3(rho, cat)
    d = build_p3_dual(rho, cat)
    res = solve(d)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(lp.value, rel=1e-9, abs=1e-9)
    assert (lp.prices >= -1e-9).all()
    assert float(np.dot(cat, lp.job_duals) + lp.prices.sum()) == pytest.approx(
        lp.value, rel=1e-9, abs=1e-9
    )
    assert dual_value(rho, cat, np.maximum(lp.prices, 0)) == pytest.approx(
        lp.value, rel=1e-9, abs=1e-9
    )
    m = market(rho, cat, on_cycle="exact")
    assert dual_value(rho, cat, m.prices) == pytest.approx(lp.value, rel=1e-9, abs=1e-9)
    p = np.array([pyo.value(d.p[k]) for k in range(rho.shape[1])])
    assert dual_value(rho, cat, p) == pytest.approx(lp.value, rel=1e-9, abs=1e-9)


def test_dual_value_is_an_upper_bound():
    """D(p) >= P3 for arbitrary non-negative prices (weak duality)."""
    rng = np.random.default_rng(0)
    rho = example().rho
    for _ in range(20):
        p = rng.uniform(0, 2000, size=4)
        assert dual_value(rho, (2, 2), p) >= 4058 - 1e-9


def test_bad_category_rejected():
    """A category not summing to K is rejected."""
    with pytest.raises(ValueError, match="category"):
        build_p3(example(), (2, 1))
