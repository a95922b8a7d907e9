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

The matching and the constricted set skip only neighbours whose visit has
no effect in the reference (see :func:`_max_matching` and
:func:`_hall_violator`): a job's free slots read its tied workers from a
list instead of scanning the row, the cheap first pass resumes where the
job's previous free slot stopped (a matched worker never becomes free), a
search continues a job's free slots from the furthest tied worker already
seen, and the constricted set expands one free slot per job.

Three bookkeeping details differ in form only:

* the period signature (preferred graph, selected worker, step) is looked up
  by a 64-bit hash of the graph, the worker and the step and then compared exactly
  with the stored rounds;
* earlier rounds with the same signature are chained through
  ``rec_prev`` (the reference keeps a list per signature);
* the set of visited relative price vectors is kept as pairs of independent
  64-bit hashes of the integer vector (a false "repeat" needs a 128-bit
  collision).

The module is imported lazily; without numba the reference engine is used.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
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
def _demand(gamma, cat, tol, needed, tied, srt, tlist, ntied):
    """Fill needed/tied (S, K), the descending payoffs srt (S, K) and, per job,
    the tied workers in index order (``tlist[i, :ntied[i]]``)."""
    S, K = gamma.shape
    for i in range(S):
        row = np.sort(gamma[i])
        for j in range(K):
            srt[i, j] = row[K - 1 - j]
        theta = srt[i, cat[i] - 1]
        n = 0
        for k in range(K):
            g = gamma[i, k]
            needed[i, k] = g > theta + tol
            t = abs(g - theta) <= tol
            tied[i, k] = t
            if t:
                tlist[i, n] = k
                n += 1
        ntied[i] = n


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
def _next_nb(s, pos, slot_owner, slot_single, tlist, ntied):
    """Neighbour of slot ``s`` at scan position ``pos``: ``(worker, next pos)``.

    A needed slot has one neighbour; a free slot lists its job's tied
    workers in index order (``pos`` indexes that list).  ``worker == -1``
    when the neighbours are exhausted.
    """
    if slot_single[s] >= 0:
        if pos == 0:
            return slot_single[s], 1
        return -1, 1
    i = slot_owner[s]
    if pos < ntied[i]:
        return tlist[i, pos], pos + 1
    return -1, pos


