"""Smoke test of the benchmark scripts' --quick path (timings are not asserted)."""

from benchmarks import oasis_bench


def test_oasis_bench_quick(tmp_path, capsys):
    """The OASiS benchmark runs quick, writes its CSV and prints the paper's numbers."""
    df = oasis_bench.main(tmp_path, quick=True)
    assert (tmp_path / "oasis_bench.csv").exists()
    assert set(df["bench"]) == {"oasis_decision", "offline_milp", "mip_start"}
    mip = df[df["bench"] == "mip_start"]
    assert list(mip["mip_start"]) == [False, True]
    assert mip["status"].isin(["optimal", "time_limit"]).all()
    if (mip["status"] == "optimal").all():  # both proven: the same optimum
        assert abs(mip["objective"].iloc[0] - mip["objective"].iloc[1]) <= 1e-6 * max(
            1.0, abs(mip["objective"].iloc[0])
        )
    assert (df["seconds"] > 0).all()
    out = capsys.readouterr().out
    assert "paper: < 1 s" in out and "2 days" in out
