"""The core horizon rule (``optsched.core.horizon``): one rule for every paper.

Expected values come from the schedules' own makespans and fresh checks and
solves on instances extended here with ``dataclasses.replace``, never from
the rule's output.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.core import horizon
from optsched.core.adversary import evaluate
from optsched.core.errors import InfeasibleScheduleError, InvalidInstanceError
from optsched.core.ratio import declared_violation, ratios

EDGE = optsched.get_paper("edgecloud")
OKITA = optsched.get_paper("okita")
#: The issue's case: every edge-only scheme runs far past T = 20 (to 305-693).
ISSUE_SIZE = {"n_jobs": 3, "n_servers": 2, "n_slots": 20}
#: Demo-size edgecloud with T = 16: on seed 19 A_online and BatchSche end in
#: slot 16, the other three in slot 19 (found by scanning seeds 0-39).
EDGE_TIGHT = {**EDGE.demo_size, "n_slots": 16}
#: Sizes per paper for the property test: tight horizons where the paper has one.
SIZES = {
    "edgecloud": [ISSUE_SIZE, EDGE_TIGHT, dict(EDGE.demo_size)],
    "okita": [
        {"n_sites": r, "n_jobs": n, "n_slots": t}
        for r in (2, 3)
        for n in (2, 3, 4)
        for t in (8, 10, 12)
    ],
    "oasis": [dict(optsched.get_paper("oasis").demo_size)],
    "hetero": [dict(optsched.get_paper("hetero").demo_size)],
    "asrpt": [dict(optsched.get_paper("asrpt").demo_size)],
}
EXAMPLES = {"edgecloud": 20, "okita": 30, "oasis": 2, "hetero": 2, "asrpt": 2}


def _sched(makespan: int | None) -> SimpleNamespace:
    # a stand-in stating its needed horizon as the typed fact, plus a
    # contradicting trace that must be ignored (meta is for traces only)
    return SimpleNamespace(last_slot=makespan, meta={"makespan": 10**6})


def test_fit_extends_exactly_to_the_largest_makespan():
    """``fit`` keeps the instance when every makespan is <= T and otherwise sets
    T to the largest makespan, validating the new instance."""
    inst = EDGE.generate(seed=0, **EDGE.demo_size)
    T = inst.n_slots
    assert horizon.fit(inst) == (inst, False)
    same, ext = horizon.fit(inst, _sched(T - 3), _sched(T), _sched(None))
    assert same is inst and ext is False
    longer, ext = horizon.fit(inst, _sched(T + 2), _sched(None), _sched(T + 7))
    assert ext is True and longer.n_slots == T + 7
    assert dataclasses.replace(longer, n_slots=T) == inst
    assert horizon.n_slots(longer) == T + 7
    hetero = optsched.get_paper("hetero").generate(seed=0, n_jobs=2, n_workers=3)
    assert horizon.fit(hetero, _sched(99)) == (hetero, False)
    assert horizon.n_slots(hetero) is None


def test_needed_slots_reads_the_typed_last_slot():
    """``needed_slots`` is the schedule's typed ``last_slot`` (never ``meta``), None when it states none."""
    assert horizon.needed_slots(_sched(12)) == 12
    assert horizon.needed_slots(_sched(None)) is None
    assert horizon.needed_slots(object()) is None
    assert horizon.needed_slots(SimpleNamespace(meta={"makespan": 9})) is None
    with pytest.raises(ValueError, match="last_slot"):
        horizon.needed_slots(_sched(2.5))


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_every_algorithm_fits_and_passes_the_checker(key: str) -> None:
    """On every paper's generator at small sizes, every algorithm's schedule is
    accepted on the fitted instance (unless it declares a PS gap), and the
    instance was extended exactly when some makespan exceeded T."""
    p = optsched.get_paper(key)

    @settings(
        max_examples=EXAMPLES[key],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )
    @given(seed=st.integers(0, 10**6), size=st.sampled_from(SIZES[key]))
    def run(seed: int, size: dict) -> None:
        try:
            inst = p.generate(seed=seed, **size)
        except InvalidInstanceError:
            return  # a horizon too tight for the generator: named error, no instance
        scheds = {name: p.run(name, inst) for name in p.algorithms}
        fitted, extended = p.fit_horizon(inst, *scheds.values())
        spans = [s.meta["makespan"] for s in scheds.values() if "makespan" in s.meta]
        T = getattr(inst, "n_slots", None)
        if T is None or not spans:
            assert fitted is inst and not extended
        else:
            assert extended == (max(spans) > T)
            assert fitted.n_slots == max(T, *spans)
        for name, sched in scheds.items():
            if declared_violation(sched):
                with pytest.raises(InfeasibleScheduleError):
                    p.check(fitted, sched)
                continue
            ev = p.check(fitted, sched)
            assert math.isfinite(ev.objective), (key, name, seed, size)
            if extended and sched.meta["makespan"] > T:
                with pytest.raises(InfeasibleScheduleError):
                    p.check(inst, sched)  # the extension was needed

    run()


