"""Smoke test of ``benchmarks/oasis_dw.py --quick`` (timings are not asserted)."""

import pandas as pd
import pytest
from optsched.models.oasis import column_generation

import optsched
from benchmarks import oasis_dw


def test_oasis_dw_quick(tmp_path, capsys):
    """The bracket is ordered, valid against the proven optimum, and equals plain CG."""
    df = oasis_dw.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "oasis_dw.csv")
    assert list(back.columns) == oasis_dw.COLUMNS and len(back) == 1
    r = df.iloc[0]
    p = optsched.get_paper("oasis")
    inst = p.generate(0, **oasis_dw.QUICK_SIZE)
    opt = p.solve_offline(inst, time_limit=60.0, threads=1)
    assert opt.status == "optimal"
    tol = 1e-6 * (1 + r["compact_lp"])
    # max problem: OPT <= DW <= D(any prices) and D(LP duals) <= compact LP
    assert r["converged"]
    assert opt.objective <= r["dw_lower"] + tol
    assert r["dw_lower"] <= r["dw_upper"] + tol and r["dw_upper"] <= r["d_lp"] + tol
    assert r["d_lp"] <= r["compact_lp"] + tol
    assert r["dw_upper"] == pytest.approx(r["dw_lower"], rel=1e-6)
    # an independent computation of DW: the unsmoothed column generation of models/oasis.py
    cg = column_generation(inst, time_limit=60.0)
    assert cg.converged
    assert r["dw_upper"] == pytest.approx(cg.lp_value, rel=1e-6)
    # on this instance the decomposition is strictly tighter than the compact LP
    assert r["dw_upper"] < r["compact_lp"] - 1.0
    assert "seed 0: compact LP" in capsys.readouterr().out
