"""Baselines of the simulations (Wang et al., Sec. V-A): SRTF, Tiresias-L, BatchSche.

The seed describes each baseline in one sentence; the rules below are the
cited systems' rules in their simplest form that fits model (2).  All three
share one slot-by-slot engine (:func:`_run`) and the constraints every
schedule here meets: chunks only on qualified workers ((2a)), never before
``r_j + Delta_js`` ((2i)), each chunk on one worker for good (no migration,
(2c)), one chunk per worker and slot ((2d)), one PS per training job and
slot ((2e)-(2f)), cloud chunks without preemption (Sec. III).

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
from collections.abc import Sequence

import numpy as np

from .instance import EdgeCloudInstance
from .online import _pick_ps
from .schedule import EdgeCloudSchedule
from .storage import StorageLedger

Worker = tuple[int, int]  # (edge server, worker)

DEFAULT_THRESHOLDS: tuple[float, ...] = (10.0, 100.0)
"""Tiresias-L queue thresholds in worker-hours of attained service."""


def srtf(inst: EdgeCloudInstance, *, seed: int = 0) -> EdgeCloudSchedule:
    """SRTF [16]: "jobs are scheduled in the non-decreasing order of remaining training time".

    Implemented: preemptive shortest-remaining-time-first at job level (the
    module's readings 1-6).  The remaining training time of a job is the
    number of slots it still needs on its gang if it ran without
    interruption: the largest, over its gang workers, sum of the remaining
    slots of the chunks bound to that worker; before the job has started,
    ``ceil(D_j / k_j) * p_j`` with ``p_j = ceil(E_j B_j / n_j)`` the slots of
    one chunk on an edge worker.  Ties: earlier arrival, then job index.
    ``seed`` drives the PS draw only.
    """
    return _run(inst, seed=seed, policy="srtf")


def tiresias_l(
    inst: EdgeCloudInstance,
    *,
    seed: int = 0,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
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
    is in queue ``i`` = number of thresholds ``<= `` its service (queue 0,
    the highest priority, for new jobs); it is demoted as soon as its
    service reaches the next threshold (checked at the start of every
    slot).  Lower queue first; FIFO (arrival, then index) within a queue.
    Gang, preemption and placement as the module's readings 1-5.

    Parameters
    ----------
    thresholds
        Queue thresholds in worker-hours, strictly increasing; ``K =
        len(thresholds) + 1`` queues.  The seed gives none; the default
        ``(10, 100)`` worker-hours splits jobs of the generator's defaults
        (a chunk needs 4-174 worker-hours on the edge) into three queues.
        ``()`` gives one queue, i.e. FIFO by arrival (with gang preemption).
    """
    th = tuple(float(x) for x in thresholds)
    if any(b <= a for a, b in zip(th, th[1:], strict=False)) or any(
        not x > 0 for x in th
    ):
        raise ValueError(f"thresholds: must be positive and increasing, got {th!r}")
    return _run(inst, seed=seed, policy="tiresias_l", thresholds=th)


def batchsche(inst: EdgeCloudInstance, *, seed: int = 0) -> EdgeCloudSchedule:
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
    """
    return _run(inst, seed=seed, policy="batchsche")


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


def _run(
    inst: EdgeCloudInstance,
    *,
    seed: int,
    policy: str,
    thresholds: tuple[float, ...] = (),
) -> EdgeCloudSchedule:
    """Slot-by-slot gang engine shared by the three baselines."""
    store = StorageLedger(inst) if inst.storage else None
    storage_cloud: list[int] = []
    rng = np.random.default_rng(seed)
    J, c = inst.n_jobs, inst.cloud
    D = [int(x) for x in inst.D]
    p0 = [int(x) for x in inst.chunk_slots[:, 0]]
    r = [int(x) for x in inst.arrival]
    delay = inst.delay.astype(int)
    qual: list[list[Worker]] = []
    for job in inst.jobs:
        qual.append(
            [
                (s, w)
                for s in range(len(inst.servers))
                for w in range(inst.n_workers[s])
                if int(inst.worker_types[s][w]) == job.worker_type
            ]
        )
    k = [min(D[j], len(qual[j])) for j in range(J)]
    wtype = [job.worker_type for job in inst.jobs]
    n_of_type: dict[int, int] = {}
    for s in range(len(inst.servers)):
        for typ in inst.worker_types[s].tolist():
            n_of_type[int(typ)] = n_of_type.get(int(typ), 0) + 1
    ps_by_type: dict[int, list[tuple[int, int]]] = {}
    for s in range(len(inst.servers)):
        for p, typ in enumerate(inst.ps_types[s].tolist()):
            ps_by_type.setdefault(int(typ), []).append((s, p))

    left = [[p0[j]] * D[j] for j in range(J)]  # remaining slots per chunk
    gang: list[list[Worker] | None] = [None] * J
    head: list[list[int]] = [[] for _ in range(J)]
    load: list[list[int]] = [[] for _ in range(J)]  # remaining slots per gang worker
    service = [0.0] * J  # attained service, worker-hours (Tiresias-L)
    started = [False] * J
    done = [False] * J
    cloud_end: dict[int, int] = {}  # cloud job -> last slot
    zeta = np.zeros(J, dtype=bool)
    runs: list[tuple[int, int, int, int, int]] = []
    ps_rows: list[tuple[int, int, int, int]] = []
    ps_blocked: list[tuple[int, int]] = []
    prev_ps: dict[int, tuple[int, int]] = {}
    next_cloud = 0
    batch: list[int] = []
    batches: list[list[int]] = []
    in_batch = [False] * J

    def to_cloud(j: int, start: int) -> None:
        nonlocal next_cloud
        rr, pp, end = _cloud_rows(inst, j, start, next_cloud)
        next_cloud += D[j]
        runs.extend(rr)
        ps_rows.extend(pp)
        zeta[j] = True
        cloud_end[j] = end

    def set_gang(j: int, g: list[Worker]) -> None:
        """Bind chunk ``d`` of ``j`` to ``g[d mod len(g)]`` (reading 1)."""
        gang[j] = g
        head[j] = list(range(len(g)))  # next unfinished chunk per gang worker
        load[j] = [len(range(i, D[j], len(g))) * p0[j] for i in range(len(g))]
        if store is not None:  # reading 7: the chunks are stored from r_j on
            for i, (s, _w) in enumerate(g):
                store.place(j, s, len(range(i, D[j], len(g))))

    def fit(j: int, order: list[Worker]) -> list[Worker] | None:
        """Reading 7 (``order[:k_j]`` without storage)."""
        if store is None:
            return order[: k[j]]
        u = float(inst.jobs[j].chunk_mb)
        return _gang_fit(order, k[j], D[j], u, store.room(j), store)

    def live(j: int) -> list[tuple[int, Worker, int]]:
        """(gang index, worker, next chunk) for each gang worker with work left."""
        g = gang[j]
        assert g is not None
        return [(i, wk, head[j][i]) for i, wk in enumerate(g) if head[j][i] < D[j]]

    def remaining_time(j: int) -> int:
        if gang[j] is None:
            return -(-D[j] // k[j]) * p0[j]
        return max(load[j])

    def plan_batch(tau: int) -> None:
        avail: dict[Worker, int] = {}
        for j in batch:
            cloud_start = max(tau, r[j] + int(delay[j, c]))
            cloud_fin = cloud_start + int(inst.chunk_slots[j, 1]) - 1
            if k[j] > 0:
                when = {
                    wk: max(avail.get(wk, tau), r[j] + int(delay[j, wk[0]]))
                    for wk in qual[j]
                }
                g = fit(j, sorted(qual[j], key=lambda wk: (when[wk], wk)))
                if g is None:
                    storage_cloud.append(j)  # reading 7: no gang fits
                else:
                    edge_fin = max(when[wk] for wk in g) + -(-D[j] // k[j]) * p0[j] - 1
                    if edge_fin < cloud_fin:
                        set_gang(j, g)
                        for wk in g:
                            avail[wk] = edge_fin + 1
                        continue
            to_cloud(j, cloud_start)

    horizon_guard = inst.n_slots + sum(D[j] * p0[j] for j in range(J))
    horizon_guard += int(delay.max(initial=0)) + max(r, default=0) + 1
    t = 0
    while not all(done):
        t += 1
        if t > 10 * horizon_guard:  # pragma: no cover - progress is guaranteed
            raise RuntimeError(f"{policy}: no progress by slot {t}")
        if store is not None:
            store.start_slot(t)
        # ---- arrivals / batches
        if policy == "batchsche":
            if all(done[j] for j in batch):
                new = [j for j in range(J) if not in_batch[j] and r[j] <= t]
                if new:
                    batch = new
                    batches.append(new)
                    for j in new:
                        in_batch[j] = True
                    plan_batch(t)
            pool = [j for j in batch if gang[j] is not None and not done[j]]
            pos = {j: i for i, j in enumerate(batch)}
            pool.sort(key=lambda j: (not started[j], pos[j]))
        else:
            for j in range(J):
                if r[j] == t and k[j] == 0:  # reading 5: no qualified edge worker
                    to_cloud(j, r[j] + int(delay[j, c]))
            pool = [j for j in range(J) if r[j] <= t and j not in cloud_end]
            pool = [j for j in pool if not done[j]]
            if policy == "srtf":
                pool.sort(key=lambda j: (remaining_time(j), r[j], j))
            else:
                pool.sort(
                    key=lambda j: (bisect.bisect_right(thresholds, service[j]), r[j], j)
                )
        # ---- one slot: priority order, all-or-nothing, PS per running job
        claimed: set[Worker] = set()
        n_free = dict(n_of_type)  # unclaimed edge workers per type (shortcut)
        used: set[tuple[int, int]] = set()
        assigned: dict[int, tuple[int, int]] = {}
        for j in pool:
            if n_free.get(wtype[j], 0) < (k[j] if gang[j] is None else 1):
                continue
            if gang[j] is None:  # reading 2: start on free reachable workers
                free = [
                    wk
                    for wk in qual[j]
                    if wk not in claimed and t >= r[j] + int(delay[j, wk[0]])
                ]
                if len(free) < k[j]:
                    continue
                if store is None:
                    g = _consolidated(free, k[j])
                else:  # reading 7
                    g = fit(j, _consolidated(free, len(free)))
                    if g is None:
                        if fit(j, _consolidated(qual[j], len(qual[j]))) is None:
                            storage_cloud.append(j)  # never fits: the cloud
                            to_cloud(j, max(t, r[j] + int(delay[j, c])))
                        continue
                work = [(d, wk, d) for d, wk in enumerate(g)]  # chunk i on g[i]
            else:
                g, gj, hj = None, gang[j], head[j]
                if any(hj[i] < D[j] and gj[i] in claimed for i in range(len(gj))):
                    continue  # a gang worker is taken: suspended (all-or-nothing)
                work = live(j)
                if not started[j] and any(
                    t < r[j] + int(delay[j, wk[0]]) for _i, wk, _d in work
                ):
                    continue  # BatchSche: planned gang not reachable yet ((2i))
            if j in prev_ps and prev_ps[j] not in used:
                pick: tuple[int, int] | None = prev_ps[j]
            else:
                pick = _pick_ps(inst, j, t, False, ps_by_type, used, rng)
            if pick is None:
                ps_blocked.append((j, t))
                if policy == "batchsche" and started[j]:
                    claimed.update(wk for _i, wk, _d in work)  # keeps its gang
                    n_free[wtype[j]] -= len(work)
                continue
            if g is not None:
                set_gang(j, g)
            started[j] = True
            assigned[j] = pick
            if pick[0] != c:
                used.add(pick)
            ps_rows.append((j, t, pick[0], pick[1]))
            for i, wk, d in work:
                claimed.add(wk)
                runs.append((j, d, t, wk[0], wk[1]))
                left[j][d] -= 1
                load[j][i] -= 1
                if left[j][d] == 0:
                    head[j][i] += len(gang[j])
            n_free[wtype[j]] -= len(work)
            service[j] += len(work) * inst.slot_hours
            if all(h >= D[j] for h in head[j]):
                done[j] = True
                if store is not None:
                    store.release(j)
        prev_ps = assigned
        for j, end in cloud_end.items():
            if end <= t:
                done[j] = True
    makespan = max((row[2] for row in runs), default=0)
    sched = EdgeCloudSchedule.build(inst, runs, ps_rows, zeta=zeta, algorithm=policy)
    sched.meta.update(
        ps_blocked=ps_blocked,
        cloud_jobs=sorted(cloud_end),
        storage_cloud=storage_cloud,
        makespan=makespan,
        horizon_exceeded=makespan > inst.n_slots,
        seed=seed,
    )
    if policy == "tiresias_l":
        sched.meta["thresholds"] = thresholds
    if policy == "batchsche":
        sched.meta["batches"] = batches
    return sched
