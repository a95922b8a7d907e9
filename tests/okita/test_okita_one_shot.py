"""OSF's one-shot problems: PA against the placement MILP (5), DTA against (7).

The paper solves (5) by enumerating the PS site and placing workers greedily
in the order of ``Q_i^r(t)`` (Alg. 2) and (7) by a greedy heuristic (Alg. 3);
it calls neither optimal.  These tests check that PA's and DTA's answers
are feasible points of the exact models with costs at least the models'
optima, that PA fails exactly when (5) is infeasible, and, on hand
instances, that both heuristics can be strictly worse than the optimum.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from optsched.models.okita import build_placement, build_transfer

from optsched.core.solver import solve
from optsched.okita.online import dta, pa


def _placement_case(rng):
    R, K = int(rng.integers(2, 5)), int(rng.integers(2, 4))
    C = rng.integers(2, 12, size=(R, K)).astype(float)
    U = np.floor(C * rng.uniform(0.3, 1.0, size=(R, K)))
    q = np.triu(rng.uniform(0.02, 0.08, size=(R, R)), 1)
    q = q + q.T
    m = rng.integers(0, 4, size=K).astype(float)
    m[0] = max(m[0], 1.0)
    n = rng.integers(0, 3, size=K).astype(float)
    M = rng.integers(0, 10, size=R)
    D = M + rng.integers(0, 5, size=R)
    return U, C, q, float(rng.uniform(30, 575)), M, D, m, n, int(rng.integers(1, 8))


def test_pa_is_feasible_for_5_and_never_beats_its_optimum():
    rng = np.random.default_rng(5)
    optimal = worse = infeasible = 0
    for _ in range(60):
        U, C, q, pi, M, D, m, n, N = _placement_case(rng)
        cost, y, s = pa(U, C, q, pi, M, D, m, n, N, 1)
        res = solve(build_placement(U, q, pi, m, n, N), threads=1)
        if not np.isfinite(cost):
            assert res.status == "infeasible", (U, m, n, N)
            infeasible += 1
            continue
        assert res.status == "optimal"
        assert y.sum() >= N and s.sum() == 1  # (5a), (5c)
        use = m * y[:, None] + n * s[:, None]
        assert np.all(use <= U + 1e-9)  # (5b)
        p = int(np.argmax(s))
        assert cost == pytest.approx(float(np.sum(q[:, p] * pi * y)))
        assert cost >= res.objective - 1e-6 * max(1.0, res.objective)
        if cost <= res.objective + 1e-6 * max(1.0, res.objective):
            optimal += 1
        else:
            worse += 1
    assert infeasible and optimal and optimal + worse + infeasible == 60


def test_pa_can_be_worse_than_the_optimum_by_hand():
    """Three sites, one resource, a PS that needs nothing, N = 4 workers.

    Site 0 can host all four; it is far from the others (q = 0.08 to both)
    while sites 1 and 2 are close (q = 0.01) and host two each.  With pi =
    100 and beta = 1, ``Q`` (Eq. (6)) = free share - mean q pi + data share:
    site 0: 4/4 - 8 + 1 = -6, sites 1, 2: 2/4 - 4.5 + 1 = -3, so PA fills
    sites 1 and 2 for every PS site and its best is PS on 1 (or 2): cost
    ``2 x 0.01 x 100 = 2``.  The optimum of (5) puts the four workers and
    the PS on site 0: cost 0.  ``Q``'s bandwidth term is the mean ``q`` to
    all sites, not the ``q`` to the PS being tried.
    """
    U = np.array([[4.0], [2.0], [2.0]])
    C = np.array([[4.0], [4.0], [4.0]])
    q = np.array([[0.0, 0.08, 0.08], [0.08, 0.0, 0.01], [0.08, 0.01, 0.0]])
    m, n, pi = np.array([1.0]), np.array([0.0]), 100.0
    M = D = np.array([1, 1, 1])
    cost, y, s = pa(U, C, q, pi, M, D, m, n, 4, 1)
    assert y.tolist() == [0, 2, 2] and cost == pytest.approx(2.0)
    res = solve(build_placement(U, q, pi, m, n, 4), threads=1)
    assert res.status == "optimal" and res.objective == pytest.approx(0.0)


def test_dta_is_feasible_for_7_and_never_beats_its_optimum():
    rng = np.random.default_rng(7)
    optimal = 0
    for _ in range(60):
        R = int(rng.integers(2, 6))
        M = rng.integers(0, 12, size=R)
        d = rng.integers(0, 12, size=R)
        while d.sum() > M.sum():
            d[int(rng.integers(R))] //= 2
        q = np.triu(rng.uniform(0.02, 0.08, size=(R, R)), 1)
        q = q + q.T
        cost, g = dta(M, d, q, 40.0)
        assert np.all(g.sum(axis=0) == d)  # every site gets its workload
        assert np.all(g.sum(axis=1) <= np.maximum(M, 0))  # sends only what it has
        model = build_transfer(M, d, q, 40.0)
        res = solve(model, threads=1)
        assert res.status == "optimal"
        assert cost >= res.objective - 1e-6 * max(1.0, res.objective)
        optimal += cost <= res.objective + 1e-6 * max(1.0, res.objective)
        # totally unimodular: the LP relaxation has the same optimum
        for v in model.g.values():
            v.domain = pyo.NonNegativeReals
        assert solve(model, threads=1).objective == pytest.approx(res.objective)
    assert optimal >= 30


def test_dta_greedy_is_suboptimal_by_hand():
    """Deficit sites 0 and 1 need one chunk each; sites 2 and 3 have one spare.

    DTA serves site 0 first from its cheapest source 2 (q 1), leaving site 1
    the expensive source 3 (q 10): 11 per MB.  The optimum sends 3 -> 0 (2)
    and 2 -> 1 (1): 3 per MB.
    """
    q = np.array(
        [[0, 9, 1, 2], [9, 0, 1, 10], [1, 1, 0, 9], [2, 10, 9, 0]], dtype=float
    )
    M, d = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    cost, g = dta(M, d, q, 1.0)
    assert cost == pytest.approx(11.0) and g[2, 0] == 1 and g[3, 1] == 1
    res = solve(build_transfer(M, d, q, 1.0), threads=1)
    assert res.objective == pytest.approx(3.0)
