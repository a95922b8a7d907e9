"""Dual certificate of A_online: Lemmas 2, 4, 5 and Theorem 3 measured.

Outcomes on the generated instances (``small`` of test_edgecloud_relax, 30
seeds, eps = 0) when this file was written: Lemma 4 holds on 18 of 30, i.e.
on *every* instance whose edge workers are busy from each chunk's ``t0``,
with no PS shortage and chunks released in dispatch order (the three
assumptions of the proof); Lemma 2 holds on 7 of 30, largest violation 0.5
of (6a), almost all on edge rows of workers the chunk was *not* given (App.
C fixes the worker that receives ``d`` and counts ``1/D_j`` of ``d`` in
``beta_sw(t')``; (6a) must also hold where ``d`` is absent), once (seed 19)
on the chunk's own worker after the worker emptied (``beta = 0``, no case
of App. C applies, and ``alpha`` still carries the postponement term).  On
20 wider instances (5 jobs, 8-hour slots, cloud reachable) Lemma 2 fails on
all 20 through cloud rows (see the last test).
"""

from __future__ import annotations

import functools

import pyomo.environ as pyo
import pytest
from optsched.models.edgecloud_relax import build_ilp4

from optsched.core.solver import solve
from optsched.edgecloud.certificate import Certificate, certificate, dual_point_model
from optsched.edgecloud.instance import EdgeCloudInstance, Job, generate
from optsched.edgecloud.online import AOnlineParams, a_online
from tests.edgecloud.instances import small
from tests.edgecloud.test_edgecloud_online import COMMON, tiny

TOL = 1e-9
SEEDS = range(30)


def hand_preemption() -> EdgeCloudInstance:
    """test_hand_trace_haprf_preemption: alpha = (4, 3), sum beta = 7."""
    return tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=3, delay=(1, 10), **COMMON),
        Job(arrival=2, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )


def hand_split() -> EdgeCloudInstance:
    """test_hand_trace_split_job_cloud_at_zeta_0: alpha = (2, 3), sum beta = 5."""
    return tiny(
        Job(arrival=1, chunks=2, minibatches=2, epochs=3, delay=(1, 3), **COMMON)
    )


@functools.cache
def cert(seed: int, eps: float = 0.0) -> Certificate:
    inst = small(seed)
    return certificate(
        inst, a_online(inst, params=AOnlineParams(speed=1 + eps)), eps=eps
    )


def model_violation(c: Certificate) -> float:
    """Max of body - upper over the Pyomo rows of build_dual6/11 at the point."""
    m = dual_point_model(c)
    return max(
        max(pyo.value(row.body) - pyo.value(row.upper), 0.0) for row in m.c6a.values()
    )


def lp_optimum(c: Certificate) -> float:
    """Optimum of the LP that (6) / (11) dualizes, on the certificate's instance."""
    model = build_ilp4(
        c.meta["dual_instance"],
        relax=True,
        ps=False,
        chunk_once=False,
        speed=1 / (1 + c.eps),
    )
    res = solve(model, threads=1)
    assert res.status == "optimal"
    return res.objective


# ----------------------------------------------------------- hand traces
def test_hand_trace_lemmas_2_and_4_exact():
    """Worker busy from t0, no PS shortage, cloud far: both lemmas hold exactly."""
    inst = hand_preemption()
    c = certificate(inst, a_online(inst))
    assert c.alpha == {(0, 0): 4.0, (1, 0): 3.0}
    assert c.sum_alpha == c.sum_beta == 7.0 and c.lemma4
    # beta on the edge worker: job 0 on [1, 5], job 1 on [2, 3]
    assert [c.beta.get((0, 0, t), 0.0) for t in range(1, 7)] == [1, 2, 2, 1, 1, 0]
    assert c.max_violation == 0.0 and c.lemma2 and c.n_violated == 0
    assert model_violation(c) == 0.0
    assert c.dual_objective == 0.0  # eps = 0: sum alpha - sum beta
    assert c.primal_jct == 5.0
    assert c.busy_from_t0 and not c.ps_shortage and c.fifo_release
    assert c.bound_ilp4 == float("inf")


