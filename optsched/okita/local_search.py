"""Local search for Okita (minimise total cost (2)): a better MIP start.

The search moves over *plans* decoded by a list-scheduling rule
(:func:`decode`); every decoded schedule goes through :func:`~.check.check`
inside :func:`optsched.core.local_search.improve` (a candidate the checker
rejects is discarded).

Why.  The calibration witness :func:`~.schedule.local_first` (the default
MIP start) trains every job as fast as the sites allow, so it spreads
workers over all sites and pays the parameter exchange ``pi_i q^{rp}`` of
Eq. (1) for every remote worker and slot.  The optima of the figure sizes
run jobs a slot or two longer, in each slot on the sites near that slot's
PS (the PS moves between slots), and pay a fraction of the bandwidth
(``generate(0, 4, 4, 16)``: optimum 449.6 with bandwidth 83.9,
``local_first`` 803.9 with 502.9).  A plan lets each job trade latency for
bandwidth by a cost threshold per chunk.

Cost of a chunk.  A chunk of site ``r`` trained on ``r'`` while the PS is
on ``p`` costs ``c_i(r, r', p) = delta_i q^{rr'} + pi_i q^{r'p} E_i /
rho_i``: its transfer plus its share of the exchange of the worker that
trains it (one worker trains ``rho_i / E_i`` chunks per slot).  Job ``i``'s
threshold levels (:func:`levels`) are ``0``, the ``j / (LEVELS - 1)``
quantiles of its costs ``c_i`` over all ``(r, r', p)`` with data on ``r``,
``j = 1..LEVELS - 2``, and ``inf``.

Plan (:class:`Plan`).  A job order and, per job, a PS rule ``ps`` (a site,
or ``-1``: chosen per slot), a PS site ``first`` for its first slot (or
``-1``: ``ps`` rules), a threshold ``level`` and two flags, ``frugal`` and
``reserve``.
Jobs are placed one after the other in the order; a placed job never
moves, so later jobs only use the capacity left.  Job ``i`` is placed slot
by slot from ``a_i`` (the witness's rule,
:meth:`optsched.okita.instance._Fitter.place`, with a cost threshold):

* candidate PS sites are those where the PS fits beside what is placed
  ((2d)): all of them for ``ps = -1``, else ``ps`` (``first`` in the
  job's first slot when it is a site) if it fits, else the
  first fitting site by ``q^{ps, r}`` (ties: index); a slot in which it fits
  nowhere makes the plan undecodable (strict (2c) needs a PS in every slot
  of ``[a_i, t_i]``);
* for a PS site ``p``: as many workers as fit on each site (with
  ``reserve``, all reserving jobs' workers together leave
  :data:`~optsched.okita.instance.PS_SHARE` of every resource a PS uses
  free, as the witness does; on ``p`` the PS comes first), site ``r'``
  training up to ``floor(rho_i / E_i x workers)`` chunks; the remaining
  chunks whose ``c_i(r, r', p)`` is at most the threshold are assigned to
  that room cheapest first (ties: local, then indices); each site gets the
  fewest workers that train its load, ``ceil(E_i g / rho_i)`` ((2b));
* the slot takes the candidate ``p`` that trains the most chunks, then the
  one of least bandwidth cost (transfer plus exchange of Eq. (1)), then the
  lowest index (with ``frugal``: least bandwidth cost per chunk, then most
  chunks);
* rounding repair (:func:`_drop_partial_workers`): a remote site's last
  worker is dropped when the chunks it trains fit the spare room of the
  other sites' workers for less transfer than its exchange;
* a job not done by ``T`` makes the plan undecodable.

Level ``inf`` with ``reserve`` is the witness's rule but for the PS choice
and the cost-ordered transfers; level 0 trains only chunks already on the
PS site (one site per slot, PS moving with the data).

Moves (each family shuffled by the search's seeded generator), in this
order: a job's level one up or down, its PS rule, its ``frugal`` flag,
its ``first`` site, two adjacent jobs swapped, a job's reserve flag, one
job moved to another position, a job's PS rule and level at once, and
:data:`N_PAIRS` random ``(ps, level, frugal)`` for two jobs at once.  The
start schedule (``local_first`` or any checked schedule) has no plan; its
neighbourhood first holds the decodings of :func:`seed_plans`: three job
orders (arrival; largest ``tau_i`` first; by completion in the start) with
each job's best ``(level, frugal)`` alone on the empty sites (PS chosen per
slot, :func:`solo_options`), and the arrival order with every job at level
``inf``, PS per slot.

Determinism: decoding draws nothing; the order of the moves comes from the
generator of :func:`optsched.core.local_search.improve`, so a search with
the same seed and ``max_evaluations`` (or ending at a local optimum)
returns the same schedule.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from optsched.core.base import best_checked
from optsched.core.local_search import SearchTrace
from optsched.core.local_search import improve as _improve

from .check import check
from .instance import EPS, PS_SHARE, OkitaInstance
from .schedule import OkitaSchedule, local_first

#: ``meta`` key holding the :class:`Plan` a decoded schedule came from.
META_KEY = "plan"
#: Suffix of the ``algorithm`` name of a schedule the search produced.
SUFFIX = "+ls"
#: Threshold levels per job (:func:`levels`): 0, ``LEVELS - 2`` quantiles, inf.
LEVELS = 8
#: ``Plan.ps`` value: the PS site is chosen in every slot.
ANY_PS = -1
#: Random two-job moves per neighbourhood (both jobs get a random
#: ``(ps, level, frugal)``): a way out of one-job local optima.
N_PAIRS = 40


@dataclass(frozen=True)
class Plan:
    """Input of :func:`decode` (module docstring).

    Attributes
    ----------
    order
        Job indices, placed first to last (a permutation of ``range(I)``).
    ps
        Per job (indexed by job): preferred PS site ``0..R-1``, or
        :data:`ANY_PS` (chosen per slot).
    level
        Per job: index ``0..LEVELS-1`` of its cost threshold (:func:`levels`).
    reserve
        Per job: its workers leave :data:`~optsched.okita.instance.PS_SHARE`
        of every PS resource of every site free (with the other reserving
        jobs' workers), as :func:`~optsched.okita.schedule.local_first` does.
    frugal
        Per job: a slot takes the PS site of least bandwidth cost per chunk
        trained (then the most chunks) instead of the most chunks.
    first
        Per job: PS site of the job's first slot (as ``ps``: that site when
        the PS fits there, else the nearest), or :data:`ANY_PS` (``ps``
        rules every slot).
    """

    order: tuple[int, ...]
    ps: tuple[int, ...]
    level: tuple[int, ...]
    reserve: tuple[bool, ...]
    frugal: tuple[bool, ...]
    first: tuple[int, ...]

    def validate(self, inst: OkitaInstance) -> None:
        """Raise ``ValueError`` naming the field when the plan does not fit ``inst``."""
        I_, R = inst.n_jobs, inst.n_sites
        if sorted(self.order) != list(range(I_)):
            raise ValueError(
                f"order: must be a permutation of 0..{I_ - 1}, got {self.order}"
            )
        for name, vals in (
            ("ps", self.ps),
            ("level", self.level),
            ("reserve", self.reserve),
            ("frugal", self.frugal),
            ("first", self.first),
        ):
            if len(vals) != I_:
                raise ValueError(f"{name}: need {I_} values (one per job), got {vals}")
        for i, (p, lv) in enumerate(zip(self.ps, self.level, strict=True)):
            for name, v in (("ps", p), ("first", self.first[i])):
                if not ANY_PS <= v < R:
                    raise ValueError(
                        f"{name}[{i}]: must be a site in 0..{R - 1} or {ANY_PS}, "
                        f"got {v}"
                    )
            if not 0 <= lv < LEVELS:
                raise ValueError(f"level[{i}]: must be in 0..{LEVELS - 1}, got {lv}")

    def replace(self, i: int, **kw: int | bool) -> Plan:
        """The plan with job ``i``'s ``ps``, ``level``, ``reserve``,
        ``frugal`` or ``first`` replaced."""
        cols = {"ps": list(self.ps), "level": list(self.level)}
        cols["first"] = list(self.first)
        flags = {"reserve": list(self.reserve), "frugal": list(self.frugal)}
        for name, v in kw.items():
            if name in flags:
                flags[name][i] = bool(v)
            else:
                cols[name][i] = int(v)
        return Plan(
            self.order,
            tuple(cols["ps"]),
            tuple(cols["level"]),
            tuple(flags["reserve"]),
            tuple(flags["frugal"]),
            tuple(cols["first"]),
        )

    def reorder(self, order: list[int]) -> Plan:
        """The plan with another job order."""
        return Plan(
            tuple(order), self.ps, self.level, self.reserve, self.frugal, self.first
        )


def chunk_costs(inst: OkitaInstance, i: int) -> np.ndarray:
    """``c_i(r, r', p)`` (R, R, R) of the module docstring (``inf`` where site
    ``r`` holds no data of job ``i``)."""
    q = inst.q
    per_chunk = inst.pi[i] * inst.epochs[i] / inst.rho[i]
    c = inst.delta[i] * q[:, :, None] + per_chunk * q[None, :, :]
    c[inst.D[i] == 0] = np.inf
    return c


def levels(inst: OkitaInstance, i: int) -> np.ndarray:
    """Job ``i``'s :data:`LEVELS` cost thresholds (module docstring)."""
    c = chunk_costs(inst, i)
    c = c[np.isfinite(c)]
    qs = np.quantile(c, np.arange(1, LEVELS - 1) / (LEVELS - 1))
    return np.concatenate(([0.0], qs, [np.inf]))


