"""``benchmarks/hetero_throughput_sensitivity.py``: perturbations and the ``--quick`` run.

Known answers come from the throughput table as documented (docs/hetero.md,
"Throughput table") and from Fig. 9's GPU counts stated there and in
``paper_figures/hetero/fig9_normalized_jct.py`` (8/5/2 at K = 15, 15/12/3 at
K = 30), not from the script's output.
"""

import math

import pandas as pd
import pytest

import optsched
from benchmarks import hetero_throughput_sensitivity as sens
from optsched.hetero.experiments.common import make_instance
from optsched.hetero.instance import HeteroInstance

#: docs/hetero.md: the paper's entries (bold) and the P100 geometric means.
PAPER_TABLE = {("ResNet18", "T4"): 275.0, ("ResNet18", "V100"): 644.0,
               ("VGG19", "T4"): 884.0, ("VGG19", "V100"): 1754.0}  # fmt: skip
P100_GM = {"ResNet101": 388.0, "ResNet18": 421.0, "VGG19": 1245.0,
           "AlexNet": 9951.0, "Transformer": 1226.0}  # fmt: skip


def test_estimated_entries_are_the_documented_ones(monkeypatch):
    assert len(sens.ESTIMATED) == 11  # 3 models x (T4, V100) + 5 P100 values
    assert not set(sens.ESTIMATED) & set(PAPER_TABLE)
    assert set(sens.PAPER_ENTRIES) == set(PAPER_TABLE)
    for knob, entries in sens.KNOBS.items():
        assert entries and all(e in sens.ESTIMATED for e in entries), knob
    monkeypatch.setitem(sens.KNOBS, "bad", (("VGG19", "V100"),))
    with pytest.raises(ValueError, match="not an estimated entry"):
        sens.expand({"bad": 2.0})


def test_perturb_multiplies_only_the_chosen_entries():
    inst = make_instance("h115", 0, 4, 15)
    assert sens.perturb(inst, {}) == inst  # no factor: the same instance
    new = sens.perturb(inst, {"P100 column": 0.7, "AlexNet.V100": 1.3})
    assert isinstance(new, HeteroInstance)
    assert HeteroInstance.from_json(new.to_json()) == new
    for i, job in enumerate(inst.jobs):
        for k, w in enumerate(inst.workers):
            key, old = (job.name, w.gpu), inst.rho[i, k]
            if key in PAPER_TABLE:
                assert old == PAPER_TABLE[key] and new.rho[i, k] == old
            elif w.gpu == "P100":
                assert old == P100_GM[job.name]
                assert new.rho[i, k] == pytest.approx(0.7 * old, rel=1e-15)
            elif key == ("AlexNet", "V100"):
                assert new.rho[i, k] == pytest.approx(11959.0 * 1.3, rel=1e-15)
            else:
                assert new.rho[i, k] == old
    assert new.workers == inst.workers and new.jobs == inst.jobs


def test_counts_for_h_restates_the_generator():
    # Fig. 9's h115 counts (docs): 8/5/2 at K = 15, 15/12/3 at K = 30
    for K, counts in ((15, (8, 5, 2)), (30, (15, 12, 3))):
        inst = make_instance("h115", 0, 4, K)
        assert sens.counts_for_h(inst, {}, 1.15) == counts
        assert sens.with_counts(inst, {}, counts) == inst


def test_p100_bracket():
    models = ("ResNet18", "VGG19")
    assert sens.p100_between(models, {})
    # ResNet-18: 421 x 0.6 = 252.6 < T4's 275
    assert not sens.p100_between(models, {"ResNet18.P100": 0.6})
    # VGG-19: 1245 x 1.3 = 1618.5 <= 1754; AlexNet: 9951 x 1.3 > 11959
    assert sens.p100_between(models, {"P100 column": 1.3})
    assert not sens.p100_between(("AlexNet",), {"P100 column": 1.3})


def test_quick_run_writes_checked_proven_rows(tmp_path):
    out = tmp_path / "sens.csv"
    df = sens.main(out, quick=True)
    back = pd.read_csv(out)
    assert list(back.columns) == sens.COLUMNS and len(back) == len(df)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert back["checked"].all() and (back["opt_status"] == "optimal").all()
    assert {"baseline", "oat", "retarget", "mix111"} <= set(back["section"])
    ratios = back[["optimus", "optimus_lb", "has", "jps60"]]
    assert (ratios >= 1.0 - 1e-9).all().all()
    lb, has, jps = back["optimus_lb"], back["has"], back["jps60"]
    assert (
        back["margin"] - pd.concat([lb - has, lb - jps], axis=1).min(axis=1)
    ).abs().max() < 1e-12
    # a row regenerates: P100 column x 1.3 at K = 8, optimum by the registry
    row = back[
        (back["section"] == "oat") & (back["factors"] == "P100 column=1.3")
    ].iloc[0]
    p = optsched.get_paper("hetero")
    inst = sens.perturb(make_instance("h115", 0, 4, 8), {"P100 column": 1.3})
    opt = p.solve_offline(inst, time_limit=30.0, threads=1)
    assert opt.status == "optimal"
    assert opt.objective == pytest.approx(row["opt_objective"], rel=1e-9)
    has_jct = p.check(inst, p.run("has", inst)).objective
    assert has_jct / opt.objective == pytest.approx(row["has"], rel=1e-9)
    assert not math.isnan(row["margin"])
