"""The baselines FIFO, DRF and OASiS (``optsched.okita.baselines``).

Every schedule goes through the checker (on ``T`` extended to its makespan,
with the (2c) reading it declares); the readings of the module docstring are
checked on the rows: fixed deployments, arrival order, the FIFO draw range,
DRF's share of a lone job, OASiS's committed plans.  Hand values: the
proportional shares and the price bounds of the hand instance.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from optsched.core.errors import InvalidInstanceError
from optsched.okita import check, drf, fifo, generate, oasis
from optsched.okita.baselines import BaselineParams, _shares, price_bounds
from tests.okita.instances import hand_instance

BASELINES = (fifo, drf, oasis)
CASES = [
    (seed, R, I, T, cost)
    for seed, (R, I, T) in enumerate([(2, 3, 20), (3, 5, 30), (4, 8, 40)] * 5)
    for cost in ("exp", "linear", "piecewise")
]


def _checked(inst, sched):
    done = dataclasses.replace(inst, n_slots=max(inst.n_slots, sched.meta["makespan"]))
    return check(done, sched, ps_every_slot=sched.meta["ps_every_slot"])


def _runs(sched) -> dict[int, dict[int, tuple]]:
    """job -> slot -> sorted ((site, count), ...) of its workers."""
    out: dict[int, dict[int, list]] = {}
    for i, t, r, c in sched.workers.tolist():
        out.setdefault(i, {}).setdefault(t, []).append((r, c))
    return {i: {t: tuple(sorted(v)) for t, v in d.items()} for i, d in out.items()}


@pytest.mark.parametrize("algo", BASELINES, ids=lambda f: f.__name__)
def test_every_baseline_schedule_passes_the_checker(algo):
    past = 0
    for seed, R, I, T, cost in CASES:
        inst = generate(seed, n_sites=R, n_jobs=I, n_slots=T, cost=cost)
        sched = algo(inst, seed=seed)
        ev = _checked(inst, sched)
        assert np.isfinite(ev.objective)
        assert np.array_equal(ev.completion, sched.meta["completion"])
        assert sched.meta["horizon_exceeded"] == (ev.completion.max() > T)
        past += sched.meta["horizon_exceeded"]
        assert sched.algorithm == algo.__name__
    assert past < len(CASES)


@pytest.mark.parametrize("algo", BASELINES, ids=lambda f: f.__name__)
def test_baselines_are_deterministic(algo):
    inst = generate(4, n_sites=3, n_jobs=6, n_slots=30)
    a, b = algo(inst, seed=3), algo(inst, seed=3)
    assert a.to_json() == b.to_json()


@pytest.mark.parametrize("algo", (fifo, drf), ids=lambda f: f.__name__)
def test_fixed_deployment_in_every_slot_of_a_run(algo):
    """Readings 3-4: from its first slot to completion a job keeps its workers and PS."""
    for seed in range(8):
        inst = generate(seed, n_sites=3, n_jobs=6, n_slots=30)
        sched = algo(inst, seed=seed)
        for i, slots in _runs(sched).items():
            first, last = min(slots), max(slots)
            assert sorted(slots) == list(range(first, last + 1))
            assert len(set(slots.values())) == 1
            assert sum(c for _, c in slots[first]) == sched.meta["workers_fixed"][i]
            ps = {r for j, t, r in sched.ps.tolist() if j == i and t >= first}
            assert len(ps) == 1
            assert last == sched.meta["completion"][i]


def test_fifo_starts_in_arrival_order_with_counts_in_range():
    """Reading 5: start slots follow job order; N_i in [1, max(1, floor(A_i / 2))]."""
    for seed in range(10):
        inst = generate(seed, n_sites=3, n_jobs=8, n_slots=40)
        sched = fifo(inst, seed=seed)
        starts = [min(s) for _, s in sorted(_runs(sched).items())]
        assert starts == sorted(starts)
        assert all(s >= a for s, a in zip(starts, inst.arrival, strict=True))
        for i, N in sched.meta["workers_fixed"].items():
            A = sched.meta["available"][i]
            assert 1 <= N <= max(1, A // 2) or N == max(1, int(np.ceil(
                inst.epochs[i] / inst.rho[i])))  # fmt: skip
            assert N <= A


def test_fifo_seed_changes_only_the_draws():
    inst = generate(2, n_sites=4, n_jobs=8, n_slots=40)
    runs = [fifo(inst, seed=s).meta["workers_fixed"] for s in range(6)]
    assert len({tuple(sorted(r.items())) for r in runs}) > 1


def test_drf_gives_a_lone_job_every_useful_worker():
    """Reading 6: alone, progressive filling stops at one slot of work or when PA fails."""
    inst = generate(1, n_sites=3, n_jobs=1, n_slots=20)
    sched = drf(inst)
    (N,) = sched.meta["workers_fixed"].values()
    useful = int(np.ceil(inst.epochs[0] * inst.D[0].sum() / inst.rho[0]))
    if N < useful:  # then one more worker does not fit anywhere with the PS
        from optsched.okita.baselines import _most_workers, _placer

        assert _most_workers(_placer(inst, 0, inst.capacity, inst.D[0])) == N
    else:
        assert N == useful and sched.meta["completion"][0] == inst.arrival[0]


def test_oasis_runs_its_committed_plans():
    """Reading 8: each job's workers are its plan's in every slot it trains."""
    for seed in range(6):
        inst = generate(seed, n_sites=3, n_jobs=6, n_slots=30)
        sched = oasis(inst)
        runs = _runs(sched)
        for i, (start, l, N, cost) in sched.meta["plans"].items():
            assert start >= inst.arrival[i] and cost > 0
            slots = runs[i]
            assert min(slots) == start and max(slots) <= start + l - 1
            assert all(sum(c for _, c in v) == N for v in slots.values())


def test_shares_by_hand():
    """10 chunks over capacities (1, 1, 1): 3.33 each, the remainder to site 0."""
    assert _shares(10, np.array([1, 1, 1])).tolist() == [4, 3, 3]
    assert _shares(7, np.array([0, 2, 5])).tolist() == [0, 2, 5]
    assert _shares(5, np.array([1, 0, 1])).tolist() == [3, 0, 2]


def test_price_bounds_of_the_hand_instance():
    """Job 0: work 2, units 2 (1 + 1) + 1 = 5, f(0) = 50 -> 10; job 1: work 2,
    units 2 (1 + 2) + 2 = 8, f(0) = 20 -> 2.5, so L = 2.5.  U: job 0 f(3) = 80
    over its least positive demand 1; job 1 f(2) = 300 over 1: U = 300."""
    L, U = price_bounds(hand_instance())
    assert L == pytest.approx(2.5) and U == pytest.approx(300.0)


@pytest.mark.parametrize("algo", BASELINES, ids=lambda f: f.__name__)
def test_max_slots_guard(algo):
    inst = generate(0, n_sites=2, n_jobs=6, n_slots=20)
    with pytest.raises(RuntimeError, match="max_slots"):
        algo(inst, params=BaselineParams(max_slots=1))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    factor=st.floats(0.55, 1.45).filter(lambda f: abs(f - 1.0) > 1e-3),
)
def test_baselines_with_fractional_chunks_per_worker(seed, factor):
    """``rho_i / E_i`` not an integer (the generator draws integers; the
    worst-case search's mutations do not): a site trains ``floor(rho y / E)``
    chunks.  Every baseline's schedule passes the checker, and every OASiS
    plan trains all its job's chunks (reading 8a; the plan used to leave
    chunks and raise, benchmarks/data/worst/bugs/okita_oasis_*).
    """
    try:
        inst = generate(seed, n_sites=3, n_jobs=4, n_slots=20)
    except InvalidInstanceError:  # the generator found no instance (4 of 10,001 seeds)
        assume(False)
    jobs = [dataclasses.replace(j, rho=j.rho * factor) for j in inst.jobs]
    inst = dataclasses.replace(inst, jobs=jobs)
    for algo in BASELINES:
        sched = algo(inst, seed=seed)
        assert np.isfinite(_checked(inst, sched).objective)
    runs = _runs(oasis(inst))
    for i, slots in runs.items():
        cap = sum(
            np.floor(inst.rho[i] * c / inst.epochs[i] + 1e-9)
            for v in slots.values()
            for _, c in v
        )
        assert cap >= inst.D[i].sum()


@pytest.mark.parametrize("seed", range(6))
def test_every_algorithm_checked_under_the_sigmoid_reading(seed):
    """Okita and the baselines on sigmoid instances: every schedule through
    ``p.check`` (T extended to the makespan), Okita's ``min_cost`` is the
    checker's objective, and each job pays ``tau / (1 + e^{-0.25 (d - 4)})``."""
    import optsched
    from optsched.okita import okita

    p = optsched.get_paper("okita")
    inst = generate(seed, n_sites=3, n_jobs=5, n_slots=30, cost="sigmoid")
    for alg in (okita, *BASELINES):
        sched = alg(inst)
        done = dataclasses.replace(
            inst, n_slots=max(inst.n_slots, sched.meta["makespan"])
        )
        ev = _checked(inst, sched)
        if sched.meta["ps_every_slot"]:
            assert p.check(done, sched).objective == pytest.approx(ev.objective)
        tau = np.array([j.cost.tau for j in inst.jobs])
        want = tau / (1.0 + np.exp(-0.25 * (ev.duration - 4.0)))
        assert ev.latency == pytest.approx(want)
        if alg is okita:
            assert ev.objective == pytest.approx(sched.meta["min_cost"])
