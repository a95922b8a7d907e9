"""Baselines of the OASiS evaluation (Bao et al., INFOCOM 2018, Sec. V-A).

Sec. V-A ("Schemes for comparison") compares OASiS with FIFO, DRF, RRH [38]
and Dorm [18] in a few sentences each.  This module implements them as
event-driven simulations over slots ``1..T`` with the readings stated below
and in each function's docstring.

Shared mechanics (one simulator, :class:`_Sim`, used by all four):

* **Events.** Decisions are taken at the start of slot ``t`` if a job arrives
  in ``t`` or a job completed at the end of ``t - 1``; between events every
  deployment stays as it is (nothing else can change: deployments only change
  at events).
* **Progress and completion.** A job's progress is the number of
  worker-slots it has received, ``sum_{t, h} y_ih(t)``; it completes at the
  end of the slot in which progress reaches ``work[i]`` (constraint (2)) and
  then releases its servers.  A job keeps its full worker count in its last
  slot (counts change only at events).
* **Deployment rules.** At most ``N_i`` workers (3); ``n`` workers always
  come with ``min(ceil(n b_i / B_i), n)`` parameter servers, (6)-(7); a count
  ``n`` whose PS cannot cover the workers' bandwidth (``b_i > B_i``) is not
  deployable.  Workers and PS fit the residual capacities (4)-(5) of the
  servers together with all other jobs; nothing is deployed before ``a_i``
  (9)-(10).
* **Round-robin placement** (FIFO, DRF, RRH; "we place workers and
  parameter servers on available servers in a round-robin fashion"): one
  pointer per server pool persists over the whole run; each worker (PS) goes
  on the next server from the pointer where it fits, skipping servers where it
  does not, and the pointer moves past it.  FIFO and RRH never resize a
  running job, so a job keeps its placement from start to completion (RRH:
  until it pauses; it is placed afresh when it resumes).  DRF, whose counts
  change at every event, re-places all active jobs from scratch at each
  event (its progressive filling places workers one at a time).  Dorm's MILP
  chooses counts and placement itself.
* **Unfinished jobs.** A job that has not completed by ``T`` earns no utility.
  It is reported with ``admitted = False`` and its partial deployment is
  **removed** from the returned schedule, so that ``admitted`` means
  "completed" and the checker's constraint (2) stays meaningful.  The servers
  it occupied during the run are of course lost to other jobs in the
  simulation.  ``schedule.meta`` keeps ``unfinished`` (accepted, not
  completed), ``rejected`` (never accepted), ``first_slot`` (first slot with
  workers during the run, 0 if none, including removed jobs) and ``events``.

None of the baselines has a proven competitive ratio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo

from optsched.core.base import TOL  # relative: completion test, checker's (2)
from optsched.core.params import NoParams, resolve
from optsched.core.solver import solve

from .instance import OasisInstance, ceil_eps
from .schedule import OasisSchedule

#: Absolute slack when testing whether one more unit fits a server.
FIT_TOL = 1e-10

Shares = tuple[np.ndarray, np.ndarray]

# ---------------------------------------------------------------- helpers


def _ps_count(inst: OasisInstance, i: int, n: int) -> int:
    """``min(ceil(n b_i / B_i), n)`` parameter servers for ``n`` workers, (6)-(7)."""
    return int(min(ceil_eps(n * inst.b[i] / inst.B[i]), n))


def _bandwidth_ok(inst: OasisInstance, i: int, n: int, m: int) -> bool:
    """Constraint (6) for ``n`` workers and ``m`` parameter servers."""
    return m * inst.B[i] >= n * inst.b[i] - TOL * max(1.0, m * inst.B[i])


def _units(free: np.ndarray, dem: np.ndarray) -> np.ndarray:
    """How many units of demand ``dem`` (R,) fit on each server of ``free`` (S, R)."""
    pos = dem > 0
    if not pos.any():
        return np.full(len(free), 1 << 40, dtype=np.int64)  # demands nothing
    per = np.floor((free[:, pos] + FIT_TOL) / dem[pos])
    return np.maximum(per.min(axis=1), 0).astype(np.int64)


def _round_robin(
    free: np.ndarray, dem: np.ndarray, n: int, ptr: int
) -> tuple[np.ndarray, int] | None:
    """Place ``n`` units of ``dem`` round-robin from server ``ptr``.

    Cycles over the servers one unit at a time, skipping a server where the
    unit does not fit.  Returns ``(counts, next_ptr)`` or None if the ``n``
    units do not all fit.
    """
    S = len(free)
    counts = np.zeros(S, dtype=np.int64)
    room = _units(free, dem)
    for _ in range(n):
        for step in range(S):
            s = (ptr + step) % S
            if counts[s] < room[s]:
                counts[s] += 1
                ptr = (s + 1) % S
                break
        else:
            return None
    return counts, ptr


def _max_deployable(
    inst: OasisInstance, i: int, free_w: np.ndarray, free_p: np.ndarray, n_max: int
) -> int:
    """Largest ``n <= n_max`` whose workers and PS fit ``free_w`` / ``free_p``.

    Round-robin placement succeeds exactly when the total number of units that
    fit server by server suffices, so this is a count, not a search.
    """
    nw = int(min(_units(free_w, inst.w[i]).sum(), n_max))
    n_ps = int(_units(free_p, inst.s[i]).sum())
    for n in range(nw, 0, -1):
        m = _ps_count(inst, i, n)
        if m <= n_ps and _bandwidth_ok(inst, i, n, m):
            return n
    return 0


def _unit_shares(inst: OasisInstance) -> Shares:
    """Dominant share of one worker and of one PS of each job (DRF, [15]).

    ``max_r w_i^r / sum_h c_h^r`` and ``max_r s_i^r / sum_k c_k^r`` over the
    resource types with positive total capacity (inf if a job demands a type
    the pool does not have).
    """

    def side(dem: np.ndarray, cap: np.ndarray) -> np.ndarray:
        tot = cap.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(tot > 0, dem / np.where(tot > 0, tot, 1.0), 0.0)
        frac = np.where((tot <= 0) & (dem > 0), np.inf, frac)
        return frac.max(axis=1) if dem.shape[0] else np.zeros(0)

    return side(inst.w, inst.c_worker), side(inst.s, inst.c_ps)


def _dominant_share(inst: OasisInstance, shares: Shares, i: int, n: int) -> float:
    """Dominant share of job ``i`` with ``n`` workers and their PS (DRF)."""
    ws, ps = shares
    return max(n * ws[i], _ps_count(inst, i, n) * ps[i]) if n else 0.0


def _fixed_counts(
    inst: OasisInstance, n_workers: int | Sequence[int] | None
) -> np.ndarray:
    """Fixed worker counts of FIFO and RRH.

    ``None`` -> ``ceil(N_i / 2)``; an int or one int per job otherwise.  The
    count is capped by ``N_i`` (3) and by what an empty cluster can host
    (so that every job can eventually start); 0 means "never deployable".
    """
    I = inst.n_jobs
    if n_workers is None:
        want = np.ceil(inst.N / 2).astype(np.int64)
    else:
        want = np.broadcast_to(np.asarray(n_workers), (I,)).astype(np.int64)
        if I and (want < 1).any():
            raise ValueError(f"n_workers: must be >= 1, got {n_workers!r}")
    out = np.zeros(I, dtype=np.int64)
    for i in range(I):
        out[i] = _max_deployable(
            inst, i, inst.c_worker, inst.c_ps, int(min(want[i], inst.N[i]))
        )
    return out


class _Sim:
    """Cluster state of an event-driven baseline simulation.

    Attributes
    ----------
    y, z
        Current deployment ``y_ih``, ``z_ik`` (I, H) and (I, K).
    progress
        Worker-slots received so far (I,).
    done
        Completed jobs (I,).
    accepted
        Jobs the policy admitted on arrival (all, except for RRH rejections).
    """

    def __init__(self, inst: OasisInstance) -> None:
        I, H, K = inst.n_jobs, inst.n_worker_servers, inst.n_ps_servers
        self.inst = inst
        self.t = 0
        self.y = np.zeros((I, H), dtype=np.int64)
        self.z = np.zeros((I, K), dtype=np.int64)
        self.progress = np.zeros(I)
        self.done = np.zeros(I, dtype=bool)
        self.accepted = np.zeros(I, dtype=bool)
        self.ptr_w = 0
        self.ptr_p = 0

    def copy(self) -> _Sim:
        """Independent copy (scratch state for what-if allocations)."""
        new = _Sim.__new__(_Sim)
        new.__dict__.update(self.__dict__)
        for name in ("y", "z", "progress", "done", "accepted"):
            setattr(new, name, getattr(self, name).copy())
        return new

    def free_workers(self) -> np.ndarray:
        """Residual worker-server capacity (H, R)."""
        return self.inst.c_worker - self.y.T.astype(float) @ self.inst.w

    def free_ps(self) -> np.ndarray:
        """Residual PS-server capacity (K, R)."""
        return self.inst.c_ps - self.z.T.astype(float) @ self.inst.s

    def active(self) -> np.ndarray:
        """Indices of arrived, accepted, unfinished jobs (arrival order)."""
        inst = self.inst
        return np.flatnonzero((inst.arrival <= self.t) & self.accepted & ~self.done)

    def running(self, i: int) -> bool:
        """Whether job ``i`` currently has workers."""
        return bool(self.y[i].any())

    def release(self, i: int | np.integer[Any]) -> None:
        """Remove job ``i``'s deployment."""
        self.y[i] = 0
        self.z[i] = 0

    def grow(self, i: int, k: int) -> bool:
        """Add ``k`` workers (and the PS they need) to job ``i``, round-robin.

        Atomic: returns False and changes nothing if (3), (6) or the server
        capacities (4)-(5) would be violated.
        """
        inst = self.inst
        if inst.arrival[i] > self.t:
            raise RuntimeError(f"job {i} deployed before its arrival (9)")
        n0, m0 = int(self.y[i].sum()), int(self.z[i].sum())
        n1 = n0 + k
        if n1 > inst.N[i]:
            return False
        m1 = max(_ps_count(inst, i, n1), m0)
        if not _bandwidth_ok(inst, i, n1, m1):
            return False
        wk = _round_robin(self.free_workers(), inst.w[i], k, self.ptr_w)
        if wk is None:
            return False
        pk = _round_robin(self.free_ps(), inst.s[i], m1 - m0, self.ptr_p)
        if pk is None:
            return False
        self.y[i] += wk[0]
        self.z[i] += pk[0]
        self.ptr_w, self.ptr_p = wk[1], pk[1]
        return True


