"""``benchmarks/okita_slotcols.py``: the exact exchange cost of a slot column
against the checker, the pricing against a brute-force enumeration of the
columns of a slot (2 sites x 2 jobs), every round's bound below proven optima,
the restricted master of an optimum's slices at most the optimum ((a)), the
converged master at least the v3 LP ((b)) and the pattern root, and the
``--quick`` run (timings are not asserted)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from optsched.models.okita import solve_offline, worker_bound

from benchmarks import okita_patterns as op
from benchmarks import okita_slotcols as sc
from optsched.okita import generate
from optsched.okita.check import check
from tests.okita.decomposition_cases import SMALL, v3_lp

#: Tiny cases for the enumeration of every column of a slot.
TINY = [(0, 2, 2, 6, "exp"), (1, 2, 2, 6, "linear"), (4, 2, 2, 6, "exp")]

_OPT: dict = {}


def _opt(case):
    if case not in _OPT:
        res = solve_offline(
            generate(*case), formulation="v3", time_limit=30.0, threads=1
        )
        assert res.status == "optimal"
        _OPT[case] = res
    return _OPT[case]


def _slice(inst, sched, t):
    """Jobs active at ``t`` and the ``(Y, S)`` arrays of ``sched`` in slot ``t``."""
    jobs = [i for i in range(inst.n_jobs) if inst.arrival[i] <= t]
    Y = np.zeros((len(jobs), inst.n_sites), int)
    S = np.zeros((len(jobs), inst.n_sites), int)
    for i, tt, r, c in np.asarray(sched.workers).tolist():
        if tt == t:
            Y[jobs.index(i), r] = c
    for i, tt, r in np.asarray(sched.ps).tolist():
        if tt == t:
            S[jobs.index(i), r] = 1
    return jobs, Y, S


@pytest.mark.parametrize("case", SMALL[:4] + TINY[:1])
def test_exchange_cost_equals_checker(case) -> None:
    """Per job, the exact cost ``E`` of the optimum's slot slices adds up to the
    checker's exchange cost; every slice is a column."""
    inst = generate(*case)
    sched = _opt(case).schedule
    per_job = np.zeros(inst.n_jobs)
    for t in range(1, inst.n_slots + 1):
        jobs, Y, S = _slice(inst, sched, t)
        assert sc.is_column(inst, jobs, Y, S)
        for a, i in enumerate(jobs):
            only = np.zeros_like(Y)
            only[a] = Y[a]
            per_job[i] += sc.exchange_cost(inst, jobs, only, S)
    assert per_job == pytest.approx(check(inst, sched).exchange, abs=1e-9)


def _columns(inst, jobs):
    """Every column of a slot over ``jobs`` (brute force over the box)."""
    R = inst.n_sites
    ybar = worker_bound(inst)
    cap = inst.capacity + 1e-9 * np.maximum(1.0, inst.capacity)
    per_job = []
    for i in jobs:
        opts = [(tuple([0] * R), -1)]  # no PS: no workers
        for p in range(R):
            for Y in itertools.product(*(range(int(ybar[i, r]) + 1) for r in range(R))):
                opts.append((Y, p))
        per_job.append(opts)
    out = []
    for combo in itertools.product(*per_job):
        Y = np.array([c[0] for c in combo])
        S = np.array([[int(c[1] == r) for r in range(R)] for c in combo])
        use = np.stack([sum(inst.m[i] * Y[a, r] + inst.n[i] * S[a, r]
                            for a, i in enumerate(jobs)) for r in range(R)])  # fmt: skip
        if np.all(use <= cap):
            out.append((Y, S, [c[1] for c in combo]))
    return out


