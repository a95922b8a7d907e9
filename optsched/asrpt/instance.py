"""Instances of the A-SRPT problem (8) (Luo et al., Sec. III) and their generator.

An instance is a cluster (``M`` servers of ``g`` GPUs, bandwidths
``B_inter``, ``B_intra`` in MB/ms = GB/s), the slot length in seconds, and
jobs sorted by arrival.  A job has an arrival slot ``r_i``, true iterations
``n_i``, predicted iterations ``n~_i`` (0 for an unseen job), its stages
(``Stage``: replicas ``k``, times in ms, sizes in MB; ``g_i = sum k``), the
Table I model it came from, and the trace features the predictor uses
(``user``, ``group``).

Time: decisions are taken at whole slots (``t_i`` integer, (8)); a job
placed with per-iteration time ``alpha_i`` (ms) runs ``n_i alpha_i / (1000
slot)`` slots, so completion times are real numbers.  Objective (8) is
``sum_i (t_i + n_i alpha_i)`` in slots.

:func:`generate` draws instances either from a job trace
(:mod:`optsched.core.trace`; the shipped Alibaba v2023 sample by default
with ``trace="sample"``) or, with ``trace=None``, from the synthetic
generator below, which keeps the trace's recurrence structure; with
``calibrate`` the synthetic jobs follow a trace's GPU-count, duration and
submission-gap distributions (the paper-scale parts of Figs. 6-9).  Both
map jobs to models as Sec. V-A-1-b does (see :func:`generate`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd

from optsched.core.base import JsonMixin
from optsched.core.errors import InvalidInstanceError
from optsched.core.validate import (
    as_float,
    as_int,
    as_list,
    as_size,
    check_keys,
    require,
)

from . import profiles
from .heavy_edge import heavy_edge
from .predict import predict
from .timing import Cluster, Stage, alpha

FORMAT = "optsched.asrpt/1"

#: Sec. V-B-1-a: 10 Gbps NIC, 300 GB/s NVLink (MB/ms = GB/s).
B_INTER = 1.25
B_INTRA = 300.0

# Limits (docs/asrpt.md, "Limits").  Far above the sizes this slice runs
# (servers of 8 GPUs, at most the paper's 150,000 jobs); they refuse a typo
# such as ``n_servers = 1e9`` before anything is allocated.
#: Most jobs (the paper's Fig. 6 runs 150,000).
MAX_JOBS = 1_000_000
#: Most servers ``M`` (the simulator keeps per-server arrays).
MAX_SERVERS = 10_000
#: Most GPUs ``g`` of one server (placements are ``(stages, servers)`` arrays
#: and Heavy-Edge enumerates a job's GPUs).
MAX_GPUS = 1_024
#: Largest arrival slot ``r_i`` and iteration count ``n_i`` (and ``n~_i``):
#: below 2**53, so every value is exact as a float in ``t_i + n_i alpha_i``.
MAX_SLOT = 10**12
MAX_ITERATIONS = 10**12
#: Range of the stage times and sizes (``pf``, ``pb`` ms; ``d_in``, ``d_out``,
#: ``h`` MB): at most MAX_STAGE_VALUE; and of the bandwidths (MB/ms): at least
#: MIN_BANDWIDTH.  Together they keep ``alpha_i`` (Eq. (7)) and ``n_i
#: alpha_i`` finite; extreme finite floats (``b_inter = 5e-324``) otherwise
#: divide by an underflowed zero.
MAX_STAGE_VALUE = 1e12
MIN_BANDWIDTH = 1e-9
#: Shortest slot (seconds): durations ``n_i alpha_i / (1000 slot)`` stay finite.
MIN_SLOT_SECONDS = 1e-6
#: Fields of the JSON form (``to_dict``): top level, cluster, job, stage.
FIELDS = ("format", "cluster", "slot", "jobs")
CLUSTER_FIELDS = ("n_servers", "gpus", "b_inter", "b_intra")
JOB_FIELDS = ("arrival", "iterations", "predicted", "model", "user", "group", "stages")
STAGE_FIELDS = ("k", "pf", "pb", "d_in", "d_out", "h")


def check_sizes(
    n_jobs: int, n_servers: int, gpus: int, *, instance: bool = False
) -> None:
    """Refuse sizes above the documented limits, before anything is allocated.

    ``n_jobs <= MAX_JOBS``, ``n_servers <= MAX_SERVERS``, ``gpus <= MAX_GPUS``
    (per server); the cluster then has at most about 10**7 GPUs.  Messages
    name the instance fields (``cluster.gpus``) when ``instance`` is true,
    else ``generate``'s keywords (``gpus_per_server``).
    """
    names = (
        ("jobs (number of jobs)", "cluster.n_servers", "cluster.gpus")
        if instance
        else ("n_jobs", "n_servers", "gpus_per_server")
    )
    as_size(n_jobs, names[0], MAX_JOBS, why="MAX_JOBS")
    as_size(n_servers, names[1], MAX_SERVERS, lo=1, why="MAX_SERVERS")
    as_size(gpus, names[2], MAX_GPUS, lo=1, why="MAX_GPUS")


@dataclass(frozen=True)
class Job:
    """One DDLwMP job (see module doc)."""

    arrival: int
    iterations: int
    predicted: float
    stages: tuple[Stage, ...]
    model: str = ""
    user: str = ""
    group: str = ""

    @property
    def gpus(self) -> int:
        """``g_i = sum_s k_{i,s}``."""
        return sum(st.k for st in self.stages)

    def to_dict(self) -> dict[str, Any]:
        return {
            "arrival": self.arrival,
            "iterations": self.iterations,
            "predicted": self.predicted,
            "model": self.model,
            "user": self.user,
            "group": self.group,
            "stages": [
                {"k": s.k, "pf": s.pf, "pb": s.pb, "d_in": s.d_in,
                 "d_out": s.d_out, "h": s.h}
                for s in self.stages
            ],
        }  # fmt: skip


def min_servers_free(gpus: int, g: int) -> list[int]:
    """GPUs per server when ``gpus`` are packed on the fewest servers (Sec. IV-B)."""
    full, rest = divmod(gpus, g)
    return [g] * full + ([rest] if rest else [])


def alpha_min_est(stages: tuple[Stage, ...], cluster: Cluster) -> float:
    """``alpha~_i^min``: Heavy-Edge on the fewest servers, Eq. (7) (Sec. IV-B)."""
    free = min_servers_free(sum(s.k for s in stages), cluster.gpus)
    sub = Cluster(len(free), cluster.gpus, cluster.b_inter, cluster.b_intra)
    return alpha(stages, heavy_edge(stages, free), sub)


def alpha_max(stages: tuple[Stage, ...], cluster: Cluster) -> float:
    """``alpha_i^max``: one replica per server, ``g_i`` servers, Eq. (7) (Sec. III-B)."""
    gi = sum(s.k for s in stages)
    x = np.zeros((len(stages), gi), dtype=np.int64)
    col = 0
    for s, st in enumerate(stages):
        x[s, col : col + st.k] = 1
        col += st.k
    sub = Cluster(gi, cluster.gpus, cluster.b_inter, cluster.b_intra)
    return alpha(stages, x, sub)


def _check_job(job: Job, p: str, cluster: Cluster) -> None:
    as_int(job.arrival, f"{p}.arrival (r_i)", lo=0, hi=MAX_SLOT)
    as_int(job.iterations, f"{p}.iterations (n_i)", lo=1, hi=MAX_ITERATIONS)
    as_float(job.predicted, f"{p}.predicted (n~_i)", lo=0.0, hi=MAX_ITERATIONS)
    if not isinstance(job.stages, tuple) or not job.stages:
        raise InvalidInstanceError(f"{p}.stages: need at least one stage")
    for s, st in enumerate(job.stages):
        if not isinstance(st, Stage):
            raise InvalidInstanceError(f"{p}.stages[{s}]: not a Stage, got {st!r}")
        for name in ("pf", "pb", "d_in", "d_out", "h"):
            as_float(getattr(st, name), f"{p}.stages[{s}].{name}", hi=MAX_STAGE_VALUE)
    for name in ("model", "user", "group"):
        if not isinstance(getattr(job, name), str):
            raise InvalidInstanceError(f"{p}.{name}: must be a string")
    cap = cluster.n_servers * cluster.gpus
    if job.gpus > cap:
        raise InvalidInstanceError(
            f"{p}.stages: the job needs g_i = {job.gpus} GPUs, the cluster has {cap}"
        )


@dataclass(frozen=True)
class AsrptInstance(JsonMixin):
    """Cluster, slot length (s) and the job sequence (sorted by arrival)."""

    FORMAT: ClassVar[str] = FORMAT  # JSON format tag (JsonMixin)

    cluster: Cluster
    jobs: tuple[Job, ...]
    slot: float = 1.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cluster, Cluster):
            raise InvalidInstanceError(f"cluster: not a Cluster, got {self.cluster!r}")
        for name in ("b_inter", "b_intra"):
            as_float(
                getattr(self.cluster, name),
                f"cluster.{name} (MB/ms)",
                lo=MIN_BANDWIDTH,
            )
        as_float(self.slot, "slot (seconds)", lo=MIN_SLOT_SECONDS)
        if not isinstance(self.jobs, tuple):
            raise InvalidInstanceError("jobs: must be a tuple of Job")
        check_sizes(
            len(self.jobs), self.cluster.n_servers, self.cluster.gpus, instance=True
        )
        for i, job in enumerate(self.jobs):
            if not isinstance(job, Job):
                raise InvalidInstanceError(f"jobs[{i}]: not a Job, got {job!r}")
            _check_job(job, f"jobs[{i}]", self.cluster)
        arr = [j.arrival for j in self.jobs]
        if arr != sorted(arr):
            raise InvalidInstanceError(
                f"jobs: must be sorted by arrival (online order), got {arr[:20]}"
            )

    # ----------------------------------------------------------------- sizes
    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def total_gpus(self) -> int:
        """``G = M g``."""
        return self.cluster.n_servers * self.cluster.gpus

    @cached_property
    def gpus(self) -> np.ndarray:
        """``g_i`` per job."""
        return np.array([j.gpus for j in self.jobs], dtype=np.int64)

    @cached_property
    def arrival(self) -> np.ndarray:
        return np.array([j.arrival for j in self.jobs], dtype=np.int64)

    @cached_property
    def iterations(self) -> np.ndarray:
        return np.array([j.iterations for j in self.jobs], dtype=float)

    @cached_property
    def predicted(self) -> np.ndarray:
        return np.array([j.predicted for j in self.jobs], dtype=float)

    def _per_config(self, fn: Any) -> np.ndarray:
        """``fn(stages, cluster)`` per job, computed once per distinct configuration."""
        memo: dict[tuple[Stage, ...], float] = {}
        for j in self.jobs:
            if j.stages not in memo:
                memo[j.stages] = fn(j.stages, self.cluster)
        return np.array([memo[j.stages] for j in self.jobs])

    @cached_property
    def alpha_min_est(self) -> np.ndarray:
        """``alpha~_i^min`` (ms) per job."""
        return self._per_config(alpha_min_est)

    @cached_property
    def alpha_max(self) -> np.ndarray:
        """``alpha_i^max`` (ms) per job."""
        return self._per_config(alpha_max)

    def slots(self, iterations: Any, alpha_ms: Any) -> Any:
        """Duration in slots of ``iterations`` at ``alpha_ms`` ms each."""
        return np.asarray(iterations) * np.asarray(alpha_ms) / (1000.0 * self.slot)

    def with_predictions(self, predicted: Any, **meta: Any) -> AsrptInstance:
        """A copy whose ``n~_i`` are ``predicted`` (e.g. another predictor, Fig. 9)."""
        pred = [float(p) for p in predicted]
        if len(pred) != self.n_jobs:
            raise InvalidInstanceError(
                f"predicted: need {self.n_jobs} values, got {len(pred)}"
            )
        jobs = tuple(
            Job(j.arrival, j.iterations, p, j.stages, j.model, j.user, j.group)
            for j, p in zip(self.jobs, pred, strict=True)
        )
        return AsrptInstance(self.cluster, jobs, self.slot, {**self.meta, **meta})

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        c = self.cluster
        return {
            "format": FORMAT,
            "cluster": {"n_servers": c.n_servers, "gpus": c.gpus,
                        "b_inter": c.b_inter, "b_intra": c.b_intra},
            "slot": self.slot,
            "jobs": [j.to_dict() for j in self.jobs],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AsrptInstance:
        """Build and validate an instance from :meth:`to_dict` output.

        Unknown fields (top level, in the cluster, a job or a stage) are
        refused, naming the field.
        """
        check_keys(data, FIELDS)
        cls.check_format(data)
        c = check_keys(require(data, "cluster"), CLUSTER_FIELDS, "cluster")
        raw_jobs = as_list(require(data, "jobs"), "jobs")
        check_sizes(
            len(raw_jobs),
            require(c, "n_servers", "cluster"),
            require(c, "gpus", "cluster"),
            instance=True,
        )
        cluster = Cluster(
            n_servers=require(c, "n_servers", "cluster"),
            gpus=require(c, "gpus", "cluster"),
            b_inter=require(c, "b_inter", "cluster"),
            b_intra=require(c, "b_intra", "cluster"),
        )
        jobs = []
        for i, d in enumerate(raw_jobs):
            p = f"jobs[{i}]"
            check_keys(d, JOB_FIELDS, p)
            stages = []
            for s, sd in enumerate(as_list(require(d, "stages", p), f"{p}.stages")):
                q = f"{p}.stages[{s}]"
                check_keys(sd, STAGE_FIELDS, q)
                try:
                    stages.append(Stage(**{k: require(sd, k, q) for k in
                                           ("k", "pf", "pb", "d_in", "d_out", "h")}))  # fmt: skip
                except InvalidInstanceError as exc:
                    raise InvalidInstanceError(f"{q}.{exc}") from None
            jobs.append(
                Job(
                    arrival=require(d, "arrival", p),
                    iterations=require(d, "iterations", p),
                    predicted=require(d, "predicted", p),
                    stages=tuple(stages),
                    model=d.get("model", ""),
                    user=d.get("user", ""),
                    group=d.get("group", ""),
                )
            )
        return cls(cluster, tuple(jobs), slot=require(data, "slot"))


# --------------------------------------------------------------------- generator
def _assign_models(
    groups: pd.DataFrame, rng: np.random.Generator, gpus_per_server: int, n_servers: int
) -> dict[str, tuple[str, tuple[Stage, ...]]]:
    """Sec. V-A-1-b: group -> (model, configuration) matching the group's GPU count."""
    out = {}
    for name, g in zip(groups["group"], groups["gpus"], strict=True):
        g = int(min(g, gpus_per_server * n_servers))
        models = profiles.models_for(g)
        model = models[int(rng.integers(len(models)))]
        configs = profiles.configurations(model, g)
        out[name] = (model, configs[int(rng.integers(len(configs)))])
    return out


