"""Experiment logic of the edge-cloud figures (``optsched.edgecloud.experiments``).

Every expected value is recomputed here from the schedules and the checker
(or by hand), not copied from a run of the task functions.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.edgecloud import experiments as ex
from optsched.edgecloud.instance import Job
from optsched.edgecloud.online import AOnlineParams, sped_up
from tests.edgecloud.test_edgecloud_online import COMMON, tiny

P = optsched.get_paper("edgecloud")
#: a small instance of the figures' family where the edge is contended
TASK = {
    "seed": 3,
    "n_jobs": 6,
    "n_servers": 2,
    "n_slots": 30,
    "slot_hours": 8.0,
    "max_chunks": 3,
    "n_worker_types": 2,
    "n_ps_types": 2,
}


def _hand_instance():
    """Hand trace of test_edgecloud_online: one worker, jobs of 3 and 1 edge slots."""
    return tiny(
        Job(arrival=1, chunks=1, minibatches=2, epochs=3, delay=(1, 10), **COMMON),
        Job(arrival=2, chunks=1, minibatches=2, epochs=1, delay=(1, 10), **COMMON),
    )


def test_edge_load_and_until_done_by_hand():
    """Edge load = (3 + 1) worker-slots / (1 worker x 8 slots); T extended only when needed."""
    inst = _hand_instance()
    assert ex.edge_load(inst) == pytest.approx(4 / 8)
    assert ex.until_done(inst, 5) is inst
    longer = ex.until_done(inst, 12)
    assert longer.n_slots == 12
    assert dataclasses.replace(longer, n_slots=inst.n_slots) == inst


def test_jct_rate_rows_match_independent_checks():
    """Every row's JCT, rate, preemptions, makespan and cloud jobs, recomputed from a fresh run."""
    rows = ex.jct_rate(TASK)
    inst = P.generate(seed=TASK["seed"], **ex.instance_size(TASK))
    assert [r["scheme"] for r in rows] == list(ex.SCHEMES)
    srtf = next(r for r in rows if r["scheme"] == "srtf")
    assert srtf["jct_rate"] == 1.0
    for r in rows:
        sched = P.run(r["scheme"], inst)
        makespan = int(sched.runs[:, 2].max())
        roomy = dataclasses.replace(inst, n_slots=max(inst.n_slots, makespan) + 50)
        ev = P.check(roomy, sched)  # a longer T changes nothing for a finished job
        assert r["total_jct"] == ev.objective
        assert r["jct_rate"] == pytest.approx(ev.objective / srtf["total_jct"])
        assert r["preemptions"] == ev.n_preemptions
        assert r["makespan"] == makespan
        assert r["past_T"] == (makespan > inst.n_slots)
        in_cloud = {int(j) for j in sched.runs[sched.runs[:, 3] == inst.cloud, 0]}
        assert r["cloud_jobs"] == len(in_cloud)
        assert r["edge_load"] == pytest.approx(ex.edge_load(inst))
    assert next(r for r in rows if r["scheme"] == "batchsche")["preemptions"] == 0


def test_utilization_rows_count_the_schedule():
    """Per-slot utilization x edge workers = edge run rows; submissions sum to J."""
    task = {**TASK, "scheme": "a_online_e"}
    rows = pd.DataFrame(ex.utilization_over_time(task))
    inst = P.generate(seed=TASK["seed"], **ex.instance_size(TASK))
    sched = P.run("a_online_e", inst)
    edge = sched.runs[sched.runs[:, 3] != inst.cloud]
    busy = np.bincount(edge[:, 2], minlength=len(rows) + 1)[1:]
    W = sum(sum(s.workers) for s in inst.servers)
    np.testing.assert_allclose(rows["utilization"] * W, busy)
    assert rows["submissions"].sum() == inst.n_jobs
    assert rows["slot"].tolist() == list(range(1, len(rows) + 1))
    assert len(rows) == max(inst.n_slots, int(sched.runs[:, 2].max()))


