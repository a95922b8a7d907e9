"""Tests of the storage extension in optsched.models.edgecloud_relax: ILP (8), its LP, dual (9)."""

from __future__ import annotations

import functools

import pyomo.environ as pyo
import pytest
from optsched.models.edgecloud import solve_offline
from optsched.models.edgecloud_relax import (
    build_dual6,
    build_dual9,
    build_ilp4,
    build_ilp8,
    chunk_share,
    dual9_from_lp_duals,
)

from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import solve
from tests.edgecloud.instances import small, small_storage

DUAL_SEEDS = range(8)
#: seeds whose MILP of (2)+(7) HiGHS proves in well under a second
MILP_SEEDS = (0, 1, 4, 6, 8, 10)
TOL = 1e-6


def optimum(model: pyo.ConcreteModel, **kw) -> float:
    """Proven optimum of a model (asserts the status)."""
    res = solve(model, threads=1, **kw)
    assert res.status == "optimal"
    return res.objective


def lp9(inst) -> pyo.ConcreteModel:
    """The LP that (9) dualizes (reading 7): relaxed (8), no PS rows, no (4e)."""
    return build_ilp8(
        inst, relax=True, ps=False, chunk_once=False, occupancy="training"
    )


@functools.cache
def values(seed: int) -> dict[str, float]:
    """Optima of (4), (6), (8), (9) and of MINLP (2)+(7) on ``small_storage(seed)``."""
    inst = small_storage(seed)
    out = {
        "lp6": optimum(build_ilp4(inst, relax=True, ps=False, chunk_once=False)),
        "lp9": optimum(lp9(inst)),
        "dual9": optimum(build_dual9(inst)),
        "lp8_stored": optimum(build_ilp8(inst, relax=True, ps=False, chunk_once=False)),
        "lp8": optimum(build_ilp8(inst, relax=True)),
        "ilp8": optimum(build_ilp8(inst)),
        "ilp4": optimum(build_ilp4(inst)),
    }
    if seed in MILP_SEEDS:
        off = solve_offline(inst, threads=1)
        assert off.status == "optimal"
        out["milp"] = off.objective
    return out


@pytest.mark.parametrize("seed", DUAL_SEEDS)
def test_strong_duality_lp8_equals_dual9(seed):
    """The optimum of (9) equals the relaxed (8) it dualizes (reading 7)."""
    inst = small_storage(seed)
    assert inst.storage
    assert optimum(build_dual9(inst)) == pytest.approx(
        optimum(lp9(inst)), rel=1e-7, abs=TOL
    )


@pytest.mark.parametrize("seed", [0, 9])
def test_lp_row_duals_are_an_optimal_dual9_point(seed):
    """alpha, beta, eta = duals of (4a), -(4b), -(7b) are feasible and optimal in (9)."""
    inst = small_storage(seed)
    lp = lp9(inst)
    res = solve(lp, duals=True)
    alpha, beta, eta = dual9_from_lp_duals(lp, res.duals)
    assert min(alpha.values()) >= -TOL and min(beta.values()) >= -TOL
    assert min(eta.values()) >= -TOL and max(eta.values()) > TOL  # (7b) binds
    dual = build_dual9(inst)
    for var, val in ((dual.alpha, alpha), (dual.beta, beta), (dual.eta, eta)):
        for k in var:
            var[k].value = val.get(k, 0.0)
    for row in dual.c9a.values():
        assert pyo.value(row.body) <= pyo.value(row.upper) + 1e-7
    assert pyo.value(dual.obj) == pytest.approx(res.objective, abs=TOL)


@pytest.mark.parametrize("seed", MILP_SEEDS)
def test_lemma1_chain_with_storage(seed):
    """LP (6) <= LP (9) <= LP (8) <= ILP (8) <= MINLP (2)+(7); ILP (4) <= ILP (8)."""
    v = values(seed)
    assert v["dual9"] == pytest.approx(v["lp9"], abs=TOL)
    assert v["lp6"] <= v["lp9"] + TOL
    assert v["lp9"] <= v["lp8_stored"] + TOL
    assert v["lp8_stored"] <= v["lp8"] + TOL
    assert v["lp8"] <= v["ilp8"] + TOL
    assert v["ilp8"] <= v["milp"] + TOL
    assert v["ilp4"] <= v["ilp8"] + TOL


