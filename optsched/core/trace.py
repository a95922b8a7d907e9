"""Real GPU-cluster job traces as one tidy table (paper-neutral).

Every reader turns one published trace format into the same table, one row
per job, sorted by submission time then job id:

=============  =========================================================
``job_id``     the trace's job (pod) name
``submit``     submission time, seconds from the trace's origin
``start``      time the cluster scheduled it (NaN if never scheduled)
``duration``   seconds from ``start`` to the end (NaN if never scheduled)
``gpus``       GPUs requested (whole GPUs)
``gpu_milli``  share of one GPU, in thousandths, for fractional requests
``cpus``       CPU cores requested
``memory_gb``  main memory requested, GB
``user``       submitting user (missing when the trace has none)
``group``      recurrence group: jobs the trace marks as "the same kind"
``status``     final state in the trace (e.g. ``Succeeded``, ``Failed``)
=============  =========================================================

Readers (:data:`READERS`, name -> function ``path -> DataFrame``):

* ``alibaba-gpu-v2023``: ``openb_pod_list_*.csv`` of alibaba/clusterdata,
  ``cluster-trace-gpu-v2023`` (Weng et al., USENIX ATC 2023).  It has no
  user or group column; ``group`` is the pod's *resource signature* (CPU,
  memory, GPUs, GPU share, GPU type, QoS), a substitute for the user/group
  recurrence features of the PAI 2020 trace (docs/errata.md).  ``submit``
  = ``creation_time``, ``start`` = ``scheduled_time``, ``duration`` =
  ``deletion_time - scheduled_time``.

A sample ships with the package (:func:`sample_path`); larger files are
read from any path.  :func:`window` and :func:`windows` cut consecutive jobs
out of a table, as the papers sample their traces.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InvalidInstanceError

COLUMNS = [
    "job_id", "submit", "start", "duration", "gpus", "gpu_milli", "cpus",
    "memory_gb", "user", "group", "status",
]  # fmt: skip

READERS: dict[str, Callable[[str | Path], pd.DataFrame]] = {}


def reader(name: str):
    """Register ``fn(path) -> tidy DataFrame`` as the reader of format ``name``."""

    def wrap(fn):
        READERS[name] = fn
        return fn

    return wrap


def _need(raw: pd.DataFrame, path: str | Path, cols: list[str]) -> None:
    missing = [c for c in cols if c not in raw.columns]
    if missing:
        raise InvalidInstanceError(
            f"{path}: column {missing[0]!r} missing (have {', '.join(map(str, raw.columns))})"
        )


def _tidy(df: pd.DataFrame) -> pd.DataFrame:
    df = df.sort_values(["submit", "job_id"], kind="stable").reset_index(drop=True)
    return df[COLUMNS]


@reader("alibaba-gpu-v2023")
def read_alibaba_gpu_v2023(path: str | Path) -> pd.DataFrame:
    """One ``openb_pod_list_*.csv`` file as the tidy table (module docstring)."""
    raw = pd.read_csv(path)
    cols = [
        "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
        "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time",
    ]  # fmt: skip
    _need(raw, path, cols)
    for c in ("creation_time", "deletion_time", "num_gpu", "cpu_milli"):
        bad = raw[c].isna() | (pd.to_numeric(raw[c], errors="coerce") < 0)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise InvalidInstanceError(
                f"{path}: {c} of {raw['name'].iloc[row]!r} must be a number >= 0, "
                f"got {raw[c].iloc[row]!r}"
            )
    start = raw["scheduled_time"].astype(float)
    duration = raw["deletion_time"].astype(float) - start
    if (duration < 0).any():
        row = int(np.flatnonzero((duration < 0).to_numpy())[0])
        raise InvalidInstanceError(
            f"{path}: deletion_time of {raw['name'].iloc[row]!r} precedes its "
            f"scheduled_time ({raw['deletion_time'].iloc[row]} < {start.iloc[row]})"
        )
    spec = raw["gpu_spec"].astype("string").fillna("any")
    group = (
        raw["num_gpu"].astype(str) + "gpu/" + raw["gpu_milli"].astype(str) + "m/"
        + raw["cpu_milli"].astype(str) + "cpu/" + raw["memory_mib"].astype(str)
        + "MiB/" + spec + "/" + raw["qos"].astype(str)
    )  # fmt: skip
    df = pd.DataFrame(
        {
            "job_id": raw["name"].astype(str),
            "submit": raw["creation_time"].astype(float),
            "start": start,
            "duration": duration,
            "gpus": raw["num_gpu"].astype(int),
            "gpu_milli": raw["gpu_milli"].astype(int),
            "cpus": raw["cpu_milli"] / 1000.0,
            "memory_gb": raw["memory_mib"] / 1024.0,
            "user": pd.Series(pd.NA, index=raw.index, dtype="string"),
            "group": group.astype(str),
            "status": raw["pod_phase"].astype(str),
        }
    )
    return _tidy(df)


def read_trace(path: str | Path, fmt: str = "alibaba-gpu-v2023") -> pd.DataFrame:
    """Read ``path`` with the reader of ``fmt`` (:data:`READERS`)."""
    try:
        fn = READERS[fmt]
    except KeyError:
        raise InvalidInstanceError(
            f"fmt: unknown trace format {fmt!r} (known: {', '.join(READERS)})"
        ) from None
    if not Path(path).is_file():
        raise InvalidInstanceError(f"path: no trace file at {str(path)!r}")
    return fn(path)


def sample_path(name: str = "alibaba_gpu_v2023_default.csv") -> Path:
    """Path of a trace sample shipped with optsched (``optsched/data``)."""
    p = Path(str(resources.files("optsched.data") / name))
    if not p.is_file():
        raise InvalidInstanceError(f"name: no shipped trace sample {name!r}")
    return p


def window(df: pd.DataFrame, n_jobs: int, start: int = 0) -> pd.DataFrame:
    """Jobs ``iloc[start : start + n_jobs]`` of ``df`` (submission order), times from 0.

    ``submit`` and ``start`` are shifted so the window's first submission
    is at 0.
    """
    if not 1 <= n_jobs <= len(df):
        raise InvalidInstanceError(f"n_jobs: must be in [1, {len(df)}], got {n_jobs!r}")
    if not 0 <= start <= len(df) - n_jobs:
        raise InvalidInstanceError(
            f"start: must be in [0, {len(df) - n_jobs}], got {start!r}"
        )
    out = df.iloc[start : start + n_jobs].copy()
    t0 = float(out["submit"].iloc[0])
    out["submit"] -= t0
    out["start"] -= t0
    return out.reset_index(drop=True)


def windows(
    df: pd.DataFrame, n_jobs: int, n_windows: int, seed: int
) -> list[pd.DataFrame]:
    """``n_windows`` windows of ``n_jobs`` consecutive jobs at seeded random offsets.

    Offsets are drawn by ``numpy.random.default_rng(seed)`` (with
    replacement); same seed, same windows.
    """
    if n_windows < 1:
        raise InvalidInstanceError(f"n_windows: must be >= 1, got {n_windows!r}")
    if not 1 <= n_jobs <= len(df):
        raise InvalidInstanceError(f"n_jobs: must be in [1, {len(df)}], got {n_jobs!r}")
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(df) - n_jobs + 1, size=n_windows)
    return [window(df, n_jobs, int(s)) for s in starts]
