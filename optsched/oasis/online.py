"""OASiS: primal-dual online admission and scheduling (Bao et al., Sec. IV).

Alg. 1 (``oasis``): on arrival of job ``i``, compute the best schedule ``l*``
and payoff ``mu_i`` with Alg. 2 under the current prices; admit iff
``mu_i > 0``, then add the job's usage to ``g_h^r(t)``, ``v_k^r(t)`` and reset
the touched prices with the price functions (22)::

    p_h^r(t) = L1 (U1^r / L1) ** (g_h^r(t) / c_h^r)
    q_k^r(t) = L2 (U2^r / L2) ** (v_k^r(t) / c_k^r)

Alg. 2 (:func:`best_schedule`): for every deadline ``t_hat = a_i..T`` take
the DP cost ``cost(t_hat, E_i N_i)`` with
``cost(t, D) = min_{0<=d<=D} COST_t(t, d) + cost(t - 1, D - d)``
(memoised over all ``(t, D)``), payoff ``f_i(t_hat - a_i) - cost``; keep the
first strictly best payoff (lines 5-6).  ``COST_t(t, d)`` deploys
``ceil(d M_i (tau_i + 2e_i/b_i))`` workers greedily on the cheapest servers
(per-worker price ``sum_r p_h^r(t) w_i^r``, residual capacity (30), cap
``N_i`` (3)) and then ``min(ceil(n b_i/B_i), n)`` parameter servers greedily
(31), (6), (7); infeasible -> +inf (lines 29-31, 36-38).

Proven bound (Theorem 4): OASiS is ``2 alpha``-competitive with
``alpha = max_r(1, ln(U1^r/L1), ln(U2^r/L2))`` (under ``w << c``).

Readings adopted where the print is ambiguous (docs/errata.md):

* (23)-(24) print ``f_i(ceil(E_i M_i (tau_i + 2e_i/b_i)) - a_i)``; we use the
  largest utility a schedule can reach, ``f_i(ceil(E_i M_i(...)) - 1)`` (the
  job runs ``ceil(E M (...))`` slots from ``a_i``), as Appendix A states.
* Resource types no job demands (e.g. GPU on PS servers) have no finite
  ``U^r``; their price is held at ``L`` (it multiplies zero demand anyway).
  A capacity of 0 keeps the price at ``L`` for the same reason.
* ``eta_1, eta_2``: the smallest values allowed by the text,
  ``1/eta = min(1, min_i ceil(E N M(...)) sum_r w_i^r / (T sum_h sum_r c_h^r))``.
* Servers with equal price keep their index order (stable sort).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from optsched.core.params import resolve

from .instance import OasisInstance, ceil_eps
from .schedule import OasisSchedule


@dataclass(frozen=True)
class PriceParams:
    """Parameters of the price functions (22)-(26), kept in log space.

    ``L`` is a minimum over ``f_i(T - a_i)``, the utility of finishing at the
    horizon, which for time-critical sigmoid jobs is ``~ gamma1 exp(-5 (T -
    a_i - gamma3))``: below the smallest double for ``T`` in the hundreds.
    The parameters are therefore computed and stored as logarithms (exactly,
    with ``log f = log gamma1 - log(1 + exp(gamma2 (d - gamma3)))``) and the
    prices (22) are evaluated as ``exp((1 - g/c) log L + (g/c) log U)``, so
    ``alpha = ln(U/L)`` stays finite and no price is NaN.  ``L1``/``U1`` are
    the plain values (``L`` may underflow to 0.0).

    Attributes
    ----------
    log_U1, log_U2
        ``ln U_1^r``, ``ln U_2^r`` (R,): largest per-unit-resource job utility
        (23)-(24).
    log_L1, log_L2
        ``ln L_1``, ``ln L_2`` (25)-(26).
    eta1, eta2
        Scaling factors of (25)-(26).
    ul_scale
        Factor applied to the ratios ``U/L`` (Fig. 6: estimates at 25%-400%).
    demanded1, demanded2
        Resource types some job demands on worker (PS) servers; the others
        have a constant price ``L`` (docs/errata.md).
    """

    log_U1: np.ndarray
    log_U2: np.ndarray
    log_L1: float
    log_L2: float
    eta1: float
    eta2: float
    ul_scale: float = 1.0
    demanded1: np.ndarray | None = None
    demanded2: np.ndarray | None = None

    @property
    def L1(self) -> float:
        """``L_1`` (may underflow to 0.0; use ``log_L1``)."""
        return math.exp(self.log_L1)

    @property
    def L2(self) -> float:
        """``L_2`` (may underflow to 0.0; use ``log_L2``)."""
        return math.exp(self.log_L2)

    @property
    def U1(self) -> np.ndarray:
        """``U_1^r``."""
        return np.exp(self.log_U1)

    @property
    def U2(self) -> np.ndarray:
        """``U_2^r``."""
        return np.exp(self.log_U2)

    @property
    def log_ul(self) -> float:
        """``max_r(ln U1^r/L1, ln U2^r/L2)`` over demanded resource types."""
        a = self.log_U1[self._mask(self.demanded1, self.log_U1)] - self.log_L1
        b = self.log_U2[self._mask(self.demanded2, self.log_U2)] - self.log_L2
        vals = np.concatenate((a, b))
        return float(vals.max()) if len(vals) else 0.0

    @staticmethod
    def _mask(m: np.ndarray | None, like: np.ndarray) -> np.ndarray:
        return np.ones(len(like), dtype=bool) if m is None else m

    @property
    def alpha(self) -> float:
        """``max_r(1, ln U1^r/L1, ln U2^r/L2)`` of Theorem 4."""
        return max(1.0, self.log_ul)

    @property
    def competitive_ratio(self) -> float:
        """``2 alpha`` (Theorem 4)."""
        return 2.0 * self.alpha

    def worker_price(self, used: np.ndarray, cap: np.ndarray) -> np.ndarray:
        """``p_h^r = L1 (U1^r/L1) ** (g/c)`` (22); resources on the last axis."""
        return log_price(self.log_L1, self.log_U1, used, cap)

    def ps_price(self, used: np.ndarray, cap: np.ndarray) -> np.ndarray:
        """``q_k^r = L2 (U2^r/L2) ** (v/c)`` (22); resources on the last axis."""
        return log_price(self.log_L2, self.log_U2, used, cap)


def price_params(
    inst: OasisInstance,
    *,
    ul_scale: float = 1.0,
    jobs: np.ndarray | None = None,
    eta: str = "smallest",
    floor: float | None = None,
) -> PriceParams:
    """Compute U, L, eta of (23)-(26) from the instance (all jobs known).

    ``ul_scale`` multiplies ``U^r / L`` (keeping ``L``) to model the
    inaccurate estimates of Fig. 6.  The other keywords select the readings
    of the named variants (:mod:`optsched.oasis.variants`); the defaults are
    the paper's literal reading used by :func:`oasis`:

    jobs
        Indices of the jobs the minima / maxima of (23)-(26) run over
        (default: all jobs).
    eta
        ``"smallest"``: ``1/eta = min(1, min_i X_i)``, the largest ``1/eta``
        the text allows (``X_i`` the right-hand side of the condition below
        (26)); ``"one"``: ``eta = 1``, the bound ``1/eta <= 1`` of
        Appendix A alone (ignores the per-job condition).
    floor
        A utility ``F`` that a feasible schedule earns (so ``F <= OPT``); then
        ``L = max(L, min(F / (4 T sum_h sum_r c_h^r), min_r U^r))`` per side,
        which keeps (33)-(35)'s ``D_0 <= OPT / 2``.
    """
    if not (ul_scale > 0):
        raise ValueError(f"ul_scale: must be > 0, got {ul_scale!r}")
    if eta not in ("smallest", "one"):
        raise ValueError(f"eta: must be 'smallest' or 'one', got {eta!r}")
    if floor is not None and not (floor >= 0):
        raise ValueError(f"floor: must be >= 0, got {floor!r}")
    T, R = inst.n_slots, inst.n_resources
    idx = np.arange(inst.n_jobs) if jobs is None else np.asarray(jobs, dtype=np.int64)
    if len(idx) == 0:
        zero = np.zeros(R)
        return PriceParams(zero, zero, 0.0, 0.0, 1.0, 1.0, ul_scale)
    log_fmax = np.array(
        [inst.jobs[i].log_utility(inst.min_duration[i] - 1) for i in idx]
    )
    log_fmin = np.array([inst.jobs[i].log_utility(T - inst.arrival[i]) for i in idx])
    total_work = ceil_eps(inst.work[idx]).astype(float)  # ceil(E N M (tau + 2e/b))

    def side(dem: np.ndarray, cap: np.ndarray):
        dem = dem[idx]
        inv_eta = 1.0
        if eta == "smallest":
            inv_eta = min(
                1.0, float(np.min(total_work * dem.sum(axis=1) / (T * cap.sum())))
            )
        eta_val = 1.0 / inv_eta
        log_L = float(
            np.min(log_fmin - np.log(total_work * dem.sum(axis=1)))
        ) - math.log(4.0 * eta_val)
        log_U = np.empty(R)
        demanded = (dem > 0).any(axis=0)
        for r in range(R):
            pos = dem[:, r] > 0
            if pos.any():
                log_U[r] = float(np.max(log_fmax[pos] - np.log(dem[pos, r])))
            else:
                log_U[r] = np.nan
        if floor is not None and floor > 0 and demanded.any():
            log_floor = math.log(floor) - math.log(4.0 * T * cap.sum())
            log_L = max(log_L, min(log_floor, float(np.min(log_U[demanded]))))
        log_U[demanded] += math.log(ul_scale)
        log_U[~demanded] = log_L
        return log_U, log_L, eta_val, demanded

    lu1, ll1, eta1, d1 = side(inst.w, inst.c_worker)
    lu2, ll2, eta2, d2 = side(inst.s, inst.c_ps)
    return PriceParams(lu1, lu2, ll1, ll2, eta1, eta2, ul_scale, d1, d2)


def log_price(
    log_L: float, log_U: np.ndarray, used: np.ndarray, cap: np.ndarray
) -> np.ndarray:
    """Price function (22) evaluated in log space: ``exp(ln L + (g/c) ln(U/L))``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(cap > 0, used / np.where(cap > 0, cap, 1.0), 0.0)
    return np.exp(log_L + frac * (log_U - log_L))


