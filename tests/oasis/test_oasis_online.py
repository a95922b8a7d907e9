"""Tests of OASiS (Alg. 1) and its best-schedule subroutine (Alg. 2)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optsched.oasis.check import check
from optsched.oasis.instance import Job, OasisInstance, generate
from optsched.oasis.online import best_schedule, oasis, price, price_params


def _tiny(rng: np.random.Generator):
    """A random 1-job instance with T = 3, H = K = 2, plus random prices and loads."""
    T, H, K = 3, 2, 2
    a = int(rng.integers(1, 3))
    job = Job(
        arrival=a,
        epochs=int(rng.integers(1, 3)),
        chunks=int(rng.integers(1, 3)),
        minibatches=1,
        tau=float(rng.choice([0.4, 0.5, 0.75, 1.0, 1.5])),
        grad_mb=0.0,
        worker_demand=(float(rng.integers(1, 4)), float(rng.choice([1.0, 2.0]))),
        ps_demand=(1.0, float(rng.choice([2.0, 3.0, 4.0]))),
        gamma1=float(rng.uniform(5, 50)),
        gamma2=float(rng.uniform(0, 2)),
        gamma3=float(rng.uniform(0, 3)),
    )
    inst = OasisInstance(
        n_slots=T,
        resources=("cpu", "bandwidth"),
        worker_servers=tuple((float(rng.integers(2, 9)), 10.0) for _ in range(H)),
        ps_servers=tuple((float(rng.integers(1, 4)), 10.0) for _ in range(K)),
        jobs=(job,),
    )
    p = rng.uniform(0.1, 3.0, size=(H, 2, T))
    q = rng.uniform(0.1, 3.0, size=(K, 2, T))
    g = np.floor(rng.uniform(0, 1, size=(H, 2, T)) * inst.c_worker[:, :, None])
    v = np.floor(rng.uniform(0, 1, size=(K, 2, T)) * inst.c_ps[:, :, None])
    return inst, p, q, g, v


def _brute_slot_cost(inst, n, p, q, g, v):
    """Cheapest deployment of >= n workers and their PS in one slot, by enumeration."""
    job = inst.jobs[0]
    N = job.chunks
    w, s = np.array(job.worker_demand), np.array(job.ps_demand)
    b, B = w[1], s[1]
    best = math.inf
    H, K = g.shape[0], v.shape[0]
    for y in itertools.product(range(N + 1), repeat=H):
        ny = sum(y)
        if ny < n or ny > N:
            continue
        if any((g[h] + w * y[h] > inst.c_worker[h] + 1e-9).any() for h in range(H)):
            continue
        for z in itertools.product(range(N + 1), repeat=K):
            nz = sum(z)
            if nz > ny or nz * B < ny * b - 1e-9:
                continue
            if any((v[k] + s * z[k] > inst.c_ps[k] + 1e-9).any() for k in range(K)):
                continue
            c = sum(p[h] @ w * y[h] for h in range(H)) + sum(
                q[k] @ s * z[k] for k in range(K)
            )
            best = min(best, c)
    return best


def _brute_payoff(inst, p, q, g, v):
    """max(0, max over deadlines and chunk splits of f - cost), by enumeration (27)."""
    job = inst.jobs[0]
    a, T, D = job.arrival, inst.n_slots, job.epochs * job.chunks
    theta = inst.chunk_time[0]
    slot = {
        (t, d): _brute_slot_cost(
            inst,
            math.ceil(d * theta - 1e-9),
            p[:, :, t - 1],
            q[:, :, t - 1],
            g[:, :, t - 1],
            v[:, :, t - 1],
        )
        for t in range(a, T + 1)
        for d in range(D + 1)
    }
    best = 0.0
    for t_hat in range(a, T + 1):
        span = range(a, t_hat + 1)
        for split in itertools.product(range(D + 1), repeat=len(span)):
            if sum(split) != D:
                continue
            cost = sum(slot[(t, d)] for t, d in zip(span, split, strict=True))
            best = max(best, job.utility(t_hat - a) - cost)
    return best


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_alg2_matches_brute_force(seed):
    """Alg. 2's payoff equals exhaustive search over chunk-granular schedules (Theorem 1)."""
    inst, p, q, g, v = _tiny(np.random.default_rng(seed))
    best = best_schedule(inst, 0, p, q, g, v)
    assert best.payoff == pytest.approx(_brute_payoff(inst, p, q, g, v), abs=1e-9)
    if best.payoff > 0:
        # the returned schedule really costs what it claims and meets (2)
        w, s = inst.w[0], inst.s[0]
        cost = sum(
            (p[:, :, t] @ w) @ best.workers[:, t] + (q[:, :, t] @ s) @ best.ps[:, t]
            for t in range(inst.n_slots)
        )
        assert cost == pytest.approx(best.cost)
        assert best.payoff == pytest.approx(
            inst.utility(0, best.deadline - inst.arrival[0]) - cost
        )
        assert best.workers.sum() >= inst.work[0] - 1e-9


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_jobs=st.integers(1, 12),
    n_slots=st.integers(2, 15),
    H=st.integers(1, 3),
    K=st.integers(1, 3),
)
def test_oasis_schedules_pass_checker(seed, n_jobs, n_slots, H, K):
    """OASiS output is feasible for (2)-(13); admitted iff payoff > 0; prices follow (22)."""
    inst = generate(
        seed, n_jobs=n_jobs, n_slots=n_slots, n_worker_servers=H, n_ps_servers=K
    )
    sched = oasis(inst)
    ev = check(inst, sched)
    assert ev.objective >= 0
    assert np.array_equal(sched.admitted, sched.payoff > 0)
    # final prices recomputed independently from the schedule's usage (Alg. 1 lines 7-10)
    pp = sched.meta["params"]
    g = np.einsum("iht,ir->hrt", sched.workers.astype(float), inst.w)
    v = np.einsum("ikt,ir->krt", sched.ps.astype(float), inst.s)
    with np.errstate(divide="ignore", invalid="ignore"):
        fg = np.where(inst.c_worker[:, :, None] > 0, g / inst.c_worker[:, :, None], 0.0)
        fv = np.where(inst.c_ps[:, :, None] > 0, v / inst.c_ps[:, :, None], 0.0)
    lu1, lu2 = pp.log_U1[None, :, None], pp.log_U2[None, :, None]
    expect_p = np.exp(pp.log_L1 + fg * (lu1 - pp.log_L1))
    expect_q = np.exp(pp.log_L2 + fv * (lu2 - pp.log_L2))
    assert np.allclose(sched.worker_prices, expect_p, rtol=1e-12)
    assert np.allclose(sched.ps_prices, expect_q, rtol=1e-12)