@njit(cache=True)
def _max_matching(graph, K, ws_int, ws_job):
    """Port of ``online._max_matching`` (allocation-free, same visiting order).

    ``graph`` is ``(n_slots, slot_owner, slot_single, tlist, ntied, slot_to,
    worker_to)``; the matching is written into ``slot_to`` and ``worker_to``.

    Shortcuts skip only work whose outcome is known, so the matching is the
    same: (a) a worker never becomes free again once matched, so the cheap
    first pass of a job's free slots resumes where the previous free slot of
    that job stopped (``first[i]``); (b) within one search, every tied
    worker of job ``i`` before ``reach[i]`` (the furthest position any free
    slot of job ``i`` has scanned) is already seen, so free slots of job
    ``i`` continue from there; (c) the reference's ``dead`` set (workers of
    failed searches since the last augmentation) and ``seen`` are one array
    of search stamps: a worker is seen when its stamp is at least
    ``dead_from``, the first search after the last augmentation, so no
    O(K) copy per search; (d) after a failed search from a free slot of
    job ``i``, every tied worker of job ``i`` is dead until the next
    augmentation, so the later free slots of job ``i`` fail without
    searching (the reference's search visits nothing new and fails).
    """
    n_slots, slot_owner, slot_single, tlist, ntied, slot_to, worker_to = graph
    via = ws_int[0]
    stack_s = ws_int[1]
    stack_p = ws_int[2]
    stamp = ws_int[3]
    first = ws_job[0]
    reach = ws_job[1]
    failed = ws_job[3]
    S = first.shape[0]
    for s in range(n_slots):
        slot_to[s] = -1
    for w in range(K):
        worker_to[w] = -1
        stamp[w] = -1
    for i in range(S):
        first[i] = 0
        failed[i] = 0
    search = 0
    dead_from = 0
    for root in range(n_slots):
        single = slot_single[root] >= 0
        i_root = slot_owner[root]
        if not single and failed[i_root]:
            continue  # (d)
        pos = 0 if single else first[i_root]
        while True:  # cheap first pass: a free adjacent worker
            w, pos = _next_nb(root, pos, slot_owner, slot_single, tlist, ntied)
            if w < 0:
                break
            if worker_to[w] < 0:
                worker_to[w] = root
                slot_to[root] = w
                break
        if not single:
            first[i_root] = pos
        if slot_to[root] >= 0:
            continue
        for i in range(S):
            reach[i] = 0
        top = 0
        stack_s[0] = root
        stack_p[0] = 0
        found = -1
        while top >= 0:
            s = stack_s[top]
            pos = stack_p[top]
            free_slot = slot_single[s] < 0
            if free_slot:
                i = slot_owner[s]
                if pos < reach[i]:
                    pos = reach[i]
            w, nxt = _next_nb(s, pos, slot_owner, slot_single, tlist, ntied)
            if w < 0:
                top -= 1
                continue
            stack_p[top] = nxt
            if free_slot and nxt > reach[i]:
                reach[i] = nxt
            if stamp[w] >= dead_from:
                continue
            stamp[w] = search
            via[w] = s
            if worker_to[w] < 0:
                found = w
                break
            top += 1
            stack_s[top] = worker_to[w]
            stack_p[top] = 0
        search += 1
        if found < 0:  # the visited workers stay dead (stamps >= dead_from)
            if not single:
                failed[i_root] = 1
            continue
        dead_from = search  # augmentation: nothing is dead any more
        for i in range(S):
            failed[i] = 0
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
def _hall_violator(graph, K, ws_bool, ws_int, ws_job, s_c):
    """Lowest-index worker of N(X); the jobs owning X (sorted) in ``s_c``, their count.

    ``graph`` as in :func:`_max_matching`, after the matching.  Free slots of
    one job have the same neighbours, so only the first one reached is
    expanded (the others would add nothing to N(X)).
    """
    n_slots, slot_owner, slot_single, tlist, ntied, slot_to, worker_to = graph
    s0 = -1
    for s in range(n_slots):
        if slot_to[s] < 0:
            s0 = s
            break
    in_x = ws_bool[0]
    in_w = ws_bool[1]
    queue = ws_int[0]
    expanded = ws_job[2]
    S = expanded.shape[0]
    for i in range(S):
        expanded[i] = 0
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
        if slot_single[s] < 0:
            if expanded[slot_owner[s]]:
                continue
            expanded[slot_owner[s]] = 1
        pos = 0
        while True:
            w, pos = _next_nb(s, pos, slot_owner, slot_single, tlist, ntied)
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
def _sig_hash(needed, tied, k, step):
    """Hash of a round's signature (graph, selected worker, step).

    The step enters so that the chain of earlier rounds with the same hash
    (``rec_prev``) holds only true repeats up to collisions; without it,
    rounds differing only in their step chained together and each round
    walked them all.
    """
    h = np.uint64(14695981039346656037)
    S, K = needed.shape
    for i in range(S):
        for j in range(K):
            v = np.uint64(1) if needed[i, j] else np.uint64(0)
            if tied[i, j]:
                v += np.uint64(2)
            h = (h ^ v) * np.uint64(1099511628211)
    h = (h ^ np.uint64(k)) * np.uint64(1099511628211)
    # any deterministic function of step will do: equality is checked exactly
    h = (h ^ np.uint64(np.int64(step * 1024.0) & 0xFFFFFFFFFFFF)) * np.uint64(
        1099511628211
    )
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
    gamma = np.empty((S, K))
    for r in range(t0, t_end):
        p = rec_p[r]
        for i in range(S):
            for k in range(K):
                gamma[i, k] = rho[i, k] - p[k]
        for i in range(S):
            # the lowest-index worker holding theta_i (the reference's choice)
            theta = rec_srt[r, i, cat[i] - 1]
            v = 0
            while gamma[i, v] != theta:
                v += 1
            for w in range(K):
                delta = d[w] - d[v]
                if abs(delta) <= small:
                    continue
                s = gamma[i, w] - gamma[i, v]
                if abs(s) <= tol:
                    return 0
                o = s if delta > 0 else -s
                if o > tol:
                    lim = float(math.ceil((o - tol) / abs(delta))) - 1.0
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
                if gain > 1.0:
                    # the step is this gain: no payoff at or below Gamma_v
                    # may come within tol of it (port of online._catch_up)
                    for w in range(K):
                        if w == v:
                            continue
                        sw = gamma[i, w] - gamma[i, v]
                        rate = d[v] - d[w]
                        if sw <= 0 and rate > small:
                            o = -sw
                            if o <= tol:
                                return 0
                            lim = float(math.ceil((o - tol) / rate)) - 1.0
                            if lim < best:
                                best = lim
                                if best < 1:
                                    return 0
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


