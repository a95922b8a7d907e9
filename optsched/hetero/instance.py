"""Instances of the heterogeneous multi-job placement problem (Liu et al., TPDS 2024).

An instance (Sec. III) is a set of ``S`` learning jobs and ``K >= S``
heterogeneous GPU workers (footnote 3):

* job ``i``: a name, dataset size ``|Pi_i|`` (samples), epochs ``T_i`` and
  model size ``D_i`` (MB, the size of the gradients exchanged by
  Ring-AllReduce);
* worker ``k``: a GPU type (the paper uses V100, P100 and T4) and the
  computing node that hosts it (5 GPUs per node in Fig. 8);
* the true throughput matrix ``rho*_{i,k}`` (samples per second, ``S x K``)
  and optionally a *predicted* matrix ``rho_{i,k}`` (Fig. 15): algorithms
  decide on the prediction, the checker evaluates on the truth;
* link rates ``r``: ``intra_gbps`` between two GPUs of one node (300 Gbps)
  and ``inter_gbps`` between nodes (10 Gbps, Sec. VI-A);
* ``communication``: whether the Ring-AllReduce latency (6) is part of the
  JCT (7).  The motivating example of Sec. IV-A ignores it.

Units (stated once, used everywhere)
------------------------------------
Throughputs are samples/s, so the computation latency (2)-(3) of one epoch is
in seconds.  ``D_i`` is in megabytes (10^6 bytes) and rates are in Gbps
(10^9 bit/s), so the communication latency (6) of one epoch is::

    l_i^[c] = 2 (K_i - 1) * (8 D_i / 1000) / (r_i^min * K_i)   seconds,

with ``r_i^min`` the intra-node rate when all of job ``i``'s workers share a
node and the inter-node rate otherwise (the bottleneck link (5) of any ring
through two nodes is an inter-node link), and ``l_i^[c] = 0`` when
``K_i = 1``.  As printed in (6)-(7), one AllReduce is counted per epoch.
The JCT (7) ``T_i (l_i^[p] + l_i^[c])`` and the objective (8) are in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from optsched.core.base import JsonMixin
from optsched.core.errors import InvalidInstanceError
from optsched.core.validate import (
    as_float,
    as_int,
    as_size,
    check_keys,
    check_memory,
    require,
)

FORMAT = "optsched.hetero/1"

#: GPU types of the testbed (Sec. VI-A), in the order workers are laid out.
GPU_TYPES = ("T4", "P100", "V100")

# Limits (docs/hetero.md, "Limits").  Far above the paper's sizes (5 jobs,
# 15-60 workers); they refuse a typo such as ``n_workers = 1e9`` before
# anything is allocated.
#: Most jobs ``S``.
MAX_JOBS = 10_000
#: Most workers ``K``.
MAX_WORKERS = 10_000
#: Most workers when ``generate`` targets a heterogeneity degree: the search
#: over GPU counts tries every split of ``K`` into three types, ``O(K^2)``.
MAX_WORKERS_TARGET_H = 1_000
#: Range of every throughput ``rho_{i,k}`` (samples/s): keeps the JCT (7)
#: finite and its integer conversions in range (``1e308`` overflowed there).
THROUGHPUT_RANGE = (1e-6, 1e12)
#: Top-level fields of the JSON form (``to_dict``).
FIELDS = (
    "format",
    "jobs",
    "workers",
    "throughput",
    "predicted",
    "intra_gbps",
    "inter_gbps",
    "communication",
    "meta",
)
#: Fields of one job and of one worker in the JSON form.
JOB_FIELDS = ("name", "dataset_size", "epochs", "model_size_mb")
WORKER_FIELDS = ("gpu", "node")


def check_sizes(n_jobs: int, n_workers: int) -> None:
    """Refuse sizes above the documented limits, before anything is allocated.

    Per field: ``S <= MAX_JOBS``, ``K <= MAX_WORKERS``.  Together: the
    throughput and predicted ``S x K`` matrices, kept as tuples of floats
    (about 32 bytes an entry) and as numpy arrays (8 bytes), must stay within
    ``core.validate.MAX_BYTES`` (2 GiB): ``2 x 40 S K`` bytes.
    """
    S = as_size(n_jobs, "n_jobs", MAX_JOBS, why="MAX_JOBS")
    K = as_size(n_workers, "n_workers", MAX_WORKERS, why="MAX_WORKERS")
    check_memory(
        80 * S * K,
        f"n_jobs x n_workers = {S} x {K} (throughput matrices, ~80 bytes an entry)",
    )


@dataclass(frozen=True)
class ModelSpec:
    """One deep learning job of Table III with the numbers the generator uses.

    Attributes
    ----------
    name, dataset
        Model and training dataset (Table III).
    dataset_size, epochs
        ``|Pi_i|`` and ``T_i`` (Table III).
    model_size_mb
        ``D_i`` in MB: fp32 parameter count x 4 bytes of the implementation
        named in ``notes`` (not given in the paper).
    throughput
        Samples/s on ``T4``, ``P100``, ``V100`` (see :data:`MODELS` for the
        source of every value).
    notes
        Source of ``model_size_mb`` and ``throughput``.
    """

    name: str
    dataset: str
    dataset_size: int
    epochs: int
    model_size_mb: float
    throughput: Mapping[str, float]
    notes: str


# --------------------------------------------------------------------------
# Throughput table (samples/s).  Sources, per value:
#
# * paper: ResNet-18 T4 275, V100 644; VGG-19 T4 884, V100 1754 (Sec. IV-A,
#   Eq. (9) as corrected in seeds/INDEX.md; they reproduce Table II).  Fig. 2
#   has no numbers in the text.
# * P100 (every model): geometric mean of the model's T4 and V100 values,
#   rounded -- an assumption (the paper gives no P100 number; P100 sits
#   between T4 and V100 in peak FP32 throughput).
# * ResNet-101, AlexNet, Transformer (T4 and V100): estimates from a power
#   law in the forward multiply-accumulates per sample fitted to the paper's
#   four numbers: rho_g(m) = rho_g(VGG-19) (MAC(VGG-19) / MAC(m))**gamma_g with
#   gamma_T4 = ln(884/275)/ln(2.22/0.40) = 0.681 and
#   gamma_V100 = ln(1754/644)/ln(2.22/0.40) = 0.585 (so ResNet-18 is matched
#   exactly).  MACs per sample (approximate, CIFAR-style implementations as
#   in kuangliu/pytorch-cifar): ResNet-101 2.52 G, ResNet-18 at 64x64 2.22 G,
#   VGG-19 0.40 G, AlexNet (5 conv + 1 FC CIFAR variant) 0.015 G, Transformer
#   (PyTorch word_language_model defaults, one WikiText-2 line of ~57
#   tokens) 0.41 G.
# * D_i: fp32 parameters of the same implementations: ResNet-101 42.5 M,
#   ResNet-18 (200 classes) 11.27 M, VGG-19 20.04 M, AlexNet 2.47 M,
#   Transformer 13.83 M.
# --------------------------------------------------------------------------
_EST = "estimate (power law in MACs fitted to the paper's numbers, see module comment)"

#: The five jobs of Table III, keyed by model name.
MODELS: dict[str, ModelSpec] = {
    "ResNet101": ModelSpec(
        "ResNet101",
        "CIFAR-10",
        50_000,
        200,
        170.0,
        {"T4": 252.0, "P100": 388.0, "V100": 598.0},
        f"throughput: {_EST}; D: 42.5 M fp32 parameters",
    ),
    "ResNet18": ModelSpec(
        "ResNet18",
        "Tiny ImageNet",
        100_000,
        200,
        45.1,
        {"T4": 275.0, "P100": 421.0, "V100": 644.0},
        "throughput: T4, V100 from the paper (Sec. IV-A, seeds/INDEX.md), "
        "P100 geometric mean; D: 11.27 M fp32 parameters",
    ),
    "VGG19": ModelSpec(
        "VGG19",
        "CIFAR-10",
        50_000,
        200,
        80.2,
        {"T4": 884.0, "P100": 1245.0, "V100": 1754.0},
        "throughput: T4, V100 from the paper (Sec. IV-A, seeds/INDEX.md), "
        "P100 geometric mean; D: 20.04 M fp32 parameters",
    ),
    "AlexNet": ModelSpec(
        "AlexNet",
        "CIFAR-10",
        50_000,
        100,
        9.9,
        {"T4": 8280.0, "P100": 9951.0, "V100": 11959.0},
        f"throughput: {_EST}; D: 2.47 M fp32 parameters",
    ),
    "Transformer": ModelSpec(
        "Transformer",
        "WikiText-2",
        36_718,
        3,
        55.3,
        {"T4": 869.0, "P100": 1226.0, "V100": 1729.0},
        f"throughput: {_EST}; D: 13.83 M fp32 parameters",
    ),
}


@dataclass(frozen=True)
class Job:
    """One learning job (Table I notation).

    Attributes
    ----------
    name
        Label (e.g. the model of Table III).
    dataset_size
        ``|Pi_i|``, number of training samples.
    epochs
        ``T_i``, number of training epochs.
    model_size_mb
        ``D_i`` in MB (size of the gradients exchanged per AllReduce).
    """

    name: str
    dataset_size: int
    epochs: int
    model_size_mb: float

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {
            "name": self.name,
            "dataset_size": self.dataset_size,
            "epochs": self.epochs,
            "model_size_mb": self.model_size_mb,
        }


@dataclass(frozen=True)
class Worker:
    """One GPU worker.

    Attributes
    ----------
    gpu
        GPU type label (``"V100"``, ``"P100"``, ``"T4"`` in the paper).
    node
        Index of the computing node hosting it (Fig. 8); two workers on the
        same node talk at ``intra_gbps``, otherwise at ``inter_gbps``.
    """

    gpu: str
    node: int

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {"gpu": self.gpu, "node": self.node}


def _matrix(
    value: Any, name: str, n_rows: int, n_cols: int
) -> tuple[tuple[float, ...], ...]:
    """Validate an ``n_rows x n_cols`` matrix of finite numbers > 0."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InvalidInstanceError(f"{name}: must be a list of rows, got {value!r}")
    if len(value) != n_rows:
        raise InvalidInstanceError(
            f"{name}: must have {n_rows} rows (one per job), got {len(value)}"
        )
    rows = []
    for i, row in enumerate(value):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence):
            raise InvalidInstanceError(
                f"{name}[{i}]: must be a list of numbers, got {row!r}"
            )
        if len(row) != n_cols:
            raise InvalidInstanceError(
                f"{name}[{i}]: must have {n_cols} entries (one per worker), got {len(row)}"
            )
        rows.append(
            tuple(
                as_float(
                    v,
                    f"{name}[{i}][{k}]",
                    lo=THROUGHPUT_RANGE[0],
                    hi=THROUGHPUT_RANGE[1],
                )
                for k, v in enumerate(row)
            )
        )
    return tuple(rows)