@pytest.mark.parametrize("case", TINY)
def test_pricing_equals_enumeration(case) -> None:
    """The HiGHS pricing value equals the least enumerated reduced cost (exchange
    cost written out per job and PS site), its column is one, its lower bound is
    not above it (dual costs of either sign)."""
    inst = generate(*case)
    rng = np.random.default_rng(case[0])
    R = inst.n_sites
    for t in (1, 3, inst.n_slots):
        jobs = [i for i in range(inst.n_jobs) if inst.arrival[i] <= t]
        if not jobs:
            continue
        cols = _columns(inst, jobs)
        pricer = sc.SlotPricer(inst, t, jobs)
        for _ in range(4):
            cy = rng.uniform(-40.0, 10.0, (len(jobs), R))
            cs = rng.uniform(-30.0, 10.0, (len(jobs), R))
            cp = rng.uniform(-20.0, 20.0, len(pricer.yp_idx))
            cpd = {k: v for k, v in zip(pricer.yp_idx, cp, strict=True)}

            def cost(Y, S, ps, jobs=jobs, cy=cy, cs=cs, cpd=cpd):
                out = float((cy * Y).sum() + (cs * S).sum())
                for a, i in enumerate(jobs):
                    if ps[a] >= 0:
                        for r in range(R):
                            ex = inst.pi[i] * inst.q[r, ps[a]] * Y[a, r]
                            out += ex + cpd.get((a, r, ps[a]), 0.0) * Y[a, r]
                return out

            costs = [cost(*c) for c in cols]
            best = min(costs)
            value, (Y, S), lower = pricer.price(cy, cs, cp)
            assert value == pytest.approx(best, abs=1e-7)
            Y, S = np.array(Y), np.array(S)
            hit = [k for k, c in enumerate(cols)
                   if (c[0] == Y).all() and (c[1] == S).all()]  # fmt: skip
            assert len(hit) == 1 and costs[hit[0]] == pytest.approx(value, abs=1e-9)
            assert best - 1e-5 * (1 + abs(best)) <= lower <= best + 1e-9


@pytest.mark.parametrize("case", SMALL)
def test_bound_valid_and_master_above_lp(case) -> None:
    """Every round's ``L`` is at most the proven optimum and its master value;
    at convergence ``L`` = master >= v3 LP (solved separately in Pyomo) and >= the
    pattern root (each slot column is a pattern per site); at the master's duals
    ``L`` agrees with ``z_master + sum min(0, rc*)``; the variant without ``yp``
    linking rows is valid and not above the linked master."""
    inst = generate(*case)
    opt = _opt(case)
    tol = 1e-6 * max(1.0, abs(opt.objective))
    res = sc.slot_bound(inst, time_limit=60.0)
    assert res.converged and res.artificial == pytest.approx(0.0, abs=1e-7)
    for rnd in res.history:
        assert rnd.bound <= opt.objective + tol
        assert rnd.bound <= rnd.master + tol
        if not np.isnan(rnd.formula):
            assert rnd.formula == pytest.approx(rnd.bound, rel=1e-6, abs=1e-6)
    assert res.bound == max(rnd.bound for rnd in res.history)
    assert res.bound == pytest.approx(res.master, rel=1e-6)
    assert res.master >= v3_lp(inst) - tol
    assert res.master >= op.pattern_bound(inst, time_limit=60.0).master - tol
    free = sc.slot_bound(inst, time_limit=60.0, link_yp=False)
    assert free.converged
    assert all(rnd.bound <= opt.objective + tol for rnd in free.history)
    assert free.master <= res.master + tol


@pytest.mark.parametrize("case", SMALL[::2])
def test_optimum_slices_give_master_at_most_optimum(case) -> None:
    """(a): the restricted master holding the proven optimum's slot slices (and
    the other start columns) has value at most the optimum."""
    inst = generate(*case)
    opt = _opt(case)
    res = sc.slot_bound(inst, time_limit=0.0, start=opt.schedule)
    assert res.rounds == 1
    assert res.history[0].master <= opt.objective + 1e-6 * abs(opt.objective)


def test_some_case_above_patterns_and_lp() -> None:
    """On (3, 3, 4, 12) the converged slot master lies strictly above both the v3
    LP and the pattern root (the comparisons above exercise more than the LP)."""
    inst = generate(3, 3, 4, 12, "exp")
    res = sc.slot_bound(inst, time_limit=60.0)
    assert res.master > v3_lp(inst) + 1.0
    assert res.master > op.pattern_bound(inst, time_limit=60.0).master + 1.0


def test_okita_slotcols_quick_cli(tmp_path, capsys) -> None:
    df = sc.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "okita_slotcols.csv")
    assert list(back.columns) == sc.COLUMNS and len(back) == 1
    r = df.iloc[0]
    assert r["lp"] - 1e-5 * abs(r["lp"]) <= r["bound"] <= r["incumbent"] + 1e-6
    assert "slot columns" in capsys.readouterr().out