def test_storage_binds_and_7a_7cd_are_not_redundant():
    """On seed 0 (7b) raises the LP (6.67 > 4.88) and (7a), (7c)-(7d) raise it again (8.42)."""
    v = values(0)
    assert v["lp9"] > v["lp6"] + 1.0
    assert v["lp8_stored"] > v["lp9"] + 1.0
    assert v["ilp8"] <= v["milp"] + TOL


@pytest.mark.parametrize("seed", [0, 4])
def test_dual6_point_with_eta_zero_is_feasible_in_dual9(seed):
    """Sec. VI's construction: an optimal point of (6) with eta = 0 is feasible in (9)."""
    inst = small_storage(seed)
    d6 = build_dual6(inst)
    obj6 = optimum(d6)
    d9 = build_dual9(inst)
    for k in d9.alpha:
        d9.alpha[k].value = d6.alpha[k].value
    for k in d9.beta:
        d9.beta[k].value = d6.beta[k].value
    for k in d9.eta:
        d9.eta[k].value = 0.0
    for row in d9.c9a.values():
        assert pyo.value(row.body) <= pyo.value(row.upper) + 1e-7
    assert pyo.value(d9.obj) == pytest.approx(obj6, abs=TOL)
    assert obj6 <= values(seed)["dual9"] + TOL


@pytest.mark.parametrize("seed", [4, 10])
def test_milp_optimum_is_a_feasible_point_of_ilp8(seed):
    """The optimal schedule of (2)+(7), with x = 1 on [r_j, c_jd] at its server, satisfies (8)."""
    inst = small_storage(seed)
    off = solve_offline(inst, threads=1)
    assert off.status == "optimal"
    m = build_ilp8(inst)
    for var in (m.y, m.zps, m.zeta, m.x):
        for v in var.values():
            v.value = 0
    first = [sum(int(x) for x in inst.D[:j]) for j in range(inst.n_jobs)]
    zeta = [int(z) for z in off.schedule.zeta]
    last: dict[tuple[int, int, int], int] = {}
    for j, d, t, s, w in off.schedule.runs.tolist():
        if s == inst.cloud:
            m.y[j, d, s, first[j] + d, t, zeta[j]].value = 1
        else:
            m.y[j, d, s, w, t, 0].value = 1
            last[j, d, s] = max(last.get((j, d, s), 0), t)
    for (j, d, s), c_jd in last.items():
        for t in range(int(inst.arrival[j]), c_jd + 1):
            if (j, d, s, t) in m.x:
                m.x[j, d, s, t].value = 1
    for j, t, s, p in off.schedule.ps.tolist():
        m.zps[j, s, j if s == inst.cloud else p, t].value = 1
    for j, z in enumerate(zeta):
        m.zeta[j].value = z
    for con in m.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        assert con.lower is None or body >= pyo.value(con.lower) - 1e-9, con.name
        assert con.upper is None or body <= pyo.value(con.upper) + 1e-9, con.name
    a = chunk_share(inst)
    f = sum(
        a[j, zeta[j]] / inst.D[j] * (t - inst.arrival[j])
        for j, _, t, _, _ in off.schedule.runs.tolist()
    )
    assert pyo.value(m.obj) == pytest.approx(f)
    assert f <= off.objective + TOL  # Lemma 1 for (7) and (8)


def test_without_storage_8_is_4_and_9_is_6():
    """On an instance without U_s, (8) adds no storage row and (9) equals (6)."""
    inst = small(0)
    assert not inst.storage
    m = build_ilp8(inst, relax=True, ps=False, chunk_once=False)
    assert len(m.x) == 0 and len(m.c7b_storage) == 0
    assert optimum(build_dual9(inst)) == pytest.approx(
        optimum(build_dual6(inst)), abs=TOL
    )


def test_printed_window_of_9a_is_only_a_weak_bound():
    """(9a) for all t >= r_j (as printed) stays below the LP it should equal."""
    inst = small_storage(0)
    assert optimum(build_dual9(inst, printed_window=True)) < values(0)["lp9"] - 1e-3


def test_bad_occupancy_reading_raises():
    """An unknown ``occupancy`` names the bad value."""
    with pytest.raises(InvalidInstanceError, match="occupancy"):
        build_ilp8(small_storage(0), occupancy="disk")
