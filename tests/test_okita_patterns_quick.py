"""``benchmarks/okita_patterns.py``: HiGHS's dual signs, the pricing against an
enumeration of patterns, every round's bound below proven optima, the converged
master equal to an independent Pyomo master over *all* patterns and at least
the v3 LP, and the ``--quick`` run (timings are not asserted)."""

import itertools

import highspy
import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from optsched.models.okita import build_model, solve_offline, worker_bound

from benchmarks import okita_patterns as op
from optsched.core.solver import solve
from optsched.okita import generate
from tests.okita.decomposition_cases import SMALL, v3_lp

#: Cases whose converged master lies strictly above the v3 LP (the hull of the
#: packings binds), so the comparisons below exercise more than the LP.
ABOVE_LP = {(2, 2, 4, 10, "exp"), (3, 3, 4, 12, "exp")}


def _inst(seed, R, I_, T, cost):
    return generate(seed, R, I_, T, cost)


def test_highs_dual_signs() -> None:
    """For a minimisation HiGHS's dual of an active ``<=`` row is ``<= 0``, of an
    active ``>=`` row ``>= 0``, and ``col_dual = c - A^T pi`` (the docstring's
    conventions): ``min -x + z`` with ``x <= 2``, ``z >= 3``."""
    h = op._highs()
    inf = highspy.kHighsInf
    h.addVars(2, np.zeros(2), np.full(2, inf))
    h.changeColsCost(2, np.array([0, 1], dtype=np.int32), np.array([-1.0, 1.0]))
    h.addRow(-inf, 2.0, 1, np.array([0], dtype=np.int32), np.array([1.0]))
    h.addRow(3.0, inf, 1, np.array([1], dtype=np.int32), np.array([1.0]))
    h.run()
    sol = h.getSolution()
    assert list(sol.row_dual) == pytest.approx([-1.0, 1.0])
    assert list(sol.col_dual) == pytest.approx([0.0, 0.0])
    assert h.getInfo().objective_function_value == pytest.approx(1.0)


def _patterns(inst, r, jobs):
    """Every pattern of site ``r`` over ``jobs`` (brute force over the box)."""
    ybar = worker_bound(inst)
    cap = inst.capacity[r] + 1e-9 * np.maximum(1.0, inst.capacity[r])
    boxes = [range(int(ybar[i, r]) + 1) for i in jobs] + [range(2)] * len(jobs)
    out = []
    for x in itertools.product(*boxes):
        Y, S = np.array(x[: len(jobs)]), np.array(x[len(jobs) :])
        use = sum(inst.m[i] * Y[a] + inst.n[i] * S[a] for a, i in enumerate(jobs))
        if np.all(use <= cap):
            out.append((tuple(int(v) for v in Y), tuple(int(v) for v in S)))
    return out


@pytest.mark.parametrize("case", SMALL[:3])
def test_pricing_equals_enumeration(case) -> None:
    """The HiGHS knapsack's value equals the best enumerated pattern, its pattern
    is one, and its upper bound is not below it (weights of either sign)."""
    inst = _inst(*case)
    rng = np.random.default_rng(case[0])
    for r in range(inst.n_sites):
        for t in (3, inst.n_slots):
            jobs = [i for i in range(inst.n_jobs) if inst.arrival[i] <= t]
            if not jobs:
                continue
            pats = _patterns(inst, r, jobs)
            pricer = op.PatternPricer(inst, r, jobs)
            for _ in range(3):
                w = rng.uniform(-5.0, 30.0, len(jobs))
                v = rng.uniform(-5.0, 30.0, len(jobs))
                best = max(np.dot(w, Y) + np.dot(v, S) for Y, S in pats)
                value, (Y, S), upper = pricer.price(w, v)
                assert value == pytest.approx(best, abs=1e-7)
                assert (Y, S) in pats
                assert best - 1e-9 <= upper <= best + 1e-5 * (1 + abs(best))


def _full_master(inst) -> float:
    """The master LP over every enumerated pattern, written in Pyomo (no column
    generation, no elastic columns, no extra bounds)."""
    m = build_model(inst, relax=True, formulation="v3")
    m.c2d_capacity.deactivate()
    m.pat = pyo.Block()
    for r in range(inst.n_sites):
        for t in range(1, inst.n_slots + 1):
            jobs = sorted(i for i, rr, tt in m.Y if rr == r and tt == t)
            if not jobs:
                continue
            pats = _patterns(inst, r, jobs)
            b = pyo.Block()
            m.pat.add_component(f"r{r}t{t}", b)
            b.lam = pyo.Var(range(len(pats)), domain=pyo.NonNegativeReals)
            b.conv = pyo.Constraint(expr=sum(b.lam.values()) <= 1)
            b.ly = pyo.Constraint(
                range(len(jobs)),
                rule=lambda b, a, r=r, t=t, jobs=jobs, pats=pats: (
                    m.y[jobs[a], r, t]
                    <= sum(p[0][a] * b.lam[q] for q, p in enumerate(pats))
                ),
            )
            b.ls = pyo.Constraint(
                range(len(jobs)),
                rule=lambda b, a, r=r, t=t, jobs=jobs, pats=pats: (
                    m.s[jobs[a], r, t]
                    <= sum(p[1][a] * b.lam[q] for q, p in enumerate(pats))
                ),
            )
    res = solve(m, threads=1)
    assert res.status == "optimal"
    return res.objective


@pytest.mark.parametrize("case", SMALL)
def test_bound_valid_and_master_exact(case) -> None:
    """Every round's ``L`` is below the proven optimum and the master value; at
    convergence the master is at least the v3 LP and, on the 2-site cases,
    equals the Pyomo master over every pattern; ``L`` agrees with the textbook
    ``z_master + sum min(0, rc*)``."""
    inst = _inst(*case)
    opt = solve_offline(inst, formulation="v3", time_limit=30.0, threads=1)
    assert opt.status == "optimal"
    res = op.pattern_bound(inst, time_limit=60.0)
    assert res.converged and res.artificial == pytest.approx(0.0, abs=1e-7)
    tol = 1e-6 * max(1.0, abs(opt.objective))
    for rnd in res.history:
        assert rnd.bound <= opt.objective + tol
        assert rnd.bound <= rnd.master + tol
        assert rnd.formula == pytest.approx(rnd.bound, rel=1e-6, abs=1e-6)
    assert res.bound == max(rnd.bound for rnd in res.history)
    assert res.bound == pytest.approx(res.master, rel=1e-6)
    lp = v3_lp(inst)
    assert res.master >= lp - tol
    if case in ABOVE_LP:
        assert res.master > lp + 1.0
    if inst.n_sites == 2:
        assert res.master == pytest.approx(_full_master(inst), rel=1e-6)


def test_okita_patterns_quick_cli(tmp_path, capsys) -> None:
    df = op.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "okita_patterns.csv")
    assert list(back.columns) == op.COLUMNS and len(back) == 1
    r = df.iloc[0]
    assert r["lp"] - 1e-6 <= r["pattern_bound"] <= r["incumbent"] + 1e-6
    assert bool(r["converged"])
    assert "patterns" in capsys.readouterr().out