class _Orders:
    """Per job: thresholds, and per PS site the (source, destination) pairs by
    cost per chunk with their costs; computed once per search."""

    def __init__(self, inst: OkitaInstance) -> None:
        self.inst = inst
        self.q: list[list[float]] = inst.q.tolist()
        self.levels = [levels(inst, i) for i in range(inst.n_jobs)]
        self._pairs: dict[tuple[int, int], list[tuple[float, int, int]]] = {}
        self.near = [
            [p, *[int(r) for r in np.argsort(inst.q[p], kind="stable") if r != p]]
            for p in range(inst.n_sites)
        ]

    def pairs(self, i: int, p: int) -> list[tuple[float, int, int]]:
        """``(cost, r, r')`` with data on ``r``, cheapest first (ties: local)."""
        got = self._pairs.get((i, p))
        if got is None:
            c = chunk_costs(self.inst, i)[:, :, p]
            R = self.inst.n_sites
            keys = sorted(
                (float(c[r, d]), r != d, r, d)
                for r in range(R)
                for d in range(R)
                if np.isfinite(c[r, d])
            )
            got = [(v, r, d) for v, _, r, d in keys]
            self._pairs[(i, p)] = got
        return got


class _Decoder:
    """Capacity used per slot and the per-job rule of :func:`decode`."""

    def __init__(self, inst: OkitaInstance, orders: _Orders) -> None:
        self.inst, self.orders = inst, orders
        T, R, K = inst.n_slots, inst.n_sites, inst.n_resources
        self.cap = inst.capacity
        ps_uses = inst.n.max(axis=0) > 0 if inst.n_jobs else np.ones(K)
        self.worker_cap = (1.0 - np.where(ps_uses, PS_SHARE, 0.0)) * self.cap
        self.wres = np.zeros((T + 1, R, K))  # workers of reserving jobs
        self.used = np.zeros((T + 1, R, K))  # everything

    def _slot(
        self,
        i: int,
        p: int,
        room: list[int],
        left: list[int],
        theta: float,
        repair: bool = False,
    ) -> tuple[int, float, list[int], list[tuple[int, int, int]]]:
        """Chunks, bandwidth cost, workers and moves of job ``i`` in a slot
        with the PS on ``p`` and ``room`` chunks per site (module docstring);
        ``repair``: then :func:`_drop_partial_workers`."""
        inst = self.inst
        R = len(room)
        rest = left.copy()
        load = [0] * R
        g: dict[tuple[int, int], int] = {}
        delta, qd = float(inst.delta[i]), self.orders.q
        for c, r, d in self.orders.pairs(i, p):
            if c > theta:
                break
            if rest[r] == 0 or room[d] == load[d]:
                continue
            x = min(rest[r], room[d] - load[d])
            g[r, d] = x
            load[d] += x
            rest[r] -= x
        E, rho = int(inst.epochs[i]), float(inst.rho[i])
        y = [math.ceil(E * v / rho - EPS) if v else 0 for v in load]
        pi = float(inst.pi[i])
        if repair:
            exch = [pi * qd[r][p] for r in range(R)]
            _drop_partial_workers(p, g, load, y, rho / E, delta, exch, qd)
        moves = [(r, d, x) for (r, d), x in g.items() if x]
        bw = sum(delta * qd[r][d] * x for r, d, x in moves)
        bw += sum(pi * qd[r][p] * v for r, v in enumerate(y) if v)
        return sum(load), bw, y, moves

    def place(
        self,
        i: int,
        plan_ps: int,
        level: int,
        reserve: bool,
        frugal: bool,
        first: int = ANY_PS,
        commit: bool = True,
    ) -> tuple[list, list, list, float] | None:
        """Job ``i``'s rows and cost (None: undecodable, module docstring)."""
        inst = self.inst
        T = inst.n_slots
        m, n = inst.m[i], inst.n[i]
        pos = m > 0
        theta = float(self.orders.levels[i][level])
        left = inst.D[i].astype(np.int64).copy()
        workers: list[tuple[int, int, int, int]] = []
        ps: list[tuple[int, int, int]] = []
        data: list[tuple[int, int, int, int, int]] = []
        use: list[tuple[int, np.ndarray, int]] = []
        bw = 0.0
        t = a = int(inst.arrival[i])
        while left.sum() > 0:
            if t > T:
                return None
            total = self.cap - self.used[t]
            fits = (total + EPS >= n).all(axis=1)
            want = first if first != ANY_PS and t == a else plan_ps
            if want == ANY_PS:
                cands = np.flatnonzero(fits).tolist()
            else:
                cands = [r for r in self.orders.near[want] if fits[r]][:1]
            if not cands:
                return None
            free = total
            if reserve:
                free = np.minimum(self.worker_cap - self.wres[t], total)
            per = inst.rho[i] / inst.epochs[i]
            fit = np.floor((np.maximum(free[:, pos], 0.0) + EPS) / m[pos]).min(axis=1)
            room = np.floor(per * fit + EPS).astype(np.int64).tolist()
            # on the PS site the PS comes first
            free_p = np.minimum(free, total - n)
            fit_p = np.floor((np.maximum(free_p[:, pos], 0.0) + EPS) / m[pos])
            room_p = np.floor(per * fit_p.min(axis=1) + EPS).astype(np.int64).tolist()
            rest = left.tolist()
            best = None
            for p in cands:
                rp = room.copy()
                rp[p] = room_p[p]
                got = self._slot(i, p, rp, rest, theta, len(cands) == 1)
                key: tuple[float, float]
                if frugal:
                    key = (got[1] / got[0] if got[0] else math.inf, -got[0])
                else:
                    key = (-got[0], got[1])
                if best is None or key < best[0]:
                    best = (key, p, got)
            assert best is not None
            _, p, got = best
            if len(cands) > 1:
                rp = room.copy()
                rp[p] = room_p[p]
                got = self._slot(i, p, rp, rest, theta, True)
            _, cost, ys, moves = got
            y = np.asarray(ys, dtype=np.int64)
            bw += cost
            ps.append((i, t, p))
            workers.extend((i, t, r, int(y[r])) for r in np.flatnonzero(y).tolist())
            for r, d, x in moves:
                data.append((i, t, r, d, x))
                left[r] -= x
            use.append((t, y, p))
            t += 1
        if commit:
            for s, y, p in use:
                w = np.outer(y, m)
                self.used[s] += w
                self.used[s, p] += n
                if reserve:
                    self.wres[s] += w
        dur = t - 1 - int(inst.arrival[i])
        return workers, ps, data, bw + float(inst.jobs[i].cost(dur))


