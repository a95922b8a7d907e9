"""Shared by the tests of the okita decompositions (``benchmarks/okita_patterns.py``,
``benchmarks/okita_slotcols.py``): small instances with proven optima and the
v3 LP each decomposition is compared with."""

from optsched.models.okita import build_model

from optsched.core.solver import solve

#: Small generated instances (seed, sites, jobs, slots, cost kind) on which
#: HiGHS proves the optimum of v3 in seconds.
SMALL = [
    (0, 2, 3, 8, "exp"),
    (1, 2, 3, 8, "linear"),
    (2, 2, 3, 8, "piecewise"),
    (2, 2, 4, 10, "exp"),
    (1, 3, 4, 12, "exp"),
    (3, 3, 4, 12, "exp"),
]


def v3_lp(inst) -> float:
    """The LP relaxation of v3 (solved by HiGHS, asserted optimal)."""
    res = solve(build_model(inst, relax=True, formulation="v3"), threads=1)
    assert res.status == "optimal"
    return res.objective
