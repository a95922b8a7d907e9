"""Smoke test of ``benchmarks/edgecloud_bp.py --quick`` (timings are not asserted)."""

import pandas as pd

import optsched
from benchmarks import edgecloud_bp


def test_edgecloud_bp_bench_quick(tmp_path, capsys):
    """Quick run: root <= branched bound <= incumbent, CSV written atomically,
    and each tiny instance's proven optimum lies in [branched bound, incumbent]."""
    df = edgecloud_bp.main(tmp_path, quick=True)
    csv = tmp_path / "edgecloud_bp.csv"
    assert csv.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert list(back.columns) == edgecloud_bp.COLUMNS and len(back) == 2
    assert (df["root_bound"] <= df["bp_bound"]).all()
    assert (df["bp_bound"] <= df["incumbent"]).all()
    assert (df["proven"] == (df["bp_bound"] == df["incumbent"])).all()
    p = optsched.get_paper("edgecloud")
    for r in df.itertuples():
        inst = edgecloud_bp.instance(r.source, r.n_jobs, r.n_servers, r.seed, True)
        opt = p.solve_offline(inst, time_limit=60.0, threads=1)
        assert opt.status == "optimal"
        assert r.bp_bound <= opt.objective + 1e-9 <= r.incumbent + 2e-9
    assert "largest width" in capsys.readouterr().out