Decide = Callable[[_Sim, np.ndarray], None]


def _simulate(
    inst: OasisInstance, name: str, decide: Decide, meta: dict[str, Any]
) -> OasisSchedule:
    """Run ``decide(sim, arrivals)`` at every event and build the schedule.

    ``decide`` sets ``sim.accepted`` for the arriving jobs and changes the
    deployments of active jobs; the simulator records slot ``t``, advances
    progress and releases jobs that complete at the end of ``t``.
    """
    T, I = inst.n_slots, inst.n_jobs
    sim = _Sim(inst)
    sched = OasisSchedule.empty(inst, name)
    need = inst.work - TOL * np.maximum(1.0, inst.work)
    first = np.zeros(I, dtype=np.int64)
    completion = np.zeros(I, dtype=np.int64)
    events = 0
    completed_last = False
    for t in range(1, T + 1):
        sim.t = t
        arrivals = np.flatnonzero(inst.arrival == t)
        if len(arrivals) or completed_last:
            decide(sim, arrivals)
            events += 1
        sched.workers[:, :, t - 1] = sim.y
        sched.ps[:, :, t - 1] = sim.z
        n = sim.y.sum(axis=1)
        first[(first == 0) & (n > 0)] = t
        sim.progress += n
        new = np.flatnonzero(~sim.done & (sim.progress >= need))
        for i in new:
            sim.done[i] = True
            completion[i] = t
            sim.release(i)
        completed_last = len(new) > 0
    keep = sim.done.copy()
    sched.workers[~keep] = 0
    sched.ps[~keep] = 0
    meta.update(
        completion=completion,
        first_slot=first,
        unfinished=np.flatnonzero(sim.accepted & ~keep),
        rejected=np.flatnonzero(~sim.accepted),
        events=events,
    )
    return OasisSchedule(
        admitted=keep,
        workers=sched.workers,
        ps=sched.ps,
        algorithm=name,
        meta=meta,
    )


