"""Smoke test of ``benchmarks/edgecloud_gap.py --quick`` (timings are not asserted)."""

import math

import pandas as pd

from benchmarks import edgecloud_gap


def test_edgecloud_gap_bench_quick(tmp_path, capsys):
    """Quick run: both models proven, the relaxation without (2f) never above (2),
    (2) never above the checked incumbent, ``certified`` only when the relaxed
    optimum reaches the incumbent (then it is (2)'s optimum too); CSV atomic."""
    df = edgecloud_gap.main(tmp_path, quick=True)
    csv = tmp_path / "edgecloud_gap.csv"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    back = pd.read_csv(csv)
    assert list(back.columns) == edgecloud_gap.COLUMNS and len(back) == 1
    r = df.iloc[0]
    assert r["full_status"] == r["no2f_status"] == "optimal"
    assert r["no2f_objective"] <= r["full_objective"] + 1e-6
    assert r["full_objective"] <= r["incumbent"] + 1e-6
    if not math.isnan(r["no2f_repaired"]):  # a checked schedule of (2)
        assert r["no2f_repaired"] >= r["full_objective"] - 1e-6
    reached = r["incumbent"]
    if not math.isnan(r["no2f_repaired"]):
        reached = min(reached, r["no2f_repaired"])
    assert r["certified"] == (r["no2f_objective"] >= reached - 1e-6)
    if r["certified"]:
        assert abs(r["full_objective"] - r["incumbent"]) < 1e-6
    assert "without (2f)" in capsys.readouterr().out


def test_assign_ps_keeps_a_checked_schedule_checked():
    """The PSs of checked schedules re-assigned by matching: still checked, same JCT."""
    import optsched
    from optsched.core.ratio import best_start

    p = optsched.get_paper("edgecloud")
    for seed in range(4):
        inst = p.generate(seed, **edgecloud_gap.QUICK_SIZE)
        for sched in (best_start(p, inst), p.run("a_online", inst)):
            again = edgecloud_gap.assign_ps(inst, sched.runs)
            assert again is not None
            assert p.check(inst, again).objective == p.check(inst, sched).objective