def _drop_partial_workers(
    p: int,
    g: dict[tuple[int, int], int],
    load: list[int],
    y: list[int],
    per: float,
    delta: float,
    exch: list[float],
    q: list[list[float]],
) -> None:
    """Rounding repair of one slot (in place): a remote site's last worker
    goes when the chunks it trains fit the spare room of the other sites'
    workers for less transfer than its exchange ``exch[d] = pi_i q^{dp}``.

    Sites by decreasing exchange; site ``e`` with ``y^e`` workers trains up
    to ``floor(per y^e)`` chunks (``per = rho_i / E_i``), its spare room is
    that minus its load; a chunk of source ``r`` moved from ``d`` to ``e``
    costs ``delta_i (q^{re} - q^{rd})`` more transfer.  No worker is added,
    so (2b) and (2d) still hold.
    """

    def trains(n: int) -> int:
        return math.floor(per * n + EPS)

    R = len(load)
    for d in sorted(range(R), key=lambda d: (-exch[d], d)):
        if d == p or y[d] == 0:
            continue
        need = load[d] - trains(y[d] - 1)
        spare = [trains(y[e]) - load[e] if e != d and y[e] else 0 for e in range(R)]
        have = {r: x for (r, dd), x in g.items() if dd == d and x}
        opts = sorted(
            (delta * (q[r][e] - q[r][d]), r, e)
            for r in have
            for e in range(R)
            if spare[e] > 0
        )
        take: list[tuple[int, int, int]] = []
        extra = 0.0
        for c, r, e in opts:
            if need == 0:
                break
            x = min(have[r], spare[e], need)
            if x <= 0:
                continue
            take.append((r, e, x))
            have[r] -= x
            spare[e] -= x
            need -= x
            extra += c * x
        if need or extra >= exch[d] - 1e-12:
            continue
        for r, e, x in take:
            g[r, d] -= x
            g[r, e] = g.get((r, e), 0) + x
            load[d] -= x
            load[e] += x
        y[d] -= 1


