"""Okita: the online algorithm of Han et al. (Sec. IV, Alg. 1-3).

In every slot ``t`` (Alg. 1) Okita adds the jobs arriving in ``t`` to the
uncompleted set ``J_a``; for each job of ``J_a`` it enumerates the number of
workers ``N_i(t) = 1 .. ceil(E_i M_i(t) / rho_i)`` with the execution time
``l_i = ceil(E_i M_i(t) / rho_i / N_i(t))`` and calls ``OSF`` (placement
``PA`` of Alg. 2 with the metric ``Q_i^r(t)`` of Eq. (6), then data
transmission ``DTA`` of Alg. 3) on the full capacities ``C_r^k``; it keeps
the ``N_i(t)`` with the smallest ``bcost + f_i(duration)`` (line 9); it sorts
``J_a`` by decreasing priority ``O_i(t)`` of Eq. (4) and, in that order,
places each job's tentative schedule, or on a resource conflict (line 14)
compares migrating (``OSF`` on the available resources ``Av``) with delaying
(lines 15-20); finally it computes the workload ``d_i^r(t)`` of the chosen
workers, moves data by ``DTA``, updates ``Av`` and the remaining data
``M_i^r`` (Eq. (3)), and removes completed jobs (``M_i = 0``).

Readings adopted where the pseudo-code is ambiguous (line numbers of the
seed's Alg. 1-3; also in ``docs/okita.md``, "Okita readings"):

1. **Durations (Alg. 1 lines 9, 16, 17).**  A job trained in the ``l_i``
   slots ``t .. t + l_i - 1`` completes in ``t_i = t + l_i - 1``; the
   objective and the checker charge ``f_i(t_i - a_i)``.  So line 9 compares
   ``bcost + f_i(t + l_i - 1 - a_i)`` and lines 16-17 use ``f_i(t + l_i^* -
   1 - a_i)`` and ``f_i(t + 2 l_i^* - 1 - a_i)`` (the printed ``t + l_i -
   a_i`` is one slot more; ``printed_duration=True`` uses the print).
   Ties in line 9 go to the smallest ``N_i(t)``.
2. **Workload ``d_i^r(t)`` (Alg. 1 lines 22, 35).**  One worker trains
   ``rho_i / E_i`` chunks per slot ((2b)), so site ``r`` can train
   ``cap_r = floor(rho_i y_i^r(t) / E_i)`` chunks.  ``d_i^r(t)`` takes the
   site's own remaining chunks first, ``min(cap_r, M_i^r(t))``, then the
   chunks still unassigned (``M_i(t)`` minus those) fill the spare
   ``cap_r - d_i^r`` in site order.  So ``sum_r d_i^r(t) = min(sum_r cap_r,
   M_i(t))`` and no chunk moves that could be trained where it lies.
3. **DTA line 7.**  Printed ``g_i^{r r_j}(t) = min{H^{r_j} - sum_{r'}
   g^{r' r'}, -H^r - sum_{j'<j} g^{r r_{j'}}}`` with ``r`` the site short of
   data.  Read: data moves *from* the surplus site ``r_j`` *to* ``r``:
   ``g_i^{r_j r}(t) = min{H^{r_j} - sum_{r' != r_j} g_i^{r_j r'}(t), -H^r -
   sum_{j' < j} g_i^{r_{j'} r}(t)}`` (what ``r_j`` has left after earlier
   deficits, what ``r`` still lacks).  Line 4 sorts the sources by the cost
   of the move, ``q^{r_j r}`` non-decreasing (ties: site index).  Deficit
   sites are served in site order (line 2).  The local part ``g_i^{rr}(t) =
   min(d_i^r(t), M_i^r(t))`` (no cost, ``q^{rr} = 0``) is written too: the
   schedule's (2a) needs it.
4. **PA (Alg. 2).**  ``A_i^r(t) = min_k floor((U_r^k - n_i^k [r = r~]) /
   m_i^k)`` over the ``k`` with ``m_i^k > 0`` (``m_i^k = 0``: no limit),
   at least 0; a PS site ``r~`` is skipped when the PS itself does not fit
   (``U_{r~}^k < n_i^k`` for some ``k``, (5b)).  Line 3 is read ``y = 0, s =
   0`` on every site, then ``s^{r~} = 1``.  Sites are sorted by decreasing
   ``Q`` (ties: site index).  Line 12's ``<=`` is kept: among PS sites of
   equal cost the *last* one wins.  No feasible PS site: ``cost = inf`` and
   ``y = s = 0`` (line 1's initial values).
5. **Q metric (Eq. (6)).**  Terms with a zero denominator are 0: a
   resource with ``C_r^k = 0``, a site with ``D_i^r = 0``, and the
   bandwidth term when ``R = 1``.  ``U`` is ``PA``'s input (``C`` in line 7,
   ``Av`` in line 15).
6. **Priority (Eq. (4), Sec. V-C).**  ``max_{J_a}`` over the uncompleted
   arrived jobs; a zero maximum makes the first term 0.  When every job of
   the instance has the piecewise cost, the first term is Sec. V-C's
   ``alpha_1 min((t - a_i - c_i) / max_{J_a}(t - a_j - c_j), 0)`` (0 when
   that maximum is <= 0, which the print leaves undefined or positive);
   otherwise Eq. (4) with ``tau_i`` = the cost's first parameter.  Sorted
   decreasing, ties by job index.
7. **Migrate or delay (lines 14-20).**  A conflict is ``Av_r^k(t) - (m_i^k
   y_i^r + n_i^k s_i^r) < 0`` for some ``r, k`` (tolerance ``1e-9``).
   Because ``f_i`` is non-decreasing, ``cost2 >= cost1`` whenever the
   migration is feasible, so line 18 (``cost1 > cost2``) only delays when
   ``OSF`` on ``Av`` finds no placement with ``N_i^*(t)`` workers
   (``cost1 = inf``); then PA's ``y = s = 0`` is the same delay.  A job for
   which even line 7 (full capacities) finds no ``N_i(t)`` waits too.
8. **PS while delayed (``keep_ps_on_delay=True``, a deviation).**  Line 19
   drops the PS, which the strict (2c) of the checker forbids inside
   ``[a_i, t_i]``.  With ``keep_ps_on_delay`` (default) a job that is
   delayed (line 19) or waits keeps its PS alone, at that moment of the
   priority loop (so jobs of lower priority see it as occupied): on its
   last PS site if the PS fits in ``Av``, else on the first site where it
   fits (a job that never had a PS gets one this way).  It uses capacity but
   costs nothing (no workers, Eq. (1)).  If it fits nowhere, ``(job,
   slot)`` is recorded in ``meta["ps_gaps"]`` and ``meta["ps_every_slot"]``
   is False: check that schedule with ``check(..., ps_every_slot=False)``.
   ``keep_ps_on_delay=False`` is the print (line 19: ``y = s = 0``); every
   delay is then a gap.
9. **Horizon.**  Slots go on past ``T`` until every job completes (rows
   past ``T`` are kept; the checker rejects them); ``meta["makespan"]`` is
   the last slot with workers and ``meta["horizon_exceeded"]`` says whether
   it exceeds ``T``.  ``max_slots`` (default ``10 T + 1000``) guards against
   a job that can never progress (``rho_i < E_i`` workers whose floor is 0);
   it raises ``RuntimeError``.

The algorithm draws no random numbers; ``seed`` is recorded in ``meta`` for
the common interface only.

Implementation.  PA's loop over PS sites (Alg. 2 line 2) is evaluated for
all sites at once (:class:`_Placer`: one row of ``A_i^r(t)`` per PS site,
worker fill of lines 9-11 by prefix sums, line 12's ``<=`` as "the last
site of least cost"); the part that does not depend on ``N_i(t)`` is
prepared once per job and slot for line 7's enumeration; DTA's source order
(line 4) is computed once per instance (:func:`source_order`).  Every float
is added up in the order of the line-by-line version, so the schedules and
traces are bit-identical to it (``tests/okita/test_okita_online_regression``);
at ``R = 50``, ``I = 100``, ``T = 150`` one run takes about 3.4 s instead of
78 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.params import resolve

from .instance import EPS, OkitaInstance
from .schedule import OkitaSchedule

INF = math.inf


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


def q_metric(
    U: np.ndarray,
    C: np.ndarray,
    q: np.ndarray,
    pi: float,
    M: np.ndarray,
    D: np.ndarray,
    *,
    beta1: float = 1.0,
    beta2: float = 1.0,
    beta3: float = 1.0,
) -> np.ndarray:
    """``Q_i^r(t)`` of Eq. (6) for every site ``r`` (reading 5).

    ``beta1 mean_k(U_r^k / C_r^k) - beta2 sum_r' q^{rr'} pi_i / (R - 1) +
    beta3 M_i^r(t) / D_i^r``; ``U``, ``C`` are (R, K), ``q`` (R, R), ``M``,
    ``D`` (R,).  Zero denominators give a zero term.
    """
    U = np.asarray(U, dtype=float)
    C = np.asarray(C, dtype=float)
    R, K = C.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.where(C > 0, U / np.where(C > 0, C, 1.0), 0.0).sum(axis=1) / K
        M = np.asarray(M, dtype=float)
        D = np.asarray(D, dtype=float)
        data = np.where(D > 0, M / np.where(D > 0, D, 1.0), 0.0)
    bw = np.asarray(q, dtype=float).sum(axis=1) * pi / (R - 1) if R > 1 else 0.0
    return beta1 * res - beta2 * bw + beta3 * data


def priority(
    t: int,
    arrival: np.ndarray,
    tau: np.ndarray,
    remaining: np.ndarray,
    total: np.ndarray,
    *,
    alpha1: float = 1.0,
    alpha2: float = 1.0,
    c: np.ndarray | None = None,
) -> np.ndarray:
    """``O_i(t)`` of Eq. (4) for the jobs of ``J_a`` (reading 6).

    ``arrival``, ``tau``, ``remaining`` (``M_i(t)``), ``total`` (``sum_r
    D_i^r``) are per job of ``J_a``.  With ``c`` (the piecewise cost's
    segment points) the first term is Sec. V-C's ``alpha1 min((t - a_i -
    c_i) / max_j (t - a_j - c_j), 0)``.
    """
    a = np.asarray(arrival, dtype=float)
    if c is None:
        w = np.asarray(tau, dtype=float) * (t - a)
        top = w.max() if len(w) else 0.0
        first = w / top if top > 0 else np.zeros_like(w)
    else:
        w = t - a - np.asarray(c, dtype=float)
        top = w.max() if len(w) else 0.0
        first = np.minimum(w / top, 0.0) if top > 0 else np.zeros_like(w)
    rem = np.asarray(remaining, dtype=float) / np.asarray(total, dtype=float)
    return alpha1 * first - alpha2 * rem


# --------------------------------------------------------------------------
# Alg. 2 (PA), Alg. 3 (DTA), workload, OSF
# --------------------------------------------------------------------------


def _assignable(free: np.ndarray, m: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``A_i^r(t)`` for rows of free capacity (``m_i^k = 0``: no limit)."""
    a = np.floor((free[..., pos] + EPS) / m[pos]).min(axis=-1)
    return np.maximum(a, 0).astype(np.int64)


