"""The MIP start of the OASiS MILP: feasible, objective of the online schedule, accepted by HiGHS."""

from __future__ import annotations

import pyomo.environ as pyo
import pytest
from optsched.models.oasis import (
    build_model,
    solve_offline,
    start_values,
)
from pyomo.core.expr.visitor import identify_variables

import optsched
from optsched.oasis.paper import START_ALGORITHMS, default_start

SIZES = {"n_jobs": 6, "n_slots": 8, "n_worker_servers": 2, "n_ps_servers": 2}


def _violations(model: pyo.ConcreteModel, values) -> list[str]:
    """Rows of ``model`` violated by ``values`` (an independent evaluation of every constraint)."""
    for v, x in values.items():
        v.set_value(x, skip_validation=True)
    bad = []
    for c in model.component_data_objects(pyo.Constraint, active=True):
        assert all(v.value is not None for v in identify_variables(c.body)), c.name
        body = pyo.value(c.body)
        lo, up = pyo.value(c.lower), pyo.value(c.upper)
        if (lo is not None and body < lo - 1e-7) or (
            up is not None and body > up + 1e-7
        ):
            bad.append(c.name)
    for v in values:
        if (v.lb is not None and v.value < v.lb) or (
            v.ub is not None and v.value > v.ub
        ):
            bad.append(v.name)
        if v.is_integer() and abs(v.value - round(v.value)) > 0:
            bad.append(v.name)
    return bad


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("alg", START_ALGORITHMS)
def test_start_is_feasible_with_the_online_objective(seed: int, alg: str) -> None:
    """Every constraint holds at the start and (1) equals the checker's value of the online schedule."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=seed, **SIZES)
    sched = p.run(alg, inst)
    model = build_model(inst)
    values = start_values(model, inst, sched)
    n_vars = sum(1 for v in model.component_data_objects(pyo.Var) if not v.fixed)
    assert len(values) == n_vars  # a full start
    assert _violations(model, values) == []
    assert pyo.value(model.obj) == pytest.approx(
        p.check(inst, sched).objective, rel=1e-9
    )


@pytest.mark.parametrize("seed", range(4))
def test_started_solve_equals_the_unstarted_optimum(seed: int) -> None:
    """The MIP start changes the search, never the proven optimum; both beat the start."""
    inst = optsched.get_paper("oasis").generate(seed=seed, **SIZES)
    start = default_start(inst)
    online = optsched.get_paper("oasis").check(inst, start).objective
    a = solve_offline(inst, time_limit=60, threads=1, start=start)
    b = solve_offline(inst, time_limit=60, threads=1)
    assert a.status == b.status == "optimal"
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    assert a.objective >= online - 1e-9


def test_highs_accepts_the_start(capfd: pytest.CaptureFixture[str]) -> None:
    """HiGHS's log says the start is feasible (it was passed, not silently dropped)."""
    from optsched.models.oasis import HIGHS_OPTIONS

    from optsched.core.solver import solve

    inst = optsched.get_paper("oasis").generate(seed=3, **SIZES)
    model = build_model(inst)
    start = start_values(model, inst, default_start(inst))
    solve(model, options=HIGHS_OPTIONS, start=start, verbose=True, threads=1)
    assert "MIP start solution is feasible" in capfd.readouterr().out
