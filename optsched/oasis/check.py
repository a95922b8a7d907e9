"""Independent checker for OASiS schedules: constraints (2)-(13) and objective (1).

The checker never calls algorithm code.  It recomputes every constraint from
the schedule arrays and the instance alone and recomputes the objective
``sum_i x_i f_i(t_hat_i - a_i)``, where ``t_hat_i`` is the last slot in which
job ``i`` has workers (8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.base import TOL, EvaluationBase
from optsched.core.errors import InfeasibleScheduleError

from .instance import OasisInstance
from .schedule import OasisSchedule


@dataclass(frozen=True, eq=False)
class OasisEvaluation(EvaluationBase):
    """What the checker recomputed.

    Attributes
    ----------
    objective
        Total utility (1) of the admitted jobs.
    utility
        ``x_i f_i(t_hat_i - a_i)`` per job.
    completion
        ``t_hat_i`` (1-based), 0 for rejected jobs.
    admitted
        ``x_i``.
    lateness
        ``t_hat_i - a_i - gamma3_i`` for admitted jobs, NaN otherwise (Fig. 4).
    """

    SUMMARY = ("n_admitted",)
    PER_JOB = ("utility", "completion", "admitted", "lateness")

    utility: np.ndarray
    completion: np.ndarray
    admitted: np.ndarray
    lateness: np.ndarray

    @property
    def n_admitted(self) -> int:
        """Number of admitted jobs."""
        return int(self.admitted.sum())


def _fail(eq: str, msg: str) -> None:
    raise InfeasibleScheduleError(f"constraint {eq}: {msg}", constraint=eq)


def check(inst: OasisInstance, sched: OasisSchedule) -> OasisEvaluation:
    """Validate ``sched`` against (2)-(13) of the paper and recompute (1).

    Raises
    ------
    InfeasibleScheduleError
        Naming the violated equation and where (job, server, slot, resource).
    """
    I, H, K, T = inst.n_jobs, inst.n_worker_servers, inst.n_ps_servers, inst.n_slots
    x = np.asarray(sched.admitted)
    y = np.asarray(sched.workers)
    z = np.asarray(sched.ps)
    if x.shape != (I,):
        _fail("(11)", f"admitted has shape {x.shape}, expected ({I},)")
    if y.shape != (I, H, T):
        _fail("(12)", f"workers has shape {y.shape}, expected ({I}, {H}, {T})")
    if z.shape != (I, K, T):
        _fail("(13)", f"ps has shape {z.shape}, expected ({I}, {K}, {T})")
    if not np.isin(x.astype(float), (0.0, 1.0)).all():
        _fail("(11)", "x_i must be 0 or 1")
    x = x.astype(bool)
    for eq, arr, name in (("(12)", y, "y"), ("(13)", z, "z")):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            i, s, t = np.argwhere(~np.isfinite(arr) | (arr != np.round(arr)))[0]
            _fail(
                eq,
                f"{name}[job {i}, server {s}, slot {t + 1}] = {arr[i, s, t]} is not integral",
            )
        if (arr < 0).any():
            i, s, t = np.argwhere(arr < 0)[0]
            _fail(eq, f"{name}[job {i}, server {s}, slot {t + 1}] = {arr[i, s, t]} < 0")
    y = np.round(y).astype(np.int64)
    z = np.round(z).astype(np.int64)
    slots = np.arange(1, T + 1)
    before = slots[None, :] < inst.arrival[:, None]  # (I, T)
    ysum = y.sum(axis=1)  # (I, T)
    zsum = z.sum(axis=1)
    for eq, tot, what in (
        ("(9)", ysum, "workers"),
        ("(10)", zsum, "parameter servers"),
    ):
        bad = np.argwhere(before & (tot > 0))
        if len(bad):
            i, t = bad[0]
            _fail(
                eq,
                f"job {i} has {tot[i, t]} {what} in slot {t + 1} < a_i = {inst.arrival[i]}",
            )
    # (2) workload
    for i in np.flatnonzero(x):
        got, need = ysum[i].sum(), inst.work[i]
        if got < need - TOL * max(1.0, need):
            _fail(
                "(2)",
                f"job {i} gets {got} worker-slots < E N M (tau + 2e/b) = {need:.6g}",
            )
    # (3) concurrent workers <= N_i x_i
    cap3 = (inst.N * x)[:, None]
    bad = np.argwhere(ysum > cap3)
    if len(bad):
        i, t = bad[0]
        _fail(
            "(3)",
            f"job {i}, slot {t + 1}: {ysum[i, t]} workers > N_i x_i = {cap3[i, 0]}",
        )
    # (4) worker-server capacity, (5) PS-server capacity
    for eq, arr, dem, cap, tag in (
        ("(4)", y, inst.w, inst.c_worker, "h"),
        ("(5)", z, inst.s, inst.c_ps, "k"),
    ):
        use = np.einsum("ist,ir->srt", arr.astype(float), dem)  # (S, R, T)
        over = use - cap[:, :, None]
        bad = np.argwhere(over > TOL * np.maximum(1.0, cap[:, :, None]))
        if len(bad):
            s, r, t = bad[0]
            _fail(
                eq,
                f"server {tag}{s}, slot {t + 1}, {inst.resources[r]} "
                f"{use[s, r, t]:.6g} > {cap[s, r]:.6g}",
            )
    # (6) PS bandwidth covers worker bandwidth
    lhs = ysum * inst.b[:, None]
    rhs = zsum * inst.B[:, None]
    bad = np.argwhere(lhs > rhs + TOL * np.maximum(1.0, rhs))
    if len(bad):
        i, t = bad[0]
        _fail(
            "(6)",
            f"job {i}, slot {t + 1}: workers need {lhs[i, t]:.6g} Gbps > PS {rhs[i, t]:.6g}",
        )
    # (7) #PS <= #workers
    bad = np.argwhere(zsum > ysum)
    if len(bad):
        i, t = bad[0]
        _fail(
            "(7)",
            f"job {i}, slot {t + 1}: {zsum[i, t]} parameter servers > {ysum[i, t]} workers",
        )
    # (8) completion and objective (1)
    active = ysum > 0
    last = np.where(active.any(axis=1), T - np.argmax(active[:, ::-1], axis=1), 0)
    util = np.zeros(I)
    late = np.full(I, np.nan)
    for i in np.flatnonzero(x):
        dur = last[i] - inst.arrival[i]
        util[i] = inst.utility(i, dur)
        late[i] = dur - inst.jobs[i].gamma3
    return OasisEvaluation(
        objective=float(util.sum()),
        utility=util,
        completion=np.where(x, last, 0),
        admitted=x,
        lateness=late,
    )