def _progressive_fill(sim: _Sim, jobs: np.ndarray, shares: Shares) -> None:
    """DRF progressive filling: max-min fair dominant shares over ``jobs``.

    Repeatedly give one more worker (round-robin placed, with its PS) to the
    job with the smallest dominant share (ties: lower index); a job that is at
    ``N_i`` or whose next worker (or PS) does not fit drops out.
    """
    inst = sim.inst
    open_ = [int(i) for i in jobs]
    while open_:
        i = min(
            open_,
            key=lambda j: (_dominant_share(inst, shares, j, int(sim.y[j].sum())), j),
        )
        if not sim.grow(i, 1):
            open_.remove(i)


# ------------------------------------------------------------------- FIFO


@dataclass(frozen=True)
class FifoParams:
    """Parameters of :func:`fifo`.

    Attributes
    ----------
    n_workers
        Fixed worker count (one int, or one per job).  Default
        ``ceil(N_i / 2)``: the paper fixes it "to a number within [1, 30]"
        for ``N_i`` up to 100; with our calibrated ``N_i`` in [5, 20] we take
        the middle of the feasible range ``[1, N_i]``.  Always capped by
        ``N_i`` and by what the empty cluster can host; a job of which not
        even one worker fits is never started.
    """

    n_workers: int | Sequence[int] | None = None