def heterogeneity_degree(rho: np.ndarray) -> float:
    """Heterogeneity degree ``H`` of Eq. (35).

    ``H = sum_k sum_i rho_{i,k} / (K min_k sum_i rho_{i,k})``: the mean worker
    column sum over the smallest one; ``H = 1`` for identical workers.
    """
    col = np.asarray(rho, dtype=float).sum(axis=0)
    return float(col.sum() / (col.size * col.min()))


@dataclass(frozen=True)
class HeteroInstance(JsonMixin):
    """Jobs, workers, throughputs and links of one placement problem P1 (8).

    Attributes
    ----------
    jobs
        The ``S`` jobs.
    workers
        The ``K >= S`` workers.
    throughput
        True ``rho*_{i,k}`` (samples/s), ``S`` rows of ``K`` values > 0; the
        checker evaluates on it.
    predicted
        Predicted ``rho_{i,k}`` that algorithms decide on (Fig. 15), same
        shape; ``None`` means the prediction is exact.
    intra_gbps, inter_gbps
        Link rates inside a node and between nodes (Gbps).
    communication
        Include the Ring-AllReduce latency (6) in the JCT (7).
    meta
        Free-form provenance (generator parameters); not compared.
    """

    FORMAT: ClassVar[str] = FORMAT  # JSON format tag (JsonMixin)

    jobs: tuple[Job, ...]
    workers: tuple[Worker, ...]
    throughput: tuple[tuple[float, ...], ...]
    predicted: tuple[tuple[float, ...], ...] | None = None
    intra_gbps: float = 300.0
    inter_gbps: float = 10.0
    communication: bool = True
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # an empty job list is accepted, as in every paper (nothing to place)
        if not isinstance(self.jobs, tuple | list):
            raise InvalidInstanceError(f"jobs: must be a list, got {self.jobs!r}")
        if not isinstance(self.workers, tuple | list):
            raise InvalidInstanceError(f"workers: must be a list, got {self.workers!r}")
        S, K = len(self.jobs), len(self.workers)
        check_sizes(S, K)
        if K < S:
            raise InvalidInstanceError(
                f"workers: need K >= S = {S} so every job gets a worker (8b), got K = {K}"
            )
        for i, job in enumerate(self.jobs):
            p = f"jobs[{i}]"
            if not isinstance(job, Job):
                raise InvalidInstanceError(f"{p}: must be a Job, got {job!r}")
            if not isinstance(job.name, str) or not job.name:
                raise InvalidInstanceError(
                    f"{p}.name: must be a non-empty string, got {job.name!r}"
                )
            as_int(job.dataset_size, f"{p}.dataset_size (|Pi_i|)", lo=1)
            as_int(job.epochs, f"{p}.epochs (T_i)", lo=1)
            as_float(job.model_size_mb, f"{p}.model_size_mb (D_i)", lo=0.0)
        for k, w in enumerate(self.workers):
            p = f"workers[{k}]"
            if not isinstance(w, Worker):
                raise InvalidInstanceError(f"{p}: must be a Worker, got {w!r}")
            if not isinstance(w.gpu, str) or not w.gpu:
                raise InvalidInstanceError(
                    f"{p}.gpu: must be a non-empty string, got {w.gpu!r}"
                )
            as_int(w.node, f"{p}.node", lo=0)
        _matrix(self.throughput, "throughput", S, K)
        if self.predicted is not None:
            _matrix(self.predicted, "predicted", S, K)
        as_float(self.intra_gbps, "intra_gbps", lo=0.0, lo_open=True)
        as_float(self.inter_gbps, "inter_gbps", lo=0.0, lo_open=True)
        if self.inter_gbps > self.intra_gbps:
            # (5) then reduces to "intra iff one node", which jct.py relies on
            raise InvalidInstanceError(
                f"inter_gbps: must be <= intra_gbps = {self.intra_gbps!r} "
                f"(intra-node links are the fast ones, Sec. VI-A), got {self.inter_gbps!r}"
            )
        if not isinstance(self.communication, bool):
            raise InvalidInstanceError(
                f"communication: must be true or false, got {self.communication!r}"
            )
        if not isinstance(self.meta, dict):
            raise InvalidInstanceError(f"meta: must be an object, got {self.meta!r}")

    # ----------------------------------------------------------------- sizes
    @property
    def n_jobs(self) -> int:
        """``S``."""
        return len(self.jobs)

    @property
    def n_workers(self) -> int:
        """``K``."""
        return len(self.workers)

    # ------------------------------------------------------- derived arrays
    @cached_property
    def rho(self) -> np.ndarray:
        """True throughput ``rho*`` as an (S, K) array (read-only)."""
        a = np.array(self.throughput, dtype=float).reshape(self.n_jobs, self.n_workers)
        a.flags.writeable = False
        return a

    @cached_property
    def rho_hat(self) -> np.ndarray:
        """Throughput the algorithms decide on: ``predicted`` or, if None, ``rho``."""
        if self.predicted is None:
            return self.rho
        a = np.array(self.predicted, dtype=float).reshape(self.n_jobs, self.n_workers)
        a.flags.writeable = False
        return a

    @cached_property
    def dataset_size(self) -> np.ndarray:
        """``|Pi_i|`` (S,)."""
        return np.array([j.dataset_size for j in self.jobs], dtype=float)

    @cached_property
    def epochs(self) -> np.ndarray:
        """``T_i`` (S,)."""
        return np.array([j.epochs for j in self.jobs], dtype=float)

    @cached_property
    def model_size_mb(self) -> np.ndarray:
        """``D_i`` in MB (S,)."""
        return np.array([j.model_size_mb for j in self.jobs], dtype=float)

    @cached_property
    def node(self) -> np.ndarray:
        """Node of every worker (K,)."""
        return np.array([w.node for w in self.workers], dtype=np.int64)

    @cached_property
    def gpu(self) -> tuple[str, ...]:
        """GPU type of every worker."""
        return tuple(w.gpu for w in self.workers)

    def heterogeneity(self) -> float:
        """Heterogeneity degree ``H`` (35) of the true throughput matrix."""
        return heterogeneity_degree(self.rho)

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``format`` tags the schema version)."""
        return {
            "format": FORMAT,
            "jobs": [j.to_dict() for j in self.jobs],
            "workers": [w.to_dict() for w in self.workers],
            "throughput": [list(r) for r in self.throughput],
            "predicted": None
            if self.predicted is None
            else [list(r) for r in self.predicted],
            "intra_gbps": self.intra_gbps,
            "inter_gbps": self.inter_gbps,
            "communication": self.communication,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HeteroInstance:
        """Build and validate an instance from :meth:`to_dict` output.

        Unknown fields (top level, in a job or in a worker) and GPU types
        outside :data:`GPU_TYPES` are refused, naming the field.
        """
        check_keys(data, FIELDS)
        cls.check_format(data)
        raw_jobs = require(data, "jobs")
        if not isinstance(raw_jobs, list):
            raise InvalidInstanceError(f"jobs: must be a list, got {raw_jobs!r}")
        raw_workers = require(data, "workers")
        if not isinstance(raw_workers, list):
            raise InvalidInstanceError(f"workers: must be a list, got {raw_workers!r}")
        check_sizes(len(raw_jobs), len(raw_workers))
        jobs = []
        for i, d in enumerate(raw_jobs):
            p = f"jobs[{i}]"
            check_keys(d, JOB_FIELDS, p)
            jobs.append(
                Job(
                    name=require(d, "name", p),
                    dataset_size=as_int(
                        require(d, "dataset_size", p), f"{p}.dataset_size (|Pi_i|)"
                    ),
                    epochs=as_int(require(d, "epochs", p), f"{p}.epochs (T_i)"),
                    model_size_mb=as_float(
                        require(d, "model_size_mb", p), f"{p}.model_size_mb (D_i)"
                    ),
                )
            )
        workers = []
        for k, d in enumerate(raw_workers):
            p = f"workers[{k}]"
            check_keys(d, WORKER_FIELDS, p)
            gpu = require(d, "gpu", p)
            if gpu not in GPU_TYPES:
                raise InvalidInstanceError(
                    f"{p}.gpu: unknown GPU type {gpu!r} (known: {', '.join(GPU_TYPES)})"
                )
            workers.append(
                Worker(
                    gpu=gpu,
                    node=as_int(require(d, "node", p), f"{p}.node", lo=0),
                )
            )
        S, K = len(jobs), len(workers)
        predicted = data.get("predicted")
        return cls(
            jobs=tuple(jobs),
            workers=tuple(workers),
            throughput=_matrix(require(data, "throughput"), "throughput", S, K),
            predicted=None
            if predicted is None
            else _matrix(predicted, "predicted", S, K),
            intra_gbps=as_float(
                data.get("intra_gbps", 300.0), "intra_gbps", lo=0.0, lo_open=True
            ),
            inter_gbps=as_float(
                data.get("inter_gbps", 10.0), "inter_gbps", lo=0.0, lo_open=True
            ),
            communication=data.get("communication", True),
            meta=data.get("meta", {}),
        )


# --------------------------------------------------------------------------
# The Sec. IV-A example and the generator (Sec. VI-A)
# --------------------------------------------------------------------------


def example() -> HeteroInstance:
    """The motivating example of Sec. IV-A (Table II), communication ignored.

    ResNet-18 (Tiny ImageNet, 100,000 samples, 200 epochs) and VGG-19
    (CIFAR-10, 50,000 samples, 200 epochs) on two T4 and two V100 workers
    (workers 0, 1 are T4, 2, 3 are V100, all on node 0).  The throughput
    matrix is Eq. (9) as corrected in seeds/INDEX.md: ResNet-18 T4 275,
    V100 644; VGG-19 T4 884, V100 1754 samples/s.
    """
    r18, vgg = MODELS["ResNet18"], MODELS["VGG19"]
    return HeteroInstance(
        jobs=(
            Job("ResNet18", r18.dataset_size, r18.epochs, r18.model_size_mb),
            Job("VGG19", vgg.dataset_size, vgg.epochs, vgg.model_size_mb),
        ),
        workers=(
            Worker("T4", 0),
            Worker("T4", 0),
            Worker("V100", 0),
            Worker("V100", 0),
        ),
        throughput=((275.0, 275.0, 644.0, 644.0), (884.0, 884.0, 1754.0, 1754.0)),
        communication=False,
        meta={"source": "Sec. IV-A, Eq. (9) corrected (seeds/INDEX.md)"},
    )


def _apportion(total: int, weights: Sequence[float]) -> list[int]:
    """Largest-remainder split of ``total`` by ``weights`` (ties: earlier entry)."""
    w = np.asarray(weights, dtype=float)
    exact = total * w / w.sum()
    base = np.floor(exact).astype(int)
    rest = total - int(base.sum())
    order = sorted(range(len(w)), key=lambda j: (-(exact[j] - base[j]), j))
    for j in order[:rest]:
        base[j] += 1
    return [int(x) for x in base]


def _counts_for_h(
    colsum: np.ndarray, n_workers: int, target: float, mix: Sequence[float]
) -> list[int]:
    """GPU counts (per :data:`GPU_TYPES`) whose H (35) is closest to ``target``.

    Ties go to the counts closest (L1) to the ``mix`` split, then to the
    lexicographically smallest counts.
    """
    ref = np.asarray(_apportion(n_workers, mix), dtype=float)
    best: tuple[float, float, tuple[int, ...]] | None = None
    for a in range(n_workers + 1):
        for b in range(n_workers + 1 - a):
            counts = (a, b, n_workers - a - b)
            cols = np.repeat(colsum, counts)
            h = float(cols.sum() / (cols.size * cols.min()))
            key = (abs(h - target), float(np.abs(np.array(counts) - ref).sum()), counts)
            if best is None or key < best:
                best = key
    assert best is not None
    return list(best[2])


def _check_generate_args(
    n_jobs: int,
    n_workers: int,
    gpu_mix: Sequence[float],
    heterogeneity: float | None,
    epsilon: float,
    gpus_per_node: int,
    models: Sequence[str] | None,
) -> list[str]:
    """:func:`generate`'s arguments checked by name; returns the model pool."""
    as_int(n_jobs, "n_jobs", lo=1)
    as_int(n_workers, "n_workers", lo=1)
    check_sizes(n_jobs, n_workers)
    if heterogeneity is not None and n_workers > MAX_WORKERS_TARGET_H:
        raise InvalidInstanceError(
            f"n_workers: must be <= {MAX_WORKERS_TARGET_H} with a heterogeneity "
            f"target (MAX_WORKERS_TARGET_H), got {n_workers}"
        )
    if n_workers < n_jobs:
        raise InvalidInstanceError(
            f"n_workers: must be >= n_jobs = {n_jobs} (footnote 3), got {n_workers}"
        )
    as_int(gpus_per_node, "gpus_per_node", lo=1)
    as_float(epsilon, "epsilon", lo=0.0)
    if epsilon >= 1.0:
        raise InvalidInstanceError(f"epsilon: must be < 1, got {epsilon!r}")
    if (
        len(gpu_mix) != len(GPU_TYPES)
        or any(not math.isfinite(float(x)) or x < 0 for x in gpu_mix)
        or sum(gpu_mix) <= 0
    ):
        raise InvalidInstanceError(
            f"gpu_mix: must be {len(GPU_TYPES)} non-negative weights for "
            f"{GPU_TYPES} with a positive sum, got {tuple(gpu_mix)!r}"
        )
    if heterogeneity is not None:
        as_float(heterogeneity, "heterogeneity", lo=1.0)
    pool = list(MODELS) if models is None else list(models)
    for m in pool:
        if m not in MODELS:
            raise InvalidInstanceError(
                f"models: unknown model {m!r} (known: {', '.join(MODELS)})"
            )
    if not pool:
        raise InvalidInstanceError("models: must name at least one model, got []")
    return pool