def test_issue_case_runs_past_T_and_is_checked_on_the_extended_instance():
    """``generate("edgecloud", n_jobs=3, n_servers=2, n_slots=20)``: every
    edge-only scheme runs past T; each schedule passes on the fitted instance."""
    inst = EDGE.generate(seed=0, **ISSUE_SIZE)
    for name in EDGE.algorithms:
        sched = EDGE.run(name, inst)
        fitted, _ = EDGE.fit_horizon(inst, sched)
        assert fitted.n_slots == max(20, sched.meta["makespan"])
        EDGE.check(fitted, sched)
    assert EDGE.fit_horizon(inst, EDGE.run("srtf", inst))[1]


def test_ratios_compare_every_algorithm_with_one_optimum_on_the_extended_instance():
    """edgecloud seed 19, T = 16: three schemes end in slot 19, so all five rows
    report ``horizon_extended`` and ``n_slots_used = 19`` and share the optimum
    proven on the instance with T = 19."""
    inst = EDGE.generate(seed=19, **EDGE_TIGHT)
    scheds = {name: EDGE.run(name, inst) for name in EDGE.algorithms}
    span = max(s.meta["makespan"] for s in scheds.values())
    assert span > 16 and min(s.meta["makespan"] for s in scheds.values()) <= 16
    longer = dataclasses.replace(inst, n_slots=span)
    opt = EDGE.solve_offline(longer, time_limit=30, threads=1)
    assert opt.status == "optimal"
    df = ratios(
        "edgecloud", n_instances=1, seed=19, time_limit=30, progress=False,
        **EDGE_TIGHT,
    )  # fmt: skip
    assert df["horizon_extended"].all() and (df["n_slots_used"] == span).all()
    assert (df["opt_status"] == "optimal").all()
    assert df["opt_objective"].tolist() == pytest.approx([opt.objective] * len(df))
    assert EDGE.check(longer, opt.schedule).objective == pytest.approx(opt.objective)
    for _, row in df.iterrows():
        alg = EDGE.check(longer, scheds[row["algorithm"]]).objective
        assert row["kind"] == "proven"
        assert row["ratio"] == pytest.approx(alg / opt.objective)
    hetero = ratios("hetero", n_instances=1, time_limit=30, progress=False,
                    algorithms=["has"], **optsched.get_paper("hetero").demo_size)  # fmt: skip
    assert not hetero["horizon_extended"].any() and hetero["n_slots_used"].isna().all()


def test_worst_case_evaluate_applies_the_rule():
    """The worst-case search's ``evaluate``: Okita past T = 12 on okita seed 17
    gets a certified ratio against the optimum on T = its makespan."""
    size = {"n_sites": 3, "n_jobs": 3, "n_slots": 12}
    inst = OKITA.generate(seed=17, **size)
    sched = OKITA.run("okita", inst)
    longer = dataclasses.replace(inst, n_slots=int(sched.meta["makespan"]))
    opt = OKITA.solve_offline(longer, time_limit=30, threads=1)
    row = evaluate(OKITA, "okita", inst, time_limit=30.0)
    assert row["horizon_extended"] and row["n_slots_used"] == longer.n_slots > 12
    assert row["kind"] == "proven" == ("proven" if opt.status == "optimal" else "")
    alg = OKITA.check(longer, sched).objective
    assert row["certified"] == pytest.approx(alg / opt.objective)
