"""Local search for the edge-cloud paper (minimise total JCT (2)): a better MIP start.

The search moves over *priority lists* decoded by a list-scheduling rule
(:func:`decode`), and every decoded schedule goes through
:func:`~.check.check` inside :func:`optsched.core.local_search.improve` (plain
descent) or :func:`optsched.core.local_search.iterated` (iterated local
search, the default of :func:`improve`).

Decoder.  A :class:`Priority` is a job order and a per-job flag "all in the
cloud".  Jobs are placed one after the other; a placed job never moves, so
later jobs only use what is left:

* a job flagged cloud (or with no qualified edge worker) trains every chunk
  on its own cloud worker from ``r_j + Delta_jc`` for ``ceil(E_j B_j / n_j)``
  slots with ``zeta_j = 1`` and its own cloud PS (as
  :func:`~.schedule.cloud_only`);
* otherwise chunk by chunk: on every qualified edge worker (``v_jsw = 1``)
  the chunk takes the earliest ``p_j = ceil(E_j B_j / n_j)`` slots
  ``>= r_j + Delta_js`` (preemption allowed on the edge) in which the
  worker is free and the job has or can get a PS (its PS of that slot, the
  cloud PS once ``t >= r_j + Delta_jc``, else a free qualified edge PS it
  can reach, (2e), (2i)); the cloud with ``zeta_j = 0`` (consecutive slots
  from ``r_j + Delta_jc``, no preemption) is the other candidate; the
  chunk goes where it completes first (edge on ties, then server and worker
  index).  A job all of whose chunks went to the cloud is re-placed with
  ``zeta_j = 1`` ((2g)).  A slot's PS is the cloud PS when reachable, else
  the first free qualified edge PS.  This greedy pass only measures the
  job's completion ``C_j``: it is undone and the job placed again by the
  same rule, except that every chunk whose cloud run (``zeta_j = 0``) ends
  by ``C_j`` goes to the cloud, leaving the edge workers and PSs to later
  jobs (all chunks in the cloud: ``zeta_j = 1`` as above).

Storage (7b) is not modelled by the decoder: on instances with storage the
checker discards the decoded schedules that overfill a server.  Chunks that
do not fit by ``T`` are placed after it, which the checker rejects ((2k)).

Moves: flip a job's cloud flag, swap two adjacent jobs, move one job to
another position at most :data:`WINDOW` away.  The start schedule
(A_online's or the all-cloud one) has no priority list; its neighbourhood
also contains the decodings of three lists (with the start's cloud flags and
with none): jobs by completion in the start, by ``r_j`` + shortest
processing (``min(Delta_js + p_j)``), and by arrival.

Iterated search (``method="ils"``): after the descent's local optimum, a
:func:`kick` applies :data:`KICK` random operations (flip, move anywhere,
swap any two) and the descent restarts around the kicked jobs only (their
flips, swaps and moves, :data:`FOCUS_KEY`); the best checked schedule is
kept.  Every random choice comes from the seeded generator, so with
``time_limit=None`` the result depends only on the seed and the budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from optsched.core.base import best_checked
from optsched.core.local_search import SearchTrace, iterated
from optsched.core.local_search import improve as _improve

from .check import check
from .instance import EdgeCloudInstance
from .online import a_online
from .schedule import EdgeCloudSchedule, cloud_only

#: Random operations per kick of the iterated search (:func:`kick`).
KICK = 3
#: Kicks in a row without a new best after which the iterated search stops.
PATIENCE = 50
#: Largest distance of an insertion move (None: any).
WINDOW: int | None = 6

#: ``meta`` key holding the :class:`Priority` a decoded schedule came from.
META_KEY = "priority"
#: ``meta`` key holding the jobs a kicked schedule's neighbourhood moves
#: (:func:`neighbours`).
FOCUS_KEY = "focus"


@dataclass(frozen=True)
class Priority:
    """Input of :func:`decode`.

    Attributes
    ----------
    order
        Job indices, highest priority first (a permutation of ``range(J)``).
    cloud
        Per job (indexed by job, not position): place it entirely in the cloud.
    """

    order: tuple[int, ...]
    cloud: tuple[bool, ...]


class _Decoder:
    """Mutable state of one :func:`decode` run."""

    def __init__(self, inst: EdgeCloudInstance) -> None:
        self.inst = inst
        self.T = inst.n_slots
        self.wbusy = {
            (s, w): np.zeros(self.T + 1, dtype=bool)
            for s in range(len(inst.servers))
            for w in range(int(inst.n_workers[s]))
        }
        self.psbusy = [np.zeros((int(n), self.T + 1), dtype=bool) for n in inst.n_ps]
        self.runs: list[tuple[int, int, int, int, int]] = []
        self.ps: list[tuple[int, int, int, int]] = []
        self.zeta = np.zeros(inst.n_jobs, dtype=bool)
        self.offset = np.concatenate(([0], np.cumsum(inst.D)))  # cloud worker ids

    def all_cloud(self, j: int) -> None:
        inst, c = self.inst, self.inst.cloud
        start = int(inst.arrival[j] + inst.delay[j, c])
        slots = range(start, start + int(inst.chunk_slots[j, 1]))
        self.ps.extend((j, t, c, j) for t in slots)
        for d in range(int(inst.D[j])):
            w = int(self.offset[j]) + d
            self.runs.extend((j, d, t, c, w) for t in slots)
        self.zeta[j] = True

    def ps_free(self, j: int) -> np.ndarray:
        """Slots (index = slot) in which job ``j`` can get a free edge PS."""
        inst = self.inst
        ok = np.zeros(self.T + 1, dtype=bool)
        r, k = int(inst.arrival[j]), inst.jobs[j].ps_type
        for s, types in enumerate(inst.ps_types):
            start = r + int(inst.delay[j, s])
            for p in np.flatnonzero(types == k).tolist():
                free = ~self.psbusy[s][p]
                free[: min(start, self.T + 1)] = False
                ok |= free
        return ok

    def take_ps(self, j: int, t: int) -> tuple[int, int]:
        """A free qualified reachable edge PS for job ``j`` in slot ``t``."""
        inst = self.inst
        r, k = int(inst.arrival[j]), inst.jobs[j].ps_type
        for s, types in enumerate(inst.ps_types):
            if t < r + int(inst.delay[j, s]):
                continue
            for p in np.flatnonzero(types == k).tolist():
                if not self.psbusy[s][p, t]:
                    self.psbusy[s][p, t] = True
                    return s, p
        raise AssertionError("take_ps(): no PS although ps_free() said so")

    def lazy_job(self, j: int) -> None:
        """:meth:`job` twice (module docstring): the second pass sends to the
        cloud every chunk whose cloud run ends by the first pass's completion
        of ``j``."""
        wbusy = {k: v.copy() for k, v in self.wbusy.items()}
        psbusy = [a.copy() for a in self.psbusy]
        n_runs, n_ps = len(self.runs), len(self.ps)
        self.job(j)
        if self.zeta[j]:
            return
        done = max(t for (_, _, t, _, _) in self.runs[n_runs:])
        self.wbusy, self.psbusy = wbusy, psbusy
        del self.runs[n_runs:]
        del self.ps[n_ps:]
        self.job(j, cloud_by=done)

    def job(self, j: int, cloud_by: int | None = None) -> None:
        inst, c, T = self.inst, self.inst.cloud, self.T
        r = int(inst.arrival[j])
        cand = [
            (s, w)
            for (s, w) in self.wbusy
            if inst.worker_types[s][w] == inst.jobs[j].worker_type
        ]
        if not cand:
            self.all_cloud(j)
            return
        p = int(inst.chunk_slots[j, 0])
        tc = r + int(inst.delay[j, c])
        cloud_ps = np.arange(T + 1) >= tc
        has_ps = np.zeros(T + 1, dtype=bool)
        runs: list[tuple[int, int, int, int, int]] = []
        ps: list[tuple[int, int, int, int]] = []
        taken: list[tuple[int, int, int]] = []  # edge PS (s, p, t) taken by j
        on_edge = False
        for d in range(int(inst.D[j])):
            ok = has_ps | cloud_ps | self.ps_free(j)
            best: tuple[int, int, int, np.ndarray] | None = None
            for s, w in cand:
                usable = ok & ~self.wbusy[(s, w)]
                usable[: min(r + int(inst.delay[j, s]), T + 1)] = False
                idx = np.flatnonzero(usable)
                if len(idx) >= p and (best is None or idx[p - 1] < best[0]):
                    best = (int(idx[p - 1]), s, w, idx[:p])
            if (
                best is None
                or tc + p - 1 < best[0]
                or (cloud_by is not None and tc + p - 1 <= cloud_by)
            ):  # the cloud, zeta_j = 0
                w = int(self.offset[j]) + d
                runs.extend((j, d, t, c, w) for t in range(tc, tc + p))
                new = [t for t in range(tc, tc + p) if t > T or not has_ps[t]]
                ps.extend((j, t, c, j) for t in new)
                has_ps[[t for t in new if t <= T]] = True
                continue
            on_edge = True
            _, s, w, slots = best
            self.wbusy[(s, w)][slots] = True
            for t in slots.tolist():
                runs.append((j, d, t, s, w))
                if has_ps[t]:
                    continue
                if cloud_ps[t]:
                    ps.append((j, t, c, j))
                else:
                    sp = self.take_ps(j, t)
                    taken.append((*sp, t))
                    ps.append((j, t, *sp))
                has_ps[t] = True
        if not on_edge:  # only cloud chunks: (2g) needs zeta_j = 1
            for s, pp, t in taken:
                self.psbusy[s][pp, t] = False
            self.all_cloud(j)
            return
        self.runs.extend(runs)
        self.ps.extend(ps)


def decode(inst: EdgeCloudInstance, prio: Priority) -> EdgeCloudSchedule:
    """The list schedule of ``prio`` (module docstring), ``prio`` in its meta.

    Raises
    ------
    ValueError
        If ``prio.order`` is not a permutation of the jobs or ``prio.cloud``
        has the wrong length.
    """
    J = inst.n_jobs
    if sorted(prio.order) != list(range(J)):
        raise ValueError(
            f"order: must be a permutation of 0..{J - 1}, got {prio.order}"
        )
    if len(prio.cloud) != J:
        raise ValueError(f"cloud: need {J} flags, got {len(prio.cloud)}")
    dec = _Decoder(inst)
    for j in prio.order:
        if prio.cloud[j]:
            dec.all_cloud(j)
        else:
            dec.lazy_job(j)
    sched = EdgeCloudSchedule.build(
        inst, dec.runs, dec.ps, zeta=dec.zeta, algorithm="list+ls"
    )
    sched.meta[META_KEY] = prio
    return sched


def seed_priorities(
    inst: EdgeCloudInstance, sched: EdgeCloudSchedule
) -> list[Priority]:
    """Priority lists read off a schedule without one (module docstring)."""
    J = inst.n_jobs
    comp = sched.completion(J)
    jobs = np.arange(J)
    cloud = tuple(bool(z) for z in np.asarray(sched.zeta))
    edge_ok = np.array(
        [
            any((t == inst.jobs[j].worker_type).any() for t in inst.worker_types)
            for j in range(J)
        ]
    )
    d_edge = np.where(
        edge_ok,
        inst.delay[:, :-1].min(axis=1, initial=10**9) + inst.chunk_slots[:, 0],
        10**9,
    )
    shortest = np.minimum(d_edge, inst.delay[:, -1] + inst.chunk_slots[:, 1])
    keys = (
        np.lexsort((jobs, inst.arrival, comp)),
        np.lexsort((jobs, inst.arrival + shortest)),
        np.lexsort((jobs, inst.arrival)),
    )
    none = (False,) * J
    out = [Priority(tuple(int(j) for j in k), cloud) for k in keys]
    out += [Priority(tuple(int(j) for j in k), none) for k in keys]
    return out


def _priority(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> Priority:
    """The schedule's priority list, else the first of :func:`seed_priorities`."""
    prio = sched.meta.get(META_KEY)
    return prio if isinstance(prio, Priority) else seed_priorities(inst, sched)[0]