def _synthetic_jobs(
    rng: np.random.Generator,
    n: int,
    *,
    n_groups: int,
    single_gpu_share: float,
    max_gpus: int,
    duration: float,
    repeat: float,
) -> pd.DataFrame:
    """Synthetic trace rows (``user``, ``group``, ``gpus``, ``duration`` in slots)."""
    weights = 1.0 / np.arange(1, n_groups + 1)  # Zipf: a few groups recur a lot
    weights /= weights.sum()
    choices = [c for c in (2, 4, 8) if c <= max_gpus] or [1]
    g_gpus = np.where(
        rng.random(n_groups) < single_gpu_share,
        1,
        rng.choice(choices, size=n_groups),
    )
    g_base = np.maximum(1.0, rng.lognormal(np.log(duration), 0.6, size=n_groups))
    g_user = rng.integers(0, max(1, n_groups // 2), size=n_groups)
    grp = rng.choice(n_groups, size=n, p=weights)
    exact = rng.random(n_groups) < repeat  # a group that repeats one duration
    noise = np.where(exact[grp], 1.0, rng.lognormal(0.0, 0.5, size=n))
    return pd.DataFrame(
        {
            "user": [f"u{g_user[k]}" for k in grp],
            "group": [f"g{k}" for k in grp],
            "gpus": g_gpus[grp],
            "duration": g_base[grp] * noise,
        }
    )


# ------------------------------------------------- synthetic jobs calibrated on a trace
#: Gaps per block of the calibrated arrivals' circular block bootstrap: keeps
#: the trace's short-range burstiness (the shipped sample's log gaps have a
#: lag-1 autocorrelation of about 0.2; an i.i.d. resample has none).
GAP_BLOCK = 64


@dataclass(frozen=True)
class Marginals:
    """The marginals of a trace that calibrated synthetic jobs follow.

    Attributes
    ----------
    gpus
        GPUs per job (a fractional GPU counts as one), in trace order.
    durations
        Run time per job (seconds), in trace order.
    gaps
        Gaps between consecutive submissions (seconds), in trace order.
    """

    gpus: np.ndarray
    durations: np.ndarray
    gaps: np.ndarray


def usable_jobs(trace: str | Path | pd.DataFrame = "sample") -> pd.DataFrame:
    """The trace's scheduled GPU jobs (``gpus >= 1`` or a GPU fraction, duration > 0).

    ``trace`` is a path, ``"sample"`` (the shipped Alibaba v2023 sample:
    6,203 usable jobs) or a table from :func:`optsched.core.trace.read_trace`.
    """
    from optsched.core.trace import read_trace, sample_path

    if isinstance(trace, pd.DataFrame):
        df = trace
    else:
        df = read_trace(sample_path() if str(trace) == "sample" else trace)
    df = df[(df["gpus"] >= 1) | (df["gpu_milli"] > 0)]
    return df[df["duration"].notna() & (df["duration"] > 0)].reset_index(drop=True)


def trace_marginals(
    trace: str | Path | pd.DataFrame = "sample", train_share: float = 0.8
) -> Marginals:
    """GPU counts, durations and submission gaps of the usable jobs after the
    first ``train_share`` of ``trace`` (the part its windows are cut from)."""
    df = usable_jobs(trace)
    part = df.iloc[math.floor(train_share * len(df)) :]
    if len(part) < 2:
        raise InvalidInstanceError(
            f"calibrate: the trace has {len(part)} usable jobs after its first "
            f"{train_share:.0%}, need at least 2"
        )
    return Marginals(
        gpus=part["gpus"].clip(lower=1).to_numpy().astype(np.int64),
        durations=part["duration"].to_numpy(dtype=float),
        gaps=np.diff(part["submit"].to_numpy(dtype=float)),
    )


def quantile_map(values: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Map ``values`` monotonically onto the empirical distribution of ``target``.

    Each distinct value goes to the ``target`` quantile (``inverted_cdf``:
    a value of ``target``) at its mid-rank probability ``(rank - count / 2)
    / n``: without ties the result has ``target``'s empirical distribution
    (each value about ``n / len(target)`` times); equal values stay equal
    (a group's exact repeats), so a tie of share ``m`` becomes one atom and
    moves the ECDF by at most ``m / 2`` from ``target``'s.  Order is kept.
    """
    uniq, inv, cnt = np.unique(values, return_inverse=True, return_counts=True)
    mid = (np.cumsum(cnt) - cnt / 2) / len(values)
    return np.quantile(np.asarray(target, dtype=float), mid, method="inverted_cdf")[inv]


def block_bootstrap(
    seq: np.ndarray, n: int, block: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` values of ``seq`` as circular blocks of ``block`` consecutive values
    starting at uniform offsets (the last block cut)."""
    seq = np.asarray(seq)
    starts = rng.integers(0, len(seq), size=-(-n // block))
    idx = (starts[:, None] + np.arange(block)) % len(seq)
    return seq[idx.ravel()[:n]]


def _calibrated_jobs(
    rng: np.random.Generator,
    n: int,
    *,
    n_groups: int,
    marginals: Marginals,
    single_gpu_share: float | None,
    max_gpus: int,
    repeat: float,
) -> pd.DataFrame:
    """Synthetic trace rows calibrated on ``marginals`` (``generate(calibrate=...)``).

    The recurrence of :func:`_synthetic_jobs` (Zipf groups, a group repeats
    one duration exactly with probability ``repeat``, else lognormal noise
    around its base); durations then mapped onto the trace's empirical
    distribution (:func:`quantile_map`); GPUs per job drawn from the trace's
    job-level distribution (or single with probability ``single_gpu_share``,
    else 2, 4 or 8 at most ``max_gpus``), the group being (latent group,
    GPUs) so that a group keeps one GPU count, as the trace's resource-
    signature groups do; gaps between submissions a block bootstrap of the
    trace's (:data:`GAP_BLOCK`).  Columns ``user``, ``group``, ``gpus``,
    ``duration`` (s), ``gap`` (s, unscaled; the first is not used).
    """
    weights = 1.0 / np.arange(1, n_groups + 1)  # Zipf, as _synthetic_jobs
    weights /= weights.sum()
    g_base = rng.lognormal(0.0, 0.6, size=n_groups)  # only the ranks matter
    g_user = rng.integers(0, max(1, n_groups // 2), size=n_groups)
    grp = rng.choice(n_groups, size=n, p=weights)
    exact = rng.random(n_groups) < repeat
    noise = np.where(exact[grp], 1.0, rng.lognormal(0.0, 0.5, size=n))
    duration = quantile_map(g_base[grp] * noise, marginals.durations)
    if single_gpu_share is None:
        gpus = rng.choice(marginals.gpus, size=n)
    else:  # Fig. 7: "jobs randomly set for single-GPU or distributed training"
        choices = np.array([c for c in (2, 4, 8) if c <= max_gpus] or [1])
        gpus = np.where(
            rng.random(n) < single_gpu_share, 1, rng.choice(choices, size=n)
        )
    gaps = block_bootstrap(marginals.gaps, n, GAP_BLOCK, rng)
    return pd.DataFrame(
        {
            "user": [f"u{g_user[k]}" for k in grp],
            "group": [f"g{k}-{c}" for k, c in zip(grp, gpus, strict=True)],
            "gpus": gpus,
            "duration": duration,
            "gap": gaps,
        }
    )


def generate(
    seed: int = 0,
    n_jobs: int = 4,
    n_servers: int = 2,
    gpus_per_server: int = 8,
    *,
    trace: str | Path | pd.DataFrame | None = None,
    predictor: str = "rf",
    load: float = 1.5,
    slot: float | None = None,
    scale: float = 1.0,
    b_inter: float = B_INTER,
    b_intra: float = B_INTRA,
    single_gpu_share: float | None = None,
    duration: float = 3.0,
    train_share: float = 0.8,
    calibrate: str | Path | pd.DataFrame | None = None,
    calibrate_gpus: int = 16,
) -> AsrptInstance:
    """Draw an instance (seeded; same arguments, same instance).

    Sec. V-A-1-b's mapping: every recurrence group is assigned a model and a
    configuration with the group's GPU count -- a single-GPU group one of
    the five single-GPU models, a multi-GPU group a random model with a
    configuration on that many GPUs (:mod:`~optsched.asrpt.profiles`) --
    and a job's iterations are its duration divided by ``alpha~_min`` of
    its configuration (at least 1).  The predictor (``rf``, ``mean``,
    ``median``, ``perfect``; :mod:`~optsched.asrpt.predict`) is fitted on
    the jobs before the window (the paper's first 80%).

    ``trace=None`` (synthetic): ``5 n_jobs`` jobs of ``max(2, n_jobs // 5)``
    groups (Zipf frequencies), a group single-GPU with probability
    ``single_gpu_share`` (default 0.5, so that tiny instances are contended;
    the paper's trace has over 70%), else 2, 4 or 8 GPUs (at most a server);
    a group's base duration is lognormal with median ``duration`` slots;
    with probability 0.6 a group repeats it exactly in every job (the paper:
    about 60% of the jobs predicted exactly), else its jobs multiply it by
    lognormal noise.  The first
    ``4 n_jobs`` jobs are history, the last ``n_jobs`` the instance;
    arrivals are uniform with a rate that offers ``load`` times the
    cluster's GPU-slots; ``slot`` defaults to 60 s.

    ``trace`` = a path, ``"sample"`` or a table from
    :func:`optsched.core.trace.read_trace`: scheduled GPU jobs (``gpus >=
    1``; a fractional GPU counts as one; ``gpus`` capped at the cluster);
    the window is ``n_jobs`` consecutive jobs starting at a seeded offset
    after the first ``train_share`` of the trace (history = all jobs before
    it); arrivals are seconds since the window's first job times ``scale``
    (the paper's testbed: 10%) over ``slot`` (default 1 s), iterations
    ``scale`` times the trace's.  ``load`` and ``duration`` are ignored.
    With ``single_gpu_share`` given (Fig. 7: "jobs randomly set for
    single-GPU or distributed training"), every recurrence group is drawn
    anew: single-GPU with that probability, else 2, 4 or 8 GPUs (at most a
    server); per group rather than per job, so that a group keeps one model
    and its recurrence (docs/asrpt.md).

    ``trace=None`` with ``calibrate`` = a trace (path, ``"sample"`` or a
    table; docs/asrpt.md, "Paper scale"): synthetic jobs whose marginals are
    the trace's, taken from its usable jobs after the first ``train_share``
    (:func:`trace_marginals`).  Matched: the job-level GPU-count
    distribution (per job from the trace's; with ``single_gpu_share``,
    single-GPU with that probability per job, else 2, 4 or 8), the
    job-level duration distribution (the generator's durations mapped onto
    the trace's empirical quantiles, :func:`quantile_map`), and the
    submission gaps (a block bootstrap of the trace's, :data:`GAP_BLOCK`
    gaps per block, scaled by ``calibrate_gpus / G`` so that arrivals per
    GPU are the trace's on ``calibrate_gpus`` GPUs; default 16, the trace
    windows' 2 x 8).  Not matched: the recurrence (the synthetic Zipf
    groups, 60% repeating exactly, as above; a group is a latent group and
    a GPU count), users, and the joint dependence of GPUs, duration and
    arrival (drawn independently).  ``slot`` defaults to 1 s (the trace's
    seconds); arrivals and iterations are multiplied by ``scale``; ``load``
    and ``duration`` are ignored.  Same model mapping and predictor as
    above (history: the first ``4 n_jobs`` jobs).
    """
    seed = as_int(seed, "seed", lo=0)
    n_jobs = as_int(n_jobs, "n_jobs", lo=1)
    n_servers = as_int(n_servers, "n_servers", lo=1)
    gpus_per_server = as_int(gpus_per_server, "gpus_per_server", lo=1)
    check_sizes(n_jobs, n_servers, gpus_per_server)
    if single_gpu_share is not None:
        as_float(single_gpu_share, "single_gpu_share", lo=0.0, hi=1.0)
    as_float(scale, "scale", lo=0.0, lo_open=True)
    as_float(load, "load", lo=0.0, lo_open=True)
    if calibrate is not None:
        if trace is not None:
            raise InvalidInstanceError(
                "calibrate: calibrates the synthetic generator (trace=None); "
                f"got trace={trace!r}"
            )
        calibrate_gpus = as_int(calibrate_gpus, "calibrate_gpus", lo=1)
    cluster = Cluster(n_servers, gpus_per_server, b_inter, b_intra)
    rng = np.random.default_rng(seed)
    if trace is None and calibrate is not None:
        slot = 1.0 if slot is None else slot
        rows, split = _calibrated_window(
            rng, n_jobs, cluster, calibrate, calibrate_gpus, train_share,
            single_gpu_share, scale, slot,
        )  # fmt: skip
    elif trace is None:
        slot = 60.0 if slot is None else slot
        rows, split = _synthetic_window(
            rng, n_jobs, cluster, single_gpu_share, duration, load, slot
        )
    else:
        slot = 1.0 if slot is None else slot
        rows, split = _trace_window(
            rng, trace, n_jobs, cluster, train_share, single_gpu_share, scale, slot
        )
    hist, jobs = _window_jobs(rows, split, n_jobs, rng, cluster, scale, predictor, seed)
    return AsrptInstance(
        cluster,
        jobs,
        slot=slot,
        meta={"seed": seed, "predictor": predictor, "history": hist},
    )


def _calibrated_window(
    rng: np.random.Generator,
    n_jobs: int,
    cluster: Cluster,
    calibrate: str | Path | pd.DataFrame,
    calibrate_gpus: int,
    train_share: float,
    single_gpu_share: float | None,
    scale: float,
    slot: float,
) -> tuple[pd.DataFrame, int]:
    """:func:`generate`'s jobs with a trace's marginals (``calibrate``); rows, split."""
    n_servers, gpus_per_server = cluster.n_servers, cluster.gpus
    n_total, split = 5 * n_jobs, 4 * n_jobs
    rows = _calibrated_jobs(
        rng,
        n_total,
        n_groups=max(2, n_jobs // 5),
        marginals=trace_marginals(calibrate, train_share),
        single_gpu_share=single_gpu_share,
        max_gpus=min(gpus_per_server, 8),
        repeat=0.6,
    )
    rows["gpus"] = rows["gpus"].clip(upper=n_servers * gpus_per_server)
    gaps = rows["gap"].to_numpy().copy()
    gaps[0] = 0.0
    t = np.cumsum(gaps) * calibrate_gpus / (n_servers * gpus_per_server)
    rows["arrival"] = np.floor((t - t[split]) * scale / slot).astype(np.int64)
    return rows, split


def _synthetic_window(
    rng: np.random.Generator,
    n_jobs: int,
    cluster: Cluster,
    single_gpu_share: float | None,
    duration: float,
    load: float,
    slot: float,
) -> tuple[pd.DataFrame, int]:
    """:func:`generate`'s synthetic jobs (``trace=None``); rows, split."""
    n_total = 5 * n_jobs
    rows = _synthetic_jobs(
        rng,
        n_total,
        n_groups=max(2, n_jobs // 5),
        single_gpu_share=0.5 if single_gpu_share is None else single_gpu_share,
        max_gpus=min(cluster.gpus, 8),
        duration=duration,
        repeat=0.6,
    )
    rows["duration"] *= slot  # seconds
    mean_work = float((rows["gpus"] * rows["duration"] / slot).mean())
    gap = mean_work / (cluster.n_servers * cluster.gpus * load)
    arr = np.sort(rng.uniform(0, gap * n_total, size=n_total))
    rows["arrival"] = np.floor(arr - arr[4 * n_jobs]).astype(np.int64)
    return rows, 4 * n_jobs


def _trace_window(
    rng: np.random.Generator,
    trace: str | Path | pd.DataFrame,
    n_jobs: int,
    cluster: Cluster,
    train_share: float,
    single_gpu_share: float | None,
    scale: float,
    slot: float,
) -> tuple[pd.DataFrame, int]:
    """:func:`generate`'s window of a trace (``trace`` given); rows, split."""
    rows, split = _trace_rows(trace, n_jobs, train_share, rng, cluster)
    if single_gpu_share is not None:
        names = rows["group"].unique()
        choices = [c for c in (2, 4, 8) if c <= cluster.gpus] or [1]
        multi = rng.choice(choices, size=len(names))
        single = rng.random(len(names)) < single_gpu_share
        gmap = dict(zip(names, np.where(single, 1, multi), strict=True))
        rows = rows.assign(gpus=rows["group"].map(gmap))
    rows["arrival"] = np.floor(
        (rows["submit"] - rows["submit"].iloc[split]) * scale / slot
    ).astype(np.int64)
    return rows, split


def _window_jobs(
    rows: pd.DataFrame,
    split: int,
    n_jobs: int,
    rng: np.random.Generator,
    cluster: Cluster,
    scale: float,
    predictor: str,
    seed: int,
) -> tuple[int, tuple[Job, ...]]:
    """Models, iterations and predictions of the window ``rows[split:split + n_jobs]``.

    Returns the history's length and the window's jobs (Sec. V-A-1-b's
    mapping, :func:`generate`).
    """
    groups = rows.drop_duplicates("group")[["group", "gpus"]]
    assign = _assign_models(groups, rng, cluster.gpus, cluster.n_servers)
    a_min = {
        name: alpha_min_est(stages, cluster) for name, (_, stages) in assign.items()
    }
    iters = np.maximum(
        1,
        np.round(
            scale * rows["duration"].to_numpy() * 1000.0
            / rows["group"].map(a_min).to_numpy()
        ),
    ).astype(np.int64)  # fmt: skip
    rows["iterations"] = iters
    hist, win = rows.iloc[:split], rows.iloc[split : split + n_jobs]
    pred = predict(
        hist,
        win["user"].tolist(),
        win["group"].tolist(),
        method=predictor,
        truth=win["iterations"].tolist(),
        seed=seed,
    )
    jobs = tuple(
        Job(
            arrival=int(r.arrival),
            iterations=int(r.iterations),
            predicted=float(p),
            stages=assign[r.group][1],
            model=assign[r.group][0],
            user=str(r.user),
            group=str(r.group),
        )
        for r, p in zip(cast(Iterable[Any], win.itertuples()), pred, strict=True)
    )
    return len(hist), jobs


def _trace_rows(
    trace: str | Path | pd.DataFrame,
    n_jobs: int,
    train_share: float,
    rng: np.random.Generator,
    cluster: Cluster,
) -> tuple[pd.DataFrame, int]:
    df = usable_jobs(trace)
    df = df.assign(
        gpus=np.clip(df["gpus"].clip(lower=1), 1, cluster.n_servers * cluster.gpus),
        user=df["user"].fillna("").astype(str),
    )
    lo = math.floor(train_share * len(df))
    if len(df) - lo < n_jobs:
        raise InvalidInstanceError(
            f"n_jobs: the trace has {len(df) - lo} jobs after its first "
            f"{train_share:.0%} ({len(df)} usable), asked for {n_jobs}"
        )
    start = lo + int(rng.integers(len(df) - lo - n_jobs + 1))
    return df.iloc[: start + n_jobs].reset_index(drop=True), start
