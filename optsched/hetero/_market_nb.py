"""Compiled engine of the matching market of Alg. 2 (numba).

A line-by-line port of the reference loop in :func:`optsched.hetero.online.market`
(``engine="python"``): the same preferred graph (job slots), the same
maximum matching (Kuhn's augmenting paths, slots in order, workers in index
order, the same "dead worker" pruning), the same constricted set (alternating
tree from the first unmatched slot), the same selected worker and step of
rule (22), the same cycle test on relative prices and the same exact period
fast-forward (:class:`optsched.hetero.online._PeriodFinder`).  Every
floating-point operation is the one of the reference, so both engines return
bit-identical prices, rounds and assignments (tested with hypothesis in
``tests/hetero/test_hetero_market_engine.py``).

Two bookkeeping details differ in form only:

* the period signature (preferred graph, selected worker, step) is looked up
  by a 64-bit hash of the graph and the worker and then compared exactly
  with the stored round (falling back to a scan on a hash collision);
* the set of visited relative price vectors is kept as pairs of independent
  64-bit hashes of the integer vector (a false "repeat" needs a 128-bit
  collision).

The module is imported lazily; without numba the reference engine is used.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.typed import Dict

_PAIR = types.UniTuple(types.int64, 2)
_INT = types.int64


@njit(cache=True)
def _hash_int_array(a, seed):
    h = np.uint64(seed)
    for x in a:
        h = (h ^ np.uint64(x & 0xFFFFFFFFFFFF)) * np.uint64(1099511628211)
        h = h ^ (h >> np.uint64(29))
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True)
def _demand(gamma, cat, tol, needed, tied, srt):
    """Fill needed/tied (S, K) and the descending payoffs srt (S, K)."""
    S, K = gamma.shape
    for i in range(S):
        row = np.sort(gamma[i])
        for j in range(K):
            srt[i, j] = row[K - 1 - j]
        theta = srt[i, cat[i] - 1]
        for k in range(K):
            g = gamma[i, k]
            needed[i, k] = g > theta + tol
            tied[i, k] = abs(g - theta) <= tol


@njit(cache=True)
def _slots(needed, tied, cat, slot_owner, slot_single):
    """Slots job by job: needed workers (single neighbour), then free slots (tied row)."""
    S, K = needed.shape
    s = 0
    for i in range(S):
        n_need = 0
        for k in range(K):
            if needed[i, k]:
                slot_owner[s] = i
                slot_single[s] = k
                s += 1
                n_need += 1
        for _ in range(cat[i] - n_need):
            slot_owner[s] = i
            slot_single[s] = -1
            s += 1
    return s


@njit(cache=True)
def _next_nb(s, pos, slot_owner, slot_single, tied, K):
    """Neighbour of slot ``s`` at scan position ``pos``: ``(worker, next pos)``.

    A needed slot has one neighbour; a free slot scans its job's tied workers
    in index order.  ``worker == -1`` when the neighbours are exhausted.
    """
    if slot_single[s] >= 0:
        if pos == 0:
            return slot_single[s], 1
        return -1, 1
    i = slot_owner[s]
    k = pos
    while k < K and not tied[i, k]:
        k += 1
    if k < K:
        return k, k + 1
    return -1, K


@njit(cache=True)
def _max_matching(
    n_slots, slot_owner, slot_single, tied, K, slot_to, worker_to, ws_bool, ws_int
):
    """Port of ``online._max_matching`` (allocation-free, same visiting order)."""
    dead = ws_bool[0]
    seen = ws_bool[1]
    via = ws_int[0]
    stack_s = ws_int[1]
    stack_p = ws_int[2]
    for s in range(n_slots):
        slot_to[s] = -1
    for w in range(K):
        worker_to[w] = -1
        dead[w] = False
    for root in range(n_slots):
        pos = 0
        while True:  # cheap first pass: a free adjacent worker
            w, pos = _next_nb(root, pos, slot_owner, slot_single, tied, K)
            if w < 0:
                break
            if worker_to[w] < 0:
                worker_to[w] = root
                slot_to[root] = w
                break
        if slot_to[root] >= 0:
            continue
        for w in range(K):
            seen[w] = dead[w]
        top = 0
        stack_s[0] = root
        stack_p[0] = 0
        found = -1
        while top >= 0:
            s = stack_s[top]
            w, nxt = _next_nb(s, stack_p[top], slot_owner, slot_single, tied, K)
            if w < 0:
                top -= 1
                continue
            stack_p[top] = nxt
            if seen[w]:
                continue
            seen[w] = True
            via[w] = s
            if worker_to[w] < 0:
                found = w
                break
            top += 1
            stack_s[top] = worker_to[w]
            stack_p[top] = 0
        if found < 0:
            for w in range(K):
                dead[w] = seen[w]
            continue
        for w in range(K):
            dead[w] = False
        w = found
        while True:
            s = via[w]
            prev = slot_to[s]
            slot_to[s] = w
            worker_to[w] = s
            if s == root:
                break
            w = prev


@njit(cache=True)
def _hall_violator(
    n_slots, slot_owner, slot_single, tied, slot_to, worker_to, K, ws_bool, ws_int, s_c
):
    """Lowest-index worker of N(X); the jobs owning X (sorted) in ``s_c``, their count."""
    s0 = -1
    for s in range(n_slots):
        if slot_to[s] < 0:
            s0 = s
            break
    in_x = ws_bool[0]
    in_w = ws_bool[1]
    queue = ws_int[0]
    for s in range(n_slots):
        in_x[s] = False
    for w in range(K):
        in_w[w] = False
    queue[0] = s0
    in_x[s0] = True
    qlen = 1
    q = 0
    while q < qlen:
        s = queue[q]
        q += 1
        pos = 0
        while True:
            w, pos = _next_nb(s, pos, slot_owner, slot_single, tied, K)
            if w < 0:
                break
            if in_w[w]:
                continue
            in_w[w] = True
            s2 = worker_to[w]
            if not in_x[s2]:
                in_x[s2] = True
                queue[qlen] = s2
                qlen += 1
    k = -1
    for w in range(K):
        if in_w[w]:
            k = w
            break
    S = tied.shape[0]
    n = 0
    for i in range(S):
        for j in range(qlen):
            if slot_owner[queue[j]] == i:
                s_c[n] = i
                n += 1
                break
    return k, n


@njit(cache=True)
def _gain(gamma, srt, n, i, k):
    g_k = gamma[i, k]
    if n < gamma.shape[1] and g_k >= srt[i, n - 1]:
        return g_k - srt[i, n]
    return 0.0


@njit(cache=True)
def _sig_hash(needed, tied, k):
    h = np.uint64(14695981039346656037)
    S, K = needed.shape
    for i in range(S):
        for j in range(K):
            v = np.uint64(1) if needed[i, j] else np.uint64(0)
            if tied[i, j]:
                v += np.uint64(2)
            h = (h ^ v) * np.uint64(1099511628211)
    h = (h ^ np.uint64(k)) * np.uint64(1099511628211)
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True)
def _periods(rho, cat, tol, rec_p, rec_srt, rec_k, rec_sc, rec_nsc, t0, t_end, d):
    """Port of ``_PeriodFinder._periods`` over records ``t0 .. t_end - 1``.

    The reference returns 0 as soon as a relation is tied and otherwise
    ``min(lims)`` (0 when below 1); this port also stops as soon as the
    running minimum drops below 1, which cannot change the result.
    """
    S, K = rho.shape
    any_pos = False
    for w in range(K):
        if d[w] > tol:
            any_pos = True
            break
    if not any_pos:
        return 0
    best = math.inf
    small = tol * 1e-3
    # pairs (w, v) whose payoff difference Gamma_w - Gamma_v falls by
    # delta = d_w - d_v > 0 per period; the pair (v, w) gives the same
    # oriented difference and rate, so it is skipped
    pw = np.empty(K * K, dtype=np.int64)
    pv = np.empty(K * K, dtype=np.int64)
    prate = np.empty(K * K)
    npairs = 0
    for w in range(K):
        for v in range(K):
            delta = d[w] - d[v]
            if delta > small:
                pw[npairs] = w
                pv[npairs] = v
                prate[npairs] = delta
                npairs += 1
    gamma = np.empty((S, K))
    for r in range(t0, t_end):
        p = rec_p[r]
        for i in range(S):
            for k in range(K):
                gamma[i, k] = rho[i, k] - p[k]
        for j in range(npairs):
            w = pw[j]
            v = pv[j]
            rate = prate[j]
            for i in range(S):
                s = gamma[i, w] - gamma[i, v]
                if abs(s) <= tol:
                    return 0
                if s > tol:
                    lim = float(math.ceil((s - tol) / rate)) - 1.0
                    if lim < best:
                        best = lim
                        if best < 1:  # the result is 0 whatever follows
                            return 0
        k = rec_k[r]
        for j in range(rec_nsc[r]):
            i = rec_sc[r, j]
            n_i = cat[i]
            if n_i >= K:
                continue
            # positions n_i - 1 and n_i of job i's payoffs in the reference's
            # stable descending argsort: the values from the sorted payoffs of
            # that round; the worker at position n_i is, among the workers
            # with payoff x, the (n_i - #{payoff > x})-th lowest index
            if gamma[i, k] < rec_srt[r, i, n_i - 1]:
                continue
            x = rec_srt[r, i, n_i]
            rank = n_i
            for w in range(K):
                if gamma[i, w] > x:
                    rank -= 1
            v = -1
            for w in range(K):
                if gamma[i, w] == x:
                    if rank == 0:
                        v = w
                        break
                    rank -= 1
            gain = gamma[i, k] - gamma[i, v]
            dd = d[k] - d[v]
            if abs(dd) <= small:
                continue
            if gain > 1.0:
                return 0
            if dd < 0:
                lim = float(math.floor((1.0 - gain) / -dd))
                if lim < best:
                    best = lim
                    if best < 1:
                        return 0
    if best < 1:
        return 0
    return int(min(best, 1e15))


@njit(cache=True)
def market_core(rho, cat, tol, max_rounds, accelerate):
    """Run rule (22) to clearing or cycle.

    Returns ``(prices, rounds, cycled, assignment)``; ``assignment`` is only
    meaningful when ``cycled`` is False.
    """
    S, K = rho.shape
    grid = 1e3 * tol
    p = np.zeros(K)
    rounds = 0
    gamma = np.empty((S, K))
    srt = np.empty((S, K))
    needed = np.zeros((S, K), dtype=np.bool_)
    tied = np.zeros((S, K), dtype=np.bool_)
    slot_owner = np.empty(K, dtype=np.int64)
    slot_single = np.empty(K, dtype=np.int64)
    slot_to = np.empty(K, dtype=np.int64)
    worker_to = np.empty(K, dtype=np.int64)
    key = np.empty(K, dtype=np.int64)
    ws_bool = np.zeros((2, K), dtype=np.bool_)
    ws_int = np.zeros((3, K + 1), dtype=np.int64)
    sc_buf = np.empty(S, dtype=np.int64)
    seen = Dict.empty(key_type=_PAIR, value_type=_INT)
    # period finder records (since its last reset)
    index = Dict.empty(key_type=_INT, value_type=_INT)
    cap = 64
    rec_p = np.empty((cap, K))
    rec_srt = np.empty((cap, S, K))
    rec_k = np.empty(cap, dtype=np.int64)
    rec_sc = np.empty((cap, S), dtype=np.int64)
    rec_nsc = np.empty(cap, dtype=np.int64)
    rec_step = np.empty(cap)
    rec_needed = np.empty((cap, S, K), dtype=np.bool_)
    rec_tied = np.empty((cap, S, K), dtype=np.bool_)
    n_rec = 0
    cycled = False
    while True:
        for i in range(S):
            for k in range(K):
                gamma[i, k] = rho[i, k] - p[k]
        _demand(gamma, cat, tol, needed, tied, srt)
        n_slots = _slots(needed, tied, cat, slot_owner, slot_single)
        _max_matching(
            n_slots,
            slot_owner,
            slot_single,
            tied,
            K,
            slot_to,
            worker_to,
            ws_bool,
            ws_int,
        )
        complete = True
        for s in range(n_slots):
            if slot_to[s] < 0:
                complete = False
                break
        if complete:
            break
        pmin = p.min()
        for w in range(K):
            key[w] = np.int64(np.rint((p[w] - pmin) / grid))
        hk = (_hash_int_array(key, 1469598103934665603), _hash_int_array(key, 7))
        if hk in seen or rounds >= max_rounds:
            cycled = True
            break
        seen[hk] = 1
        k, n_sc = _hall_violator(
            n_slots,
            slot_owner,
            slot_single,
            tied,
            slot_to,
            worker_to,
            K,
            ws_bool,
            ws_int,
            sc_buf,
        )
        s_c = sc_buf[:n_sc]
        step = 1.0
        for i in s_c:
            g = _gain(gamma, srt, cat[i], i, k)
            if g > step:
                step = g
        if accelerate:
            budget = max_rounds - rounds
            h = _sig_hash(needed, tied, k)
            t0 = -1
            if h in index:
                c = index[h]
                same = rec_k[c] == k and rec_step[c] == step
                if same:
                    for i in range(S):
                        for w in range(K):
                            if (
                                rec_needed[c, i, w] != needed[i, w]
                                or rec_tied[c, i, w] != tied[i, w]
                            ):
                                same = False
                if same:
                    t0 = c
                else:  # hash collision: exact scan for the latest equal record
                    for c2 in range(n_rec - 1, -1, -1):
                        if rec_k[c2] != k or rec_step[c2] != step:
                            continue
                        eq = True
                        for i in range(S):
                            for w in range(K):
                                if (
                                    rec_needed[c2, i, w] != needed[i, w]
                                    or rec_tied[c2, i, w] != tied[i, w]
                                ):
                                    eq = False
                        if eq:
                            t0 = c2
                            break
            index[h] = n_rec
            if n_rec == cap:
                cap *= 2
                rp = np.empty((cap, K))
                rp[:n_rec] = rec_p
                rec_p = rp
                rsr = np.empty((cap, S, K))
                rsr[:n_rec] = rec_srt
                rec_srt = rsr
                rk = np.empty(cap, dtype=np.int64)
                rk[:n_rec] = rec_k
                rec_k = rk
                rs = np.empty((cap, S), dtype=np.int64)
                rs[:n_rec] = rec_sc
                rec_sc = rs
                rn = np.empty(cap, dtype=np.int64)
                rn[:n_rec] = rec_nsc
                rec_nsc = rn
                rst = np.empty(cap)
                rst[:n_rec] = rec_step
                rec_step = rst
                rnd = np.empty((cap, S, K), dtype=np.bool_)
                rnd[:n_rec] = rec_needed
                rec_needed = rnd
                rtd = np.empty((cap, S, K), dtype=np.bool_)
                rtd[:n_rec] = rec_tied
                rec_tied = rtd
            rec_p[n_rec] = p
            rec_srt[n_rec] = srt
            rec_k[n_rec] = k
            rec_nsc[n_rec] = s_c.size
            rec_sc[n_rec, : s_c.size] = s_c
            rec_step[n_rec] = step
            rec_needed[n_rec] = needed
            rec_tied[n_rec] = tied
            n_rec += 1
            if t0 >= 0:
                m = n_rec - 1 - t0
                d = p - rec_p[t0]
                n = _periods(
                    rho,
                    cat,
                    tol,
                    rec_p,
                    rec_srt,
                    rec_k,
                    rec_sc,
                    rec_nsc,
                    t0,
                    n_rec - 1,
                    d,
                )
                n = min(n, budget // m)
                if n >= 1:
                    index = Dict.empty(key_type=_INT, value_type=_INT)
                    n_rec = 0
                    for w in range(K):
                        p[w] += n * d[w]
                    rounds += n * m
                    continue
        p[k] += step
        rounds += 1
    assignment = np.empty(K, dtype=np.int64)
    if not cycled:
        for w in range(K):
            assignment[w] = slot_owner[worker_to[w]]
    return p, rounds, cycled, assignment


def _many(rho, cats, tol, max_rounds, accelerate):  # pragma: no cover - compiled below
    M = cats.shape[0]
    K = rho.shape[1]
    prices = np.empty((M, K))
    rounds = np.empty(M, dtype=np.int64)
    cycled = np.empty(M, dtype=np.bool_)
    assignment = np.empty((M, K), dtype=np.int64)
    for j in prange(M):
        p, r, c, a = market_core(rho, cats[j], tol, max_rounds[j], accelerate)
        prices[j] = p
        rounds[j] = r
        cycled[j] = c
        assignment[j] = a
    return prices, rounds, cycled, assignment


#: :func:`market_core` over the rows of ``cats`` (categories), spread over
#: numba's threads (``prange``).
market_many_parallel = njit(cache=True, parallel=True)(_many)
