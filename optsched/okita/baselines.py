"""The three baselines of Han et al. (Sec. V-A, "Baselines"): FIFO, DRF, OASiS.

The paper describes each in one sentence; the readings below fill the gaps
(also in ``docs/okita.md``, "Baselines", and ``docs/errata.md``).

Common to all three:

1. **Strict (2c) while waiting.**  A job that has arrived but has not
   started holds a PS alone in every slot, as Okita's reading 8: on its last
   PS site if the PS fits, else on the first site where it fits; otherwise
   ``(job, slot)`` goes to ``meta["ps_gaps"]`` (check the schedule with
   ``ps_every_slot=False``).  Waiting PSs are placed after the slot's starts.
2. **Horizon.**  Slots go on past ``T`` until every job completes;
   ``meta["horizon_exceeded"]`` says whether the makespan exceeds ``T``;
   ``max_slots`` (default ``10 T + 1000``) raises ``RuntimeError``.
3. **Resources** are reserved for the whole planned schedule when a job
   starts (FIFO, DRF: the fixed deployment until completion; OASiS: its
   committed plan); a running job is never changed.

FIFO and DRF (fixed deployment, "selected based on ``Q_i^r(t)`` at
``a_i``"; data "dispatched evenly to sites in a greedy fashion once jobs
arrive"):

4. **Start and placement.**  When a job starts (FIFO: in arrival order,
   head-of-line blocking; DRF: below) its ``N_i`` workers and PS are placed
   by PA (Alg. 2, ``Q`` of Eq. (6)) on the capacity free in that slot, and
   kept until completion.  ``A_i(a_i)`` is read as the most workers PA can
   place in the start slot (over PS sites); a job needs at least
   ``ceil(E_i / rho_i)`` workers so that a worker trains a chunk.
5. **FIFO's count.**  ``N_i`` uniform in ``[1, max(1, floor(0.5 A_i))]``
   (one draw of ``numpy.random.default_rng(seed)`` per job, when it
   starts), raised to the minimum of reading 4.
6. **DRF's count.**  In each slot the jobs waiting to start share the free
   capacity by progressive filling (Ghodsi et al.): one worker at a time to
   the job of least dominant share ``max_k (n_i^k + N m_i^k) / sum_r
   C_r^k``, while PA can still place it (jobs placed in arrival order on
   what the earlier ones leave) and it is useful (at most ``ceil(E_i M_i /
   rho_i)`` workers, one slot of work).  Jobs left with fewer workers than
   reading 4's minimum wait.
7. **Data.**  Once at the start, each worker site gets a share of the
   job's chunks proportional to its training capacity ``floor(rho_i y^r /
   E_i)`` (largest remainders, ties by site index); DTA (Alg. 3) decides
   which chunks move where.  Each slot, site ``r`` trains up to its
   capacity from its share, own chunks first, then by source index.

OASiS (Bao et al., INFOCOM 2018; seed ``001``) re-stated for cost
minimisation, "for each newly arrived job, the optimal schedule based on the
unit resource cost":

8. **Per-job plan.**  At arrival (arrival order) the job's plan is chosen
   over the execution time ``l = 1 .. ceil(E_i D_i / rho_i)`` with ``N =
   ceil(E_i M_i / (rho_i l))`` workers in each of the slots ``t .. t + l -
   1``: in each slot, for every PS site, workers go to the sites of least
   unit cost (price of a worker plus its exchange ``q^{r p} pi_i``) as the
   free capacity allows; the plan cost is ``f_i(l - 1 + t - a_i)`` plus the
   slots' exchange and resource costs; the cheapest feasible ``l`` wins
   (ties: smallest ``l``).  If no ``l`` fits from slot ``t``, the job waits
   (reading 1) and plans again next slot.

   8a. **Whole chunks.**  A site's workers train ``floor(rho_i y^r / E_i)``
   chunks per slot (Okita's reading 2), so when ``rho_i / E_i`` is not an
   integer the ``N`` of reading 8 can leave chunks untrained; ``N`` is then
   raised, one worker at a time, until the plan's placements train every
   chunk (for a given ``l``; a larger ``N`` never fits better or costs
   less), and ``l`` runs up to ``ceil(D_i / floor(rho_i N_min / E_i))``
   when that is longer (``N_min`` workers of reading 4 on one site), so a
   job that fits only its minimum count still gets a plan.  With an
   integer ``rho_i / E_i`` (the generator's reading) the plans are
   unchanged.  Found by the worst-case search (issue 14).
9. **Prices.**  Resource ``k`` on site ``r`` in slot ``t`` costs
   ``L (U/L)^(u_r^k(t) / C_r^k)`` per unit (OASiS's price function (22),
   ``u`` the planned use), with ``U`` = the largest latency cost of any job
   (``f_i(T - a_i)``) per unit of its smallest positive demand and ``L`` =
   the smallest latency cost ``f_i(0)`` over a job's total demand of
   worker-units (OASiS's (23)-(26) with the latency cost in place of the
   utility).  The prices only steer the plan; the schedule's cost is (2).
10. **Data** online, as Okita: each slot the workload ``d_i^r(t)`` of the
    planned workers (Okita's reading 2) and DTA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.params import resolve

from .instance import EPS, OkitaInstance
from .online import _Placer, dta, source_order, workload
from .schedule import OkitaSchedule

INF = math.inf


# --------------------------------------------------------------------------
# Common slot loop
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BaselineParams:
    """Parameters of the baselines :func:`fifo`, :func:`drf` and :func:`oasis`.

    Attributes
    ----------
    max_slots
        Safety bound on the slots simulated (None: ``10 T + 1000``;
        reading 2).
    """

    max_slots: int | None = None


def _limit(inst: OkitaInstance, params: BaselineParams | None, name: str) -> int:
    """Reading 2's slot bound of a run of ``name`` with ``params``."""
    max_slots = resolve(params, BaselineParams, name).max_slots
    return 10 * inst.n_slots + 1000 if max_slots is None else int(max_slots)


