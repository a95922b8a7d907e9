"""Smoke test of ``benchmarks/integrality.py --quick`` (timings are not asserted)."""

import json

import pandas as pd
import pytest

import optsched
from benchmarks import integrality as ig


def test_integrality_quick(tmp_path, capsys):
    """Each partial relaxation bounds the proven optimum from below, above the LP."""
    df = ig.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "integrality.csv")
    assert list(back.columns) == ig.COLUMNS and list(back["keep"]) == ["lp", "y"]
    p = optsched.get_paper("okita")
    inst = p.generate(0, **ig.QUICK.size)
    opt = p.solve_offline(inst, time_limit=60.0, threads=1)  # v1: another formulation
    assert opt.status == "optimal"
    tol = 1e-6 * (1 + abs(opt.objective))
    lp, y = df.iloc[0], df.iloc[1]
    assert lp["bound"] <= y["bound"] + tol <= opt.objective + 2 * tol
    assert lp["ref_incumbent"] == pytest.approx(opt.objective, rel=1e-6)
    assert lp["gap_closed"] == 0.0 and 0.0 <= y["gap_closed"] <= 1.0 + 1e-6
    assert "okita seed 0 keep y" in capsys.readouterr().out


@pytest.mark.parametrize("paper", sorted(ig.SETTINGS))
def test_relax_except_keeps_only_the_named_families(paper):
    """Only the kept family stays integer; bounds survive; typos raise."""
    setting = ig.SETTINGS[paper]
    p = optsched.get_paper(paper)
    small = {"okita": ig.QUICK.size, "oasis": {"n_jobs": 4, "n_slots": 8},
             "edgecloud": {"n_jobs": 3, "n_servers": 2, "n_slots": 30, "slot_hours": 24.0}}[paper]  # fmt: skip
    model = setting.build(p.generate(0, **small))
    keep = setting.families[0]
    relaxed = ig.relax_except(model, (keep,), setting.families)
    assert keep not in relaxed and set(relaxed) <= set(setting.families)
    assert all(not v.is_continuous() for v in getattr(model, keep).values())
    for name in relaxed:
        var = getattr(model, name)
        assert all(v.is_continuous() for v in var.values())
        assert all(v.lb is not None and v.ub is not None for v in var.values())
    with pytest.raises(ValueError, match="unknown families"):
        ig.relax_except(model, ("nope",), setting.families)


def test_frontier_row_reads_the_reference_row():
    """The reference of a full run is the frontier CSV's row (okita v3, seed 4)."""
    size = ig.SETTINGS["okita"].size
    ref = ig.frontier_row("okita", size, "v3", 4)
    df = pd.read_csv(ig.FRONTIER)
    key = json.dumps(size, sort_keys=True)
    hit = df[(df.paper == "okita") & (df.formulation == "v3") & (df.size_json == key)]
    hit = hit[hit.seed == 4]
    assert ref == {
        "ref_bound": float(hit.iloc[-1]["bound"]),
        "ref_incumbent": float(hit.iloc[-1]["objective"]),
    }
    with pytest.raises(LookupError):
        ig.frontier_row("okita", size, "v9", 4)


def test_merge_rows_keeps_other_rows_and_replaces_repeated_ones():
    """A new run's rows replace the CSV's rows with the same key; the rest stay."""
    from benchmarks.common import merge_rows

    old = pd.DataFrame({"paper": ["okita"] * 2, "seed": [0, 1], "keep": ["lp"] * 2,
                        "bound": [1.0, 2.0]})  # fmt: skip
    new = pd.DataFrame({"paper": ["okita"] * 2, "seed": [1, 2], "keep": ["lp"] * 2,
                        "bound": [20.0, 30.0]})  # fmt: skip
    both = merge_rows(old, new, ig.KEY)
    assert list(both["seed"]) == [0, 1, 2] and list(both["bound"]) == [1.0, 20.0, 30.0]
    assert merge_rows(None, new, ig.KEY) is new