def fifo(
    inst: OasisInstance, /, *, seed: int = 0, params: FifoParams | None = None
) -> OasisSchedule:
    """FIFO, the Hadoop/Spark default (Sec. V-A, scheme (i)).

    Rule: every job is admitted; jobs start in arrival order (ties: list
    order) with a fixed number of workers ``n_i`` and
    ``min(ceil(n_i b_i / B_i), n_i)`` parameter servers, placed round-robin,
    and keep that deployment until they complete.  At each event the queue
    of waiting jobs is served from its head while the head's deployment fits;
    FIFO is strict: a job never starts before an earlier waiting job, even if
    it would fit.  Jobs not completed by ``T`` are reported not admitted (see
    the module docstring).  No proven bound.

    Parameters
    ----------
    inst
        The instance.
    seed
        Unused: the algorithm is deterministic.
    params
        :class:`FifoParams` (``n_workers``; None: the default).

    Returns
    -------
    OasisSchedule
        ``meta["n_workers"]`` holds the fixed counts.
    """
    n_fixed = _fixed_counts(inst, resolve(params, FifoParams, "fifo").n_workers)

    def decide(sim: _Sim, arrivals: np.ndarray) -> None:
        sim.accepted[arrivals] = True
        for i in sim.active():
            if sim.running(i) or n_fixed[i] == 0:
                continue
            if not sim.grow(i, int(n_fixed[i])):
                break  # strict FIFO: nobody overtakes the head of the queue

    return _simulate(inst, "fifo", decide, {"n_workers": n_fixed})


# -------------------------------------------------------------------- DRF


