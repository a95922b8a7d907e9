"""No solve with a MIP start holds a fixed variable inside a row, in any slice.

``tests/core/test_solver_start_fixed.py`` shows the hazard: through Pyomo's
persistent HiGHS interface a variable fixed by ``fix()`` that appears in a
row has its bounds re-applied when the solve begins, which clears the MIP
start (the run goes on without it, silently).  The models therefore
restrict by bounds.  One ``fix()`` is left, in ``models/oasis.py``: the
admission ``x[i]`` of a job that cannot finish within the horizon, which
enters no row.  Here:

* the mechanism on that very model: a root-only solve (no branching, no
  heuristic, no presolve: an incumbent can only come from the start)
  returns the start's checked value as the model is built, and nothing
  once the fixed variables are put into one extra row;
* every slice's ``solve_offline`` from the harness's start (the path of
  every ratio row and recorded figure), with every model handed to
  :func:`optsched.core.solver.solve` together with a start inspected: no
  fixed variable may occur in an active row.
"""

from __future__ import annotations

import pyomo.environ as pyo
import pytest
from optsched.models import oasis as oasis_model
from pyomo.core.expr.visitor import identify_variables

import optsched
from optsched.core import solver
from optsched.core.ratio import best_start
from optsched.oasis.check import check as oasis_check
from optsched.oasis.instance import generate as oasis_generate
from optsched.oasis.paper import default_start as oasis_start

#: Root node only, no primal heuristic, no presolve (as the knapsack test).
ROOT_ONLY = {"mip_max_nodes": 0, "mip_heuristic_effort": 0.0, "presolve": "off"}


def fixed_in_rows(model: pyo.ConcreteModel) -> list[str]:
    """Names of the fixed variables that occur in an active constraint."""
    found: set[str] = set()
    for con in model.component_data_objects(pyo.Constraint, active=True):
        for v in identify_variables(con.body, include_fixed=True):
            if v.fixed:
                found.add(v.name)
    return sorted(found)


@pytest.fixture
def seen(monkeypatch) -> list[tuple[str, list[str]]]:
    """``(model name, fixed variables in rows)`` of every solve given a start
    while the test runs (:func:`optsched.core.solver._set_start` wrapped)."""
    out: list[tuple[str, list[str]]] = []
    real = solver._set_start

    def inspecting(opt, model, start, kwargs):
        out.append((model.name, fixed_in_rows(model)))
        return real(opt, model, start, kwargs)

    monkeypatch.setattr(solver, "_set_start", inspecting)
    return out


def _oasis_with_dead_jobs(seed: int):
    """An oasis instance with jobs that cannot finish (so ``x`` is fixed)."""
    inst = oasis_generate(
        seed=seed, n_jobs=8, n_slots=12, n_worker_servers=2, n_ps_servers=2
    )
    model = oasis_model.build_model(inst)
    fixed = [v for v in model.x.values() if v.fixed]
    assert fixed, "the instance was chosen for its jobs that cannot finish"
    return inst, model, fixed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oasis_fixed_admission_keeps_the_start(seed: int) -> None:
    inst, model, _fixed = _oasis_with_dead_jobs(seed)
    start = oasis_start(inst)
    value = oasis_check(inst, start).objective
    assert fixed_in_rows(model) == []
    res = solver.solve(
        model,
        threads=1,
        options=ROOT_ONLY,
        start=oasis_model.start_values(model, inst, start),
    )
    assert res.has_solution
    assert res.objective == pytest.approx(value, rel=1e-9)
    # the incumbent, read back as a schedule, is the start by the checker
    back = oasis_check(inst, oasis_model.extract_schedule(model, inst)).objective
    assert back == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_oasis_fixed_admission_in_a_row_drops_the_start(seed: int) -> None:
    """The control: the same fixed variables in one (slack) row."""
    inst, model, fixed = _oasis_with_dead_jobs(seed)
    start = oasis_start(inst)
    live = [model.x[i] for i in model._oasis["live"]]
    model.extra = pyo.Constraint(expr=sum(fixed) + sum(live) <= len(fixed) + len(live))
    assert fixed_in_rows(model) != []
    res = solver.solve(
        model,
        threads=1,
        options=ROOT_ONLY,
        start=oasis_model.start_values(model, inst, start),
    )
    assert not res.has_solution


@pytest.mark.parametrize("key", sorted(optsched.PAPERS))
def test_no_solve_with_a_start_holds_a_fixed_variable_in_a_row(key, seen):
    p = optsched.get_paper(key)
    for seed in (0, 1):
        inst = p.generate(seed, **p.demo_size)
        res = p.solve_offline(inst, start=best_start(p, inst), time_limit=30, threads=1)
        # the result is the checker's, as for every solve
        assert p.check(inst, res.schedule).objective == pytest.approx(
            res.objective, rel=1e-9
        )
    assert seen, f"{key}: no solve received a MIP start"
    assert [s for s in seen if s[1]] == []


def test_no_neighbourhood_solve_holds_a_fixed_variable_in_a_row(seen):
    """The sub-MILPs of the starts' searches (oasis completion window and
    neighbourhood search, okita neighbourhood search) pass starts too."""
    from optsched.models.oasis_window import window_search

    from optsched.oasis import lns as oasis_lns
    from optsched.okita import lns as okita_lns

    inst, _model, _fixed = _oasis_with_dead_jobs(0)
    start = oasis_start(inst)
    okita = optsched.get_paper("okita")
    okita_inst = okita.generate(0, **okita.demo_size)
    searches = {
        "oasis window": lambda: window_search(inst, start),
        "oasis lns": lambda: oasis_lns.improve(inst, start, rounds=3, k=3),
        "okita lns": lambda: okita_lns.improve(
            okita_inst, best_start(okita, okita_inst), rounds=3, k=3
        ),
    }
    for name, search in searches.items():
        before = len(seen)
        search()
        assert len(seen) > before, f"{name}: no sub-solve received a start"
    assert [s for s in seen if s[1]] == []
