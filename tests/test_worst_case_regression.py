"""Worst instances found by ``benchmarks/worst_case_bench.py``: their certified ratios still hold.

Each saved instance (``benchmarks/data/worst/manifest.csv``) is re-loaded
from JSON, re-run, re-checked and re-solved; its certified ratio must equal
the recorded one.  A change in an algorithm, a checker or a model that moves
one of these numbers shows up here.  Also the ``--quick`` smoke run of the
benchmark (two papers; timings and ratios not asserted).
"""

import json
from pathlib import Path

import pandas as pd
import pytest

import optsched
from benchmarks import worst_case_bench as bench
from optsched.core.adversary import evaluate

MANIFEST = bench.DATA / "manifest.csv"
CASES = pd.read_csv(MANIFEST).to_dict("records") if MANIFEST.exists() else []


def test_regression_cases_exist():
    assert CASES, f"no worst-case regression instances in {MANIFEST}"
    assert {c["paper"] for c in CASES} == set(optsched.PAPERS)


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_saved_worst_instance_keeps_its_certified_ratio(case):
    p = optsched.get_paper(case["paper"])
    inst = p.instance_type.from_json((bench.DATA / case["file"]).read_text())
    row = evaluate(p, case["algorithm"], inst, time_limit=float(case["time_limit"]))
    assert row["kind"] == case["kind"]
    assert row["certified"] == pytest.approx(float(case["certified_ratio"]), rel=1e-6)


def test_worst_case_bench_quick(tmp_path, capsys):
    df = bench.main(["--quick", "--papers", "hetero,okita", "--out", str(tmp_path)])
    assert set(df["paper"]) == {"hetero", "okita"}
    # own algorithm(s) + the two baselines with the lowest random mean
    assert (
        df.groupby("paper")["role"].apply(lambda r: (r == "baseline").sum()) == 2
    ).all()
    assert (df["worst_ratio"] >= df["start_ratio"]).all()
    man = pd.read_csv(tmp_path / "worst" / "manifest.csv")
    assert len(man) == len(df)
    for f in man["file"]:
        json.loads((tmp_path / "worst" / f).read_text())
    assert Path(tmp_path / "worst_case_bench.csv").exists()