def generate(
    seed: int = 0,
    n_jobs: int = 4,
    n_workers: int = 15,
    *,
    gpu_mix: Sequence[float] = (1.0, 1.0, 1.0),
    heterogeneity: float | None = None,
    epsilon: float = 0.0,
    communication: bool = True,
    gpus_per_node: int = 5,
    intra_gbps: float = 300.0,
    inter_gbps: float = 10.0,
    models: Sequence[str] | None = None,
) -> HeteroInstance:
    """Random instance in the setting of Sec. VI-A.

    * Jobs: ``n_jobs`` models of Table III (:data:`MODELS`), distinct when
      ``n_jobs <= 5`` (drawn without replacement), else with replacement;
      ``models`` restricts the pool.
    * Workers: GPU counts split by ``gpu_mix`` over ``(T4, P100, V100)``
      (1:1:1 by default, largest remainder), laid out type by type and
      ``gpus_per_node`` per node (Fig. 8), so nodes are as homogeneous as
      the counts allow.
    * Throughput: ``rho*_{i,k}`` = the table of :data:`MODELS` for job ``i``'s
      model on worker ``k``'s GPU (no per-worker noise).
    * ``heterogeneity``: target ``H`` of Eq. (35) (Fig. 14 sweeps 1.1-1.26).
      The paper changes ``H`` by equipping more workers with V100 instead of
      T4; here the GPU counts are chosen (overriding ``gpu_mix``) so that the
      ``H`` of the drawn jobs is as close to the target as ``K`` allows.  The
      achieved value is ``inst.heterogeneity()`` (also in ``meta``).
    * ``epsilon``: prediction error bound of Fig. 15; the predicted matrix is
      ``rho*_{i,k} U[1 - epsilon, 1 + epsilon]`` entrywise (i.i.d.).
      Algorithms decide on it, the checker evaluates on ``rho*``.

    Parameters
    ----------
    seed
        Seed of ``numpy.random.default_rng``; same seed, same instance.
    n_jobs, n_workers
        ``S`` and ``K >= S``.
    """
    pool = _check_generate_args(
        n_jobs, n_workers, gpu_mix, heterogeneity, epsilon, gpus_per_node, models
    )
    rng = np.random.default_rng(seed)
    replace = n_jobs > len(pool)
    picks = rng.choice(len(pool), size=n_jobs, replace=replace)
    names = [pool[int(j)] for j in picks]
    specs = [MODELS[m] for m in names]
    labels = []
    for i, m in enumerate(names):
        n_same = names[:i].count(m)
        labels.append(m if n_same == 0 else f"{m}#{n_same + 1}")
    table = np.array([[s.throughput[g] for g in GPU_TYPES] for s in specs])  # (S, 3)
    if heterogeneity is None:
        counts = _apportion(n_workers, gpu_mix)
    else:
        counts = _counts_for_h(table.sum(axis=0), n_workers, heterogeneity, gpu_mix)
    gpus = [g for g, c in zip(GPU_TYPES, counts, strict=True) for _ in range(c)]
    workers = tuple(Worker(g, k // gpus_per_node) for k, g in enumerate(gpus))
    type_index = [GPU_TYPES.index(g) for g in gpus]
    rho = table[:, type_index]
    predicted = None
    if epsilon > 0:
        predicted = rho * rng.uniform(1.0 - epsilon, 1.0 + epsilon, size=rho.shape)
    inst = HeteroInstance(
        jobs=tuple(
            Job(lab, s.dataset_size, s.epochs, s.model_size_mb)
            for lab, s in zip(labels, specs, strict=True)
        ),
        workers=workers,
        throughput=tuple(tuple(float(x) for x in row) for row in rho),
        predicted=None
        if predicted is None
        else tuple(tuple(float(x) for x in row) for row in predicted),
        intra_gbps=float(intra_gbps),
        inter_gbps=float(inter_gbps),
        communication=bool(communication),
        meta={
            "generator": {
                "seed": None if seed is None else int(seed),
                "gpu_counts": dict(zip(GPU_TYPES, counts, strict=True)),
                "heterogeneity_target": heterogeneity,
                "epsilon": epsilon,
            },
        },
    )
    inst.meta["heterogeneity"] = inst.heterogeneity()
    return inst
