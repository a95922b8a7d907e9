"""Tests of optsched.models.edgecloud: the exact MILP of (2) against brute force."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models.edgecloud import (
    build_model,
    extract_schedule,
    relabel_chunks,
    solve_offline,
    start_values,
    worker_rank,
)

from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import solve
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server, generate
from optsched.edgecloud.schedule import EdgeCloudSchedule, cloud_only


def hand_instance() -> EdgeCloudInstance:
    """The hand instance of ``test_edgecloud_check`` (one edge server, T = 8).

    Workers w0, w1 of type 0 and w2 of type 1, PSs of type 0 and 1; every job
    has ``n_j`` = 2 (edge) / 4 (all-cloud).  A: r = 1, D = 2, one slot per
    chunk; C: r = 1, D = 1, two slots on the edge, one in the cloud (Delta_c
    = 2); B: r = 2, D = 1, two slots; edge delays 1, cloud delays 3, 2, 3.
    """
    common = dict(
        minibatch_hours=0.25, update_ms=0.0, model_mb=450.0, bandwidth_mbps=8.0,
        worker_type=0, ps_type=0,
    )  # fmt: skip
    jobs = (
        Job(arrival=1, chunks=2, minibatches=2, epochs=1, delay=(1, 3), **common),
        Job(arrival=1, chunks=1, minibatches=4, epochs=1, delay=(1, 2), **common),
        Job(arrival=2, chunks=1, minibatches=2, epochs=2, delay=(1, 3), **common),
    )
    return EdgeCloudInstance(8, 2, 2, (Server(workers=(2, 1), ps=(1, 1)),), jobs)


# --------------------------------------------------------------------------
# tiny random instances and an independent brute force
# --------------------------------------------------------------------------
def tiny(seed: int, storage: bool = False) -> EdgeCloudInstance:
    """1-3 jobs with at most 4 chunks in all, one edge server (1-2 workers,
    1-2 PSs), ``T`` in 5-7.

    Every job has ``m = 0.25`` h and ``G = 0``; ``q = 450`` MB at ``b = 8``
    Mbps adds ``2 * 8 * 450 / 8`` s = 0.25 h (``n_j`` = 2 at ``zeta = 0``, 4
    at ``zeta = 1``) and ``q = 0`` adds nothing (``n_j`` = 4 either way).
    ``E_j B_j`` in {2, 4, 6} gives 1-3 slots per chunk.  Cloud delays of 2-5
    slots make the cloud compete with a busy edge; a later short job may
    preempt an earlier long one.
    """
    rng = np.random.default_rng(seed)
    T = int(rng.integers(5, 8))
    n_jobs = int(rng.integers(1, 4))

    def counts(n: int) -> tuple[int, int]:
        types = rng.integers(2, size=n)
        return (int((types == 0).sum()), int((types == 1).sum()))

    server = Server(
        workers=counts(int(rng.integers(1, 3))),
        ps=counts(int(rng.integers(1, 3))),
        storage_mb=float(rng.choice([100.0, 150.0])) if storage else None,
    )
    jobs, left = [], 4
    for r in sorted(int(a) for a in rng.integers(1, 4, size=n_jobs)):
        D = min(int(rng.integers(1, 3)), left - (n_jobs - len(jobs) - 1))
        left -= D
        jobs.append(
            Job(
                arrival=r,
                chunks=D,
                minibatches=int(rng.choice([2, 4, 6])),
                epochs=1,
                minibatch_hours=0.25,
                update_ms=0.0,
                model_mb=float(rng.choice([0.0, 450.0])),
                bandwidth_mbps=8.0,
                worker_type=int(rng.integers(2)),
                ps_type=int(rng.integers(2)),
                delay=(int(rng.integers(0, 2)), int(rng.integers(2, 6))),
                chunk_mb=100.0 if storage else 0.0,
            )
        )
    return EdgeCloudInstance(T, 2, 2, (server,), tuple(jobs))


def _ps_rows(inst, train):
    """PS rows for the training slots ``train[j]`` (None if no PS assignment exists).

    A job whose chunks are all in the cloud uses its own cloud PS; any job
    uses its cloud PS once the cloud is reachable (cloud PSs are unlimited);
    before that it needs a qualified edge PS, matched slot by slot.
    """
    c, T = inst.cloud, inst.n_slots
    rows = []
    for t in range(1, T + 1):
        need = []
        for j, slots in train.items():
            if t not in slots:
                continue
            if t >= inst.arrival[j] + inst.delay[j, c]:
                rows.append((j, t, c, j))
            else:
                need.append(j)
        if not need:
            continue
        options = []
        for j in need:
            ok = [
                (s, p)
                for s in range(c)
                if t >= inst.arrival[j] + inst.delay[j, s]
                for p in range(int(inst.n_ps[s]))
                if inst.ps_types[s][p] == inst.jobs[j].ps_type
            ]
            options.append(ok)
        for pick in itertools.product(*options):
            if len(set(pick)) == len(pick):
                rows.extend((j, t, s, p) for j, (s, p) in zip(need, pick, strict=True))
                break
        else:
            return None
    return rows


def brute_force(inst: EdgeCloudInstance, collect: list | None = None):
    """Minimum total JCT over all schedules, by enumeration: ``(value, schedule)``.

    Every chunk gets a worker (a qualified edge worker or its own cloud
    worker) and a set of exactly as many slots as it needs (surplus slots
    never help: dropping one, the first one of a cloud chunk, keeps every
    constraint and never delays ``c_j``).  Edge slot sets are arbitrary
    subsets of ``[r_j + Delta_js, T]`` (preemption), cloud ones intervals.
    ``zeta_j = 1`` exactly when all chunks of ``j`` are in the cloud (a job
    with only cloud chunks and an edge PS would declare ``zeta_j = 0`` and
    need more slots: dominated).  With ``collect`` every feasible schedule is
    appended to it and nothing is pruned.
    """
    c, T, J = inst.cloud, inst.n_slots, inst.n_jobs
    k = inst.chunk_slots
    chunks = [(j, d) for j in range(J) for d in range(int(inst.D[j]))]
    options = []
    for j, _d in chunks:
        opts = []
        ready = int(inst.arrival[j] + inst.delay[j, 0])
        for w in range(int(inst.n_workers[0])):
            if inst.worker_types[0][w] != inst.jobs[j].worker_type:
                continue
            for slots in itertools.combinations(range(ready, T + 1), int(k[j, 0])):
                opts.append((0, w, slots))
        ready = int(inst.arrival[j] + inst.delay[j, c])
        for length in sorted({int(k[j, 0]), int(k[j, 1])}):
            for a in range(ready, T - length + 2):
                opts.append((c, -1, tuple(range(a, a + length))))
        options.append(opts)
    best = [math.inf, None]
    earliest = [
        int(inst.arrival[j])
        + min(inst.delay[j, 0] + k[j, 0], inst.delay[j, c] + k[j, 1])
        - 1
        for j in range(J)
    ]

    def leaf(choice):
        zeta = [
            all(o[0] == c for (jj, _), o in zip(chunks, choice, strict=True) if jj == j)
            for j in range(J)
        ]
        for (j, _d), (s, _w, slots) in zip(chunks, choice, strict=True):
            if s == c and len(slots) != k[j, int(zeta[j])]:
                return
        train = {j: set() for j in range(J)}
        for (j, _d), (_s, _w, slots) in zip(chunks, choice, strict=True):
            train[j].update(slots)
        comp = {j: max(train[j]) for j in range(J)}
        srv = inst.servers[0]
        if srv.storage_mb is not None:
            for t in range(1, T + 1):
                used = sum(
                    inst.jobs[j].chunk_mb
                    for (j, _d), (s, _w, _sl) in zip(chunks, choice, strict=True)
                    if s == 0 and inst.arrival[j] <= t <= comp[j]
                )
                if used > srv.storage_mb + 1e-9:
                    return
        ps = _ps_rows(inst, train)
        if ps is None:
            return
        value = float(sum(comp[j] - inst.arrival[j] for j in range(J)))
        if collect is None and value >= best[0]:
            return
        runs = []
        for i, ((j, d), (s, w, slots)) in enumerate(zip(chunks, choice, strict=True)):
            runs.extend((j, d, t, s, i if s == c else w) for t in slots)
        sched = EdgeCloudSchedule.build(inst, runs, ps, zeta=np.array(zeta))
        if collect is not None:
            collect.append((value, sched))
        if value < best[0]:
            best[:] = [value, sched]

    def dfs(i, choice, busy, last):
        if collect is None:
            lb = sum(
                max(last.get(j, 0), earliest[j]) - inst.arrival[j] for j in range(J)
            )
            if lb >= best[0]:
                return
        if i == len(chunks):
            leaf(choice)
            return
        j = chunks[i][0]
        for s, w, slots in options[i]:
            if s != c and any((w, t) in busy for t in slots):
                continue
            new = busy | {(w, t) for t in slots} if s != c else busy
            dfs(
                i + 1,
                [*choice, (s, w, slots)],
                new,
                {**last, j: max(last.get(j, 0), slots[-1])},
            )

    dfs(0, [], frozenset(), {})
    return best[0], best[1]


def _assert_point_feasible(model, values, tol=1e-9):
    """Every variable value within its domain and every active row satisfied."""
    for var, val in values.items():
        var.set_value(val, skip_validation=True)
    for v in model.component_data_objects(pyo.Var):
        lb, ub = v.bounds
        assert lb is None or v.value >= lb - tol, v.name
        assert ub is None or v.value <= ub + tol, v.name
        if v.is_binary():
            assert v.value in (0.0, 1.0), v.name
    for con in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        assert con.lower is None or body >= pyo.value(con.lower) - tol, con.name
        assert con.upper is None or body <= pyo.value(con.upper) + tol, con.name


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------
def test_hand_instance_optimum():
    """The checker's hand instance: A on w0 and w1 in slot 2 (JCT 1), C in the
    cloud in slot 3 (JCT 2, zeta = 1), B on w0 in slots 3-4 (JCT 2): 5."""
    inst = hand_instance()
    res = solve_offline(inst, threads=1)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(5.0)
    assert res.bound == pytest.approx(5.0)
    assert brute_force(inst)[0] == 5.0
    ev = check(inst, res.schedule)
    assert ev.objective == 5.0
    assert ev.zeta.tolist() == [False, True, False]


@pytest.mark.parametrize("seed", range(80))
def test_milp_equals_brute_force(seed):
    inst = tiny(seed, storage=seed % 4 == 3)
    value, sched = brute_force(inst)
    res = solve_offline(inst, threads=1)
    if math.isinf(value):
        assert res.status == "infeasible"
        assert res.schedule is None
        return
    assert check(inst, sched).objective == value  # the brute force is sound
    assert res.status == "optimal"
    assert res.objective == pytest.approx(value, abs=1e-9)
    assert res.bound == pytest.approx(value, abs=1e-6)
    assert check(inst, res.schedule).objective == res.objective


@pytest.mark.parametrize("formulation", ["v2", "v3"])
@pytest.mark.parametrize("seed", range(0, 80, 3))
def test_formulations_v2_v3_equal_brute_force(seed, formulation):
    """The work-by-completion rows (v2) and the chunk order (v3) cut off no
    optimum: same optimum as the brute force."""
    inst = tiny(seed, storage=seed % 4 == 3)
    value, _ = brute_force(inst)
    res = solve_offline(inst, threads=1, formulation=formulation)
    if math.isinf(value):
        assert res.status == "infeasible"
        return
    assert res.status == "optimal"
    assert res.objective == pytest.approx(value, abs=1e-9)
    assert check(inst, res.schedule).objective == res.objective


@pytest.mark.parametrize("seed", range(3))
def test_formulation_v2_lp_bound_is_never_weaker(seed):
    """v2 = v1 + valid rows: its LP relaxation is at least v1's, at most the optimum."""
    inst = generate(seed, n_jobs=6, n_servers=2, n_slots=20, max_chunks=2,
                    slot_hours=24.0, n_worker_types=2, n_ps_types=2)  # fmt: skip
    lp1 = solve(build_model(inst, relax=True), threads=1)
    lp2 = solve(build_model(inst, relax=True, formulation="v2"), threads=1)
    lp3 = solve(build_model(inst, relax=True, formulation="v3"), threads=1)
    assert lp1.status == lp2.status == lp3.status == "optimal"
    assert lp3.objective >= lp2.objective - 1e-7 >= lp1.objective - 2e-7
    opt = solve_offline(inst, threads=1, formulation="v1", time_limit=60)
    if opt.status == "optimal":
        assert lp3.objective <= opt.objective + 1e-7


