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
    assert some["status"] == "optimal" and some["bound"] == 3.0  # (2)'s optimum
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
    assert found["status"] == "optimal" and found["bound"] == found["found_objective"]


def test_edgecloud_below_quick_run_writes_merges_and_certifies(tmp_path):
    """Quick run (N = the start's value - 1), then the same cut against a
    saved schedule: the CSV is written atomically and merged by key, and
    ``certified`` holds exactly for an infeasible cut one below a checked
    schedule's value (the start's, or the ``--against`` file's)."""
    import optsched
    from optsched.core.ratio import best_start

    df = B.main(tmp_path, quick=True, save=tmp_path / "found")
    back = pd.read_csv(tmp_path / "edgecloud_below.csv")
    assert list(back.columns) == B.COLUMNS and len(back) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    r = df.iloc[0]
    p = optsched.get_paper("edgecloud")
    inst = p.generate(0, **B.QUICK_SIZE)
    start = best_start(p, inst)
    assert (
        r["source"] == "frontier"
        and r["start_objective"] == check(inst, start).objective
    )
    assert r["below"] == r["start_objective"] - 1 and math.isnan(r["against_objective"])
    assert r["status"] in ("infeasible", "optimal", "time_limit")
    assert bool(r["certified"]) == (r["status"] in ("infeasible", "optimal"))
    if r["status"] == "infeasible":  # the start is optimal: a file of it certifies too
        f = tmp_path / "start.json"
        f.write_text(start.to_json())
        again = B.main(tmp_path, quick=True, n=int(r["below"]), against=f)
        assert len(again) == 1 and bool(again.iloc[0]["certified"])
        assert again.iloc[0]["against_objective"] == r["start_objective"]
        above = B.main(tmp_path, quick=True, n=int(r["below"]) - 1, against=f)
        assert len(above) == 2  # a new key: merged beside the first row
        one = above[above["below"] == r["below"] - 1].iloc[0]
        assert one["status"] == "infeasible" and not one["certified"]  # two below
    else:  # a better schedule than the start was found and saved
        assert r["found_objective"] <= r["below"]
        assert [f.name for f in (tmp_path / "found").iterdir()] == ["5x2_seed0.json"]
    with pytest.raises(ValueError, match="one schedule is one instance"):
        B.main(tmp_path, quick=True, seeds=(0, 1), against=tmp_path / "x.json")


def test_the_figures_instances_are_keyed_apart_from_the_frontier(tmp_path, monkeypatch):
    """``figure=(J, S)`` builds Figs. 12-13's instance (``source`` figure)
    and names a saved schedule ``figure_*``; the cut itself is stubbed
    (no solve), so this checks the wiring only."""
    from benchmarks import edgecloud_bp

    seen = {}

    def fake_below(inst, n, limit, confirm=None):
        seen["inst"] = inst
        return {"status": "time_limit", "found_objective": math.nan, "bound": math.nan,
                "seconds": 0.0, "scip_status": "", "scip_seconds": math.nan,
                "schedule": None}  # fmt: skip

    monkeypatch.setattr(B, "below", fake_below)
    df = B.main(tmp_path, figure=(5, 5), seeds=(2,), n=10)
    r = df.iloc[0]
    assert (r["source"], r["n_jobs"], r["n_servers"], r["seed"]) == ("figure", 5, 5, 2)
    want = edgecloud_bp.instance("figure", 5, 5, 2, False)
    assert seen["inst"].to_json() == want.to_json()
    assert not r["certified"]


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
    r = df[(df["source"] == "frontier") & (df["n_jobs"] == 20) & (df["seed"] == 4)]
    r = r[r["below"] == 112].iloc[0]
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


def _record_interval(n_jobs, n_servers, seed):
    """The recorded (opt_objective, opt_bound, opt_status) of a Figs. 12-13 instance."""
    for name in ("fig12_ratio_jobs", "fig13_ratio_servers"):
        rec = pd.read_csv(f"paper_figures/claims/edgecloud/{name}.rows.csv.gz")
        rec = rec[(rec["n_jobs"] == n_jobs) & (rec["n_servers"] == n_servers)]
        rec = rec[rec["seed"] == seed]
        if len(rec):
            r = rec.iloc[0]
            return float(r["opt_objective"]), float(r["opt_bound"]), r["opt_status"]
    raise AssertionError(f"no record of {n_jobs} x {n_servers} seed {seed}")


