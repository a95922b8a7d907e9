"""Experiment logic of the A-SRPT figures (``optsched.asrpt.experiments``).

Expected values are recomputed from fresh runs, the checker, the bounds or
by hand, never copied from a run of the task functions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.asrpt import check, generate
from optsched.asrpt import experiments as ex
from optsched.asrpt.bounds import lower_bound, theorem1

P = optsched.get_paper("asrpt")
TASK = {**ex.TRACE, "n_jobs": 60, "seed": 1}


def test_total_time_rows_match_fresh_runs_and_the_checker():
    rows = ex.total_time({**TASK, "nic_gbps": 5})
    inst = generate(1, n_jobs=60, trace="sample", n_servers=2, gpus_per_server=8,
                    train_share=0.5, b_inter=5 / 8)  # fmt: skip
    lb = lower_bound(inst)["lower_bound"]
    assert [r["scheme"] for r in rows] == list(ex.SCHEMES)
    for r in rows:
        ev = check(inst, P.run(r["scheme"], inst))
        assert r["total"] == pytest.approx(ev.objective)
        assert r["flow_time"] == pytest.approx(ev.objective - inst.arrival.sum())
        assert r["lower_bound"] == pytest.approx(lb)
        assert r["ratio_hi"] >= 1.0  # the bound is certified
        assert r["nic_gbps"] == pytest.approx(5.0)
        assert r["theorem1"] == pytest.approx(theorem1(inst))
    err = np.abs(inst.iterations - inst.predicted)
    assert rows[0]["mean_abs_error"] == pytest.approx(err.mean())


def test_predictors_run_asrpt_only_and_perfect_is_labelled():
    rows = ex.total_time({**TASK, "predictors": ("rf", "mean")})
    extra = [r for r in rows if r["predictor"] == "mean"]
    assert [r["scheme"] for r in extra] == ["asrpt"]
    inst = generate(1, n_jobs=60, trace="sample", n_servers=2, gpus_per_server=8,
                    train_share=0.5, predictor="mean")  # fmt: skip
    assert extra[0]["total"] == pytest.approx(
        check(inst, optsched.asrpt.asrpt(inst)).objective
    )
    assert {r["predictor"] for r in rows if r["scheme"] == "asrpt_perfect"} == {
        "perfect"
    }


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_single_gpu_share_redraws_groups(share):
    inst = generate(2, n_jobs=80, trace="sample", n_servers=2, gpus_per_server=8,
                    train_share=0.5, single_gpu_share=share)  # fmt: skip
    if share == 1.0:
        assert (inst.gpus == 1).all()
    else:
        assert set(inst.gpus.tolist()) <= {2, 4, 8}


def test_reductions_by_hand():
    df = pd.DataFrame(
        {
            "x": [1, 1, 1, 1, 2, 2, 2],
            "scheme": ["asrpt", "asrpt", "spjf", "asrpt_perfect", "asrpt", "spjf",
                       "asrpt"],
            "predictor": ["rf", "mean", "rf", "perfect", "rf", "rf", "median"],
            "total": [50.0, 999.0, 100.0, 10.0, 30.0, 20.0, 999.0],
        }
    )  # fmt: skip
    red = ex.reductions(df, "x")
    assert list(red.columns) == ["spjf"]
    assert red.loc[1, "spjf"] == pytest.approx(0.5)
    assert red.loc[2, "spjf"] == pytest.approx(1 - 30 / 20)


def test_prediction_error_buckets():
    rows = ex.prediction_error({"source": "synthetic", "trace": None, "n_jobs": 40,
                                "n_servers": 4, "gpus_per_server": 8, "seed": 3})  # fmt: skip
    inst = generate(3, n_jobs=40, n_servers=4, gpus_per_server=8)
    assert len(rows) == 40
    for r, n, p in zip(rows, inst.iterations, inst.predicted, strict=True):
        assert r["iterations"] == n and r["predicted"] == p
        rel = abs(n - p) / n
        want = (
            "exact" if rel == 0 else "<10%" if rel <= 0.1 else "10-25%"
            if rel <= 0.25 else "25-50%" if rel <= 0.5 else "50-100%"
            if rel <= 1 else ">100%"
        )  # fmt: skip
        assert r["bucket"] == want


def test_placement_case_uses_the_cases_free_gpus():
    (row, *_) = ex.placement_case({"model": "VGG19", "gpus": 8, "case": 5})
    rng = np.random.default_rng(5)
    free = rng.integers(0, 9, size=8)
    while free.sum() < 8:  # redrawn from the same stream until the job fits
        free = rng.integers(0, 9, size=8)
    assert row["free"] == " ".join(map(str, free))


def test_fig6_grid_on_dask_gives_identical_csv(tmp_path):
    """Fig. 6's (quick) grid on a Dask LocalCluster writes the same CSV as local processes."""
    distributed = pytest.importorskip("dask.distributed")
    from optsched.core import experiment

    spec = experiment.specs()["fig6_total_time_jobs"]
    local = experiment.run(spec, quick=True, out=tmp_path / "local", workers=2,
                           progress=False, echo=False)  # fmt: skip
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        dask = experiment.run(spec, quick=True, out=tmp_path / "dask",
                              scheduler=client, progress=False, echo=False)  # fmt: skip
    cols = experiment.stable_columns(local.rows, spec.volatile)
    a = pd.read_csv(local.paths["fig6_total_time_jobs.csv"])[cols]
    b = pd.read_csv(dask.paths["fig6_total_time_jobs.csv"])[cols]
    assert a.to_csv(index=False) == b.to_csv(index=False)
