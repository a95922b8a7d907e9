"""Independent checker for Okita schedules: (2a)-(2g) and objective (2).

The checker never calls algorithm code.  It recomputes every constraint
from the schedule rows and the instance alone (readings in
``docs/okita.md``), in this order:

* (2f)/(2g) domain: well-formed integer rows, indices inside ``[I]``,
  ``[T]`` (so every job completes within ``T``) and ``[R]``;
  ``y_i^r(t), g_i^{rr'}(t) >= 0`` ((2f)); no variable given twice (a
  repeated PS row would make ``s`` non-binary, (2g));
* Sec. III-A (no equation): no worker, PS or data row of job ``i`` before
  its arrival slot ``a_i``;
* (2a) per source site: ``sum_t sum_r' g_i^{rr'}(t) = D_i^r`` for every job
  ``i`` and site ``r`` (every chunk is trained exactly once, locally or
  after a transfer); summing over ``r`` gives (2a) as printed;
* (2b) per job, site and slot: ``rho_i y_i^{r'}(t) >= E_i sum_r
  g_i^{rr'}(t)``;
* (2e) ``t_i`` = last slot with ``sum_r y_i^r(t) > 0``;
* (2c) read inside the job's window (seeds/INDEX.md): exactly one PS in
  every slot of ``[a_i, t_i]`` and none outside (the printed "for every t"
  restricted to the window).  ``ps_every_slot=False`` relaxes this to the
  reading Alg. 1 line 19 needs (a delayed job drops its PS): at most one PS
  in any slot, exactly one in every slot with workers, none outside
  ``[a_i, t_i]``;
* (2d) ``sum_i m_i^k y_i^r(t) + n_i^k s_i^r(t) <= C_r^k`` per resource,
  site and slot;
* objective (2): latency cost ``sum_i f_i(t_i - a_i)`` (a job trained only in
  its arrival slot has duration 0), bandwidth cost ``sum_i B_i`` of Eq. (1)
  (data transfer ``delta_i g_i^{rr'}(t) q^{rr'}`` plus parameter exchange
  ``pi_i y_i^r(t) s_i^{r'}(t) q^{rr'}``), and their sum, kept separately.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.base import TOL, EvaluationBase
from optsched.core.errors import InfeasibleScheduleError

from .instance import OkitaInstance
from .schedule import OkitaSchedule

ARRIVAL = "Sec. III-A"


@dataclass(frozen=True, eq=False)
class OkitaEvaluation(EvaluationBase):
    """What the checker recomputed.

    Attributes
    ----------
    objective
        Total cost (2): ``latency_cost + bandwidth_cost``.
    latency_cost
        ``sum_i f_i(t_i - a_i)``.
    bandwidth_cost
        ``sum_i B_i`` of Eq. (1).
    completion
        ``t_i`` of (2e) (1-based slot).
    duration
        ``t_i - a_i`` per job.
    latency
        ``f_i(t_i - a_i)`` per job.
    transfer
        Per job, the data-transfer part of ``B_i``:
        ``sum_t sum_{r, r'} q^{rr'} delta_i g_i^{rr'}(t)``.
    exchange
        Per job, the parameter-exchange part of ``B_i``:
        ``sum_t sum_{r, r'} q^{rr'} pi_i y_i^r(t) s_i^{r'}(t)``.
    """

    SUMMARY = ("latency_cost", "bandwidth_cost")
    PER_JOB = ("completion", "duration", "latency", "transfer", "exchange")

    latency_cost: float
    bandwidth_cost: float
    completion: np.ndarray
    duration: np.ndarray
    latency: np.ndarray
    transfer: np.ndarray
    exchange: np.ndarray

    @property
    def bandwidth(self) -> np.ndarray:
        """``B_i`` per job (transfer + exchange)."""
        return self.transfer + self.exchange

    @property
    def transfer_cost(self) -> float:
        """Total data-transfer cost."""
        return float(self.transfer.sum())

    @property
    def exchange_cost(self) -> float:
        """Total parameter-exchange cost."""
        return float(self.exchange.sum())


def _fail(eq: str, msg: str) -> None:
    raise InfeasibleScheduleError(f"constraint {eq}: {msg}", constraint=eq)


def _key(cols: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """Mixed-radix int64 key of in-range index columns."""
    key = np.zeros(len(cols[0]), dtype=np.int64)
    for col, size in zip(cols, sizes, strict=True):
        key = key * size + col
    return key


def _first_dup(key: np.ndarray) -> int | None:
    """Index of a row whose key occurred before (first in key order), or None."""
    if len(key) < 2:
        return None
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    return int(order[same[0] + 1]) if len(same) else None


def _check_domain(inst: OkitaInstance, sched: OkitaSchedule) -> None:
    """(2f), (2g): shapes, index ranges, non-negative integers, one value each."""
    I_, T, R = inst.n_jobs, inst.n_slots, inst.n_sites
    tables = (
        ("workers", sched.workers, 4, "(2f)", "(i, t, r, y)", (2,)),
        ("ps", sched.ps, 3, "(2g)", "(i, t, r)", (2,)),
        ("data", sched.data, 5, "(2f)", "(i, t, r, r', g)", (2, 3)),
    )
    for name, arr, width, eq, cols, site_cols in tables:
        arr = np.asarray(arr)
        if arr.ndim != 2 or arr.shape[1] != width or arr.dtype.kind not in "iu":
            _fail(
                eq,
                f"{name}: need an integer array (N, {width}), got shape "
                f"{arr.shape} of dtype {arr.dtype}",
            )
        arr = arr.astype(np.int64)
        ok = (arr[:, 0] >= 0) & (arr[:, 0] < I_) & (arr[:, 1] >= 1) & (arr[:, 1] <= T)
        for c in site_cols:
            ok &= (arr[:, c] >= 0) & (arr[:, c] < R)
        if not ok.all():
            row = tuple(arr[np.argmin(ok)].tolist())
            _fail(
                eq,
                f"{name} row {cols} = {row} outside [I] = 0..{I_ - 1}, "
                f"[T] = 1..{T}, [R] = 0..{R - 1}",
            )
        if width in (4, 5):
            neg = arr[:, -1] < 0
            if neg.any():
                row = tuple(arr[np.argmax(neg)].tolist())
                var = "y_i^r(t)" if width == 4 else "g_i^rr'(t)"
                _fail(
                    eq, f"{name} row {cols} = {row}: {var} must be in {{0, 1, 2, ...}}"
                )
        ids = arr[:, : width - 1] if width in (4, 5) else arr
        sizes = [I_, T + 1] + [R] * (ids.shape[1] - 2)
        k = _first_dup(_key(list(ids.T), sizes))
        if k is not None:
            row = tuple(arr[k].tolist())
            what = "not binary" if name == "ps" else "one value per variable"
            _fail(eq, f"{name} row {cols} = {row} given twice ({what})")


def _check_arrival(
    inst: OkitaInstance, workers: np.ndarray, ps: np.ndarray, data: np.ndarray
) -> None:
    """Sec. III-A: decisions of job ``i`` exist from its arrival ``a_i`` on."""
    for name, arr in (("workers", workers), ("ps", ps), ("data", data)):
        early = arr[:, 1] < inst.arrival[arr[:, 0]]
        if early.any():
            i, t = (int(v) for v in arr[np.argmax(early), :2])
            _fail(
                ARRIVAL,
                f"job {i} has a {name} row in slot {t} before its arrival "
                f"a_i = {inst.arrival[i]}",
            )


def _check_conservation(inst: OkitaInstance, data: np.ndarray) -> None:
    """(2a) per source site: every chunk of site ``r`` is trained exactly once."""
    I_, R = inst.n_jobs, inst.n_sites
    sent = np.bincount(data[:, 0] * R + data[:, 2], data[:, 4], minlength=I_ * R)
    sent = np.rint(sent).astype(np.int64).reshape(I_, R)
    bad = sent != inst.D
    if bad.any():
        i, r = (int(v) for v in np.argwhere(bad)[0])
        _fail(
            "(2a)",
            f"job {i}, site {r}: sum_t sum_r' g_i^rr'(t) = {sent[i, r]} chunks "
            f"trained, D_i^r = {inst.D[i, r]}",
        )


def _check_workers(inst: OkitaInstance, workers: np.ndarray, data: np.ndarray) -> None:
    """(2b): workers on ``r'`` in slot ``t`` train the chunks received there."""
    T, R = inst.n_slots, inst.n_sites
    sizes = [inst.n_jobs, T + 1, R]
    gkey = _key([data[:, 0], data[:, 1], data[:, 3]], sizes)
    keys, inv = np.unique(gkey, return_inverse=True)
    load = np.bincount(inv.reshape(-1), data[:, 4], minlength=len(keys))
    wkey = _key([workers[:, 0], workers[:, 1], workers[:, 2]], sizes)
    order = np.argsort(wkey)
    y = np.zeros(len(keys), dtype=np.int64)  # y_i^r'(t) at each key, 0 if absent
    if len(order):
        pos = np.minimum(np.searchsorted(wkey[order], keys), len(order) - 1)
        hit = wkey[order][pos] == keys
        y[hit] = workers[order[pos[hit]], 3]
    i = keys // ((T + 1) * R)
    t = keys // R % (T + 1)
    r = keys % R
    have = inst.rho[i] * y
    need = inst.epochs[i] * load
    short = have < need * (1.0 - TOL)
    if short.any():
        k = int(np.argmax(short))
        _fail(
            "(2b)",
            f"job {i[k]}, site {r[k]}, slot {t[k]}: rho_i y = {inst.rho[i[k]]:.6g} "
            f"x {y[k]} = {have[k]:.6g} < E_i sum_r g = {inst.epochs[i[k]]} x "
            f"{int(load[k])} = {need[k]:.6g}",
        )


def _check_ps(
    inst: OkitaInstance,
    workers: np.ndarray,
    ps: np.ndarray,
    completion: np.ndarray,
    every_slot: bool,
) -> None:
    """(2c) inside ``[a_i, t_i]``: one PS while training, at most one, none after."""
    base = inst.n_slots + 1
    pkey = ps[:, 0] * base + ps[:, 1]
    k = _first_dup(pkey)
    if k is not None:
        i, t, _ = ps[k].tolist()
        _fail("(2c)", f"job {i} has two PSs in slot {t} (sum_r s_i^r(t) = 2 > 1)")
    busy = workers[workers[:, 3] > 0]
    missing = ~np.isin(busy[:, 0] * base + busy[:, 1], pkey)
    if missing.any():
        i, t, r, y = busy[np.argmax(missing)].tolist()
        _fail(
            "(2c)",
            f"job {i} has {y} workers on site {r} in slot {t} but no PS "
            "(sum_r s_i^r(t) = 0)",
        )
    late = ps[:, 1] > completion[ps[:, 0]]
    if late.any():
        i, t, r = ps[np.argmax(late)].tolist()
        _fail(
            "(2c)",
            f"job {i} has a PS on site {r} in slot {t} outside its window "
            f"[a_i, t_i] = [{inst.arrival[i]}, {completion[i]}]",
        )
    if every_slot:
        count = np.bincount(ps[:, 0], minlength=inst.n_jobs)
        span = completion - inst.arrival + 1
        short = count < span
        if short.any():
            i = int(np.argmax(short))
            have = set(ps[ps[:, 0] == i, 1].tolist())
            t = next(
                t for t in range(inst.arrival[i], completion[i] + 1) if t not in have
            )
            _fail(
                "(2c)",
                f"job {i} has no PS in slot {t} of its window [a_i, t_i] = "
                f"[{inst.arrival[i]}, {completion[i]}] (ps_every_slot)",
            )


def _check_capacity(inst: OkitaInstance, workers: np.ndarray, ps: np.ndarray) -> None:
    """(2d): workers and PSs on site ``r`` in slot ``t`` fit ``C_r^k``."""
    T, R, K = inst.n_slots, inst.n_sites, inst.n_resources
    wkey = workers[:, 1] * R + workers[:, 2]
    pkey = ps[:, 1] * R + ps[:, 2]
    use: np.ndarray = np.empty(((T + 1) * R, K))
    for k in range(K):
        use[:, k] = np.bincount(
            wkey, workers[:, 3] * inst.m[workers[:, 0], k], minlength=(T + 1) * R
        ) + np.bincount(pkey, inst.n[ps[:, 0], k], minlength=(T + 1) * R)
    use = use.reshape(T + 1, R, K)
    cap = inst.capacity[None, :, :]
    over = use > cap + TOL * np.maximum(1.0, cap)
    if over.any():
        t, r, k = (int(v) for v in np.argwhere(over)[0])
        _fail(
            "(2d)",
            f"site {r}, slot {t}, {inst.resources[k]}: used {use[t, r, k]:.6g} > "
            f"C_r^k = {inst.capacity[r, k]:.6g}",
        )


def check(
    inst: OkitaInstance, sched: OkitaSchedule, *, ps_every_slot: bool = True
) -> OkitaEvaluation:
    """Validate ``sched`` against (2a)-(2g) and recompute objective (2).

    Parameters
    ----------
    inst, sched
        The instance and a schedule of it.
    ps_every_slot
        Require a PS in every slot of ``[a_i, t_i]`` (default: the printed
        (2c) restricted to the job's window, seeds/INDEX.md).  ``False``
        accepts window slots without workers and without PS, the reading
        that Alg. 1 line 19 ("delay training": ``y = s = 0``) needs; a slot
        with workers always needs its PS (Eq. (1) prices the exchange with
        it).

    Raises
    ------
    InfeasibleScheduleError
        Naming the violated equation and where (job, site, slot, resource).
    """
    _check_domain(inst, sched)
    workers = np.asarray(sched.workers, dtype=np.int64)
    ps = np.asarray(sched.ps, dtype=np.int64)
    data = np.asarray(sched.data, dtype=np.int64)
    _check_arrival(inst, workers, ps, data)
    _check_conservation(inst, data)
    _check_workers(inst, workers, data)
    completion = sched.completion(inst.n_jobs)
    _check_ps(inst, workers, ps, completion, ps_every_slot)
    _check_capacity(inst, workers, ps)
    return _evaluate(inst, workers, ps, data, completion)


def _evaluate(
    inst: OkitaInstance,
    workers: np.ndarray,
    ps: np.ndarray,
    data: np.ndarray,
    completion: np.ndarray,
) -> OkitaEvaluation:
    """Objective (2) with Eq. (1), from the (feasible) rows."""
    I_, base = inst.n_jobs, inst.n_slots + 1
    duration = completion - inst.arrival
    latency = inst.latency_cost(duration)
    j = data[:, 0]
    transfer = np.bincount(
        j,
        inst.delta[j] * data[:, 4] * inst.q[data[:, 2], data[:, 3]],
        minlength=I_,
    )
    # the PS site of each worker row's (job, slot): unique by (2c)
    pkey = ps[:, 0] * base + ps[:, 1]
    order = np.argsort(pkey)
    busy = workers[workers[:, 3] > 0]
    pos = np.searchsorted(pkey[order], busy[:, 0] * base + busy[:, 1])
    site = ps[order[pos], 2] if len(busy) else np.zeros(0, dtype=np.int64)
    b = busy[:, 0]
    exchange = np.bincount(
        b, inst.pi[b] * busy[:, 3] * inst.q[busy[:, 2], site], minlength=I_
    )
    lat, bw = float(latency.sum()), float(transfer.sum() + exchange.sum())
    return OkitaEvaluation(
        objective=lat + bw,
        latency_cost=lat,
        bandwidth_cost=bw,
        completion=completion,
        duration=duration,
        latency=latency,
        transfer=transfer.astype(float),
        exchange=exchange.astype(float),
    )