def test_committed_cuts_on_the_figures_instances():
    """Every committed row of a Figs. 12-13 instance against that figure's
    record (a solve left at its time limit in ``[opt_bound,
    opt_objective]``) and against the best online schedule, rebuilt and
    checked here: an infeasible cut at ``N`` lifts the bound to ``N + 1``
    inside the recorded interval and certifies the record's upper end
    exactly when that is ``N + 1``; a cut at its time limit certifies
    nothing; a found schedule (committed, checked
    again here) is never below the record's proven bound, and meeting it
    makes it optimal.  Where a later record proves the instance (the
    re-recording of 2026-12-06 did on two of them: HiGHS on one, the branch
    and price bound on the other), its optimum must be the cut's certified
    bound: two independent certificates of one value."""
    import optsched
    from benchmarks.edgecloud_bp import instance
    from optsched.core.ratio import best_start
    from optsched.edgecloud.schedule import EdgeCloudSchedule

    df = pd.read_csv("benchmarks/data/edgecloud_below.csv")
    fig = df[df["source"] == "figure"]
    assert len(fig) >= 1
    p = optsched.get_paper("edgecloud")
    for _, r in fig.iterrows():
        j, s, seed = int(r["n_jobs"]), int(r["n_servers"]), int(r["seed"])
        upper, lower, status = _record_interval(j, s, seed)
        assert status in ("time_limit", "optimal") and lower <= upper
        # a proven optimum is its own bound: an "optimal" row with an open interval is a defect
        assert status != "optimal" or lower > upper - 1e-6
        if lower > upper - 1e-6:  # certified since (by HiGHS or branch and price)
            assert r["status"] == "infeasible" and r["bound"] == upper
            assert bool(r["certified"])
            continue
        inst = instance("figure", j, s, seed, False)
        start = p.check(inst, best_start(p, inst)).objective
        assert start == r["start_objective"] == upper
        if r["status"] == "infeasible":  # a bound N + 1 inside the record's interval
            assert r["bound"] == r["below"] + 1 and lower < r["bound"] <= upper
            assert bool(r["certified"]) == (r["bound"] == upper)
            scip = r["scip_status"]  # not asked (empty), or no contradiction
            assert pd.isna(scip) or scip in ("infeasible", "timelimit")
        if not math.isnan(r["found_objective"]):
            f = Path("benchmarks/data/edgecloud_below_schedules")
            f = f / f"figure_{j}x{s}_seed{seed}.json"
            sched = EdgeCloudSchedule.from_json(f.read_text())
            value = p.check(inst, sched).objective
            assert value == r["found_objective"] <= r["below"]
            assert lower <= value < upper
        if r["status"] == "optimal":  # the cut model's optimum is (2)'s
            assert r["bound"] == r["found_objective"] and r["certified"]
        if r["status"] in ("time_limit", "killed"):  # says nothing
            assert math.isnan(r["bound"]) and not r["certified"]


def test_committed_certificate_of_fig12_5x5_seed_2():
    """Fig. 12's 5 x 5 seed 2 was recorded at a time limit in [63, 64]
    (branch and price's bound 63); the committed row says no schedule has
    JCT <= 63 (HiGHS and SCIP both prove it): OPT = 64, the record's
    upper end and the best online schedule's value (checked in the test
    above).  The figure's record of 2026-12-06 proves 64 itself (HiGHS got
    further on an idle machine): the two certificates agree."""
    df = pd.read_csv("benchmarks/data/edgecloud_below.csv")
    r = df[(df["source"] == "figure") & (df["n_jobs"] == 5) & (df["n_servers"] == 5)]
    r = r[(r["seed"] == 2) & (r["below"] == 63)].iloc[0]
    assert r["status"] == "infeasible" and r["scip_status"] == "infeasible"
    assert r["bound"] == 64 and r["certified"] and r["start_objective"] == 64
    upper, lower, status = _record_interval(5, 5, 2)
    assert (upper, status) == (64.0, "optimal") and lower == pytest.approx(64.0)