@dataclass
class _Run:
    """Capacity per slot and the rows written so far (readings 1-3)."""

    inst: OkitaInstance
    limit: int
    free: dict[int, np.ndarray] = field(default_factory=dict)
    workers: list[tuple[int, int, int, int]] = field(default_factory=list)
    ps: list[tuple[int, int, int]] = field(default_factory=list)
    data: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    gaps: list[tuple[int, int]] = field(default_factory=list)
    last_ps: dict[int, int] = field(default_factory=dict)
    completion: dict[int, int] = field(default_factory=dict)

    def av(self, t: int) -> np.ndarray:
        """Free capacity of slot ``t`` (created on first use)."""
        if t not in self.free:
            self.free[t] = self.inst.capacity.astype(float).copy()
        return self.free[t]

    def use(self, i: int, t: int, y: np.ndarray, ps: int) -> None:
        """Reserve job ``i``'s workers ``y`` and PS on ``ps`` in slot ``t``; write rows."""
        inst = self.inst
        self.av(t)[:] -= inst.m[i] * y[:, None]
        self.av(t)[ps] -= inst.n[i]
        for r in np.flatnonzero(y):
            self.workers.append((i, t, int(r), int(y[r])))
        self.ps.append((i, t, ps))
        self.last_ps[i] = ps

    def hold_ps(self, i: int, t: int) -> None:
        """Reading 1: a waiting job keeps (or gets) a PS alone."""
        n, av = self.inst.n[i], self.av(t)
        first = [self.last_ps[i]] if i in self.last_ps else []
        for r in first + list(range(self.inst.n_sites)):
            if np.all(av[r] - n >= -EPS * np.maximum(1.0, np.abs(av[r]))):
                av[r] -= n
                self.ps.append((i, t, r))
                self.last_ps[i] = r
                return
        self.gaps.append((i, t))

    def schedule(self, name: str, params: dict[str, Any]) -> OkitaSchedule:
        I_ = self.inst.n_jobs
        completion = np.array([self.completion.get(i, 0) for i in range(I_)])
        makespan = int(completion.max()) if I_ else 0
        sched = OkitaSchedule.build(
            self.workers, self.ps, self.data, algorithm=name, ps_gaps=self.gaps
        )
        sched.meta.update(
            completion=completion,
            makespan=makespan,
            horizon_exceeded=makespan > self.inst.n_slots,
            ps_gaps=self.gaps,
            ps_every_slot=not self.gaps,
            params=params,
        )
        return sched


def _loop(inst: OkitaInstance, start, run: _Run) -> None:
    """Slots ``1, 2, ...``: ``start(t, waiting) -> started jobs``, then PS holds."""
    waiting: list[int] = []
    nxt, t = 0, 0
    while nxt < inst.n_jobs or waiting:
        t += 1
        if t > run.limit:
            raise RuntimeError(
                f"jobs {waiting} not started after max_slots = {run.limit} slots"
            )
        while nxt < inst.n_jobs and inst.jobs[nxt].arrival == t:
            waiting.append(nxt)
            nxt += 1
        if waiting:
            started = start(t, list(waiting))
            waiting = [i for i in waiting if i not in started]
            for i in waiting:
                run.hold_ps(i, t)


