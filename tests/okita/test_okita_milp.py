"""Tests of optsched.models.okita: the exact MILP of (2) against brute force."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np
import pyomo.environ as pyo
import pytest
from optsched.models.okita import (
    build_model,
    extract_schedule,
    solve_offline,
    start_values,
    worker_bound,
)

from optsched.core.solver import solve
from optsched.okita import (
    Job,
    LatencyCost,
    OkitaInstance,
    OkitaSchedule,
    Site,
    check,
    generate,
    local_first,
)
from tests.okita.instances import hand_instance

REL = 1e-6


# --------------------------------------------------------------------------
# tiny random instances and an independent brute force
# --------------------------------------------------------------------------
def tiny(seed: int) -> OkitaInstance:
    """1-2 jobs, 2 sites, resources (gpu, vcpu), ``T`` in 2-4.

    ``T`` in 2-4, 1-3 chunks per site (1-2 for two jobs at ``T = 4``).  Integer ``E_i`` in {1, 2} and ``rho_i`` in 1-4 (so
    ``ceil(E g / rho)`` is exact); small capacities (1-4 GPUs, 3-8 vCPUs,
    workers need 1 GPU and 1-2 vCPUs, a PS 1-2 vCPUs) so that capacity binds
    and some instances are infeasible; asymmetric ``q``; each job gets one of
    the three latency-cost kinds (piecewise with ``c`` in 1-2 so it matters).
    """
    rng = np.random.default_rng(seed)
    n_jobs = int(rng.integers(1, 3))
    T = int(rng.integers(2, 5))
    top = 4 if n_jobs == 1 or T < 4 else 3
    sites = tuple(
        Site((float(rng.integers(1, 5)), float(rng.integers(3, 9))), f"s{r}")
        for r in range(2)
    )
    q01, q10 = (float(v) for v in rng.integers(2, 9, size=2) / 100)
    jobs = []
    for _ in range(n_jobs):
        kind = ("exp", "linear", "piecewise")[int(rng.integers(3))]
        tau = float(rng.integers(20, 101))
        if kind == "exp":
            cost = LatencyCost.exp(tau)
        elif kind == "linear":
            cost = LatencyCost.linear(tau, float(rng.integers(50, 201)))
        else:
            cost = LatencyCost.piecewise(
                tau, float(rng.integers(300, 401)), float(rng.integers(1, 3))
            )
        jobs.append(
            Job(
                arrival=int(rng.integers(1, min(2, T) + 1)),
                data=tuple(int(v) for v in rng.integers(1, top, size=2)),
                epochs=int(rng.integers(1, 3)),
                rho=float(rng.integers(1, 5)),
                worker_demand=(1.0, float(rng.integers(1, 3))),
                ps_demand=(0.0, float(rng.integers(1, 3))),
                chunk_mb=float(rng.integers(10, 61)),
                param_mb=float(rng.integers(30, 201)),
                cost=cost,
            )
        )
    jobs.sort(key=lambda j: j.arrival)
    return OkitaInstance(
        n_slots=T,
        sites=sites,
        bandwidth_cost=((0.0, q01), (q10, 0.0)),
        resources=("gpu", "vcpu"),
        jobs=tuple(jobs),
    )


def _compositions(total: int, bins: int):
    """All tuples of ``bins`` non-negative integers summing to ``total``."""
    for cut in itertools.combinations(range(total + bins - 1), bins - 1):
        prev, out = -1, []
        for c in cut:
            out.append(c - prev - 1)
            prev = c
        out.append(total + bins - 1 - prev - 1)
        yield tuple(out)


def _plans(inst: OkitaInstance, i: int) -> list[tuple[float, np.ndarray, tuple]]:
    """Job ``i``'s dominant plans: ``(cost, usage (T+1, R, K), (loads, ps))``.

    A plan is the number of chunks ``L[t, r']`` trained on each site in each
    slot of ``[a_i, T]`` (all ``N_i`` of them) and one PS site for every
    slot of ``[a_i, t_i]``, ``t_i`` the last slot with ``L > 0``; its
    workers are ``ceil(E_i L / rho_i)``.  For two sites the cheapest ``g``
    with these loads moves ``max(0, L_tot^{r'} - D_i^{r'})`` chunks into each
    ``r'`` (the transport is independent of the slots).  Plans of equal usage
    keep the cheapest.
    """
    R, T, K = inst.n_sites, inst.n_slots, inst.n_resources
    job = inst.jobs[i]
    a, E, rho = job.arrival, job.epochs, int(job.rho)
    assert rho == job.rho
    D = np.asarray(job.data)
    q, pi, delta = inst.q, job.param_mb, job.chunk_mb
    m, n = np.asarray(job.worker_demand), np.asarray(job.ps_demand)
    cap = inst.capacity
    slots = list(range(a, T + 1))
    best: dict[bytes, tuple] = {}
    for comp in _compositions(int(D.sum()), len(slots) * R):
        L = np.asarray(comp, dtype=np.int64).reshape(len(slots), R)
        busy = np.flatnonzero(L.sum(axis=1))
        end = int(busy[-1])  # index of t_i in slots
        y = -(-E * L // rho)
        if (y[:, :, None] * m[None, None, :] > cap[None] + 1e-9).any():
            continue
        tot = L.sum(axis=0)
        moved_in = np.maximum(0, tot - D)
        transfer = delta * sum(
            moved_in[dst] * q[1 - dst, dst] for dst in range(R)
        )  # two sites
        latency = job.cost.value(slots[end] - a)
        for ps in itertools.product(range(R), repeat=end + 1):
            exchange = sum(
                pi * q[r, ps[k]] * y[k, r] for k in range(end + 1) for r in range(R)
            )
            use = np.zeros((T + 1, R, K))
            for k in range(len(slots)):
                use[slots[k]] += y[k][:, None] * m[None, :]
                if k <= end:
                    use[slots[k], ps[k]] += n
            if (use > cap[None] + 1e-9).any():
                continue
            cost = float(latency + transfer + exchange)
            key = use.tobytes()
            if key not in best or cost < best[key][0]:
                best[key] = (cost, use, (L, ps))
    return list(best.values())


def _plan_schedule(inst: OkitaInstance, plans: dict[int, tuple]) -> OkitaSchedule:
    """Rows of the chosen plans; each site trains its own chunks first."""
    workers, ps_rows, data = [], [], []
    for i, (L, ps) in plans.items():
        job = inst.jobs[i]
        a, E, rho = job.arrival, job.epochs, int(job.rho)
        own = list(job.data)  # chunks of each site not yet assigned
        for k in range(len(L)):
            t = a + k
            for dst in range(2):
                if L[k, dst] == 0:
                    continue
                workers.append((i, t, dst, -(-E * int(L[k, dst]) // rho)))
                local = min(own[dst], int(L[k, dst]))
                own[dst] -= local
                if local:
                    data.append((i, t, dst, dst, local))
                rest = int(L[k, dst]) - local
                if rest:
                    own[1 - dst] -= rest
                    data.append((i, t, 1 - dst, dst, rest))
        ps_rows += [(i, a + k, p) for k, p in enumerate(ps)]
    return OkitaSchedule.build(workers, ps_rows, data, algorithm="brute")


@functools.cache
def brute_force(seed: int) -> tuple[float, OkitaSchedule | None]:
    """Minimum total cost of ``tiny(seed)`` by enumeration (inf if infeasible).

    Complete: take any schedule the checker accepts.  Lowering every worker
    count to ``ceil(E_i g / rho_i)`` (``g`` the chunks trained there; 0 where
    nothing is trained) keeps (2a)-(2d), moves ``t_i`` to the last slot
    with training (no later, so the latency does not grow: ``f_i``
    non-decreasing) and drops the PS rows after it; capacity use and
    exchange cost do not grow.  The result is one of :func:`_plans` per job
    (its loads and PS sites) with transfer cost at least the plan's (the
    cheapest transport of the same loads), and the plans fit (2d) together.
    So the enumeration's minimum is at most the checker's optimum, and the
    schedule it returns passes the checker with that value (asserted).
    """
    inst = tiny(seed)
    per_job = [_plans(inst, i) for i in range(inst.n_jobs)]
    cap = inst.capacity[None] + 1e-9
    best, pick = math.inf, None
    if inst.n_jobs == 1:
        for cost, _use, plan in per_job[0]:
            if cost < best:
                best, pick = cost, {0: plan}
    else:
        if not per_job[1]:
            return math.inf, None
        use1 = np.stack([p[1] for p in per_job[1]])
        cost1 = np.asarray([p[0] for p in per_job[1]])
        for cost0, use0, plan0 in per_job[0]:
            ok = ((use1 + use0[None]) <= cap[None]).all(axis=(1, 2, 3))
            if not ok.any():
                continue
            k = int(np.argmin(np.where(ok, cost1, np.inf)))
            if cost0 + cost1[k] < best:
                best, pick = cost0 + cost1[k], {0: plan0, 1: per_job[1][k][2]}
    if pick is None:
        return math.inf, None
    return best, _plan_schedule(inst, pick)


SEEDS = range(40)


def test_enough_feasible_tiny_instances():
    feasible = [s for s in SEEDS if math.isfinite(brute_force(s)[0])]
    assert len(feasible) >= 20
    assert any(tiny(s).n_jobs == 2 for s in feasible)
    assert len(feasible) < len(SEEDS)  # the infeasible path is exercised too


@pytest.mark.parametrize("seed", SEEDS)
def test_milp_equals_brute_force(seed):
    inst = tiny(seed)
    value, sched = brute_force(seed)
    res = solve_offline(inst, time_limit=30.0, threads=1)
    if not math.isfinite(value):
        assert res.status == "infeasible"
        assert res.schedule is None
        return
    # the brute force's schedule is accepted with its value
    assert check(inst, sched).objective == pytest.approx(value, rel=REL)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(value, rel=REL, abs=1e-6)
    assert res.bound == pytest.approx(value, rel=1e-5, abs=1e-5)
    assert check(inst, res.schedule).objective == pytest.approx(res.objective)


def test_hand_instance_optimum():
    """The hand instance: brute force over its plans and the MILP agree."""
    inst = hand_instance()
    res = solve_offline(inst, threads=1)
    assert res.status == "optimal"
    # job 0 trains its 3 chunks in slot 1 on site 0 (2 workers, one chunk
    # moved 1 -> 0, 20 MB x 0.05 = 1); f_0(0) = 50.  Job 1 trains one chunk
    # on site 1 in slots 2 and 3 with its PS there: f_1(1) = 20.  Total 71.
    assert res.objective == pytest.approx(71.0)
    assert res.objective <= check(inst, local_first(inst)).objective


# --------------------------------------------------------------------------
# MIP start, relaxation, generated instances
# --------------------------------------------------------------------------
def _assert_feasible_point(model: pyo.ConcreteModel, values) -> float:
    """Load ``values``, check bounds, integrality and every row; return objective."""
    for v, x in values.items():
        v.set_value(x, skip_validation=True)
    for v in model.component_data_objects(pyo.Var):
        x = v.value
        lb, ub = v.bounds
        assert lb is None or x >= lb - 1e-9, v.name
        assert ub is None or x <= ub + 1e-9, v.name
        if v.is_integer() or v.is_binary():
            assert x == round(x), v.name
    for c in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(c.body)
        assert c.lower is None or body >= pyo.value(c.lower) - 1e-7, c.name
        assert c.upper is None or body <= pyo.value(c.upper) + 1e-7, c.name
    return pyo.value(model.obj)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_start_values_local_first(seed):
    inst = generate(seed, 3, 4, 12)
    witness = local_first(inst)
    expected = check(inst, witness).objective
    model = build_model(inst)
    got = _assert_feasible_point(model, start_values(model, inst, witness))
    assert got == pytest.approx(expected, rel=1e-9)
    # and the point extracts back to the same (checked) objective
    assert check(inst, extract_schedule(model, inst)).objective == pytest.approx(
        expected, rel=1e-9
    )


@pytest.mark.parametrize("seed", range(12))
def test_start_values_tiny(seed):
    """Every brute-force optimum is a model point with the same objective."""
    value, sched = brute_force(seed)
    if sched is None:
        return
    inst = tiny(seed)
    model = build_model(inst)
    got = _assert_feasible_point(model, start_values(model, inst, sched))
    assert got == pytest.approx(value, rel=REL)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_generated_optimum_below_local_first(seed):
    inst = generate(seed, 3, 4, 12, cost=("exp", "linear", "piecewise", "exp")[seed])
    res = solve_offline(inst, time_limit=30.0, threads=1)
    assert res.status == "optimal"
    ev = check(inst, res.schedule)
    assert ev.objective == pytest.approx(res.objective)
    assert res.objective <= check(inst, local_first(inst)).objective + 1e-9
    assert res.bound <= res.objective + 1e-6 * max(1.0, res.objective)


def test_no_start_same_optimum():
    inst = generate(5, 3, 3, 10)
    a = solve_offline(inst, threads=1, start=local_first(inst))
    b = solve_offline(inst, threads=1)
    assert a.status == b.status == "optimal"
    assert a.objective == pytest.approx(b.objective, rel=1e-7)


def test_relaxation_is_a_lower_bound():
    inst = hand_instance()
    lp = build_model(inst, relax=True)
    res = solve(lp)
    assert res.status == "optimal"
    assert res.objective <= solve_offline(inst, threads=1).objective + 1e-7


def test_worker_bound():
    inst = hand_instance()
    ybar = worker_bound(inst)
    # job 0: GPU 2 / 1, vCPU 4 / 1 and 6 / 1; needs ceil(1 * 3 / 2) = 2
    # job 1: GPU 2, vCPU 4 / 2 = 2 and 6 / 2 = 3; needs ceil(2 * 2 / 2) = 2
    assert ybar.tolist() == [[2, 2], [2, 2]]


def test_start_values_rejects_excess_workers():
    inst = hand_instance()
    model = build_model(inst)
    sched = OkitaSchedule.build([(0, 1, 0, 3)], [(0, 1, 0)], [(0, 1, 0, 0, 2)])
    with pytest.raises(ValueError, match="Ybar"):
        start_values(model, inst, sched)


# --------------------------------------------------------------------------
# the saturating sigmoid reading (docs/okita.md, "Diagnosis: the cost reading")
# --------------------------------------------------------------------------
def tiny_sigmoid(seed: int) -> OkitaInstance:
    """``tiny(seed)`` with every cost ``sigmoid(10 tau, 1, 1)``: on ``T`` 2-4
    a steep logistic centred at one slot, large enough to trade against the
    bandwidth cost (the generator's 0.25 / 4 would be nearly linear here)."""
    inst = tiny(seed)
    jobs = tuple(
        dataclasses.replace(j, cost=LatencyCost.sigmoid(10.0 * j.cost.tau, 1.0, 1.0))
        for j in inst.jobs
    )
    return dataclasses.replace(inst, jobs=jobs)


def _brute(inst: OkitaInstance) -> float:
    """Enumeration minimum of ``inst`` (as :func:`brute_force`, any costs)."""
    per_job = [_plans(inst, i) for i in range(inst.n_jobs)]
    cap = inst.capacity[None] + 1e-9
    if inst.n_jobs == 1:
        return min((c for c, _, _ in per_job[0]), default=math.inf)
    best = math.inf
    for c0, u0, _ in per_job[0]:
        for c1, u1, _ in per_job[1]:
            if (u0 + u1 <= cap).all():
                best = min(best, c0 + c1)
    return best


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_sigmoid_milp_equals_brute_force_and_checker(seed):
    """The MILP's latency term and the checker use the same ``f``: on tiny
    sigmoid instances the optimum equals the enumeration's minimum, and the
    model's objective (its proven bound at zero gap) equals the checker's."""
    inst = tiny_sigmoid(seed)
    value = _brute(inst)
    res = solve_offline(inst, time_limit=30.0, threads=1)
    if not math.isfinite(value):
        assert res.status == "infeasible"
        return
    assert res.status == "optimal"
    assert res.objective == pytest.approx(value, rel=REL, abs=1e-6)
    assert res.bound == pytest.approx(value, rel=1e-5, abs=1e-5)
    ev = check(inst, res.schedule)
    assert ev.objective == pytest.approx(res.objective)
    assert ev.latency.tolist() == pytest.approx(
        [j.cost(d) for j, d in zip(inst.jobs, ev.duration, strict=True)]
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sigmoid_generated_model_objective_is_the_checkers(seed):
    """Generated sigmoid instances: the model's objective at the extracted optimum
    (evaluated in Pyomo) equals the checker's, and start values from
    ``local_first`` reproduce the checker's objective in the model."""
    inst = generate(seed, 3, 4, 12, cost="sigmoid")
    res = solve_offline(inst, time_limit=30.0, threads=1)
    assert res.status == "optimal"
    ev = check(inst, res.schedule)
    assert ev.objective == pytest.approx(res.objective)
    assert res.bound == pytest.approx(res.objective, rel=1e-6)
    model = build_model(inst)
    got = _assert_feasible_point(model, start_values(model, inst, res.schedule))
    assert got == pytest.approx(ev.objective, rel=1e-9)
    witness = local_first(inst)
    got = _assert_feasible_point(model, start_values(model, inst, witness))
    assert got == pytest.approx(check(inst, witness).objective, rel=1e-9)
    assert res.objective <= check(inst, witness).objective + 1e-9