def test_same_seed_same_schedule():
    """The same seed gives an identical instance and schedule."""
    a = oasis(generate(7, n_jobs=15, n_slots=20, n_worker_servers=3, n_ps_servers=3))
    b = oasis(generate(7, n_jobs=15, n_slots=20, n_worker_servers=3, n_ps_servers=3))
    assert np.array_equal(a.workers, b.workers)
    assert np.array_equal(a.ps, b.ps)
    assert np.array_equal(a.payoff, b.payoff)


def test_price_function_endpoints():
    """Prices (22) start at L when nothing is allocated and reach U at capacity."""
    L, U, cap = 0.01, np.array([5.0, 80.0]), np.array([4.0, 10.0])
    assert np.allclose(price(L, U, np.zeros(2), cap), L)
    assert np.allclose(price(L, U, cap, cap), U)
    mid = price(L, U, cap / 2, cap)
    assert np.allclose(mid, np.sqrt(L * U))


def test_price_params_definitions():
    """U, L, eta follow (23)-(26) on a hand instance (computed by hand)."""
    job = Job(
        1, 2, 2, 1, 1.0, 0.0, (2.0, 1.0), (1.0, 2.0), 10.0, 0.0, 1.0, "insensitive"
    )
    inst = OasisInstance(
        n_slots=4,
        resources=("cpu", "bandwidth"),
        worker_servers=((8.0, 10.0),),
        ps_servers=((1.0, 20.0),),
        jobs=(job,),
    )
    pp = price_params(inst)
    f = 10.0 / 2.0  # gamma2 = 0: constant utility gamma1 / 2
    # work = E N M tau = 4 worker-slots; sum_r w = 3, sum_r s = 3
    # 1/eta1 = min(1, 4*3 / (4 * 18)) = 1/6; 1/eta2 = min(1, 12 / (4 * 21)) = 1/7
    assert pp.eta1 == pytest.approx(6.0)
    assert pp.eta2 == pytest.approx(7.0)
    assert pp.L1 == pytest.approx(f / (4 * 3) / (4 * 6.0))
    assert pp.L2 == pytest.approx(f / (4 * 3) / (4 * 7.0))
    assert pp.U1 == pytest.approx([f / 2.0, f / 1.0])
    assert pp.U2 == pytest.approx([f / 1.0, f / 2.0])
    assert pp.alpha == pytest.approx(max(1.0, math.log(f / pp.L1), math.log(f / pp.L2)))


def test_first_job_on_empty_cluster_admitted():
    """On an empty, large cluster a job that fits is admitted (Appendix A, prices at L)."""
    inst = generate(3, n_jobs=1, n_slots=30, n_worker_servers=4, n_ps_servers=4)
    sched = oasis(inst)
    assert sched.admitted[0]
    assert check(inst, sched).objective > 0


def test_long_horizon_prices_finite():
    """At T = 300, L underflows as a double but prices stay finite and alpha exact."""
    inst = generate(0, n_jobs=40, n_slots=300, n_worker_servers=4, n_ps_servers=4)
    pp = price_params(inst)
    # a time-critical job's utility at the horizon, by hand in log space
    crit = [i for i, j in enumerate(inst.jobs) if j.kind == "critical"]
    j = inst.jobs[crit[0]]
    d = 300 - j.arrival
    hand = math.log(j.gamma1) - j.gamma2 * (d - j.gamma3)  # log(1+e^x) ~ x, x >> 1
    assert j.log_utility(d) == pytest.approx(hand, rel=1e-12)
    assert j.utility(d) == 0.0  # underflows as a plain double
    assert pp.L1 == 0.0 and np.isfinite(pp.log_L1)
    assert np.isfinite(pp.alpha) and pp.alpha > 100
    sched = oasis(inst)
    assert np.isfinite(sched.worker_prices).all() and np.isfinite(sched.ps_prices).all()
    assert check(inst, sched).objective > 0
