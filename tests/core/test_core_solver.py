"""Tests of the HiGHS solver layer."""

import math

import pyomo.environ as pyo
import pytest

from optsched.core.solver import solve


def _lp():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.NonNegativeReals)
    m.y = pyo.Var(domain=pyo.NonNegativeReals)
    m.c1 = pyo.Constraint(expr=m.x + 2 * m.y <= 4)
    m.c2 = pyo.Constraint(expr=3 * m.x + m.y <= 6)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


def test_lp_optimum_and_duals():
    """A 2-variable LP solves to its hand-computed optimum 2.8 with duals (0.4, 0.2)."""
    m = _lp()
    res = solve(m, duals=True)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(2.8)
    assert pyo.value(m.x) == pytest.approx(1.6)
    # max problem, <= rows: duals >= 0; solve y^T A >= c by hand: (0.4, 0.2)
    assert res.duals[m.c1] == pytest.approx(0.4)
    assert res.duals[m.c2] == pytest.approx(0.2)
    # strong duality: b^T y == optimum
    assert 4 * res.duals[m.c1] + 6 * res.duals[m.c2] == pytest.approx(res.objective)


def test_mip_gap_zero_proves_optimum():
    """A knapsack MIP reports optimal with objective == bound (gap 0)."""
    vals, wts = [10, 13, 7, 8, 9], [5, 6, 3, 4, 4]
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(5), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(wts[i] * m.x[i] for i in range(5)) <= 11)
    m.obj = pyo.Objective(
        expr=sum(vals[i] * m.x[i] for i in range(5)), sense=pyo.maximize
    )
    res = solve(m)
    # brute force over all 32 subsets
    best = max(
        sum(vals[i] for i in range(5) if s >> i & 1)
        for s in range(32)
        if sum(wts[i] for i in range(5) if s >> i & 1) <= 11
    )
    assert res.status == "optimal"
    assert res.objective == pytest.approx(best)
    assert res.bound == pytest.approx(best)


def test_infeasible_reported():
    """An infeasible model gives status infeasible and no objective."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.NonNegativeReals)
    m.c = pyo.Constraint(expr=m.x <= -1)
    m.obj = pyo.Objective(expr=m.x)
    res = solve(m)
    assert res.status == "infeasible"
    assert math.isnan(res.objective)