def test_competitive_ratio_bounds_are_ordered():
    """LP <= ILP (4) zeta=1 <= OPT (2) (Lemma 1); ALG at eps = 0 >= OPT; Theorem 3 by formula."""
    task = {**TASK, "n_jobs": 3, "n_servers": 1, "eps": (0.0, 0.5)}
    task.update(time_limit=30.0, paper_time_limit=30.0)
    rows = ex.competitive_ratio(task)
    assert [r["eps"] for r in rows] == [0.0, 0.5]
    inst = P.generate(seed=TASK["seed"], **ex.instance_size(task))
    d_max = max(j.chunks for j in inst.jobs)
    for r in rows:
        assert r["opt_status"] == "optimal"  # 3 jobs on one server: proven in seconds
        assert r["lp_bound"] <= r["paper_bound"] + 1e-6
        assert r["paper_bound_lb"] <= r["paper_bound"] + 1e-6
        assert r["paper_bound"] <= r["opt_objective"] + 1e-6
        assert r["paper_ratio"] == pytest.approx(r["alg_objective"] / r["paper_bound"])
        assert r["ratio"] == pytest.approx(r["alg_objective"] / r["opt_objective"])
        assert r["d_max"] == d_max
        eps = r["eps"]
        t3 = math.inf if eps == 0 else 1 + 1 / eps
        assert r["theorem3_ilp4"] == t3 and r["theorem3_minlp"] == d_max * t3
        sched = P.run(
            "a_online", inst, params=AOnlineParams(speed=1 + eps) if eps else None
        )
        done = ex.until_done(inst, int(sched.runs[:, 2].max()))
        assert r["alg_objective"] == P.check(sped_up(done, 1 + eps), sched).objective
    assert rows[0]["ratio"] >= 1.0 - 1e-9  # speed 1 never beats the optimum
    assert rows[1]["alg_objective"] <= rows[0]["alg_objective"]


def test_claim_helpers_on_a_hand_table():
    """wins / trend / reduction on a table whose answers are read off by hand."""
    df = pd.DataFrame(
        [
            # x = 1: a 10, b 20, c 40; x = 2: a 30, b 20, c 60
            {"n_jobs": 1, "scheme": "a_online", "total_jct": 10.0, "jct_rate": 0.25},
            {"n_jobs": 1, "scheme": "a_online_e", "total_jct": 20.0, "jct_rate": 0.5},
            {"n_jobs": 1, "scheme": "srtf", "total_jct": 40.0, "jct_rate": 1.0},
            {"n_jobs": 2, "scheme": "a_online", "total_jct": 30.0, "jct_rate": 0.5},
            {"n_jobs": 2, "scheme": "a_online_e", "total_jct": 20.0, "jct_rate": 1 / 3},
            {"n_jobs": 2, "scheme": "srtf", "total_jct": 60.0, "jct_rate": 1.0},
        ]
    )
    assert ex.wins(df, "n_jobs", "a_online", ("a_online_e", "srtf")) == 0.5
    assert ex.wins(df, "n_jobs", "a_online_e", ("srtf",)) == 1.0
    assert ex.trend(df, "n_jobs", "a_online") == pytest.approx(0.25)
    red = ex.reduction(df, "n_jobs", "a_online", "srtf")
    assert red.tolist() == pytest.approx([0.75, 0.5])


def test_competitive_ratio_refuses_a_bound_above_a_checked_schedule(monkeypatch):
    """A 'lower bound' above the optimum's checked JCT (a Lemma 1 or solver bug) raises."""
    from optsched.core.errors import SolverError

    def too_high(inst, time_limit):
        return {
            "paper_bound": 1e9, "paper_bound_lb": 1e9, "paper_bound_status": "optimal",
            "lp_bound": 1e9, "paper_bound_runtime_s": 0.0,
        }  # fmt: skip

    monkeypatch.setattr(ex, "paper_bound", too_high)
    task = {**TASK, "n_jobs": 2, "n_servers": 1, "eps": (0.0,)}
    task.update(time_limit=30.0, paper_time_limit=30.0)
    with pytest.raises(SolverError, match="exceeds"):
        ex.competitive_ratio(task)
