"""Tests of optsched.models.edgecloud_relax: ILP (4), its LP relaxation, dual (6), Lemma 1."""

from __future__ import annotations

import functools
import math

import pyomo.environ as pyo
import pytest
from optsched.models.edgecloud import solve_offline
from optsched.models.edgecloud_relax import (
    build_dual6,
    build_dual11,
    build_ilp4,
    chunk_share,
    dual6_from_lp_duals,
)

from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import solve
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server
from tests.edgecloud.instances import small

SEEDS = range(12)
TOL = 1e-6


def optimum(model: pyo.ConcreteModel, **kw) -> float:
    """Proven optimum of a model (asserts the status)."""
    res = solve(model, threads=1, **kw)
    assert res.status == "optimal"
    return res.objective


@functools.cache
def values(seed: int) -> dict[str, float]:
    """Optima of every variant of (4), of (6) and of MINLP (2) on ``small(seed)``."""
    inst = small(seed)
    out = {
        "lp6": optimum(build_ilp4(inst, relax=True, ps=False, chunk_once=False)),
        "dual6": optimum(build_dual6(inst)),
        "lp_4e": optimum(build_ilp4(inst, relax=True, ps=False)),
        "lp": optimum(build_ilp4(inst, relax=True)),
        "ilp": optimum(build_ilp4(inst)),
        "ilp_zeta_one": optimum(build_ilp4(inst, zeta_one=True)),
    }
    off = solve_offline(inst, threads=1)
    assert off.status == "optimal"
    out["minlp"] = off.objective
    # f(y) of (3) at the optimal schedule of (2), with its declared zeta_j.
    a = chunk_share(inst)
    out["f_of_minlp_opt"] = sum(
        a[j, int(off.schedule.zeta[j])] / inst.D[j] * (t - inst.arrival[j])
        for j, _, t, _, _ in off.schedule.runs
    )
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_strong_duality_lp4_equals_dual6(seed):
    """The optimum of (6) equals the LP relaxation of (4) that it dualizes."""
    v = values(seed)
    assert v["dual6"] == pytest.approx(v["lp6"], rel=1e-7, abs=TOL)


@pytest.mark.parametrize("seed", [0, 3])
def test_strong_duality_zeta_one_and_printed_rate(seed):
    """Strong duality also holds for ``zeta_one`` and the printed rates."""
    inst = small(seed)
    for kw in ({"zeta_one": True}, {"rate": "printed"}):
        lp = optimum(build_ilp4(inst, relax=True, ps=False, chunk_once=False, **kw))
        assert optimum(build_dual6(inst, **kw)) == pytest.approx(lp, abs=TOL)