#: How many earlier rounds with the same signature are tried as the start of
#: a period (latest first).  Several are needed when a period is made of
#: sub-periods that share signatures (rotations through two worker classes).
_MAX_TRIES = 8


@njit(cache=True)
def _same_graph(needed_a, tied_a, needed_b, tied_b):
    S, K = needed_a.shape
    for i in range(S):
        for w in range(K):
            if needed_a[i, w] != needed_b[i, w] or tied_a[i, w] != tied_b[i, w]:
                return False
    return True


@njit(cache=True, nogil=True)
def market_core(rho, cat, tol, max_rounds, accelerate):
    """Run rule (22) to clearing or cycle.

    Compiled without the GIL, so :func:`optsched.hetero.online.markets` runs
    several categories at once on Python threads.

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
    ws_int = np.zeros((4, K + 1), dtype=np.int64)
    sc_buf = np.empty(S, dtype=np.int64)
    tlist = np.empty((S, K), dtype=np.int64)
    ntied = np.empty(S, dtype=np.int64)
    ws_job = np.zeros((4, S), dtype=np.int64)
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
    rec_prev = np.empty(cap, dtype=np.int64)  # earlier record, same signature hash
    n_rec = 0
    cycled = False
    while True:
        for i in range(S):
            for k in range(K):
                gamma[i, k] = rho[i, k] - p[k]
        _demand(gamma, cat, tol, needed, tied, srt, tlist, ntied)
        n_slots = _slots(needed, tied, cat, slot_owner, slot_single)
        # the job-slot graph of this round (slot_to / worker_to are filled in)
        graph = (n_slots, slot_owner, slot_single, tlist, ntied, slot_to, worker_to)
        _max_matching(graph, K, ws_int, ws_job)
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
        k, n_sc = _hall_violator(graph, K, ws_bool, ws_int, ws_job, sc_buf)
        s_c = sc_buf[:n_sc]
        step = 1.0
        for i in s_c:
            g = _gain(gamma, srt, cat[i], i, k)
            if g > step:
                step = g
        if accelerate:
            budget = max_rounds - rounds
            h = _sig_hash(needed, tied, k, step)
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
                rpv = np.empty(cap, dtype=np.int64)
                rpv[:n_rec] = rec_prev
                rec_prev = rpv
            rec_p[n_rec] = p
            rec_srt[n_rec] = srt
            rec_k[n_rec] = k
            rec_nsc[n_rec] = s_c.size
            rec_sc[n_rec, : s_c.size] = s_c
            rec_step[n_rec] = step
            rec_needed[n_rec] = needed
            rec_tied[n_rec] = tied
            rec_prev[n_rec] = index[h] if h in index else -1
            index[h] = n_rec
            n_rec += 1
            # earlier rounds with the same signature, latest first: the
            # first one whose period can be replayed n >= 1 times is used
            c = rec_prev[n_rec - 1]
            tries = 0
            jumped = False
            while c >= 0 and tries < _MAX_TRIES:
                if (
                    rec_k[c] == k
                    and rec_step[c] == step
                    and _same_graph(rec_needed[c], rec_tied[c], needed, tied)
                ):
                    tries += 1
                    m = n_rec - 1 - c
                    d = p - rec_p[c]
                    n = _periods(
                        rho,
                        cat,
                        tol,
                        rec_p,
                        rec_srt,
                        rec_k,
                        rec_sc,
                        rec_nsc,
                        c,
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
                        jumped = True
                        break
                c = rec_prev[c]
            if jumped:
                continue
        p[k] += step
        rounds += 1
    assignment = np.empty(K, dtype=np.int64)
    if not cycled:
        for w in range(K):
            assignment[w] = slot_owner[worker_to[w]]
    return p, rounds, cycled, assignment
