"""Smoke test of the benchmark scripts' --quick path (timings are not asserted)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_oasis_bench_quick(tmp_path, capsys):
    """The OASiS benchmark runs quick, writes its CSV and prints the paper's numbers."""
    df = _load(ROOT / "benchmarks" / "oasis_bench.py").main(tmp_path, quick=True)
    assert (tmp_path / "oasis_bench.csv").exists()
    assert set(df["bench"]) == {"oasis_decision", "offline_milp"}
    assert (df["seconds"] > 0).all()
    out = capsys.readouterr().out
    assert "paper: < 1 s" in out and "2 days" in out