def decode(
    inst: OkitaInstance,
    plan: Plan,
    algorithm: str = "plan" + SUFFIX,
    orders: _Orders | None = None,
) -> OkitaSchedule | None:
    """The list schedule of ``plan`` (module docstring), the plan in its meta.

    Returns None when the plan is undecodable (a PS fits nowhere in a slot
    of a job's window, or a job is not done by ``T``).  ``orders``: the
    per-instance tables (computed when not given).

    Raises
    ------
    ValueError
        If ``plan`` does not fit ``inst`` (naming the field).
    """
    plan.validate(inst)
    dec = _Decoder(inst, _Orders(inst) if orders is None else orders)
    workers: list[tuple[int, int, int, int]] = []
    ps: list[tuple[int, int, int]] = []
    data: list[tuple[int, int, int, int, int]] = []
    for i in plan.order:
        got = dec.place(
            i, plan.ps[i], plan.level[i], plan.reserve[i], plan.frugal[i],
            plan.first[i],
        )  # fmt: skip
        if got is None:
            return None
        workers += got[0]
        ps += got[1]
        data += got[2]
    sched = OkitaSchedule.build(workers, ps, data, algorithm=algorithm)
    sched.meta[META_KEY] = plan
    return sched


def solo_options(
    inst: OkitaInstance, orders: _Orders | None = None
) -> list[list[tuple[float, int, bool]]]:
    """Per job, ``(cost, level, frugal)`` of every option with the PS chosen
    per slot, alone on the empty sites, cheapest first (undecodable options
    left out; reserve on).  ``2 LEVELS`` placements per job: fixed PS sites
    are left to the moves (``R`` times as many placements)."""
    orders = _Orders(inst) if orders is None else orders
    dec = _Decoder(inst, orders)
    out = []
    for i in range(inst.n_jobs):
        opts = []
        for lv in range(LEVELS):
            for fr in (False, True):
                got = dec.place(i, ANY_PS, lv, True, fr, commit=False)
                if got is not None:
                    opts.append((got[3], lv, fr))
        out.append(sorted(opts))
    return out


