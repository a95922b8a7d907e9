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


def test_assign_ps_refuses_two_jobs_on_one_edge_ps():
    """Two jobs training in the same slot before the cloud's delay, one qualified
    edge PS: no assignment; either job alone gets that PS."""
    import dataclasses

    import numpy as np

    import optsched

    p = optsched.get_paper("edgecloud")
    inst = p.generate(0, **edgecloud_gap.QUICK_SIZE)
    c = inst.cloud
    by_type: dict[int, list[int]] = {}
    for j, job in enumerate(inst.jobs):
        by_type.setdefault(int(job.ps_type), []).append(j)
    k, (j1, j2) = next((k, js[:2]) for k, js in by_type.items() if len(js) >= 2)
    ps = [0] * inst.n_ps_types
    ps[k] = 1  # server 0: one PS of type k; the other servers none of it
    servers = [dataclasses.replace(inst.servers[0], ps=tuple(ps))]
    for srv in inst.servers[1:]:
        servers.append(dataclasses.replace(srv, ps=tuple(
            0 if i == k else n for i, n in enumerate(srv.ps))))  # fmt: skip
    one = dataclasses.replace(inst, servers=tuple(servers))
    t = max(int(one.arrival[j]) + int(one.delay[j, 0]) for j in (j1, j2))
    assert all(t < int(one.arrival[j]) + int(one.delay[j, c]) for j in (j1, j2))
    both = np.array([[j1, 0, t, 0, 0], [j2, 0, t, 0, 1]])
    assert edgecloud_gap.assign_ps(one, both) is None
    alone = edgecloud_gap.assign_ps(one, both[:1])
    assert alone is not None and alone.ps.tolist() == [[j1, t, 0, 0]]
