"""Tests of the Fig. 9 readings (``optsched.hetero.experiments.readings``, issue 13).

Known answers come from brute force over every assignment of a tiny
instance, from HAS's own checked JCT and from the certified optimum.
"""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.hetero.experiments import readings as rd
from optsched.hetero.jct import avg_jct

P = optsched.get_paper("hetero")


def _assignments(inst):
    """Every assignment that gives each job at least one worker."""
    S, K = inst.n_jobs, inst.n_workers
    for a in itertools.product(range(S), repeat=K):
        a = np.array(a)
        if len(set(a.tolist())) == S:
            yield a


def _category(a, S):
    return tuple(int(c) for c in np.bincount(a, minlength=S))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), S=st.integers(2, 3), K=st.integers(3, 5))
def test_category_optima_against_brute_force(seed, S, K):
    """Both category denominators are P3-optimal per category, at least P1's optimum, and checked."""
    if K < S:
        K = S
    inst = P.generate(seed, n_jobs=S, n_workers=K)
    rho = inst.rho_hat
    all_a = list(_assignments(inst))
    p1 = min(avg_jct(inst, a) for a in all_a)  # brute-force P1 (proportional split)
    best_tp = {}
    for a in all_a:
        c = _category(a, S)
        best_tp[c] = max(best_tp.get(c, -np.inf), rho[a, np.arange(K)].sum())
    for placement in ("market", "p3"):
        val, cat = rd.category_optimum(inst, placement, "proportional")
        assert val >= p1 - 1e-6 * p1
        # the denominator is the JCT of some P3-optimal assignment of its category
        cands = [
            avg_jct(inst, a)
            for a in all_a
            if _category(a, S) == cat
            and rho[a, np.arange(K)].sum() >= best_tp[cat] - 1e-9 * best_tp[cat]
        ]
        assert any(v == pytest.approx(val, rel=1e-9) for v in cands)
        # and no category's P3-optimal assignments are all better than it
        for c, tp in best_tp.items():
            vals = [
                avg_jct(inst, a)
                for a in all_a
                if _category(a, S) == c and rho[a, np.arange(K)].sum() >= tp - 1e-9 * tp
            ]
            assert max(vals) >= val - 1e-9 * val


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), S=st.integers(2, 4), K=st.integers(4, 8))
def test_equal_split_never_beats_proportional(seed, S, K):
    """On a fixed assignment the checker's equal-split JCT is at least the proportional one."""
    inst = P.generate(seed, n_jobs=S, n_workers=K)
    a = np.arange(K) % S
    assert rd.checked_jct(inst, a, "equal") >= rd.checked_jct(
        inst, a, "proportional"
    ) * (1 - 1e-12)


def test_market_denominator_is_has_and_rows_divide_correctly():
    """``categories_market`` = HAS's checked JCT; ``p1_optimum`` rows = JCT / certified optimum."""
    task = {"setting": "h115", "seed": 0, "n_jobs": 3, "n_workers": 6, "rounds": 2,
            "time_limit": 60.0}  # fmt: skip
    rows = rd.fig9_readings(task)
    inst = rd.make_instance("h115", 0, 3, 6)
    has_jct = P.check(inst, P.run("has", inst)).objective
    opt = P.solve_offline(inst, time_limit=60.0)
    assert opt.status == "optimal"
    for r in rows:
        if r["reading"] == "categories_market" and r["split"] == "proportional":
            assert r["denominator"] == pytest.approx(has_jct, rel=1e-12)
        if r["reading"] == "p1_optimum":
            assert r["split"] == "proportional"
            assert r["normalized"] == pytest.approx(
                r["avg_jct"] / opt.objective, rel=1e-12
            )
            assert r["normalized"] >= 1 - 1e-9
        if r["scheme"] == "has" and r["reading"] == "categories_market":
            assert r["normalized"] == pytest.approx(1.0)
    combos = {(r["reading"], r["split"]) for r in rows}
    assert combos == {
        ("p1_optimum", "proportional"),
        *((rd_, s) for rd_ in rd.READINGS[1:] for s in rd.SPLITS),
    }
    assert len(rows) == len(combos) * 5  # optimus, optimus_lb, has, 2 JPS rounds


def test_close_to_and_bad_placement():
    cells = rd.Cells((1.01, None))
    assert rd.close_to(cells, (1.0, 5.0), tol=0.02)
    assert not rd.close_to(cells, (1.05, 5.0), tol=0.02)
    assert not rd.close_to(rd.Cells((None, None)), (1.0, 1.0), tol=1.0)
    with pytest.raises(ValueError, match="placement"):
        rd.category_optimum(P.generate(0, n_jobs=2, n_workers=3), "nope", "equal")