def drf(
    inst: OasisInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> OasisSchedule:
    """Dominant Resource Fairness, the YARN/Mesos default (Sec. V-A, (ii); [15]).

    Rule: every job is admitted.  At each arrival and completion all active
    jobs are released and re-allocated by progressive filling: repeatedly
    the job with the smallest dominant share

        ``d_i(n) = max(n max_r w_i^r / sum_h c_h^r,
        min(ceil(n b_i/B_i), n) max_r s_i^r / sum_k c_k^r)``

    (ties: arrival order) receives one more worker and the PS it needs,
    placed round-robin; a job drops out when it has ``N_i`` workers or its
    next worker or PS does not fit anywhere.  This is max-min fairness of
    dominant shares over the ``2R`` resource types of the two server pools,
    capped by (3) and by what fits.  No proven bound.  Deterministic:
    ``seed`` is unused; no parameters (:class:`~optsched.core.params.NoParams`).
    """
    resolve(params, NoParams, "drf")
    shares = _unit_shares(inst)

    def decide(sim: _Sim, arrivals: np.ndarray) -> None:
        sim.accepted[arrivals] = True
        act = sim.active()
        for i in act:
            sim.release(i)
        _progressive_fill(sim, act, shares)

    return _simulate(inst, "drf", decide, {})


# -------------------------------------------------------------------- RRH


def _rrh_value(inst: OasisInstance, i: int, rem: float, n: int, start: int) -> float:
    """Utility of job ``i`` if it runs ``n`` workers from ``start`` until done.

    The job needs ``d = ceil(rem / n)`` slots and completes in
    ``start + d - 1``; the value is ``f_i(start + d - 1 - a_i)``, or 0 if that
    is after ``T`` (or ``n = 0``).
    """
    if n <= 0:
        return 0.0
    end = start + int(ceil_eps(rem / n)) - 1
    if end > inst.n_slots:
        return 0.0
    return float(inst.utility(i, end - inst.arrival[i]))


def _rrh_reward(
    sim: _Sim, i: int, others: Sequence[int], n_fixed: np.ndarray, share: np.ndarray
) -> float:
    """Risk-reward score ``V_i(t) - share_i sum_j [V_j(t) - V_j(t + d_i)]``."""
    inst, t = sim.inst, sim.t
    rem = inst.work - sim.progress
    gain = _rrh_value(inst, i, rem[i], int(n_fixed[i]), t)
    if n_fixed[i] == 0:
        return gain
    d = int(ceil_eps(rem[i] / n_fixed[i]))
    loss = sum(
        _rrh_value(inst, j, rem[j], int(n_fixed[j]), t)
        - _rrh_value(inst, j, rem[j], int(n_fixed[j]), t + d)
        for j in others
        if j != i
    )
    return gain - share[i] * loss


@dataclass(frozen=True)
class RrhParams:
    """Parameters of :func:`rrh`.

    Attributes
    ----------
    n_workers
        Fixed worker counts, as in :func:`fifo` (default ``ceil(N_i / 2)``).
    threshold
        Admission and continuation threshold (utility units).
    """

    n_workers: int | Sequence[int] | None = None
    threshold: float = 0.0


def rrh(
    inst: OasisInstance, /, *, seed: int = 0, params: RrhParams | None = None
) -> OasisSchedule:
    """Risk-Reward Heuristic (Sec. V-A, scheme (iii); Irwin et al. [38]).

    Each job has a fixed deployment of ``n_i`` workers (rule of :func:`fifo`)
    and ``min(ceil(n_i b_i/B_i), n_i)`` PS, placed round-robin.  Let
    ``V_j(s)`` be job ``j``'s utility if it runs from slot ``s`` until done:
    ``f_j(s + d_j - 1 - a_j)`` with ``d_j = ceil(remaining work / n_j)``, or
    0 if it would finish after ``T``.  The score of job ``i`` at slot ``t`` is
    its future utility gain minus the expected delay cost it imposes on the
    other admitted unfinished jobs ``j`` (running or waiting)::

        reward_i(t) = V_i(t) - share_i * sum_{j != i} [V_j(t) - V_j(t + d_i)]

    where ``share_i`` (<= 1) is the dominant share of ``i``'s deployment in the
    cluster (the fraction of the cluster it holds, i.e. the chance that it
    delays another job by its whole run ``d_i``).

    * Admission, on arrival (arrival order): admit iff
      ``reward_i(a_i) > threshold``, with the previously admitted unfinished
      jobs as ``j``; rejected jobs never run.
    * At each arrival or completion every admitted unfinished job is scored
      against all others.  A running job continues (same counts and
      placement) if its score exceeds ``threshold`` and pauses (releases its
      servers, keeps its progress) otherwise; then waiting jobs with score
      above ``threshold`` start in decreasing score order (ties: arrival
      order) when their deployment fits, skipping those that do not.

    A job that can no longer finish by ``T`` has ``V_i = 0``, so with the
    default threshold it is rejected or paused.  No proven bound.

    Parameters
    ----------
    inst
        The instance.
    seed
        Unused: the algorithm is deterministic.
    params
        :class:`RrhParams` (``n_workers``, ``threshold``; None: defaults).
    """
    p = resolve(params, RrhParams, "rrh")
    threshold = p.threshold
    n_fixed = _fixed_counts(inst, p.n_workers)
    shares = _unit_shares(inst)
    share = np.array(
        [
            min(1.0, _dominant_share(inst, shares, i, int(n_fixed[i])))
            for i in range(inst.n_jobs)
        ]
    )
    admit_score = np.full(inst.n_jobs, np.nan)

    def decide(sim: _Sim, arrivals: np.ndarray) -> None:
        for i in arrivals:
            others = [int(j) for j in sim.active()]
            admit_score[i] = _rrh_reward(sim, int(i), others, n_fixed, share)
            sim.accepted[i] = n_fixed[i] > 0 and admit_score[i] > threshold
        act = [int(i) for i in sim.active()]
        score = {i: _rrh_reward(sim, i, act, n_fixed, share) for i in act}
        for i in act:
            if sim.running(i) and score[i] <= threshold:
                sim.release(i)  # pause
        waiting = [i for i in act if not sim.running(i) and score[i] > threshold]
        for i in sorted(waiting, key=lambda j: (-score[j], j)):
            sim.grow(i, int(n_fixed[i]))

    return _simulate(
        inst,
        "rrh",
        decide,
        {"n_workers": n_fixed, "threshold": threshold, "admission_score": admit_score},
    )


# ------------------------------------------------------------------- Dorm


def _dorm_model(
    inst: OasisInstance,
    jobs: np.ndarray,
    free_w: np.ndarray,
    free_p: np.ndarray,
    lower: np.ndarray,
    prev_y: np.ndarray,
    prev_z: np.ndarray,
    max_adjust: int | None,
) -> pyo.ConcreteModel:
    """Dorm's per-event MILP over the active ``jobs`` (see :func:`dorm`)."""
    J = range(len(jobs))
    H, K = range(inst.n_worker_servers), range(inst.n_ps_servers)
    w, s = inst.w[jobs], inst.s[jobs]
    N = inst.N[jobs].astype(int)
    tot = inst.c_worker.sum(axis=0)
    pos = tot > 0
    util = (w[:, pos] / tot[pos]).mean(axis=1)  # normalized resources per worker
    scale = float(util.min()) if len(util) and util.min() > 0 else 1.0
    eps = 1e-3 * scale / (1 + len(jobs) * (1 + int(N.max(initial=0))))
    # tight per-server bounds: N_j and the units of job j that fit server h
    uy = np.array([np.minimum(_units(free_w, w[j]), N[j]) for j in J]).reshape(
        len(jobs), len(H)
    )
    uz = np.array([np.minimum(_units(free_p, s[j]), N[j]) for j in J]).reshape(
        len(jobs), len(K)
    )
    m = pyo.ConcreteModel(name="dorm")
    m.y = pyo.Var(
        J, H, domain=pyo.NonNegativeIntegers, bounds=lambda _, j, h: (0, uy[j, h])
    )
    m.z = pyo.Var(
        J, K, domain=pyo.NonNegativeIntegers, bounds=lambda _, j, k: (0, uz[j, k])
    )
    n = {j: sum(m.y[j, h] for h in H) for j in J}
    p = {j: sum(m.z[j, k] for k in K) for j in J}
    rw = [r for r in range(inst.n_resources) if (w[:, r] > 0).any()]
    rp = [r for r in range(inst.n_resources) if (s[:, r] > 0).any()]
    m.c4_worker_capacity = pyo.Constraint(
        H,
        rw,
        rule=lambda _, h, r: sum(w[j, r] * m.y[j, h] for j in J) <= free_w[h, r],
    )
    m.c5_ps_capacity = pyo.Constraint(
        K,
        rp,
        rule=lambda _, k, r: sum(s[j, r] * m.z[j, k] for j in J) <= free_p[k, r],
    )
    m.c3_max_workers = pyo.Constraint(J, rule=lambda _, j: n[j] <= N[j])
    b, B = inst.b[jobs], inst.B[jobs]
    m.c6_ps_bandwidth = pyo.Constraint(J, rule=lambda _, j: b[j] * n[j] <= B[j] * p[j])
    m.c7_ps_count = pyo.Constraint(J, rule=lambda _, j: p[j] <= n[j])
    m.fairness = pyo.Constraint(J, rule=lambda _, j: n[j] >= int(lower[j]))
    # adjustment overhead: changed_j = 0 pins every per-server count of a job
    # that was running before (tight big-M: the count's own range)
    R = [j for j in J if prev_y[j].any()]
    m.changed = pyo.Var(R, domain=pyo.Binary)
    m.adjust_y_up = pyo.Constraint(
        R,
        H,
        rule=lambda _, j, h: (
            m.y[j, h] - prev_y[j, h] <= (uy[j, h] - prev_y[j, h]) * m.changed[j]
        ),
    )
    m.adjust_y_down = pyo.Constraint(
        R,
        H,
        rule=lambda _, j, h: prev_y[j, h] - m.y[j, h] <= prev_y[j, h] * m.changed[j],
    )
    m.adjust_z_up = pyo.Constraint(
        R,
        K,
        rule=lambda _, j, k: (
            m.z[j, k] - prev_z[j, k] <= (uz[j, k] - prev_z[j, k]) * m.changed[j]
        ),
    )
    m.adjust_z_down = pyo.Constraint(
        R,
        K,
        rule=lambda _, j, k: prev_z[j, k] - m.z[j, k] <= prev_z[j, k] * m.changed[j],
    )
    if max_adjust is not None and R:
        m.adjust_limit = pyo.Constraint(expr=sum(m.changed[j] for j in R) <= max_adjust)
    m.utilization = pyo.Objective(
        expr=sum(util[j] * n[j] for j in J)
        - eps * sum(p[j] for j in J)
        - eps * sum(m.changed[j] for j in R),
        sense=pyo.maximize,
    )
    return m


def _values(var: pyo.Var, shape: tuple[int, int]) -> np.ndarray:
    """Rounded values of a 2-index integer variable (missing values -> 0)."""
    out = np.zeros(shape, dtype=np.int64)
    for (a, b), v in var.items():
        val = v.value
        out[a, b] = 0 if val is None else max(0, round(val))
    return out


def _repair(
    inst: OasisInstance, jobs: np.ndarray, y: np.ndarray, z: np.ndarray, free_w, free_p
) -> tuple[np.ndarray, np.ndarray]:
    """Make a rounded MILP solution satisfy (3)-(7) exactly.

    Sets every PS count to ``min(ceil(n b/B), n)`` (the MILP's tiny PS cost
    already aims at it; this also absorbs solver tolerances) and removes
    workers or PS (from the fullest server) while a capacity, (6) or (7) is
    violated.  Removing units never breaks another constraint.
    """
    y, z = y.copy(), z.copy()

    def over(alloc, dem, free) -> bool:
        use = alloc.T.astype(float) @ dem
        return bool((use > free + FIT_TOL).any())

    while over(z, inst.s[jobs], free_p):
        j, k = np.unravel_index(np.argmax(z), z.shape)
        z[j, k] -= 1
    a: int | np.integer[Any]  # an enumerate index, then an unravel_index one
    for a, i in enumerate(jobs):
        y[a, :] = np.minimum(y[a], inst.N[i])
        while y[a].sum() > inst.N[i]:
            y[a, np.argmax(y[a])] -= 1
        while True:
            n, mz = int(y[a].sum()), int(z[a].sum())
            m = _ps_count(inst, i, n)
            if m <= mz and _bandwidth_ok(inst, i, n, m):
                break
            y[a, np.argmax(y[a])] -= 1
        while z[a].sum() > _ps_count(inst, i, int(y[a].sum())):
            z[a, np.argmax(z[a])] -= 1
    while over(y, inst.w[jobs], free_w):  # only after solver tolerances
        a, h = np.unravel_index(np.argmax(y), y.shape)
        y[a, h] -= 1
        i = jobs[a]
        while z[a].sum() > _ps_count(inst, i, int(y[a].sum())):
            z[a, np.argmax(z[a])] -= 1
    return y, z


@dataclass(frozen=True)
class DormParams:
    """Parameters of :func:`dorm`.

    Attributes
    ----------
    fairness
        Minimum fraction of the DRF fair share in [0, 1].
    max_adjust
        Most previously running jobs whose deployment may change per event
        (None: no limit).
    time_limit
        HiGHS wall-clock limit per solve in seconds, or None (the default):
        none, so that ``max_nodes`` alone limits a solve and the schedule
        does not depend on the machine's load (:func:`dorm`).
    mip_gap
        Relative MIP gap per solve (default 1%: utilization within 1% of
        the per-event optimum).
    max_nodes
        Branch-and-bound node limit per solve (None: none); the incumbent at
        the limit is used.
    """

    fairness: float = 0.5
    max_adjust: int | None = 2
    time_limit: float | None = None
    mip_gap: float = 1e-2
    max_nodes: int | None = 200


def _dorm_solve(
    inst: OasisInstance,
    act: np.ndarray,
    free: tuple[np.ndarray, np.ndarray],
    lower: np.ndarray,
    prev: tuple[np.ndarray, np.ndarray],
    p: DormParams,
) -> tuple[tuple[np.ndarray, np.ndarray] | None, str, float, str]:
    """One event of :func:`dorm`: the MILP, then without the adjustment limit.

    Returns ``(solution or None, status, runtime, fallback tag)``; the
    solution is :func:`_repair`-ed ``(y, z)`` of the active jobs ``act``.
    """
    free_w, free_p = free
    prev_y, prev_z = prev
    max_nodes = p.max_nodes
    status, runtime = "error", 0.0
    for limit, tag in ((p.max_adjust, ""), (None, "no_adjust_limit")):
        if tag and p.max_adjust is None:
            break
        model = _dorm_model(inst, act, free_w, free_p, lower, prev_y, prev_z, limit)
        res = solve(
            model,
            time_limit=p.time_limit,
            mip_gap=p.mip_gap,
            threads=1,
            options=None if max_nodes is None else {"mip_max_nodes": int(max_nodes)},
        )
        status, runtime = res.status, runtime + res.runtime
        if res.has_solution:
            y, z = _values(model.y, prev_y.shape), _values(model.z, prev_z.shape)
            return _repair(inst, act, y, z, free_w, free_p), status, runtime, tag
    return None, status, runtime, ""


def dorm(
    inst: OasisInstance, /, *, seed: int = 0, params: DormParams | None = None
) -> OasisSchedule:
    """Dorm (Sec. V-A, scheme (iv); Sun et al. [18]): utilization-maximizing MILP.

    Rule: every job is admitted.  At each arrival and completion the
    deployments of all active jobs are recomputed (numbers and placement) by
    the MILP, over active jobs ``j`` and servers ``h``, ``k``::

        max  sum_j u_j sum_h y_jh  - eps (sum_j m_j + sum_j c_j)
        s.t. sum_j w_j^r y_jh <= c_h^r,  sum_j s_j^r z_jk <= c_k^r    (4)(5)
             n_j = sum_h y_jh <= N_j,  m_j = sum_k z_jk               (3)
             n_j b_j <= m_j B_j,  m_j <= n_j                         (6)(7)
             n_j >= l_j                                  (fairness)
             c_j = 0  =>  y_j = y_j^prev, z_j = z_j^prev      (c_j binary)
             sum_{j running before} c_j <= max_adjust    (adjustment overhead)

    with ``u_j`` = mean over the resource types with positive total capacity
    of ``w_j^r / sum_h c_h^r`` (the normalized resources one worker uses:
    resource utilization), and a tiny ``eps`` that makes
    ``m_j = ceil(n_j b_j / B_j)`` and prefers unchanged deployments (only
    within the MIP gap; :func:`_repair` enforces the PS count anyway).  The
    implication is written with the tightest big-M, the range of each
    per-server count (``N_j`` and the units of ``j`` that fit the server).  Fairness: ``l_j = max(min(1, f_j), floor(fairness f_j))``
    where ``f_j`` is job ``j``'s DRF worker count (:func:`drf` progressive
    filling) on the same cluster, i.e. every job gets a worker when DRF would
    give it one, and at least ``fairness`` of its fair share.  A job counts as
    adjusted if any of its per-server counts changes; jobs that had no workers
    (new or starved) are free to start.

    Solves go through :func:`optsched.core.solver.solve` (HiGHS, one thread,
    incumbent used when a limit is hit).  If a
    solve returns no solution (infeasible because the adjustment limit
    conflicts with fairness, or no incumbent in time), it is repeated without
    the adjustment limit, and failing that the DRF allocation is used (it
    satisfies all constraints but the adjustment limit).  The rounded
    solution is repaired to satisfy (3)-(7) exactly (see :func:`_repair`).
    Each solve is capped by a branch-and-bound node limit ``max_nodes``
    (HiGHS ``mip_max_nodes``, one thread), which is deterministic, so the
    same instance gives the same schedule on any machine load.  A wall-clock
    ``time_limit`` per solve is off by default: measured on Fig. 4's
    instances (200 jobs, ``T = 100``, 50 + 50 servers, 2 loaded cores), the
    former 10-s limit stopped 30 of 95 solves on seed 0 and 24 of 78 on
    seed 1 (statuses ``time_limit`` in ``meta["solves"]``, node-limit stops
    included), and seed 0 completed 92 to 96 time-critical jobs from one
    run to the next; without it seed 1's solves take up to 65 s (11 min
    per run instead of 8).  No proven bound.

    Parameters
    ----------
    inst
        The instance.
    seed
        Unused: the algorithm is deterministic.
    params
        :class:`DormParams` (None: the defaults).

    Returns
    -------
    OasisSchedule
        ``meta["solves"]`` lists ``(slot, status, runtime, fallback)`` per event
        where ``fallback`` is ``""``, ``"no_adjust_limit"`` or ``"drf"``.
    """
    p = resolve(params, DormParams, "dorm")
    fairness, max_adjust, time_limit = p.fairness, p.max_adjust, p.time_limit
    if not 0.0 <= fairness <= 1.0:
        raise ValueError(f"fairness: must be in [0, 1], got {fairness!r}")
    if max_adjust is not None and max_adjust < 0:
        raise ValueError(f"max_adjust: must be >= 0 or None, got {max_adjust!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit: must be > 0 or None, got {time_limit!r}")
    shares = _unit_shares(inst)
    solves: list[tuple[int, str, float, str]] = []

    def decide(sim: _Sim, arrivals: np.ndarray) -> None:
        sim.accepted[arrivals] = True
        act = sim.active()
        if not len(act):
            return
        prev_y, prev_z = sim.y[act].copy(), sim.z[act].copy()
        for i in act:
            sim.release(i)
        free_w, free_p = sim.free_workers(), sim.free_ps()
        fair_sim = sim.copy()
        _progressive_fill(fair_sim, act, shares)
        fair = fair_sim.y[act].sum(axis=1)
        lower = np.maximum(np.minimum(1, fair), np.floor(fairness * fair + 1e-9))
        sol, status, runtime, fallback = _dorm_solve(
            inst, act, (free_w, free_p), lower, (prev_y, prev_z), p
        )
        if sol is None:
            sol = (fair_sim.y[act], fair_sim.z[act])
            fallback = "drf"
        sim.y[act], sim.z[act] = sol
        solves.append((sim.t, status, runtime, fallback))

    return _simulate(
        inst,
        "dorm",
        decide,
        {
            "fairness": fairness,
            "max_adjust": max_adjust,
            "max_nodes": p.max_nodes,
            "solves": solves,
        },
    )


__all__ = ["drf", "dorm", "fifo", "rrh"]
