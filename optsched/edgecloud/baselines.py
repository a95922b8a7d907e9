"""Baselines of the simulations (Wang et al., Sec. V-A): SRTF, Tiresias-L, BatchSche.

The seed describes each baseline in one sentence; the rules below are the
cited systems' rules in their simplest form that fits model (2).  All three
share one slot-by-slot engine (:class:`_GangEngine`, one policy object per
baseline plugged into it) and the constraints every schedule here meets:
chunks only on qualified workers ((2a)), never before ``r_j + Delta_js``
((2i)), each chunk on one worker for good (no migration, (2c)), one chunk
per worker and slot ((2d)), one PS per training job and slot ((2e)-(2f)),
cloud chunks without preemption (Sec. III).

Common readings (the seed gives no more detail for any baseline):

1. **Job-level gang scheduling.**  SRTF [16] and Tiresias-L [13] are
   job-level schedulers ("job-level preemptive schedulers", Sec. V-C; the
   seed contrasts them with A_online's per-worker preemption).  A job on the
   edge gets a *gang* of ``k_j = min(D_j, #qualified edge workers)``
   distinct qualified workers when it first starts; chunk ``d`` is bound to
   gang member ``d mod k_j`` (chunks of one worker trained in index order).
   No migration: the gang never changes.  All-or-nothing: in a slot the job
   trains on every gang worker that still has an unfinished chunk, or on
   none of them.
2. **Placement of a starting job** (SRTF, Tiresias-L): it starts only if
   ``k_j`` qualified workers it can reach ((2i)) are not taken in the slot
   by jobs of higher priority; it takes them consolidated (servers with
   the most such workers first, ties by index; workers by index), as
   Tiresias prefers consolidated placement.
3. **Priority and preemption** (SRTF, Tiresias-L): every slot the jobs are
   visited in priority order; a job runs if its gang workers are not taken
   by a higher-priority job, otherwise it is suspended entirely.
4. **PS** (``A_ps``'s rule, :func:`optsched.edgecloud.online._pick_ps`): a
   running job keeps last slot's PS if no higher-priority job took it,
   otherwise it draws a free qualified reachable edge PS (seeded), else a
   cloud PS once reachable.  A job that finds no PS does not train in the
   slot (``meta["ps_blocked"]``, as A_online's reading 8).
5. **Cloud.**  SRTF and Tiresias-L are edge schedulers: the seed never
   says they use the cloud, and in Fig. 8 Tiresias-L's JCT rate falls with
   more edge servers like A_online-E's while A_online's and BatchSche's
   rise (Sec. V-C).  A job goes to the cloud only when no edge worker qualifies,
   exactly as A_online-E's fallback (from ``r_j + Delta_jc``, one cloud
   worker per chunk, ``zeta_j = 1``, its own cloud PS, no preemption;
   ``meta["cloud_jobs"]``).  BatchSche uses the cloud by its own rule.
6. **Horizon.**  As A_online: the run continues until all work is done;
   ``meta["makespan"]`` and ``meta["horizon_exceeded"]``.

7. **Storage** (Sec. VI, when the instance has storage).  The seed gives
   the baselines no storage rule; ours is the minimal one: a gang worker is
   eligible only if its edge server can store the chunks bound to it, read
   as the checker reads (7b)-(7d): the job's chunks occupy ``u_j`` on their
   server from its *arrival* ``r_j`` to its completion, so a gang bound at
   slot ``tau`` needs room in every slot of ``[r_j, tau]``
   (:class:`~optsched.edgecloud.storage.StorageLedger`).  The gang is then
   picked position by position (gang member ``i`` holds ``len(range(i,
   D_j, k_j))`` chunks, largest first): the first worker in the usual order
   (reading 2 for SRTF/Tiresias-L, earliest free for BatchSche) whose
   server still has room for them.  Free room over ``[r_j, tau]`` only
   shrinks as ``tau`` grows, so an SRTF/Tiresias-L job for which no gang
   of ``k_j`` qualified workers fits the storage (ignoring which workers
   are busy) can never start on the edge: it goes to the cloud as in
   reading 5 (from ``max(tau, r_j + Delta_jc)``).  A BatchSche job whose
   edge gang does not fit is planned in the cloud.  Such jobs are listed
   in ``meta["storage_cloud"]`` (and ``meta["cloud_jobs"]``).  Without
   storage nothing changes.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.params import NoParams, resolve

from .instance import EdgeCloudInstance
from .online import _pick_ps
from .schedule import EdgeCloudSchedule
from .storage import StorageLedger

Worker = tuple[int, int]  # (edge server, worker)

DEFAULT_THRESHOLDS: tuple[float, ...] = (10.0, 100.0)
"""Tiresias-L queue thresholds in worker-hours of attained service."""


@dataclass(frozen=True)
class TiresiasParams:
    """Parameters of :func:`tiresias_l`.

    Attributes
    ----------
    thresholds
        Queue thresholds in worker-hours, strictly increasing; ``K =
        len(thresholds) + 1`` queues.  The seed gives none; the default
        ``(10, 100)`` worker-hours splits jobs of the generator's defaults
        (a chunk needs 4-174 worker-hours on the edge) into three queues.
        ``()`` gives one queue, i.e. FIFO by arrival (with gang preemption).
    """

    thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS


def srtf(
    inst: EdgeCloudInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> EdgeCloudSchedule:
    """SRTF [16]: "jobs are scheduled in the non-decreasing order of remaining training time".

    Implemented: preemptive shortest-remaining-time-first at job level (the
    module's readings 1-6).  The remaining training time of a job is the
    number of slots it still needs on its gang if it ran without
    interruption: the largest, over its gang workers, sum of the remaining
    slots of the chunks bound to that worker; before the job has started,
    ``ceil(D_j / k_j) * p_j`` with ``p_j = ceil(E_j B_j / n_j)`` the slots of
    one chunk on an edge worker.  Ties: earlier arrival, then job index.
    ``seed`` drives the PS draw only; there are no parameters
    (:class:`~optsched.core.params.NoParams`).
    """
    resolve(params, NoParams, "srtf")
    return _GangEngine(inst, seed).run(_Srtf())


def tiresias_l(
    inst: EdgeCloudInstance, /, *, seed: int = 0, params: TiresiasParams | None = None
) -> EdgeCloudSchedule:
    """Tiresias-L [13]: discretised 2D-LAS with all-or-nothing gang preemption.

    Seed: "for each job, the algorithm computes its priority according to
    the number and the occupation time of GPUs allocated, and groups the
    job into a corresponding priority queue.  The jobs of the queue with the
    highest priority are scheduled first.  Besides, the scheduler adopts
    all-or-nothing resource allocation, which suspends or resumes an entire
    job in each preemption."

    Implemented (Tiresias, NSDI'19, discretised 2D-LAS, without its
    starvation-avoiding ``PromoteKnob``, which the seed does not mention):
    the attained service of a job is its number of workers times the time
    it has trained, summed over slots (worker-hours: workers training in a
    slot times ``slot_hours``).  With thresholds ``th_1 < th_2 < ...`` a job
    is in queue ``i`` = number of thresholds ``<=`` its service (queue 0,
    the highest priority, for new jobs); it is demoted as soon as its
    service reaches the next threshold (checked at the start of every
    slot).  Lower queue first; FIFO (arrival, then index) within a queue.
    Gang, preemption and placement as the module's readings 1-5.

    Parameters
    ----------
    seed
        Drives the PS draw only.
    params
        :class:`TiresiasParams` (``thresholds``; None: the default).
    """
    th = tuple(
        float(x) for x in resolve(params, TiresiasParams, "tiresias_l").thresholds
    )
    if any(b <= a for a, b in zip(th, th[1:], strict=False)) or any(
        not x > 0 for x in th
    ):
        raise ValueError(f"thresholds: must be positive and increasing, got {th!r}")
    return _GangEngine(inst, seed).run(_TiresiasL(th))


def batchsche(
    inst: EdgeCloudInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> EdgeCloudSchedule:
    """BatchSche [11]: "first groups the uncompleted jobs into multiple batches,
    then schedules batches one by one to minimize the overall resource cost".

    Implemented (the batch framework of [11] in its simplest form):

    * **Batches.**  At slot ``tau`` when no batch is running, every arrived
      job not yet in a batch forms the next batch; jobs arriving meanwhile
      wait for the following batch.  A batch ends when all its jobs are
      complete; the next one starts in the next slot with an arrival.
    * **Scheduling one batch** (jobs in arrival order, then index): each
      job goes entirely to the cloud or to an edge gang (reading 1),
      whichever finishes it earlier in the batch plan: the cloud from
      ``max(tau, r_j + Delta_jc)`` for ``chunk_slots[j, 1]`` slots
      (``zeta_j = 1``); the edge on the ``k_j`` qualified workers that are
      free earliest in the plan (each worker free from ``max(tau, r_j +
      Delta_js)`` and after the batch jobs already planned on it), finishing
      ``ceil(D_j / k_j) * p_j`` slots after the latest of them.  Ties go to
      the cloud.  The seed's "resource cost" has no prices in model (2)
      (Table II gives none), so the cost is the planned completion slot;
      this also reproduces Sec. V-C's observation that BatchSche sends most
      jobs to the cloud, whose capacity is unlimited.
    * **Execution.**  Non-preemptive: the seed calls SRTF and Tiresias-L
      "two preemptive baselines" and BatchSche "one elastic sharing
      benchmark" (Sec. I), and Figs. 9-10 count preemptions of the four
      preemptive algorithms only.  Edge jobs of the running batch are
      visited with started jobs first, then in batch order; a started job
      keeps its gang even in a slot where it finds no PS, so no job ever
      preempts another.  A job starts when all its gang workers are
      reachable and free.  PSs as reading 4.  Elastic sharing (changing a
      job's number of workers) is not modelled: no migration fixes each
      chunk's worker, and the gang is fixed at planning time.

    ``seed`` drives the PS draw only; there are no parameters
    (:class:`~optsched.core.params.NoParams`).
    """
    resolve(params, NoParams, "batchsche")
    return _GangEngine(inst, seed).run(_BatchSche())


# ------------------------------------------------------------------ engine
def _cloud_rows(
    inst: EdgeCloudInstance, j: int, start: int, next_worker: int
) -> tuple[list[tuple[int, int, int, int, int]], list[tuple[int, int, int, int]], int]:
    """Job ``j`` entirely in the cloud from ``start`` (``zeta_j = 1``), no preemption."""
    c = inst.cloud
    slots = range(start, start + int(inst.chunk_slots[j, 1]))
    runs = [(j, d, t, c, next_worker + d) for d in range(int(inst.D[j])) for t in slots]
    ps = [(j, t, c, j) for t in slots]  # the job's own cloud PS, as A_ps
    return runs, ps, slots[-1]


def _consolidated(free: list[Worker], k: int) -> list[Worker]:
    """``k`` workers of ``free``, servers with the most free workers first."""
    count: dict[int, int] = {}
    for s, _w in free:
        count[s] = count.get(s, 0) + 1
    return sorted(free, key=lambda sw: (-count[sw[0]], sw))[:k]


def _gang_fit(
    order: list[Worker],
    k: int,
    n_chunks: int,
    chunk_mb: float,
    room: np.ndarray,
    store: StorageLedger,
) -> list[Worker] | None:
    """Reading 7: gang of ``k`` workers from ``order`` whose servers store their chunks.

    Position ``i`` (chunks ``i, i + k, ...``) takes the first unused worker
    of ``order`` whose server has room for them; None if some position
    finds none.  With unlimited room this is ``order[:k]``.
    """
    left = room.copy()
    gang: list[Worker] = []
    for i in range(k):
        need = len(range(i, n_chunks, k)) * chunk_mb
        for wk in order:
            if wk not in gang and store.fits(left, wk[0], need):
                gang.append(wk)
                left[wk[0]] -= need
                break
        else:
            return None
    return gang


class _GangEngine:
    """Slot-by-slot gang engine shared by the three baselines (readings 1-7).

    A policy object (:class:`_Srtf`, :class:`_TiresiasL`,
    :class:`_BatchSche`) decides, at the start of every slot, which jobs
    may train and in which priority order (:meth:`_Policy.pool`); the
    engine runs the slot (:meth:`slot`): gang start or resume
    (all-or-nothing), PS (reading 4), training.
    """

    def __init__(self, inst: EdgeCloudInstance, seed: int) -> None:
        self.inst, self.seed = inst, seed
        self.store = StorageLedger(inst) if inst.storage else None
        self.storage_cloud: list[int] = []
        self.rng = np.random.default_rng(seed)
        J = self.J = inst.n_jobs
        self.c = inst.cloud
        self.D = D = [int(x) for x in inst.D]
        self.p0 = p0 = [int(x) for x in inst.chunk_slots[:, 0]]
        self.r = [int(x) for x in inst.arrival]
        self.delay = inst.delay.astype(int)
        self.qual: list[list[Worker]] = [
            [
                (s, w)
                for s in range(len(inst.servers))
                for w in range(inst.n_workers[s])
                if int(inst.worker_types[s][w]) == job.worker_type
            ]
            for job in inst.jobs
        ]
        self.k = [min(D[j], len(self.qual[j])) for j in range(J)]
        self.wtype = [job.worker_type for job in inst.jobs]
        self.n_of_type: dict[int, int] = {}
        for s in range(len(inst.servers)):
            for typ in inst.worker_types[s].tolist():
                self.n_of_type[int(typ)] = self.n_of_type.get(int(typ), 0) + 1
        self.ps_by_type: dict[int, list[tuple[int, int]]] = {}
        for s in range(len(inst.servers)):
            for p, typ in enumerate(inst.ps_types[s].tolist()):
                self.ps_by_type.setdefault(int(typ), []).append((s, p))
        self.left = [[p0[j]] * D[j] for j in range(J)]  # remaining slots per chunk
        self.gang: list[list[Worker] | None] = [None] * J
        self.head: list[list[int]] = [[] for _ in range(J)]
        self.load: list[list[int]] = [[] for _ in range(J)]  # slots per gang worker
        self.service = [0.0] * J  # attained service, worker-hours (Tiresias-L)
        self.started = [False] * J
        self.done = [False] * J
        self.cloud_end: dict[int, int] = {}  # cloud job -> last slot
        self.zeta = np.zeros(J, dtype=bool)
        self.runs: list[tuple[int, int, int, int, int]] = []
        self.ps_rows: list[tuple[int, int, int, int]] = []
        self.ps_blocked: list[tuple[int, int]] = []
        self.prev_ps: dict[int, tuple[int, int]] = {}
        self.next_cloud = 0

    # ---------------------------------------------------------- job state
    def to_cloud(self, j: int, start: int) -> None:
        """Job ``j`` entirely in the cloud from ``start`` (reading 5)."""
        rr, pp, end = _cloud_rows(self.inst, j, start, self.next_cloud)
        self.next_cloud += self.D[j]
        self.runs.extend(rr)
        self.ps_rows.extend(pp)
        self.zeta[j] = True
        self.cloud_end[j] = end

    def set_gang(self, j: int, g: list[Worker]) -> None:
        """Bind chunk ``d`` of ``j`` to ``g[d mod len(g)]`` (reading 1)."""
        D = self.D
        self.gang[j] = g
        self.head[j] = list(range(len(g)))  # next unfinished chunk per gang worker
        self.load[j] = [len(range(i, D[j], len(g))) * self.p0[j] for i in range(len(g))]
        if self.store is not None:  # reading 7: the chunks are stored from r_j on
            for i, (s, _w) in enumerate(g):
                self.store.place(j, s, len(range(i, D[j], len(g))))

    def fit(self, j: int, order: list[Worker]) -> list[Worker] | None:
        """Reading 7 (``order[:k_j]`` without storage)."""
        if self.store is None:
            return order[: self.k[j]]
        u = float(self.inst.jobs[j].chunk_mb)
        return _gang_fit(order, self.k[j], self.D[j], u, self.store.room(j), self.store)

    def live(self, j: int) -> list[tuple[int, Worker, int]]:
        """(gang index, worker, next chunk) for each gang worker with work left."""
        g = self.gang[j]
        assert g is not None
        head, Dj = self.head[j], self.D[j]
        return [(i, wk, head[i]) for i, wk in enumerate(g) if head[i] < Dj]

    def remaining_time(self, j: int) -> int:
        """SRTF's remaining training time of ``j`` (:func:`srtf`)."""
        if self.gang[j] is None:
            return -(-self.D[j] // self.k[j]) * self.p0[j]
        return max(self.load[j])

    def edge_pool(self, t: int) -> list[int]:
        """Arrived, unfinished edge jobs at ``t``; new jobs without edge worker
        go to the cloud first (reading 5).  Order: job index."""
        r, k = self.r, self.k
        for j in range(self.J):
            if r[j] == t and k[j] == 0:  # reading 5: no qualified edge worker
                self.to_cloud(j, r[j] + int(self.delay[j, self.c]))
        pool = [j for j in range(self.J) if r[j] <= t and j not in self.cloud_end]
        return [j for j in pool if not self.done[j]]

    # ---------------------------------------------------------- the slots
    def run(self, policy: _Policy) -> EdgeCloudSchedule:
        """Every slot until all work is done (reading 6); the schedule."""
        inst, D, p0, r = self.inst, self.D, self.p0, self.r
        horizon_guard = inst.n_slots + sum(D[j] * p0[j] for j in range(self.J))
        horizon_guard += int(self.delay.max(initial=0)) + max(r, default=0) + 1
        t = 0
        while not all(self.done):
            t += 1
            if t > 10 * horizon_guard:  # pragma: no cover - progress is guaranteed
                raise RuntimeError(f"{policy.name}: no progress by slot {t}")
            if self.store is not None:
                self.store.start_slot(t)
            self.slot(t, policy.pool(self, t), policy.keeps_gang)
        makespan = max((row[2] for row in self.runs), default=0)
        sched = EdgeCloudSchedule.build(
            inst, self.runs, self.ps_rows, zeta=self.zeta, algorithm=policy.name
        )
        sched.meta.update(
            ps_blocked=self.ps_blocked,
            cloud_jobs=sorted(self.cloud_end),
            storage_cloud=self.storage_cloud,
            makespan=makespan,
            horizon_exceeded=makespan > inst.n_slots,
            seed=self.seed,
        )
        sched.meta.update(policy.meta())
        return sched

    def slot(self, t: int, pool: list[int], keeps_gang: bool) -> None:
        """One slot: jobs of ``pool`` in order, all-or-nothing, a PS per running job.

        ``keeps_gang``: a started job that finds no PS still holds its gang
        workers in the slot (BatchSche, non-preemptive).
        """
        claimed: set[Worker] = set()
        n_free = dict(self.n_of_type)  # unclaimed edge workers per type (shortcut)
        used: set[tuple[int, int]] = set()
        assigned: dict[int, tuple[int, int]] = {}
        for j in pool:
            fresh = self.gang[j] is None
            if n_free.get(self.wtype[j], 0) < (self.k[j] if fresh else 1):
                continue
            got = self.start(j, t, claimed) if fresh else self.resume(j, t, claimed)
            if got is None:
                continue
            g, work = got
            pick = self.pick_ps(j, t, used)
            if pick is None:
                self.ps_blocked.append((j, t))
                if keeps_gang and self.started[j]:
                    claimed.update(wk for _i, wk, _d in work)  # keeps its gang
                    n_free[self.wtype[j]] -= len(work)
                continue
            if g is not None:
                self.set_gang(j, g)
            self.started[j] = True
            assigned[j] = pick
            if pick[0] != self.c:
                used.add(pick)
            self.ps_rows.append((j, t, pick[0], pick[1]))
            self.train(j, t, work, claimed)
            n_free[self.wtype[j]] -= len(work)
        self.prev_ps = assigned
        for j, end in self.cloud_end.items():
            if end <= t:
                self.done[j] = True

    def start(
        self, j: int, t: int, claimed: set[Worker]
    ) -> tuple[list[Worker], list[tuple[int, Worker, int]]] | None:
        """Reading 2 (and 7): the gang ``j`` starts on and its work, or None.

        With storage, a job no gang of which can ever fit goes to the cloud.
        """
        qual, r, delay = self.qual[j], self.r, self.delay
        free = [
            wk for wk in qual if wk not in claimed and t >= r[j] + int(delay[j, wk[0]])
        ]
        if len(free) < self.k[j]:
            return None
        if self.store is None:
            g = _consolidated(free, self.k[j])
        else:  # reading 7
            fitted = self.fit(j, _consolidated(free, len(free)))
            if fitted is None:
                if self.fit(j, _consolidated(qual, len(qual))) is None:
                    self.storage_cloud.append(j)  # never fits: the cloud
                    self.to_cloud(j, max(t, r[j] + int(delay[j, self.c])))
                return None
            g = fitted
        return g, [(d, wk, d) for d, wk in enumerate(g)]  # chunk i on g[i]

    def resume(
        self, j: int, t: int, claimed: set[Worker]
    ) -> tuple[None, list[tuple[int, Worker, int]]] | None:
        """Reading 3: the work of ``j``'s gang, or None when it is suspended."""
        gj, hj, Dj = self.gang[j], self.head[j], self.D[j]
        assert gj is not None
        if any(hj[i] < Dj and gj[i] in claimed for i in range(len(gj))):
            return None  # a gang worker is taken: suspended (all-or-nothing)
        work = self.live(j)
        if not self.started[j] and any(
            t < self.r[j] + int(self.delay[j, wk[0]]) for _i, wk, _d in work
        ):
            return None  # BatchSche: planned gang not reachable yet ((2i))
        return None, work

    def pick_ps(
        self, j: int, t: int, used: set[tuple[int, int]]
    ) -> tuple[int, int] | None:
        """Reading 4: last slot's PS if free, else ``A_ps``'s draw."""
        prev = self.prev_ps
        if j in prev and prev[j] not in used:
            return prev[j]
        return _pick_ps(self.inst, j, t, False, self.ps_by_type, used, self.rng)

    def train(
        self, j: int, t: int, work: list[tuple[int, Worker, int]], claimed: set[Worker]
    ) -> None:
        """Job ``j`` trains ``work`` (gang index, worker, chunk) in slot ``t``."""
        gang = self.gang[j]
        assert gang is not None
        left, load, head = self.left[j], self.load[j], self.head[j]
        for i, wk, d in work:
            claimed.add(wk)
            self.runs.append((j, d, t, wk[0], wk[1]))
            left[d] -= 1
            load[i] -= 1
            if left[d] == 0:
                head[i] += len(gang)
        self.service[j] += len(work) * self.inst.slot_hours
        if all(h >= self.D[j] for h in head):
            self.done[j] = True
            if self.store is not None:
                self.store.release(j)


# ---------------------------------------------------------------- policies
class _Policy:
    """Which jobs may train in a slot, and in which order (one per baseline)."""

    name: str = ""
    #: a started job that finds no PS keeps its gang workers (non-preemptive)
    keeps_gang: bool = False

    def pool(self, eng: _GangEngine, t: int) -> list[int]:
        """The jobs of slot ``t`` in priority order."""
        raise NotImplementedError

    def meta(self) -> dict[str, Any]:
        """Extra ``meta`` entries of the schedule."""
        return {}


class _Srtf(_Policy):
    """SRTF: edge jobs by remaining training time, arrival, index."""

    name = "srtf"

    def pool(self, eng: _GangEngine, t: int) -> list[int]:
        """:meth:`_GangEngine.edge_pool` by :meth:`_GangEngine.remaining_time`."""
        pool = eng.edge_pool(t)
        pool.sort(key=lambda j: (eng.remaining_time(j), eng.r[j], j))
        return pool


@dataclass
class _TiresiasL(_Policy):
    """Tiresias-L: edge jobs by queue (attained service), arrival, index."""

    thresholds: tuple[float, ...]
    name = "tiresias_l"

    def pool(self, eng: _GangEngine, t: int) -> list[int]:
        """:meth:`_GangEngine.edge_pool` by discretised 2D-LAS queue."""
        th, service = self.thresholds, eng.service
        pool = eng.edge_pool(t)
        pool.sort(key=lambda j: (bisect.bisect_right(th, service[j]), eng.r[j], j))
        return pool

    def meta(self) -> dict[str, Any]:
        """``thresholds``."""
        return {"thresholds": self.thresholds}


@dataclass
class _BatchSche(_Policy):
    """BatchSche: batches planned at their first slot, run without preemption."""

    batch: list[int] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    in_batch: set[int] = field(default_factory=set)
    name = "batchsche"
    keeps_gang = True

    def pool(self, eng: _GangEngine, t: int) -> list[int]:
        """A new batch when the last one is complete; its edge jobs, started first."""
        if all(eng.done[j] for j in self.batch):
            new = [j for j in range(eng.J) if j not in self.in_batch and eng.r[j] <= t]
            if new:
                self.batch = new
                self.batches.append(new)
                self.in_batch.update(new)
                self.plan(eng, t)
        pool = [j for j in self.batch if eng.gang[j] is not None and not eng.done[j]]
        pos = {j: i for i, j in enumerate(self.batch)}
        pool.sort(key=lambda j: (not eng.started[j], pos[j]))
        return pool

    def plan(self, eng: _GangEngine, tau: int) -> None:
        """Each job of the batch to the cloud or an edge gang, earlier finish wins."""
        inst, r, delay, k = eng.inst, eng.r, eng.delay, eng.k
        avail: dict[Worker, int] = {}
        for j in self.batch:
            cloud_start = max(tau, r[j] + int(delay[j, eng.c]))
            cloud_fin = cloud_start + int(inst.chunk_slots[j, 1]) - 1
            if k[j] > 0:
                when = {
                    wk: max(avail.get(wk, tau), r[j] + int(delay[j, wk[0]]))
                    for wk in eng.qual[j]
                }
                g = eng.fit(j, sorted(eng.qual[j], key=lambda wk: (when[wk], wk)))
                if g is None:
                    eng.storage_cloud.append(j)  # reading 7: no gang fits
                else:
                    span = -(-eng.D[j] // k[j]) * eng.p0[j]
                    edge_fin = max(when[wk] for wk in g) + span - 1
                    if edge_fin < cloud_fin:
                        eng.set_gang(j, g)
                        for wk in g:
                            avail[wk] = edge_fin + 1
                        continue
            eng.to_cloud(j, cloud_start)

    def meta(self) -> dict[str, Any]:
        """``batches``."""
        return {"batches": self.batches}