def price(L: float, U: np.ndarray, used: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Price function (22): ``L (U/L) ** (used/cap)``, per resource (last axis).

    For ``L > 0`` given as a plain number (teaching); the algorithm uses
    :meth:`PriceParams.worker_price`, which is exact when ``L`` underflows.
    """
    return log_price(math.log(L), np.log(U), used, cap)


def slot_cost_curve(
    inst: OasisInstance,
    i: int,
    p: np.ndarray,
    q: np.ndarray,
    g: np.ndarray,
    v: np.ndarray,
) -> np.ndarray:
    """Greedy cost of COST_t for ``n = 0..N_i`` workers in one slot.

    Parameters
    ----------
    p, q
        Prices ``p_h^r(t)`` (H, R) and ``q_k^r(t)`` (K, R) of the slot.
    g, v
        Allocated amounts ``g_h^r(t)`` (H, R) and ``v_k^r(t)`` (K, R); pass
        zeros for an empty cluster.

    Returns
    -------
    numpy.ndarray
        ``cost[n]`` (length ``N_i + 1``); ``inf`` where ``n`` workers or their
        ``min(ceil(n b/B), n)`` parameter servers cannot be placed.
    """
    Ni = int(inst.N[i])
    w, s = inst.w[i], inst.s[i]
    wcost = _sorted_unit_costs(p @ w, _caps(inst.c_worker - g, w), Ni)
    n = np.arange(Ni + 1)
    cost = np.full(Ni + 1, np.inf)
    ok = n < len(wcost) + 1
    cw = np.concatenate(([0.0], np.cumsum(wcost)))
    cost[ok] = cw[n[ok]]
    m = _ps_needed(inst, i, n)
    pcost = _sorted_unit_costs(q @ s, _caps(inst.c_ps - v, s), Ni)
    cp = np.concatenate(([0.0], np.cumsum(pcost)))
    feas = ok & (m <= len(pcost)) & (m * inst.B[i] >= n * inst.b[i] - 1e-9)
    cost[feas] += cp[m[feas]]
    cost[~feas] = np.inf
    return cost


def _caps(residual: np.ndarray, dem: np.ndarray) -> np.ndarray:
    """(30)/(31): ``min_r floor((c - g) / w)`` over resources with ``w > 0``."""
    pos = dem > 0
    with np.errstate(divide="ignore"):
        per = np.floor(residual[:, pos] / dem[pos] + 1e-9)
    return np.maximum(per.min(axis=1), 0).astype(np.int64)


def _sorted_unit_costs(unit: np.ndarray, caps: np.ndarray, limit: int) -> np.ndarray:
    """Unit prices of the greedy: servers in non-decreasing price, each ``cap`` times."""
    order = np.argsort(unit, kind="stable")
    return np.repeat(unit[order], caps[order])[:limit]


def _ps_needed(inst: OasisInstance, i: int, n: np.ndarray) -> np.ndarray:
    """Line 34: ``min(ceil(n b_i / B_i), n)`` parameter servers for ``n`` workers."""
    return np.minimum(ceil_eps(n * inst.b[i] / inst.B[i]), n)


def place(
    inst: OasisInstance,
    i: int,
    n: int,
    p: np.ndarray,
    q: np.ndarray,
    g: np.ndarray,
    v: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy placement of COST_t (lines 22-38) for ``n`` workers in one slot.

    Returns ``(y_h, z_k)``; the caller must have checked feasibility with
    :func:`slot_cost_curve`.
    """
    y = _fill(p @ inst.w[i], _caps(inst.c_worker - g, inst.w[i]), n)
    m = int(_ps_needed(inst, i, np.array([n]))[0])
    z = _fill(q @ inst.s[i], _caps(inst.c_ps - v, inst.s[i]), m)
    return y, z


def _fill(unit: np.ndarray, caps: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(len(unit), dtype=np.int64)
    for h in np.argsort(unit, kind="stable"):
        take = min(int(caps[h]), n)
        out[h] = take
        n -= take
        if n == 0:
            break
    if n > 0:
        raise RuntimeError("place(): infeasible deployment requested")
    return out


@dataclass(frozen=True)
class BestSchedule:
    """Output of Alg. 2 for one job.

    Attributes
    ----------
    payoff
        ``mu_i`` (0 when no schedule has positive payoff).
    deadline
        ``t_hat`` of ``l*`` (1-based), 0 when none.
    chunks
        ``d_t``: chunks trained per slot (T,) in ``l*``.
    workers, ps
        ``y_ih(t)`` (H, T) and ``z_ik(t)`` (K, T) of ``l*``.
    cost
        Resource cost of ``l*`` at the current prices.
    dp_cost
        ``cost(t, E_i N_i)`` for ``t = 1..T`` (inf before ``a_i``), the DP
        table's last column (useful for teaching).
    """

    payoff: float
    deadline: int
    chunks: np.ndarray
    workers: np.ndarray
    ps: np.ndarray
    cost: float
    dp_cost: np.ndarray


def best_schedule(
    inst: OasisInstance,
    i: int,
    p: np.ndarray,
    q: np.ndarray,
    g: np.ndarray,
    v: np.ndarray,
) -> BestSchedule:
    """Alg. 2: best schedule ``l*`` and payoff ``mu_i`` of job ``i``.

    Parameters
    ----------
    p, q
        Current prices (H, R, T) and (K, R, T).
    g, v
        Current allocations (H, R, T) and (K, R, T).
    """
    T = inst.n_slots
    a = int(inst.arrival[i])
    D = int(inst.E[i] * inst.N[i])
    theta = float(inst.chunk_time[i])
    H, K = inst.n_worker_servers, inst.n_ps_servers
    need = ceil_eps(np.arange(D + 1) * theta)  # workers for d chunks (line 24)
    dgrid = np.arange(D + 1)
    diff = dgrid[:, None] - dgrid[None, :]  # d - d'
    valid = diff >= 0
    diffc = np.where(valid, diff, 0)
    prev = np.full(D + 1, np.inf)
    prev[0] = 0.0
    arg = np.zeros((T + 1, D + 1), dtype=np.int64)  # arg[t, d] = d_t (chunks in t)
    last_col = np.full(T, np.inf)
    curves: dict[int, np.ndarray] = {}
    best_mu, best_t = 0.0, 0
    for t in range(a, T + 1):
        curve = slot_cost_curve(
            inst, i, p[:, :, t - 1], q[:, :, t - 1], g[:, :, t - 1], v[:, :, t - 1]
        )
        curves[t] = curve
        ct = np.full(D + 1, np.inf)
        fits = need < len(curve)
        ct[fits] = curve[need[fits]]
        A = np.where(valid, ct[None, :] + prev[diffc], np.inf)
        arg[t] = np.argmin(A, axis=1)
        prev = A[dgrid, arg[t]]
        last_col[t - 1] = prev[D]
        mu = inst.utility(i, t - a) - prev[D]
        if mu > best_mu:  # strict, first best wins (Alg. 2 lines 5-6)
            best_mu, best_t = float(mu), t
    chunks = np.zeros(T, dtype=np.int64)
    y = np.zeros((H, T), dtype=np.int64)
    z = np.zeros((K, T), dtype=np.int64)
    cost = 0.0
    if best_t:
        rem = D
        for t in range(best_t, a - 1, -1):
            d = int(arg[t, rem])
            chunks[t - 1] = d
            rem -= d
            n = int(need[d])
            if n:
                yt, zt = place(
                    inst,
                    i,
                    n,
                    p[:, :, t - 1],
                    q[:, :, t - 1],
                    g[:, :, t - 1],
                    v[:, :, t - 1],
                )
                y[:, t - 1], z[:, t - 1] = yt, zt
                cost += float(curves[t][n])
        assert rem == 0
    return BestSchedule(best_mu, best_t, chunks, y, z, cost, last_col)


@dataclass(frozen=True)
class OasisParams:
    """Parameters of :func:`oasis`.

    Attributes
    ----------
    ul_scale
        Multiply the ratios ``U^r/L`` by this factor (Fig. 6); ignored when
        ``prices`` is given.
    prices
        Price-function parameters to use (estimates); default (None)
        computed from the instance by (23)-(26).
    """

    ul_scale: float = 1.0
    prices: PriceParams | None = None


def oasis(
    inst: OasisInstance, /, *, seed: int = 0, params: OasisParams | None = None
) -> OasisSchedule:
    """OASiS (Alg. 1 with Alg. 2), jobs processed in arrival order.

    Parameters
    ----------
    inst
        The instance.
    seed
        Unused: the algorithm is deterministic.
    params
        :class:`OasisParams` (``ul_scale``, ``prices``; None: defaults).

    Returns
    -------
    OasisSchedule
        With ``payoff`` (``mu_i``), final ``worker_prices`` / ``ps_prices`` and
        ``meta`` holding ``params``, ``alpha``, per-job ``decision_time_s``.
    """
    p = resolve(params, OasisParams, "oasis")
    pp = p.prices if p.prices is not None else price_params(inst, ul_scale=p.ul_scale)
    return primal_dual(inst, [pp], np.zeros(inst.n_jobs, dtype=np.int64), "oasis")


def primal_dual(
    inst: OasisInstance,
    sets: list[PriceParams],
    which: np.ndarray,
    algorithm: str,
) -> OasisSchedule:
    """Alg. 1 with the price functions ``sets[which[i]]`` charged to job ``i``.

    :func:`oasis` passes one parameter set for every job (the paper); the
    named variants of :mod:`optsched.oasis.variants` pass other readings of
    (23)-(26), e.g. one set per job class.  All sets price the same
    allocations ``g``, ``v``.  The schedule's ``worker_prices`` /
    ``ps_prices`` are the final prices, the elementwise maximum over the
    sets when there are several (each set's own final prices are in
    ``meta["prices"]``, in the order of ``meta["param_sets"]``).
    """
    I, H, K, R, T = (
        inst.n_jobs,
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    which = np.asarray(which, dtype=np.int64)
    if (
        not sets
        or which.shape != (I,)
        or (I and not 0 <= which.min() <= which.max() < len(sets))
    ):
        raise ValueError(
            f"which: expected {I} indices into {len(sets)} price-parameter sets"
        )
    g = np.zeros((H, R, T))
    v = np.zeros((K, R, T))
    prices = [
        (
            np.repeat(
                pp.worker_price(np.zeros((H, R)), inst.c_worker)[:, :, None], T, axis=2
            ),
            np.repeat(pp.ps_price(np.zeros((K, R)), inst.c_ps)[:, :, None], T, axis=2),
        )
        for pp in sets
    ]
    sched = OasisSchedule.empty(inst, algorithm)
    payoff = np.zeros(I)
    times = np.zeros(I)
    for i in range(I):
        t0 = time.perf_counter()
        p, q = prices[which[i]]
        best = best_schedule(inst, i, p, q, g, v)
        payoff[i] = best.payoff
        if best.payoff > 0:  # Alg. 1 line 4
            sched.admitted[i] = True
            sched.workers[i] = best.workers
            sched.ps[i] = best.ps
            g += inst.w[i][None, :, None] * best.workers[:, None, :]
            v += inst.s[i][None, :, None] * best.ps[:, None, :]
            used = np.flatnonzero(best.workers.sum(axis=0) + best.ps.sum(axis=0))
            for pp, (ps_w, ps_p) in zip(sets, prices, strict=True):
                for t in used:  # lines 8, 10: reprice touched slots
                    ps_w[:, :, t] = pp.worker_price(g[:, :, t], inst.c_worker)
                    ps_p[:, :, t] = pp.ps_price(v[:, :, t], inst.c_ps)
        times[i] = time.perf_counter() - t0
    if len(prices) == 1:
        p_final, q_final = prices[0]
    else:
        p_final = np.maximum.reduce([p for p, _ in prices])
        q_final = np.maximum.reduce([q for _, q in prices])
    alpha = max(pp.alpha for pp in sets)
    meta: dict = {
        "params": sets[0] if len(sets) == 1 else None,
        "alpha": alpha,
        "decision_time_s": times,
    }
    if len(sets) > 1:
        meta.update(param_sets=sets, job_param_set=which, prices=prices)
    return OasisSchedule(
        admitted=sched.admitted,
        workers=sched.workers,
        ps=sched.ps,
        algorithm=algorithm,
        payoff=payoff,
        worker_prices=p_final,
        ps_prices=q_final,
        meta=meta,
    )