@dataclass
class _Placer:
    """PA's work that does not depend on ``N`` and ``l`` (lines 2-8, every PS).

    Row ``p`` of ``a_sorted`` holds ``A_i^r(t)`` with the PS on site ``p``,
    sites in line 8's order; ``before`` its exclusive prefix sums.
    """

    order: np.ndarray
    a_sorted: np.ndarray
    before: np.ndarray
    fits: np.ndarray
    qpi: np.ndarray  # qpi[p, r] = q^{r p} pi

    @classmethod
    def prepare(cls, U, C, q, pi, M, D, m, n, betas) -> _Placer:
        U = np.asarray(U, dtype=float)
        m = np.asarray(m, dtype=float)
        n = np.asarray(n, dtype=float)
        q = np.asarray(q, dtype=float)
        R = U.shape[0]
        Q = q_metric(U, C, q, pi, M, D, **betas)
        order = np.argsort(-Q, kind="stable")  # decreasing Q, ties by index
        pos = m > 0
        A = np.tile(_assignable(U, m, pos), (R, 1))
        diag = np.arange(R)
        A[diag, diag] = _assignable(U - n, m, pos)  # line 6
        a_sorted = A[:, order]
        before = np.zeros_like(a_sorted)
        np.cumsum(a_sorted[:, :-1], axis=1, out=before[:, 1:])
        fits = ~np.any(U - n < -EPS, axis=1)  # the PS itself fits (5b)
        # C order: row sums then add up as np.sum of one PS column does (bitwise)
        return cls(order, a_sorted, before, fits, np.ascontiguousarray(q.T * pi))

    def place(self, N: int, l: int) -> tuple[float, np.ndarray, np.ndarray]:
        """Lines 9-16 for every PS site at once; the last cheapest PS wins."""
        R = len(self.order)
        ys = np.clip(N - self.before, 0, self.a_sorted)  # lines 9-11
        Y = np.empty_like(ys)
        Y[:, self.order] = ys
        ok = self.fits & (Y.sum(axis=1) >= N)
        if not ok.any():
            return INF, np.zeros(R, dtype=np.int64), np.zeros(R, dtype=np.int64)
        cost = l * (self.qpi * Y).sum(axis=1)
        cost[~ok] = INF
        ps = R - 1 - int(np.argmin(cost[::-1]))  # line 12's "<=": the last minimum
        s = np.zeros(R, dtype=np.int64)
        s[ps] = 1
        return float(cost[ps]), Y[ps].copy(), s


