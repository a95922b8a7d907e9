"""Okita instances (Han et al., Sec. III, Table I, and Sec. V-B).

An instance is a set of geo-distributed sites ``r`` (``R`` of them) with
capacities ``C_r^k`` over ``K`` resource types, unit bandwidth costs
``q^{rr'}`` per MB between sites (``q^{rr} = 0``), a horizon of slots
``1..T`` and unbiased distributed learning (UDL) jobs ``i`` with

* arrival slot ``a_i`` (1-based, as in the paper),
* ``D_i^r`` data chunks on every site ``r`` (all of them must be trained,
  reading of (2a) in ``docs/okita.md``),
* ``E_i`` epochs and the processing capacity ``rho_i`` of one worker (chunk
  epochs per slot), so one worker fully trains ``rho_i / E_i`` chunks per
  slot ((2b)),
* worker and PS demands ``m_i^k``, ``n_i^k``,
* ``delta_i`` (MB per chunk), ``pi_i`` (MB of parameters exchanged between a
  worker and a remote PS per slot),
* a latency cost ``f_i`` (:class:`LatencyCost`) of one of the three kinds of
  Sec. V-B (or the saturating ``sigmoid`` reading, below), charged on the
  duration ``t_i - a_i`` (objective (2)).

Site indices are ``0..R-1`` (order of ``sites``); resource indices follow
``resources``.  ``q^{rr'}`` is in cost units per MB (Table I); Sec. V-B
states its range per 100 MB.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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
    as_vector,
    check_keys,
    check_memory,
    require,
)

FORMAT = "optsched.okita/1"
EPS = TOL  # the shared tolerance (optsched.core.base.TOL)
DEFAULT_RESOURCES = ("gpu", "vcpu", "memory_gb", "disk_gb")

# Limits (docs/okita.md, "Limits").  Far above the paper's sizes (50 sites,
# 100 jobs, T = 150); they refuse a typo such as ``n_slots = 1e9`` before
# anything is allocated.
#: Largest horizon ``T``.
MAX_SLOTS = 100_000
#: Most jobs ``I``.
MAX_JOBS = 100_000
#: Most sites ``R`` (``q^{rr'}`` is ``R x R``).
MAX_SITES = 1_000
#: Largest ``D_i^r`` and ``E_i``.
MAX_COUNT = 1_000_000
#: Range of ``rho_i`` (chunk epochs a worker processes per slot): keeps the
#: worker counts the algorithms derive from it finite (``5e-324`` overflowed).
RHO_RANGE = (1e-6, 1e12)
#: Top-level fields of the JSON form (``to_dict``).
FIELDS = ("format", "n_slots", "resources", "sites", "bandwidth_cost", "jobs")
#: Fields of one site in the JSON form.
SITE_FIELDS = ("capacity", "name")


def check_sizes(n_jobs: int, n_sites: int, n_slots: int, n_resources: int) -> None:
    """Refuse sizes above the documented limits, before anything is allocated.

    Per field: ``T <= MAX_SLOTS``, ``I <= MAX_JOBS``, ``R <= MAX_SITES``.
    Together, the checker's dense arrays -- resource use ``((T + 1) R, K)``
    and per job and site ``(I, R)``, 8 bytes an entry -- must stay within
    ``core.validate.MAX_BYTES`` (2 GiB).
    """
    T = as_size(n_slots, "n_slots", MAX_SLOTS, lo=1, why="MAX_SLOTS")
    I_ = as_size(n_jobs, "n_jobs", MAX_JOBS, why="MAX_JOBS")
    R = as_size(n_sites, "n_sites", MAX_SITES, why="MAX_SITES")
    check_memory(
        8 * ((T + 1) * R * n_resources + I_ * R),
        f"n_slots x n_sites x resources + n_jobs x n_sites = {T} x {R} x "
        f"{n_resources} + {I_} x {R} (checker arrays, 8 bytes each)",
    )


#: Latency-cost kind -> names of its parameters, in order (Sec. V-B).
COST_PARAMS: dict[str, tuple[str, ...]] = {
    "exp": ("tau", "rate"),
    "linear": ("tau", "b"),
    "piecewise": ("tau1", "tau2", "c"),
    "sigmoid": ("tau", "rate", "t0"),
}


@dataclass(frozen=True)
class LatencyCost:
    """A latency cost ``f_i(d)`` of Sec. V-B on the duration ``d = t_i - a_i``.

    * ``exp`` (the paper's "sigmoid function", the default):
      ``f(d) = tau * exp(rate * d)`` with ``rate = 0.25`` in the paper;
    * ``linear``: ``f(d) = tau * d + b``;
    * ``piecewise``: ``f(d) = tau1`` if ``d < c``, else ``tau2``;
    * ``sigmoid`` (a documented reading, not the default; docs/okita.md,
      "Diagnosis: the cost reading"): the saturating logistic
      ``f(d) = tau / (1 + exp(-rate (d - t0)))``.  The paper names its
      default cost a "Sigmoid Function" but prints ``tau e^{0.25 t}``, which
      never saturates; this kind reads the name.  Sec. V-B's ``tau`` (the
      level it saturates at) and ``rate = 0.25`` (the printed exponent: the
      logistic grows like ``e^{0.25 d}`` well before ``t0``) are kept, and the
      midpoint ``t0`` (``>= 0``) is a parameter (generator:
      :data:`SIGMOID_T0`).

    Every kind is non-decreasing and non-negative (validated), as objective
    (2) requires.  ``tau`` (:attr:`tau`) is the parameter ``tau_i`` that the
    priority ``O_i(t)`` of Eq. (4) uses (``tau1`` for the piecewise kind).

    Attributes
    ----------
    kind
        ``"exp"``, ``"linear"``, ``"piecewise"`` or ``"sigmoid"``.
    params
        The kind's parameters in the order of :data:`COST_PARAMS`.
    """

    kind: str
    params: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.kind not in COST_PARAMS:
            raise InvalidInstanceError(
                f"cost.kind: must be one of {', '.join(COST_PARAMS)}, got {self.kind!r}"
            )
        names = COST_PARAMS[self.kind]
        if not isinstance(self.params, tuple) or len(self.params) != len(names):
            raise InvalidInstanceError(
                f"cost.params: {self.kind} needs {len(names)} values "
                f"({', '.join(names)}), got {self.params!r}"
            )
        vals = {
            n: as_float(v, f"cost.{n}", lo=0.0)
            for n, v in zip(names, self.params, strict=True)
        }
        if self.kind == "piecewise" and vals["tau2"] < vals["tau1"]:
            raise InvalidInstanceError(
                f"cost.tau2: must be >= tau1 = {vals['tau1']!r} (f non-decreasing), "
                f"got {vals['tau2']!r}"
            )

    @classmethod
    def exp(cls, tau: float, rate: float = 0.25) -> LatencyCost:
        """``tau * exp(rate * d)`` (Sec. V-B: ``rate = 0.25``)."""
        return cls("exp", (tau, rate))

    @classmethod
    def linear(cls, tau: float, b: float) -> LatencyCost:
        """``tau * d + b``."""
        return cls("linear", (tau, b))

    @classmethod
    def piecewise(cls, tau1: float, tau2: float, c: float) -> LatencyCost:
        """``tau1`` if ``d < c`` else ``tau2``."""
        return cls("piecewise", (tau1, tau2, c))

    @classmethod
    def sigmoid(cls, tau: float, rate: float = 0.25, t0: float = 4.0) -> LatencyCost:
        """``tau / (1 + exp(-rate (d - t0)))`` (the saturating reading)."""
        return cls("sigmoid", (tau, rate, t0))

    @property
    def tau(self) -> float:
        """``tau_i`` of Eq. (4): the first parameter (``tau1`` when piecewise)."""
        return float(self.params[0])

    def value(self, duration: Any) -> Any:
        """``f(d)`` for a scalar or an array of durations (vectorised)."""
        d = np.asarray(duration, dtype=float)
        p = self.params
        if self.kind == "exp":
            with np.errstate(over="ignore"):
                out = p[0] * np.exp(p[1] * d)
        elif self.kind == "linear":
            out = p[0] * d + p[1]
        elif self.kind == "sigmoid":
            with np.errstate(over="ignore"):
                out = p[0] / (1.0 + np.exp(-p[1] * (d - p[2])))
        else:
            out = np.where(d < p[2], float(p[0]), float(p[1]))
        return float(out) if out.ndim == 0 else out

    __call__ = value

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation: ``{"kind": ..., <param>: value, ...}``."""
        return {
            "kind": self.kind,
            **dict(zip(COST_PARAMS[self.kind], self.params, strict=True)),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "cost") -> LatencyCost:
        """Inverse of :meth:`to_dict` (errors name ``where.<field>``)."""
        kind = require(data, "kind", where)
        names = COST_PARAMS.get(kind) if isinstance(kind, str) else None
        if names is None:
            raise InvalidInstanceError(
                f"{where}.kind: must be one of {', '.join(COST_PARAMS)}, got {kind!r}"
            )
        check_keys(data, ("kind", *names), where)
        return cls(kind, tuple(require(data, n, where) for n in names))


