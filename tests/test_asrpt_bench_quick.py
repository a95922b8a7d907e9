"""Smoke test of ``benchmarks/asrpt_bench.py --quick`` (timings are not asserted)."""

import pandas as pd
import pytest

import optsched
from benchmarks import asrpt_bench
from optsched.asrpt import check, generate


def test_asrpt_bench_quick(tmp_path, capsys):
    df = asrpt_bench.main(tmp_path, quick=True)
    csv = tmp_path / "asrpt_bench.csv"
    assert csv.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert list(back.columns) == asrpt_bench.COLUMNS and len(back) == len(df)
    assert set(df["bench"]) == {"heavy_edge", "placement_milp", "simulation"}
    assert df["checked"].all() and (df["seconds"] > 0).all()
    sim = df[df["bench"] == "simulation"]
    assert list(sim["name"]) == list(optsched.get_paper("asrpt").algorithms)
    assert (sim["peak_mb"] > 0).all()
    assert asrpt_bench.SIM_SIZE == {"n_jobs": 150_000, "n_servers": 250,
                                    "gpus_per_server": 8}  # fmt: skip
    assert "QUICK" in capsys.readouterr().out
    # a simulation row regenerates from its instance
    inst = generate(0, trace=None, load=0.9, predictor="median",
                    **{**asrpt_bench.SIM_SIZE, "n_jobs": 2_000})  # fmt: skip
    p = optsched.get_paper("asrpt")
    row = sim.iloc[0]
    assert check(inst, p.run(row["name"], inst)).objective == pytest.approx(
        row["objective"], rel=1e-12
    )
