"""Independent checker for edge-cloud schedules: (2a)-(2k), (7b) and objective (2).

The checker never calls algorithm code.  It recomputes every constraint
from the schedule rows and the instance alone (readings in
``docs/edgecloud.md``), in this order:

* (2k) domain: well-formed rows, indices inside ``[J]``, ``[D_j]``, ``[T]``,
  ``[S]``, ``[W_s]`` / ``[P_s]`` (cloud: any index >= 0), no row twice
  (``y, z`` binary), ``zeta_j`` binary;
* (2a) ``y_jsw(t) <= v_jsw``: an edge worker has the job's worker type;
* (2i) no run and no PS of job ``j`` on server ``s`` before ``r_j + Delta_js``;
* (2c) read with its text (and (4e)): a chunk is trained by at most one
  worker, i.e. by one worker per slot and by the same worker in every slot
  (no migration, Sec. III); the count ``<= D_j`` follows;
* (2d) read as (4b): a worker trains at most one chunk per slot;
* (2e) exactly one qualified PS (``o_jsp = 1``) in every slot in which job
  ``j`` trains; at most one PS and only qualified PSs in any slot;
* (2f) a PS serves at most one job per slot;
* (2g)-(2h) ``zeta_j = 1`` iff every run and PS of ``j`` is in the cloud;
* Sec. III "preemption is allowed in servers except for the cloud": the
  slots of a chunk on a cloud worker are consecutive;
* (2b) read per chunk as (4a): each chunk gets ``n_j |slots| >= E_j B_j``
  with ``n_j`` of Eq. (1) for the declared ``zeta_j`` (so (2b) holds);
* (7b) when the instance has storage: chunks dispatched to edge server
  ``s`` occupy ``u_j`` on ``s`` in ``[r_j, c_j]`` ((7a), (7c)-(7d) define
  ``x_jds(t)``) and never exceed ``U_s``;
* (2j) ``c_j`` = last slot with a run of job ``j``; objective
  ``sum_j (c_j - r_j)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.base import TOL, EvaluationBase
from optsched.core.errors import InfeasibleScheduleError

from .instance import EdgeCloudInstance
from .schedule import EdgeCloudSchedule

NO_CLOUD_PREEMPTION = "Sec. III"


@dataclass(frozen=True, eq=False)
class EdgeCloudEvaluation(EvaluationBase):
    """What the checker recomputed.

    Attributes
    ----------
    objective
        Total JCT ``sum_j (c_j - r_j)`` of (2), in slots.
    completion
        ``c_j`` of (2j) (1-based slot).
    jct
        ``c_j - r_j`` per job.
    zeta
        ``zeta_j`` per job.
    preemptions
        Per job, how often one of its chunks stopped before finishing and
        resumed later (gaps between a chunk's runs, summed over chunks).
    utilization
        Per slot, share of edge workers training a chunk (NaN without edge
        workers).
    ps_utilization
        Per slot, share of edge PSs serving a job (NaN without edge PSs).
    cloud_workers
        Per slot, number of cloud workers in use.
    """

    SUMMARY = ("mean_jct", "n_preemptions")
    PER_JOB = ("completion", "jct", "zeta", "preemptions")

    completion: np.ndarray
    jct: np.ndarray
    zeta: np.ndarray
    preemptions: np.ndarray
    utilization: np.ndarray
    ps_utilization: np.ndarray
    cloud_workers: np.ndarray

    @property
    def n_preemptions(self) -> int:
        """Total preemption count (Figs. 5, 9, 10)."""
        return int(self.preemptions.sum())

    @property
    def mean_jct(self) -> float:
        """Average JCT (NaN without jobs)."""
        return float(self.jct.mean()) if len(self.jct) else float("nan")


def _fail(eq: str, msg: str) -> None:
    raise InfeasibleScheduleError(f"constraint {eq}: {msg}", constraint=eq)


def _where(inst: EdgeCloudInstance, s: int) -> str:
    return "the cloud" if s == inst.cloud else f"edge server {s}"


def _keys(rows: np.ndarray) -> np.ndarray:
    """One int64 per row, equal iff the (non-negative) rows are equal."""
    key = np.zeros(len(rows), dtype=np.int64)
    total = 1
    for col in rows.T:
        base = int(col.max()) + 1 if len(col) else 1
        total *= base
        if total > 2**62:  # mixed radix would overflow: rank the rows instead
            return np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1)
        key = key * base + col
    return key


def _dup(rows: np.ndarray) -> np.ndarray | None:
    """First row (in key order) that occurs more than once, or None."""
    if len(rows) == 0:
        return None
    key = _keys(rows)
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    return rows[order[same[0]]] if len(same) else None


def _bad_index(
    inst: EdgeCloudInstance,
    j: np.ndarray,
    t: np.ndarray,
    s: np.ndarray,
    local: np.ndarray,
    n_local: np.ndarray,
) -> np.ndarray:
    """Rows whose job, slot, server or local worker/PS index is out of range."""
    c = inst.cloud
    ok = (j >= 0) & (j < inst.n_jobs) & (t >= 1) & (t <= inst.n_slots)
    ok &= (s >= 0) & (s <= c) & (local >= 0)
    cap = np.append(n_local, np.iinfo(np.int64).max)
    return ~ok | (local >= cap[np.clip(s, 0, c)])


def _check_domain(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> None:
    """(2k): shapes, index ranges, binary ``y``, ``z``, ``zeta``."""
    J = inst.n_jobs
    runs, ps, zeta = (np.asarray(a) for a in (sched.runs, sched.ps, sched.zeta))
    for name, arr, width in (("runs", runs, 5), ("ps", ps, 4)):
        if arr.ndim != 2 or arr.shape[1] != width or arr.dtype.kind not in "iu":
            _fail(
                "(2k)", f"{name}: need an integer array (K, {width}), got {arr.shape}"
            )
    if zeta.shape != (J,) or not np.isin(zeta.astype(float), (0.0, 1.0)).all():
        _fail("(2k)", f"zeta must be {J} values in {{0, 1}}, got {zeta.tolist()}")
    runs, ps = runs.astype(np.int64), ps.astype(np.int64)
    j, d, t, s, w = runs.T
    bad = _bad_index(inst, j, t, s, w, inst.n_workers)
    bad |= (d < 0) | (d >= np.append(inst.D, 0)[np.clip(j, 0, J)])
    if bad.any():
        row = tuple(runs[np.argmax(bad)].tolist())
        _fail(
            "(2k)",
            f"runs row (j, d, t, s, w) = {row} outside [J], [D_j], [T], [S], [W_s]",
        )
    bad = _bad_index(inst, ps[:, 0], ps[:, 1], ps[:, 2], ps[:, 3], inst.n_ps)
    if bad.any():
        row = tuple(ps[np.argmax(bad)].tolist())
        _fail("(2k)", f"ps row (j, t, s, p) = {row} outside [J], [T], [S], [P_s]")
    for name, arr in (("runs", runs), ("ps", ps)):
        dup = _dup(arr)
        if dup is not None:
            _fail(
                "(2k)", f"{name} row {tuple(dup.tolist())} appears twice (not binary)"
            )


def _edge_types(
    n_local: np.ndarray, types: tuple[np.ndarray, ...], s: np.ndarray, local: np.ndarray
) -> np.ndarray:
    """Type of local worker/PS ``local`` of edge server ``s`` (rows on the edge)."""
    offset = np.concatenate(([0], np.cumsum(n_local)))[:-1]
    flat = np.concatenate(types) if types else np.zeros(0, dtype=np.int64)
    return flat[offset[s] + local]


def _check_placement(inst: EdgeCloudInstance, runs: np.ndarray, ps: np.ndarray) -> None:
    """(2a), (2i), (2c), (2d) on the run rows; (2i) on the PS rows."""
    edge = runs[runs[:, 3] != inst.cloud]
    have = _edge_types(inst.n_workers, inst.worker_types, edge[:, 3], edge[:, 4])
    want = np.array([job.worker_type for job in inst.jobs], dtype=np.int64)
    bad = have != want[edge[:, 0]]
    if bad.any():
        j, d, t, s, w = edge[np.argmax(bad)].tolist()
        _fail(
            "(2a)",
            f"job {j} chunk {d}, slot {t}: worker {w} of edge server {s} has type "
            f"{inst.worker_types[s][w]}, job needs {want[j]} (v_jsw = 0)",
        )
    for name, j, t, s in (
        ("worker", runs[:, 0], runs[:, 2], runs[:, 3]),
        ("PS", ps[:, 0], ps[:, 1], ps[:, 2]),
    ):
        ready = inst.arrival[j] + inst.delay[j, s]
        early = t < ready
        if early.any():
            k = int(np.argmax(early))
            _fail(
                "(2i)",
                f"job {j[k]} has a {name} on {_where(inst, int(s[k]))} in slot "
                f"{t[k]} < r_j + Delta_js = {ready[k]}",
            )
    key = _dup(runs[:, :3])
    if key is not None:
        j, d, t = key.tolist()
        _fail("(2c)", f"job {j} chunk {d} is trained by two workers in slot {t}")
    if len(runs):
        chunk, worker = _keys(runs[:, :2]), _keys(runs[:, 3:5])
        order = np.lexsort((worker, chunk))
        a, b = chunk[order], worker[order]
        moved = np.flatnonzero((a[1:] == a[:-1]) & (b[1:] != b[:-1]))
        if len(moved):
            j, d = runs[order[moved[0]], :2].tolist()
            _fail(
                "(2c)", f"job {j} chunk {d} migrates between workers (dispatched once)"
            )
    key = _dup(runs[:, [3, 4, 2]])
    if key is not None:
        s, w, t = key.tolist()
        _fail("(2d)", f"worker {w} of {_where(inst, s)} trains two chunks in slot {t}")


def _check_ps(inst: EdgeCloudInstance, runs: np.ndarray, ps: np.ndarray) -> None:
    """(2e) and (2f)."""
    edge = ps[ps[:, 2] != inst.cloud]
    have = _edge_types(inst.n_ps, inst.ps_types, edge[:, 2], edge[:, 3])
    want = np.array([job.ps_type for job in inst.jobs], dtype=np.int64)
    bad = have != want[edge[:, 0]]
    if bad.any():
        j, t, s, p = edge[np.argmax(bad)].tolist()
        _fail(
            "(2e)",
            f"job {j}, slot {t}: PS {p} of edge server {s} has type "
            f"{inst.ps_types[s][p]}, job needs {want[j]} (o_jsp = 0)",
        )
    key = _dup(ps[:, :2])
    if key is not None:
        _fail("(2e)", f"job {key[0]} has two PSs in slot {key[1]}")
    base = inst.n_slots + 1
    active = runs[:, 0] * base + runs[:, 2]
    missing = ~np.isin(active, ps[:, 0] * base + ps[:, 1])
    if missing.any():
        j, _d, t, _s, _w = runs[np.argmax(missing)].tolist()
        _fail("(2e)", f"job {j} trains in slot {t} without a PS")
    key = _dup(ps[:, [2, 3, 1]])
    if key is not None:
        s, p, t = key.tolist()
        _fail("(2f)", f"PS {p} of {_where(inst, s)} serves two jobs in slot {t}")


def _check_zeta(
    inst: EdgeCloudInstance, runs: np.ndarray, ps: np.ndarray, zeta: np.ndarray
) -> None:
    """(2g)-(2h): ``zeta_j = 1`` iff every run and PS of job ``j`` is in the cloud."""
    J, c = inst.n_jobs, inst.cloud
    has = np.zeros(J, dtype=bool)
    has[runs[:, 0]] = True
    edge = np.zeros(J, dtype=bool)
    edge[runs[runs[:, 3] != c, 0]] = True
    edge[ps[ps[:, 2] != c, 0]] = True
    bad = np.flatnonzero(zeta & edge)
    if len(bad):
        _fail("(2h)", f"job {bad[0]} declares zeta_j = 1 but uses an edge worker or PS")
    bad = np.flatnonzero(~zeta & has & ~edge)
    if len(bad):
        _fail(
            "(2g)", f"job {bad[0]} runs entirely in the cloud but declares zeta_j = 0"
        )


def _chunk_ids(inst: EdgeCloudInstance, runs: np.ndarray) -> np.ndarray:
    """Flat chunk index ``sum_{j' < j} D_j' + d`` of every run row."""
    offset = np.concatenate(([0], np.cumsum(inst.D)))
    return offset[runs[:, 0]] + runs[:, 1]


def _gaps(inst: EdgeCloudInstance, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted run rows and, per row, whether it resumes its chunk after a gap."""
    ids = _chunk_ids(inst, runs)
    order = np.lexsort((runs[:, 2], ids))
    r, ids = runs[order], ids[order]
    resumed = np.zeros(len(r), dtype=bool)
    resumed[1:] = (ids[1:] == ids[:-1]) & (r[1:, 2] - r[:-1, 2] > 1)
    return r, resumed


def _check_work(inst: EdgeCloudInstance, runs: np.ndarray, zeta: np.ndarray) -> None:
    """Sec. III (no preemption in the cloud) and (2b) per chunk."""
    r, resumed = _gaps(inst, runs)
    bad = resumed & (r[:, 3] == inst.cloud)
    if bad.any():
        j, d, t, _, w = r[np.argmax(bad)].tolist()
        _fail(
            NO_CLOUD_PREEMPTION,
            f"job {j} chunk {d} on cloud worker {w} resumes in slot {t} after a "
            "gap (no preemption in the cloud)",
        )
    n_chunks = int(inst.D.sum())
    slots = np.bincount(_chunk_ids(inst, runs), minlength=n_chunks)
    job = np.repeat(np.arange(inst.n_jobs), inst.D)
    rate = inst.rate[job, zeta[job].astype(int)]
    need = inst.chunk_work[job]
    short = slots * rate < need * (1.0 - TOL)
    if short.any():
        k = int(np.argmax(short))
        j = int(job[k])
        d = k - int(inst.D[:j].sum())
        _fail(
            "(2b)",
            f"job {j} chunk {d} trains {slots[k]} slots x n_j = {rate[k]:.6g} = "
            f"{slots[k] * rate[k]:.6g} < E_j B_j = {need[k]} mini-batches",
        )


def _check_storage(
    inst: EdgeCloudInstance, runs: np.ndarray, completion: np.ndarray
) -> None:
    """(7b): stored chunks of edge server ``s`` fit ``U_s`` in every slot."""
    S_e, T = len(inst.servers), inst.n_slots
    edge = np.unique(runs[runs[:, 3] != inst.cloud][:, [0, 1, 3]], axis=0)
    occ = np.zeros((S_e, T + 1))
    for j, _d, s in edge.tolist():
        u = inst.jobs[j].chunk_mb
        occ[s, inst.arrival[j] - 1] += u
        occ[s, completion[j]] -= u
    occ = np.cumsum(occ, axis=1)[:, :T]
    for s, srv in enumerate(inst.servers):
        if srv.storage_mb is None:
            continue
        over = occ[s] > srv.storage_mb + TOL * max(1.0, srv.storage_mb)
        if over.any():
            t = int(np.argmax(over))
            _fail(
                "(7b)",
                f"edge server {s}, slot {t + 1}: stored chunks {occ[s, t]:.6g} MB "
                f"> U_s = {srv.storage_mb:.6g} MB",
            )


def check(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> EdgeCloudEvaluation:
    """Validate ``sched`` against (2a)-(2k) (and (7b)) and recompute objective (2).

    Raises
    ------
    InfeasibleScheduleError
        Naming the violated equation and where (job, chunk, slot, server).
    """
    _check_domain(inst, sched)
    runs = np.asarray(sched.runs, dtype=np.int64)
    ps = np.asarray(sched.ps, dtype=np.int64)
    zeta = np.asarray(sched.zeta).astype(bool)
    _check_placement(inst, runs, ps)
    _check_ps(inst, runs, ps)
    _check_zeta(inst, runs, ps, zeta)
    _check_work(inst, runs, zeta)
    completion = sched.completion(inst.n_jobs)
    if inst.storage:
        _check_storage(inst, runs, completion)
    return _evaluate(inst, runs, ps, zeta, completion)


def _evaluate(
    inst: EdgeCloudInstance,
    runs: np.ndarray,
    ps: np.ndarray,
    zeta: np.ndarray,
    completion: np.ndarray,
) -> EdgeCloudEvaluation:
    """(2j), objective (2) and the metrics of Sec. V (schedule only)."""
    T, c = inst.n_slots, inst.cloud
    jct = completion - inst.arrival
    r, resumed = _gaps(inst, runs)
    preempt = np.bincount(r[resumed, 0], minlength=inst.n_jobs)
    at_edge = runs[:, 3] != c
    busy = np.bincount(runs[at_edge, 2], minlength=T + 1)[1:]
    ps_busy = np.bincount(ps[ps[:, 2] != c, 1], minlength=T + 1)[1:]
    W, P = int(inst.n_workers.sum()), int(inst.n_ps.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        util = busy / W if W else np.full(T, np.nan)
        ps_util = ps_busy / P if P else np.full(T, np.nan)
    return EdgeCloudEvaluation(
        objective=float(jct.sum()),
        completion=completion,
        jct=jct,
        zeta=zeta,
        preemptions=preempt,
        utilization=util.astype(float),
        ps_utilization=ps_util.astype(float),
        cloud_workers=np.bincount(runs[~at_edge, 2], minlength=T + 1)[1:],
    )
