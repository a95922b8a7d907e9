"""Issue 26 item 2: certified intervals with a named bound (``bound_kind``).

Every ``solve_offline`` names the bound it reports; when the MILP is not
proven the bound is the tightest valid one the slice certifies.  Known
answers are the proven optima of the same instances solved without a time
limit (an independent solve), never printed values.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pyomo.environ as pyo
import pytest

import optsched
from optsched.core import base
from optsched.core.base import OfflineResult, best_bound, certified_solve
from optsched.core.protocols import BOUND_KINDS
from optsched.core.ratio import best_start
from optsched.core.solver import Deadline

#: Relative slack of a bound against a proven optimum: solver round-off
#: (the harness's ``BEAT_RTOL``).
RTOL = base.BEAT_RTOL

#: Per paper: a size a little above ``demo_size`` (so that a small time limit
#: can stop HiGHS before the proof) and the seeds; each proves within seconds.
SIZES: dict[str, tuple[dict, tuple[int, ...]]] = {
    "oasis": (
        {"n_jobs": 8, "n_slots": 12, "n_worker_servers": 2, "n_ps_servers": 2},
        (0, 1),
    ),
    "edgecloud": ({}, (0, 1)),
    "okita": ({"n_sites": 3, "n_jobs": 4, "n_slots": 12}, (0, 1)),
    "asrpt": ({"n_jobs": 5, "n_servers": 2, "gpus_per_server": 2}, (0, 1)),
    "hetero": ({"n_jobs": 3, "n_workers": 6}, (0, 1)),
}
#: Time limits of the unproven solves (0: the budget ends before HiGHS).
LIMITS = (0.0, 0.1, 0.4)


def _valid(sense: str, bound: float, opt: float) -> bool:
    """``bound`` is a valid bound on the proven optimum ``opt`` (with round-off)."""
    tol = RTOL * max(1.0, abs(opt))
    return bound >= opt - tol if sense == "max" else bound <= opt + tol


def _tighter_or_equal(sense: str, a: float, b: float) -> bool:
    """``a`` is at least as tight as ``b``."""
    return a <= b if sense == "max" else a >= b


# ---------------------------------------------------------------- the field
def test_offline_result_names_its_bound():
    """Default ``milp``; a non-finite bound is ``none``; bad kinds are refused."""
    assert OfflineResult(1.0, 2.0, "time_limit", 0.0).bound_kind == "milp"
    r = OfflineResult(1.0, 2.0, "time_limit", 0.0, None, "colgen")
    assert r.bound_kind == "colgen"
    for value in (math.nan, math.inf, -math.inf):
        r = OfflineResult(1.0, value, "time_limit", 0.0, None, "combinatorial")
        assert r.bound_kind == "none"
    with pytest.raises(ValueError, match="bound_kind.*'dual'"):
        OfflineResult(1.0, 2.0, "time_limit", 0.0, None, "dual")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bound_kind: 'none'.*2.0"):
        OfflineResult(1.0, 2.0, "time_limit", 0.0, None, "none")
    assert BOUND_KINDS == (
        "milp", "lp", "colgen", "branch_price", "combinatorial", "none"
    )  # fmt: skip


def test_best_bound_picks_the_tightest_finite_bound():
    """Max: the smallest; min: the largest; NaN/inf skipped; ties: the first listed."""
    cands = {"milp": 10.0, "combinatorial": 12.0, "colgen": 9.5, "lp": math.nan}
    assert best_bound("max", cands) == (9.5, "colgen")
    assert best_bound("min", cands) == (12.0, "combinatorial")
    assert best_bound("max", {"milp": 9.5, "colgen": 9.5}) == (9.5, "milp")
    assert best_bound("min", {"milp": -math.inf, "combinatorial": 3.0}) == (
        3.0,
        "combinatorial",
    )
    value, kind = best_bound("max", {"milp": math.nan})
    assert math.isnan(value) and kind == "none"
    with pytest.raises(ValueError, match="sense.*'up'"):
        best_bound("up", cands)
    with pytest.raises(ValueError, match="bound kind.*'paper'"):
        best_bound("max", {"paper": 1.0})


# ------------------------------------------------------------ the skeleton
# The toy of tests/core/test_solve_skeleton.py: max x + y s.t. x + 2 y <= 4,
# x, y in {0..3}, optimum 3; its checker reports 10 (x + y), so the optimum
# is 30 and (2, 1) is a feasible start worth 30.
def _build(_: Deadline) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(0, 3))
    m.y = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(0, 3))
    m.c = pyo.Constraint(expr=m.x + 2 * m.y <= 4)
    m.obj = pyo.Objective(expr=m.x + m.y, sense=pyo.maximize)
    return m


def _toy(**kw):
    args = {
        "build": _build,
        "extract": lambda m: (round(pyo.value(m.x)), round(pyo.value(m.y))),
        "check": lambda _, s: SimpleNamespace(objective=10.0 * (s[0] + s[1])),
        "sense": "max",
        "time_limit": 30.0,
    }
    return certified_solve(None, **{**args, **kw})


def _stopped(bound: float, seen: dict | None = None):
    """A solve step that stops at its limit with incumbent (2, 1) and ``bound``."""

    def step(model, values, deadline):
        if seen is not None:
            seen["limit"] = deadline.time_limit
        return OfflineResult(30.0, bound, "time_limit", 0.0, (2, 1))

    return step


def test_skeleton_reports_the_tightest_bound_and_names_it():
    """The toy (max, optimum 30): MILP 40, combinatorial 50, colgen 35 -> colgen 35."""
    res = _toy(
        solve_step=_stopped(40.0),
        bound=lambda: 50.0,
        extra_bounds=lambda dl: {"colgen": 35.0},
    )
    assert (res.status, res.bound, res.bound_kind) == ("time_limit", 35.0, "colgen")
    res = _toy(solve_step=_stopped(40.0), bound=lambda: 38.0)
    assert (res.bound, res.bound_kind) == (38.0, "combinatorial")
    res = _toy(solve_step=_stopped(40.0), bound=lambda: 50.0)
    assert (res.bound, res.bound_kind) == (40.0, "milp")
    res = _toy(solve_step=_stopped(math.nan), bound=lambda: 50.0)
    assert (res.bound, res.bound_kind) == (50.0, "combinatorial")
    res = _toy(solve_step=_stopped(math.nan))
    assert math.isnan(res.bound) and res.bound_kind == "none"


def test_skeleton_reserves_time_for_the_extra_bounds():
    """``bound_reserve`` withholds its share of the limit from HiGHS for ``extra_bounds``."""
    seen: dict = {}

    def extra(dl: Deadline) -> dict[str, float]:
        seen["left"] = dl.remaining()
        return {"colgen": 36.0}

    res = _toy(
        time_limit=20.0,
        solve_step=_stopped(40.0, seen),
        extra_bounds=extra,
        bound_reserve=0.25,
    )
    assert seen["limit"] == pytest.approx(15.0)
    assert 0.0 < seen["left"] <= 20.0
    assert (res.bound, res.bound_kind) == (36.0, "colgen")
    with pytest.raises(ValueError, match="bound_reserve.*1.5"):
        _toy(bound_reserve=1.5)


def test_skeleton_proven_optimum_is_milp_and_needs_no_extra_bound():
    """A proven optimum keeps HiGHS's bound (kind milp); ``extra_bounds`` is not called."""

    def extra(dl: Deadline) -> dict[str, float]:
        raise AssertionError("extra_bounds called on a proven optimum")

    res = _toy(threads=1, bound=lambda: 50.0, extra_bounds=extra, bound_reserve=0.5)
    assert (res.status, res.bound_kind) == ("optimal", "milp")