@dataclass(frozen=True)
class Site:
    """One site ``r`` (an edge server or cloudlet).

    Attributes
    ----------
    capacity
        ``C_r^k`` per resource type (length ``K``).
    name
        Label (the EC2 instance type the generator copied); not used.
    """

    capacity: tuple[float, ...]
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {"capacity": list(self.capacity), "name": self.name}


@dataclass(frozen=True)
class Job:
    """One UDL job of Sec. III (notation of Table I).

    Attributes
    ----------
    arrival
        ``a_i``, the arrival slot in ``1..T``.
    data
        ``D_i^r``: data chunks of the job on each site (length ``R``).
    epochs
        ``E_i``.
    rho
        ``rho_i``: chunk epochs one worker processes per slot; one worker
        trains ``rho_i / E_i`` chunks (all ``E_i`` epochs) per slot.
    worker_demand, ps_demand
        ``m_i^k`` and ``n_i^k`` (length ``K``).
    chunk_mb
        ``delta_i``, MB per data chunk.
    param_mb
        ``pi_i``, MB of parameters exchanged between a worker and a PS per slot.
    cost
        The latency cost ``f_i``.
    """

    arrival: int
    data: tuple[int, ...]
    epochs: int
    rho: float
    worker_demand: tuple[float, ...]
    ps_demand: tuple[float, ...]
    chunk_mb: float
    param_mb: float
    cost: LatencyCost

    @property
    def chunks(self) -> int:
        """``sum_r D_i^r``: the right-hand side of (2a)."""
        return int(sum(self.data))

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation."""
        return {
            "arrival": self.arrival,
            "data": list(self.data),
            "epochs": self.epochs,
            "rho": self.rho,
            "worker_demand": list(self.worker_demand),
            "ps_demand": list(self.ps_demand),
            "chunk_mb": self.chunk_mb,
            "param_mb": self.param_mb,
            "cost": self.cost.to_dict(),
        }


def _check_job(job: Job, p: str, T: int, R: int, K: int) -> None:
    """Validate one job (``p`` is its field prefix)."""
    as_int(job.arrival, f"{p}.arrival (a_i)", lo=1, hi=T)
    data = as_int_vector(job.data, f"{p}.data (D_i^r)", R)
    for r, d in enumerate(data):
        if d > MAX_COUNT:
            raise InvalidInstanceError(
                f"{p}.data (D_i^r)[{r}]: must be <= {MAX_COUNT} (MAX_COUNT), got {d}"
            )
    if sum(data) < 1:
        raise InvalidInstanceError(
            f"{p}.data (D_i^r): a job needs at least one chunk, got {list(data)}"
        )
    as_int(job.epochs, f"{p}.epochs (E_i)", lo=1, hi=MAX_COUNT)
    as_float(job.rho, f"{p}.rho (rho_i)", lo=RHO_RANGE[0], hi=RHO_RANGE[1])
    m = as_vector(job.worker_demand, f"{p}.worker_demand (m_i^k)", K)
    if max(m) <= 0.0:
        raise InvalidInstanceError(
            f"{p}.worker_demand (m_i^k): some demand must be > 0 (else y_i^r(t) "
            f"is unbounded), got {list(m)}"
        )
    as_vector(job.ps_demand, f"{p}.ps_demand (n_i^k)", K)
    as_float(job.chunk_mb, f"{p}.chunk_mb (delta_i)", lo=0.0)
    as_float(job.param_mb, f"{p}.param_mb (pi_i)", lo=0.0)
    if not isinstance(job.cost, LatencyCost):
        raise InvalidInstanceError(f"{p}.cost: not a LatencyCost, got {job.cost!r}")


def _check_q(q: Any, R: int) -> None:
    """``q^{rr'}``: an R x R matrix of numbers >= 0 with a zero diagonal."""
    name = "bandwidth_cost (q^rr')"
    if isinstance(q, str | bytes) or not isinstance(q, Sequence) or len(q) != R:
        n = len(q) if isinstance(q, Sequence) else q
        raise InvalidInstanceError(
            f"{name}: must be {R} rows (one per site), got {n!r}"
        )
    for r, row in enumerate(q):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence):
            raise InvalidInstanceError(f"{name}[{r}]: must be a list, got {row!r}")
        if len(row) != R:
            raise InvalidInstanceError(
                f"{name}[{r}]: must have {R} entries (one per site), got {len(row)}"
            )
        for s, v in enumerate(row):
            as_float(v, f"{name}[{r}][{s}]", lo=0.0)
        if row[r] != 0:
            raise InvalidInstanceError(
                f"{name}[{r}][{r}]: must be 0 (no cost within a site), got {row[r]!r}"
            )


