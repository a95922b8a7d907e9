"""The scheduling MILP of (8) and the lower bounds against independent computations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models.asrpt import solve_offline

import optsched
from optsched.asrpt import AsrptInstance, Job, Stage, alpha, check, generate
from optsched.asrpt.bounds import alpha_min_exact, lower_bound, theorem1
from optsched.asrpt.profiles import configurations
from optsched.asrpt.timing import Cluster

C = Cluster(2, 2, 1.25, 300.0)


def _placements(stages, M, g):
    """Every x[s, m] with row sums k_s and column sums <= g (test's own enumeration)."""
    rows = []
    for stage in stages:
        rows.append([c for c in itertools.product(range(stage.k + 1), repeat=M)
                     if sum(c) == stage.k])  # fmt: skip
    for combo in itertools.product(*rows):
        x = np.array(combo)
        if (x.sum(axis=0) <= g).all():
            yield x


def _brute(inst: AsrptInstance) -> float:
    """Least sum of completions over starts in [r, H] and every placement (DFS).

    Jobs are fixed one by one (start, per-server usage, duration); a branch
    stops when it overloads a server at some start instant (loads only rise
    at starts) or when its cost plus every remaining job's ``r + dmin``
    reaches the best total found.
    """
    c = inst.cluster
    per_job = []
    for job in inst.jobs:
        opts = []
        for x in _placements(job.stages, c.n_servers, c.gpus):
            a = alpha(job.stages, x, c)
            opts.append((x.sum(axis=0), job.iterations * a / (1000 * inst.slot)))
        per_job.append(opts)
    # any schedule can run the jobs one after another after the last arrival
    H = int(max(inst.arrival) + sum(math.ceil(max(d for _, d in o)) for o in per_job))
    rest = [
        j.arrival + min(d for _, d in o)
        for j, o in zip(inst.jobs, per_job, strict=True)
    ]
    tail = [sum(rest[i:]) for i in range(len(rest) + 1)]
    best = math.inf

    def fits(chosen):
        for tau in {t for t, _, _ in chosen}:
            load = sum(u for t, u, d in chosen if t <= tau < t + d)
            if (load > c.gpus).any():
                return False
        return True

    def dfs(i, chosen, cost):
        nonlocal best
        if cost + tail[i] >= best:
            return
        if i == len(per_job):
            best = cost
            return
        for t in range(inst.jobs[i].arrival, H + 1):
            for u, d in per_job[i]:
                if cost + t + d + tail[i + 1] >= best:
                    continue
                nxt = [*chosen, (t, u, d)]
                if fits(nxt):
                    dfs(i + 1, nxt, cost + t + d)

    dfs(0, [], 0.0)
    return best


ONE = (Stage(k=1, pf=400.0, pb=600.0),)
TWO = (Stage(k=2, pf=200.0, pb=300.0, h=300.0),)


def test_milp_equals_brute_force_by_hand():
    # one server of 2 GPUs: A (1 GPU, 3 slots), B (2 GPUs, 2 x 0.501 slots).
    # B first, A at the next whole slot 2: 1.002 + 5 beats A first (3 + 4.002)
    inst = AsrptInstance(Cluster(1, 2, 1.25, 300.0),
                         (Job(0, 3, 3.0, ONE), Job(0, 2, 2.0, TWO)))  # fmt: skip
    res = solve_offline(inst)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(1.002 + 5)
    assert res.objective == pytest.approx(_brute(inst))
    assert res.schedule.start == (2, 0)
    # two servers, two 1-GPU jobs and B: sharing one server leaves B a whole
    # server (3 + 3 + 1.002) instead of a split B (980 ms: 3 + 3 + 1.96)
    inst = AsrptInstance(C, (Job(0, 3, 3.0, ONE), Job(0, 3, 3.0, ONE),
                             Job(0, 2, 2.0, TWO)))  # fmt: skip
    res = solve_offline(inst)
    assert res.objective == pytest.approx(7.002)
    assert res.objective == pytest.approx(_brute(inst))


def test_milp_equals_brute_force_random():
    for seed in range(40):
        inst = generate(seed, n_jobs=2 + seed % 3, gpus_per_server=2, predictor="mean")
        res = solve_offline(inst)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(_brute(inst), rel=1e-9), seed
        assert res.bound <= res.objective + 1e-9


@pytest.mark.parametrize("formulation", ["v1", "v3"])
def test_formulations_v1_and_v3_equal_brute_force_too(formulation):
    """The previous formulation (window sums) and v3 (symmetry fixed) against brute force."""
    for seed in range(0, 40, 3):
        inst = generate(seed, n_jobs=2 + seed % 3, gpus_per_server=2, predictor="mean")
        res = solve_offline(inst, formulation=formulation)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(_brute(inst), rel=1e-9), seed
        assert check(inst, res.schedule).objective == pytest.approx(res.objective)


@pytest.mark.parametrize("seed", range(4))
def test_relabelled_servers_keep_the_value(seed):
    """Renumbering identical servers changes no constraint and no alpha (checker)."""
    from optsched.models.asrpt import relabel_servers

    p = optsched.get_paper("asrpt")
    inst = generate(seed, n_jobs=8, n_servers=3, gpus_per_server=2)
    for name in ("spjf", "asrpt_eager", "wcs_workload"):
        sched = p.run(name, inst)
        again = relabel_servers(sched)
        assert check(inst, again).objective == pytest.approx(
            check(inst, sched).objective, rel=1e-12
        )
        used = [0] * 3
        for j, m in enumerate(again.servers[0]):
            used[m] += int(np.asarray(again.x[0])[:, j].sum())
        assert used == sorted(used, reverse=True)


@pytest.mark.parametrize("seed", range(3))
def test_formulations_v1_and_v2_prove_the_same_optimum(seed):
    """Beyond brute force (8 jobs): the formulations of (3) prove one optimum."""
    inst = generate(seed, n_jobs=8, n_servers=2, gpus_per_server=2)
    start = optsched.get_paper("asrpt").default_start(inst)
    got = {
        f: solve_offline(inst, start=start, formulation=f) for f in ("v1", "v2", "v3")
    }
    assert {r.status for r in got.values()} == {"optimal"}
    assert got["v1"].objective == pytest.approx(got["v2"].objective, rel=1e-9)
    assert got["v1"].objective == pytest.approx(got["v3"].objective, rel=1e-9)
    for r in got.values():
        assert check(inst, r.schedule).objective == pytest.approx(r.objective)


def test_unknown_formulation_is_refused_by_name():
    inst = generate(0, n_jobs=2, gpus_per_server=2)
    with pytest.raises(ValueError, match="formulation: must be one of"):
        solve_offline(inst, formulation="v9")


@pytest.mark.parametrize("formulation", ["v1", "v2", "v3"])
def test_mip_start_values_satisfy_every_row(formulation):
    """The start's values (no solver involved) satisfy every constraint of the model."""
    import pyomo.environ as pyo
    from optsched.models.asrpt import build_schedule, relabel_servers, start_values

    p = optsched.get_paper("asrpt")
    for seed in range(4):
        inst = generate(seed, n_jobs=6, n_servers=2, gpus_per_server=2)
        start = relabel_servers(p.default_start(inst))
        ub = check(inst, start).objective
        mod, opts = build_schedule(inst, ub, formulation=formulation)
        values = start_values(mod, opts, start)
        assert values is not None
        for var, v in values.items():
            var.set_value(v)
        assert all(v.value is not None for v in mod.component_data_objects(pyo.Var))
        for con in mod.component_data_objects(pyo.Constraint, active=True):
            body = pyo.value(con.body)
            assert con.lower is None or body >= pyo.value(con.lower) - 1e-9, con.name
            assert con.upper is None or body <= pyo.value(con.upper) + 1e-9, con.name
        # the start's value, up to the placements the start may have had with
        # a larger alpha than its usage vector's best
        assert pyo.value(mod.obj) <= ub + 1e-9


def test_alpha_min_exact_is_the_least_alpha():
    c = Cluster(4, 2, 1.25, 300.0)
    for model in ("VGG19", "BERT-large", "T5"):
        for stages in configurations(model, 4):
            best = min(alpha(stages, x, c) for x in _placements(stages, 4, 2))
            assert alpha_min_exact(stages, c) == pytest.approx(best, rel=1e-9)


# 50 examples (was 200: 100 s of the suite on a 2-core machine, ~0.5 s per
# proven demo-size optimum); the brute-force tests above check the optimum
# itself on 68 tiny instances
@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(seed=st.integers(0, 10**6))
def test_bounds_sandwich_the_optimum(seed):
    p = optsched.get_paper("asrpt")
    inst = p.generate(seed=seed, **p.demo_size)
    res = solve_offline(inst)
    assert res.status == "optimal"
    lb = lower_bound(inst)
    assert lb["per_job"] <= res.objective + 1e-9
    assert lb["srpt"] <= res.objective + 1e-9
    assert lb["lemma1_certified"] <= res.objective + 1e-9
    for name in p.algorithms:
        assert res.objective <= check(inst, p.run(name, inst)).objective + 1e-9
    assert theorem1(inst) >= 1.0


def test_large_instances_give_a_certified_interval():
    """Too large to model: the best online schedule and the certified bound, unproven."""
    from optsched.core.ratio import best_start, ratios

    inst = generate(0, n_jobs=60, n_servers=2, gpus_per_server=8)
    p = optsched.get_paper("asrpt")
    res = solve_offline(inst, start=best_start(p, inst))  # the harness's start
    assert res.status == "time_limit"
    best = min(check(inst, p.run(a, inst)).objective for a in p.algorithms)
    assert res.objective == pytest.approx(best)
    assert res.objective == pytest.approx(check(inst, res.schedule).objective)
    assert res.bound == pytest.approx(lower_bound(inst)["lower_bound"])
    assert res.bound <= res.objective
    df = ratios("asrpt", n_instances=1, algorithms=["asrpt", "wcs_duration"],
                n_jobs=60, n_servers=2, gpus_per_server=8, progress=False)  # fmt: skip
    rows = df[df["kind"] == "interval"]
    assert len(rows) == 2
    assert (rows["ratio_lo"] >= 1 - 1e-12).all()
    assert (rows["ratio_lo"] <= rows["ratio_hi"]).all()


def test_a_short_time_limit_keeps_the_start_as_incumbent():
    """Issue 26 item 7: 20 jobs, 5 s -- the MILP is cut short, the start stays the incumbent.

    Before, this solve returned ``time_limit`` with objective NaN, so the
    ratio harness had no interval; with the harness's start the incumbent is
    at least as good as the best checked online schedule and lies above the
    bound.
    """
    from optsched.core.ratio import best_start

    inst = generate(1, n_jobs=20, n_servers=2, gpus_per_server=2)
    p = optsched.get_paper("asrpt")
    res = solve_offline(inst, time_limit=5, start=best_start(p, inst))
    assert res.status in ("optimal", "time_limit")
    best = min(check(inst, p.run(a, inst)).objective for a in p.algorithms)
    assert math.isfinite(res.objective) and res.objective <= best + 1e-9
    assert res.objective == pytest.approx(check(inst, res.schedule).objective)
    assert res.bound <= res.objective + 1e-9