def _min_workers(inst: OkitaInstance, i: int) -> int:
    """Reading 4: the fewest workers with which a worker trains a chunk per slot."""
    return max(1, math.ceil(inst.epochs[i] / inst.rho[i] - EPS))


def _placer(inst: OkitaInstance, i: int, av: np.ndarray, M: np.ndarray) -> _Placer:
    betas = {"beta1": 1.0, "beta2": 1.0, "beta3": 1.0}
    return _Placer.prepare(
        av, inst.capacity, inst.q, inst.pi[i], M, inst.D[i], inst.m[i], inst.n[i], betas
    )


def _most_workers(placer: _Placer) -> int:
    """``A_i``: the most workers PA can place (over PS sites where the PS fits)."""
    tot = placer.a_sorted.sum(axis=1)
    return int(tot[placer.fits].max()) if placer.fits.any() else 0


# --------------------------------------------------------------------------
# FIFO and DRF: fixed deployment
# --------------------------------------------------------------------------


def _shares(M: int, cap: np.ndarray) -> np.ndarray:
    """Reading 7: ``M`` chunks over sites in proportion to ``cap`` (largest remainders)."""
    raw = M * cap / cap.sum()
    base = np.floor(raw + EPS).astype(np.int64)
    rest = M - int(base.sum())
    order = sorted(range(len(cap)), key=lambda r: (-(raw[r] - base[r]), r))
    for r in order[:rest]:
        base[r] += 1
    return base


def _fixed(run: _Run, i: int, t0: int, y: np.ndarray, ps: int, src) -> None:
    """Run job ``i`` with fixed workers ``y`` and PS ``ps`` from ``t0`` to completion."""
    inst = run.inst
    cap = np.floor(inst.rho[i] * y / inst.epochs[i] + EPS).astype(np.int64)
    if cap.sum() == 0:
        raise RuntimeError(f"job {i}: workers {y.tolist()} train no chunk per slot")
    M = inst.D[i].astype(np.int64)
    _, g = dta(M, _shares(int(M.sum()), cap), inst.q, inst.delta[i], order=src)
    pools = [
        [(dst, g[dst, dst])] + [(s, g[s, dst]) for s in range(len(M)) if s != dst]
        for dst in range(len(M))
    ]
    t = t0
    while any(c for p in pools for _, c in p):
        run.use(i, t, y, ps)
        for dst, pool in enumerate(pools):
            room = int(cap[dst])
            for k, (s, c) in enumerate(pool):
                take = min(room, int(c))
                if take:
                    run.data.append((i, t, int(s), dst, take))
                    pool[k] = (s, c - take)
                    room -= take
        t += 1
    run.completion[i] = t - 1


def fifo(
    inst: OkitaInstance, /, *, seed: int = 0, params: BaselineParams | None = None
) -> OkitaSchedule:
    """FIFO (Sec. V-A): arrival order, fixed workers in ``[1, 0.5 A_i]`` (readings 1-7).

    Returns an :class:`~optsched.okita.schedule.OkitaSchedule` with ``meta``
    ``completion``, ``makespan``, ``horizon_exceeded``, ``ps_gaps``,
    ``ps_every_slot``, ``workers_fixed`` (``N_i``), ``available`` (``A_i``),
    ``params``.  ``seed`` drives reading 5's draw; ``params``:
    :class:`BaselineParams`.
    """
    rng = np.random.default_rng(seed)
    run = _Run(inst, _limit(inst, params, "fifo"))
    src = source_order(inst.q)
    fixed: dict[int, int] = {}
    avail: dict[int, int] = {}

    def start(t: int, waiting: list[int]) -> list[int]:
        started = []
        for i in waiting:  # head of line first; stop at the first that cannot start
            av = run.av(t)
            pl = _placer(inst, i, av, inst.D[i])
            A = _most_workers(pl)
            lo = _min_workers(inst, i)
            if A < lo:
                break
            N = max(lo, int(rng.integers(1, max(1, int(0.5 * A)) + 1)))
            _, y, s = pl.place(N, 1)
            fixed[i], avail[i] = N, A
            _fixed(run, i, t, y, int(np.argmax(s)), src)
            started.append(i)
        return started

    _loop(inst, start, run)
    sched = run.schedule("fifo", {"seed": seed})
    sched.meta.update(workers_fixed=fixed, available=avail)
    return sched