@dataclass(frozen=True)
class OkitaInstance(JsonMixin):
    """Sites, bandwidth costs, a horizon and a job sequence (arrival order).

    Attributes
    ----------
    n_slots
        ``T``.
    sites
        The sites ``r = 0..R-1``.
    bandwidth_cost
        ``q^{rr'}`` per MB, ``R`` rows of ``R`` values, zero diagonal.
    jobs
        The jobs, sorted by arrival (ties keep their order).
    resources
        Names of the ``K`` resource types.
    """

    FORMAT: ClassVar[str] = FORMAT  # JSON format tag (JsonMixin)

    n_slots: int
    sites: tuple[Site, ...]
    bandwidth_cost: tuple[tuple[float, ...], ...]
    jobs: tuple[Job, ...]
    resources: tuple[str, ...] = DEFAULT_RESOURCES
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        T = as_size(self.n_slots, "n_slots", MAX_SLOTS, lo=1, why="MAX_SLOTS")
        res = self.resources
        if (
            not isinstance(res, tuple)
            or not res
            or not all(isinstance(k, str) and k for k in res)
            or len(set(res)) != len(res)
        ):
            raise InvalidInstanceError(
                f"resources: must be distinct non-empty names, got {res!r}"
            )
        K = len(res)
        if not isinstance(self.sites, tuple) or not self.sites:
            raise InvalidInstanceError(
                f"sites: need at least one site, got {self.sites!r}"
            )
        if not isinstance(self.jobs, tuple | list):
            raise InvalidInstanceError(f"jobs: must be a list, got {self.jobs!r}")
        check_sizes(len(self.jobs), len(self.sites), T, K)
        for r, site in enumerate(self.sites):
            if not isinstance(site, Site):
                raise InvalidInstanceError(f"sites[{r}]: not a Site, got {site!r}")
            as_vector(site.capacity, f"sites[{r}].capacity (C_r^k)", K)
            if not isinstance(site.name, str):
                raise InvalidInstanceError(
                    f"sites[{r}].name: must be a string, got {site.name!r}"
                )
        R = len(self.sites)
        _check_q(self.bandwidth_cost, R)
        for i, job in enumerate(self.jobs):
            if not isinstance(job, Job):
                raise InvalidInstanceError(f"jobs[{i}]: not a Job, got {job!r}")
            _check_job(job, f"jobs[{i}]", T, R, K)
        arr = [job.arrival for job in self.jobs]
        if arr != sorted(arr):
            raise InvalidInstanceError(
                f"jobs: must be sorted by arrival (online order), got arrivals {arr}"
            )

    # ----------------------------------------------------------------- sizes
    @property
    def n_jobs(self) -> int:
        """``I``."""
        return len(self.jobs)

    @property
    def n_sites(self) -> int:
        """``R``."""
        return len(self.sites)

    @property
    def n_resources(self) -> int:
        """``K``."""
        return len(self.resources)

    # ------------------------------------------------------- derived arrays
    @cached_property
    def capacity(self) -> np.ndarray:
        """``C_r^k`` as an (R, K) array."""
        return np.array([s.capacity for s in self.sites], dtype=float)

    @cached_property
    def q(self) -> np.ndarray:
        """``q^{rr'}`` as an (R, R) array (cost per MB)."""
        return np.array(self.bandwidth_cost, dtype=float)

    @cached_property
    def arrival(self) -> np.ndarray:
        """``a_i`` (1-based slots)."""
        return np.array([j.arrival for j in self.jobs], dtype=np.int64)

    @cached_property
    def D(self) -> np.ndarray:
        """``D_i^r`` as an (I, R) int array."""
        return np.array([j.data for j in self.jobs], dtype=np.int64).reshape(
            -1, self.n_sites
        )

    @cached_property
    def epochs(self) -> np.ndarray:
        """``E_i``."""
        return np.array([j.epochs for j in self.jobs], dtype=np.int64)

    @cached_property
    def rho(self) -> np.ndarray:
        """``rho_i``."""
        return np.array([j.rho for j in self.jobs], dtype=float)

    @cached_property
    def m(self) -> np.ndarray:
        """``m_i^k`` as an (I, K) array."""
        return np.array([j.worker_demand for j in self.jobs], dtype=float).reshape(
            -1, self.n_resources
        )

    @cached_property
    def n(self) -> np.ndarray:
        """``n_i^k`` as an (I, K) array."""
        return np.array([j.ps_demand for j in self.jobs], dtype=float).reshape(
            -1, self.n_resources
        )

    @cached_property
    def delta(self) -> np.ndarray:
        """``delta_i`` (MB per chunk)."""
        return np.array([j.chunk_mb for j in self.jobs], dtype=float)

    @cached_property
    def pi(self) -> np.ndarray:
        """``pi_i`` (MB per worker and slot)."""
        return np.array([j.param_mb for j in self.jobs], dtype=float)

    def latency_cost(self, durations: Any) -> np.ndarray:
        """``f_i(d_i)`` for one duration per job (length ``I``)."""
        d = np.asarray(durations)
        return np.array(
            [job.cost(d[i]) for i, job in enumerate(self.jobs)], dtype=float
        )

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``format`` tags the schema version)."""
        return {
            "format": FORMAT,
            "n_slots": self.n_slots,
            "resources": list(self.resources),
            "sites": [s.to_dict() for s in self.sites],
            "bandwidth_cost": [list(row) for row in self.bandwidth_cost],
            "jobs": [j.to_dict() for j in self.jobs],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OkitaInstance:
        """Build and validate an instance from :meth:`to_dict` output.

        Unknown fields (top level, in a site, a job or its cost) are refused,
        naming the field.
        """
        check_keys(data, FIELDS)
        cls.check_format(data)
        sites = []
        for r, d in enumerate(as_list(require(data, "sites"), "sites")):
            p = f"sites[{r}]"
            check_keys(d, SITE_FIELDS, p)
            cap = as_list(require(d, "capacity", p), f"{p}.capacity (C_r^k)")
            sites.append(Site(capacity=tuple(cap), name=d.get("name", "")))
        q: Any = as_list(require(data, "bandwidth_cost"), "bandwidth_cost (q^rr')")
        q = tuple(
            tuple(as_list(row, f"bandwidth_cost (q^rr')[{r}]"))
            for r, row in enumerate(q)
        )
        jobs = []
        for i, d in enumerate(as_list(require(data, "jobs"), "jobs")):
            p = f"jobs[{i}]"
            check_keys(d, _JOB_FIELDS, p)
            kw = {k: require(d, k, p) for k in _JOB_FIELDS}
            for k, sym in (("data", "D_i^r"), ("worker_demand", "m_i^k")):
                kw[k] = tuple(as_list(kw[k], f"{p}.{k} ({sym})"))
            kw["ps_demand"] = tuple(as_list(kw["ps_demand"], f"{p}.ps_demand (n_i^k)"))
            try:
                kw["cost"] = LatencyCost.from_dict(kw["cost"], "cost")
            except InvalidInstanceError as exc:
                raise InvalidInstanceError(f"{p}.{exc}") from None
            jobs.append(Job(**kw))
        res = require(data, "resources")
        return cls(
            n_slots=require(data, "n_slots"),
            sites=tuple(sites),
            bandwidth_cost=q,
            jobs=tuple(jobs),
            resources=tuple(as_list(res, "resources")),
        )


_JOB_FIELDS = (
    "arrival",
    "data",
    "epochs",
    "rho",
    "worker_demand",
    "ps_demand",
    "chunk_mb",
    "param_mb",
    "cost",
)


# --------------------------------------------------------------------------
# The calibration witness (the generator's and local_first's placement rule)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Placement:
    """One job's witness rows and the capacity they use (not yet committed)."""

    job: int
    completion: int
    ps_every_slot: bool
    workers: list[tuple[int, int, int, int]]
    ps: list[tuple[int, int, int]]
    data: list[tuple[int, int, int, int, int]]
    usage: dict[int, np.ndarray]  # slot -> (2, R, K): workers, PS


