"""The competitive-ratio harness: definitions, determinism, certified intervals."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.cli import main
from optsched.core import ratio as ratio_mod
from optsched.core.errors import SolverError
from optsched.core.ratio import COLUMNS, certify, ratio_bounds, ratio_columns, summarize
from optsched.core.registry import OfflineResult

SIZE = {"n_jobs": 5, "n_slots": 8, "n_worker_servers": 2, "n_ps_servers": 2}
TIMING = ["alg_runtime_s", "opt_runtime_s"]


def test_ratio_bounds_by_hand():
    """Max: OPT/ALG with [inc/ALG, bound/ALG]; min: ALG/OPT with [ALG/inc, ALG/bound]."""
    assert ratio_bounds("max", 50.0, 60.0, 60.0, "optimal") == (1.2, 1.2, 1.2)
    r, lo, hi = ratio_bounds("max", 50.0, 60.0, 75.0, "time_limit")
    assert math.isnan(r) and lo == pytest.approx(1.2) and hi == pytest.approx(1.5)
    r, lo, hi = ratio_bounds("min", 12.0, 10.0, 8.0, "time_limit")
    assert math.isnan(r) and lo == pytest.approx(1.2) and hi == pytest.approx(1.5)
    assert ratio_bounds("max", 0.0, 5.0, 5.0, "optimal")[0] == math.inf
    assert ratio_bounds("max", 0.0, 0.0, 0.0, "optimal")[0] == 1.0


def test_same_seed_same_table_serial_and_parallel():
    """The same seed gives an identical table, serially and on 2 processes."""
    a = optsched.ratios(
        "oasis", n_instances=3, seed=11, workers=1, progress=False, **SIZE
    )
    b = optsched.ratios(
        "oasis", n_instances=3, seed=11, workers=2, progress=False, **SIZE
    )
    assert list(a.columns) == COLUMNS + list(SIZE)
    pd.testing.assert_frame_equal(a.drop(columns=TIMING), b.drop(columns=TIMING))
    # OPT >= every algorithm's checked utility on proven instances (max problem)
    proven = a[a["opt_status"] == "optimal"]
    assert len(proven) == len(a)
    assert (proven["opt_objective"] >= proven["alg_objective"] - 1e-6).all()
    assert (proven["ratio"] >= 1 - 1e-9).all()
    # a proven optimum's bound is HiGHS's (issue 26 item 2)
    assert (proven["bound_kind"] == "milp").all()
    # instance j is generate(seed + j): regenerate row 2 independently
    inst = optsched.get_paper("oasis").generate(seed=13, **SIZE)
    sched = optsched.get_paper("oasis").run("fifo", inst)
    row = a[(a["instance"] == 2) & (a["algorithm"] == "fifo")].iloc[0]
    assert (
        row["alg_objective"] == optsched.get_paper("oasis").check(inst, sched).objective
    )


def test_time_limit_gives_interval_not_point(capsys, monkeypatch):
    """An unproven solve reports time_limit with incumbent and bound; the table shows [lo, hi]."""
    # the start's completion-window search (tests/oasis/test_oasis_window.py)
    # is not what this test is about and costs ~35 s per run at this size
    monkeypatch.setattr("optsched.oasis.paper.WINDOW_MAX_CELLS", 0)
    big = {"n_jobs": 40, "n_slots": 30, "n_worker_servers": 2, "n_ps_servers": 2}
    df = optsched.ratios(
        "oasis",
        n_instances=1,
        seed=0,
        algorithms=["oasis"],
        time_limit=0.5,
        workers=1,
        progress=False,
        **big,
    )
    row = df.iloc[0]
    assert row["opt_status"] == "time_limit"
    assert math.isnan(row["ratio"])
    assert row["opt_objective"] <= row["opt_bound"] + 1e-9
    assert row["kind"] == "interval"
    # the MIP start (best checked online schedule) guarantees an incumbent,
    # hence a finite lower end >= 1; the upper end is finite too: when HiGHS
    # has no dual bound yet (0.5 s may end in presolve on a loaded machine)
    # the combinatorial utility_bound is the bound
    assert np.isfinite(row["ratio_lo"]) and row["ratio_lo"] >= 1.0 - 1e-9
    assert row["ratio_lo"] <= row["ratio_hi"]
    assert np.isfinite(row["ratio_hi"]) == np.isfinite(row["opt_bound"])
    # the bound is named; utility_bound (combinatorial) keeps ratio_hi finite
    # even when HiGHS has no bound yet, and ratio_hi uses that best bound
    assert row["bound_kind"] in ("milp", "combinatorial")
    assert np.isfinite(row["opt_bound"])
    assert row["ratio_hi"] == pytest.approx(row["opt_bound"] / row["alg_objective"])
    code = main(
        [
            "ratio",
            "oasis",
            "-n",
            "1",
            "--algorithms",
            "oasis",
            "--time-limit",
            "0.5",
            "--workers",
            "1",
            "--n-jobs",
            "40",
            "--n-slots",
            "30",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "time_limit" in out and "[" in out


def _wrong_optimum(monkeypatch, value: float) -> None:
    """Make the harness see a 'proven optimal' value ``value`` for every instance."""
    real = optsched.get_paper("oasis")

    def fake(inst, **kw):
        res = real.solve_offline(inst, **kw)
        return OfflineResult(
            value,
            value,
            "optimal",
            res.runtime,
            res.schedule,
        )

    fake_paper = dataclasses.replace(real, solve_offline=fake)
    monkeypatch.setattr(ratio_mod, "get_paper", lambda key: fake_paper)


def test_beaten_optimum_raises_solver_error(monkeypatch):
    """A 'proven' optimum that a checked schedule beats is a SolverError naming instance, algorithm and values."""
    _wrong_optimum(monkeypatch, -1.0)  # below any utility
    with pytest.raises(
        SolverError,
        match=r"instance oasis seed=0 .*algorithm 'oasis' scores .* proven optimum",
    ):
        optsched.ratios(
            "oasis",
            n_instances=1,
            seed=0,
            algorithms=["oasis"],
            workers=1,
            progress=False,
            **SIZE,
        )


def test_certify_tolerance_and_bound():
    """certify accepts ties within 1e-6 relative and rejects beating a proven optimum or a dual bound."""
    certify("max", 100.00005, 100.0, 100.0, "optimal")  # within 1e-6 relative
    certify("min", 99.99995, 100.0, 100.0, "optimal")
    with pytest.raises(SolverError):
        certify("max", 100.01, 100.0, 100.0, "optimal")
    with pytest.raises(SolverError):
        certify("min", 99.9, 100.0, 100.0, "optimal")
    certify("max", 120.0, 100.0, 130.0, "time_limit")  # beats the incumbent: fine
    with pytest.raises(SolverError, match="dual bound"):
        certify("max", 140.0, 100.0, 130.0, "time_limit")


def test_infinite_ratios_are_counted_apart():
    """A zero-utility run gives ratio inf with kind alg_zero, and the summary keeps the mean finite."""
    cols = ratio_columns("max", 0.0, 50.0, 50.0, "optimal")
    assert cols["ratio"] == math.inf and cols["kind"] == "alg_zero"
    assert ratio_columns("max", 0.0, 0.0, 0.0, "optimal")["kind"] == "proven"
    assert ratio_columns("min", 3.0, 0.0, 0.0, "optimal")["kind"] == "opt_zero"
    assert ratio_columns("max", 5.0, math.nan, 9.0, "error")["kind"] == "no_opt"
    rows = [
        {
            "paper": "oasis",
            "algorithm": "a",
            "opt_status": "optimal",
            **ratio_columns("max", 10.0, 20.0, 20.0, "optimal"),
        },
        {
            "paper": "oasis",
            "algorithm": "a",
            "opt_status": "optimal",
            **ratio_columns("max", 20.0, 20.0, 20.0, "optimal"),
        },
        {
            "paper": "oasis",
            "algorithm": "a",
            "opt_status": "optimal",
            **ratio_columns("max", 0.0, 20.0, 20.0, "optimal"),
        },
    ]
    s = summarize(pd.DataFrame(rows)).iloc[0]
    assert s["infinite"] == 1 and s["proven"] == 3
    assert s["mean_ratio"] == pytest.approx(1.5) and s["max_ratio"] == pytest.approx(
        2.0
    )


def test_runs_past_T_get_ratios_on_the_extended_instance():
    """Okita runs past T = 12 on okita seed 17 (3 sites, 3 jobs): by the horizon
    rule its row gets a ratio against the optimum of the instance extended to
    its makespan (``horizon_extended``, ``n_slots_used``), not ``alg_infeasible``."""
    from optsched.core.ratio import ratios

    p = optsched.get_paper("okita")
    size = {"n_sites": 3, "n_jobs": 3, "n_slots": 12}
    df = ratios(
        "okita", n_instances=2, seed=16, time_limit=30, progress=False,
        algorithms=["okita"], **size,
    )  # fmt: skip
    late = df[df["seed"] == 17].iloc[0]
    inst = p.generate(seed=17, **size)
    sched = p.run("okita", inst)
    longer = dataclasses.replace(inst, n_slots=int(sched.meta["makespan"]))
    assert longer.n_slots > 12
    assert bool(late["horizon_extended"]) and late["n_slots_used"] == longer.n_slots
    opt = p.solve_offline(longer, time_limit=30, threads=1)
    alg = p.check(longer, sched).objective
    assert late["kind"] == "proven" and late["infeasible"] == ""
    assert late["alg_objective"] == pytest.approx(alg)
    assert late["opt_objective"] == pytest.approx(opt.objective)
    assert late["ratio"] == pytest.approx(alg / opt.objective)
    good = df[df["seed"] == 16].iloc[0]
    assert good["kind"] == "proven" and good["ratio"] >= 1 and good["infeasible"] == ""
    assert not good["horizon_extended"] and good["n_slots_used"] == 12
    s = summarize(df)
    assert s["infeasible"].tolist() == [0] and s["horizon_extended"].tolist() == [1]


def test_declared_infeasible_rows_are_kept_and_counted():
    """Okita leaves job 2 without a PS in slots 6-7 on okita seed 34 (3 sites,
    3 jobs, T = 12), a violation no horizon repairs: the row is kept as
    ``alg_infeasible`` with the checker's message and counted."""
    from optsched.core.ratio import declared_violation, ratios

    one = ratios(
        "okita", n_instances=1, seed=34, time_limit=30, progress=False,
        algorithms=["okita"], n_sites=3, n_jobs=3, n_slots=12,
    )  # fmt: skip
    row = one.iloc[0]
    assert row["kind"] == "alg_infeasible" and math.isnan(row["ratio"])
    assert "ps_every_slot=False" in row["infeasible"]
    assert summarize(one)["infeasible"].tolist() == [1]
    assert declared_violation(object()) is None


