"""``benchmarks/edgecloud_twocol.py``: its pricers against independent ones, its bound
below proven optima, and the ``--quick`` run (timings are not asserted)."""

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from optsched.models.edgecloud import build_model

import optsched
from benchmarks import edgecloud_twocol as tc
from benchmarks.frontier import LADDERS
from optsched.core.solver import solve


def _inst(seed: int):
    return optsched.get_paper("edgecloud").generate(seed, **LADDERS["edgecloud"][0])


def _exact_k_milp(inst, j: int, prices: dict) -> float:
    """The one-job MILP of (2) (v3) with every chunk training exactly its slots
    ((2b) as an equality) and the worker prices added to its cost."""
    sub = dataclasses.replace(inst, jobs=(inst.jobs[j],), meta={})
    m = build_model(sub, formulation="v3", storage=False)
    m.exact = pyo.ConstraintList()
    for con in m.c2b_chunk_work.values():  # a one-sided row, written either way
        if con.lower is not None:
            m.exact.add(con.body <= con.lower)
        else:
            m.exact.add(con.body >= con.upper)
    obj = next(m.component_data_objects(pyo.Objective, active=True))
    extra = sum(
        prices.get(("w", s, w, t), 0.0) * var
        for (_j, _d, s, w, t), var in m.y.items()
        if s != inst.cloud
    )
    obj.expr = obj.expr + extra
    res = solve(m, threads=1)
    assert res.status == "optimal"
    return res.objective


@pytest.mark.parametrize("seed", [0, 1])
def test_signed_pricing_equals_the_exact_one_job_milp(seed: int) -> None:
    """With worker prices of either sign the enumeration equals the one-job MILP
    over the schedules whose chunks train exactly their slots.

    Those are the job columns of the master: every schedule of (2) keeps its
    completion slots, or lowers them, when each chunk drops its runs beyond
    the slots it needs, so the relaxation's optimum is attained among them
    (with negative prices the MILP with (2b) as printed would add runs).
    """
    inst, rng = _inst(seed), np.random.default_rng(seed)
    for j in range(inst.n_jobs):
        dp = tc.SignedDP(inst, j)
        keys = [("w", s, w, int(t)) for s, w, slots in dp.workers for t in slots]
        for _ in range(2):
            prices = {k: float(rng.choice([0.0, rng.uniform(-3.0, 3.0)])) for k in keys}
            value, col, _ = dp.price(prices)
            assert value == pytest.approx(_exact_k_milp(inst, j, prices), abs=1e-6)
            assert col is not None
            priced = col.cost + sum(prices.get(r, 0.0) for r in col.uses)
            assert priced == pytest.approx(value, abs=1e-6)


def _brute_worker(allowed, cost) -> float:
    """Cheapest one-worker timetable by enumerating every job's slot set."""
    jobs = list(allowed)
    options = []
    for j in jobs:
        k, d, slots = allowed[j]
        sets = [()]
        for n in range(1, d + 1):
            sets += list(itertools.combinations(slots, k * n))
        options.append(sets)
    best = 0.0
    for choice in itertools.product(*options):
        flat = [t for s in choice for t in s]
        if len(flat) == len(set(flat)):
            best = min(
                best,
                sum(cost(j, t) for j, s in zip(jobs, choice, strict=True) for t in s),
            )
    return best


@pytest.mark.parametrize("seed", range(4))
def test_worker_pricing_equals_enumeration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    allowed = {
        0: (1, 2, [1, 2, 3, 4]),
        1: (2, 2, [2, 3, 4, 5, 6]),
        2: (3, 1, [1, 3, 5]),
    }
    table = {(j, t): float(rng.uniform(-2.0, 1.0)) for j in allowed for t in range(7)}
    pricer = tc.WorkerPricer(allowed)
    value, used, low = pricer.price(lambda j, t: table[j, t])
    expect = _brute_worker(allowed, lambda j, t: table[j, t])
    assert value == pytest.approx(expect, abs=1e-9)
    assert low <= value + 1e-9
    for j, (k, d, slots) in allowed.items():  # the timetable is one
        mine = [t for jj, t in used if jj == j]
        assert set(mine) <= set(slots) and len(mine) % k == 0 and len(mine) <= k * d
    assert len({t for _j, t in used}) == len(used)


def test_edgecloud_twocol_quick(tmp_path, capsys) -> None:
    """Quick run: both bounds below HiGHS's proven optimum, the two-column one above
    the job columns' one (its master has every row of theirs and more)."""
    df = tc.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "edgecloud_twocol.csv")
    assert list(back.columns) == tc.COLUMNS and len(back) == 2
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    p = optsched.get_paper("edgecloud")
    for r in df.itertuples():
        assert r.two_converged and r.phase1_iterations >= 1
        assert r.two_value >= r.job_value - 1e-6
        assert 0 <= r.two_bound - r.two_value < 1
        opt = p.solve_offline(_inst(r.seed), time_limit=60.0, threads=1)
        assert opt.status == "optimal"
        assert r.two_bound <= opt.objective + 1e-9 <= r.incumbent + 1e-9
    assert "job + worker columns" in capsys.readouterr().out


def test_committed_bounds_below_the_known_optima() -> None:
    """Every committed bound lies at or below the instance's optimum where another
    run proved it: HiGHS's proven frontier rows (``frontier.csv``) and the
    optima certified by the relaxation without (2f) (``edgecloud_gap.csv``);
    never above the row's checked start; the two-column value never below
    the job columns' (its master has their rows and more)."""
    from pathlib import Path

    data = Path("benchmarks/data")
    df = pd.read_csv(data / "edgecloud_twocol.csv")
    assert len(df) >= 5
    fr = pd.read_csv(data / "frontier.csv")
    fr = fr[(fr["paper"] == "edgecloud") & fr["proven"]]
    gap = pd.read_csv(data / "edgecloud_gap.csv")
    known = {
        (int(r.n_jobs), int(r.n_servers), int(r.seed)): float(r.objective)
        for r in fr.itertuples()
    }
    for r in gap[gap["certified"]].itertuples():
        known[int(r.n_jobs), int(r.n_servers), int(r.seed)] = float(r.no2f_objective)
    checked = 0
    for r in df.itertuples():
        assert r.two_bound <= r.incumbent and r.job_bound <= r.incumbent
        assert r.two_value >= r.job_value - 1e-6
        opt = known.get((r.n_jobs, r.n_servers, r.seed))
        if opt is not None:
            assert r.two_bound <= opt and r.job_bound <= opt
            checked += 1
    assert checked >= 4
