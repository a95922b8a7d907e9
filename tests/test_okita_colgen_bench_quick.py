"""Smoke test of ``benchmarks/okita_colgen.py --quick`` (timings are not asserted)."""

import json

import pandas as pd
import pytest

import optsched
from benchmarks import okita_colgen


def test_okita_colgen_bench_quick(tmp_path, capsys):
    """Quick run: bounds below the proven optimum, widths consistent, CSV written."""
    df = okita_colgen.main(tmp_path, quick=True)
    csv = tmp_path / "okita_colgen.csv"
    assert csv.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert list(back.columns) == okita_colgen.COLUMNS and len(back) == 1
    r = df.iloc[0]
    # the bounds are ordered: LP <= L(lambda_LP) <= checkpoint best <= best
    tol = 1e-6 * (1 + abs(r["lp"]))
    assert r["lp"] <= r["lagr_lp"] + tol
    assert r["lagr_lp"] <= r["lagr_120s"] <= r["lagr_300s"] <= r["lagr_best"]
    # the quick instance is tiny: HiGHS proves its optimum independently here
    p = optsched.get_paper("okita")
    inst = p.generate(int(r["seed"]), **okita_colgen.QUICK_SIZE)
    opt = p.solve_offline(inst, time_limit=60.0, threads=1)
    assert opt.status == "optimal"
    assert r["lagr_best"] <= opt.objective + 1e-6 * (1 + opt.objective)
    assert r["incumbent"] == pytest.approx(opt.objective, rel=1e-6)
    assert r["width_best"] <= r["width_highs"] + 1e-12
    assert r["width_lagr"] >= -1e-6
    assert "seed 0" in capsys.readouterr().out


def test_frontier_row_reads_the_v3_row():
    """The reference row of the full run comes from the frontier CSV (seed 4)."""
    ref = okita_colgen.frontier_row(4, okita_colgen.SIZE)
    df = pd.read_csv(okita_colgen.FRONTIER)
    key = json.dumps(okita_colgen.SIZE, sort_keys=True)
    hit = df[(df.paper == "okita") & (df.formulation == "v3") & (df.size_json == key)]
    hit = hit[hit.seed == 4]
    assert ref == {
        "highs_bound": float(hit.iloc[-1]["bound"]),
        "incumbent": float(hit.iloc[-1]["objective"]),
    }
