"""Smoke test of ``benchmarks/hetero_exact_scale.py --quick`` (timings are not asserted)."""

import pandas as pd
import pytest
from optsched.models.hetero import solve_exact

from benchmarks import hetero_exact_scale as bench
from optsched.hetero.check import check
from optsched.hetero.instance import generate


def test_hetero_exact_scale_quick(tmp_path, capsys):
    df = bench.main(tmp_path, quick=True)
    back = pd.read_csv(tmp_path / "hetero_exact_scale.csv")
    assert list(back.columns) == bench.COLUMNS and len(back) == len(df)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert set(df["n_jobs"]) == {4, 8}
    assert (df["status"] == "optimal").all() and df["passes"].all()
    summary = bench.summarize(df)
    assert summary.set_index("n_jobs")["largest_K_proven"].to_dict() == {4: 12, 8: 8}
    assert "QUICK" in capsys.readouterr().out
    assert bench.LADDER[4][0] == 30 and bench.LIMIT_S == 60.0
    # a row regenerates: the optimum's checked average JCT
    row = df.iloc[0]
    inst = generate(int(row["seed"]), int(row["n_jobs"]), int(row["n_workers"]))
    res = solve_exact(inst, time_limit=20.0, threads=1)
    assert check(inst, res.schedule).objective == pytest.approx(
        row["avg_jct"], rel=1e-9
    )


def test_summary_stops_at_the_first_failure():
    df = pd.DataFrame(
        {"n_jobs": [4, 4, 4, 4], "n_workers": [30, 30, 60, 60], "seed": [0, 1, 0, 1],
         "seconds": [1.0, 2.0, 70.0, 5.0], "status": ["optimal"] * 2 + ["time_limit", "optimal"],
         "avg_jct": [1.0] * 4, "passes": [True, True, False, False]}
    )  # fmt: skip
    s = bench.summarize(df).iloc[0]
    assert s["largest_K_proven"] == 30 and s["next_K_tried"] == 60
    assert s["seconds_per_seed"] == "1.0 / 2.0"
