"""Smoke test of ``benchmarks/edgecloud_colgen.py --quick`` (timings are not asserted)."""

import pandas as pd

import optsched
from benchmarks import edgecloud_colgen


def test_edgecloud_colgen_bench_quick(tmp_path, capsys):
    """Quick run: converged bounds below checked incumbents, CSV written atomically."""
    df = edgecloud_colgen.main(tmp_path, quick=True)
    csv = tmp_path / "edgecloud_colgen.csv"
    assert csv.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert list(back.columns) == edgecloud_colgen.COLUMNS and len(back) == 2
    assert df["converged"].all()
    assert (df["colgen_bound"] <= df["incumbent"]).all()
    assert (df["width"] >= 0).all()
    # the bound is the rounded-up Lagrangian value
    assert ((df["colgen_bound"] - df["colgen_value"]).between(0, 1)).all()
    # each quick instance is tiny: HiGHS proves its optimum, which lies in
    # [bound, incumbent] (an independent check of both columns)
    p = optsched.get_paper("edgecloud")
    from optsched.core.horizon import fit
    from optsched.edgecloud import experiments as ex

    for r in df.itertuples():
        task = {"n_jobs": r.n_jobs, "n_servers": r.n_servers, "seed": r.seed}
        _, inst = ex._generate({**task, **ex.REDUCED_QUICK})
        done, _ = fit(inst, p.run("a_online", inst))
        opt = p.solve_offline(done, time_limit=60.0, threads=1)
        assert opt.status == "optimal"
        assert r.colgen_bound <= opt.objective + 1e-9 <= r.incumbent + 2e-9
    assert "largest width" in capsys.readouterr().out
