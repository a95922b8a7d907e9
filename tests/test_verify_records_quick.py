"""Smoke test of ``benchmarks/verify_records.py --quick`` (wall times are not asserted)."""

import pandas as pd

from benchmarks import verify_records as vr


def test_verify_records_quick(tmp_path, capsys):
    """The committed hetero Table II record comes out again; the CSV row says so."""
    vr.main(tmp_path, quick=True, workers=1)
    back = pd.read_csv(tmp_path / "verify_records_quick.csv")
    assert list(back.columns) == vr.COLUMNS and back["figure"].tolist() == [
        "table2_example"
    ]
    row = back.iloc[0]
    assert bool(row["reproduced"]) and row["rows"] == 7 and row["claims"] == 6
    assert (
        row["mismatches"]
        == row["disjoint"]
        == row["shape"]
        == row["claims_changed"]
        == 0
    )
    assert row["timing_columns"] == "runtime_s" and not bool(row["stale"])
    assert (
        tmp_path / "verify_records" / "hetero" / "table2_example.verify.csv"
    ).is_file()
    assert "table2_example: reproduced" in capsys.readouterr().out
    again = vr.main(tmp_path, quick=True, workers=1, resume=True)  # nothing left to run
    assert "table2_example: reproduced" not in capsys.readouterr().out
    assert again["figure"].tolist() == ["table2_example"]
    md = tmp_path / "page.md"
    md.write_text(f"# Page\n\n{vr.TABLE_BEGIN}\nold\n{vr.TABLE_END}\n\nafter\n")
    from optsched.core import experiment

    experiment.replace_block(md, vr.markdown(back), vr.TABLE_BEGIN, vr.TABLE_END)
    text = md.read_text()
    assert "old" not in text and text.endswith("after\n")
    assert "| hetero/table2_example | 7 | 0 | 0 | 0 | 0 of 6 | reproduced |" in text


def test_long_figures_are_specs():
    """Every name in LONG is a spec (a typo would silently verify that figure by default)."""
    from optsched.core import experiment

    assert vr.LONG <= set(experiment.specs())