def test_unknown_formulation_is_refused_by_name():
    with pytest.raises(ValueError, match="formulation: must be one of"):
        build_model(tiny(0), formulation="v9")
    with pytest.raises(ValueError, match="formulation: must be one of"):
        solve_offline(tiny(0), formulation="v9")


def test_brute_force_covers_interesting_cases():
    """The tiny family exercises the edge, the cloud, zeta = 1 and infeasibility."""
    seen = {"edge": 0, "cloud": 0, "zeta": 0, "infeasible": 0}
    for seed in range(40):
        inst = tiny(seed, storage=seed % 4 == 3)
        value, sched = brute_force(inst)
        if sched is None:
            seen["infeasible"] += 1
            continue
        ev = check(inst, sched)
        seen["cloud"] += bool((sched.runs[:, 3] == inst.cloud).any())
        seen["zeta"] += bool(ev.zeta.any())
        seen["edge"] += bool((sched.runs[:, 3] != inst.cloud).any())
    assert all(v > 0 for v in seen.values()), seen


@pytest.mark.parametrize("formulation", ["v1", "v2", "v3"])
@pytest.mark.parametrize("seed", [0, 1, 2, 5, 7, 11])
def test_every_feasible_schedule_maps_to_the_model(seed, formulation):
    """Schedule -> model: checker-feasible schedules are model points of equal objective."""
    inst = tiny(seed, storage=seed % 2 == 1)
    found: list = []
    brute_force(inst, collect=found)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(found), size=min(15, len(found)), replace=False)
    model = build_model(inst, formulation=formulation)
    for i in picks:
        value, sched = found[int(i)]
        assert check(inst, sched).objective == value
        _assert_point_feasible(model, start_values(model, inst, sched))
        assert pyo.value(model.obj) == pytest.approx(value)


