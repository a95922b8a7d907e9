"""Edge-cloud instances (Wang et al., Sec. III-A, Table I, and Sec. V-A).

An instance is a set of edge servers ``s`` with typed workers ``[W_s]`` and
typed parameter servers (PSs) ``[P_s]``, plus the cloud ``s_c`` (unlimited
workers and PSs of every type, no preemption), a horizon of slots ``1..T``
and jobs ``j`` with

* arrival slot ``r_j`` (1-based, as in the paper),
* ``D_j`` data chunks of ``B_j`` mini-batches each, trained ``E_j`` epochs,
* ``m_j`` (hours per mini-batch on a worker), ``G_j`` (ms per PS update),
  ``q_j`` (MB of gradients/parameters), ``b_j`` (Mbps reserved bandwidth),
* the worker type and the PS type the job asks for (``v_jsw = 1`` iff worker
  ``w`` of server ``s`` has the job's worker type; ``o_jsp`` likewise; every
  worker and PS of the cloud qualifies),
* upload delays ``Delta_js`` in slots, one per edge server and one for the
  cloud (last entry).

Server indices: edge servers are ``0..S_e - 1`` (order of ``servers``) and
the cloud is ``cloud = S_e``, so ``[S]`` of the paper is ``0..S_e``.  Worker
``w`` of an edge server is a local index ``0..W_s - 1``; workers are numbered
by type (all workers of type 0 first), PSs likewise.  Cloud workers and PSs
are any indices ``>= 0`` (each index is one distinct worker/PS).

Units: one slot lasts ``slot_hours`` hours (1 h in the paper's testbed);
``Delta_js`` is given in slots.  The throughput ``n_j`` of Eq. (1) is in
mini-batches per slot, see :func:`throughput`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from optsched.core.base import TOL, JsonMixin
from optsched.core.errors import InvalidInstanceError
from optsched.core.validate import (
    as_float,
    as_int,
    as_int_vector,
    as_list,
    as_size,
    check_keys,
    check_memory,
    require,
)

FORMAT = "optsched.edgecloud/1"
EPS = TOL  # the shared tolerance (optsched.core.base.TOL)
MB_TO_MBIT = 8.0  # q_j in MB, b_j in Mbps: q_j / b_j = 8 q_j / b_j seconds

# Limits (docs/edgecloud.md, "Limits").  Far above the paper's sizes (300
# jobs, 100 edge servers, T = 240, 8-10 types, 8 workers a server); they
# refuse a typo such as ``n_slots = 1e9`` before anything is allocated.
#: Largest horizon ``T``; also the largest upload delay ``Delta_js`` (slots).
MAX_SLOTS = 100_000
#: Most jobs ``J``.
MAX_JOBS = 100_000
#: Most edge servers (the cloud comes in addition).
MAX_SERVERS = 10_000
#: Most worker types, and most PS types.
MAX_TYPES = 1_000
#: Most workers (and most PSs) of one edge server, all types together.
MAX_UNITS = 10_000
#: Largest ``D_j``, ``B_j``, ``E_j``.
MAX_COUNT = 1_000_000
#: Largest training time ``E_j B_j / n_j`` of one chunk, in slots (both
#: values of ``zeta``): keeps :attr:`EdgeCloudInstance.chunk_slots` finite and
#: exact as int64 (extreme finite floats, e.g. ``bandwidth_mbps = 5e-324``,
#: would overflow to ``inf`` there).
MAX_CHUNK_SLOTS = 1e15
#: Shortest training time of one chunk, in slots (``zeta = 1``): below it
#: ``ceil(E_j B_j / n_j - 1e-9)`` would round a chunk's training to 0 slots
#: (e.g. ``slot_hours = 1e308``).
MIN_CHUNK_SLOTS = 1e-6
#: Top-level fields of the JSON form (``to_dict``).
FIELDS = (
    "format",
    "n_slots",
    "slot_hours",
    "n_worker_types",
    "n_ps_types",
    "servers",
    "jobs",
)
#: Fields of one edge server in the JSON form.
SERVER_FIELDS = ("workers", "ps", "storage_mb")


def check_sizes(n_jobs: int, n_servers: int, n_slots: int, n_chunks: int = 0) -> None:
    """Refuse sizes above the documented limits, before anything is allocated.

    Per field: ``T <= MAX_SLOTS``, ``J <= MAX_JOBS``, edge servers ``<=
    MAX_SERVERS``.  Together, the checker's dense arrays -- edge occupancy
    ``(S_e, T + 1)``, delays ``(J, S_e + 1)`` and about four per-chunk arrays
    (``n_chunks = sum_j D_j``), 8 bytes an entry -- must stay within
    ``core.validate.MAX_BYTES`` (2 GiB).
    """
    J = as_size(n_jobs, "n_jobs", MAX_JOBS, why="MAX_JOBS")
    S_e = as_size(n_servers, "n_servers", MAX_SERVERS, why="MAX_SERVERS")
    T = as_size(n_slots, "n_slots", MAX_SLOTS, lo=1, why="MAX_SLOTS")
    check_memory(
        8 * (S_e * (T + 1) + J * (S_e + 1) + 4 * n_chunks),
        f"n_servers x n_slots + n_jobs x n_servers + 4 x chunks = {S_e} x {T} + "
        f"{J} x {S_e + 1} + 4 x {n_chunks} (checker arrays, 8 bytes each)",
    )


def throughput(
    minibatch_hours: float,
    update_ms: float,
    model_mb: float,
    bandwidth_mbps: float,
    zeta: bool,
    slot_hours: float = 1.0,
) -> float:
    """``n_j`` of Eq. (1): mini-batches one worker trains per slot.

    ``n_j = 1 / (m_j + G_j + 2 q_j / b_j)`` if ``zeta_j = 0`` and
    ``n_j = 1 / (m_j + G_j)`` if ``zeta_j = 1`` (whole job and its PS in the
    cloud, communication negligible).  All times are converted to hours
    (``G_j`` ms / 3.6e6; ``2 q_j / b_j`` = ``2 * 8 q_j / b_j`` seconds / 3600)
    and the rate is scaled to one slot of ``slot_hours`` hours.
    """
    hours = minibatch_hours + update_ms / 3.6e6
    if not zeta:
        hours += 2.0 * MB_TO_MBIT * model_mb / bandwidth_mbps / 3600.0
    return slot_hours / hours


@dataclass(frozen=True)
class Server:
    """One edge server ``s``.

    Attributes
    ----------
    workers
        Number of workers of each worker type (length ``n_worker_types``);
        ``W_s`` is their sum.
    ps
        Number of PSs of each PS type (length ``n_ps_types``).
    storage_mb
        ``U_s`` of Sec. VI (storage extension), MB; None = unlimited.
    """

    workers: tuple[int, ...]
    ps: tuple[int, ...]
    storage_mb: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {
            "workers": list(self.workers),
            "ps": list(self.ps),
            "storage_mb": self.storage_mb,
        }


@dataclass(frozen=True)
class Job:
    """One ML job of Sec. III-A (notation of Table I).

    Attributes
    ----------
    arrival
        ``r_j``, the arrival slot in ``1..T``.
    chunks, minibatches, epochs
        ``D_j``, ``B_j``, ``E_j``.
    minibatch_hours
        ``m_j``, hours for one worker to process a mini-batch.
    update_ms
        ``G_j``, milliseconds for the PS to update the parameters.
    model_mb
        ``q_j``, size of gradients/parameters in MB.
    bandwidth_mbps
        ``b_j``, reserved bandwidth in Mbps.
    worker_type, ps_type
        The types the job asks for (define ``v_jsw`` and ``o_jsp``).
    delay
        ``Delta_js`` in slots, one entry per edge server then the cloud.
    model
        Model name (Table II); a label only.
    chunk_mb
        ``u_j`` of Sec. VI, storage of one data chunk in MB (0 when storage
        is not modelled).
    """

    arrival: int
    chunks: int
    minibatches: int
    epochs: int
    minibatch_hours: float
    update_ms: float
    model_mb: float
    bandwidth_mbps: float
    worker_type: int
    ps_type: int
    delay: tuple[int, ...]
    model: str = ""
    chunk_mb: float = 0.0

    def throughput(self, zeta: bool, slot_hours: float = 1.0) -> float:
        """``n_j`` of Eq. (1) in mini-batches per slot."""
        return throughput(
            self.minibatch_hours,
            self.update_ms,
            self.model_mb,
            self.bandwidth_mbps,
            zeta,
            slot_hours,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {
            "arrival": self.arrival,
            "chunks": self.chunks,
            "minibatches": self.minibatches,
            "epochs": self.epochs,
            "minibatch_hours": self.minibatch_hours,
            "update_ms": self.update_ms,
            "model_mb": self.model_mb,
            "bandwidth_mbps": self.bandwidth_mbps,
            "worker_type": self.worker_type,
            "ps_type": self.ps_type,
            "delay": list(self.delay),
            "model": self.model,
            "chunk_mb": self.chunk_mb,
        }


def _check_job(job: Job, p: str, T: int, S: int, n_wt: int, n_pt: int) -> None:
    """Validate one job (``p`` is its field prefix, ``S`` counts the cloud)."""
    as_int(job.arrival, f"{p}.arrival (r_j)", lo=1, hi=T)
    as_int(job.chunks, f"{p}.chunks (D_j)", lo=1, hi=MAX_COUNT)
    as_int(job.minibatches, f"{p}.minibatches (B_j)", lo=1, hi=MAX_COUNT)
    as_int(job.epochs, f"{p}.epochs (E_j)", lo=1, hi=MAX_COUNT)
    as_float(job.minibatch_hours, f"{p}.minibatch_hours (m_j)", lo=0.0, lo_open=True)
    as_float(job.update_ms, f"{p}.update_ms (G_j)", lo=0.0)
    as_float(job.model_mb, f"{p}.model_mb (q_j)", lo=0.0)
    as_float(job.bandwidth_mbps, f"{p}.bandwidth_mbps (b_j)", lo=0.0, lo_open=True)
    as_int(job.worker_type, f"{p}.worker_type", lo=0, hi=n_wt - 1)
    as_int(job.ps_type, f"{p}.ps_type", lo=0, hi=n_pt - 1)
    delay = as_int_vector(job.delay, f"{p}.delay (Delta_js)", S)
    for s, d in enumerate(delay):
        if d > MAX_SLOTS:
            raise InvalidInstanceError(
                f"{p}.delay (Delta_js)[{s}]: must be <= {MAX_SLOTS} (MAX_SLOTS), got {d}"
            )
    if not isinstance(job.model, str):
        raise InvalidInstanceError(f"{p}.model: must be a string, got {job.model!r}")
    as_float(job.chunk_mb, f"{p}.chunk_mb (u_j)", lo=0.0)


@dataclass(frozen=True)
class EdgeCloudInstance(JsonMixin):
    """Edge servers, the cloud, a horizon and a job sequence (arrival order).

    Attributes
    ----------
    n_slots
        ``T``.
    n_worker_types, n_ps_types
        Number of worker and PS types.
    servers
        The edge servers (the cloud is implicit, index ``cloud``).
    jobs
        The jobs, sorted by arrival (ties keep their order).
    slot_hours
        Length of one slot in hours.
    """

    FORMAT: ClassVar[str] = FORMAT  # JSON format tag (JsonMixin)

    n_slots: int
    n_worker_types: int
    n_ps_types: int
    servers: tuple[Server, ...]
    jobs: tuple[Job, ...]
    slot_hours: float = 1.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        T = as_size(self.n_slots, "n_slots", MAX_SLOTS, lo=1, why="MAX_SLOTS")
        n_wt = as_size(
            self.n_worker_types, "n_worker_types", MAX_TYPES, lo=1, why="MAX_TYPES"
        )
        n_pt = as_size(self.n_ps_types, "n_ps_types", MAX_TYPES, lo=1, why="MAX_TYPES")
        as_float(self.slot_hours, "slot_hours", lo=0.0, lo_open=True)
        if not isinstance(self.servers, tuple | list) or not isinstance(
            self.jobs, tuple | list
        ):
            raise InvalidInstanceError("servers, jobs: must be lists")
        check_sizes(len(self.jobs), len(self.servers), T)
        for s, srv in enumerate(self.servers):
            if not isinstance(srv, Server):
                raise InvalidInstanceError(f"servers[{s}]: not a Server, got {srv!r}")
            for name, units, n in (
                ("workers", srv.workers, n_wt),
                ("ps", srv.ps, n_pt),
            ):
                counts = as_int_vector(units, f"servers[{s}].{name}", n)
                if sum(counts) > MAX_UNITS:
                    raise InvalidInstanceError(
                        f"servers[{s}].{name}: at most {MAX_UNITS} in all (MAX_UNITS), "
                        f"got {sum(counts)}"
                    )
            if srv.storage_mb is not None:
                as_float(srv.storage_mb, f"servers[{s}].storage_mb (U_s)", lo=0.0)
        S = len(self.servers) + 1
        for j, job in enumerate(self.jobs):
            if not isinstance(job, Job):
                raise InvalidInstanceError(f"jobs[{j}]: not a Job, got {job!r}")
            _check_job(job, f"jobs[{j}]", T, S, n_wt, n_pt)
            with np.errstate(all="ignore"):  # overflow is what is being checked
                work = np.float64(job.epochs * job.minibatches)
                slots = float(work / np.float64(job.throughput(False, self.slot_hours)))
                fast = float(work / np.float64(job.throughput(True, self.slot_hours)))
            if not fast >= MIN_CHUNK_SLOTS:
                raise InvalidInstanceError(
                    f"jobs[{j}]: one chunk trains E_j B_j / n_j = {fast!r} slots in "
                    f"the cloud, must be >= {MIN_CHUNK_SLOTS:g} (MIN_CHUNK_SLOTS; "
                    "check minibatch_hours, update_ms and slot_hours)"
                )
            if not slots <= MAX_CHUNK_SLOTS:
                raise InvalidInstanceError(
                    f"jobs[{j}]: one chunk trains E_j B_j / n_j = {slots!r} slots, "
                    f"must be <= {MAX_CHUNK_SLOTS:g} (MAX_CHUNK_SLOTS; check "
                    "minibatch_hours, update_ms, model_mb, bandwidth_mbps, slot_hours)"
                )
        check_sizes(
            len(self.jobs), len(self.servers), T, sum(j.chunks for j in self.jobs)
        )
        arr = [job.arrival for job in self.jobs]
        if arr != sorted(arr):
            raise InvalidInstanceError(
                f"jobs: must be sorted by arrival (online order), got arrivals {arr}"
            )

    # ----------------------------------------------------------------- sizes
    @property
    def n_jobs(self) -> int:
        """``J``."""
        return len(self.jobs)

    @property
    def n_servers(self) -> int:
        """``S``: edge servers plus the cloud."""
        return len(self.servers) + 1

    @property
    def cloud(self) -> int:
        """Index of the cloud ``s_c`` (after the edge servers)."""
        return len(self.servers)

    @property
    def storage(self) -> bool:
        """Whether the storage extension (7) is on (some ``U_s`` is finite)."""
        return any(srv.storage_mb is not None for srv in self.servers)

    # ------------------------------------------------------- derived arrays
    @cached_property
    def worker_types(self) -> tuple[np.ndarray, ...]:
        """Per edge server, the type of each local worker ``w`` (sorted by type)."""
        return tuple(
            np.repeat(np.arange(self.n_worker_types), srv.workers)
            for srv in self.servers
        )

    @cached_property
    def ps_types(self) -> tuple[np.ndarray, ...]:
        """Per edge server, the type of each local PS ``p`` (sorted by type)."""
        return tuple(
            np.repeat(np.arange(self.n_ps_types), srv.ps) for srv in self.servers
        )

    @cached_property
    def n_workers(self) -> np.ndarray:
        """``W_s`` per edge server."""
        return np.array([sum(srv.workers) for srv in self.servers], dtype=np.int64)

    @cached_property
    def n_ps(self) -> np.ndarray:
        """``P_s`` per edge server."""
        return np.array([sum(srv.ps) for srv in self.servers], dtype=np.int64)

    @cached_property
    def arrival(self) -> np.ndarray:
        """``r_j`` (1-based slots)."""
        return np.array([j.arrival for j in self.jobs], dtype=np.int64)

    @cached_property
    def D(self) -> np.ndarray:
        """``D_j``."""
        return np.array([j.chunks for j in self.jobs], dtype=np.int64)

    @cached_property
    def chunk_work(self) -> np.ndarray:
        """``E_j B_j``: mini-batches each chunk needs ((4a); (2b) per chunk)."""
        return np.array([j.epochs * j.minibatches for j in self.jobs], dtype=np.int64)

    @cached_property
    def delay(self) -> np.ndarray:
        """``Delta_js`` as a (J, S) int array, cloud in the last column."""
        return np.array([j.delay for j in self.jobs], dtype=np.int64).reshape(
            -1, self.n_servers
        )

    @cached_property
    def rate(self) -> np.ndarray:
        """``n_j`` of Eq. (1) as a (J, 2) array: column ``zeta`` (0 or 1)."""
        return np.array(
            [
                [j.throughput(z, self.slot_hours) for z in (False, True)]
                for j in self.jobs
            ],
            dtype=float,
        ).reshape(-1, 2)

    @cached_property
    def chunk_slots(self) -> np.ndarray:
        """``ceil(E_j B_j / n_j)``: slots one chunk trains, (J, 2) by ``zeta``."""
        return np.ceil(self.chunk_work[:, None] / self.rate - EPS).astype(np.int64)

    def worker_qualified(self, j: int, s: int, w: int) -> bool:
        """``v_jsw``: worker ``w`` of server ``s`` can serve job ``j`` (cloud: all)."""
        if s == self.cloud:
            return True
        return bool(self.worker_types[s][w] == self.jobs[j].worker_type)

    def ps_qualified(self, j: int, s: int, p: int) -> bool:
        """``o_jsp``: PS ``p`` of server ``s`` can serve job ``j`` (cloud: all)."""
        if s == self.cloud:
            return True
        return bool(self.ps_types[s][p] == self.jobs[j].ps_type)

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``format`` tags the schema version)."""
        return {
            "format": FORMAT,
            "n_slots": self.n_slots,
            "slot_hours": self.slot_hours,
            "n_worker_types": self.n_worker_types,
            "n_ps_types": self.n_ps_types,
            "servers": [srv.to_dict() for srv in self.servers],
            "jobs": [j.to_dict() for j in self.jobs],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EdgeCloudInstance:
        """Build and validate an instance from :meth:`to_dict` output.

        Unknown fields (top level, in a server or in a job) are refused,
        naming the field.
        """
        check_keys(data, FIELDS)
        cls.check_format(data)
        servers = []
        for s, d in enumerate(as_list(require(data, "servers"), "servers")):
            p = f"servers[{s}]"
            check_keys(d, SERVER_FIELDS, p)
            servers.append(
                Server(
                    workers=tuple(as_list(require(d, "workers", p), f"{p}.workers")),
                    ps=tuple(as_list(require(d, "ps", p), f"{p}.ps")),
                    storage_mb=d.get("storage_mb"),
                )
            )
        jobs = []
        for j, d in enumerate(as_list(require(data, "jobs"), "jobs")):
            p = f"jobs[{j}]"
            check_keys(d, (*_JOB_FIELDS, "model", "chunk_mb"), p)
            kw = {k: require(d, k, p) for k in _JOB_FIELDS}
            kw["delay"] = tuple(as_list(kw["delay"], f"{p}.delay (Delta_js)"))
            jobs.append(
                Job(**kw, model=d.get("model", ""), chunk_mb=d.get("chunk_mb", 0.0))
            )
        return cls(
            n_slots=require(data, "n_slots"),
            n_worker_types=require(data, "n_worker_types"),
            n_ps_types=require(data, "n_ps_types"),
            servers=tuple(servers),
            jobs=tuple(jobs),
            slot_hours=data.get("slot_hours", 1.0),
        )


_JOB_FIELDS = (
    "arrival",
    "chunks",
    "minibatches",
    "epochs",
    "minibatch_hours",
    "update_ms",
    "model_mb",
    "bandwidth_mbps",
    "worker_type",
    "ps_type",
    "delay",
)


# --------------------------------------------------------------------------
# Generator (Sec. V-A simulation setting; calibration in docs/edgecloud.md)
# --------------------------------------------------------------------------

#: Table II: model -> (dataset, D_j, B_j).
MODELS: dict[str, tuple[str, int, int]] = {
    "ResNet-50": ("CIFAR10", 27, 58),
    "ResNet-101": ("CIFAR10", 27, 58),
    "GoogLeNet": ("Caltech101", 115, 58),
    "LeNet": ("Caltech101", 115, 58),
    "AlexNet": ("ImageNet-12", 60, 58),
    "Inception-BN": ("ImageNet-12", 60, 58),
}
#: Dataset sizes in MB (only used for ``u_j`` when ``storage=True``): CIFAR-10
#: and Caltech101 archives; ImageNet-12 is the paper's 7000-image subset.
DATASET_MB: dict[str, float] = {
    "CIFAR10": 163.0,
    "Caltech101": 131.0,
    "ImageNet-12": 101.8,
}
EDGE_DELAY = (1, 4)  # Delta_js, slots, edge servers
CLOUD_DELAY = (10, 15)  # Delta_js, slots, the cloud


def _check_draw_args(
    max_chunks: int | None,
    workers_per_server: tuple[int, ...],
    ps_per_server: tuple[int, int],
    slot_hours: float,
    arrival_window: float,
) -> None:
    """:func:`generate`'s arguments that no draw depends on, checked by name."""
    if max_chunks is not None:
        as_int(max_chunks, "max_chunks", lo=1, hi=MAX_COUNT)
    for name, units in (
        ("workers_per_server", workers_per_server),
        ("ps_per_server", ps_per_server),
    ):
        for k, u in enumerate(units):
            as_size(u, f"{name}[{k}]", MAX_UNITS, why="MAX_UNITS")
    as_float(slot_hours, "slot_hours", lo=0.0, lo_open=True)
    as_float(arrival_window, "arrival_window", lo=0.0, lo_open=True, hi=1.0)


def _draw_server(
    rng: np.random.Generator,
    n_wt: int,
    n_pt: int,
    workers_per_server: tuple[int, ...],
    ps_per_server: tuple[int, int],
    storage: bool,
    storage_range: tuple[float, float],
) -> Server:
    """One edge server of :func:`generate`: ``W_s``, ``P_s``, their types, ``U_s``."""
    W = int(rng.choice(workers_per_server))
    P = int(rng.integers(ps_per_server[0], ps_per_server[1] + 1))
    U = float(rng.uniform(*storage_range)) if storage else None
    return Server(
        workers=tuple(
            int(c) for c in np.bincount(rng.integers(n_wt, size=W), minlength=n_wt)
        ),
        ps=tuple(
            int(c) for c in np.bincount(rng.integers(n_pt, size=P), minlength=n_pt)
        ),
        storage_mb=U,
    )


def _draw_job(
    rng: np.random.Generator,
    arrival: int,
    S_e: int,
    n_wt: int,
    n_pt: int,
    type_bw: np.ndarray,
    max_chunks: int | None,
    storage: bool,
) -> Job:
    """One job of :func:`generate` arriving in slot ``arrival`` (Sec. V-A's ranges)."""
    names = list(MODELS)
    model = names[int(rng.integers(len(names)))]
    dataset, D, B = MODELS[model]
    D = D if max_chunks is None else min(D, max_chunks)
    wt = int(rng.integers(n_wt))
    return Job(
        arrival=arrival,
        chunks=D,
        minibatches=B,
        epochs=int(rng.integers(20, 61)),
        minibatch_hours=float(rng.uniform(0.001, 0.05)),
        update_ms=float(rng.uniform(10.0, 100.0)),
        model_mb=float(rng.uniform(30.0, 575.0)),
        bandwidth_mbps=float(type_bw[wt]),
        worker_type=wt,
        ps_type=int(rng.integers(n_pt)),
        delay=tuple(
            int(d) for d in rng.integers(EDGE_DELAY[0], EDGE_DELAY[1] + 1, size=S_e)
        )
        + (int(rng.integers(CLOUD_DELAY[0], CLOUD_DELAY[1] + 1)),),
        model=model,
        chunk_mb=DATASET_MB[dataset] / D if storage else 0.0,
    )


def generate(
    seed: int = 0,
    n_jobs: int = 10,
    n_servers: int = 5,
    n_slots: int = 240,
    *,
    n_worker_types: int | None = None,
    n_ps_types: int | None = None,
    workers_per_server: tuple[int, ...] = (2, 4, 8),
    ps_per_server: tuple[int, int] = (2, 8),
    max_chunks: int | None = None,
    slot_hours: float = 1.0,
    arrival_window: float = 0.2,
    storage: bool = False,
    storage_range: tuple[float, float] = (100.0, 1000.0),
    max_redraws: int = 1000,
) -> EdgeCloudInstance:
    """Random instance in the simulation setting of Sec. V-A.

    Kept from the paper: 8-10 worker and 8-10 PS types, each worker/PS of a
    server of a uniformly random type, the job's worker and PS types uniform;
    ``b_j`` in [100, 5120] Mbps (drawn once per worker type: "the bandwidth
    of workers of specified type"), ``m_j`` in [0.001, 0.05] h, ``G_j`` in
    [10, 100] ms, ``q_j`` in [30, 575] MB, ``E_j`` in [20, 60], a model of
    Table II with its ``D_j`` / ``B_j``, ``Delta_js`` in [1, 4] slots (edge)
    and [10, 15] slots (cloud), one slot = ``slot_hours`` (1 h).

    Stand-ins for the Philly trace (not shipped): ``W_s`` uniform over
    ``workers_per_server`` (the trace's GPUs per machine), ``P_s`` uniform in
    ``ps_per_server``; arrivals uniform (Poisson, conditioned on ``n_jobs``)
    in the first ``arrival_window * T`` slots.

    Calibration: a job is redrawn (all parameters but its arrival) until the
    all-cloud schedule (:func:`~optsched.edgecloud.schedule.cloud_only`:
    every chunk on its own cloud worker from ``r_j + Delta_jc``, ``zeta_j =
    1``) completes by ``T``, i.e. ``r_j + Delta_jc + ceil(E_j B_j / n_j) - 1
    <= T``; so every instance is feasible.  The longest such job is 190
    slots at ``slot_hours = 1``, so with the defaults (``T = 240``, arrivals
    in slots 1-48) no job is ever redrawn and the paper's distributions are
    exact; shorter horizons bias towards short jobs (count in
    ``meta["redraws"]``) unless ``slot_hours`` grows.  ``max_chunks`` caps
    ``D_j`` for MILP-sized instances (the paper's Sec. V-C also uses a
    "reduced input").

    Parameters
    ----------
    seed
        Seed of ``numpy.random.default_rng``; same seed, same instance.
    n_jobs, n_servers, n_slots
        ``J``, number of edge servers (the cloud comes in addition), ``T``.
    storage
        Draw ``U_s`` uniform in ``storage_range`` MB and ``u_j`` = dataset
        size / ``D_j`` (Sec. VI extension); off by default.
    """
    check_sizes(n_jobs, n_servers, n_slots)
    rng = np.random.default_rng(seed)
    J = as_int(n_jobs, "n_jobs", lo=0)
    S_e = as_int(n_servers, "n_servers", lo=0)
    T = as_int(n_slots, "n_slots", lo=1)
    _check_draw_args(
        max_chunks, workers_per_server, ps_per_server, slot_hours, arrival_window
    )
    n_wt = int(rng.integers(8, 11)) if n_worker_types is None else n_worker_types
    n_pt = int(rng.integers(8, 11)) if n_ps_types is None else n_ps_types
    as_size(n_wt, "n_worker_types", MAX_TYPES, lo=1, why="MAX_TYPES")
    as_size(n_pt, "n_ps_types", MAX_TYPES, lo=1, why="MAX_TYPES")
    servers = [
        _draw_server(
            rng, n_wt, n_pt, workers_per_server, ps_per_server, storage, storage_range
        )
        for _ in range(S_e)
    ]
    type_bw = rng.uniform(100.0, 5.0 * 1024.0, size=n_wt)
    last = max(1, math.ceil(arrival_window * T))
    arrivals = np.sort(rng.integers(1, last + 1, size=J))
    jobs, redraws = [], 0
    for r in arrivals:
        for _attempt in range(max_redraws + 1):
            job = _draw_job(rng, int(r), S_e, n_wt, n_pt, type_bw, max_chunks, storage)
            k = math.ceil(
                job.epochs * job.minibatches / job.throughput(True, slot_hours) - EPS
            )
            if job.arrival + job.delay[-1] + k - 1 <= T:
                break
            redraws += 1
        else:
            raise InvalidInstanceError(
                f"n_slots: {T} too short for a job arriving in slot {r} after "
                f"{max_redraws} redraws (raise n_slots or slot_hours)"
            )
        jobs.append(job)
    return EdgeCloudInstance(
        n_slots=T,
        n_worker_types=n_wt,
        n_ps_types=n_pt,
        servers=tuple(servers),
        jobs=tuple(jobs),
        slot_hours=float(slot_hours),
        meta={"seed": seed, "redraws": redraws},
    )