def test_hand_trace_speed_lemma5():
    """At speed 2 (eps = 1) beta' = beta / 2 and the (11a) rows hold (Lemma 5)."""
    inst = hand_preemption()
    c = certificate(inst, a_online(inst, params=AOnlineParams(speed=2.0)), eps=1.0)
    assert c.lemma4 and c.lemma2 and model_violation(c) == 0.0
    assert sum(c.beta.values()) == pytest.approx(c.sum_beta / 2)
    # D_I = eps / (1 + eps) sum alpha (Lemma 4 + Lemma 5), Theorem 3's bounds
    assert c.dual_objective == pytest.approx(c.sum_alpha / 2)
    assert c.bound_ilp4 == 2.0 and c.bound_minlp == 2.0
    assert c.sum_alpha <= c.bound_ilp4 * lp_optimum(c) + TOL


def test_hand_split_job_lemma4_holds_lemma2_fails():
    """Lemma 4 exact (5 = 5) but the paper's point violates (6a) in three places.

    alpha = (2, 3), D = 2, p = 3 on the edge, p = (3, 2) in the cloud at
    zeta = (0, 1), a = (1/3, 1/2), Delta = (1, 3).
    * edge row of chunk 1 (sent to the cloud) at t = 2: beta = 1/2 (chunk
      0 only): a alpha = 1 > a (t - r)/D + beta = 1/6 + 1/2, excess 1/3 --
      App. C counts d's own 1/D_j in beta_sw(t'), absent on this worker;
    * cloud row of chunk 0 (kept on the edge) at t = r + Delta_c = 4 on its
      unused cloud worker: a_1 alpha = 1 > a_1 3/2, excess 1/4;
    * cloud row of chunk 1 on its own cloud worker at t = 4: it trains at the
      zeta = 0 rate (alpha = (3 + 3)/2) but the row uses n_j1: 1/2 * 3 >
      1/2 * 3/2 + 1/2, excess 1/4.
    """
    inst = hand_split()
    c = certificate(inst, a_online(inst))
    assert c.sum_alpha == c.sum_beta == 5.0 and c.lemma4
    assert c.max_violation == pytest.approx(1 / 3)
    assert model_violation(c) == pytest.approx(c.max_violation)
    v = c.violations.set_index(["job", "chunk", "server", "slot"])
    assert v.excess[0, 1, 0, 2] == pytest.approx(1 / 3)
    assert v.kind[0, 1, 0, 2] == "edge" and not v.own[0, 1, 0, 2]
    assert v.excess[0, 0, 1, 4] == pytest.approx(1 / 4) and not v.own[0, 0, 1, 4]
    assert v.excess[0, 1, 1, 4] == pytest.approx(1 / 4) and v.own[0, 1, 1, 4]
    assert c.repaired_objective < c.dual_objective


def test_beta_modes_and_argument_checks():
    inst = hand_preemption()
    sched = a_online(inst)
    lit = certificate(inst, sched, beta_mode="dispatch")
    # Alg. 4 line 8 at dispatch: job 0 planned to end at 4, later pushed to 5
    assert lit.sum_beta == 6.0 and lit.lemma4_gap == 1.0
    with pytest.raises(ValueError, match="speed"):
        certificate(inst, sched, eps=1.0)
    with pytest.raises(ValueError, match="beta_mode"):
        certificate(inst, sched, beta_mode="x")


