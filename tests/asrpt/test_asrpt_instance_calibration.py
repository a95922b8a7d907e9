"""Synthetic jobs calibrated on the shipped trace (``generate(calibrate=...)``).

Both sides are computed here: the trace's marginals straight from
``read_trace`` (the usable jobs after the first half, the part the figures'
trace windows are cut from) and the generator's from its rows or instance.
"""

from __future__ import annotations

import numpy as np
import pytest

from optsched.asrpt.instance import (
    GAP_BLOCK,
    _calibrated_jobs,
    alpha_min_est,
    generate,
    quantile_map,
    trace_marginals,
)
from optsched.core.errors import InvalidInstanceError
from optsched.core.trace import read_trace, sample_path


@pytest.fixture(scope="module")
def trace_part():
    """Usable jobs of the shipped sample after its first half, read independently."""
    df = read_trace(sample_path())
    df = df[((df.gpus >= 1) | (df.gpu_milli > 0)) & (df.duration > 0)]
    df = df.reset_index(drop=True)
    return df.iloc[int(0.5 * len(df)) :].reset_index(drop=True)


def _ks(a, b) -> float:
    """Kolmogorov-Smirnov distance between the empirical CDFs of a and b."""
    a, b = np.sort(a), np.sort(b)
    x = np.union1d(a, b)
    fa = np.searchsorted(a, x, side="right") / len(a)
    fb = np.searchsorted(b, x, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def _lag1(gaps) -> float:
    lg = np.log1p(np.asarray(gaps, dtype=float))
    return float(np.corrcoef(lg[:-1], lg[1:])[0, 1])


def _durations(inst) -> np.ndarray:
    """Seconds each job runs at alpha~_min: n_i alpha~_i^min (ms) / 1000."""
    return inst.iterations * inst.alpha_min_est / 1000.0


def test_the_trace_side(trace_part):
    m = trace_marginals("sample", 0.5)
    assert len(m.gpus) == len(trace_part) == len(m.gaps) + 1
    np.testing.assert_array_equal(m.durations, trace_part.duration.to_numpy())
    np.testing.assert_array_equal(m.gaps, np.diff(trace_part.submit.to_numpy()))
    assert (m.gpus == trace_part.gpus.clip(lower=1).to_numpy()).all()


def test_the_default_synthetic_generator_matches_no_trace_marginal(trace_part):
    """Why calibration is needed: the uncalibrated generator's single-GPU
    share, median duration and arrival process are not the trace's."""
    inst = generate(0, n_jobs=2000, n_servers=250, gpus_per_server=8,
                    predictor="median", load=0.9)  # fmt: skip
    trace_single = float((trace_part.gpus.clip(lower=1) == 1).mean())
    assert trace_single > 0.98
    assert abs(float((inst.gpus == 1).mean()) - trace_single) > 0.3
    ratio = np.median(_durations(inst)) / trace_part.duration.median()
    assert ratio < 0.5  # about 150 s against the trace's 636 s
    # uniform arrivals: no burst structure; the trace's log gaps are correlated
    assert _lag1(np.diff(trace_part.submit)) > 0.15
    assert abs(_lag1(np.diff(inst.arrival) + 1.0)) < 0.05


def test_quantile_map_by_hand():
    # distinct values [1, 2, 3] with counts [1, 2, 1] of 4: mid-rank
    # probabilities 0.125, 0.5, 0.875; inverted-CDF quantiles of the target
    # [10, 20, 30, 40] (ECDF 0.25, 0.5, 0.75, 1): 10, 20, 40
    got = quantile_map(np.array([3.0, 1.0, 2.0, 2.0]), np.array([40.0, 10, 30, 20]))
    assert got.tolist() == [40.0, 10.0, 20.0, 20.0]
    # no ties: the target's empirical distribution, each value n / len(target) times
    out = quantile_map(np.random.default_rng(0).random(400), np.arange(4.0))
    assert np.bincount(out.astype(int)).tolist() == [100, 100, 100, 100]


def test_calibrated_rows_match_the_trace_marginals(trace_part):
    m = trace_marginals("sample", 0.5)
    n = 60_000
    rows = _calibrated_jobs(np.random.default_rng(1), n, n_groups=n // 25,
                            marginals=m, single_gpu_share=None, max_gpus=8,
                            repeat=0.6)  # fmt: skip
    # GPU counts: the trace's job-level shares within 4 standard errors
    tg = trace_part.gpus.clip(lower=1).to_numpy()
    for c in (1, 2, 4, 8):
        p = float((tg == c).mean())
        assert abs(float((rows.gpus == c).mean()) - p) <= 4 * np.sqrt(p * (1 - p) / n)
    assert (rows.groupby("group")["gpus"].nunique() == 1).all()
    # durations: values of the trace, KS distance at most half the largest
    # atom (a group repeating one duration) plus the two ECDF steps
    td = trace_part.duration.to_numpy()
    assert set(np.unique(rows.duration)) <= set(td)
    atom = rows.duration.value_counts(normalize=True).max()
    assert _ks(rows.duration, td) <= atom / 2 + 1 / len(td) + 1 / n
    for q in (0.1, 0.5, 0.9):
        got, want = np.quantile(rows.duration, q), np.quantile(td, q)
        assert abs(got / want - 1) < 0.25, q
    # gaps: circular blocks of GAP_BLOCK consecutive trace gaps
    tgaps = np.diff(trace_part.submit.to_numpy())
    ring = np.concatenate([tgaps, tgaps[:GAP_BLOCK]])
    for b in range(0, 20 * GAP_BLOCK, GAP_BLOCK):
        block = rows.gap.to_numpy()[b : b + GAP_BLOCK]
        starts = np.flatnonzero(tgaps == block[0])
        assert any((ring[s : s + GAP_BLOCK] == block).all() for s in starts)
    assert _ks(rows.gap, tgaps) < 0.05
    # the trace's short-range burstiness is kept (an i.i.d. resample has none)
    assert abs(_lag1(rows.gap) - _lag1(tgaps)) < 0.05


def test_generate_calibrated(trace_part):
    kw = dict(n_jobs=1500, gpus_per_server=8, calibrate="sample",
              train_share=0.5, predictor="median")  # fmt: skip
    inst = generate(4, n_servers=250, **kw)
    assert inst == generate(4, n_servers=250, **kw)
    assert inst.slot == 1.0 and inst.arrival[0] == 0
    # each job's duration is a trace duration (up to the rounding of n_i)
    td = np.unique(trace_part.duration.to_numpy())
    for j in inst.jobs[:300]:
        a = alpha_min_est(j.stages, inst.cluster)
        near = td[np.abs(td * 1000 / a - j.iterations).argmin()]
        assert j.iterations == max(1, round(near * 1000 / a))
    # one GPU count and one model per group (Sec. V-A-1-b mapping)
    seen: dict[str, tuple] = {}
    for j in inst.jobs:
        assert seen.setdefault(j.group, (j.gpus, j.model)) == (j.gpus, j.model)
    # arrivals per GPU as the trace's on calibrate_gpus GPUs: 16 of 2,000
    # here is 32 of 4,000 (same draws, same scale factor)
    twice = generate(4, n_servers=500, calibrate_gpus=32, **kw)
    assert twice.arrival.tolist() == inst.arrival.tolist()
    assert twice.iterations.tolist() == inst.iterations.tolist()
    span = inst.arrival[-1] * 2000 / 16
    mean_gap = np.diff(trace_part.submit.to_numpy()).mean()
    assert 0.5 < span / (1500 * mean_gap) < 2.0


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_calibrated_single_gpu_share(share):
    inst = generate(2, n_jobs=300, n_servers=8, gpus_per_server=8,
                    calibrate="sample", train_share=0.5, single_gpu_share=share)  # fmt: skip
    if share == 1.0:
        assert (inst.gpus == 1).all()
    else:
        assert set(inst.gpus.tolist()) <= {2, 4, 8}


def test_calibrate_is_for_the_synthetic_generator():
    with pytest.raises(InvalidInstanceError, match="calibrate"):
        generate(0, n_jobs=10, trace="sample", calibrate="sample")
    with pytest.raises(InvalidInstanceError, match="calibrate_gpus"):
        generate(0, n_jobs=10, calibrate="sample", calibrate_gpus=0)
