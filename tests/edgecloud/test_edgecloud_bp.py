"""Tests of optsched.models.edgecloud_bp: branch and price over the column generation.

Known answers are independent of the module: the one-job MILP
(:class:`~optsched.models.edgecloud_colgen.JobPricer`, i.e. ``build_model``)
with the branch's variables fixed in HiGHS, the v3 MILP without the PS rows
(2f) proven by HiGHS (the relaxation the branch and price solves), and the
proven optimum of (2).
"""

from __future__ import annotations

import math

import highspy
import numpy as np
import pytest
from optsched.models.edgecloud import build_model
from optsched.models.edgecloud_bp import RestrictedPricer, bp_bound, branch_and_price
from optsched.models.edgecloud_colgen import DPPricer, JobPricer, column_generation

from optsched.core.solver import Deadline, solve
from tests.edgecloud.instances import small
from tests.edgecloud.test_edgecloud_colgen import _random_prices, medium, optimum


def relaxed_optimum(inst) -> float:
    """The proven optimum of the v3 MILP without the PS rows (2f) (an integer)."""
    model = build_model(inst, formulation="v3")
    model.c2f_ps_capacity.deactivate()
    res = solve(model, threads=1, time_limit=60.0)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(round(res.objective), abs=1e-6)
    return float(round(res.objective))


def restricted_milp(inst, j: int, forbid, force) -> JobPricer:
    """The one-job MILP with ``forbid`` worker-slots fixed to 0 and ``force`` ones used."""
    exact = JobPricer(inst, j)
    for r in forbid:
        for col in exact.res_cols[r]:
            exact.h.changeColBounds(col, 0.0, 0.0)
    for r in force:
        cols = np.array(exact.res_cols[r], dtype=np.int32)
        exact.h.addRow(1.0, 1.0, len(cols), cols, np.ones(len(cols)))
    return exact


@pytest.mark.parametrize("seed", range(3))
def test_restricted_pricing_equals_milp_with_fixed_variables(seed: int) -> None:
    """Forbidden / forced worker-slots: the enumeration equals the one-job MILP."""
    rng = np.random.default_rng(100 + seed)
    inst = small(seed)
    checked = 0
    for j in range(inst.n_jobs):
        dp = DPPricer(inst, j)
        keys = sorted(dp.res_cols)
        for _ in range(4):
            prices = _random_prices(rng, keys)
            _v, col, _ = dp.price(prices)  # restrict around an optimal column
            used = sorted(col.uses) if col is not None else []
            pick = [keys[i] for i in rng.permutation(len(keys))[:2]]
            forbid = frozenset(r for r in pick if r not in used[:1])
            force = frozenset(used[:1]) if used and rng.random() < 0.7 else frozenset()
            forbid -= force
            value, col, _ = RestrictedPricer.of(dp, forbid, force).price(prices)
            exact = restricted_milp(inst, j, forbid, force)
            lo, _c, proven = exact.price(prices, None)
            status = exact.h.getModelStatus()
            if status == highspy.HighsModelStatus.kInfeasible:
                assert value == math.inf and col is None
                continue
            assert proven
            assert value == pytest.approx(lo, abs=1e-6)
            assert col is not None and not (col.uses & forbid) and force <= col.uses
            assert col.cost + sum(prices.get(r, 0.0) for r in col.uses) == (
                pytest.approx(value, abs=1e-6)
            )
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("seed", [2, 8, 33])
def test_branching_closes_the_master_gap(seed: int) -> None:
    """Where the converged column generation is one below the relaxation's
    optimum (measured: small 2, 8, 33: 14 / 11 / 10 against 15 / 12 / 11), the
    branch and price reaches that optimum, and stays at most OPT of (2)."""
    inst = small(seed)
    relaxed = relaxed_optimum(inst)
    root = column_generation(inst, time_limit=None)
    assert root.converged and root.bound < relaxed
    res = branch_and_price(inst, time_limit=None)
    assert res.bound == relaxed
    assert res.root == pytest.approx(root.value, abs=1e-6)
    assert res.bound <= optimum("small", seed) + 1e-9
    assert [b for _t, b in res.history] == sorted(b for _t, b in res.history)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("limit", [0.0, 0.05, None])
def test_bound_never_above_the_optimum(seed: int, limit: float | None) -> None:
    """At every stop (time limit, incumbent reached, search ended) the bound is valid."""
    inst = small(seed)
    opt = optimum("small", seed)
    for incumbent in (math.inf, opt):
        res = branch_and_price(inst, incumbent=incumbent, time_limit=limit)
        assert res.bound <= opt + 1e-9
        if limit is None:
            assert res.bound == min(incumbent, relaxed_optimum(inst))
        if res.proven:
            assert res.bound == incumbent == opt


def test_medium_instance_below_the_proven_optimum() -> None:
    """medium(3) (4 jobs, 3 chunks): OPT 40 (proven), column generation 38,
    the relaxation without (2f) 39 -- the branch and price proves 39."""
    inst = medium(3)
    res = branch_and_price(inst, time_limit=None)
    assert res.bound == relaxed_optimum(inst) == 39.0
    assert res.bound <= optimum("medium", 3)


def test_bp_bound_hook_and_figure_task() -> None:
    """``bp_bound`` (an ``extra_bounds`` hook) and the Figs. 12-13 hook name their kinds."""
    from optsched.edgecloud import experiments as ex

    inst = small(2)
    assert bp_bound(inst, Deadline(30.0)) == {"branch_price": relaxed_optimum(inst)}
    out = ex.colgen_bound(inst, Deadline(30.0), incumbent=optimum("small", 2))
    root = column_generation(inst, time_limit=None).bound
    assert out == {"colgen": root, "branch_price": relaxed_optimum(inst)}
    assert root < out["branch_price"]  # the branching lifted it: kind branch_price
