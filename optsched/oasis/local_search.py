"""Local search for OASiS (maximise total utility (1)): a better MIP start.

Moves on a schedule (every candidate then goes through :func:`~.check.check`
inside :func:`optsched.core.local_search.improve`):

* ``insert i`` -- admit a rejected job ``i`` into the residual capacity;
* ``reschedule i`` -- take an admitted job out and insert it again (it can
  only finish earlier: the insertion finds the earliest completion the
  residual capacity allows, the "shift earlier" move);
* ``swap j->i`` -- drop admitted job ``j``, insert rejected job ``i``, then
  insert ``j`` again if it still fits;
* ``reorder a,b`` -- take admitted jobs ``a`` and ``b`` out and insert ``b``
  first, then ``a``;
* ``ruin`` -- take 2 to :data:`RUIN_MAX` random admitted jobs out and
  insert them and every rejected job again, largest ``f_i^max / W_i``
  first (:data:`N_RUIN` random draws per neighbourhood, seeded);
* ``greedy`` (from a start only) -- rebuild from the empty cluster,
  inserting the jobs in the orders of :func:`greedy_orders`.

Insertion (:func:`insert`).  In slot ``t`` the largest number of workers
``n_max(t)`` job ``i`` can get in the residual capacity is
:func:`max_workers` (the last finite entry of
:func:`~.online.slot_cost_curve`: workers on (4), at most ``N_i`` (3),
``min(ceil(n b_i/B_i), n)`` parameter servers on (5), (6), (7));
feasibility is monotone in ``n``.  Constraint (2) asks only for
``W_i = ceil(E_i N_i M_i (tau_i + 2e_i/b_i))`` worker-slots in total, so
the earliest completion is the first ``t_hat >= a_i`` with ``sum_{t=a_i}
^{t_hat} n_max(t) >= W_i``, and ``f_i`` is non-increasing, so this is the
best utility job ``i`` can reach in that residual capacity.  Exactly
``W_i`` worker-slots are used, filled as late as possible up to ``t_hat``
(``late``), as early as possible (``early``), or up to the latest
completion that loses at most :data:`LAZY_SLACK` of that utility
(``lazy``: leaves room for other jobs); each slot is placed by
:func:`~.online.place` (servers in index order).
No surplus work and the fewest parameter servers, so the result also meets
the MILP's dominance rows (``models/oasis.py``: ``dom_no_surplus_work``,
``dom_min_ps``) for every job the search re-inserted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from optsched.core.local_search import SearchTrace
from optsched.core.local_search import improve as _improve

from .check import check
from .instance import OasisInstance, ceil_eps
from .online import place
from .schedule import OasisSchedule


def usage(
    inst: OasisInstance, sched: OasisSchedule, drop: Sequence[int] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """Allocated ``g_h^r(t)`` (H, R, T) and ``v_k^r(t)`` (K, R, T) of the
    admitted jobs, leaving out the jobs in ``drop``."""
    keep = np.asarray(sched.admitted, dtype=bool).copy()
    keep[list(drop)] = False
    y = np.asarray(sched.workers, dtype=float)[keep]
    z = np.asarray(sched.ps, dtype=float)[keep]
    g = np.einsum("iht,ir->hrt", y, inst.w[keep])
    v = np.einsum("ikt,ir->krt", z, inst.s[keep])
    return g, v


def max_workers(
    inst: OasisInstance, i: int, g: np.ndarray, v: np.ndarray
) -> np.ndarray:
    """Most workers job ``i`` can run in each slot, 0 where none fits.

    ``g`` (H, R, T) and ``v`` (K, R, T) are the other jobs' allocations.
    The rules of :func:`~.online.slot_cost_curve` (whose last finite entry
    is this number), for all slots at once: per server
    ``min_r floor((c - g) / w)`` over the demanded resources (30), (31); ``n
    <= N_i`` (3); ``m = min(ceil(n b_i / B_i), n)`` parameter servers must
    fit (5), (7) and carry the workers' bandwidth (6).  Feasibility is
    monotone in ``n``.
    """

    def caps(cap: np.ndarray, used: np.ndarray, dem: np.ndarray) -> np.ndarray:
        pos = dem > 0
        res = cap[:, pos, None] - used[:, pos, :]
        per = np.floor(res / dem[pos][None, :, None] + 1e-9).min(axis=1)
        return np.maximum(per, 0).astype(np.int64).sum(axis=0)  # (T,)

    n = np.arange(int(inst.N[i]) + 1)
    m = np.minimum(ceil_eps(n * inst.b[i] / inst.B[i]), n)
    bw = m * inst.B[i] >= n * inst.b[i] - 1e-9
    wcap = caps(inst.c_worker, g, inst.w[i])
    pcap = caps(inst.c_ps, v, inst.s[i])
    ok = bw[None, :] & (n[None, :] <= wcap[:, None]) & (m[None, :] <= pcap[:, None])
    return np.asarray(np.where(ok, n[None, :], 0).max(axis=1), dtype=np.int64)


#: Suffix of the ``algorithm`` name of a schedule the search produced.
SUFFIX = "+ls"
#: Insertion modes of :func:`insert` (module docstring).
MODES = ("late", "early", "lazy")
#: ``lazy`` insertion: the latest completion whose utility is at least
#: ``(1 - LAZY_SLACK)`` times the best one (measured on the 50-job setting:
#: greedy rebuilds 1-8% better than with the earliest completion).
LAZY_SLACK = 1e-6
#: Ruin-and-recreate moves per neighbourhood, and most jobs taken out by one.
N_RUIN, RUIN_MAX = 40, 5


def insert(
    inst: OasisInstance, i: int, g: np.ndarray, v: np.ndarray, *, mode: str = "late"
) -> tuple[np.ndarray, np.ndarray] | None:
    """Job ``i`` in the residual capacity, with exactly ``W_i`` worker-slots.

    Parameters
    ----------
    g, v
        Allocations (H, R, T) and (K, R, T) of the other jobs (not changed).
    mode
        ``"late"``: earliest completion ``t_hat``, worker-slots filled from
        ``t_hat`` backwards; ``"early"``: earliest completion, filled from
        ``a_i`` forwards; ``"lazy"``: the latest completion whose utility is
        within :data:`LAZY_SLACK` (relative) of the earliest one's, filled
        from it backwards (leaves room for other jobs; for a constant
        utility, the latest feasible completion).

    Returns
    -------
    tuple or None
        ``(y (H, T), z (K, T))``, or None when job ``i`` cannot finish by
        ``T``.
    """
    if mode not in MODES:
        raise ValueError(f"mode: must be one of {MODES}, got {mode!r}")
    T = inst.n_slots
    a = int(inst.arrival[i])
    need = int(ceil_eps(inst.work[i]))
    cap = np.concatenate(([0], max_workers(inst, i, g, v)))  # index = slot
    cap[:a] = 0
    done = np.flatnonzero((np.cumsum(cap) >= need) & (cap > 0))  # possible t_hat
    if not len(done):
        return None
    t_hat = int(done[0])
    if mode == "lazy":
        f = np.asarray(inst.utility(i, done - a), dtype=float)
        t_hat = int(done[f >= (1.0 - LAZY_SLACK) * f[0]].max())
    slots = range(a, t_hat + 1) if mode == "early" else range(t_hat, a - 1, -1)
    y = np.zeros((inst.n_worker_servers, T), dtype=np.int64)
    z = np.zeros((inst.n_ps_servers, T), dtype=np.int64)
    H, K, R = inst.n_worker_servers, inst.n_ps_servers, inst.n_resources
    zp, zq = np.zeros((H, R)), np.zeros((K, R))
    rem = need
    for t in slots:
        n = min(int(cap[t]), rem)
        if n:
            y[:, t - 1], z[:, t - 1] = place(
                inst, i, n, zp, zq, g[:, :, t - 1], v[:, :, t - 1]
            )
            rem -= n
        if rem == 0:
            break
    return y, z


def _rebuild(
    inst: OasisInstance,
    sched: OasisSchedule,
    drop: Sequence[int],
    add: Sequence[int],
    mode: str,
    first_must_fit: bool = True,
) -> OasisSchedule | None:
    """``sched`` with the jobs ``drop`` removed and then ``add`` inserted in order.

    A job of ``add`` that no longer fits stays rejected; None when the first
    job of ``add`` does not fit and ``first_must_fit`` (the move makes no
    sense then).
    """
    x = np.asarray(sched.admitted, dtype=bool).copy()
    y = np.asarray(sched.workers).copy()
    z = np.asarray(sched.ps).copy()
    x[list(drop)] = False
    y[list(drop)] = 0
    z[list(drop)] = 0
    g, v = usage(inst, sched, drop)
    for k, i in enumerate(add):
        got = insert(inst, i, g, v, mode=mode)
        if got is None:
            if k == 0 and first_must_fit:
                return None
            continue
        x[i] = True
        y[i], z[i] = got
        g += np.einsum("ht,r->hrt", got[0].astype(float), inst.w[i])
        v += np.einsum("kt,r->krt", got[1].astype(float), inst.s[i])
    name = (
        sched.algorithm
        if sched.algorithm.endswith(SUFFIX)
        else sched.algorithm + SUFFIX
    )
    return OasisSchedule(admitted=x, workers=y, ps=z, algorithm=name)


def greedy_orders(inst: OasisInstance) -> dict[str, np.ndarray]:
    """Job orders of the greedy rebuilds: largest ``f_i^max / W_i`` and
    largest ``f_i^max`` first (``f_i^max`` the utility at the shortest
    possible duration)."""
    fmax = np.array(
        [inst.utility(i, inst.min_duration[i] - 1) for i in range(inst.n_jobs)],
        dtype=float,
    ).reshape(-1)
    return {
        "utility/work": np.argsort(-fmax / inst.work, kind="stable"),
        "utility": np.argsort(-fmax, kind="stable"),
    }


def neighbours(
    inst: OasisInstance, sched: OasisSchedule, rng: np.random.Generator
) -> Iterator[tuple[str, OasisSchedule]]:
    """The moves of the module docstring, lazily, cheapest families first.

    For a start (a schedule the search did not produce) the greedy rebuilds
    from the empty cluster (:func:`greedy_orders`, ``lazy`` insertion) come
    first.  Within a family the order is shuffled by ``rng``; swaps are
    tried in decreasing ``f_i^max - u_j`` (best utility the rejected job
    can reach minus what the dropped job earns now).  Moves of several jobs
    insert them ``lazy``.
    """
    x = np.asarray(sched.admitted, dtype=bool)
    admitted = np.flatnonzero(x)
    rejected = np.flatnonzero(~x)
    if not sched.algorithm.endswith(SUFFIX):
        for name, order in greedy_orders(inst).items():
            c = _rebuild(inst, sched, range(inst.n_jobs), order.tolist(), "lazy", False)
            assert c is not None
            yield f"greedy {name}", c
    util = check(inst, sched).utility
    fmax = np.array(
        [inst.utility(i, inst.min_duration[i] - 1) for i in range(inst.n_jobs)]
    )
    for i in rng.permutation(rejected).tolist():
        for mode in MODES:
            c = _rebuild(inst, sched, (), (i,), mode)
            if c is not None:
                yield f"insert {i} {mode}", c
    for i in rng.permutation(admitted).tolist():
        for mode in ("late", "early"):
            c = _rebuild(inst, sched, (i,), (i,), mode)
            if c is not None:
                yield f"reschedule {i} {mode}", c
    by_ratio = greedy_orders(inst)["utility/work"]
    for _ in range(N_RUIN if len(admitted) else 0):
        k = int(rng.integers(2, RUIN_MAX + 1))
        out = rng.choice(admitted, size=min(k, len(admitted)), replace=False)
        back = by_ratio[np.isin(by_ratio, out) | ~x[by_ratio]]
        c = _rebuild(inst, sched, out.tolist(), back.tolist(), "lazy", False)
        assert c is not None
        yield f"ruin {sorted(out.tolist())}", c
    pairs = [(int(j), int(i)) for j in admitted for i in rejected]
    pairs = [pairs[k] for k in rng.permutation(len(pairs))]
    pairs.sort(key=lambda p: -(fmax[p[1]] - util[p[0]]))
    for j, i in pairs:
        c = _rebuild(inst, sched, (j,), (i, j), "lazy")
        if c is not None:
            yield f"swap {j}->{i}", c
    two = [(int(a), int(b)) for a in admitted for b in admitted if a != b]
    for k in rng.permutation(len(two)).tolist():
        a, b = two[k]
        c = _rebuild(inst, sched, (a, b), (b, a), "lazy")
        if c is not None:
            yield f"reorder {a},{b}", c


def improve(
    inst: OasisInstance,
    start: OasisSchedule | None = None,
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    strategy: str = "first",
    max_evaluations: int | None = None,
) -> tuple[OasisSchedule, SearchTrace]:
    """Local search from ``start`` (default: the empty schedule; the MIP
    start rule :func:`optsched.oasis.paper.default_start` passes the best
    checked online schedule).

    Parameters as :func:`optsched.core.local_search.improve`.  Returns the
    best checked schedule and the trace; its objective is never below the
    start's.
    """
    if start is None:
        start = OasisSchedule.empty(inst, "empty")
    return _improve(
        inst,
        start,
        neighbours=neighbours,
        evaluate=check,
        sense="max",
        time_limit=time_limit,
        seed=seed,
        strategy=strategy,
        max_evaluations=max_evaluations,
    )