def test_unusual_feasible_schedule_maps_to_the_model():
    """Surplus runs, idle PS rows, odd cloud indices map to the model too.

    The checker's hand schedule with: chunk 0 of A on w1 with a surplus slot
    (slots 2 and 4), A's PS in slot 4 in the cloud (cloud PS 0), an idle edge PS
    row of A in slot 6, job C on cloud worker 7 with cloud PS 5 (zeta_C = 1).
    JCT: A 4 - 1, C 3 - 1, B 5 - 2: 8.
    """
    inst = hand_instance()
    runs = [
        (0, 0, 2, 0, 1), (0, 0, 4, 0, 1), (0, 1, 4, 0, 0), (2, 0, 3, 0, 0),
        (2, 0, 5, 0, 0), (1, 0, 3, 1, 7),
    ]  # fmt: skip
    ps = [
        (0, 2, 0, 0), (0, 4, 1, 0), (0, 6, 0, 0), (2, 3, 0, 0), (2, 5, 0, 0),
        (1, 3, 1, 5),
    ]  # fmt: skip
    sched = EdgeCloudSchedule.build(inst, runs, ps)
    assert check(inst, sched).objective == 8.0
    assert sched.zeta.tolist() == [False, True, False]
    model = build_model(inst)
    _assert_point_feasible(model, start_values(model, inst, sched))
    assert pyo.value(model.obj) == 8.0


