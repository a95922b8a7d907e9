"""``benchmarks/oasis_levers.py``: the quick run, and every lever keeps the optimum (timings not asserted)."""

import dataclasses

import numpy as np
import pytest
from optsched.models.oasis import solve_offline

from benchmarks import oasis_levers as bench
from optsched.oasis.instance import generate


def test_oasis_levers_quick(tmp_path, capsys):
    df = bench.main(tmp_path, quick=True)
    assert (tmp_path / "oasis_levers.csv").exists()
    assert list(df["lever"]) == list(bench.LEVERS)
    assert "QUICK" in capsys.readouterr().out
    lad = bench.ladder(tmp_path, quick=True)
    assert (tmp_path / "oasis_job_ladder.csv").exists()
    assert list(lad["n_jobs"])[0] == bench.QUICK_JOB_LADDER[0]
    # a size passes only when every seed was proven within the limit
    for _, d in lad.groupby("n_jobs"):
        assert (
            d["passes"].all() == (d["status"] == "optimal").all()
            or not d["passes"].any()
        )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_lever_keeps_the_proven_optimum(seed):
    """Valid rows only: each lever's proven optimum equals the plain model's.

    Servers 0-1 (worker side) and 0-1 (PS side) are made identical so the
    symmetry rows are present.
    """
    inst = generate(seed, n_jobs=6, n_slots=8, n_worker_servers=3, n_ps_servers=3)
    ws, ps = list(inst.worker_servers), list(inst.ps_servers)
    ws[1], ps[1] = ws[0], ps[0]
    inst = dataclasses.replace(inst, worker_servers=tuple(ws), ps_servers=tuple(ps))
    ref = solve_offline(inst, time_limit=30.0, threads=1)
    assert ref.status == "optimal"
    for lever in bench.LEVERS:
        r = bench.solve_with(inst, lever, 30.0)
        assert r.status == "optimal", lever
        assert r.objective == pytest.approx(ref.objective, rel=1e-7, abs=1e-7), lever
    m = bench.build_model(inst)
    bench.add_symmetry(m, inst)
    assert len(m.lever_sym_y) > 0 and len(m.lever_sym_z) > 0
    assert np.array_equal(inst.c_worker[0], inst.c_worker[1])
