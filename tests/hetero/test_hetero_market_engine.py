"""The compiled market engine (numba) is bit-identical to the reference loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optsched.hetero import example, generate
from optsched.hetero.check import check
from optsched.hetero.online import (
    MarketCycleError,
    categories_array,
    market,
    markets,
    n_categories,
)
from optsched.hetero.schedule import HeteroPlacement

pytest.importorskip("numba")


def _outcome(rho, cat, accelerate, engine):
    try:
        m = market(rho, cat, on_cycle="raise", accelerate=accelerate, engine=engine)
    except MarketCycleError as e:
        return ("cycle", e.rounds, tuple(e.prices.tolist()))
    return ("cleared", m.rounds, tuple(m.prices.tolist()), tuple(m.assignment.tolist()))


@st.composite
def typed_market(draw):
    """Throughputs with classes of identical workers (as in generated instances)."""
    S = draw(st.integers(2, 4))
    K = draw(st.integers(S, 9))
    n_types = draw(st.integers(1, 3))
    types = draw(st.lists(st.integers(0, n_types - 1), min_size=K, max_size=K))
    integer = draw(st.booleans())
    vals = st.integers(1, 3000) if integer else st.floats(0.5, 3000.0)
    tab = np.array(
        draw(
            st.lists(
                st.lists(vals, min_size=n_types, max_size=n_types),
                min_size=S,
                max_size=S,
            )
        ),
        dtype=float,
    )
    rho = tab[:, types]
    cats = categories_array(K, S)
    cat = cats[draw(st.integers(0, len(cats) - 1))]
    return rho, cat


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_market(), st.booleans())
def test_engines_identical(case, accelerate):
    """Same rounds, prices (bit for bit), assignment and cycle verdict."""
    rho, cat = case
    assert _outcome(rho, cat, accelerate, "numba") == _outcome(
        rho, cat, accelerate, "python"
    )


def test_engines_identical_on_generated_instance():
    """Every 25th category of a generated K = 15 instance (long rotations of unit rises)."""
    inst = generate(1, n_jobs=4, n_workers=15)
    cats = categories_array(15, 4)[::25]
    assert len(cats) == -(-n_categories(15, 4) // 25)
    for cat in cats:
        assert _outcome(inst.rho, cat, True, "numba") == _outcome(
            inst.rho, cat, True, "python"
        )


def test_engines_on_table_ii_and_cycle_example():
    rho = example().rho
    for cat in [(3, 1), (2, 2), (1, 3)]:
        assert _outcome(rho, cat, True, "numba") == _outcome(rho, cat, True, "python")
    bad = np.array([[1.5, 1.0], [1.4, 1.0]])  # Theorem 1 counter-example (errata)
    with pytest.raises(MarketCycleError):
        market(bad, (1, 1), on_cycle="raise", engine="numba")
    assert not market(bad, (1, 1), on_cycle="exact", engine="numba").cleared


def test_engine_argument_validated():
    with pytest.raises(ValueError, match="engine"):
        market(example().rho, (3, 1), engine="fortran")


@pytest.mark.parametrize("parallel", [False, True])
def test_batch_equals_one_by_one(parallel):
    """markets() (one compiled batch, optionally threaded) == market() per category."""
    inst = generate(3, n_jobs=3, n_workers=10)
    cats = [tuple(c) for c in categories_array(10, 3)]
    batch = markets(inst.rho, cats, on_cycle="exact", parallel=parallel)
    assert [m.category for m in batch] == cats
    for m, cat in zip(batch, cats, strict=True):
        ref = market(inst.rho, cat, on_cycle="exact", engine="python")
        assert m.rounds == ref.rounds and m.cleared == ref.cleared
        assert np.array_equal(m.prices, ref.prices)
        assert np.array_equal(m.assignment, ref.assignment)
    py = markets(inst.rho, cats[:5], on_cycle="exact", engine="python")
    assert [m.rounds for m in py] == [m.rounds for m in batch[:5]]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_market())
def test_fast_forward_equals_round_by_round(case):
    """The period fast-forward replays rule (22) exactly: rounds, placement, verdict."""
    rho, cat = case
    fast = _outcome(rho, cat, True, "numba")
    slow = _outcome(rho, cat, False, "numba")
    assert fast[0] == slow[0]
    if fast[0] == "cleared":  # a cycle may be detected later when states were skipped
        assert fast[1] == slow[1]
        assert fast[3] == slow[3]
        np.testing.assert_allclose(fast[2], slow[2], rtol=1e-9, atol=1e-6)


def test_large_market_matches_linear_sum_assignment():
    """K = 300 (Table V size): the compiled market clears at a P3 optimum."""
    from scipy.optimize import linear_sum_assignment

    inst = generate(0, n_jobs=4, n_workers=300)
    cat = (1, 62, 96, 141)
    m = market(inst.rho, cat, on_cycle="raise")
    rows = np.repeat(np.arange(4), cat)
    r, c = linear_sum_assignment(inst.rho[rows], maximize=True)
    assert m.cleared
    assert m.total == pytest.approx(inst.rho[rows][r, c].sum(), rel=1e-12)
    assert np.bincount(m.assignment, minlength=4).tolist() == list(cat)
    placement = HeteroPlacement.from_assignment(inst, m.assignment)
    assert check(inst, placement).objective > 0  # (8a)-(8d) hold, else it raises


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_fast_forward_keeps_steps_above_one(engine):
    """Regression: a period whose step is a gain > 1 is replayed only while that gain cannot change.

    Here a payoff below the (K_i + 1)-th one catches up during the period; a
    fast-forward that ignored it ran one round more than rule (22).
    """
    rho = generate(1, n_jobs=5, n_workers=15, epsilon=0.2).rho_hat
    cat = (5, 3, 1, 1, 5)
    fast = market(rho, cat, accelerate=True, engine=engine)
    slow = market(rho, cat, accelerate=False, engine=engine)
    assert fast.rounds == slow.rounds
    assert np.array_equal(fast.assignment, slow.assignment)
    np.testing.assert_allclose(fast.prices, slow.prices, rtol=1e-12)