def test_cloud_only_maps_and_is_an_upper_bound():
    inst = generate(3, n_jobs=3, n_servers=1, n_slots=30, max_chunks=2,
                    slot_hours=24, n_worker_types=2, n_ps_types=2)  # fmt: skip
    witness = cloud_only(inst)
    model = build_model(inst)
    _assert_point_feasible(model, start_values(model, inst, witness))
    assert pyo.value(model.obj) == check(inst, witness).objective
    res = solve_offline(inst, threads=1)
    assert res.status == "optimal"
    assert res.objective <= check(inst, witness).objective


def test_model_objective_is_checker_objective_and_lp_is_a_bound():
    inst = tiny(4)
    model = build_model(inst)
    res = solve(model, threads=1)
    assert res.status == "optimal"
    sched = extract_schedule(model, inst)
    assert check(inst, sched).objective == pytest.approx(res.objective)
    lp = solve(build_model(inst, relax=True), threads=1)
    assert lp.status == "optimal"
    assert lp.objective <= res.objective + 1e-9


def test_optimum_preempts():
    """SRPT on one worker: A (3 slots, r = 1) is preempted by B (1 slot, r = 2).

    Without preemption the best is A in 1-3 and B in 4 (JCT 3 + 2 = 5);
    with it, A in 1, 3, 4 and B in 2 (JCT 4 - 1 + 0 = 3).  The cloud is out
    of reach (delay 10).
    """
    common = dict(
        chunks=1, epochs=1, minibatch_hours=0.25, update_ms=0.0, model_mb=450.0,
        bandwidth_mbps=8.0, worker_type=0, ps_type=0,
    )  # fmt: skip
    jobs = (
        Job(arrival=1, minibatches=6, delay=(0, 10), **common),
        Job(arrival=2, minibatches=2, delay=(0, 10), **common),
    )
    inst = EdgeCloudInstance(6, 2, 2, (Server((1, 0), (1, 0)),), jobs)
    res = solve_offline(inst, threads=1)
    assert res.status == "optimal"
    assert res.objective == 3.0 == brute_force(inst)[0]
    assert check(inst, res.schedule).n_preemptions == 1