def test_undeclared_or_false_declarations_raise(monkeypatch):
    """A checker rejection the algorithm did not declare (in the typed
    ``ps_gaps``) raises; so does a declaration the checker contradicts.  (A
    run past T can no longer understate its horizon: it is read from the
    rows, tests/core/test_protocols.py.)"""
    from optsched.core.errors import InfeasibleScheduleError, OptschedError

    real = optsched.get_paper("okita")

    def liar(inst, **kw):  # PS gaps (seed 34) but claims strict (2c)
        return dataclasses.replace(real.run("okita", inst), ps_gaps=())

    def alarmist(inst, **kw):  # feasible (seed 16) but declares a violation
        return dataclasses.replace(real.run("okita", inst), ps_gaps=((0, 1),))

    fake = dataclasses.replace(real, algorithms={"liar": liar, "alarmist": alarmist})
    monkeypatch.setattr(ratio_mod, "get_paper", lambda key: fake)
    size = {"n_sites": 3, "n_jobs": 3, "n_slots": 12}
    with pytest.raises(InfeasibleScheduleError):
        ratio_mod._one_instance(("okita", 0, 34, ["liar"], 30, size))
    with pytest.raises(OptschedError, match="declares"):
        ratio_mod._one_instance(("okita", 0, 16, ["alarmist"], 30, size))


def test_alg_zero_within_the_checkers_tolerance_is_infinite():
    """ALG below TOL max(1, OPT) is zero: kind alg_zero and an infinite ratio, never 1.6e37.

    The numbers are those of the saved oasis anneal worst case (ALG 1.728e-34
    against a proven OPT of 2,781.08); an ALG of 1e-6 is not zero.
    """
    from optsched.core.ratio import near_zero, ratio_columns

    cols = ratio_columns("max", 1.72811e-34, 2781.07895, 2781.07895, "optimal")
    assert cols["kind"] == "alg_zero" and cols["ratio"] == math.inf
    small = ratio_columns("max", 1e-6, 1.0, 1.0, "optimal")
    assert small["kind"] == "proven" and small["ratio"] == pytest.approx(1e6)
    # min: a proven OPT of 1e-12 against ALG 5 is zero (opt_zero); 0 / 0 is 1
    assert ratio_columns("min", 5.0, 1e-12, 1e-12, "optimal")["kind"] == "opt_zero"
    both = ratio_columns("max", 1e-12, 0.0, 0.0, "optimal")
    assert both["kind"] == "proven" and both["ratio"] == 1.0
    assert near_zero(1e-9) and not near_zero(2e-9) and near_zero(2e-9, 10.0)
