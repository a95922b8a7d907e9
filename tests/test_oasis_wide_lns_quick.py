"""Smoke test of ``benchmarks/oasis_wide_lns.py --quick`` (timings are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import optsched
from benchmarks import oasis_wide_lns as owl
from optsched.oasis.check import check
from optsched.oasis.schedule import OasisSchedule


def test_quick_run_keeps_checked_schedules_below_the_optimum(tmp_path) -> None:
    """Every row's value is a checked schedule's: never below the start, never
    decreasing, never above HiGHS's proven optimum of the instance; the saved
    schedule is checked again at the last row's value; ``--prove`` from it
    proves the same optimum."""
    assert owl.main(["--quick", "--out", str(tmp_path)]) == 0
    df = pd.read_csv(tmp_path / "oasis_wide_lns.csv")
    assert list(df.columns) == owl.COLUMNS and len(df) == 2
    assert (df["objective"] >= df["start_objective"] - 1e-9).all()
    assert df["objective"].is_monotonic_increasing
    p = optsched.get_paper("oasis")
    inst = p.generate(1, **owl.QUICK_SIZE)
    saved = OasisSchedule.from_json(
        (tmp_path / "oasis_wide_lns" / "seed1.json").read_text()
    )
    assert float(check(inst, saved).objective) == df["objective"].iloc[-1]
    opt = p.solve_offline(inst, time_limit=60.0, threads=1)
    assert opt.status == "optimal"
    assert df["objective"].iloc[-1] <= opt.objective + 1e-6 * max(
        1.0, abs(opt.objective)
    )
    # --prove: HiGHS from the saved schedule ends at the optimum proven
    # without that start, its incumbent never below the start
    assert owl.main(["--quick", "--prove", "60", "--out", str(tmp_path)]) == 0
    pr = pd.read_csv(tmp_path / "oasis_wide_lns_highs.csv")
    assert list(pr.columns) == owl.PROVE_COLUMNS and len(pr) == 1
    row = pr.iloc[0]
    assert row["start_objective"] == df["objective"].iloc[-1]
    assert row["status"] == "optimal"
    assert row["objective"] == pytest.approx(opt.objective, rel=1e-9)
    assert row["bound"] == pytest.approx(opt.objective, rel=1e-9)
    assert row["objective"] >= row["start_objective"]
    better = tmp_path / "oasis_wide_lns" / "seed1_highs.json"
    if row["objective"] > row["start_objective"]:
        found = OasisSchedule.from_json(better.read_text())
        assert float(check(inst, found).objective) == row["objective"]
    else:
        assert not better.exists()


def test_committed_schedules_check_at_their_rows() -> None:
    """The committed best schedule of every seed passes the checker at the value of
    its last row, which lies between the start and HiGHS's bound on the optimum."""
    data = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
    df = pd.read_csv(data / "oasis_wide_lns.csv")
    p = optsched.get_paper("oasis")
    assert len(df)
    for seed, rows in df.groupby("seed"):
        size = json.loads(rows["size_json"].iloc[0])
        assert size == owl.SIZE
        inst = p.generate(int(seed), **size)
        text = (data / "oasis_wide_lns" / f"seed{seed}.json").read_text()
        value = float(check(inst, OasisSchedule.from_json(text)).objective)
        last = rows.sort_values("call").iloc[-1]
        assert value == pytest.approx(last["objective"], rel=1e-12)
        assert last["start_objective"] <= value <= last["frontier_bound"]
