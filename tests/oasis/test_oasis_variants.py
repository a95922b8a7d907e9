"""Tests of the named OASiS variants (readings of (23)-(26)) and of the Theorem 4 certificate."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models.oasis import solve_offline

from optsched.oasis.check import check
from optsched.oasis.duality import certificate
from optsched.oasis.instance import ceil_eps, generate
from optsched.oasis.online import OasisParams, oasis, price_params, primal_dual
from optsched.oasis.variants import (
    CLASSES,
    VARIANTS,
    best_single_job_utility,
    job_classes,
    lfloor_params,
    oasis_per_class,
)

SMALL = {"n_jobs": 5, "n_slots": 10, "n_worker_servers": 2, "n_ps_servers": 2}


def _same(a, b) -> bool:
    return bool(
        np.array_equal(a.admitted, b.admitted)
        and np.array_equal(a.workers, b.workers)
        and np.array_equal(a.ps, b.ps)
    )


def _scaled(inst, factor: float):
    """``inst`` with every server capacity multiplied by ``factor``."""
    return dataclasses.replace(
        inst,
        worker_servers=tuple(tuple(c * factor for c in s) for s in inst.worker_servers),
        ps_servers=tuple(tuple(c * factor for c in s) for s in inst.ps_servers),
    )


def test_every_variant_is_registered_and_named():
    import optsched

    p = optsched.get_paper("oasis")
    inst = generate(3, **SMALL)
    for name in VARIANTS:
        sched = p.run(name, inst)
        assert sched.algorithm == name
        check(inst, sched)  # raises on any violated constraint


def test_primal_dual_with_the_literal_parameters_is_oasis():
    inst = generate(1, n_jobs=8, n_slots=12, n_worker_servers=2, n_ps_servers=2)
    pp = price_params(inst)
    ref = oasis(inst, params=OasisParams(prices=pp))
    got = primal_dual(inst, [pp], np.zeros(inst.n_jobs, dtype=np.int64), "x")
    assert _same(ref, got)
    assert np.array_equal(ref.payoff, got.payoff)


def test_primal_dual_rejects_bad_set_indices():
    inst = generate(1, **SMALL)
    pp = price_params(inst)
    with pytest.raises(ValueError, match="which"):
        primal_dual(inst, [pp], np.ones(inst.n_jobs, dtype=np.int64), "x")
    with pytest.raises(ValueError, match="which"):
        primal_dual(inst, [pp], np.zeros(inst.n_jobs - 1, dtype=np.int64), "x")


def test_job_classes_match_the_generator_kinds():
    inst = generate(5, n_jobs=60, n_slots=20)
    cls = job_classes(inst)
    assert [CLASSES[c] for c in cls] == [j.kind for j in inst.jobs]


def test_per_class_with_one_class_is_the_literal_oasis():
    # every job time-sensitive: one class, whose (23)-(26) are the paper's
    inst = generate(2, n_jobs=8, n_slots=12, job_mix=(0.0, 1.0, 0.0))
    assert _same(oasis(inst), oasis_per_class(inst))


def test_per_class_parameters_are_the_literal_ones_of_each_class():
    inst = generate(7, n_jobs=20, n_slots=15)
    cls = job_classes(inst)
    sched = oasis_per_class(inst)
    sets, which = sched.meta["param_sets"], sched.meta["job_param_set"]
    for c in np.unique(cls):
        members = np.flatnonzero(cls == c)
        pp = sets[which[members[0]]]
        assert (which[members] == which[members[0]]).all()
        # L of (25) over the class's jobs only, by hand
        T = inst.n_slots
        work = ceil_eps(inst.work[members]).astype(float)
        dem = inst.w[members].sum(axis=1)
        inv_eta = min(1.0, float(np.min(work * dem / (T * inst.c_worker.sum()))))
        log_fmin = [inst.jobs[i].log_utility(T - inst.arrival[i]) for i in members]
        log_L = min(
            lf - math.log(wk * d) for lf, wk, d in zip(log_fmin, work, dem, strict=True)
        )
        assert pp.log_L1 == pytest.approx(log_L + math.log(inv_eta / 4.0), rel=1e-12)
    # the final prices are the elementwise maximum over the classes' prices
    stacked = np.stack([p for p, _ in sched.meta["prices"]])
    assert np.array_equal(sched.worker_prices, stacked.max(axis=0))


def test_eta_one_raises_L_by_the_literal_eta():
    inst = generate(4, n_jobs=10, n_slots=20, n_worker_servers=3, n_ps_servers=3)
    lit, one = price_params(inst), price_params(inst, eta="one")
    assert one.eta1 == one.eta2 == 1.0
    assert lit.eta1 > 1.0  # the per-job condition binds on generated instances
    assert one.log_L1 == pytest.approx(lit.log_L1 + math.log(lit.eta1), rel=1e-12)
    assert one.log_L2 == pytest.approx(lit.log_L2 + math.log(lit.eta2), rel=1e-12)
    np.testing.assert_array_equal(one.log_U1[one.demanded1], lit.log_U1[lit.demanded1])


def test_lfloor_by_hand():
    inst = generate(0, n_jobs=10, n_slots=10, n_worker_servers=4, n_ps_servers=4)
    F = best_single_job_utility(inst)
    # F: the largest utility at the earliest completion Alg. 2 reaches alone
    assert F == pytest.approx(
        max(
            j.utility(d - 1) for j, d in zip(inst.jobs, inst.min_duration, strict=True)
        ),
        rel=0,
        abs=F,  # upper bound only: F <= max_i f_i(fastest)
    )
    lit, fl = price_params(inst), lfloor_params(inst)
    for side, cap, U in (
        ("1", inst.c_worker, fl.log_U1[fl.demanded1]),
        ("2", inst.c_ps, fl.log_U2[fl.demanded2]),
    ):
        want = max(
            getattr(lit, f"log_L{side}"),
            min(math.log(F / (4 * inst.n_slots * cap.sum())), float(U.min())),
        )
        assert getattr(fl, f"log_L{side}") == pytest.approx(want, rel=1e-12)
    assert fl.alpha < lit.alpha


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(seed=st.integers(0, 10_000))
def test_theorem4_links_on_random_instances(seed):
    """F <= OPT, D_0 <= OPT/2 for the claiming variants, OPT <= D_exact for all."""
    inst = generate(seed, **SMALL)
    opt = solve_offline(inst, time_limit=60, threads=1)
    assert opt.status == "optimal"
    assert best_single_job_utility(inst) <= opt.objective + 1e-9
    for name, algo in VARIANTS.items():
        sched = algo(inst)
        cert = certificate(inst, sched)
        assert cert.primal == pytest.approx(check(inst, sched).objective)
        assert cert.primal <= opt.objective + 1e-6
        assert cert.bounds_opt(opt.objective), name
        if name in ("oasis", "oasis_lfloor") and opt.objective > 0:
            # (35) assumes OPT admits a job
            assert cert.d0 <= opt.objective / 2 + 1e-9, name


def test_certificate_holds_when_demands_are_small_and_can_fail_otherwise():
    """Theorem 4's proof assumes w << c: with capacities x 1000 every link holds."""
    broken = 0
    for seed in range(5):
        inst = generate(seed, n_jobs=10, n_slots=10, n_worker_servers=2, n_ps_servers=2)
        cert = certificate(_scaled(inst, 1000.0), oasis(_scaled(inst, 1000.0)))
        assert cert.dual_feasible and cert.lemma2_holds
        c1 = certificate(inst, oasis(inst))
        broken += (not c1.lemma2_holds) + (not c1.dual_feasible)
    assert broken > 0  # the same instances at their own capacities break the proof


def test_certificate_detects_an_infeasible_dual():
    inst = generate(0, **SMALL)
    sched = oasis(inst)
    assert certificate(inst, sched).dual_feasible
    # free resources and mu = 0: every job that can finish violates (20)
    forged = dataclasses.replace(
        sched,
        payoff=np.zeros(inst.n_jobs),
        worker_prices=np.zeros_like(sched.worker_prices),
        ps_prices=np.zeros_like(sched.ps_prices),
    )
    cert = certificate(inst, forged)
    F = best_single_job_utility(inst)
    assert F > 0 and cert.n_violations > 0
    assert cert.max_violation >= F - 1e-9  # exact oracle >= Alg. 2's best


def test_certificate_needs_a_primal_dual_run():
    import optsched

    inst = generate(0, **SMALL)
    with pytest.raises(ValueError, match="payoffs/prices"):
        certificate(inst, optsched.get_paper("oasis").run("fifo", inst))