def drf(
    inst: OkitaInstance, /, *, seed: int = 0, params: BaselineParams | None = None
) -> OkitaSchedule:
    """DRF (Sec. V-A): fixed workers by progressive filling (readings 1-4, 6-7).

    ``seed`` is unused (deterministic; recorded in ``meta["params"]``);
    ``meta["workers_fixed"]`` holds each job's ``N_i``.
    """
    run = _Run(inst, _limit(inst, params, "drf"))
    src = source_order(inst.q)
    total = inst.capacity.sum(axis=0)
    fixed: dict[int, int] = {}

    def plan(av: np.ndarray, counts: dict[int, int]):
        """Place every job's count on ``av`` in arrival order; None if one fails."""
        left, out = av.copy(), {}
        for i, N in counts.items():
            if N == 0:
                continue
            cost, y, s = _placer(inst, i, left, inst.D[i]).place(N, 1)
            if not math.isfinite(cost):
                return None
            left -= inst.m[i] * y[:, None] + inst.n[i] * s[:, None]
            out[i] = (y, int(np.argmax(s)))
        return out

    def start(t: int, waiting: list[int]) -> list[int]:
        counts = dict.fromkeys(waiting, 0)
        useful = {
            i: math.ceil(inst.epochs[i] * inst.D[i].sum() / inst.rho[i] - EPS)
            for i in waiting
        }
        done: set[int] = set()
        while len(done) < len(waiting):
            share = {
                i: float(np.max((inst.n[i] + counts[i] * inst.m[i]) / total))
                for i in waiting
                if i not in done
            }
            i = min(share, key=lambda j: (share[j], j))
            if (
                counts[i] >= useful[i]
                or plan(run.av(t), {**counts, i: counts[i] + 1}) is None
            ):
                done.add(i)
                continue
            counts[i] += 1
        go = {i: N for i, N in counts.items() if N >= _min_workers(inst, i)}
        placed = plan(run.av(t), go) or {}
        for i, (y, ps) in placed.items():
            fixed[i] = int(y.sum())
            _fixed(run, i, t, y, ps, src)
        return list(placed)

    _loop(inst, start, run)
    sched = run.schedule("drf", {"seed": seed})
    sched.meta["workers_fixed"] = fixed
    return sched


# --------------------------------------------------------------------------
# OASiS re-stated
# --------------------------------------------------------------------------


def price_bounds(inst: OkitaInstance) -> tuple[float, float]:
    """Reading 9: ``(L, U)`` of the price function."""
    lo, hi = INF, 0.0
    for i, job in enumerate(inst.jobs):
        work = math.ceil(inst.epochs[i] * inst.D[i].sum() / inst.rho[i] - EPS)
        units = work * float(inst.m[i].sum()) + float(inst.n[i].sum())
        lo = min(lo, float(job.cost(0)) / max(units, EPS))
        pos = np.concatenate([inst.m[i], inst.n[i]])
        hi = max(hi, float(job.cost(inst.n_slots - job.arrival)) / pos[pos > 0].min())
    return lo, max(hi, lo)


def _unit_prices(run: _Run, t: int, L: float, U: float) -> np.ndarray:
    """Price per unit of each resource on each site in slot ``t`` (reading 9)."""
    C = run.inst.capacity
    used = C - run.av(t)
    frac = np.where(C > 0, used / np.where(C > 0, C, 1.0), 1.0)
    return L * (U / L) ** np.clip(frac, 0.0, 1.0)


def _slot_choice(run, i, t, N, L, U):
    """Cheapest placement of ``N`` workers and the PS in slot ``t`` (reading 8)."""
    inst = run.inst
    av, price = run.av(t), _unit_prices(run, t, L, U)
    wprice = price @ inst.m[i]
    unit = wprice[None, :] + inst.q.T * inst.pi[i]  # unit[p, r]
    pos = inst.m[i] > 0
    R = inst.n_sites
    A = np.tile(np.floor((av[:, pos] + EPS) / inst.m[i][pos]).min(axis=1), (R, 1))
    free_ps = av - inst.n[i]
    A[np.arange(R), np.arange(R)] = np.floor(
        (free_ps[:, pos] + EPS) / inst.m[i][pos]
    ).min(axis=1)
    A = np.maximum(A, 0).astype(np.int64)
    fits = np.all(free_ps >= -EPS, axis=1)
    order = np.argsort(unit, axis=1, kind="stable")
    a_sorted = np.take_along_axis(A, order, axis=1)
    before = np.zeros_like(a_sorted)
    np.cumsum(a_sorted[:, :-1], axis=1, out=before[:, 1:])
    ys = np.clip(N - before, 0, a_sorted)
    cost = (np.take_along_axis(unit, order, axis=1) * ys).sum(axis=1) + price @ inst.n[
        i
    ]
    ok = fits & (ys.sum(axis=1) >= N)
    if not ok.any():
        return None
    cost[~ok] = INF
    p = int(np.argmin(cost))
    y = np.zeros(R, dtype=np.int64)
    y[order[p]] = ys[p]
    return float(cost[p]), y, p


