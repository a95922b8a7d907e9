"""Smoke test of ``benchmarks/hetero_bench.py --quick`` (timings are not asserted)."""

import math

import pandas as pd
import pytest

import optsched
from benchmarks import hetero_bench
from optsched.hetero.online import JpsParams


def test_hetero_bench_quick(tmp_path, capsys):
    """The hetero benchmark runs quick, writes its CSV atomically and prints the paper's numbers."""
    df = hetero_bench.main(tmp_path, quick=True)
    csv = tmp_path / "hetero_bench.csv"
    assert csv.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert len(pd.read_csv(csv)) == len(df)
    assert set(df["bench"]) == {"exact_optimum", "has_all", "jps_n60", "jps_n40_k300"}
    assert (df["seconds"] > 0).all()
    # the paper's numbers (Tables IV and V) and the targets
    assert hetero_bench.PAPER_TARGET[("exact_optimum", 30, "milp")] == (
        2.21 * 3600,
        60.0,
    )
    assert hetero_bench.PAPER_TARGET[("has_all", 30, "market")] == (55.54, 5.0)
    assert hetero_bench.PAPER_TARGET[("jps_n60", 30, "market")] == (1.13, 0.2)
    assert hetero_bench.PAPER_TARGET[("jps_n60", 15, "market")][0] == 0.22
    assert hetero_bench.PAPER_TARGET[("jps_n40_k300", 300, "exact")] == (114.61, 10.0)
    out = capsys.readouterr().out
    for s in ("2.21 h", "55.54 s", "1.13 s", "0.22 s", "114.61 s", "QUICK"):
        assert s in out
    # the checked optimum is proven and no heuristic on the same instance beats it
    opt = df[df["bench"] == "exact_optimum"].iloc[0]
    assert opt["status"] == "optimal"
    same = df[(df["n_workers"] == opt["n_workers"]) & (df["seed"] == opt["seed"])]
    assert (same["avg_jct"] >= opt["avg_jct"] * (1 - 1e-9)).all()
    # a row regenerates: JPS N = 40 (exact P3) at K = 300 on generate(seed, 4, 300)
    row = df[df["bench"] == "jps_n40_k300"].iloc[0]
    p = optsched.get_paper("hetero")
    inst = p.generate(seed=int(row["seed"]), n_jobs=4, n_workers=300)
    pl = p.run("jps", inst, params=JpsParams(n_samples=40, p3=row["variant"]))
    assert p.check(inst, pl).objective == pytest.approx(row["avg_jct"], rel=1e-12)
    assert math.isnan(
        df.loc[df["bench"] == "has_all", "target_s"].iloc[0]
    )  # quick K = 15