@pytest.mark.parametrize("seed", [0, 5])
def test_lp_row_duals_are_an_optimal_dual6_point(seed):
    """alpha = dual of (4a), beta = -dual of (4b) is feasible and optimal in (6)."""
    inst = small(seed)
    lp = build_ilp4(inst, relax=True, ps=False, chunk_once=False)
    res = solve(lp, duals=True)
    alpha, beta = dual6_from_lp_duals(lp, res.duals)
    assert min(alpha.values()) >= -TOL and min(beta.values()) >= -TOL
    dual = build_dual6(inst)
    for k in dual.alpha:
        dual.alpha[k].value = alpha[k]
    for k in dual.beta:
        dual.beta[k].value = beta[k]
    for row in dual.c6a.values():
        assert pyo.value(row.body) <= pyo.value(row.upper) + 1e-7
    assert pyo.value(dual.obj) == pytest.approx(res.objective, abs=TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_lemma1_ilp4_below_minlp2(seed):
    """Lemma 1: ILP (4) <= f(y*) of (2)'s optimum y* <= MINLP (2) optimum."""
    v = values(seed)
    assert v["ilp"] <= v["f_of_minlp_opt"] + TOL
    assert v["f_of_minlp_opt"] <= v["minlp"] + TOL


@pytest.mark.parametrize("seed", SEEDS)
def test_relaxation_chain(seed):
    """LP of (6) <= LP with (4e) <= full LP of (4) <= ILP (4), and zeta_one <= ILP (4)."""
    v = values(seed)
    assert v["lp6"] <= v["lp_4e"] + TOL
    assert v["lp_4e"] <= v["lp"] + TOL
    assert v["lp"] <= v["ilp"] + TOL
    assert v["ilp_zeta_one"] <= v["ilp"] + TOL


def test_4e_is_not_redundant_in_the_relaxation():
    """Sec. IV-D calls (4e) redundant after relaxing; on seed 3 it is not."""
    v = values(3)
    assert v["lp6"] < v["lp_4e"] - 1e-3


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_printed_window_of_6a_gives_a_weaker_dual(seed):
    """(6a) for all t >= r_j (as printed) is only a weak bound, strictly below here."""
    inst = small(seed)
    weak = optimum(build_dual6(inst, printed_window=True))
    assert weak < values(seed)["lp6"] - 1e-3


def one_fast_job() -> EdgeCloudInstance:
    """One single-chunk job with ``n_j = 4 E_j B_j``: one slot, on the edge from slot 2."""
    job = Job(
        arrival=1, chunks=1, minibatches=1, epochs=1, minibatch_hours=0.25,
        update_ms=0.0, model_mb=0.0, bandwidth_mbps=8.0, worker_type=0,
        ps_type=0, delay=(1, 3),
    )  # fmt: skip
    return EdgeCloudInstance(6, 1, 1, (Server(workers=(1,), ps=(1,)),), (job,))


def test_printed_rate_breaks_lemma1_and_slots_rate_does_not():
    """With the printed n_jsw of (3), ILP (4) = 4 > 1 = MINLP (2); with 1/k it is 1."""
    inst = one_fast_job()
    assert inst.rate[0, 0] == pytest.approx(4.0) and inst.chunk_slots[0, 0] == 1
    off = solve_offline(inst, threads=1)
    assert off.status == "optimal" and off.objective == 1
    assert optimum(build_ilp4(inst, rate="printed")) == pytest.approx(4.0)
    assert optimum(build_ilp4(inst)) == pytest.approx(1.0)


def test_ilp4_zeta_rows_price_the_cloud_rate():
    """A job alone in the cloud gets zeta_j = 1 (the faster rate) in ILP (4)."""
    inst = small(1)
    m = build_ilp4(inst)
    assert solve(m, threads=1).status == "optimal"
    for j in range(inst.n_jobs):
        edge = [
            k for k in m.Y if k[0] == j and k[2] != inst.cloud and m.y[k].value > 0.5
        ]
        if not edge and not any(
            m.zps[k].value > 0.5 for k in m.Z if k[0] == j and k[1] != inst.cloud
        ):
            assert m.zeta[j].value > 0.5
        else:
            assert m.zeta[j].value < 0.5


@pytest.mark.parametrize("seed", [2, 7])
@pytest.mark.parametrize("eps", [0.25, 1.0])
def test_dual11_strong_duality_and_lemma5(seed, eps):
    """(11) equals the slowed LP; (alpha, beta / (1 + eps)) from (6) is feasible in (11)."""
    inst = small(seed)
    slow = 1.0 / (1.0 + eps)
    lp = optimum(build_ilp4(inst, relax=True, ps=False, chunk_once=False, speed=slow))
    d11 = build_dual11(inst, eps)
    assert optimum(d11) == pytest.approx(lp, abs=TOL)
    assert lp >= values(seed)["lp6"] - TOL  # a slower machine never helps
    d6 = build_dual6(inst)
    optimum(d6)
    for k in d11.alpha:
        d11.alpha[k].value = d6.alpha[k].value
    for k in d11.beta:
        d11.beta[k].value = d6.beta[k].value / (1.0 + eps)
    for row in d11.c6a.values():
        assert pyo.value(row.body) <= pyo.value(row.upper) + 1e-7


@pytest.mark.parametrize("seed", [0, 4, 9, 11])
def test_minlp_optimum_is_a_feasible_point_of_ilp4(seed):
    """The optimal schedule of (2), written as y, z, zeta, satisfies every row of (4)."""
    inst = small(seed)
    off = solve_offline(inst, threads=1)
    m = build_ilp4(inst)
    for var in (m.y, m.zps, m.zeta):
        for v in var.values():
            v.value = 0
    first = [sum(int(x) for x in inst.D[:j]) for j in range(inst.n_jobs)]
    zeta = [int(z) for z in off.schedule.zeta]
    for j, d, t, s, w in off.schedule.runs:
        if s == inst.cloud:
            m.y[j, d, s, first[j] + d, t, zeta[j]].value = 1
        else:
            m.y[j, d, s, w, t, 0].value = 1
    for j, t, s, p in off.schedule.ps:
        m.zps[j, s, j if s == inst.cloud else p, t].value = 1
    for j, z in enumerate(zeta):
        m.zeta[j].value = z
    for con in m.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        assert con.lower is None or body >= pyo.value(con.lower) - 1e-9, con.name
        assert con.upper is None or body <= pyo.value(con.upper) + 1e-9, con.name
    assert pyo.value(m.obj) == pytest.approx(values(seed)["f_of_minlp_opt"])


def test_bad_rate_reading_raises():
    """An unknown ``rate`` names the bad value."""
    with pytest.raises(InvalidInstanceError, match="rate"):
        build_ilp4(small(0), rate="paper")
    with pytest.raises(InvalidInstanceError, match="eps"):
        build_dual11(small(0), -1.0)


def test_values_are_finite():
    """Every cached optimum is a finite number."""
    assert all(math.isfinite(x) for x in values(0).values())