def _trainable(inst: OkitaInstance, i: int, slots) -> int:
    """Chunks a plan's workers can train: ``sum_t sum_r floor(rho_i y^r(t) / E_i)``."""
    rho, E = inst.rho[i], inst.epochs[i]
    return int(sum(np.floor(rho * y / E + EPS).sum() for _, y, _ in slots))


def oasis(
    inst: OkitaInstance, /, *, seed: int = 0, params: BaselineParams | None = None
) -> OkitaSchedule:
    """OASiS re-stated for (2) (readings 1-3, 8-10): one committed plan per job.

    ``seed`` is unused (deterministic) and recorded; ``params``:
    :class:`BaselineParams`; ``meta["plans"]`` holds each job's
    ``(start, l, N, plan cost)``; ``meta["prices"]`` the ``(L, U)`` used.
    """
    run = _Run(inst, _limit(inst, params, "oasis"))
    src = source_order(inst.q)
    L, U = price_bounds(inst) if inst.n_jobs else (1.0, 1.0)
    plans: dict[int, tuple[int, int, int, float]] = {}
    todo: dict[int, list[tuple[int, np.ndarray, int]]] = {}

    def start(t: int, waiting: list[int]) -> list[int]:
        started = []
        for i in waiting:
            work = inst.epochs[i] * inst.D[i].sum() / inst.rho[i]
            best = None
            chunks = int(inst.D[i].sum())
            n_min = _min_workers(inst, i)
            one = max(1, math.floor(inst.rho[i] * n_min / inst.epochs[i] + EPS))
            longest = max(math.ceil(work - EPS), math.ceil(chunks / one))  # 8a
            for l in range(1, longest + 1):
                f = float(inst.jobs[i].cost(t + l - 1 - inst.arrival[i]))
                if best is not None and f >= best[0]:
                    break  # f is non-decreasing and the other terms are >= 0
                N = max(n_min, math.ceil(work / l - EPS))
                while True:  # reading 8a: raise N until the plan trains every chunk
                    cost, slots = f, []
                    for k in range(l):
                        got = _slot_choice(run, i, t + k, N, L, U)
                        if got is None or (
                            best is not None and cost + got[0] >= best[0]
                        ):
                            break
                        cost += got[0]
                        slots.append((t + k, got[1], got[2]))
                    if len(slots) < l:
                        break  # N + 1 neither fits nor costs less
                    if _trainable(inst, i, slots) >= chunks:
                        best = (cost, l, N, slots)
                        break
                    N += 1
            if best is None:
                continue
            cost, l, N, slots = best
            for tt, y, p in slots:
                run.av(tt)[:] -= inst.m[i] * y[:, None]
                run.av(tt)[p] -= inst.n[i]
            plans[i] = (t, l, N, cost)
            todo[i] = slots
            started.append(i)
        return started

    def execute() -> None:
        for i, slots in todo.items():
            M = inst.D[i].astype(np.int64).copy()
            for tt, y, p in slots:
                if M.sum() == 0:
                    break
                d = workload(y, M, inst.rho[i], int(inst.epochs[i]))
                _, g = dta(M, d, inst.q, inst.delta[i], order=src)
                for r in np.flatnonzero(y):
                    run.workers.append((i, tt, int(r), int(y[r])))
                run.ps.append((i, tt, p))
                for a, b in zip(*np.nonzero(g), strict=True):
                    run.data.append((i, tt, int(a), int(b), int(g[a, b])))
                M -= g.sum(axis=1)
                run.completion[i] = tt
            if M.sum():
                raise RuntimeError(
                    f"oasis: job {i}'s plan leaves {int(M.sum())} chunks"
                )

    _loop(inst, start, run)
    execute()
    sched = run.schedule("oasis", {"seed": seed})
    sched.meta.update(plans=plans, prices=(L, U))
    return sched