class _Fitter:
    """Residual capacity per slot and the per-job rule of :func:`local_first`.

    Slots beyond the horizon start empty, so a job that fits on the empty
    sites always finishes (possibly after ``T``; the checker then rejects).
    """

    def __init__(
        self,
        capacity: np.ndarray,
        q: np.ndarray,
        n_slots: int,
        ps_share: float,
        ps_uses: np.ndarray,
    ) -> None:
        self.capacity = np.asarray(capacity, dtype=float)
        # workers leave ps_share free of each resource a PS may use (not GPU)
        keep = np.where(np.asarray(ps_uses, dtype=bool), ps_share, 0.0)
        self.worker_cap = (1.0 - keep) * self.capacity
        self.q = np.asarray(q, dtype=float)
        self.order = np.argsort(self.q, axis=1, kind="stable")  # cheapest first
        self.used: dict[int, np.ndarray] = {}  # slot -> (2, R, K): workers, PSs
        self.n_slots = n_slots

    def _residual(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Free capacity for anything and free capacity for workers in slot ``t``."""
        u = self.used.get(t)
        if u is None:
            return self.capacity, self.worker_cap
        res = self.capacity - u[0] - u[1]
        return res, np.minimum(self.worker_cap - u[0], res)

    @staticmethod
    def _workers(res: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Workers of demand ``m`` that fit on each site of residual ``res``."""
        pos = m > 0
        fit = np.floor((res[:, pos] + EPS) / m[pos]).min(axis=1)
        return np.maximum(fit, 0).astype(np.int64)

    def _ps_choice(
        self,
        res: tuple[np.ndarray, np.ndarray],
        m: np.ndarray,
        n: np.ndarray,
        per: float,
        left: int,
    ) -> tuple[int, np.ndarray] | None:
        """PS site and workers per site that train the most chunks this slot.

        Among PS sites that fit, the one that trains ``min(left, chunk
        capacity)`` chunks at most; ties go to the PS site hosting the most
        workers, then to the lowest index.  None if no PS fits.
        """
        total, for_workers = res
        fits = (total + EPS >= n).all(axis=1)
        if not fits.any():
            return None
        free = self._workers(for_workers, m)
        with_ps = self._workers(np.maximum(np.minimum(for_workers, total - n), 0.0), m)
        chunks = np.floor(per * free + EPS)
        chunks_ps = np.floor(per * with_ps + EPS)
        total = np.minimum(chunks.sum() - chunks + chunks_ps, left)
        total = np.where(fits, total, -1.0)
        best = np.flatnonzero(total == total.max())
        p = int(best[np.argmax(with_ps[best])])
        cap = free.copy()
        cap[p] = with_ps[p]
        return p, cap

    def place(self, i: int, job: Job, limit: int | None = None) -> _Placement | None:
        """Place job ``i`` slot by slot from ``a_i`` (None: fits nowhere).

        In each slot: the PS site of :meth:`_ps_choice`; each site trains
        its own remaining chunks with as many workers as fit; chunks left on
        sites without room go to the sites with spare workers, cheapest
        ``q^{rr'}`` first (ties: lowest index); each site then uses the
        fewest workers that train what it received, ``ceil(E_i g / rho_i)``.
        Stops when all chunks are trained or after slot ``limit``.
        """
        m = np.asarray(job.worker_demand, dtype=float)
        n = np.asarray(job.ps_demand, dtype=float)
        E, rho = job.epochs, float(job.rho)
        per = rho / E  # chunks one worker trains per slot
        empty = self._ps_choice((self.capacity, self.worker_cap), m, n, per, 1)
        if empty is None or np.floor(per * empty[1] + EPS).sum() < 1:
            return None  # cannot train a single chunk even on empty sites
        left = np.asarray(job.data, dtype=np.int64).copy()
        workers: list[tuple[int, int, int, int]] = []
        ps: list[tuple[int, int, int]] = []
        data: list[tuple[int, int, int, int, int]] = []
        usage: dict[int, np.ndarray] = {}
        t, every = job.arrival, True
        while left.sum() > 0 and (limit is None or t <= limit):
            res = self._residual(t)
            choice = self._ps_choice(res, m, n, per, int(left.sum()))
            if choice is None:
                every = False
                t += 1
                continue
            p, cap = choice
            room = np.floor(per * cap + EPS).astype(np.int64)  # chunks per site
            local = np.minimum(left, room)
            load = local.copy()
            # (source, destination) -> chunks; numpy ints on the diagonal
            g: dict[tuple[Any, Any], int] = {
                (r, r): int(local[r]) for r in np.flatnonzero(local)
            }
            rest = left - local
            for r in np.flatnonzero(rest):
                spare = (room - load)[self.order[r]]
                before = np.concatenate(([0], np.cumsum(spare)[:-1]))
                take = np.clip(rest[r] - before, 0, spare)
                for dst, x in zip(self.order[r][take > 0], take[take > 0], strict=True):
                    g[(int(r), int(dst))] = int(x)
                    load[dst] += x
                rest[r] -= take.sum()
            y = np.ceil(E * load / rho - EPS).astype(np.int64)
            use = np.zeros((2, *self.capacity.shape))
            use[0] = np.outer(y, m)
            use[1, p] = n
            usage[t] = use
            ps.append((i, t, p))
            workers.extend((i, t, int(r), int(y[r])) for r in np.flatnonzero(y))
            data.extend((i, t, r, d, x) for (r, d), x in sorted(g.items()))
            left = rest
            t += 1
        done = t - 1 if left.sum() == 0 else t
        return _Placement(i, int(done), every, workers, ps, data, usage)

    def commit(self, placed: _Placement) -> None:
        """Subtract the placement's usage from the residual capacity."""
        for t, use in placed.usage.items():
            self.used[t] = self.used.get(t, 0.0) + use


# --------------------------------------------------------------------------
# Generator (Sec. V-B simulation setting; calibration in docs/okita.md)
# --------------------------------------------------------------------------

#: Sec. V-B: sites configured as EC2 GPU instances P3, P2 and G3:
#: name -> (GPUs, vCPUs, memory GiB); disk is not given (EBS-only
#: instances), every site gets ``SITE_DISK_GB``.
EC2_SITES: dict[str, tuple[float, float, float]] = {
    "p3.2xlarge": (1, 8, 61),
    "p3.8xlarge": (4, 32, 244),
    "p3.16xlarge": (8, 64, 488),
    "p2.xlarge": (1, 4, 61),
    "p2.8xlarge": (8, 32, 488),
    "p2.16xlarge": (16, 64, 732),
    "g3.4xlarge": (1, 16, 122),
    "g3.8xlarge": (2, 32, 244),
    "g3.16xlarge": (4, 64, 488),
}
SITE_DISK_GB = 1000.0
WORKER_RANGES = ((0, 4), (1, 10), (2, 32), (5, 10))  # GPU, vCPU, GB, GB disk
PS_RANGES = ((0, 0), (1, 10), (2, 32), (5, 10))
Q_PER_100MB = (2.0, 8.0)
CHUNK_MB = (20.0, 60.0)
PARAM_MB = (30.0, 575.0)
CHUNKS_PER_WORKER = (5, 15)  # rho_i / E_i
EPOCHS = (20, 30)  # Sec. V-A testbed; Sec. V-B gives only rho_i / E_i
TAU = (20.0, 100.0)
LINEAR_B = (50.0, 200.0)
PIECEWISE_TAU2 = (300.0, 400.0)
PIECEWISE_C = (3, 5)
EXP_RATE = 0.25
#: Midpoint ``t0`` of the ``sigmoid`` reading: 4 slots, the middle of the
#: piecewise cost's segment point ``c`` in [3, 5] -- the only deadline-like
#: duration Sec. V-B gives, which calls the sigmoid "a mix of the above
#: functions" (linear and piecewise).  A constant, so a ``sigmoid`` instance
#: draws exactly what the ``exp`` one of the same seed draws.
SIGMOID_T0 = 4.0
COST_KINDS = tuple(COST_PARAMS)
#: Share of every site's capacity the calibration witness keeps free of
#: workers (room for the PSs of later arrivals), see ``generate``.
PS_SHARE = 0.25


def _draw_cost(rng: np.random.Generator, kind: str) -> LatencyCost:
    tau = float(rng.uniform(*TAU))
    if kind == "exp":
        return LatencyCost.exp(tau, EXP_RATE)
    if kind == "sigmoid":  # same draws as exp: only f differs
        return LatencyCost.sigmoid(tau, EXP_RATE, SIGMOID_T0)
    if kind == "linear":
        return LatencyCost.linear(tau, float(rng.uniform(*LINEAR_B)))
    c = int(rng.integers(PIECEWISE_C[0], PIECEWISE_C[1] + 1))
    return LatencyCost.piecewise(tau, float(rng.uniform(*PIECEWISE_TAU2)), float(c))


def _draw_job(
    rng: np.random.Generator,
    arrival: int,
    R: int,
    cost: str,
    data_range: tuple[int, int],
) -> Job:
    E = int(rng.integers(EPOCHS[0], EPOCHS[1] + 1))
    k = int(rng.integers(CHUNKS_PER_WORKER[0], CHUNKS_PER_WORKER[1] + 1))
    return Job(
        arrival=arrival,
        data=tuple(
            int(d) for d in rng.integers(data_range[0], data_range[1] + 1, size=R)
        ),
        epochs=E,
        rho=float(k * E),
        worker_demand=tuple(
            float(rng.integers(lo, hi + 1)) for lo, hi in WORKER_RANGES
        ),
        ps_demand=tuple(float(rng.integers(lo, hi + 1)) for lo, hi in PS_RANGES),
        chunk_mb=float(rng.uniform(*CHUNK_MB)),
        param_mb=float(rng.uniform(*PARAM_MB)),
        cost=_draw_cost(rng, cost),
    )


def _check_generate_args(
    n_sites: int,
    n_jobs: int,
    n_slots: int,
    cost: str,
    arrival_window: float,
    data_range: tuple[int, int],
    ps_share: float,
    max_redraws: int,
) -> tuple[int, int, int]:
    """``generate``'s arguments checked (``InvalidInstanceError`` naming the
    field); returns ``R, I, T``."""
    check_sizes(n_jobs, n_sites, n_slots, len(DEFAULT_RESOURCES))
    R = as_int(n_sites, "n_sites", lo=1)
    I_ = as_int(n_jobs, "n_jobs", lo=0)
    T = as_int(n_slots, "n_slots", lo=1)
    if cost not in COST_PARAMS:
        raise InvalidInstanceError(
            f"cost: must be one of {', '.join(COST_PARAMS)}, got {cost!r}"
        )
    as_float(arrival_window, "arrival_window", lo=0.0, lo_open=True, hi=1.0)
    lo = as_int(data_range[0], "data_range[0]", lo=0, hi=MAX_COUNT)
    as_int(data_range[1], "data_range[1]", lo=max(lo, 1), hi=MAX_COUNT)
    as_float(ps_share, "ps_share", lo=0.0, hi=1.0)
    as_int(max_redraws, "max_redraws", lo=0)
    return R, I_, T


def _draw_sites(rng: np.random.Generator, R: int) -> list[Site]:
    """``R`` sites, each an EC2 size of :data:`EC2_SITES` drawn uniformly."""
    names = list(EC2_SITES)
    sites = []
    for _ in range(R):
        name = names[int(rng.integers(len(names)))]
        gpu, cpu, mem = EC2_SITES[name]
        sites.append(
            Site(capacity=(float(gpu), float(cpu), float(mem), SITE_DISK_GB), name=name)
        )
    return sites


def _calibrated_job(
    rng: np.random.Generator,
    fitter: _Fitter,
    index: int,
    arrival: int,
    R: int,
    T: int,
    cost: str,
    data_range: tuple[int, int],
    max_redraws: int,
) -> tuple[Job, int]:
    """The job arriving in slot ``arrival``, redrawn until the witness places
    it (``generate``, "Calibration"), committed to ``fitter``; and the
    number of redraws."""
    for attempt in range(max_redraws + 1):
        job = _draw_job(rng, arrival, R, cost, data_range)
        placed = fitter.place(index, job, limit=T)
        if placed is not None and placed.completion <= T and placed.ps_every_slot:
            fitter.commit(placed)
            return job, attempt
    raise InvalidInstanceError(
        f"n_slots: {T} too short for a job arriving in slot {arrival} after "
        f"{max_redraws} redraws (raise n_slots or lower n_jobs)"
    )


def generate(
    seed: int = 0,
    n_sites: int = 5,
    n_jobs: int = 10,
    n_slots: int = 150,
    cost: str = "exp",
    *,
    arrival_window: float = 0.5,
    data_range: tuple[int, int] = (10, 20),
    ps_share: float = PS_SHARE,
    max_redraws: int = 1000,
) -> OkitaInstance:
    """Random instance in the simulation setting of Sec. V-B.

    Kept from the paper: each site an EC2 P3 / P2 / G3 instance (GPU, vCPU,
    memory; uniform over the nine sizes of :data:`EC2_SITES`); worker demand
    0-4 GPU, 1-10 vCPU, 2-32 GB memory, 5-10 GB disk; PS demand the same
    without GPU; ``q^{rr'}`` uniform in [2, 8] per 100 MB (symmetric, zero
    diagonal); ``D_i^r`` in [10, 20] on every site; ``delta_i`` in [20, 60]
    MB; ``rho_i / E_i`` in [5, 15]; ``pi_i`` in [30, 575] MB; latency cost
    of kind ``cost`` with ``tau`` in [20, 100] and ``rate = 0.25`` (exp),
    ``b`` in [50, 200] (linear), ``tau2`` in [300, 400] and ``c`` in
    {3, 4, 5} (piecewise); the ``sigmoid`` reading draws what ``exp`` draws
    (``tau`` in [20, 100], ``rate = 0.25``) with ``t0 = SIGMOID_T0``, so its
    instance equals the ``exp`` instance of the same seed but for ``f``.
    Integer quantities are drawn uniformly among
    integers, real ones uniformly.

    Not given in Sec. V-B: site disk (1000 GB, EC2 GPU instances have EBS
    storage only), ``E_i`` (the testbed's [20, 30]; only ``rho_i / E_i``
    matters, drawn as an integer so ``rho_i = k E_i``), arrivals ("arrive
    randomly": uniform in the first ``arrival_window * T`` slots).

    Calibration: the jobs are placed, in arrival order, by the witness
    :func:`~optsched.okita.schedule.local_first` (each job as early as the
    capacity left by the earlier jobs allows, local chunks first, the rest
    moved to the cheapest sites with free workers; workers of all jobs
    together keep ``ps_share`` of every PS resource -- vCPU, memory, disk,
    not GPU -- of every site free for PSs); a job is
    redrawn (all parameters but its arrival) until its witness keeps a PS
    in every slot of ``[a_i, t_i]`` and finishes by ``T``.  So every
    instance has a feasible schedule under the strict reading of (2c), and
    ``local_first(inst)`` (same ``ps_share``) is that schedule.
    ``meta["redraws"]`` counts the redraws.  At the defaults and at the
    paper's size with ``T = 150`` there are (almost) none, so the paper's
    distributions hold; shorter horizons at the paper's size bias towards
    small jobs, and ``T`` below about 40 is infeasible there (the GPU work
    alone exceeds the sites' GPU-slots; numbers in ``docs/okita.md``).  If
    ``max_redraws`` draws all fail the generator raises
    ``InvalidInstanceError`` naming ``n_slots``.

    Parameters
    ----------
    seed
        Seed of ``numpy.random.default_rng``; same seed, same instance.
    n_sites, n_jobs, n_slots
        ``R``, ``I``, ``T``.
    cost
        Latency-cost kind of every job: ``"exp"`` (default), ``"linear"``,
        ``"piecewise"`` or ``"sigmoid"`` (the saturating reading).
    arrival_window
        Arrivals are uniform in slots ``1..ceil(arrival_window * T)``.
    data_range
        Range of ``D_i^r`` (paper: [10, 20]); smaller ranges give MILP-sized
        instances.
    ps_share
        Share of each site's capacity the witness keeps free of workers
        (:data:`PS_SHARE` = 0.25).
    max_redraws
        Draws per job before giving up.
    """
    R, I_, T = _check_generate_args(
        n_sites,
        n_jobs,
        n_slots,
        cost,
        arrival_window,
        data_range,
        ps_share,
        max_redraws,
    )
    rng = np.random.default_rng(seed)
    sites = _draw_sites(rng, R)
    q = np.triu(rng.uniform(*Q_PER_100MB, size=(R, R)) / 100.0, k=1)
    q = q + q.T
    bandwidth_cost = tuple(tuple(float(v) for v in row) for row in q)
    last = max(1, math.ceil(arrival_window * T))
    arrivals = np.sort(rng.integers(1, last + 1, size=I_))
    ps_uses = np.array([hi > 0 for _, hi in PS_RANGES])
    fitter = _Fitter(np.array([s.capacity for s in sites]), q, T, ps_share, ps_uses)
    jobs: list[Job] = []
    redraws = 0
    for a in arrivals:
        job, tries = _calibrated_job(
            rng, fitter, len(jobs), int(a), R, T, cost, data_range, max_redraws
        )
        redraws += tries
        jobs.append(job)
    return OkitaInstance(
        n_slots=T,
        sites=tuple(sites),
        bandwidth_cost=bandwidth_cost,
        jobs=tuple(jobs),
        resources=DEFAULT_RESOURCES,
        meta={"seed": seed, "redraws": redraws, "cost": cost},
    )