def test_skeleton_timed_out_reports_the_combinatorial_bound():
    """Budget gone before HiGHS: the combinatorial bound, or none without one."""
    res = _toy(time_limit=0.0, start=(2, 1), bound=lambda: 45.0)
    assert (res.bound, res.bound_kind) == (45.0, "combinatorial")
    res = _toy(time_limit=0.0, start=(2, 1))
    assert math.isnan(res.bound) and res.bound_kind == "none"


# --------------------------------------------------------------- the papers
_PROVEN: dict[tuple[str, int], OfflineResult] = {}


def _case(key: str, seed: int):
    p = optsched.get_paper(key)
    size, _ = SIZES[key]
    inst = p.generate(seed=seed, **{**p.demo_size, **size})
    start = best_start(p, inst)
    if (key, seed) not in _PROVEN:
        _PROVEN[key, seed] = p.solve_offline(inst, time_limit=None, start=start)
    return p, inst, start, _PROVEN[key, seed]


@pytest.mark.parametrize(
    ("key", "seed"), [(k, s) for k, (_, seeds) in SIZES.items() for s in seeds]
)
def test_every_paper_reports_a_valid_named_bound(key, seed, monkeypatch):
    """Tiny limits: the kind is in the vocabulary, every candidate and the reported
    bound are valid against the proven optimum, and a non-milp winner is at least
    as tight as the MILP bound of the same solve."""
    p, inst, start, opt = _case(key, seed)
    assert opt.status == "optimal" and opt.bound_kind == "milp"
    assert opt.bound == pytest.approx(opt.objective, rel=1e-8)
    calls: list[tuple[str, dict[str, float]]] = []
    real = base.best_bound

    def spy(sense: str, candidates):
        calls.append((sense, dict(candidates)))
        return real(sense, candidates)

    monkeypatch.setattr(base, "best_bound", spy)
    for limit in LIMITS:
        calls.clear()
        res = p.solve_offline(inst, time_limit=limit, start=start)
        where = f"{key} seed={seed} limit={limit}: {res}"
        assert res.bound_kind in BOUND_KINDS, where
        assert not math.isnan(res.objective), where  # the start is the incumbent
        assert _valid(p.sense, res.bound, opt.objective) or res.bound_kind == "none"
        # the incumbent is on the other side of the optimum
        assert _valid(p.sense, opt.objective, res.objective), where
        if res.status == "optimal":
            assert res.bound_kind == "milp", where
            assert res.objective == pytest.approx(opt.objective, rel=RTOL), where
            continue
        for sense, cands in calls:
            for kind, value in cands.items():
                if math.isfinite(value):
                    assert _valid(sense, value, opt.objective), (where, kind, value)
            if "milp" in cands and math.isfinite(cands["milp"]):
                assert _tighter_or_equal(p.sense, res.bound, cands["milp"]), where


