"""``benchmarks/edgecloud_below.py``: the objective-cut certificate of edgecloud (2) (timings not asserted)."""

import math
from pathlib import Path

import pandas as pd
import pytest
from optsched.models import edgecloud as M

from benchmarks import edgecloud_below as B
from optsched.edgecloud.check import check
from tests.edgecloud.instances import small
from tests.test_edgecloud_pool_quick import three_chunks


def test_hand_instance_no_schedule_below_its_hand_counted_optimum():
    """Three two-slot chunks on two identical workers: JCT 3 without
    migration, counted by hand (``three_chunks``).  So JCT <= 2 has no
    schedule (a proven bound of 3), and JCT <= 3 has one, checked at 3."""
    inst = three_chunks()
    none = B.below(inst, 2, 30.0)
    assert none["status"] == "infeasible" and none["bound"] == 3.0
    assert none["scip_status"] == "" and math.isnan(none["scip_seconds"])
    assert none["schedule"] is None and math.isnan(none["found_objective"])
    some = B.below(inst, 3, 30.0)
    assert some["status"] == "optimal" and math.isnan(some["bound"])
    assert check(inst, some["schedule"]).objective == some["found_objective"] == 3.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cut_sits_exactly_at_the_proven_optimum(seed):
    """Against ``solve_offline``'s proven optimum v (an independent solve
    without the cut): nothing at v - 1, a checked schedule of value v at v."""
    inst = small(seed)
    opt = M.solve_offline(inst, time_limit=60.0)
    assert opt.status == "optimal"
    v = int(round(opt.objective))
    assert B.below(inst, v - 1, 60.0)["status"] == "infeasible"
    found = B.below(inst, v, 60.0)
    assert found["found_objective"] == pytest.approx(opt.objective)


def test_edgecloud_below_quick_run_writes_merges_and_certifies(tmp_path):
    """Quick run (N = the start's value - 1), then the same instance against
    a saved schedule: the CSV is written atomically and merged by key, and
    ``certified`` holds exactly for an infeasible cut one below a checked
    schedule's value."""
    df = B.main(tmp_path, quick=True, save=tmp_path / "found")
    back = pd.read_csv(tmp_path / "edgecloud_below.csv")
    assert list(back.columns) == B.COLUMNS and len(back) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    r = df.iloc[0]
    assert r["status"] in ("infeasible", "optimal", "time_limit")
    assert not r["certified"]  # no schedule to compare with
    if r["status"] == "infeasible":  # the start is optimal: compare with it
        import optsched
        from optsched.core.ratio import best_start

        p = optsched.get_paper("edgecloud")
        inst = p.generate(0, **B.QUICK_SIZE)
        f = tmp_path / "start.json"
        f.write_text(best_start(p, inst).to_json())
        again = B.main(tmp_path, quick=True, n=int(r["below"]), against=f)
        assert len(again) == 1 and bool(again.iloc[0]["certified"])
    else:  # a better schedule than the start was found and saved
        assert r["found_objective"] <= r["below"]
        assert [f.name for f in (tmp_path / "found").iterdir()] == ["5x2_seed0.json"]
    with pytest.raises(ValueError, match="one schedule is one instance"):
        B.main(tmp_path, quick=True, seeds=(0, 1), against=tmp_path / "x.json")


def test_committed_certificate_of_the_20x3_seed_4_optimum():
    """The committed row says no schedule of the frontier's 20 x 3 seed 4
    has JCT <= 112, and the committed schedule passes the checker at 113:
    OPT = 113.  Consistent with the bounds of other runs: branch and
    price's 112 (``edgecloud_bp.csv``) and the relaxation without (2f)
    (``edgecloud_gap.csv``) are at most 113, and the pool run's checked
    schedules (``edgecloud_pool.csv``) are at least 113."""
    import optsched
    from benchmarks.edgecloud_bp import FRONTIER_20X3
    from optsched.edgecloud.schedule import EdgeCloudSchedule

    data = Path("benchmarks/data")
    df = pd.read_csv(data / "edgecloud_below.csv")
    r = df[(df["n_jobs"] == 20) & (df["seed"] == 4) & (df["below"] == 112)].iloc[0]
    assert r["status"] == "infeasible" and r["bound"] == 113 and r["certified"]
    # the second solver found no schedule of JCT <= 112 either (it ran out of time)
    assert r["scip_status"] in ("infeasible", "timelimit")
    p = optsched.get_paper("edgecloud")
    inst = p.generate(4, **FRONTIER_20X3)
    f = data / "edgecloud_below_schedules" / "20x3_seed4.json"
    value = p.check(inst, EdgeCloudSchedule.from_json(f.read_text())).objective
    assert value == r["against_objective"] == 113
    bp = pd.read_csv(data / "edgecloud_bp.csv")
    b = bp[(bp["source"] == "frontier") & (bp["n_jobs"] == 20) & (bp["seed"] == 4)]
    assert b.iloc[0]["bp_bound"] <= value
    gap = pd.read_csv(data / "edgecloud_gap.csv")
    g = gap[(gap["n_jobs"] == 20) & (gap["seed"] == 4)].iloc[0]
    assert g["no2f_bound"] <= value
    pool = pd.read_csv(data / "edgecloud_pool.csv")
    q = pool[(pool["n_jobs"] == 20) & (pool["seed"] == 4)].iloc[0]
    pool_schedules = q[["repair_objective", "window_objective"]].dropna()
    assert len(pool_schedules) >= 1  # the repair is infeasible, the window gives one
    assert q["pool_bound"] <= value <= pool_schedules.min()


def test_scip_proves_the_same_cut_infeasible():
    """``confirm="scip"``: the second solver proves the hand instance's cut
    at 2 infeasible too, and is not asked where HiGHS found a schedule."""
    pytest.importorskip("pyscipopt")
    inst = three_chunks()
    assert B.below(inst, 2, 30.0, confirm="scip")["scip_status"] == "infeasible"
    assert B.below(inst, 3, 30.0, confirm="scip")["scip_status"] == ""