# ------------------------------------------------------ generated instances
def test_generated_lemma_outcomes():
    """Record how often Lemma 2 / 4 hold; assert what the proofs guarantee."""
    certs = [cert(s) for s in SEEDS]
    lemma4 = [c.lemma4 for c in certs]
    lemma2 = [c.lemma2 for c in certs]
    assumed = [c.busy_from_t0 and not c.ps_shortage and c.fifo_release for c in certs]
    # Lemma 4 under the proof's assumptions: exact
    for s, c, ok in zip(SEEDS, certs, assumed, strict=True):
        if ok:
            assert c.lemma4, (s, c.lemma4_gap)
        if not c.lemma4:  # a failure always has a failed assumption
            assert not ok
            assert c.lemma4_gap < 0  # realised completions exceed the Q's
    assert sum(assumed) >= 15 and sum(lemma4) >= sum(assumed)
    # Lemma 2: fails on most instances, bounded by 1/2 of (6a) here
    assert 0 < sum(lemma2) < len(certs)
    assert max(c.max_violation for c in certs) == pytest.approx(0.5)
    # every violation on the chunk's own worker is after the worker emptied
    for c in certs:
        for row in c.violations[c.violations.own].itertuples():
            assert c.beta.get((row.server, row.worker, row.slot), 0.0) == 0.0
    # the numpy rows agree with the Pyomo model's rows
    for s in (0, 7, 19):
        assert model_violation(cert(s)) == pytest.approx(cert(s).max_violation)
    print(
        f"\nLemma 4 on {sum(lemma4)}/{len(certs)}, assumptions on {sum(assumed)}; "
        f"Lemma 2 on {sum(lemma2)}/{len(certs)}, max violation "
        f"{max(c.max_violation for c in certs):.3f}"
    )


@pytest.mark.parametrize("seed", range(6))
def test_weak_duality_chain(seed):
    """dual (repaired; the paper's when feasible) <= LP (6) <= ILP (4) <= f <= JCT."""
    c = cert(seed)
    lp = lp_optimum(c)
    assert c.repaired_objective <= lp + 1e-7
    if c.lemma2:
        assert c.dual_objective <= lp + 1e-7
    res = solve(build_ilp4(c.meta["dual_instance"]), threads=1)
    assert res.status == "optimal"
    assert lp <= res.objective + 1e-7
    assert res.objective <= c.primal_ilp4 + 1e-7  # A_online's y is feasible for (4)
    assert c.primal_ilp4 <= c.primal_jct + 1e-9  # Lemma 1 on this schedule


@pytest.mark.parametrize("seed", range(6))
def test_theorem3_with_speed(seed):
    """eps = 1: the (11) point is a lower bound when feasible; Theorem 3's ratio."""
    c = cert(seed, 1.0)
    lp = lp_optimum(c)
    assert c.repaired_objective <= lp + 1e-7
    if c.lemma2:
        assert c.dual_objective <= lp + 1e-7
        if c.lemma4:
            assert c.sum_alpha <= c.bound_ilp4 * lp + 1e-7


def test_wider_instances_cloud_rows_and_proof_scope():
    """5 jobs, 2 servers, 8-hour slots (cloud reachable): 20 instances.

    Lemma 2 fails on every one of them through the cloud rows of chunks kept
    on the edge (the unused per-chunk cloud worker has beta = 0).  What App. C
    does prove holds: on the worker a chunk was given, while that worker
    still has live chunks (beta > 0), no edge row is violated unless one of
    the proof's assumptions (busy from t0, no PS shortage, FIFO releases)
    fails; Lemma 4 holds whenever they all hold.
    """
    n_assumed = 0
    for seed in range(20):
        inst = generate(seed, 5, 2, n_slots=60, slot_hours=8.0, max_chunks=3)
        c = certificate(inst, a_online(inst))
        v = c.violations
        assert not c.lemma2
        assert ((v.kind == "cloud") & ~v.own).any()
        ok = c.busy_from_t0 and not c.ps_shortage and c.fifo_release
        n_assumed += ok
        if ok:
            assert c.lemma4, (seed, c.lemma4_gap)
            for row in v[v.own & (v.kind == "edge")].itertuples():
                assert c.beta.get((row.server, row.worker, row.slot), 0.0) == 0.0
    assert n_assumed >= 2
