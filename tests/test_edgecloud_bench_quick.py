"""Smoke test of ``benchmarks/edgecloud_bench.py --quick`` (timings are not asserted)."""

import dataclasses

import pandas as pd
import pytest

from benchmarks import edgecloud_bench
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import generate
from optsched.edgecloud.online import a_online


def test_edgecloud_bench_quick(tmp_path, capsys):
    """The edgecloud benchmark runs quick, checks A_online and writes CSV + PNG atomically."""
    df = edgecloud_bench.main(tmp_path, quick=True)
    csv = tmp_path / "edgecloud_bench.csv"
    png = tmp_path / "edgecloud_scaling.png"
    assert csv.exists() and png.exists()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert len(back) == len(df)
    assert list(back.columns) == edgecloud_bench.COLUMNS
    assert set(df["bench"]) == {
        "a_online_paper",
        "a_online_scaling",
        "exact_milp",
        "lp_ilp4",
    }
    assert (df["seconds"] > 0).all()
    # every A_online schedule of the quick run passed the checker
    on = df[df["bench"].str.startswith("a_online")]
    assert on["checked"].all()
    assert (on["peak_mb"] > 0).all()
    # the tiny MILP is proven and its incumbent checked; the LP reports its size
    milp = df[df["bench"] == "exact_milp"]
    assert (milp["status"] == "optimal").all() and milp["checked"].all()
    lp = df[df["bench"] == "lp_ilp4"].iloc[0]
    assert lp["rows"] > 0 and lp["cols"] > 0
    assert str(lp["status"]).startswith("optimal")
    assert edgecloud_bench.TARGET_S["a_online_paper"] == 60.0
    out = capsys.readouterr().out
    for s in ("300 jobs x 100 servers", "J = 25", "S = 45", "QUICK", "largest MILP"):
        assert s in out
    # a row regenerates: A_online on generate(seed, J, S) gives the same total JCT
    row = on.iloc[0]
    inst = generate(
        int(row["seed"]), n_jobs=int(row["n_jobs"]), n_servers=int(row["n_servers"])
    )
    sched = a_online(inst)
    longer = dataclasses.replace(
        inst, n_slots=max(inst.n_slots, sched.meta["makespan"])
    )
    assert check(longer, sched).objective == pytest.approx(row["objective"], rel=1e-12)
