"""OASiS aggregated relaxation and completion-window search (models/oasis_window.py).

Known answers: the proven optimum of the exact MILP (``solve_offline``,
itself tested against brute force), which the aggregated relaxation must
bound from above, and which it must equal on one worker and one PS server
(summing over a single server changes nothing); there the window search
with ``window = 0`` must reach that optimum.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models import oasis_window as ow
from optsched.models.oasis import HIGHS_OPTIONS
from test_oasis_lns import _online

import optsched
from optsched.core.solver import solve
from optsched.oasis import paper as oasis_paper
from optsched.oasis.check import check
from optsched.oasis.instance import generate
from optsched.oasis.schedule import OasisSchedule

SMALL = dict(n_jobs=8, n_slots=10, n_worker_servers=2, n_ps_servers=2)
ONE = dict(n_jobs=7, n_slots=10, n_worker_servers=1, n_ps_servers=1)


def _optimum(inst):
    res = optsched.get_paper("oasis").solve_offline(inst, time_limit=None, threads=1)
    assert res.status == "optimal"
    return res


def _aggregate(inst) -> float:
    m = ow.build_aggregate(inst)
    res = solve(m, threads=1, options=HIGHS_OPTIONS)
    assert res.status == "optimal"
    return float(res.objective)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_aggregate_bounds_the_proven_optimum(seed):
    inst = generate(seed, **SMALL)
    assert _aggregate(inst) >= _optimum(inst).objective * (1 - 1e-9) - 1e-9


@pytest.mark.parametrize("seed", [1, 4, 9, 12])
def test_aggregate_is_exact_on_one_server_per_side(seed):
    inst = generate(seed, **ONE)
    opt = _optimum(inst)
    assert opt.schedule.admitted.sum() >= 2  # a non-trivial instance
    assert _aggregate(inst) == pytest.approx(opt.objective, rel=1e-9, abs=1e-9)
    best, info = ow.window_search(inst, OasisSchedule.empty(inst, "empty"), window=0)
    assert check(inst, best).objective == pytest.approx(opt.objective, rel=1e-9)
    assert info.window_objective == pytest.approx(opt.objective, rel=1e-9)
    assert info.start_objective == 0.0 and best.algorithm == "empty+win"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), window=st.integers(0, 3))
def test_window_search_is_checked_monotone_restricted_and_below_the_optimum(
    seed, window
):
    inst = generate(seed, **SMALL)
    start = _online(inst)
    s0 = check(inst, start).objective
    best, info = ow.window_search(inst, start, window=window)
    val = check(inst, best).objective  # raises if infeasible
    assert val >= s0 - 1e-9 and info.start_objective == pytest.approx(s0)
    assert val <= _optimum(inst).objective * (1 + 1e-9) + 1e-9
    if best is not start:
        # every admitted job completes in its window or where the start did
        agg = ow.build_aggregate(inst)
        solve(agg, threads=1, options={**HIGHS_OPTIONS, "mip_max_nodes": ow.AGG_NODES})
        comp = ow.completion_slots(agg)
        own = start.completion()
        for i in np.flatnonzero(best.admitted):
            c = int(best.completion()[i])
            in_window = i in comp and comp[i] <= c <= comp[i] + window
            assert in_window or (start.admitted[i] and c <= own[i])
    again, _ = ow.window_search(inst, start, window=window)
    assert np.array_equal(again.workers, best.workers)


def test_no_job_can_finish_returns_the_start_without_a_solve():
    inst = generate(0, n_jobs=3, n_slots=1, n_worker_servers=1, n_ps_servers=1)
    start = OasisSchedule.empty(inst, "empty")
    best, info = ow.window_search(inst, start)
    assert best is start
    assert (info.aggregate_status, info.window_status) == ("empty", "empty")
    assert info.start_objective == 0.0 == info.window_objective


def test_window_must_be_non_negative():
    inst = generate(0, **SMALL)
    with pytest.raises(ValueError, match="window"):
        ow.window_search(inst, OasisSchedule.empty(inst), window=-1)


def test_default_start_runs_the_window_search_before_the_lns(monkeypatch):
    inst = generate(1, **SMALL)
    calls: list[str] = []
    real_win, real_lns = ow.window_search, oasis_paper.lns.improve

    def spy_win(inst_, start, **kw):
        calls.append("win")
        return real_win(inst_, start, **kw)

    def spy_lns(inst_, start, **kw):
        calls.append("lns")
        return real_lns(inst_, start, **kw)

    monkeypatch.setattr(ow, "window_search", spy_win)
    monkeypatch.setattr(oasis_paper.lns, "improve", spy_lns)
    plain = oasis_paper.default_start(inst)
    assert plain is not None and not calls  # below LNS_MIN_JOBS
    monkeypatch.setattr(oasis_paper, "LNS_MIN_JOBS", inst.n_jobs)
    both = oasis_paper.default_start(inst)
    assert calls == ["win", "lns"] and both is not None
    assert check(inst, both).objective >= check(inst, plain).objective - 1e-9
    cells = inst.n_slots * (inst.n_worker_servers + inst.n_ps_servers)
    monkeypatch.setattr(oasis_paper, "WINDOW_MAX_CELLS", cells - 1)
    calls.clear()
    oasis_paper.default_start(inst)
    assert calls == ["lns"]  # too many slots x servers: no window search


def test_restricted_milp_starts_from_the_start(monkeypatch):
    # Root node only, no heuristic, no presolve: HiGHS's incumbent of the
    # restricted MILP can only be the MIP start, so it must equal the start's
    # value (a ``fix(0)`` restriction made HiGHS drop the start:
    # tests/core/test_solver_start_fixed.py).
    seen = []

    def spy(model, **kw):
        res = solve(model, **kw)
        seen.append((kw.get("start") is not None, res))
        return res

    monkeypatch.setattr(ow, "solve", spy)
    monkeypatch.setattr(ow, "WINDOW_NODES", 0)
    monkeypatch.setattr(
        ow,
        "HIGHS_OPTIONS",
        {**HIGHS_OPTIONS, "mip_heuristic_effort": 0.0, "presolve": "off"},
    )
    inst = generate(3, **SMALL)
    start = _online(inst)
    ow.window_search(inst, start)
    with_start = [res for given, res in seen if given]
    assert len(with_start) == 1 and with_start[0].has_solution
    assert with_start[0].objective == pytest.approx(check(inst, start).objective)