def kick(
    inst: EdgeCloudInstance,
    sched: EdgeCloudSchedule,
    rng: np.random.Generator,
    strength: int | None = None,
) -> tuple[str, EdgeCloudSchedule]:
    """The perturbation of :func:`improve`'s iterated search: ``strength``
    (default :data:`KICK`) random operations on the schedule's priority list,
    each a flag flip, a move of a job to any position, or a swap of any two
    jobs (equally likely)."""
    prio = _priority(inst, sched)
    order, cloud = list(prio.order), list(prio.cloud)
    J = len(order)
    ops = []
    touched: set[int] = set()
    for _ in range(KICK if strength is None else strength):
        if J == 0:
            break
        op = int(rng.integers(3))
        a, b = (int(x) for x in rng.integers(J, size=2))
        if op == 0:
            cloud[order[a]] = not cloud[order[a]]
            ops.append(f"f{order[a]}")
            touched.add(order[a])
        elif op == 1:
            order.insert(b, order.pop(a))
            ops.append(f"m{order[b]}@{b}")
            touched.add(order[b])
        else:
            order[a], order[b] = order[b], order[a]
            ops.append(f"s{order[b]},{order[a]}")
            touched.update((order[a], order[b]))
    cand = decode(inst, Priority(tuple(order), tuple(cloud)))
    cand.meta[FOCUS_KEY] = frozenset(touched)
    return " ".join(ops), cand


