"""``benchmarks/oasis_fig3_diagnosis.py --quick`` and its pieces by hand.

Known answers are computed by hand (the ratio table of a made-up frame, the
bound ``ln(U/L) <= alpha`` of the capped prices), not copied from a run.
"""

import math

import numpy as np
import pandas as pd

import optsched
from benchmarks import oasis_fig3_diagnosis as diag
from optsched.oasis.online import OasisParams, price_params


def test_quick_run_writes_checked_rows(tmp_path):
    out = tmp_path / "diag.csv"
    df = diag.main(out, quick=True)
    back = pd.read_csv(out)
    assert list(back.columns) == diag.COLUMNS and len(back) == len(df)
    assert back["checked"].all() and (back["utility"] >= 0).all()
    assert set(back["section"]) == {"scale", "ablation"}
    knobs = set(back.loc[back["section"] == "ablation", "knob"])
    assert knobs == {
        "literal", "pricing", "job_mix", "gamma1", "tau", "load_axis",
        "fixed_workers",
    }  # fmt: skip
    # every configuration has OASiS and the three baselines per point x seed
    for _, g in back.groupby(["section", "knob", "value", "point", "seed"]):
        assert {"oasis", "fifo", "drf", "rrh"} <= set(g["role"])
    dorm = back[back["role"] == "dorm"]
    assert len(dorm) and (dorm["section"] == "scale").all()
    assert (dorm["solver_limit_hits"] <= dorm["dorm_solves"]).all()
    v = diag.verdicts(back)
    assert len(v) == back.groupby(["section", "knob", "value"]).ngroups


def test_capped_prices_bound_ul_and_keep_literal_when_loose():
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=0, n_jobs=6, n_slots=30, n_worker_servers=2, n_ps_servers=2)
    lit = price_params(inst)
    assert lit.log_ul > 10  # the literal L collapses at T = 30 already
    for alpha in (10.0, 5.0):
        pp = diag.capped_prices(inst, alpha)
        assert pp.log_ul <= alpha + 1e-9
        for lu, ll, d in ((pp.log_U1, pp.log_L1, pp.demanded1),
                          (pp.log_U2, pp.log_L2, pp.demanded2)):  # fmt: skip
            assert ll <= lu[d].min() + 1e-12  # prices still rise with usage
            assert np.all(lu[~d] == ll)
        assert pp.log_L1 >= lit.log_L1 and pp.log_L2 >= lit.log_L2
        assert np.array_equal(pp.log_U1[pp.demanded1], lit.log_U1[lit.demanded1])
    # a cap above the literal ln(U/L) changes nothing: the same schedule
    loose = diag.capped_prices(inst, lit.log_ul + 1.0)
    assert loose.log_L1 == lit.log_L1 and loose.log_L2 == lit.log_L2
    a = p.run("oasis", inst)
    b = p.run("oasis", inst, params=OasisParams(prices=loose))
    assert np.array_equal(a.workers, b.workers) and np.array_equal(a.ps, b.ps)


def test_verdicts_by_hand():
    # one configuration, two points; means over two seeds:
    # point 0 (load 0.5): OASiS (2 + 4) / 2 = 3, best baseline RRH 6 -> 0.5
    # point 1 (load 1.5): OASiS 9, best baseline DRF 6 -> 1.5; trend +1.0
    rows = []
    for point, load, util in ((0, 0.5, {"oasis": (2, 4), "fifo": (1, 1),
                                        "drf": (2, 2), "rrh": (6, 6)}),
                              (1, 1.5, {"oasis": (9, 9), "fifo": (0, 0),
                                        "drf": (5, 7), "rrh": (3, 3)})):  # fmt: skip
        for role, vals in util.items():
            for seed, u in enumerate(vals):
                rows.append({"section": "s", "knob": "k", "value": "v",
                             "point": point, "seed": seed, "role": role,
                             "utility": u, "load": load, "n_jobs": 10,
                             "n_worker_servers": 2})  # fmt: skip
    v = diag.verdicts(pd.DataFrame(rows)).iloc[0]
    assert v["ratios"] == "0.50 (rrh) / 1.50 (drf)"
    assert math.isclose(v["trend"], 1.0) and v["rising"] and not v["oasis_best"]