def test_storage_binds():
    """Two one-slot jobs (edge delay 0: JCT 0 on the edge); storage for one
    chunk only sends the other to the cloud (delay 3: JCT 3)."""
    common = dict(
        chunks=1, minibatches=2, epochs=1, minibatch_hours=0.25, update_ms=0.0,
        model_mb=0.0, bandwidth_mbps=8.0, worker_type=0, ps_type=0, chunk_mb=100.0,
    )  # fmt: skip
    jobs = (
        Job(arrival=1, delay=(0, 3), **common),
        Job(arrival=1, delay=(0, 3), **common),
    )
    for cap, expect in ((None, 0.0), (250.0, 0.0), (150.0, 3.0)):
        server = Server(workers=(2, 0), ps=(2, 0), storage_mb=cap)
        inst = EdgeCloudInstance(6, 2, 2, (server,), jobs)
        res = solve_offline(inst, threads=1)
        assert res.status == "optimal"
        assert res.objective == expect == brute_force(inst)[0]
        if cap is not None:
            relaxed = solve(build_model(inst, storage=False), threads=1)
            assert relaxed.objective == pytest.approx(0.0)


def test_infeasible_instance():
    job = Job(arrival=1, chunks=1, minibatches=6, epochs=1, minibatch_hours=0.25,
              update_ms=0.0, model_mb=450.0, bandwidth_mbps=8.0, worker_type=1,
              ps_type=0, delay=(0, 5))  # fmt: skip
    inst = EdgeCloudInstance(4, 2, 2, (Server((1, 0), (1, 0)),), (job,))
    with pytest.raises(InvalidInstanceError, match="job 0"):
        build_model(inst)
    res = solve_offline(inst)
    assert res.status == "infeasible" and res.schedule is None


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    n_jobs=st.integers(2, 4),
    n_servers=st.integers(1, 2),
    n_slots=st.integers(24, 32),
)
def test_generated_instances_optimal_and_checked(seed, n_jobs, n_servers, n_slots):
    inst = generate(
        seed,
        n_jobs=n_jobs,
        n_servers=n_servers,
        n_slots=n_slots,
        max_chunks=2,
        slot_hours=24.0,
        n_worker_types=2,
        n_ps_types=2,
        workers_per_server=(1, 2, 3),
        ps_per_server=(1, 2),
    )
    res = solve_offline(inst, threads=1, time_limit=30)
    assert res.status == "optimal"
    ev = check(inst, res.schedule)
    assert ev.objective == res.objective
    assert res.bound == pytest.approx(res.objective, abs=1e-6)
    assert res.objective <= check(inst, cloud_only(inst)).objective


