"""A MIP start survives a variable restricted by its bounds, not one fixed by ``fix()``.

Found in the oasis completion-window search (models/oasis_window.py): with
a fixed variable inside a row, HiGHS ignores the start that
:func:`optsched.core.solver.solve` sets before the run.  Cause (measured on
the model below): Pyomo's persistent HiGHS interface treats a fixed
variable as a parameter and, when the solve begins, re-applies its value
as the column's bounds (``auto_updates.update_parameters``); changing a
bound clears the solution set before.  Passing ``auto_updates={
"update_parameters": False}`` to the solve that follows ``set_instance``
keeps the start (the model was loaded just before, nothing to update);
that one-line change in ``core/solver.py`` changes the digest of every
recorded figure, so it waits for a full re-recording.  Until then the
models restrict by bounds: models/oasis_window.py, and models/edgecloud.py
for ``zeta`` of a job that cannot use the cloud
(``tests/edgecloud/test_edgecloud_milp.py``).  The known answer
is the start's own value: with no branching node, no heuristic and no
presolve, HiGHS's incumbent is the start or nothing.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.common.collections import ComponentMap

from optsched.core.solver import solve

N, K = 60, 6
#: Root node only, no primal heuristic, no presolve: an incumbent can only
#: come from the MIP start.
ROOT_ONLY = {"mip_max_nodes": 0, "mip_heuristic_effort": 0.0, "presolve": "off"}


def _knapsacks(restrict: str):
    """Six random knapsack rows over 60 binaries plus a binary ``y`` in every
    row, ``y`` restricted to 0 by ``restrict`` ("fix" or "bound"), and a
    greedy feasible start with its value."""
    rng = np.random.default_rng(0)
    v = rng.integers(10, 100, N)
    w = rng.integers(5, 60, (K, N))
    cap = w.sum(axis=1) // 3
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(N), domain=pyo.Binary)
    m.y = pyo.Var(domain=pyo.Binary)
    m.obj = pyo.Objective(
        expr=sum(int(v[i]) * m.x[i] for i in range(N)), sense=pyo.maximize
    )
    m.rows = pyo.ConstraintList()
    for r in range(K):
        m.rows.add(
            sum(int(w[r, i]) * m.x[i] for i in range(N)) + 5 * m.y <= int(cap[r])
        )
    if restrict == "fix":
        m.y.fix(0)
    else:
        m.y.setub(0)
    load, chosen = np.zeros(K), set()
    for i in np.argsort(-v / w.sum(axis=0)):
        if np.all(load + w[:, i] <= cap):
            load += w[:, i]
            chosen.add(int(i))
    start = ComponentMap((m.x[i], float(i in chosen)) for i in range(N))
    start[m.y] = 0.0
    return m, start, float(sum(v[i] for i in chosen))


def test_start_is_kept_when_a_variable_is_restricted_by_its_bound():
    m, start, value = _knapsacks("bound")
    res = solve(m, threads=1, options=ROOT_ONLY, start=start)
    assert res.has_solution and res.objective == pytest.approx(value)


@pytest.mark.xfail(
    strict=True,
    reason="known: Pyomo's update of a fixed variable's bounds at solve time "
    "clears the start (module docstring; models/oasis_window.py and "
    "models/edgecloud.py bound instead); "
    "the fix in core.solver changes the digest of every recorded figure",
)
def test_start_is_kept_when_a_variable_is_fixed():
    m, start, value = _knapsacks("fix")
    res = solve(m, threads=1, options=ROOT_ONLY, start=start)
    assert res.has_solution and res.objective == pytest.approx(value)
