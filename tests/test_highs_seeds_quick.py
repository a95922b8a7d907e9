"""``benchmarks/highs_seeds.py``: the quick run and the committed rows.

The known answer of the quick run is the frontier's committed proof of the
same instance (edgecloud 5 x 2, seed 0: 23, ``benchmarks/data/frontier.csv``),
a run of another script at another time; every run of the study must prove
it whatever HiGHS's random seed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from benchmarks import highs_seeds as H
from benchmarks.frontier import LADDERS, reference_row

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "highs_seeds.csv"


def test_highs_seeds_quick(tmp_path: Path) -> None:
    df = H.main(["--quick", "--out", str(tmp_path), "--workers", "1"])
    back = pd.read_csv(tmp_path / "highs_seeds_quick.csv")
    assert list(back["random_seed"]) == [0, 1]
    assert len(df) == 2
    ref = reference_row("edgecloud", LADDERS["edgecloud"][0], "v3", 0)
    assert ref["bound"] == ref["objective"]  # the frontier proved it
    assert back["proven"].all()
    assert back["objective"].tolist() == pytest.approx([ref["objective"]] * 2)
    assert back["bound"].tolist() == pytest.approx([ref["objective"]] * 2)


@pytest.mark.skipif(not DATA.exists(), reason="no committed run")
def test_committed_rows_are_consistent() -> None:
    """Per instance every run's interval contains every proven optimum and
    meets the others (both papers minimise: bound <= OPT <= objective)."""
    df = pd.read_csv(DATA)
    assert set(df.columns) == set(H.COLUMNS)
    for _key, g in df.groupby(["paper", "size_json", "seed"]):
        lo, hi = g["bound"].max(), g["objective"].min()
        assert lo <= hi * (1 + 1e-9), g
        for opt in g.loc[g["proven"], "objective"]:
            assert lo <= opt * (1 + 1e-9) and opt <= hi * (1 + 1e-9)
        size = json.loads(g["size_json"].iloc[0])
        assert size in LADDERS[g["paper"].iloc[0]]


@pytest.mark.skipif(not DATA.exists(), reason="no committed run")
def test_edgecloud_page_table_is_the_committed_run() -> None:
    """docs/edgecloud.md's table ("HiGHS's random seed") holds the CSV's
    bounds and incumbents, in ``random_seed`` order, and its proof counts."""
    df = pd.read_csv(DATA)
    text = (DATA.parents[2] / "docs" / "edgecloud.md").read_text()
    section = text[text.index("### HiGHS's random seed") :]
    section = section[: section.index("\n### ")]
    rows = [ln for ln in section.splitlines() if re.match(r"\| \d+ \|", ln)]
    ec = df[df["paper"] == "edgecloud"]
    assert len(rows) == ec["seed"].nunique() == 3
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        g = ec[ec["seed"] == int(cells[0])].sort_values("random_seed")
        fmt = " / ".join
        assert cells[2] == fmt(f"{v:g}" for v in g["bound"].round(6)), ln
        assert cells[3] == fmt(f"{v:g}" for v in g["objective"].round(6)), ln
        assert cells[4] == f"{int(g['proven'].sum())} of {len(g)}", ln