def _focused(
    sched: EdgeCloudSchedule, focus: frozenset[int] | None, *jobs: int
) -> EdgeCloudSchedule:
    """``sched`` with ``focus | jobs`` as its :data:`FOCUS_KEY` (None: no focus)."""
    if focus is not None:
        sched.meta[FOCUS_KEY] = focus.union(jobs)
    return sched


def neighbours(
    inst: EdgeCloudInstance, sched: EdgeCloudSchedule, rng: np.random.Generator
) -> Iterator[tuple[str, EdgeCloudSchedule]]:
    """Flip, adjacent-swap and insertion moves (at most :data:`WINDOW`
    positions) on the schedule's priority list (each family shuffled by
    ``rng``); seed lists first for a schedule without one.

    A schedule with a focus (a set of jobs in ``meta[FOCUS_KEY]``, set by
    :func:`kick`) gets only the moves that flip, swap or move a job of the
    focus, and its candidates carry the focus plus the jobs the move touched
    (the iterated search re-descends around the kicked jobs only)."""
    prio = sched.meta.get(META_KEY)
    if not isinstance(prio, Priority):
        seeds = seed_priorities(inst, sched)
        for k, pr in enumerate(seeds):
            yield f"list {k}", decode(inst, pr)
        prio = seeds[0]
    focus = sched.meta.get(FOCUS_KEY)
    mine = (lambda j: True) if focus is None else focus.__contains__
    order, cloud = list(prio.order), list(prio.cloud)
    J = len(order)
    for j in rng.permutation(J).tolist():
        if not mine(j):
            continue
        flip = cloud.copy()
        flip[j] = not flip[j]
        cand = decode(inst, Priority(tuple(order), tuple(flip)))
        yield f"flip {j}", _focused(cand, focus, j)
    for a in rng.permutation(max(J - 1, 0)).tolist():
        if not (mine(order[a]) or mine(order[a + 1])):
            continue
        o = order.copy()
        o[a], o[a + 1] = o[a + 1], o[a]
        cand = decode(inst, Priority(tuple(o), tuple(cloud)))
        yield f"swap {o[a + 1]},{o[a]}", _focused(cand, focus, o[a], o[a + 1])
    w = J if WINDOW is None else WINDOW
    moves = [
        (a, b)
        for a in range(J)
        if mine(order[a])
        for b in range(max(a - w, 0), min(a + w + 1, J))
        if abs(a - b) > 1
    ]
    for k in rng.permutation(len(moves)).tolist():
        a, b = moves[k]
        o = order.copy()
        o.insert(b, o.pop(a))
        cand = decode(inst, Priority(tuple(o), tuple(cloud)))
        yield f"move {order[a]} to {b}", _focused(cand, focus, order[a])


