"""``benchmarks/okita_cost_reading.py --quick`` and its summaries by hand."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from benchmarks import okita_cost_reading as bench
from optsched.okita import check, experiments, generate, okita


def test_quick_run_writes_checked_rows(tmp_path):
    out = tmp_path / "okita_cost_reading.csv"
    df = bench.main(out, quick=True)
    back = pd.read_csv(out)
    assert list(back.columns) == bench.COLUMNS and len(back) == len(df)
    # quick: factors_paper is the factors size, its runs are listed once there
    assert set(back["part"]) == {"scale", "functions", "factors", "t0"}
    assert set(back["cost"]) == {"exp", "sigmoid", "linear", "piecewise"}
    assert (back["total"] > 0).all()
    assert back["total"].to_numpy() == pytest.approx(
        (back["latency"] + back["bandwidth"]).to_numpy()
    )
    # one row recomputed from scratch: Okita, quick size, sigmoid t0 = 4, seed 0
    row = back[
        (back["part"] == "scale")
        & (back["cost"] == "sigmoid")
        & (back["n_sites"] == 4)
        & (back["n_jobs"] == 6)
        & (back["scheme"] == "okita")
    ].iloc[0]
    inst = generate(0, 4, 6, 30, cost="sigmoid")
    sched = okita(inst)
    ext = dataclasses.replace(inst, n_slots=max(30, sched.meta["makespan"]))
    assert row["total"] == pytest.approx(check(ext, sched).objective)
    # the t0 / amp variants change f only: tau e / (1 + e^{-0.25 (d - 4)})
    amp = bench.instance((4, 6, 30), "sigmoid", 0, 4.0, math.e)
    for a, b in zip(amp.jobs, inst.jobs, strict=True):
        assert a.cost.params == pytest.approx((math.e * b.cost.tau, 0.25, 4.0))
        assert dataclasses.replace(a, cost=b.cost) == b
    # the factors part runs the specs' settings on Okita alone
    fac = back[back["part"] == "factors"]
    assert set(fac["scheme"]) == {"okita"} and fac["setting"].nunique() == 12
    assert experiments.SIM_QUICK == bench.QUICK


def _table() -> pd.DataFrame:
    """One seed; Okita / FIFO / DRF / OASiS totals per cost (hand values)."""
    tot = {"exp": (10.0, 20.0, 40.0, 50.0), "linear": (30.0, 40.0, 60.0, 50.0)}
    return pd.DataFrame(
        [
            {"part": "scale", "n_sites": 2, "n_jobs": 3, "n_slots": 10, "cost": c,
             "t0": math.nan, "amp": math.nan, "seed": 0, "setting": math.nan,
             "scheme": s, "total": v[k], "latency": v[k] / 2, "past_T": k == 1}
            for c, v in tot.items()
            for k, s in enumerate(("okita", "fifo", "drf", "oasis"))
        ]
    )  # fmt: skip


def test_reductions_by_hand():
    red = bench.reductions(_table()).set_index("variant")
    # exp: 1 - 10/20, 1 - 10/40, 1 - 10/50; best benchmark FIFO
    assert red.loc[
        "exp", ["red_fifo", "red_drf", "red_oasis", "red_best"]
    ].tolist() == (pytest.approx([0.5, 0.75, 0.8, 0.5]))
    # linear: 1 - 30/40, 1 - 30/60, 1 - 30/50; best FIFO
    assert red.loc["linear", "red_best"] == pytest.approx(0.25)
    assert red.loc["exp", "lat_share"] == pytest.approx(0.5)
    assert red.loc["exp", "past_T"] == 1 and red.loc["exp", "runs"] == 4


def test_spreads_by_hand():
    alphas, betas = bench._settings()
    rows = [
        {"part": "factors", "cost": "sigmoid", "n_sites": 2, "n_jobs": 3,
         "scheme": "okita", "setting": s["setting"], "total": 100.0 + 10 * k}
        for k, s in enumerate(alphas)
    ]  # fmt: skip
    sp = bench.spreads(pd.DataFrame(rows))
    (r,) = sp.to_dict("records")
    # 100 .. 140 over the five ratios: (140 - 100) / 100
    assert r["factors"] == "alpha" and r["settings"] == 5
    assert r["spread"] == pytest.approx(0.4) and r["argmax"] == alphas[-1]["setting"]
