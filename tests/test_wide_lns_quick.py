"""Smoke test of ``benchmarks/wide_lns.py --quick`` for oasis and okita (and of the
``oasis_wide_lns`` wrapper), and of the committed schedules (timings are not
asserted)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import optsched
from benchmarks import frontier, wide_lns
from benchmarks import oasis_wide_lns as owl

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


def _run(paper: str, argv: list[str]) -> int:
    if paper == "oasis":  # the wrapper, so its CLI stays tested
        return owl.main(argv)
    return wide_lns.main(["--paper", paper, *argv])


@pytest.mark.parametrize("paper", sorted(wide_lns.SETUPS))
def test_prove_solves_the_frontiers_formulation(paper) -> None:
    """``--prove`` names a formulation the frontier has (so it solves what the
    reference rows solved), and the frontier CSV has that formulation's rows
    at the search's size for every seed of the committed search."""
    name = wide_lns.SETUPS[paper].formulation
    assert name in frontier.formulations(paper)
    size = wide_lns.size_of(paper, quick=False)
    csv = DATA / f"{paper}_wide_lns.csv"
    seeds = sorted(set(pd.read_csv(csv)["seed"])) if csv.exists() else [0]
    for seed in seeds:
        ref = frontier.reference_row(
            paper, size, name, int(seed), DATA / "frontier.csv"
        )
        assert math.isfinite(ref["bound"])


@pytest.mark.parametrize("paper", sorted(wide_lns.SETUPS))
def test_quick_run_keeps_checked_schedules_within_the_optimum(
    paper, tmp_path, monkeypatch
) -> None:
    """Every row's value is a checked schedule's: never worse than the start,
    never getting worse, never better than HiGHS's proven optimum of the
    instance; the saved schedule is checked again at the last row's value;
    ``--prove`` from it proves the same optimum, with the frontier's
    formulation."""
    p = optsched.get_paper(paper)
    called: list[str] = []
    real = frontier.formulations(paper)

    def spy(key: str) -> dict:
        assert key == paper
        return {
            n: (lambda *a, _n=n, _f=f, **kw: called.append(_n) or _f(*a, **kw))
            for n, f in real.items()
        }

    monkeypatch.setattr(wide_lns, "formulations", spy)
    sign = 1.0 if p.sense == "max" else -1.0  # sign * value: larger is better
    assert _run(paper, ["--quick", "--out", str(tmp_path)]) == 0
    df = pd.read_csv(tmp_path / f"{paper}_wide_lns.csv")
    assert list(df.columns) == wide_lns.COLUMNS and len(df) == 2
    assert (sign * df["objective"] >= sign * df["start_objective"] - 1e-9).all()
    assert (sign * df["objective"]).is_monotonic_increasing
    inst = p.generate(1, **wide_lns.size_of(paper, quick=True))
    folder = tmp_path / f"{paper}_wide_lns"
    saved = p.schedule_type.from_json((folder / "seed1.json").read_text())
    assert float(p.check(inst, saved).objective) == df["objective"].iloc[-1]
    opt = p.solve_offline(inst, time_limit=60.0, threads=1)
    assert opt.status == "optimal"
    tol = 1e-6 * max(1.0, abs(opt.objective))
    assert sign * df["objective"].iloc[-1] <= sign * opt.objective + tol
    # --prove: HiGHS from the saved schedule ends at the optimum proven
    # without that start, its incumbent never worse than the start
    assert _run(paper, ["--quick", "--prove", "60", "--out", str(tmp_path)]) == 0
    # the control, from the harness's start: the same proven optimum
    argv = ["--quick", "--prove", "60", "--from", "harness", "--out", str(tmp_path)]
    assert _run(paper, argv) == 0
    pr = pd.read_csv(tmp_path / f"{paper}_wide_lns_highs.csv")
    assert list(pr.columns) == wide_lns.PROVE_COLUMNS and len(pr) == 2
    assert sorted(pr["start_from"]) == ["harness", "search"]
    ctrl = pr[pr["start_from"] == "harness"].iloc[0]
    assert ctrl["status"] == "optimal"
    assert ctrl["objective"] == pytest.approx(opt.objective, rel=1e-9)
    row = pr[pr["start_from"] == "search"].iloc[0]
    assert called == [wide_lns.SETUPS[paper].formulation] * 2
    assert row["start_objective"] == df["objective"].iloc[-1]
    assert row["status"] == "optimal"
    assert row["objective"] == pytest.approx(opt.objective, rel=1e-9)
    assert row["bound"] == pytest.approx(opt.objective, rel=1e-9)
    assert sign * row["objective"] >= sign * row["start_objective"]
    better = folder / "seed1_highs.json"
    if sign * row["objective"] > sign * row["start_objective"]:
        found = p.schedule_type.from_json(better.read_text())
        assert float(p.check(inst, found).objective) == row["objective"]
    else:
        assert not better.exists()


@pytest.mark.parametrize("paper", sorted(wide_lns.SETUPS))
def test_committed_schedules_check_at_their_rows(paper) -> None:
    """The committed best schedule of every seed passes the checker at the value of
    its last row, which lies between the start and HiGHS's bound on the optimum;
    HiGHS's rows from it hold a checked incumbent no worse than that value."""
    csv = DATA / f"{paper}_wide_lns.csv"
    if not csv.exists():
        pytest.skip(f"no committed {csv.name}")
    df = pd.read_csv(csv)
    p = optsched.get_paper(paper)
    sign = 1.0 if p.sense == "max" else -1.0
    assert len(df)
    best: dict[int, float] = {}
    for seed, rows in df.groupby("seed"):
        size = json.loads(rows["size_json"].iloc[0])
        assert size == wide_lns.size_of(paper, quick=False)
        inst = p.generate(int(seed), **size)
        text = (DATA / f"{paper}_wide_lns" / f"seed{seed}.json").read_text()
        value = float(p.check(inst, p.schedule_type.from_json(text)).objective)
        last = rows.sort_values("call").iloc[-1]
        assert value == pytest.approx(last["objective"], rel=1e-12)
        assert sign * last["start_objective"] <= sign * value
        assert sign * value <= sign * last["frontier_bound"]
        best[int(seed)] = value
    highs = DATA / f"{paper}_wide_lns_highs.csv"
    if not highs.exists():
        return
    every = pd.read_csv(highs)
    assert (sign * every["objective"] <= sign * every["bound"] + 1e-9).all()
    for seed, rows in every[every["start_from"] == "search"].groupby("seed"):
        assert (rows["start_objective"] == best[int(seed)]).all()
        assert (sign * rows["objective"] >= sign * rows["start_objective"]).all()
        assert (sign * rows["objective"] <= sign * rows["bound"] + 1e-9).all()
        found = DATA / f"{paper}_wide_lns" / f"seed{seed}_highs.json"
        if found.exists():  # HiGHS's improvement: checked at its best row's value
            inst = p.generate(int(seed), **wide_lns.size_of(paper, quick=False))
            value = float(
                p.check(inst, p.schedule_type.from_json(found.read_text())).objective
            )
            assert value == pytest.approx(
                max(sign * rows["objective"]) * sign, rel=1e-9
            )


def test_width_is_symmetric_and_nan_aware() -> None:
    """``width`` is ``max / min - 1`` in either order, NaN when an end is NaN."""
    assert wide_lns.width(110.0, 100.0) == pytest.approx(0.1)
    assert wide_lns.width(100.0, 110.0) == pytest.approx(0.1)
    assert math.isnan(wide_lns.width(math.nan, 1.0))
    assert math.isnan(wide_lns.width(1.0, math.nan))
