"""A_online and A_online-E: preemptive chunk dispatching (Wang et al., Sec. IV).

``A_online`` (Alg. 1) runs, in every slot ``t``, ``A_greedy`` (Alg. 2, with
``CALCULATEQ`` of Alg. 3 and ``UPDATEVARIABLES`` of Alg. 4) on the jobs
arriving in ``t`` and then ``A_ps`` (Alg. 5) on the running jobs.

Rule.  Every edge worker schedules its pending chunks by HAPRF, highest
average processing rate ``gamma_jd = n_jsw / (E_j D_j B_j)`` first.  Each
chunk ``d`` of an arriving job ``j`` goes to the worker ``(s, w)`` with the
smallest Eq. (5)::

    Q_jdsw = Delta_js / D_j
           + (1 / D_j) sum_{d' in A(t0), gamma_j'd' >= gamma_jd} p^_j'd'(t0)
           + (1 / D_j) E_j B_j / n_jsw
           + (E_j B_j / n_jsw) sum_{d' in A(t0), gamma_j'd' < gamma_jd} 1 / D_j'

with ``t0 = r_j + Delta_js``, ``A(t0)`` the chunks pending on ``(s, w)`` at
``t0`` and ``p^(t0)`` their remaining processing time; the cloud (unlimited
workers, no preemption) has only the first and third terms (Alg. 3 line 8).
``alpha_jd`` is that minimum (Alg. 2 lines 13, 24).  ``A_ps`` keeps a job's
PS while the job trains in consecutive slots and otherwise draws one at
random (seeded) among the eligible PSs.

Proven bound (Theorem 3): with ``(1 + eps)``-speed workers, ``A_online`` is
``(1 + 1/eps)``-competitive for ILP (4) and ``D_max (1 + 1/eps)``-competitive
for MINLP (2).  ``A_online-E`` (Sec. V-A baseline) is the same algorithm
with the cloud removed from the candidate set ``C_j``.

Readings adopted where the pseudo-code is ambiguous (line numbers of the
seed's Alg. 1-5):

1. **Slots.**  Processing times are whole slots: a chunk on ``(s, w)``
   occupies ``p_jsw = ceil(E_j B_j / n_jsw)`` slots (``inst.chunk_slots``,
   what the checker's (2b) requires), and this ``p_jsw`` is the ``E_j B_j /
   n_jsw`` of Eq. (5) and of Alg. 4 line 2 (``y = 1`` on ``p_jsw`` slots
   from ``t*``, not ``p + 1``).  ``gamma_jd`` uses the real ``n_jsw`` as
   printed.  All delays and remaining times are counted in slots.
2. **HAPRF with release times (Alg. 3 line 10, Alg. 4 lines 3-7).**  A
   worker's plan is the preemptive priority schedule of its chunks, each
   released at its ``t0``: in priority order, a chunk takes the earliest
   slots ``>= t0`` not taken by chunks before it.  Priority is ``gamma``
   descending, ties first-dispatched first (the ``>=`` of Eq. (5): an equal
   chunk already queued is waited for).  ``t*`` is the first slot of ``d``
   in this plan; the chunks of ``A_2`` lose the slots ``d`` takes.  When the
   worker is busy from ``t0`` on (the case of the paper's proofs) this is
   exactly "``d`` runs in ``[t*, t* + p)`` and every later slot of ``A_2`` is
   postponed by ``p``"; with idle gaps or chunks released after ``t0`` the
   literal shift would leave slots idle or collide with a higher-priority
   chunk, so the HAPRF plan is used.  The plan is recomputed from the
   current queue each time it is needed (nothing executed is ever moved).
3. **``A(t0)``** = chunks dispatched to ``(s, w)`` with release ``<= t0``
   that are unfinished at ``t0`` in the current plan; ``p^(t0)`` = their
   planned slots ``>= t0``.  Chunks released after ``t0`` are not pending
   when ``d`` arrives and enter neither sum.
4. **Alg. 2 lines 18-24.**  A chunk goes to the argmin of ``C_j`` computed
   *before* it is placed, and ``alpha_jd`` is that minimum (Lemma 2 needs
   ``alpha_jd <= Q_jdsw`` for the state ``d`` saw).  Then ``d`` is placed
   (line 25) and the ``C_j`` entry of the chosen worker is recomputed for
   the next chunk (lines 22-23; no other worker's queue changed).  After the
   first chunk goes to an edge worker, the cloud entry is recomputed with
   ``zeta_j = 0`` (lines 18-20, as the text says: "resetting ``zeta_j =
   0``"; the print passes ``d_1`` to ``CALCULATEQ``, whose line 3 would set
   ``zeta_j = 1`` again).  ``argmin`` ties go to the first entry of ``C_j``:
   edge servers in index order, workers in index order, the cloud last
   (line 3 order).
5. **Cloud (lines 12-16).**  When the argmin is the cloud, the current and
   all remaining chunks of ``j`` go to the cloud, each on its own cloud
   worker, in slots ``r_j + Delta_jc .. + p - 1`` without preemption, with
   ``alpha_jd`` = the cloud's ``Q``.  If this happens for ``d_1`` the whole
   job is in the cloud and ``zeta_j = 1``; otherwise ``zeta_j = 0`` and the
   cloud chunks train at the ``zeta_j = 0`` rate.
6. **``[J_a]`` (Alg. 1 line 2, Alg. 5 line 1).**  ``A_greedy`` dispatches
   the jobs arriving in slot ``t`` (in instance order; Theorem 4 counts
   ``sum_t |J_a| = J``); ``A_ps`` serves every arrived job that trains in
   ``t`` ("allocating PS to the running jobs").
7. **``A_ps`` eligibility (Alg. 5 lines 3-6).**  A job keeps the PS it had
   in ``t - 1`` (if no job took it earlier in the same slot).  Otherwise:
   a job entirely in the cloud (``zeta_j = 1``) gets a cloud PS (its worker
   allocation puts the PS there, Sec. IV-D); any other job draws uniformly
   (``numpy.random.default_rng(seed)``, jobs in index order, keepers first)
   among the edge PSs with ``o_jsp = 1`` that are free in ``t`` and
   reachable (``t >= r_j + Delta_js``, (2i)); if there is none, a cloud PS
   if ``t >= r_j + Delta_jc``.
8. **PS shortage.**  Lemma 3 assumes a PS is always available; it is not
   when no qualified edge PS is free and the cloud is not reachable yet.
   Then the job's edge chunks do not train in ``t`` (the worker runs its
   next chunk by HAPRF) and the event is recorded in
   ``meta["ps_blocked"]``.  Never happens to cloud chunks (they start at
   ``r_j + Delta_jc``).
9. **Horizon.**  The paper takes ``T`` "large enough"; the simulation runs
   until every chunk is done and keeps rows beyond ``T``, which the checker
   then rejects ((2k)); ``meta["makespan"]`` is the last busy slot.

Speed augmentation (Definition 1): a ``(1 + eps)``-speed worker trains
``(1 + eps) n_jsw`` mini-batches per slot.  ``speed`` runs the algorithm on
:func:`sped_up` ``(inst, speed)``, whose slots are ``speed`` times longer in
hours, so every ``n_j`` of Eq. (1) is multiplied by ``speed`` and
``chunk_slots`` shrinks accordingly; delays ``Delta_js`` stay in slots.
Check a sped-up schedule with ``check(sped_up(inst, speed), sched)``.  The
dual (11) of Theorem 3 uses the unscaled rates ``n_jsw`` of ``inst``.

Storage extension (Sec. VI), on when the instance has storage (some
``U_s``):

10. **Storage rule.**  Sec. VI: "before dispatching one data chunk to a
    server, we need to first check if the server's storage capacity is
    enough to store the data chunk ... the remaining capacity of the
    selected server is thus updated".  So for each chunk ``d`` (Alg. 2
    line 11) the argmin runs over the entries of ``C_j`` whose edge server
    has ``u_j`` MB free, plus the cloud (unlimited storage); ``alpha_jd``
    is that restricted minimum.  Free storage is read as the checker reads
    (7b)-(7d) (:mod:`optsched.edgecloud.storage`): ``U_s`` minus ``u_j'``
    for every chunk on ``s`` of an arrived job ``j'`` that is not complete
    (a chunk holds its storage until its *job* completes, (7c) with
    ``c_j``), including the chunks of ``j`` placed before ``d``.  Because
    chunks are dispatched on arrival and stored jobs only ever leave, the
    check at ``r_j`` covers every later slot, so the schedule meets (7b).
    Without storage nothing changes (every server fits).
11. **A_online-E and full storage.**  When no qualified edge server has
    room for chunk ``d``, neither has it for later chunks of ``j`` (same
    ``u_j``, storage only fills up during one dispatch); A_online-E then
    sends ``d`` and the rest of the job to the cloud as in lines 12-16
    (``zeta_j = 1`` if ``d = d_1``, else the ``zeta_j = 0`` rate) and lists
    ``j`` in ``meta["cloud_jobs"]`` and ``meta["storage_cloud"]``; the seed
    has no rule for this case.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from optsched.core.params import resolve

from .instance import EdgeCloudInstance
from .schedule import EdgeCloudSchedule
from .storage import StorageLedger

Interval = tuple[int, int]  # inclusive slot range (first, last)


def sped_up(inst: EdgeCloudInstance, speed: float) -> EdgeCloudInstance:
    """The instance seen by ``speed``-fast workers (Definition 1).

    Every throughput ``n_j`` of Eq. (1) is multiplied by ``speed`` by
    stretching one slot to ``speed * slot_hours`` hours of work; arrivals,
    delays ``Delta_js`` and ``T`` stay in slots.  ``speed = 1`` returns
    ``inst`` itself.
    """
    if not speed > 0:
        raise ValueError(f"speed: must be > 0, got {speed!r}")
    if speed == 1:
        return inst
    return dataclasses.replace(
        inst,
        slot_hours=inst.slot_hours * float(speed),
        meta={**inst.meta, "speed": float(speed)},
    )


# ------------------------------------------------------------------ state
@dataclass(eq=False)
class _Chunk:
    """A chunk dispatched to an edge worker (mutable simulation state)."""

    job: int
    chunk: int
    release: int  # t0 = r_j + Delta_js
    remaining: int  # slots still to train
    key: tuple[float, int]  # HAPRF order: (-gamma_jd, dispatch sequence)
    gamma: float
    weight: float  # 1 / D_j
    row: int  # row in the dispatch trace


@dataclass(eq=False)
class _Worker:
    """An edge worker: its unfinished chunks in HAPRF order."""

    server: int
    worker: int
    pending: list[_Chunk] = field(default_factory=list)
    version: int = 0
    cache: tuple[int, int, list[list[Interval]]] | None = None

    def add(self, ch: _Chunk) -> None:
        keys = [c.key for c in self.pending]
        self.pending.insert(bisect.bisect(keys, ch.key), ch)
        self.version += 1

    def remove(self, ch: _Chunk) -> None:
        self.pending.remove(ch)
        self.version += 1

    def plan(self, t_now: int) -> list[list[Interval]]:
        """HAPRF plan from slot ``t_now`` (reading 2), one interval list per chunk."""
        if self.cache is not None and self.cache[:2] == (t_now, self.version):
            return self.cache[2]
        busy: list[Interval] = []
        out = []
        for ch in self.pending:
            iv = _fill(busy, max(ch.release, t_now), ch.remaining)
            busy = _merge(busy + iv)
            out.append(iv)
        self.cache = (t_now, self.version, out)
        return out


@dataclass(eq=False)
class _State:
    """What A_greedy writes: primal rows, ``zeta_j``, cloud spans, the trace."""

    zeta: np.ndarray
    cloud_span: dict[int, tuple[int, int]] = field(default_factory=dict)
    runs: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    cloud_jobs: list[int] = field(default_factory=list)
    storage_cloud: list[int] = field(default_factory=list)
    store: StorageLedger | None = None  # storage extension (reading 10)
    seq: int = 0  # dispatch counter (HAPRF tie-break)
    next_cloud_worker: int = 0


def _merge(iv: list[Interval]) -> list[Interval]:
    """Sorted union of inclusive intervals."""
    out: list[Interval] = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _fill(busy: list[Interval], start: int, need: int) -> list[Interval]:
    """The earliest ``need`` slots ``>= start`` outside the merged ``busy``."""
    out: list[Interval] = []
    t = start
    for a, b in busy:
        if need == 0:
            break
        if b < t:
            continue
        if a > t:
            take = min(need, a - t)
            out.append((t, t + take - 1))
            need -= take
        t = max(t, b + 1)
    if need > 0:
        out.append((t, t + need - 1))
    return out


def _slots_from(iv: list[Interval], t: int) -> int:
    """Number of slots ``>= t`` in the interval list."""
    return sum(b - max(a, t) + 1 for a, b in iv if b >= t)


@dataclass(frozen=True)
class _Q:
    """One entry of ``C_j``: ``Q_jdsw`` by terms, ``t*`` and planned completion."""

    q: float
    delay: float
    wait: float
    proc: float
    postpone: float
    t_star: int
    finish: int
    slots: int


# ------------------------------------------------------------- A_online
@dataclass(frozen=True)
class AOnlineParams:
    """Parameters of :func:`a_online` and :func:`a_online_e`.

    Attributes
    ----------
    speed
        Speed augmentation ``1 + eps`` (Definition 1): the schedule is for
        :func:`sped_up` ``(inst, speed)``, check it against that instance;
        default 1 (no augmentation).
    """

    speed: float = 1.0


def a_online(
    inst: EdgeCloudInstance, /, *, seed: int = 0, params: AOnlineParams | None = None
) -> EdgeCloudSchedule:
    """A_online (Alg. 1 = A_greedy, Alg. 2-4, + A_ps, Alg. 5), Sec. IV.

    Parameters
    ----------
    inst
        The instance (checked at speed 1).
    seed
        Seed of the random PS choice of Alg. 5 line 6.
    params
        :class:`AOnlineParams` (``speed``; None: speed 1).

    Returns
    -------
    EdgeCloudSchedule
        ``meta`` holds ``trace`` (one row per chunk dispatch, the quantities
        ``alpha_jd`` and ``beta_sw(t)`` of Lemmas 2 and 4 are built from;
        see :func:`_simulate`), ``ps_blocked`` ((job, slot) pairs, reading
        8), ``makespan`` and ``horizon_exceeded`` (reading 9), ``speed``,
        ``seed``, ``cloud_jobs`` and ``storage_cloud`` (A_online-E only,
        reading 11).
    """
    speed = resolve(params, AOnlineParams, "a_online").speed
    return _simulate(inst, seed=seed, speed=speed, cloud=True, name="a_online")


def a_online_e(
    inst: EdgeCloudInstance, /, *, seed: int = 0, params: AOnlineParams | None = None
) -> EdgeCloudSchedule:
    """A_online-E (Sec. V-A baseline): A_online with the cloud removed from ``C_j``.

    Chunks are dispatched to edge workers only.  A job for which no edge
    worker qualifies (``v_jsw = 0`` on every edge server) has an empty
    ``C_j``; it is then dispatched entirely to the cloud exactly as A_online
    would (reading 5 with ``zeta_j = 1``) and listed in
    ``meta["cloud_jobs"]``, so the schedule stays feasible; with storage,
    chunks that find no qualified edge server with room go to the cloud the
    same way (reading 11, ``meta["storage_cloud"]``).  PSs follow
    ``A_ps`` unchanged (reading 7): a cloud PS only when no qualified edge
    PS is free.  Other parameters as :func:`a_online`.
    """
    speed = resolve(params, AOnlineParams, "a_online_e").speed
    return _simulate(inst, seed=seed, speed=speed, cloud=False, name="a_online_e")


def _simulate(
    inst: EdgeCloudInstance, *, seed: int, speed: float, cloud: bool, name: str
) -> EdgeCloudSchedule:
    """Run Alg. 1 slot by slot; ``cloud=False`` gives A_online-E.

    ``meta["trace"]`` is a DataFrame with one row per chunk, in dispatch
    order: ``job, chunk, server, worker`` (cloud workers are fresh indices),
    ``arrival`` (``r_j``), ``release`` (``t0 = r_j + Delta_js``), ``weight``
    (``mu_jd = 1/D_j``), ``slots`` (``p_jsw``), ``t_star``,
    ``planned_completion`` (last slot of the plan when dispatched, Alg. 4
    line 8), ``completion`` (``c_jd``, last slot actually trained), the four
    terms of Eq. (5) ``q_delay, q_wait, q_proc, q_postpone``, their sum
    ``alpha`` (``= min C_j``, Alg. 2 lines 13/24), ``n_candidates``
    (``|C_j|``) and ``zeta`` (rate used: 1 only for chunks of a job entirely
    in the cloud).

    The queue of worker ``(s, w)`` at slot ``t`` in the sense of
    ``beta_sw(t)`` (Sec. IV-C and Alg. 4 line 8: a chunk counts ``1/D_j``
    from ``r_j`` until it is completed) is the set of rows on ``(s, w)``
    with ``arrival <= t <= completion``; ``planned_completion`` instead of
    ``completion`` gives line 8's value at dispatch, before later
    postponements.  Every cloud chunk has its own cloud worker.  Lemma 4's
    ``sum alpha = sum beta`` then holds exactly when every edge worker is
    busy from each chunk's ``t0`` on and no PS shortage occurs (slot
    convention: ``alpha`` counts ``c_jd + 1 - r_j``, ``beta`` the slots
    ``r_j..c_jd``).
    """
    base = inst
    inst = sped_up(inst, speed)
    rng = np.random.default_rng(seed)
    workers, by_type, ps_by_type = _resources(inst)
    st = _State(zeta=np.zeros(inst.n_jobs, dtype=bool))
    edge_left = np.zeros(inst.n_jobs, dtype=np.int64)  # unfinished edge chunks
    if inst.storage:
        st.store = StorageLedger(inst)
    ps_rows: list[tuple[int, int, int, int]] = []
    ps_blocked: list[tuple[int, int]] = []
    prev_ps: dict[int, tuple[int, int]] = {}
    n_left = int(inst.D.sum())  # chunks not yet dispatched to the cloud nor finished
    cloud_end = 0  # last slot of a cloud chunk (needs PS rows up to there)
    t = 0
    while n_left > 0 or t < cloud_end:
        t += 1
        if st.store is not None:
            st.store.start_slot(t)
        # ---- Alg. 1 line 2-3: A_greedy on the jobs arriving in slot t
        for j in np.flatnonzero(inst.arrival == t).tolist():
            n_cloud = _arrive(inst, j, t, by_type, cloud, st, edge_left)
            n_left -= n_cloud
            if j in st.cloud_span:
                cloud_end = max(cloud_end, st.cloud_span[j][1])
        # ---- Alg. 1 line 4: A_ps, then the slot is executed
        tops, assigned = _a_ps(
            inst, t, workers, st, prev_ps, ps_by_type, rng, ps_blocked
        )
        for j, (s, p) in sorted(assigned.items()):
            ps_rows.append((j, t, s, p))
        prev_ps = assigned
        n_left -= _execute(t, workers, tops, st, edge_left)
    makespan = max((r[2] for r in st.runs), default=0)
    sched = EdgeCloudSchedule.build(
        inst, st.runs, ps_rows, zeta=st.zeta, algorithm=name
    )
    sched.meta.update(
        trace=pd.DataFrame(st.trace, columns=_TRACE_COLUMNS),
        ps_blocked=ps_blocked,
        cloud_jobs=st.cloud_jobs,
        storage_cloud=st.storage_cloud,
        makespan=makespan,
        speed=float(speed),
        seed=seed,
        horizon_exceeded=makespan > base.n_slots,
    )
    return sched


def _resources(
    inst: EdgeCloudInstance,
) -> tuple[list[_Worker], dict[int, list[_Worker]], dict[int, list[tuple[int, int]]]]:
    """Edge workers (server, then index), the workers and the PSs of each type."""
    workers = [
        _Worker(s, w)
        for s in range(len(inst.servers))
        for w in range(inst.n_workers[s])
    ]
    by_type: dict[int, list[_Worker]] = {}
    for wk in workers:
        by_type.setdefault(int(inst.worker_types[wk.server][wk.worker]), []).append(wk)
    ps_by_type: dict[int, list[tuple[int, int]]] = {}
    for s in range(len(inst.servers)):
        for p, k in enumerate(inst.ps_types[s].tolist()):
            ps_by_type.setdefault(int(k), []).append((s, p))
    return workers, by_type, ps_by_type


def _arrive(
    inst: EdgeCloudInstance,
    j: int,
    t: int,
    by_type: dict[int, list[_Worker]],
    cloud: bool,
    st: _State,
    edge_left: np.ndarray,
) -> int:
    """Alg. 1 lines 2-3 for job ``j`` arriving in ``t``; its number of cloud chunks."""
    before = len(st.trace)
    _greedy(inst, j, t, by_type.get(inst.jobs[j].worker_type, []), cloud, st)
    n_cloud = sum(1 for r in st.trace[before:] if r["server"] == inst.cloud)
    if st.store is not None:
        edge_left[j] = len(st.trace) - before - n_cloud
    return n_cloud


def _a_ps(
    inst: EdgeCloudInstance,
    t: int,
    workers: list[_Worker],
    st: _State,
    prev_ps: dict[int, tuple[int, int]],
    ps_by_type: dict[int, list[tuple[int, int]]],
    rng: np.random.Generator,
    ps_blocked: list[tuple[int, int]],
) -> tuple[dict[int, _Chunk], dict[int, tuple[int, int]]]:
    """A_ps (Alg. 5) in slot ``t``: each worker's chunk to train and each job's PS.

    Returns ``(tops, assigned)``: ``id(worker)`` -> the HAPRF-first released
    chunk of a job that got a PS, and job -> ``(server, PS)``.  A job that
    finds no PS is blocked for the slot (reading 8): its workers take their
    next chunk, which may bring another job into the slot.
    """
    c = inst.cloud
    active_cloud = [j for j, (a, b) in st.cloud_span.items() if a <= t <= b]
    blocked: set[int] = set()
    assigned: dict[int, tuple[int, int]] = {}
    used: set[tuple[int, int]] = set()
    while True:
        tops = {}
        for wk in workers:
            for ch in wk.pending:
                if ch.release <= t and ch.job not in blocked:
                    tops[id(wk)] = ch
                    break
        active = set(active_cloud) | {ch.job for ch in tops.values()}
        new = sorted(active - assigned.keys())
        if not new:
            break
        rest = []
        for j in new:  # Alg. 5 lines 3-4: keep the PS of slot t - 1
            if j in prev_ps and prev_ps[j] not in used:
                assigned[j] = prev_ps[j]
                if prev_ps[j][0] != c:
                    used.add(prev_ps[j])
            else:
                rest.append(j)
        grew = False
        for j in rest:  # Alg. 5 line 6: random eligible PS (reading 7)
            pick = _pick_ps(inst, j, t, bool(st.zeta[j]), ps_by_type, used, rng)
            if pick is None:
                blocked.add(j)  # reading 8
                ps_blocked.append((j, t))
                grew = True
            else:
                assigned[j] = pick
                if pick[0] != c:
                    used.add(pick)
        if not grew:
            break
    return tops, assigned


def _execute(
    t: int,
    workers: list[_Worker],
    tops: dict[int, _Chunk],
    st: _State,
    edge_left: np.ndarray,
) -> int:
    """Train each worker's chunk ``tops`` in slot ``t``; the number of chunks finished.

    With storage, a job whose edge and cloud chunks are all complete frees
    its storage (reading 10).
    """
    finished = 0
    for wk in workers:
        ch = tops.get(id(wk))
        if ch is None:
            continue
        st.runs.append((ch.job, ch.chunk, t, wk.server, wk.worker))
        ch.remaining -= 1
        if ch.remaining == 0:
            wk.remove(ch)
            st.trace[ch.row]["completion"] = t
            finished += 1
            if st.store is not None:
                edge_left[ch.job] -= 1
    if st.store is not None:  # reading 10: a complete job frees its storage
        for j in list(st.store.held):
            if edge_left[j] == 0 and st.cloud_span.get(j, (0, 0))[1] <= t:
                st.store.release(j)
    return finished


_TRACE_COLUMNS = [
    "job",
    "chunk",
    "server",
    "worker",
    "arrival",
    "release",
    "weight",
    "slots",
    "t_star",
    "planned_completion",
    "completion",
    "q_delay",
    "q_wait",
    "q_proc",
    "q_postpone",
    "alpha",
    "n_candidates",
    "zeta",
]


def _q_edge(
    inst: EdgeCloudInstance, j: int, t: int, wk: _Worker, p: int, g: float
) -> _Q:
    """CALCULATEQ (Alg. 3 lines 10-12) for an edge worker: Eq. (5), ``t*``."""
    Dj = float(inst.D[j])
    delta = int(inst.delay[j, wk.server])
    t0 = t + delta  # r_j = t
    plan = wk.plan(t)
    busy: list[Interval] = []
    wait, post = 0, 0.0
    for ch, iv in zip(wk.pending, plan, strict=True):
        pending = ch.release <= t0 and iv[-1][1] >= t0  # reading 3
        if ch.gamma >= g:  # A_1: before d in HAPRF order (ties: queued first)
            busy.extend(iv)
            if pending:
                wait += _slots_from(iv, t0)
        elif pending:  # A_2
            post += ch.weight
    mine = _fill(_merge(busy), t0, p)  # line 10-11: t* >= r_j + Delta_js
    terms = (delta / Dj, wait / Dj, p / Dj, p * post)
    return _Q(sum(terms), *terms, mine[0][0], mine[-1][1], p)


def _q_cloud(inst: EdgeCloudInstance, j: int, t: int, z: bool) -> _Q:
    """CALCULATEQ (Alg. 3 lines 2-8) for the cloud: first and third terms only."""
    Dj = float(inst.D[j])
    delta = int(inst.delay[j, inst.cloud])
    p = int(inst.chunk_slots[j, int(z)])
    t0 = t + delta
    return _Q(delta / Dj + p / Dj, delta / Dj, 0.0, p / Dj, 0.0, t0, t0 + p - 1, p)


def _greedy(
    inst: EdgeCloudInstance,
    j: int,
    t: int,
    cand: list[_Worker],
    cloud: bool,
    st: _State,
) -> None:
    """A_greedy (Alg. 2) for one job ``j`` arriving in slot ``t``."""
    c = inst.cloud
    Dj = int(inst.D[j])
    p = int(inst.chunk_slots[j, 0])  # p_jsw on any qualified edge worker
    g = float(inst.rate[j, 0] / (inst.chunk_work[j] * Dj))  # gamma_jd
    # lines 2-8: C_j for d_1 on every qualified worker (v_jsw = 1, n_jsw > 0)
    C: list[tuple[_Worker | None, _Q]] = [
        (wk, _q_edge(inst, j, t, wk, p, g)) for wk in cand
    ]
    use_cloud = cloud or not C  # A_online-E: cloud only if no edge worker qualifies
    if not cloud and not C:
        st.cloud_jobs.append(j)
    if use_cloud:
        C.append((None, _q_cloud(inst, j, t, True)))  # line 4: zeta_j = 1 for d_1
    on_edge = False
    store = st.store
    room = store.room(j) if store is not None else None
    u = float(inst.jobs[j].chunk_mb)
    for d in range(Dj):  # line 9
        ok: Sequence[int] = range(len(C))
        if store is not None:  # reading 10: only servers with room for u_j
            ok = [
                i
                for i, (w_, _q) in enumerate(C)
                if w_ is None or store.fits(cast(np.ndarray, room), w_.server, u)
            ]
            if not ok:  # reading 11: A_online-E, edge storage full
                st.cloud_jobs.append(j)
                st.storage_cloud.append(j)
                C.append((None, _q_cloud(inst, j, t, not on_edge)))
                ok = [len(C) - 1]
        k = min(ok, key=lambda i: C[i][1].q)  # line 11, first min
        wk, q = C[k]
        row: dict[str, Any] = dict(
            job=j,
            chunk=d,
            arrival=t,
            release=q.t_star if wk is None else t + int(inst.delay[j, wk.server]),
            weight=1.0 / Dj,
            slots=q.slots,
            t_star=q.t_star,
            planned_completion=q.finish,
            completion=-1,
            q_delay=q.delay,
            q_wait=q.wait,
            q_proc=q.proc,
            q_postpone=q.postpone,
            alpha=q.q,
            n_candidates=len(ok),
            zeta=wk is None and not on_edge,
        )
        if wk is None:  # lines 12-16: this and every later chunk to the cloud
            st.zeta[j] = not on_edge
            st.cloud_span[j] = (q.t_star, q.finish)
            for dd in range(d, Dj):
                w = st.next_cloud_worker
                st.next_cloud_worker += 1
                st.runs.extend(
                    (j, dd, tt, c, w) for tt in range(q.t_star, q.finish + 1)
                )
                st.trace.append(
                    {
                        **row,
                        "chunk": dd,
                        "server": c,
                        "worker": w,
                        "completion": q.finish,
                    }
                )
            break
        # lines 24-26: alpha_jd = min C_j, UPDATEVARIABLES on the HAPRF plan
        st.trace.append({**row, "server": wk.server, "worker": wk.worker})
        if store is not None:
            store.place(j, wk.server)
            cast(np.ndarray, room)[wk.server] -= u
        key = (-g, st.seq)
        wk.add(_Chunk(j, d, row["release"], p, key, g, 1.0 / Dj, len(st.trace) - 1))
        st.seq += 1
        # lines 22-23: refresh the chosen worker's entry for the next chunk
        C[k] = (wk, _q_edge(inst, j, t, wk, p, g))
        if not on_edge:  # lines 18-20: cloud entry with zeta_j = 0 (reading 4)
            on_edge = True
            if use_cloud:
                C[-1] = (None, _q_cloud(inst, j, t, False))


def _pick_ps(
    inst: EdgeCloudInstance,
    j: int,
    t: int,
    zeta_j: bool,
    ps_by_type: dict[int, list[tuple[int, int]]],
    used: set[tuple[int, int]],
    rng: np.random.Generator,
) -> tuple[int, int] | None:
    """Alg. 5 line 6 (reading 7): a random eligible PS, or None (reading 8)."""
    c = inst.cloud
    if zeta_j:
        return (c, j)  # the job's own cloud PS (unlimited, distinct per job)
    r = int(inst.arrival[j])
    eligible = [
        (s, p)
        for s, p in ps_by_type.get(inst.jobs[j].ps_type, [])
        if (s, p) not in used and t >= r + int(inst.delay[j, s])
    ]
    if eligible:
        return eligible[int(rng.integers(len(eligible)))]
    if t >= r + int(inst.delay[j, c]):
        return (c, j)
    return None
