"""The trace layer (``optsched.core.trace``): readers, the shipped sample, windows."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.core.trace import COLUMNS, read_trace, sample_path, window, windows

HAND = """name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
pod-b,8000,16384,1,500,,LS,Running,100,400,150
pod-a,88000,327680,8,1000,V100M32,Burstable,Succeeded,100,1000,100
pod-c,4000,2048,0,0,,BE,Pending,50,60,
"""


def _hand(tmp_path, text=HAND):
    p = tmp_path / "pods.csv"
    p.write_text(text)
    return p


def test_alibaba_reader_by_hand(tmp_path):
    """Sorted by submit then id; times, resources and the signature group by hand."""
    df = read_trace(_hand(tmp_path))
    assert list(df.columns) == COLUMNS
    assert df["job_id"].tolist() == ["pod-c", "pod-a", "pod-b"]
    c, a, b = (df.iloc[k] for k in range(3))
    assert (a["submit"], a["start"], a["duration"]) == (100.0, 100.0, 900.0)
    assert (b["submit"], b["start"], b["duration"]) == (100.0, 150.0, 250.0)
    assert math.isnan(c["start"]) and math.isnan(c["duration"])  # never scheduled
    assert (a["gpus"], a["gpu_milli"], a["cpus"], a["memory_gb"]) == (
        8,
        1000,
        88.0,
        320.0,
    )
    assert b["memory_gb"] == 16.0 and b["cpus"] == 8.0
    assert a["group"] == "8gpu/1000m/88000cpu/327680MiB/V100M32/Burstable"
    assert b["group"] == "1gpu/500m/8000cpu/16384MiB/any/LS"
    assert df["user"].isna().all()
    assert df["status"].tolist() == ["Pending", "Succeeded", "Running"]


def test_reader_errors_name_the_field(tmp_path):
    with pytest.raises(InvalidInstanceError, match="'qos' missing"):
        read_trace(_hand(tmp_path, HAND.replace(",qos,", ",qq,")))
    bad = HAND.replace("pod-b,8000,16384,1,500,,LS,Running,100,400,150",
                       "pod-b,8000,16384,1,500,,LS,Running,100,90,150")  # fmt: skip
    with pytest.raises(InvalidInstanceError, match="deletion_time of 'pod-b'"):
        read_trace(_hand(tmp_path, bad))
    neg = HAND.replace("pod-b,8000,16384,1,", "pod-b,8000,16384,-1,")
    with pytest.raises(InvalidInstanceError, match="num_gpu of 'pod-b'"):
        read_trace(_hand(tmp_path, neg))
    with pytest.raises(InvalidInstanceError, match="unknown trace format"):
        read_trace(_hand(tmp_path), fmt="philly")
    with pytest.raises(InvalidInstanceError, match="no trace file"):
        read_trace(tmp_path / "absent.csv")


def test_shipped_sample_is_the_published_file():
    """8,152 pods (the trace README's count); phases and GPU counts as published."""
    df = read_trace(sample_path())
    assert len(df) == 8152 and df["job_id"].is_unique
    assert df["submit"].is_monotonic_increasing
    raw = pd.read_csv(sample_path())
    assert (raw["pod_phase"] == "Pending").sum() == df["start"].isna().sum()
    assert set(df["gpus"]) <= {0, 1, 2, 4, 8}
    assert (df["duration"].dropna() >= 0).all()
    assert df["group"].nunique() < len(df)  # signatures recur
    with pytest.raises(InvalidInstanceError, match="no shipped trace sample"):
        sample_path("absent.csv")


def test_windows_are_consecutive_and_seeded():
    df = read_trace(sample_path())
    w = window(df, 75, start=10)
    assert w["job_id"].tolist() == df["job_id"].iloc[10:85].tolist()
    assert w["submit"].iloc[0] == 0.0
    assert (w["submit"] + df["submit"].iloc[10]).tolist() == df["submit"].iloc[
        10:85
    ].tolist()
    a, b = windows(df, 75, 3, seed=7), windows(df, 75, 3, seed=7)
    assert all(x.equals(y) for x, y in zip(a, b, strict=True))
    assert all(len(x) == 75 for x in a)
    with pytest.raises(InvalidInstanceError, match="n_jobs"):
        window(df, 0)
    with pytest.raises(InvalidInstanceError, match="start"):
        window(df, 10, start=len(df))
    with pytest.raises(InvalidInstanceError, match="n_windows"):
        windows(df, 10, 0, seed=0)