def test_fig12_5x5_seed_2_cut_proven_again():
    """The committed row's claim, proven again here rather than read back:
    HiGHS finds no schedule of JCT <= 63 on Fig. 12's 5 x 5 seed 2 (about
    20 s), while the best online schedule checks at 64."""
    import optsched
    from benchmarks.edgecloud_bp import instance
    from optsched.core.ratio import best_start

    p = optsched.get_paper("edgecloud")
    inst = instance("figure", 5, 5, 2, False)
    assert p.check(inst, best_start(p, inst)).objective == 64
    res = B.below(inst, 63, 600.0)
    assert res["status"] == "infeasible" and res["bound"] == 64


def test_an_optimal_cut_model_the_checker_disagrees_with_is_a_solver_error(monkeypatch):
    """``optimal`` is reported as (2)'s optimum only when the checker's
    value of the extracted schedule equals HiGHS's objective: a checker
    that says one unit more (stubbed) makes it a ``SolverError``."""
    from types import SimpleNamespace

    from optsched.core.errors import SolverError

    real = B.check
    monkeypatch.setattr(
        B, "check", lambda i, s: SimpleNamespace(objective=real(i, s).objective + 1)
    )
    with pytest.raises(SolverError, match="checks at 4"):
        B.below(three_chunks(), 3, 30.0)


def test_committed_cuts_one_below_the_known_20x3_optima():
    """The frontier rows other than seed 4 ask one unit below an optimum
    certified elsewhere: the relaxation without (2f) proves it a lower
    bound (``edgecloud_gap.csv``, status optimal) and a checked schedule of
    the pool run or of the start reaches it (``edgecloud_pool.csv``).  Such
    a cut must not come back infeasible; stopped at its time limit it
    certifies nothing."""
    data = Path("benchmarks/data")
    df = pd.read_csv(data / "edgecloud_below.csv")
    rows = df[(df["source"] == "frontier") & (df["seed"] != 4)]
    assert len(rows) >= 1
    gap = pd.read_csv(data / "edgecloud_gap.csv")
    pool = pd.read_csv(data / "edgecloud_pool.csv")
    for _, r in rows.iterrows():
        key = (gap["n_jobs"] == r["n_jobs"]) & (gap["seed"] == r["seed"])
        g = gap[key & (gap["n_servers"] == r["n_servers"])].iloc[0]
        assert g["no2f_status"] == "optimal"
        lower = math.ceil(g["no2f_bound"] - 1e-6)
        q = pool[(pool["n_jobs"] == r["n_jobs"]) & (pool["seed"] == r["seed"])].iloc[0]
        schedules = q[["incumbent", "repair_objective", "window_objective"]].dropna()
        assert schedules.min() == lower == r["below"] + 1  # the known optimum
        assert r["status"] != "infeasible"
        if r["status"] == "time_limit":
            assert math.isnan(r["bound"]) and not r["certified"]


def test_hard_limit_kills_a_solve_and_the_row_certifies_nothing():
    """``run_with_hard_limit``: a call that ends in time returns its value, one
    that outlives the limit is killed; a cut whose process is killed gives
    a ``killed`` row that says nothing."""
    import time

    from benchmarks.common import run_with_hard_limit

    assert run_with_hard_limit(math.sqrt, (4.0,), 60.0) == (True, 2.0)
    assert run_with_hard_limit(math.sqrt, (4.0,), None) == (True, 2.0)
    t0 = time.perf_counter()
    assert run_with_hard_limit(time.sleep, (120.0,), 1.0) == (False, None)
    assert time.perf_counter() - t0 < 60.0
    r = B.row("frontier", B.QUICK_SIZE, 0, None, 20.0, hard=0.01)
    assert r["status"] == "killed" and not r["certified"]
    assert math.isnan(r["bound"]) and math.isnan(r["found_objective"])
    assert r["schedule"] is None