def test_oasis_colgen_bound_is_valid():
    """Column generation (``bound_reserve``) bounds the proven optimum from above;
    run to convergence it is LP(14), and the reported bound is never looser.
    The combinatorial ``completion_bound`` is valid, never above
    ``utility_bound``, and equals ``D(0, 0)`` of the exact pricing DP (an
    independent computation)."""
    import numpy as np
    from optsched.models.oasis import (
        colgen_bound,
        completion_bound,
        dual_bound,
        solve_offline,
        utility_bound,
    )

    for seed in SIZES["oasis"][1]:
        p, inst, start, opt = _case("oasis", seed)
        comb = completion_bound(inst)
        assert _valid("max", comb, opt.objective)
        assert comb <= utility_bound(inst) + 1e-12
        H, K = inst.n_worker_servers, inst.n_ps_servers
        R, T = inst.n_resources, inst.n_slots
        zero = dual_bound(inst, np.zeros((H, R, T)), np.zeros((K, R, T)))
        assert comb == pytest.approx(zero, rel=1e-12)
        full = colgen_bound(inst, Deadline(None))["colgen"]
        assert _valid("max", full, opt.objective)
        res = solve_offline(inst, time_limit=0.2, start=start, bound_reserve=0.5)
        assert res.bound_kind in BOUND_KINDS
        assert _valid("max", res.bound, opt.objective) or res.bound_kind == "none"
        if res.bound_kind == "colgen":
            assert res.bound >= full - RTOL * abs(full)  # CG stopped early
    assert colgen_bound(inst, Deadline(0.0)) == {}


def test_hetero_enumeration_names_its_bound():
    """The paper's exhaustive search: proven -> milp; stopped -> the combinatorial
    lower bound, valid against the MILP's proven optimum of the same instance."""
    from optsched.models.hetero import solve_offline

    from optsched.hetero.instance import generate
    from optsched.hetero.paper import solve_by_enumeration

    inst = generate(0, n_jobs=3, n_workers=6)
    done = solve_by_enumeration(inst, time_limit=None)
    assert (done.status, done.bound_kind) == ("optimal", "milp")
    inst = generate(1, n_jobs=3, n_workers=12, epsilon=0.05)
    stopped = solve_by_enumeration(inst, time_limit=0.0)
    assert (stopped.status, stopped.bound_kind) == ("time_limit", "combinatorial")
    opt = solve_offline(inst, time_limit=None)
    assert opt.status == "optimal"
    assert _valid("min", stopped.bound, opt.objective)
