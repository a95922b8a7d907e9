"""The competitive-ratio harness: definitions, determinism, certified intervals."""

import math

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.cli import main
from optsched.core.ratio import COLUMNS, ratio_bounds

SIZE = {"n_jobs": 5, "n_slots": 8, "n_worker_servers": 2, "n_ps_servers": 2}
TIMING = ["alg_runtime_s", "opt_runtime_s"]


def test_ratio_bounds_by_hand():
    """Max: OPT/ALG with [inc/ALG, bound/ALG]; min: ALG/OPT with [ALG/inc, ALG/bound]."""
    assert ratio_bounds("max", 50.0, 60.0, 60.0, "optimal") == (1.2, 1.2, 1.2)
    r, lo, hi = ratio_bounds("max", 50.0, 60.0, 75.0, "time_limit")
    assert math.isnan(r) and lo == pytest.approx(1.2) and hi == pytest.approx(1.5)
    r, lo, hi = ratio_bounds("min", 12.0, 10.0, 8.0, "time_limit")
    assert math.isnan(r) and lo == pytest.approx(1.2) and hi == pytest.approx(1.5)
    assert ratio_bounds("max", 0.0, 5.0, 5.0, "optimal")[0] == math.inf
    assert ratio_bounds("max", 0.0, 0.0, 0.0, "optimal")[0] == 1.0


def test_same_seed_same_table_serial_and_parallel():
    """The same seed gives an identical table, serially and on 2 processes."""
    a = optsched.ratios(
        "oasis", n_instances=3, seed=11, workers=1, progress=False, **SIZE
    )
    b = optsched.ratios(
        "oasis", n_instances=3, seed=11, workers=2, progress=False, **SIZE
    )
    assert list(a.columns) == COLUMNS + list(SIZE)
    pd.testing.assert_frame_equal(a.drop(columns=TIMING), b.drop(columns=TIMING))
    # OPT >= every algorithm's checked utility on proven instances (max problem)
    proven = a[a["opt_status"] == "optimal"]
    assert len(proven) == len(a)
    assert (proven["opt_objective"] >= proven["alg_objective"] - 1e-6).all()
    assert (proven["ratio"] >= 1 - 1e-9).all()
    # instance j is generate(seed + j): regenerate row 2 independently
    inst = optsched.get_paper("oasis").generate(seed=13, **SIZE)
    sched = optsched.get_paper("oasis").run("fifo", inst)
    row = a[(a["instance"] == 2) & (a["algorithm"] == "fifo")].iloc[0]
    assert (
        row["alg_objective"] == optsched.get_paper("oasis").check(inst, sched).objective
    )


def test_time_limit_gives_interval_not_point(capsys):
    """An unproven solve reports time_limit with incumbent and bound; the table shows [lo, hi]."""
    big = {"n_jobs": 40, "n_slots": 30, "n_worker_servers": 2, "n_ps_servers": 2}
    df = optsched.ratios(
        "oasis",
        n_instances=1,
        seed=0,
        algorithms=["oasis"],
        time_limit=0.5,
        workers=1,
        progress=False,
        **big,
    )
    row = df.iloc[0]
    assert row["opt_status"] == "time_limit"
    assert math.isnan(row["ratio"])
    assert row["opt_objective"] <= row["opt_bound"] + 1e-9
    assert row["ratio_lo"] <= row["ratio_hi"]
    assert np.isfinite(row["ratio_hi"])
    code = main(
        [
            "ratio",
            "oasis",
            "-n",
            "1",
            "--algorithms",
            "oasis",
            "--time-limit",
            "0.5",
            "--workers",
            "1",
            "--n-jobs",
            "40",
            "--n-slots",
            "30",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "time_limit" in out and "[" in out
