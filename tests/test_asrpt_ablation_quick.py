"""``benchmarks/asrpt_ablation.py --quick`` and the Perfect-vs-RF mechanism.

The mechanism (docs/asrpt.md, "Diagnosis"): Alg. 1 lets a communication-
heavy job whose placement is split wait at most ``tau (g_i / G) n~_i
alpha~_i^min`` slots for a better one (lines 15-20) and otherwise starts it
split at the window's end.  The window grows with the *predicted*
iterations, so an over-predicted job waits long enough for a whole server
to come free, while the correctly predicted one starts split; at a low NIC
bandwidth a split placement is several times slower.  A-SRPT-Perfect can
therefore be worse than A-SRPT with an over-predicting random forest.
"""

import pandas as pd
import pytest

import optsched
from benchmarks import asrpt_ablation
from optsched.asrpt import (
    AsrptInstance,
    Cluster,
    Job,
    Stage,
    asrpt,
    asrpt_perfect,
    variants,
)
from optsched.asrpt.variants import VARIANTS, AblationParams, select_fewest

ablation = variants.asrpt_ablation


def test_quick_run_writes_checked_rows(tmp_path):
    out = tmp_path / "asrpt_ablation.csv"
    df = asrpt_ablation.main(out, quick=True)
    back = pd.read_csv(out)
    assert list(back.columns) == asrpt_ablation.COLUMNS and len(back) == len(df)
    assert back["checked"].all()
    assert set(back["section"]) == {"schemes", "ladder", "regimes", "fig8"}
    assert (back["objective"] > 0).all() and (back["ratio_spwf"] > 0).all()
    sch = back[back["section"] == "schemes"]
    names = [*optsched.get_paper("asrpt").algorithms, *VARIANTS]
    assert list(sch["scheme"]) == names
    assert sch.loc[sch["scheme"] == "spwf", "ratio_spwf"].item() == 1.0
    # the ladder's first row is Alg. 1 itself: the same objective as asrpt
    lad = back[back["section"] == "ladder"]
    assert lad["objective"].iloc[0] == pytest.approx(
        sch.loc[sch["scheme"] == "asrpt", "objective"].item(), rel=1e-12
    )
    assert {"gate", "order", "wait", "servers", "backfill", "predictor"} <= set(
        lad["component"]
    )
    # every baseline on the unbatched instance of each load, not on the batches
    reg = back[back["section"] == "regimes"]
    for config, d in reg.groupby("config"):
        extra = set(asrpt_ablation.REGIME_EXTRA) <= set(d["scheme"])
        assert extra == (config.startswith("load") and config.endswith("burst 1"))
    # --sections: only fig8 rerun; the other sections' rows are kept as they were
    again = asrpt_ablation.main(out, quick=True, sections=("fig8",))
    pd.testing.assert_frame_equal(
        again[again["section"] != "fig8"].drop(columns="runtime_s"),
        back[back["section"] != "fig8"].drop(columns="runtime_s"),
        check_dtype=False,
    )
    assert list(again["section"].unique()) == list(asrpt_ablation.SECTIONS)
    with pytest.raises(ValueError, match="sections"):
        asrpt_ablation.main(out, quick=True, sections=("nope",))
    with pytest.raises(FileNotFoundError):
        asrpt_ablation.main(tmp_path / "none.csv", quick=True, sections=("fig8",))


def test_select_fewest_by_hand():
    import numpy as np

    # a 1-GPU job goes to the fullest server with a free GPU (best fit)
    assert select_fewest(np.array([8, 1, 3]), 1) == [(1, 1)]
    # 10 GPUs: the 8-GPU server, then the smallest server that holds 2
    assert select_fewest(np.array([8, 1, 3, 2]), 10) == [(0, 8), (3, 2)]
    # 4 GPUs fit on one server: the one with 4 free, not the one with 8
    assert select_fewest(np.array([8, 4, 1]), 4) == [(1, 4)]


