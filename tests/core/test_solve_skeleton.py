"""The certified solve skeleton (``optsched.core.base.certified_solve``) and the start contract.

Issue 24, item 2: every ``models/<key>.py`` builds, applies the caller's MIP
start, solves, extracts and checks through one skeleton, and
``solve_offline(inst, *, time_limit, start=None)`` runs no algorithm: the
caller (harness, CLI, figures) passes the start
(:func:`optsched.core.ratio.best_start`).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pyomo.environ as pyo
import pytest
from pyomo.common.collections import ComponentMap

import optsched
from optsched.core.base import OfflineResult, certified_solve
from optsched.core.errors import InfeasibleScheduleError
from optsched.core.ratio import best_start
from optsched.core.solver import Deadline


# ------------------------------------------------------------- a toy paper
# max x + y  s.t.  x + 2 y <= 4,  x, y in {0, ..., 3}.  By hand: y = 0 gives
# x = 3 (value 3), y = 1 gives x = 2 (3), y = 2 gives x = 0 (2): optimum 3.
# The toy checker reports 10 (x + y), so a result of 30 can only come from it.
def _build(_: Deadline) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(0, 3))
    m.y = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(0, 3))
    m.c = pyo.Constraint(expr=m.x + 2 * m.y <= 4)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


def _extract(m: pyo.ConcreteModel) -> tuple[int, int]:
    return (round(pyo.value(m.x)), round(pyo.value(m.y)))


def _check(_inst: object, sched: tuple[int, int]) -> SimpleNamespace:
    x, y = sched
    if x + 2 * y > 4:
        raise InfeasibleScheduleError(f"c: {x} + 2 {y} > 4", constraint="c")
    return SimpleNamespace(objective=10.0 * (x + y))


def _toy(**kw):
    args = dict(build=_build, extract=_extract, check=_check, sense="max")
    return certified_solve(None, **{**args, "time_limit": 30.0, **kw})


def test_skeleton_reports_the_checker_objective_of_the_optimum():
    """Build, solve, extract, check: optimal with the checker's 10 * 3 = 30."""
    res = _toy(threads=1)
    assert res.status == "optimal"
    assert res.objective == 30.0
    assert _check(None, res.schedule).objective == 30.0


def test_skeleton_refuses_an_infeasible_start():
    """A start the checker rejects is an error naming ``start`` and the constraint."""
    with pytest.raises(InfeasibleScheduleError, match="^start: .*c: 3 \\+ 2 1 > 4"):
        _toy(start=(3, 1))


def test_skeleton_keeps_the_start_when_the_budget_ends_before_highs():
    """Budget gone while building: status time_limit, the start, the bound() value."""
    res = _toy(time_limit=0.0, start=(2, 1), bound=lambda: 4.0)
    assert (res.status, res.objective, res.bound) == ("time_limit", 30.0, 4.0)
    assert res.schedule == (2, 1)


def test_skeleton_keeps_the_start_over_a_worse_incumbent():
    """A solve step stopped at its limit with a worse incumbent gives way to the start."""
    seen = {}

    def stopped(model, values, deadline):
        seen["values"] = {v.name: x for v, x in values.items()}
        return OfflineResult(10.0, 40.0, "time_limit", deadline.elapsed(), (1, 0))

    def values(model, sched):
        return ComponentMap([(model.x, float(sched[0])), (model.y, float(sched[1]))])

    res = _toy(start=(0, 2), start_values=values, solve_step=stopped)
    assert seen["values"] == {"x": 0.0, "y": 2.0}  # the start reached the solver
    assert (res.status, res.objective, res.schedule) == ("time_limit", 20.0, (0, 2))
    assert res.bound == 40.0


def test_skeleton_returns_a_result_decided_while_building():
    """``build`` may answer without a solve (e.g. no job can finish): returned as is."""
    done = OfflineResult(0.0, 0.0, "optimal", 0.0, (0, 0))
    assert _toy(build=lambda _: done) is done


# ----------------------------------------------------- the five real models
@pytest.mark.parametrize("key", optsched.PAPERS)
def test_solve_offline_without_start_runs_no_algorithm(key, monkeypatch):
    """With ``start=None`` no registered algorithm runs (each one raises if called)."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **p.demo_size)

    def boom(*_a, **_k):
        raise AssertionError("solve_offline ran an algorithm")

    for name in list(p.algorithms):
        monkeypatch.setitem(p.algorithms, name, boom)
    res = p.solve_offline(inst, time_limit=0.0)
    assert res.status == "time_limit"
    assert not math.isnan(res.bound)


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_solve_offline_keeps_the_callers_start_at_a_zero_limit(key):
    """With no time to solve, the caller's start is the incumbent at its checked value."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **p.demo_size)
    start = best_start(p, inst)
    assert start is not None
    res = p.solve_offline(inst, time_limit=0.0, start=start)
    assert res.status == "time_limit"
    want = p.check(inst, start).objective
    got = p.check(inst, res.schedule).objective
    assert res.objective == pytest.approx(got) and got == pytest.approx(want)


def test_best_start_reuses_the_runs_it_is_given(monkeypatch):
    """OASiS's start rule takes the runs it is handed and runs nothing else."""
    from optsched.oasis.paper import START_ALGORITHMS

    p = optsched.get_paper("oasis")
    inst = p.generate(seed=1, **p.demo_size)
    runs = {name: p.algorithms[name](inst) for name in START_ALGORITHMS}
    best = max(runs.values(), key=lambda s: p.check(inst, s).objective)

    def boom(*_a, **_k):
        raise AssertionError("the start rule re-ran an algorithm")

    for name in list(p.algorithms):
        monkeypatch.setitem(p.algorithms, name, boom)
    got = best_start(p, inst, runs)
    assert p.check(inst, got).objective == p.check(inst, best).objective
    assert any(got is s for s in runs.values())


@pytest.mark.parametrize(
    ("status", "objective", "bound"),
    [("infeasible", math.nan, math.nan), ("optimal", 20.0, 20.0)],
)
def test_skeleton_refuses_a_result_the_checked_start_contradicts(
    status, objective, bound
):
    """A solver "infeasible", or a proven optimum below the checked start (30), raises SolverError."""
    from optsched.core.errors import SolverError

    def wrong(model, values, dl):
        return OfflineResult(objective, bound, status, dl.elapsed(), None)

    with pytest.raises(SolverError):
        _toy(start=(3, 0), solve_step=wrong)
