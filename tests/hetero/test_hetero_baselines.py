"""Exhaustive search, LAS, the certified offline optimum and the registry record."""

import itertools

import numpy as np
import pytest

from optsched.core.errors import SolverError
from optsched.hetero.baselines import count_placements, exhaustive, las, v_equal
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example, generate
from optsched.hetero.paper import PAPER, solve_by_enumeration
from optsched.hetero.schedule import HeteroPlacement


def _gpus(inst, p, i):
    return sorted(inst.gpu[k] for k in p.workers_of(i))


def test_section_iv_a_las():
    """LAS places each job on {T4, V100}: 12,776.8 s (Sec. IV-A)."""
    inst = example()
    p = las(inst)
    assert _gpus(inst, p, 0) == ["T4", "V100"] and _gpus(inst, p, 1) == ["T4", "V100"]
    assert check(inst, p).objective == pytest.approx(12_776.8, abs=0.05)
    assert v_equal(inst.rho).tolist() == [919.0, 2638.0]


def test_section_iv_a_exhaustive_optimum():
    """Exhaustive search: ResNet-18 {V100, V100}, VGG-19 {T4, T4}, 10,592 s; LAS is 20.6% worse."""
    inst = example()
    p = exhaustive(inst)
    assert _gpus(inst, p, 0) == ["V100", "V100"] and _gpus(inst, p, 1) == ["T4", "T4"]
    opt = check(inst, p).objective
    assert opt == pytest.approx(10_592, abs=0.05)
    assert check(inst, las(inst)).objective / opt - 1 == pytest.approx(
        0.206, abs=0.0005
    )
    res = solve_by_enumeration(inst)
    assert res.status == "optimal" and res.bound == res.objective == pytest.approx(opt)


def _random_instance(rng, S, K, typed, communication):
    if typed:
        tab = rng.integers(50, 500, size=(S, 3)).astype(float)
        rho = tab[:, rng.integers(0, 3, size=K)]
    else:
        rho = rng.uniform(10, 500, size=(S, K))
    return HeteroInstance(
        jobs=tuple(
            Job(
                f"j{i}",
                int(rng.integers(1_000, 100_000)),
                int(rng.integers(1, 50)),
                float(rng.uniform(0, 2_000)),
            )
            for i in range(S)
        ),
        workers=tuple(Worker("X", int(rng.integers(0, 3))) for _ in range(K)),
        throughput=tuple(map(tuple, rho)),
        communication=communication,
    )


def _brute_force(inst):
    """Every surjective sigma, proportional split (12), evaluated by the checker."""
    best = np.inf
    for a in itertools.product(range(inst.n_jobs), repeat=inst.n_workers):
        if len(set(a)) < inst.n_jobs:
            continue
        best = min(
            best, check(inst, HeteroPlacement.from_assignment(inst, a)).objective
        )
    return best


@pytest.mark.parametrize("seed", range(8))
def test_exhaustive_equals_brute_force(seed):
    """Exhaustive (with symmetry reduction) matches brute force over all sigma, S <= 3, K <= 7."""
    rng = np.random.default_rng(seed)
    S = int(rng.integers(1, 4))
    K = int(rng.integers(S, 8 if S < 3 else 7))
    inst = _random_instance(rng, S, K, typed=seed % 2 == 0, communication=seed % 4 < 2)
    got = check(inst, exhaustive(inst)).objective
    assert got == pytest.approx(_brute_force(inst), rel=1e-12)
    assert solve_by_enumeration(inst).objective == pytest.approx(got, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_las_max_min_equals_brute_force(seed):
    """LAS attains the brute-force max-min of sum rho / V^Equal."""
    rng = np.random.default_rng(100 + seed)
    S, K = 2 + seed % 2, 5
    inst = _random_instance(rng, S, K, typed=seed % 2 == 0, communication=True)
    veq = inst.rho.sum(axis=1) / S
    best = -np.inf
    for a in itertools.product(range(S), repeat=K):
        if len(set(a)) < S:
            continue
        V = np.array(
            [inst.rho[i, [k for k in range(K) if a[k] == i]].sum() for i in range(S)]
        )
        best = max(best, (V / veq).min())
    p = las(inst)
    check(inst, p)
    V = np.array([inst.rho[i, p.workers_of(i)].sum() for i in range(S)])
    assert (V / veq).min() == pytest.approx(best, rel=1e-9)


def test_symmetry_reduction_counts():
    """Identical workers are enumerated as classes: 3 classes of 5, S = 4 gives C(8,3)^3."""
    inst = generate(0, n_jobs=4, n_workers=15)
    assert count_placements(inst) == 56**3
    noisy = generate(0, n_jobs=2, n_workers=6, epsilon=0.1)
    assert count_placements(noisy) == 2**6


def test_too_large_raises_clear_error():
    """An instance beyond max_placements raises SolverError naming the limit."""
    inst = generate(0, n_jobs=4, n_workers=15, epsilon=0.1)
    with pytest.raises(SolverError, match="max_placements"):
        exhaustive(inst)
    with pytest.raises(SolverError, match="max_placements"):
        solve_by_enumeration(generate(0, n_jobs=3, n_workers=6), max_placements=10)


def test_offline_time_limit_is_not_called_optimal():
    """A time limit hit mid-enumeration gives status time_limit and a valid lower bound."""
    inst = generate(1, n_jobs=3, n_workers=12, epsilon=0.05)
    res = solve_by_enumeration(inst, time_limit=0.0)
    assert res.status == "time_limit"
    assert res.bound <= res.objective
    check(inst, res.schedule)


def test_paper_record_runs_every_algorithm():
    """Every registered algorithm passes the checker and is never below the certified optimum."""
    assert PAPER.key == "hetero" and PAPER.sense == "min"
    assert set(PAPER.algorithms) == {
        "has",
        "jps",
        "optimus",
        "optimus_lb",
        "exhaustive",
        "gavel",
        "las",
    }
    for seed in range(3):
        inst = PAPER.generate(seed=seed, **PAPER.demo_size)
        opt = PAPER.solve_offline(inst, time_limit=30)
        assert opt.status == "optimal"
        for name in PAPER.algorithms:
            obj = PAPER.check(inst, PAPER.run(name, inst)).objective
            assert obj >= opt.objective * (1 - 1e-12)
        assert PAPER.check(
            inst, PAPER.run("exhaustive", inst)
        ).objective == pytest.approx(opt.objective)
    again = PAPER.instance_type.from_json(inst.to_json())
    assert again == inst