def test_core_solver_guards_the_highs_start_defect():
    """tiny(40) with the all-cloud start: highspy 1.16.0 reports 6 but returns the start (10).

    ``core.solver.solve`` must notice that the loaded point is not the
    reported incumbent and solve again without the start.
    """
    from optsched.core import solver

    inst = tiny(40)
    model = build_model(inst)
    start = start_values(model, inst, cloud_only(inst))
    res = solver.solve(model, start=start, threads=1)
    assert res.status == "optimal"
    assert float(pyo.value(model.obj)) == pytest.approx(res.objective)
    assert res.objective == pytest.approx(brute_force(inst)[0])


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_relabel_chunks_keeps_the_value_and_meets_the_chunk_order(seed):
    """v3's start: chunks renumbered by worker rank, same checked JCT, every
    order row of v3 holds (ranks non-decreasing in the chunk index)."""
    inst = generate(seed, n_jobs=6, n_servers=2, n_slots=30, max_chunks=3,
                    slot_hours=24.0, n_worker_types=2, n_ps_types=2)  # fmt: skip
    from optsched.edgecloud.paper import default_start

    sched = default_start(inst)
    assert sched is not None
    out = relabel_chunks(inst, sched)
    assert check(inst, out).objective == check(inst, sched).objective
    for j in range(inst.n_jobs):
        mine = out.runs[out.runs[:, 0] == j]
        rank = {int(d): worker_rank(inst, int(s), int(w)) for _j, d, _t, s, w in mine}
        ranks = [rank[d] for d in sorted(rank)]
        assert ranks == sorted(ranks)
        assert sorted(rank) == list(range(int(inst.D[j])))
    model = build_model(inst, formulation="v3")
    _assert_point_feasible(model, start_values(model, inst, sched))
    assert pyo.value(model.obj) == check(inst, sched).objective


@pytest.mark.parametrize("seed", range(3))
def test_a_job_without_the_cloud_keeps_the_mip_start(seed):
    """``zeta_j`` of a job that cannot finish in the cloud is bounded, not fixed.

    A fixed variable makes Pyomo's persistent HiGHS interface re-apply its
    bounds when the solve begins, which drops the MIP start
    (``tests/core/test_solver_start_fixed.py``).  With the root node only,
    no heuristic and no presolve, HiGHS's incumbent can only be the start:
    the known answer is the start's checked JCT (with ``fix(0)`` these
    solves ended without any solution).
    """
    from optsched.edgecloud.paper import default_start

    inst = generate(seed, 6, 1, 14, max_chunks=2, slot_hours=24,
                    n_worker_types=1, n_ps_types=1)  # fmt: skip
    jobs = list(inst.jobs)  # job 0's cloud is ready only after T
    jobs[0] = dataclasses.replace(jobs[0], delay=jobs[0].delay[:-1] + (inst.n_slots,))
    inst = dataclasses.replace(inst, jobs=tuple(jobs))
    model = build_model(inst)
    assert model.zeta[0].ub == 0 and not any(
        v.fixed for v in model.component_data_objects(pyo.Var)
    )
    start = default_start(inst)
    value = check(inst, start).objective
    assert start.zeta[0] == 0
    root_only = {"mip_max_nodes": 0, "mip_heuristic_effort": 0.0, "presolve": "off"}
    res = solve(
        model, threads=1, options=root_only, start=start_values(model, inst, start)
    )
    assert res.has_solution and res.objective == pytest.approx(value)