def pa(
    U: np.ndarray,
    C: np.ndarray,
    q: np.ndarray,
    pi: float,
    M: np.ndarray,
    D: np.ndarray,
    m: np.ndarray,
    n: np.ndarray,
    N: int,
    l: int,
    *,
    beta1: float = 1.0,
    beta2: float = 1.0,
    beta3: float = 1.0,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Alg. 2: place ``N`` workers and one PS on the available ``U`` (reading 4).

    Returns ``(cost, y, s)``: ``cost = l sum_r q^{r r~} pi y^r`` of the
    cheapest PS site ``r~`` that meets ``N`` (``inf`` and zeros if none),
    ``y`` (R,) ints, ``s`` (R,) 0/1 ints.  The loop of line 2 over PS
    sites is evaluated for all sites at once (:class:`_Placer`); line 12's
    ``<=`` keeps the last PS site of least cost, as the loop does.
    """
    betas = {"beta1": beta1, "beta2": beta2, "beta3": beta3}
    return _Placer.prepare(U, C, q, pi, M, D, m, n, betas).place(N, l)


def workload(y: np.ndarray, M: np.ndarray, rho: float, E: int) -> np.ndarray:
    """``d_i^r(t)`` from the workers ``y`` and remaining data ``M`` (reading 2)."""
    y = np.asarray(y, dtype=np.int64)
    M = np.asarray(M, dtype=np.int64)
    cap = np.floor(rho * y / E + EPS).astype(np.int64)
    d = np.minimum(cap, M)
    left = int(M.sum() - d.sum())
    spare = cap - d
    before = np.concatenate(([0], np.cumsum(spare)[:-1]))
    return d + np.clip(left - before, 0, spare)  # spill in site order


def source_order(q: np.ndarray) -> list[list[int]]:
    """Line 4's order for every site ``r``: sources by ``q^{r_j r}``, ties by index."""
    return np.argsort(np.asarray(q, dtype=float), axis=0, kind="stable").T.tolist()


def dta(
    M: np.ndarray,
    d: np.ndarray,
    q: np.ndarray,
    delta: float,
    *,
    order: list[list[int]] | None = None,
) -> tuple[float, np.ndarray]:
    """Alg. 3: move data so every site has its workload ``d`` (reading 3).

    ``H^r = M^r - d^r``; each site short of data (``H^r < 0``, site order)
    takes chunks from the sites with surplus, cheapest ``q^{r_j r}`` first.
    Returns ``(cost, g)``, ``cost = sum q^{rr'} delta g^{rr'}``, ``g`` (R, R)
    with ``g[src, dst]``; the diagonal holds the locally trained chunks.
    Requires ``sum d <= sum M``.  ``order``: :func:`source_order` of ``q``
    (computed when not given).
    """
    M = np.asarray(M, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    q = np.asarray(q, dtype=float)
    R = len(M)
    H = M - d
    g = np.zeros((R, R), dtype=np.int64)
    short = np.flatnonzero(H < 0)
    if short.size:
        avail = np.maximum(H, 0).tolist()  # what each site has left to send
        if order is None:
            order = source_order(q)
        for r in short.tolist():
            need = int(-H[r])
            for src in order[r]:  # line 4
                if need == 0:
                    break
                if avail[src] > 0:  # line 6
                    take = min(avail[src], need)  # line 7
                    g[src, r] = take
                    avail[src] -= take
                    need -= take
    np.fill_diagonal(g, np.minimum(d, M))
    if np.any(g.sum(axis=0) != d):
        raise ValueError(f"DTA: workload {d.tolist()} exceeds the data {M.tolist()}")
    cost = float(np.sum(q * delta * g))
    return cost, g


@dataclass
class _Plan:
    """One job's schedule for the slot: cost, workers, PS, workload, moves."""

    cost: float
    y: np.ndarray
    s: np.ndarray
    d: np.ndarray | None = None
    g: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _osf(
    inst: OkitaInstance,
    i: int,
    M: np.ndarray,
    U: np.ndarray,
    N: int,
    l: int,
    betas: dict[str, float],
    placer: _Placer | None = None,
    src: list[list[int]] | None = None,
) -> _Plan:
    """``OSF`` (Alg. 1 lines 32-38): PA, then workload and DTA.

    ``placer``: PA's ``N``-independent part for this job, ``U`` and ``M``
    (prepared once per job and slot for line 7's enumeration).
    """
    if placer is None:
        placer = _Placer.prepare(
            U, inst.capacity, inst.q, inst.pi[i], M, inst.D[i],
            inst.m[i], inst.n[i], betas,
        )  # fmt: skip
    bc1, y, s = placer.place(N, l)
    if not math.isfinite(bc1):
        return _Plan(INF, y, s)
    d = workload(y, M, inst.rho[i], int(inst.epochs[i]))
    bc2, g = dta(M, d, inst.q, inst.delta[i], order=src)
    return _Plan(bc1 + bc2, y, s, d, g)


def _fits(Av: np.ndarray, need: np.ndarray) -> bool:
    return bool(np.all(Av - need >= -EPS * np.maximum(1.0, np.abs(Av))))


def _keep(
    inst: OkitaInstance,
    i: int,
    t: int,
    Av: np.ndarray,
    last_ps: np.ndarray,
    keep: bool,
    ps_rows: list[tuple[int, int, int]],
    ps_gaps: list[tuple[int, int]],
    trace: list[dict[str, Any]],
) -> None:
    """Reading 8: a waiting or delayed job keeps (or gets) a PS alone."""
    if keep:
        cands = [int(last_ps[i])] if last_ps[i] >= 0 else []
        for r in cands + list(range(inst.n_sites)):
            if _fits(Av[r], inst.n[i]):
                Av[r] -= inst.n[i]
                ps_rows.append((i, t, r))
                last_ps[i] = r
                trace[-1]["s"] = r
                return
    ps_gaps.append((i, t))


# --------------------------------------------------------------------------
# Alg. 1
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OkitaParams:
    """Parameters of :func:`okita` (defaults: the paper's, with readings 1 and 8).

    Attributes
    ----------
    alpha1, alpha2
        Proportional factors of ``O_i(t)`` (Eq. (4)); the paper gives no
        values (Fig. 11 varies their ratio), default 1, 1.
    beta1, beta2, beta3
        Proportional factors of ``Q_i^r(t)`` (Eq. (6)); default 1, 1, 1.
    keep_ps_on_delay
        Reading 8: keep a PS for waiting and delayed jobs so the strict
        (2c) holds (default); ``False`` is line 19 as printed.
    printed_duration
        Reading 1: ``True`` uses the printed ``f_i(t + l_i - a_i)``.
    max_slots
        Safety bound on the slots simulated (default ``10 T + 1000``).
    """

    alpha1: float = 1.0
    alpha2: float = 1.0
    beta1: float = 1.0
    beta2: float = 1.0
    beta3: float = 1.0
    keep_ps_on_delay: bool = True
    printed_duration: bool = False
    max_slots: int | None = None

    @property
    def betas(self) -> dict[str, float]:
        """``beta1``, ``beta2``, ``beta3`` as keywords of :func:`q_metric`."""
        return {"beta1": self.beta1, "beta2": self.beta2, "beta3": self.beta3}


#: One job's tentative schedule (lines 4-10): plan, ``N``, ``l``, line 9's value.
_Tentative = tuple[_Plan, int, int, float]


class _Okita:
    """Alg. 1's state over the slots and its named steps (one run of :func:`okita`).

    Steps of one slot ``t`` (:meth:`slot`): :meth:`tentative` (lines 4-10)
    for every job of ``J_a``, :meth:`priority_order` (lines 11-12), then in
    that order :meth:`serve` (lines 13-29): :meth:`migrate_or_delay` on a
    conflict (lines 14-20), :meth:`commit` (lines 22-28) or reading 8's
    :meth:`keep_ps`.
    """

    def __init__(self, inst: OkitaInstance, p: OkitaParams) -> None:
        I_ = inst.n_jobs
        self.inst, self.p = inst, p
        self.betas = p.betas
        self.shift = 0 if p.printed_duration else 1
        self.piecewise = I_ > 0 and all(j.cost.kind == "piecewise" for j in inst.jobs)
        self.src = source_order(inst.q)
        self.M = inst.D.astype(np.int64).copy()
        self.total = inst.D.sum(axis=1)
        self.bstar = np.zeros(I_)
        self.done = np.zeros(I_, dtype=bool)
        self.completion = np.zeros(I_, dtype=np.int64)
        self.last_ps = np.full(I_, -1, dtype=np.int64)
        self.workers: list[tuple[int, int, int, int]] = []
        self.ps_rows: list[tuple[int, int, int]] = []
        self.data: list[tuple[int, int, int, int, int]] = []
        self.trace: list[dict[str, Any]] = []
        self.ps_gaps: list[tuple[int, int]] = []
        self.min_cost = 0.0

    def f(self, i: int, dur: float) -> float:
        """Latency cost ``f_i(dur)``."""
        return float(self.inst.jobs[i].cost(dur))

    def run(self) -> None:
        """Alg. 1's slot loop until every job completes (reading 9)."""
        inst = self.inst
        I_, T = inst.n_jobs, inst.n_slots
        limit = 10 * T + 1000 if self.p.max_slots is None else int(self.p.max_slots)
        active: list[int] = []
        nxt = 0
        t = 0
        while nxt < I_ or active:
            t += 1
            if t > limit:
                raise RuntimeError(
                    f"okita: jobs {active} unfinished after max_slots = {limit} slots"
                )
            while nxt < I_ and inst.jobs[nxt].arrival == t:  # line 3
                active.append(nxt)
                nxt += 1
            if not active:
                continue
            self.slot(t, active)
            active = [i for i in active if not self.done[i]]

    def slot(self, t: int, active: list[int]) -> None:
        """Lines 4-29 for slot ``t`` and the uncompleted jobs ``active``."""
        tent: dict[int, _Tentative] = {}
        for i in active:
            best = self.tentative(i, t)
            if best is not None:
                tent[i] = best
        order, prio = self.priority_order(t, active)
        Av = self.inst.capacity.copy()
        for i in order:  # lines 13-29
            self.serve(i, t, tent.get(i), prio[i], Av)

    def tentative(self, i: int, t: int) -> _Tentative | None:
        """Lines 4-10: job ``i``'s best ``N_i(t)`` on the full capacities."""
        inst, C = self.inst, self.inst.capacity
        Mi = int(self.M[i].sum())
        work = inst.epochs[i] * Mi / inst.rho[i]
        best: _Tentative | None = None
        placer = _Placer.prepare(
            C, C, inst.q, inst.pi[i], self.M[i], inst.D[i], inst.m[i], inst.n[i],
            self.betas,
        )  # fmt: skip
        for N in range(1, math.ceil(work - EPS) + 1):
            l = math.ceil(work / N - EPS)
            plan = _osf(inst, i, self.M[i], C, N, l, self.betas, placer, self.src)
            if not math.isfinite(plan.cost):
                continue
            est = plan.cost + self.f(i, t + l - self.shift - inst.arrival[i])
            if best is None or est < best[3]:
                best = (plan, N, l, est)
        return best

    def priority_order(
        self, t: int, active: list[int]
    ) -> tuple[list[int], dict[int, float]]:
        """Lines 11-12: ``J_a`` by decreasing ``O_i(t)`` and each job's ``O_i(t)``."""
        inst = self.inst
        O = priority(
            t,
            inst.arrival[active],
            np.array([inst.jobs[i].cost.tau for i in active]),
            self.M[active].sum(axis=1),
            self.total[active],
            alpha1=self.p.alpha1,
            alpha2=self.p.alpha2,
            c=(
                np.array([inst.jobs[i].cost.params[2] for i in active])
                if self.piecewise
                else None
            ),
        )
        order = [active[k] for k in sorted(range(len(active)), key=lambda k: -O[k])]
        prio = {i: float(O[k]) for k, i in enumerate(active)}
        return order, prio

    def serve(
        self, i: int, t: int, tent: _Tentative | None, prio: float, Av: np.ndarray
    ) -> None:
        """Lines 13-29 for job ``i``: place, migrate, delay or wait."""
        inst = self.inst
        row: dict[str, Any] = {"t": t, "job": i, "O": prio}
        self.trace.append(row)
        if tent is None:
            row.update(action="wait", M=self.M[i].tolist())
            self.keep_ps(i, t, Av)
            return
        plan, N, l, est = tent
        row.update(N=N, l=l, est=est, action="place")
        need = inst.m[i] * plan.y[:, None] + inst.n[i] * plan.s[:, None]
        if not _fits(Av, need):  # line 14
            mig = self.migrate_or_delay(i, t, N, l, Av, row)
            if mig is None:
                self.keep_ps(i, t, Av)
                return
            plan = mig
        self.commit(i, t, plan, Av, row)

    def migrate_or_delay(
        self, i: int, t: int, N: int, l: int, Av: np.ndarray, row: dict[str, Any]
    ) -> _Plan | None:
        """Lines 15-20: the migrated plan, or None to delay (reading 7)."""
        inst = self.inst
        mig = _osf(inst, i, self.M[i], Av, N, l, self.betas, src=self.src)  # line 15
        lat1 = self.f(i, t + l - self.shift - inst.arrival[i])
        cost1 = self.bstar[i] + mig.cost + lat1  # line 16
        cost2 = cost1 - lat1 + self.f(i, t + 2 * l - self.shift - inst.arrival[i])
        row.update(cost1=float(cost1), cost2=float(cost2))
        if cost1 > cost2 or not math.isfinite(mig.cost):  # lines 18-20
            row.update(action="delay", M=self.M[i].tolist())
            return None
        row["action"] = "migrate"
        return mig

    def keep_ps(self, i: int, t: int, Av: np.ndarray) -> None:
        """Reading 8 for a waiting or delayed job (:func:`_keep`)."""
        _keep(
            self.inst,
            i,
            t,
            Av,
            self.last_ps,
            self.p.keep_ps_on_delay,
            self.ps_rows,
            self.ps_gaps,
            self.trace,
        )

    def commit(
        self, i: int, t: int, plan: _Plan, Av: np.ndarray, row: dict[str, Any]
    ) -> None:
        """Lines 22-28: workload, DTA, ``Av`` and ``M_i^r`` updates, completion."""
        inst, M = self.inst, self.M
        d = workload(plan.y, M[i], inst.rho[i], int(inst.epochs[i]))
        bc2, g = dta(M[i], d, inst.q, inst.delta[i], order=self.src)
        ps_site = int(np.argmax(plan.s))
        exch = float(np.sum(inst.q[:, ps_site] * inst.pi[i] * plan.y))
        self.bstar[i] += bc2 + exch
        Av -= inst.m[i] * plan.y[:, None] + inst.n[i] * plan.s[:, None]
        for r in np.flatnonzero(plan.y):
            self.workers.append((i, t, int(r), int(plan.y[r])))
        self.ps_rows.append((i, t, ps_site))
        self.last_ps[i] = ps_site
        moves = [
            (int(a), int(b), int(g[a, b])) for a, b in zip(*np.nonzero(g), strict=True)
        ]
        for a, b, k in moves:
            self.data.append((i, t, a, b, k))
        M[i] -= g.sum(axis=1)
        row.update(
            y=plan.y.tolist(), s=ps_site, d=d.tolist(), moves=moves, M=M[i].tolist()
        )
        if M[i].sum() == 0:  # lines 25-28
            self.done[i] = True
            self.completion[i] = t
            self.min_cost += self.bstar[i] + self.f(i, t - inst.arrival[i])


def okita(
    inst: OkitaInstance, /, *, seed: int = 0, params: OkitaParams | None = None
) -> OkitaSchedule:
    """Run Okita (Alg. 1 with OSF, PA, DTA) on ``inst``.

    Parameters
    ----------
    inst
        The instance.
    seed
        Unused: the algorithm is deterministic (no random numbers); the
        seed is accepted for the common signature and recorded in ``meta``.
    params
        :class:`OkitaParams` (None: the defaults).

    Returns
    -------
    OkitaSchedule
        ``meta``: ``trace`` (one dict per job and slot: ``t``, ``job``,
        ``O``, ``N``, ``l``, ``est`` (line 9's value), ``action`` in
        ``place`` / ``migrate`` / ``delay`` / ``wait``, ``cost1``,
        ``cost2``, ``y``, ``s``, ``d``, ``moves`` ``(src, dst, chunks)``,
        ``M`` after the slot), ``completion`` (``t_i``), ``min_cost``
        (line 26, with the chosen duration reading), ``makespan``,
        ``horizon_exceeded``, ``ps_gaps``, ``ps_every_slot`` (the checker
        reading the schedule meets), ``params``.
    """
    p = resolve(params, OkitaParams, "okita")
    run = _Okita(inst, p)
    run.run()
    completion, ps_gaps = run.completion, run.ps_gaps
    makespan = int(completion.max()) if inst.n_jobs else 0
    sched = OkitaSchedule.build(
        run.workers, run.ps_rows, run.data, algorithm="okita", ps_gaps=ps_gaps
    )
    sched.meta.update(
        trace=run.trace,
        completion=completion,
        min_cost=float(run.min_cost),
        makespan=makespan,
        horizon_exceeded=makespan > inst.n_slots,
        ps_gaps=ps_gaps,
        ps_every_slot=not ps_gaps,
        params={
            "alpha1": p.alpha1,
            "alpha2": p.alpha2,
            **p.betas,
            "keep_ps_on_delay": p.keep_ps_on_delay,
            "printed_duration": p.printed_duration,
            "seed": seed,
        },
    )
    return sched