def seed_plans(
    inst: OkitaInstance, sched: OkitaSchedule, orders: _Orders | None = None
) -> list[Plan]:
    """Plans read off a schedule without one (module docstring)."""
    I_ = inst.n_jobs
    solo = solo_options(inst, orders)
    best = [s[0] if s else (math.inf, LEVELS - 1, False) for s in solo]
    lv = tuple(int(b[1]) for b in best)
    fr = tuple(bool(b[2]) for b in best)
    res = (True,) * I_
    jobs = np.arange(I_)
    tau = np.array([j.cost.tau for j in inst.jobs])
    comp = sched.completion(I_)
    orders_ = (
        tuple(range(I_)),
        tuple(int(j) for j in np.lexsort((jobs, inst.arrival, -tau))),
        tuple(int(j) for j in np.lexsort((jobs, inst.arrival, comp))),
    )
    none = (ANY_PS,) * I_
    plans = [Plan(o, none, lv, res, fr, none) for o in orders_]
    fast = Plan(orders_[0], none, (LEVELS - 1,) * I_, res, (False,) * I_, none)
    plans.append(fast)
    return plans


def neighbours(
    inst: OkitaInstance, sched: OkitaSchedule, rng: np.random.Generator
) -> Iterator[tuple[str, OkitaSchedule]]:
    """The moves of the module docstring on the schedule's plan (each family
    shuffled by ``rng``); seed plans first for a schedule without one."""
    name = sched.algorithm
    if not name.endswith(SUFFIX):
        name += SUFFIX
    orders = _Orders(inst)
    plan = sched.meta.get(META_KEY)
    if not isinstance(plan, Plan):
        seeds = seed_plans(inst, sched, orders)
        for k, pl in enumerate(seeds):
            c = decode(inst, pl, name, orders)
            if c is not None:
                yield f"seed {k}", c
        plan = seeds[0]
    I_, R = inst.n_jobs, inst.n_sites

    def emit(label: str, pl: Plan) -> Iterator[tuple[str, OkitaSchedule]]:
        c = decode(inst, pl, name, orders)
        if c is not None:
            yield label, c

    for i in rng.permutation(I_).tolist():
        for lv in (plan.level[i] - 1, plan.level[i] + 1):
            if 0 <= lv < LEVELS:
                yield from emit(f"level {i}->{lv}", plan.replace(i, level=lv))
    for i in rng.permutation(I_).tolist():
        for p in (rng.permutation(R + 1) - 1).tolist():
            if p != plan.ps[i]:
                yield from emit(f"ps {i}->{p}", plan.replace(i, ps=p))
    order = list(plan.order)
    for a in rng.permutation(max(I_ - 1, 0)).tolist():
        o = order.copy()
        o[a], o[a + 1] = o[a + 1], o[a]
        yield from emit(f"swap {o[a + 1]},{o[a]}", plan.reorder(o))
    for i in rng.permutation(I_).tolist():
        yield from emit(f"frugal {i}", plan.replace(i, frugal=not plan.frugal[i]))
    for i in rng.permutation(I_).tolist():
        for p in (rng.permutation(R + 1) - 1).tolist():
            if p != plan.first[i]:
                yield from emit(f"first {i}->{p}", plan.replace(i, first=p))
    for i in rng.permutation(I_).tolist():
        yield from emit(f"reserve {i}", plan.replace(i, reserve=not plan.reserve[i]))
    moves = [(a, b) for a in range(I_) for b in range(I_) if abs(a - b) > 1]
    for j in rng.permutation(len(moves)).tolist():
        a, b = moves[j]
        o = order.copy()
        o.insert(b, o.pop(a))
        yield from emit(f"move {order[a]} to {b}", plan.reorder(o))
    both = [
        (i, p, lv) for i in range(I_) for p in range(ANY_PS, R) for lv in range(LEVELS)
    ]
    for j in rng.permutation(len(both)).tolist():
        i, p, lv = both[j]
        if p != plan.ps[i] and abs(lv - plan.level[i]) > 1:
            yield from emit(f"ps {i}->{p} level {lv}", plan.replace(i, ps=p, level=lv))
    for _ in range(N_PAIRS if I_ > 1 else 0):
        pl = plan
        for i in sorted(rng.choice(I_, size=2, replace=False).tolist()):
            p, lv = int(rng.integers(ANY_PS, R)), int(rng.integers(LEVELS))
            pl = pl.replace(i, ps=p, level=lv, frugal=bool(rng.integers(2)))
        if pl != plan:
            yield from emit("pair", pl)


def online_start(inst: OkitaInstance) -> OkitaSchedule | None:
    """:func:`~optsched.okita.schedule.local_first` when the checker accepts
    it, else None: the schedule :func:`default_start` improves."""
    return best_checked(inst, [local_first(inst)], check, "min", skip_infeasible=True)


def improve(
    inst: OkitaInstance,
    start: OkitaSchedule | None = None,
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    strategy: str = "first",
    max_evaluations: int | None = None,
) -> tuple[OkitaSchedule, SearchTrace]:
    """Local search from ``start`` (default: :func:`online_start`,
    :func:`~optsched.okita.schedule.local_first` when the checker accepts it).

    Parameters as :func:`optsched.core.local_search.improve`.  Returns the
    best checked schedule and the trace; its total cost is never above the
    start's.

    Raises
    ------
    ValueError
        If there is no start (``local_first`` fails the checker at this
        ``T``); pass one.
    """
    if start is None:
        start = online_start(inst)
        if start is None:
            raise ValueError(
                "start: no checked start schedule at this T (local_first fails "
                "the checker); pass one"
            )
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
