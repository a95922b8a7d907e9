"""Smoke test of ``benchmarks/okita_bench.py --quick`` (timings are not asserted)."""

import dataclasses

import pandas as pd
import pytest

from benchmarks import okita_bench
from optsched.okita import check, generate, okita


def test_okita_bench_quick(tmp_path, capsys):
    """The okita benchmark runs quick, checks Okita and writes CSV + PNG atomically."""
    df = okita_bench.main(tmp_path, quick=True)
    csv = tmp_path / "okita_bench.csv"
    png = tmp_path / "okita_scaling.png"
    assert csv.exists() and png.exists()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert len(back) == len(df)
    assert list(back.columns) == okita_bench.COLUMNS
    assert set(df["bench"]) == {"okita_paper", "okita_scaling", "exact_milp"}
    assert (df["seconds"] > 0).all()
    # every row is checked: Okita's schedules by the checker, the MILP's incumbent
    # by solve_offline
    assert df["checked"].all() and back["checked"].all()
    ok = df[df["bench"].str.startswith("okita")]
    assert (ok["peak_mb"] > 0).all()
    assert sorted(set(df[df["bench"] == "okita_scaling"]["n_jobs"])) == [5, 10, 20]
    milp = df[df["bench"] == "exact_milp"]
    assert (milp["status"] == "optimal").all()
    assert (milp["objective"] >= milp["bound"] - 1e-6 * abs(milp["bound"])).all()
    assert okita_bench.TARGET_S["okita_paper"] == 5.0
    assert okita_bench.PAPER_SIZE == {"n_sites": 50, "n_jobs": 100, "n_slots": 150}
    out = capsys.readouterr().out
    for s in ("R = 50 sites, I = 100 jobs, T = 150", "QUICK", "largest MILP"):
        assert s in out
    # a row regenerates: okita on generate(seed, R, I, T) gives the same total cost
    row = ok.iloc[0]
    inst = generate(
        int(row["seed"]),
        n_sites=int(row["n_sites"]),
        n_jobs=int(row["n_jobs"]),
        n_slots=int(row["n_slots"]),
    )
    sched = okita(inst)
    longer = dataclasses.replace(
        inst, n_slots=max(inst.n_slots, sched.meta["makespan"])
    )
    ev = check(longer, sched, ps_every_slot=sched.meta["ps_every_slot"])
    assert ev.objective == pytest.approx(row["objective"], rel=1e-12)