def improve(
    inst: EdgeCloudInstance,
    start: EdgeCloudSchedule | None = None,
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    strategy: str = "first",
    max_evaluations: int | None = None,
    method: str = "ils",
    patience: int | None = PATIENCE,
) -> tuple[EdgeCloudSchedule, SearchTrace]:
    """Local search from ``start`` (default: the better checked schedule of
    the all-cloud one and A_online's, as
    :func:`optsched.edgecloud.paper.default_start` before its own search; the slice's paper record imports this module, not the
    other way round).

    ``method="descent"`` is :func:`optsched.core.local_search.improve` over
    :func:`neighbours` (stops at the first local optimum); ``method="ils"``
    (default) is :func:`optsched.core.local_search.iterated` with :func:`kick`
    as the perturbation, whose first phase is that descent (never worse for
    the same seed and budget) and which stops after ``patience`` kicks in a
    row without a new best.  Other parameters as
    :func:`optsched.core.local_search.improve`.  Deterministic for a seed when
    ``time_limit`` is None.  Returns the best checked schedule and the trace;
    its total JCT is never above the start's.

    Raises
    ------
    ValueError
        If ``method`` is unknown, or there is no start (neither default start
        passes the checker at this ``T``); as the core search for the other
        arguments.
    """
    if method not in ("ils", "descent"):
        raise ValueError(f"method: must be 'ils' or 'descent', got {method!r}")
    if start is None:
        start = best_checked(
            inst, (cloud_only(inst), a_online(inst)), check, "min", skip_infeasible=True
        )
        if start is None:
            raise ValueError(
                "start: no checked start schedule at this T (all-cloud and "
                "A_online both fail the checker); pass one"
            )
    if method == "descent":
        return _improve(
            inst,
            start,
            neighbours=neighbours,
            evaluate=check,
            sense="min",
            time_limit=time_limit,
            seed=seed,
            strategy=strategy,
            max_evaluations=max_evaluations,
        )
    return iterated(
        inst,
        start,
        neighbours=neighbours,
        perturb=kick,
        evaluate=check,
        sense="min",
        time_limit=time_limit,
        seed=seed,
        strategy=strategy,
        max_evaluations=max_evaluations,
        patience=patience,
    )
