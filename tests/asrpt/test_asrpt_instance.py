"""Instances, profiles, predictors and the generator of the asrpt slice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optsched.asrpt import profiles
from optsched.asrpt.instance import (
    AsrptInstance,
    Job,
    alpha_max,
    alpha_min_est,
    generate,
)
from optsched.asrpt.predict import predict
from optsched.asrpt.timing import Cluster, Stage
from optsched.core.errors import InvalidInstanceError
from optsched.core.trace import read_trace, sample_path

C = Cluster(2, 2, 1.25, 300.0)
ST = (Stage(k=1, pf=10.0, pb=20.0),)


def test_table_one_models():
    # Table I: names, parameter counts and mini-batch sizes as printed
    printed = {
        "VGG19": ("144M", 32), "ResNet152": ("60M", 4), "Inception-V3": ("24M", 32),
        "BERT-large": ("340M", 4), "XLNet-large": ("550M", 4), "T5": ("11B", 8),
        "GPT-6.7B": ("6.7B", 32), "GPT-13B": ("13B", 32), "GPT-175B": ("175B", 16),
    }  # fmt: skip
    assert {m: (v.parameters, v.batch) for m, v in profiles.MODELS.items()} == printed
    # block tables add up to the published sizes (VGG19: 19.6 GMAC, 143.7 M)
    vgg = profiles.MODELS["VGG19"].blocks
    assert sum(b.gmac for b in vgg) == pytest.approx(19.6)
    assert sum(b.params for b in vgg) == pytest.approx(143.76)
    bert = profiles.MODELS["BERT-large"].blocks
    assert sum(b.params for b in bert) == pytest.approx(340.0)


def test_configurations():
    assert set(profiles.models_for(1)) == {
        "VGG19", "ResNet152", "Inception-V3", "BERT-large", "XLNet-large"
    }  # fmt: skip
    assert "GPT-175B" not in profiles.models_for(2)  # needs 3 stages
    for model in profiles.MODELS:
        for g in (1, 2, 3, 4, 8):
            for stages in profiles.configurations(model, g):
                assert sum(s.k for s in stages) == g
                # interfaces match: total data across a boundary is the same
                for a, b in zip(stages, stages[1:], strict=False):
                    assert a.k * a.d_out == pytest.approx(b.k * b.d_in)
                assert stages[0].d_in == 0 and stages[-1].d_out == 0
    one = profiles.configuration("VGG19", 1, 1)[0]
    # 32 images x 19.6 GMAC / 15 GMAC/ms forward, backward twice that
    assert one.pf == pytest.approx(32 * 19.6 / 15)
    assert one.pb == pytest.approx(2 * one.pf)
    with pytest.raises(InvalidInstanceError, match="n_stages"):
        profiles.configuration("GPT-175B", 4, 2)
    with pytest.raises(InvalidInstanceError, match="model"):
        profiles.configuration("AlexNet", 1, 1)


def test_alpha_min_and_max_by_hand():
    # two replicas, pure data parallel, h = 100 MB: on one server AllReduce
    # moves 2 (2-1) 100 / 2 = 100 MB over B_intra; spread, over B_inter / g
    st = (Stage(k=2, pf=1.0, pb=2.0, h=100.0),)
    assert alpha_min_est(st, C) == pytest.approx(3 + 100 / 300)
    assert alpha_max(st, C) == pytest.approx(3 + 100 * 2 / 1.25)


def test_json_round_trip_and_errors():
    inst = generate(3, n_jobs=5)
    again = AsrptInstance.from_json(inst.to_json())
    assert again == inst
    d = inst.to_dict()
    d["jobs"][1]["iterations"] = 0
    with pytest.raises(InvalidInstanceError, match=r"jobs\[1\]\.iterations"):
        AsrptInstance.from_dict(d)
    d = inst.to_dict()
    d["jobs"][0]["stages"][0]["k"] = -1
    with pytest.raises(InvalidInstanceError, match=r"jobs\[0\]\.stages\[0\]\.k"):
        AsrptInstance.from_dict(d)
    d = inst.to_dict()
    d["slot"] = 0
    with pytest.raises(InvalidInstanceError, match="slot"):
        AsrptInstance.from_dict(d)
    with pytest.raises(InvalidInstanceError, match="sorted by arrival"):
        AsrptInstance(C, (Job(3, 1, 1.0, ST), Job(1, 1, 1.0, ST)))
    big = (Stage(k=5, pf=1.0, pb=1.0),)
    with pytest.raises(InvalidInstanceError, match="g_i = 5"):
        AsrptInstance(C, (Job(0, 1, 1.0, big),))
    with pytest.raises(InvalidInstanceError, match="<json>"):
        AsrptInstance.from_json("{")


def test_generate_is_seeded_and_maps_groups_consistently():
    a, b = generate(7, n_jobs=8), generate(7, n_jobs=8)
    assert a == b
    assert generate(8, n_jobs=8) != a
    by_group: dict[str, tuple] = {}
    for j in a.jobs:
        assert by_group.setdefault(j.group, (j.model, j.stages)) == (j.model, j.stages)
        if j.gpus == 1:
            assert profiles.MODELS[j.model].single_gpu
    assert (a.arrival >= 0).all()


def test_predictors_by_hand():
    hist = pd.DataFrame(
        {"user": ["u", "u", "u", "v"], "group": ["a", "a", "a", "b"],
         "iterations": [10, 10, 40, 7]}
    )  # fmt: skip
    groups = ["a", "b", "new"]
    users = ["u", "v", "u"]
    assert predict(hist, users, groups, method="mean").tolist() == [20, 7, 0]
    assert predict(hist, users, groups, method="median").tolist() == [10, 7, 0]
    rf = predict(hist, users, groups, method="rf", seed=1)
    assert rf[2] == 0  # unseen group: 0 (Sec. IV-C-3)
    # bootstrap samples without group b mix it with a: within the data range
    assert 10 <= rf[0] <= 40 and 7 <= rf[1] <= 40
    assert predict(hist, users, groups, method="rf", seed=1).tolist() == rf.tolist()
    assert predict(hist, users, groups, method="perfect", truth=[1, 2, 3]).tolist() == [
        1,
        2,
        3,
    ]
    with pytest.raises(InvalidInstanceError, match="predictor"):
        predict(hist, users, groups, method="oracle")


def test_generate_from_the_shipped_trace():
    df = read_trace(sample_path())
    inst = generate(2, n_jobs=50, n_servers=4, gpus_per_server=8, trace=df)
    usable = df[((df.gpus >= 1) | (df.gpu_milli > 0)) & (df.duration > 0)]
    usable = usable.reset_index(drop=True)
    # the window is 50 consecutive usable jobs after the first 80%
    first = inst.meta["history"]
    assert first >= int(0.8 * len(usable))
    win = usable.iloc[first : first + 50]
    assert inst.arrival.tolist() == (
        np.floor(win.submit - win.submit.iloc[0]).astype(int).tolist()
    )
    # iterations = trace duration / alpha~_min of the group's configuration
    for j, dur in zip(inst.jobs, win.duration, strict=True):
        a = alpha_min_est(j.stages, inst.cluster)
        assert j.iterations == max(1, round(dur * 1000 / a))
        assert j.gpus == max(
            1, int(usable.loc[usable.group == j.group, "gpus"].iloc[0])
        )
    # 10% scaling of arrivals and iterations (the paper's testbed)
    small = generate(2, n_jobs=50, n_servers=4, gpus_per_server=8, trace=df, scale=0.1)
    assert small.arrival.tolist() == (
        np.floor((win.submit - win.submit.iloc[0]) * 0.1).astype(int).tolist()
    )
    with pytest.raises(InvalidInstanceError, match="n_jobs"):
        generate(0, n_jobs=10**6, trace=df)