# ----------------------------------------------------------- the mechanism
# 2 servers x 4 GPUs (G = 8), B_inter = 1 MB/ms, B_intra = 1000 MB/ms, 1 s
# slots.  Every job is one data-parallel stage, pf + pb = 1000 ms:
#   A: k = 2, h = 0       alpha = 1000 ms anywhere (not communication-heavy)
#   B: k = 2, h = 1000 MB alpha = 1000 + 2 (1) 1000 / 2 / 1000 = 1001 ms on
#      one server; split 1 + 1: 1000 + 1000 * 4 / 1 = 5000 ms (heavy: 5 > 1.5)
#   C: k = 4, h = 1000 MB alpha = 1000 + 1500 / 1000 = 1001.5 ms on one
#      server; split 2 + 2: 1000 + 1500 * 4 / 1 = 7000 ms (heavy)
# Arrivals 0, 25, 31; iterations 100, 20, 10 (A and B predicted exactly).
# Virtual sizes (g/G) n~ alpha~/1000: A 25, B 5.005, C 5.0075 (n~ = 10) or
# 15.0225 (n~ = 30).  A~_1 completes A at 25, B at 30.005, C at 36.0075 or
# 46.0225, so A starts at 25 on server 0 (least available; runs to 125),
# B at 31 on server 1 (most available; ends 51.02, GPUs back at 52), and C
# joins the queue at 37 or 47 with servers [2, 2] free: split, 7000 ms.
# * n~_C = 10 (perfect): window 37 .. 37 + floor(5.0075) = 42, no release
#   before 42: C starts split at 42, ends 42 + 10 * 7 = 112.
#   Total 125 + 51.02 + 112 = 288.02.
# * n~_C = 30 (over-predicted 3x): window 47 .. 47 + 15 = 62; B's GPUs come
#   back at 52, server 1 has 4 free: 1001.5 < 7000, C starts whole at 52,
#   ends 52 + 10.015 = 62.015.  Total 125 + 51.02 + 62.015 = 238.035.
# * without the window (wait="none") C starts split at its entry: 37 + 70 =
#   107 (total 283.02) vs 47 + 70 = 117 (total 293.02): the over-prediction
#   then costs, so the window is what turns it into a gain.
CL = Cluster(2, 4, 1.0, 1000.0)
A = (Stage(2, 400.0, 600.0),)
B = (Stage(2, 400.0, 600.0, h=1000.0),)
C = (Stage(4, 400.0, 600.0, h=1000.0),)


def _inst(pred_c: float) -> AsrptInstance:
    jobs = (Job(0, 100, 100.0, A), Job(25, 20, 20.0, B), Job(31, 10, pred_c, C))
    return AsrptInstance(CL, jobs, slot=1.0)


def test_over_prediction_beats_perfect_through_the_window():
    p = optsched.get_paper("asrpt")
    over = _inst(30.0)
    s_over, s_perf = asrpt(over), asrpt_perfect(over)
    assert s_over.start == (25, 31, 52) and s_over.servers[2] == (1,)
    assert s_perf.start == (25, 31, 42) and s_perf.servers[2] == (0, 1)
    assert p.check(over, s_over).objective == pytest.approx(238.035, abs=1e-9)
    assert p.check(over, s_perf).objective == pytest.approx(288.02, abs=1e-9)
    # asrpt_perfect is asrpt with n~ = n
    exact = _inst(10.0)
    assert p.check(exact, asrpt(exact)).objective == pytest.approx(288.02, abs=1e-9)
    # without lines 15-20 the over-prediction only delays C (split either way)
    none = AblationParams(wait="none")
    assert p.check(over, ablation(over, params=none)).objective == pytest.approx(
        293.02, abs=1e-9
    )
    assert p.check(exact, ablation(exact, params=none)).objective == pytest.approx(
        283.02, abs=1e-9
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ablation_defaults_are_the_registered_algorithms(seed):
    from optsched.asrpt import asrpt_eager, generate, spwf

    inst = generate(seed, n_jobs=40, n_servers=2, gpus_per_server=4)
    for got, want in (
        (ablation(inst), asrpt(inst)),
        (ablation(inst, params=AblationParams(gate="arrival")), asrpt_eager(inst)),
        (variants.baseline_variant(inst, params=variants.BaselineParams(
            "workload", True, "most")), spwf(inst)),
    ):  # fmt: skip
        assert got.start == want.start and got.servers == want.servers
