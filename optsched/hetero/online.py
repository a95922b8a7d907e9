"""HAS: feasible-solution categories (Alg. 1) and matching markets (Alg. 2).

Liu, Wang, Huang, Pan, "Sampling-Based Multi-Job Placement for Heterogeneous
Deep Learning Clusters", IEEE TPDS 2024, Sec. IV-C to IV-E.

Alg. 1 (:func:`enumerate_categories`) lists
``Psi = {(K_1, ..., K_S) : sum_i K_i = K, K_i >= 1}`` (``|Psi| = C(K-1, S-1)``)
in the paper's order: ``K_2`` is a counter running from 1 to
``K_hat_2`` (15), and ``K_i`` (``i >= 3``) advances whenever ``K_{i-1}`` wraps
back to 1; ``K_1 = K - sum_{j >= 2} K_j``.  Equivalently: ascending
lexicographic order of ``(K_S, K_{S-1}, ..., K_2)``.
:func:`categories_array` builds the same list as an array.

Alg. 2 (:func:`has`) solves, for every category, the throughput maximisation
P3 (18) s.t. (17) with a matching market (sellers = workers, buyers = jobs):
payoffs ``Gamma_{i,k} = rho_{i,k} - p_k`` (19), (23); while the preferred graph
has a constricted set, select a worker ``k`` in it and raise (22)::

    p_k <- p_k + max{1, max_{i in S_c} (V_i - V_i^k)},
    V_i = sum_top(Gamma_i, K_i) (20),  V_i^k = sum_top(Gamma_i minus Gamma_{i,k}, K_i) (21).

When the market clears, the placement of the category is read off the
preferred graph, its average JCT (8) is computed with the proportional split
(12), and the category with the lowest JCT wins (line 17, strict ``<``: the
first category in Alg. 1 order wins ties).

Claimed properties: Theorem 1 (the pricing terminates within ``P_max`` (28)
rounds) and Theorem 2 (the placement of every category maximises P3).
Theorem 1 fails for fractional throughputs (see :func:`market` and
docs/errata.md); with integer throughputs no counter-example is known and
the tests check termination within ``P_max`` rounds.  Theorem 2 holds for
every market that clears.  HAS itself has no JCT guarantee (Table II: 6.0%
above the optimum).

Readings adopted (docs/hetero.md, docs/errata.md)
-------------------------------------------------
* **Preferred graph of a job that needs ``K_i`` workers.**  Let ``theta_i`` be
  the ``K_i``-th largest payoff of job ``i``.  Job ``i`` demands a *set*: the
  workers with payoff strictly above ``theta_i`` are *needed*, those tied at
  ``theta_i`` are interchangeable, and any ``K_i`` - #needed of them complete
  the set.  The market clears when every job can hold one of its demanded
  sets at once, i.e. when the bipartite graph of job *slots* (one slot per
  needed worker, adjacent to that worker only, plus ``K_i`` - #needed free
  slots adjacent to the tied workers) has a perfect matching.
* **Constricted set.**  Otherwise, from the first unmatched slot of a maximum
  matching the alternating tree gives a Hall violator: a set ``X`` of slots
  whose neighbourhood ``K_c`` has ``|X| - 1`` workers.  ``S_c`` are the jobs
  owning the slots of ``X``.  Alg. 2 line 6 "select ``k in K_c``" takes the
  lowest-index worker.  (22) prints ``max_{i in K_c}``; Alg. 2 line 7-11 take
  it over ``i in S_c``, which is what we use.
* **Prices are reset to 0 for every category** (the pseudo-code initialises
  ``p_k`` once before the loop over ``Psi`` but resets ``Gamma_i <- rho_i`` at
  line 2, which is only consistent with ``p = 0``).
* **Ties** are payoffs within ``tol`` (default ``1e-9 max(1, max rho)``) of
  ``theta_i``, to absorb floating-point error in ``rho - p``.

With these readings every terminal state is optimal for P3 (first welfare
theorem: every job holds a set maximising ``sum_{k} Gamma_{i,k}``, all workers
are sold, so the prices cancel in any comparison) -- Theorem 2 -- and the
prices attain the dual function ``D(p) = P3`` (an optimal dual of P3 with
the bounds ``x <= 1`` explicit; see ``optsched.models.hetero``, tested).  Two simpler readings fail: per-slot arg-max
preferences never clear with real-valued throughputs, and "top ``K_i`` with
ties" without the needed workers stops at sub-optimal allocations (Table II's
``{1, 3}`` row: VGG-19 on {T4, T4, V100}, 4,166 samples/s instead of 4,667).

Alg. 3 (:func:`jps`, Sec. V-B) samples ``N`` categories of the rear part of
``Psi`` after job prioritising and selects one by rule (34), trading the
average JCT against the fairness degree (33); its readings of (32) and of
the sampling range are stated above :func:`category_at`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from optsched.core.params import resolve

from .instance import HeteroInstance
from .jct import assignment_stats, avg_jct, comm_latency, job_jct
from .schedule import HeteroPlacement

# ---------------------------------------------------------------------------
# Alg. 1: systematic enumeration of the feasible solution categories
# ---------------------------------------------------------------------------


def n_categories(n_workers: int, n_jobs: int) -> int:
    """``|Psi| = C(K - 1, S - 1)`` (stars and bars)."""
    return math.comb(n_workers - 1, n_jobs - 1)


def _check_ks(n_workers: int, n_jobs: int) -> None:
    if n_jobs < 1 or n_workers < n_jobs:
        raise ValueError(f"need 1 <= S <= K, got S = {n_jobs}, K = {n_workers}")


def enumerate_categories(n_workers: int, n_jobs: int) -> Iterator[tuple[int, ...]]:
    """Alg. 1: yield every category ``(K_1, ..., K_S)`` of ``Psi`` in the paper's order.

    Line by line: start from ``(K - S + 1, 1, ..., 1)``; after emitting a
    category, ``K_2 <- K_2 + 1`` if ``K_2 < K_hat_2`` else 1; for
    ``i = 3..S``, if ``K_{i-1}`` was just set to 1, ``K_i <- K_i + 1`` if
    ``K_i < K_hat_i`` else 1, with ``K_hat_i = K - (i - 1) - sum_{j > i} K_j``
    (15); finally ``K_1 = K - sum_{j >= 2} K_j``.  The loop of Alg. 1 stops at
    the first category already in ``Psi``; the counter is a single cycle
    through ``Psi``, so that is the initial category, which is what is tested
    here (no set of seen categories is kept).
    """
    K, S = int(n_workers), int(n_jobs)
    _check_ks(K, S)
    if S == 1:
        yield (K,)
        return
    start = [K - S + 1] + [1] * (S - 1)
    cur = list(start)
    while True:
        yield tuple(cur)
        wrapped = True  # K_2 always advances
        for i in range(2, S + 1):  # paper's 1-based job index
            if not wrapped:
                break
            j = i - 1
            hat = K - (i - 1) - sum(cur[j + 1 :])
            if cur[j] < hat:
                cur[j] += 1
                wrapped = False
            else:
                cur[j] = 1
        cur[0] = K - sum(cur[1:])
        if cur == start:
            return


def categories_array(n_workers: int, n_jobs: int) -> np.ndarray:
    """All of ``Psi`` as an ``(|Psi|, S)`` int array in Alg. 1 order (vectorised).

    Stars and bars: the ``S - 1`` cut points ``c_1 < ... < c_{S-1}`` in
    ``1..K-1`` give ``K_1 = c_1``, ``K_j = c_j - c_{j-1}``,
    ``K_S = K - c_{S-1}``; the rows are then sorted by ``(K_S, ..., K_2)``.
    """
    K, S = int(n_workers), int(n_jobs)
    _check_ks(K, S)
    if S == 1:
        return np.array([[K]], dtype=np.int64)
    n = n_categories(K, S)
    cuts = np.fromiter(
        (c for comb in combinations(range(1, K), S - 1) for c in comb),
        dtype=np.int64,
        count=n * (S - 1),
    ).reshape(n, S - 1)
    edges = np.concatenate(
        [np.zeros((n, 1), np.int64), cuts, np.full((n, 1), K, np.int64)], axis=1
    )
    parts = np.diff(edges, axis=1)
    order = np.lexsort(tuple(parts[:, j] for j in range(1, S)))
    return parts[order]


# ---------------------------------------------------------------------------
# Alg. 2: matching market for one category
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MarketResult:
    """Outcome of the pricing loop of Alg. 2 (lines 2-16) for one category.

    Attributes
    ----------
    category
        ``(K_1, ..., K_S)``.
    assignment
        Job of every worker (K,) read off the cleared preferred graph.
    prices
        Final prices ``p_k`` (K,): market-clearing prices, hence
        ``dual_value(rho, category, prices) == P3`` (the dual of P3 with
        explicit bounds ``x <= 1``; ``optsched.models.hetero``).
    rounds
        Number of price rises (iterations of the while loop); for a market
        that did not clear, the rises made until that was detected.
    throughput
        ``V_i = sum_{k in kappa_i} rho_{i,k}`` (13) per job on the market's
        ``rho``.
    cleared
        True when rule (22) cleared the market; False when it cycled and the
        category was solved exactly instead (``on_cycle="exact"``).
    """

    category: tuple[int, ...]
    assignment: np.ndarray
    prices: np.ndarray
    rounds: int
    throughput: np.ndarray
    cleared: bool = True

    @property
    def total(self) -> float:
        """Objective of P3 (18): ``sum_i V_i``."""
        return float(self.throughput.sum())


def sum_top(values: np.ndarray, n: int) -> float:
    """``sum_top(Gamma, n)``: sum of the ``n`` largest entries (20)."""
    v = np.asarray(values, dtype=float)
    if n <= 0:
        return 0.0
    if n >= v.size:
        return float(v.sum())
    return float(np.sort(v)[-n:].sum())


def _demand_graph(
    gamma: np.ndarray, category: Sequence[int], tol: float
) -> tuple[list[list[int]], list[int], np.ndarray]:
    """Job slots of the preferred graph: adjacency lists, owning job, sorted payoffs.

    Slots are listed job by job: first one slot per needed worker (payoff
    strictly above ``theta_i``, adjacent to that worker only), then
    ``K_i`` - #needed free slots adjacent to the workers tied at ``theta_i``.
    """
    S, K = gamma.shape
    srt = np.sort(gamma, axis=1)[:, ::-1]  # descending payoffs per job
    cat = np.asarray(category, dtype=np.int64)
    theta = srt[np.arange(S), cat - 1]
    needed = (gamma > (theta + tol)[:, None]).tolist()
    tied = (np.abs(gamma - theta[:, None]) <= tol).tolist()
    adj: list[list[int]] = []
    owner: list[int] = []
    for i in range(S):
        row_needed = [k for k in range(K) if needed[i][k]]
        row_tied = [k for k in range(K) if tied[i][k]]
        for k in row_needed:
            adj.append([k])
            owner.append(i)
        for _ in range(int(cat[i]) - len(row_needed)):
            adj.append(row_tied)
            owner.append(i)
    return adj, owner, srt


def _max_matching(adj: list[list[int]], n_workers: int) -> tuple[list[int], list[int]]:
    """Maximum bipartite matching slots -> workers (augmenting paths, Kuhn).

    Slots are processed in order; each gets an augmenting-path search
    (iterative depth-first, workers tried in index order).
    """
    slot_to = [-1] * len(adj)
    worker_to = [-1] * n_workers
    # Workers visited by a failed search cannot reach a free worker while the
    # matching is unchanged, so ``dead`` is kept until the next augmentation.
    dead = [False] * n_workers
    for root in range(len(adj)):
        # cheap first pass: a free adjacent worker
        for w in adj[root]:
            if worker_to[w] < 0:
                worker_to[w] = root
                slot_to[root] = w
                break
        if slot_to[root] >= 0:
            continue
        seen = list(dead)
        stack = [(root, 0)]  # (slot, next adjacency position)
        via: dict[int, int] = {}  # worker -> slot it was reached from
        found = -1
        while stack:
            s, pos = stack[-1]
            nbrs = adj[s]
            if pos >= len(nbrs):
                stack.pop()
                continue
            stack[-1] = (s, pos + 1)
            w = nbrs[pos]
            if seen[w]:
                continue
            seen[w] = True
            via[w] = s
            if worker_to[w] < 0:
                found = w
                break
            stack.append((worker_to[w], 0))
        if found < 0:
            dead = seen
            continue
        dead = [False] * n_workers
        w = found
        while True:  # flip the augmenting path
            s = via[w]
            prev = slot_to[s]
            slot_to[s] = w
            worker_to[w] = s
            if s == root:
                break
            w = prev
    return slot_to, worker_to


def _hall_violator(
    adj: list[list[int]], slot_to: list[int], worker_to: list[int]
) -> tuple[list[int], list[int]]:
    """Slots ``X`` reachable by alternating paths from the first unmatched slot, and ``N(X)``."""
    s0 = slot_to.index(-1)
    slots = [s0]
    in_x = {s0}
    workers: set[int] = set()
    q = 0
    while q < len(slots):
        s = slots[q]
        q += 1
        for w in adj[s]:
            if w in workers:
                continue
            workers.add(w)
            s2 = worker_to[w]  # matched, else there would be an augmenting path
            if s2 not in in_x:
                in_x.add(s2)
                slots.append(s2)
    return sorted(slots), sorted(workers)


def _gain(gamma: np.ndarray, srt: np.ndarray, n: int, i: int, k: int) -> float:
    """``V_i - V_i^k`` of (20)-(21) from job ``i``'s descending payoffs ``srt[i]``."""
    g_k = gamma[i, k]
    if n < gamma.shape[1] and g_k >= srt[i, n - 1]:
        return float(g_k - srt[i, n])
    return 0.0


def _validate_category(category: Sequence[int], n_jobs: int, n_workers: int) -> None:
    cat = [int(x) for x in category]
    if len(cat) != n_jobs or min(cat) < 1 or sum(cat) != n_workers:
        raise ValueError(
            f"category: need {n_jobs} positive integers summing to K = {n_workers}, "
            f"got {tuple(category)}"
        )


class MarketCycleError(RuntimeError):
    """The pricing rule (22) revisited a relative price vector: it never clears.

    Attributes
    ----------
    category
        The category whose market cycles.
    prices
        Prices when the repetition was detected.
    rounds
        Price rises performed so far.
    """

    def __init__(
        self, message: str, category: tuple[int, ...], prices: np.ndarray, rounds: int
    ) -> None:
        super().__init__(message)
        self.category = category
        self.prices = prices
        self.rounds = rounds


def exact_p3(rho: np.ndarray, category: Sequence[int] | np.ndarray) -> np.ndarray:
    """Optimal assignment of P3 (18) for one category by the Hungarian method.

    Job ``i`` is expanded into ``K_i`` identical slots and
    ``scipy.optimize.linear_sum_assignment`` maximises the total throughput.
    Returns the job of every worker (K,).
    """
    from scipy.optimize import linear_sum_assignment

    rho = np.asarray(rho, dtype=float)
    owner = np.repeat(np.arange(rho.shape[0]), [int(c) for c in category])
    rows, cols = linear_sum_assignment(rho[owner], maximize=True)
    assignment = np.empty(rho.shape[1], dtype=np.int64)
    assignment[cols] = owner[rows]
    return assignment


def equilibrium_prices(rho: np.ndarray, assignment: np.ndarray) -> np.ndarray:
    """Market-clearing prices supporting ``assignment``, the smallest one being 0.

    Prices clear the market for ``assignment`` iff every job weakly prefers
    each of its workers to every other worker:
    ``p_w - p_v <= rho_{i,w} - rho_{i,v}`` for every worker ``w`` of job ``i``
    and every worker ``v``.  These difference constraints are solved by
    Bellman-Ford shortest paths (feasible iff the assignment is optimal for
    P3); the result is shifted so that the smallest price is 0.

    Raises
    ------
    ValueError
        If ``assignment`` is not optimal for its category (negative cycle).
    """
    rho = np.asarray(rho, dtype=float)
    a = np.asarray(assignment, dtype=np.int64)
    K = rho.shape[1]
    # edge v -> w with weight rho[a_w, w] - rho[a_w, v]  (dist[w] <= dist[v] + weight)
    weight = rho[a, np.arange(K)][None, :] - rho[a][:, :].T  # weight[v, w]
    dist = np.zeros(K)
    tol = 1e-9 * max(1.0, float(np.abs(rho).max()))
    for _ in range(K + 1):
        new = np.minimum(dist, (dist[:, None] + weight).min(axis=0))
        if np.all(new >= dist - tol):
            return dist - dist.min()
        dist = new
    raise ValueError("assignment is not optimal for P3: no clearing prices exist")


#: Earlier rounds with the same decisions tried as the start of a period
#: (the compiled engine's ``_MAX_TRIES``).
_MAX_PERIOD_TRIES = 8


class _PeriodFinder:
    """Exact fast-forward of periodic stretches of the pricing loop.

    Rule (22) often rotates unit price rises through a class of identical
    workers (same throughput column): every ``m`` rounds the same preferred
    graphs, selected workers and steps recur while the prices of a set of
    workers grow by ``d`` per period.  The decisions of a round (needed and
    tied workers, hence the matching, the constricted set and the selected
    worker ``k``) only depend on the relation (above, tied, below with
    tolerance ``tol``) of every payoff ``Gamma_{i,w}`` to job ``i``'s
    ``K_i``-th largest payoff ``theta_i``, and the step on
    ``max{1, V_i - V_i^k}``.  When a round's decisions repeat those of an
    earlier round, this class computes the largest number ``n`` of further
    periods during which, in every round of the period, no payoff crosses
    into or out of the tie band around ``theta_i`` (the worker holding
    ``theta_i`` keeps its position: everything tied with it moves with it,
    everything else stays on its side) and every step keeps its value (a
    step of 1 while all gains stay at most 1; a step above 1 only while the
    ``(K_i + 1)``-th payoff keeps its worker and moves with ``Gamma_k``; all
    quantities move linearly with the period), and the loop then applies
    ``n`` periods at once.  The rounds and the placement are those of the
    round-by-round loop, the prices equal up to rounding (tested with
    ``accelerate=False``; a market that cycles may be detected a few rounds
    later).

    Relations between two payoffs that are both away from ``theta_i`` are
    free to change: they do not enter the preferred graph.  (An earlier
    version also froze those; it was exact but stopped at every crossing of
    two worker classes far below ``theta_i``, which made ``K = 300`` markets
    run most rounds one by one.)
    """

    def __init__(self, rho: np.ndarray, cat: list[int], tol: float) -> None:
        self.rho = rho
        self.cat = cat
        self.tol = tol
        self.reset()

    def reset(self) -> None:
        """Forget the recorded rounds."""
        self.index: dict[tuple, list[int]] = {}
        self.rounds: list[tuple[np.ndarray, int, list[int]]] = []

    def observe(
        self,
        p: np.ndarray,
        adj: list[list[int]],
        owner: list[int],
        k: int,
        s_c: list[int],
        step: float,
        budget: int,
    ) -> tuple[int, np.ndarray, int] | None:
        """Record a round; return ``(n_periods, d, m)`` if ``n >= 1`` periods can be skipped.

        The earlier rounds with the same decisions are tried as the start of
        the period, latest first, at most :data:`_MAX_PERIOD_TRIES` of them
        (a period can be made of sub-periods that share decisions, e.g. a
        rotation through two worker classes).
        """
        sig = (tuple(map(tuple, adj)), tuple(owner), k, step)
        earlier = self.index.setdefault(sig, [])
        now = len(self.rounds)
        self.rounds.append((p.copy(), k, s_c))
        for t0 in reversed(earlier[-_MAX_PERIOD_TRIES:]):
            m = now - t0
            d = p - self.rounds[t0][0]
            n = min(self._periods(t0, d), budget // m)
            if n >= 1:
                self.reset()
                return n, d, m
        earlier.append(now)
        return None

    def _periods(self, t0: int, d: np.ndarray) -> int:
        """Largest ``n`` such that rounds ``t0..`` replay identically ``n`` more times."""
        if not (d > self.tol).any():
            return 0
        tol = self.tol
        small = tol * 1e-3
        best = math.inf
        for p, k, s_c in self.rounds[t0:-1]:
            gamma = self.rho - p[None, :]
            srt_val = np.sort(gamma, axis=1)[:, ::-1]
            for i in range(gamma.shape[0]):
                n_i = self.cat[i]
                # a worker holding theta_i (any one: all give the same verdict)
                v = int(np.flatnonzero(gamma[i] == srt_val[i, n_i - 1])[0])
                s = gamma[i] - gamma[i, v]  # falls by delta per period
                delta = d - d[v]
                moving = np.abs(delta) > small
                if (moving & (np.abs(s) <= tol)).any():
                    return 0  # a tie with theta_i breaks at once
                # oriented distance to the tie band, shrinking by |delta|
                o = np.where(delta > 0, s, -s)
                toward = moving & (o > tol)
                if toward.any():
                    lim = np.ceil((o[toward] - tol) / np.abs(delta[toward])) - 1
                    best = min(best, float(lim.min()))
            srt_idx = np.argsort(-gamma, axis=1, kind="stable")
            for i in s_c:
                n_i = self.cat[i]
                if n_i >= gamma.shape[1]:
                    continue
                v = int(srt_idx[i, n_i])
                if gamma[i, k] < gamma[i, srt_idx[i, n_i - 1]]:
                    continue  # k not among job i's best: gain 0 (relations fixed)
                # gain = Gamma_k - (K_i + 1)-th largest <= Gamma_k - Gamma_v as
                # long as v stays outside the top K_i (guaranteed above)
                gain = gamma[i, k] - gamma[i, v]
                dd = d[k] - d[v]  # the gain changes by -dd per period
                if abs(dd) <= small:
                    if gain > 1.0:
                        # the step is this gain: v must stay the (K_i + 1)-th
                        # largest payoff, no payoff below it may catch up
                        lim_v = _catch_up(gamma[i], d, v, tol, small)
                        if lim_v < 1:
                            return 0
                        best = min(best, lim_v)
                    continue
                if gain > 1.0:
                    return 0
                if dd < 0:
                    best = min(best, math.floor((1.0 - gain) / -dd))
        if best < 1:
            return 0
        return int(min(best, 1e15))


def _catch_up(g: np.ndarray, d: np.ndarray, v: int, tol: float, small: float) -> float:
    """Periods before a payoff at or below ``g[v]`` comes within ``tol`` of it.

    ``g`` is one job's payoff row; payoff ``w`` moves by ``-d[w]`` per period.
    Returns 0 when a payoff is already within ``tol`` below ``g[v]`` and
    gaining on it.
    """
    s = g - g[v]
    rate = d[v] - d  # growth of Gamma_w - Gamma_v per period
    mask = (s <= 0) & (rate > small)
    mask[v] = False
    if not mask.any():
        return math.inf
    o = -s[mask]
    if (o <= tol).any():
        return 0
    return float((np.ceil((o - tol) / rate[mask]) - 1).min())


def market(
    rho: np.ndarray,
    category: Sequence[int],
    *,
    tol: float | None = None,
    max_rounds: int | None = None,
    on_cycle: str = "raise",
    accelerate: bool = True,
    engine: str = "auto",
) -> MarketResult:
    """Matching market of Alg. 2 (lines 2-16) for one category: solves P3 (18).

    The price rule (22) is applied as printed.  Because (22) raises a price
    by at least one unit, it can overshoot when two workers' payoffs differ
    by less than 1 for the competing jobs, and the relative prices then
    repeat for ever (docs/errata.md: ``rho = [[1.5, 1.0], [1.4, 1.0]]``,
    category ``(1, 1)``): Theorem 1 fails for fractional throughputs.  The
    market detects the repetition (the demands only depend on price
    differences) and then either raises :class:`MarketCycleError`
    (``on_cycle="raise"``) or solves the category exactly
    (``on_cycle="exact"``: :func:`exact_p3` with :func:`equilibrium_prices`),
    returning ``cleared=False``.

    Parameters
    ----------
    rho
        Throughput matrix (S, K) the market runs on.
    category
        ``(K_1, ..., K_S)`` with ``sum_i K_i = K`` (17).
    tol
        Payoffs within ``tol`` of each other are ties (default
        ``1e-9 max(1, max rho)``).
    max_rounds
        Cap on price rises, treated like a detected cycle when exceeded;
        default ``ceil(P_max)`` of (28), the bound of Theorem 1.
    on_cycle
        ``"raise"`` or ``"exact"``.
    accelerate
        Fast-forward periodic stretches of unit price rises exactly
        (:class:`_PeriodFinder`); ``False`` runs every round.
    engine
        ``"python"``: the reference loop below; ``"numba"``: the same loop
        compiled (:mod:`optsched.hetero._market_nb`, bit-identical results,
        tested); ``"auto"`` (default): numba when it is installed.

    Returns
    -------
    MarketResult
        Assignment, final prices (equilibrium prices of P3, the certificate of
        Theorem 2), number of rounds and whether rule (22) cleared.
    """
    if on_cycle not in ("raise", "exact"):
        raise ValueError(f"on_cycle: must be 'raise' or 'exact', got {on_cycle!r}")
    rho = np.asarray(rho, dtype=float)
    S, K = rho.shape
    _validate_category(category, S, K)
    cat = [int(x) for x in category]
    if tol is None:
        tol = 1e-9 * max(1.0, float(np.abs(rho).max()))
    if max_rounds is None:
        p_max = sum(sum_top(rho[i], cat[i]) for i in range(S))  # (28)
        max_rounds = max(0, math.ceil(p_max))
    core = _engine(engine)
    if core is not None:
        p, rounds, cycled, assignment = core(
            np.ascontiguousarray(rho),
            np.asarray(cat, dtype=np.int64),
            float(tol),
            int(max_rounds),
            bool(accelerate),
        )
        rounds = int(rounds)
        cycled = bool(cycled)
    else:
        p, rounds, cycled, assignment = _market_python(
            rho, cat, tol, max_rounds, accelerate
        )
    return _finish(rho, cat, p, rounds, cycled, assignment, on_cycle, max_rounds)


def _finish(
    rho: np.ndarray,
    cat: list[int],
    p: np.ndarray,
    rounds: int,
    cycled: bool,
    assignment: np.ndarray,
    on_cycle: str,
    max_rounds: int,
) -> MarketResult:
    """MarketResult of a finished loop; a cycled market raises or is solved exactly."""
    S, K = rho.shape
    if cycled:
        if on_cycle == "raise":
            raise MarketCycleError(
                f"category {tuple(cat)}: price rule (22) does not clear "
                f"(relative prices repeat, or more than P_max = {max_rounds} "
                f"rises, after {rounds} rises)",
                tuple(cat),
                p.copy(),
                rounds,
            )
        assignment = exact_p3(rho, cat)
        p = equilibrium_prices(rho, assignment)
    V = np.zeros(S)
    np.add.at(V, assignment, rho[assignment, np.arange(K)])
    return MarketResult(tuple(cat), assignment, p, rounds, V, not cycled)


def markets(
    rho: np.ndarray,
    categories: Iterable[Sequence[int] | np.ndarray],
    *,
    tol: float | None = None,
    max_rounds: int | None = None,
    on_cycle: str = "raise",
    accelerate: bool = True,
    engine: str = "auto",
    parallel: bool | None = None,
) -> list[MarketResult]:
    """:func:`market` for every category, in order (the loop of Alg. 2 line 1).

    With the compiled engine (which releases the GIL) the categories are
    spread over ``numba.get_num_threads()`` Python threads when ``parallel``
    is true (default: only when called from the main thread; a caller that
    already runs in a worker thread, e.g. under Dask, is parallel itself).
    Each category's market is independent (prices restart at 0), so the
    results equal ``[market(rho, c, ...) for c in categories]`` exactly
    (tested).  Threads rather than a ``prange`` kernel: with numba's OpenMP
    layer a ``prange`` batch at ``K = 300`` ran barely faster on two threads
    than on one (16.2 s vs 19.2 s), Python threads halve it (10.5 s).
    """
    if on_cycle not in ("raise", "exact"):
        raise ValueError(f"on_cycle: must be 'raise' or 'exact', got {on_cycle!r}")
    rho = np.asarray(rho, dtype=float)
    S, K = rho.shape
    cats = [[int(x) for x in c] for c in categories]
    for c in cats:
        _validate_category(c, S, K)
    core = _engine(engine)
    if core is None or not cats:
        return [
            market(
                rho,
                c,
                tol=tol,
                max_rounds=max_rounds,
                on_cycle=on_cycle,
                accelerate=accelerate,
                engine=engine,
            )
            for c in cats
        ]
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import numba

    if tol is None:
        tol = 1e-9 * max(1.0, float(np.abs(rho).max()))
    caps = [
        max(0, math.ceil(sum(sum_top(rho[i], c[i]) for i in range(S))))
        if max_rounds is None
        else max_rounds
        for c in cats
    ]
    if parallel is None:
        parallel = threading.current_thread() is threading.main_thread()
    rho_c = np.ascontiguousarray(rho)
    cat_arr = np.asarray(cats, dtype=np.int64).reshape(len(cats), S)

    def one(j: int):
        # private copies: threads sharing one array contend on its reference count
        return core(rho_c.copy(), cat_arr[j].copy(), float(tol), caps[j], accelerate)

    n_threads = min(numba.get_num_threads(), len(cats)) if parallel else 1
    if n_threads > 1:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            out = list(pool.map(one, range(len(cats))))
    else:
        out = [one(j) for j in range(len(cats))]
    P = [o[0] for o in out]
    R = [o[1] for o in out]
    C = [o[2] for o in out]
    A = [o[3] for o in out]
    return [
        _finish(rho, c, P[j], int(R[j]), bool(C[j]), A[j], on_cycle, caps[j])
        for j, c in enumerate(cats)
    ]


def _engine(engine: str):
    """The compiled market loop, or None for the reference loop."""
    if engine not in ("auto", "numba", "python"):
        raise ValueError(f"engine: must be 'auto', 'numba' or 'python', got {engine!r}")
    if engine == "python":
        return None
    try:
        from ._market_nb import market_core
    except ImportError:
        if engine == "numba":
            raise
        return None
    return market_core


def _market_python(
    rho: np.ndarray, cat: list[int], tol: float, max_rounds: int, accelerate: bool
) -> tuple[np.ndarray, int, bool, np.ndarray]:
    """Reference loop of rule (22): ``(prices, rounds, cycled, assignment)``."""
    S, K = rho.shape
    grid = 1e3 * tol  # resolution of the repetition test on relative prices
    p = np.zeros(K)
    rounds = 0
    seen: set[tuple[int, ...]] = set()
    cycled = False
    period = _PeriodFinder(rho, cat, tol) if accelerate else None
    while True:
        gamma = rho - p[None, :]  # (19), (23)
        adj, owner, srt = _demand_graph(gamma, cat, tol)
        slot_to, worker_to = _max_matching(adj, K)
        if -1 not in slot_to:
            break
        key = tuple(np.rint((p - p.min()) / grid).astype(np.int64).tolist())
        if key in seen or rounds >= max_rounds:
            cycled = True
            break
        seen.add(key)
        slots, k_c = _hall_violator(adj, slot_to, worker_to)
        s_c = sorted({owner[s] for s in slots})
        k = k_c[0]  # line 6: select k in K_c (lowest index)
        # lines 7-10: V_i - V_i^k = Gamma_{i,k} - (K_i + 1)-th largest payoff
        # when k is among job i's K_i best workers, else 0 (sum_top (20)-(21))
        gains = [_gain(gamma, srt, cat[i], i, k) for i in s_c]
        step = max(1.0, max(gains))  # line 11, (22)
        if period is not None:
            jump = period.observe(p, adj, owner, k, s_c, step, max_rounds - rounds)
            if jump is not None:  # replay whole periods of identical rounds at once
                n_periods, d, m = jump
                p += n_periods * d
                rounds += n_periods * m
                continue
        p[k] += step
        rounds += 1
    if cycled:
        return p, rounds, True, np.zeros(K, dtype=np.int64)
    assignment = np.array([owner[worker_to[w]] for w in range(K)], dtype=np.int64)
    return p, rounds, False, assignment


@dataclass(frozen=True, eq=False)
class CategoryResult:
    """Alg. 2's result for one category (a row of Table II).

    Attributes
    ----------
    market
        The cleared market (assignment, prices, rounds, throughput).
    avg_jct
        Average JCT (8) of the market's placement with the proportional split
        (12), on the throughput the algorithm decides on.
    """

    market: MarketResult
    avg_jct: float

    @property
    def category(self) -> tuple[int, ...]:
        """``(K_1, ..., K_S)``."""
        return self.market.category


def has_categories(
    inst: HeteroInstance,
    categories: Iterable[Sequence[int]] | None = None,
    *,
    tol: float | None = None,
    max_rounds: int | None = None,
    on_cycle: str = "exact",
) -> list[CategoryResult]:
    """Run the market of Alg. 2 on every category (default: all of ``Psi``, Alg. 1 order).

    Decisions use ``inst.rho_hat`` (the predicted throughput when given).
    ``tol``, ``max_rounds``, ``on_cycle``: see :func:`market`; by default a
    category on which rule (22) cycles is solved exactly and flagged
    (``result.market.cleared`` is False).
    """
    rho = inst.rho_hat
    cats = (
        enumerate_categories(inst.n_workers, inst.n_jobs)
        if categories is None
        else categories
    )
    ms = markets(rho, cats, tol=tol, max_rounds=max_rounds, on_cycle=on_cycle)
    return [CategoryResult(m, avg_jct(inst, m.assignment, rho)) for m in ms]


@dataclass(frozen=True)
class HasParams:
    """Parameters of :func:`has`.

    Attributes
    ----------
    categories
        Restrict the search to these categories (default None: all of
        ``Psi``).
    tol, max_rounds, on_cycle
        See :func:`market`.  With the default ``on_cycle="exact"`` a category
        on which rule (22) cycles (fractional throughputs, docs/errata.md) is
        solved exactly instead; ``"raise"`` propagates
        :class:`MarketCycleError`.
    """

    categories: Iterable[Sequence[int]] | None = None
    tol: float | None = None
    max_rounds: int | None = None
    on_cycle: str = "exact"


def has(
    inst: HeteroInstance, /, *, seed: int = 0, params: HasParams | None = None
) -> HeteroPlacement:
    """Heterogeneity-Aware Scheduler (Alg. 2 over Alg. 1's ``Psi``), Sec. IV-D.

    For each category the market maximises the total throughput P3 (18)
    (Theorem 2); the category whose placement has the lowest average JCT (8)
    under the proportional split (12) is returned (first one on ties).  No
    JCT guarantee: P3 is a surrogate of P2 (16).

    Parameters
    ----------
    inst
        The instance; decisions use ``inst.rho_hat``.
    seed
        Unused: the algorithm is deterministic.
    params
        :class:`HasParams` (None: the defaults).

    Returns
    -------
    HeteroPlacement
        With ``category`` and the final ``prices`` of the winning category;
        ``meta["per_category"]`` holds every :class:`CategoryResult` and
        ``meta["rounds"]`` the total number of price rises and
        ``meta["cycled"]`` the categories on which rule (22) did not clear.
    """
    p = resolve(params, HasParams, "has")
    results = has_categories(
        inst, p.categories, tol=p.tol, max_rounds=p.max_rounds, on_cycle=p.on_cycle
    )
    if not results:
        raise ValueError("has: no category to examine")
    best = None
    for r in results:  # line 17: strict improvement
        if best is None or r.avg_jct < best.avg_jct:
            best = r
    assert best is not None
    return HeteroPlacement.from_assignment(
        inst,
        best.market.assignment,
        algorithm="has",
        category=best.category,
        prices=best.market.prices,
        meta={
            "per_category": results,
            "rounds": sum(r.market.rounds for r in results),
            "cycled": [r.category for r in results if not r.market.cleared],
            "avg_jct_predicted": best.avg_jct,
        },
    )


# ---------------------------------------------------------------------------
# Alg. 3: Job Prioritizing for Sampling (JPS), Sec. V
# ---------------------------------------------------------------------------
#
# Readings adopted (docs/hetero.md, docs/errata.md):
#
# * Equal-allocation JCT (32).  As printed, Lambda_i^[e] sums over i, so it is
#   the same number for every job and (33) degenerates into Jain's index of
#   the raw JCTs; that index never exceeds 0.82 on Sec. VI-like instances,
#   against the printed ranges [0.527, 0.994] (K = 15) and [0.384, 0.999]
#   (K = 30).  We drop the sum and take the JCT of job i with an equal 1/S
#   share of every worker:
#       Lambda_i^[e] = T_i (2 (K/S - 1) D_i / (r K/S) + S |Pi_i| / sum_k rho_{i,k}),
#   i.e. the computation term is |Pi_i| / V_i^Equal (Sec. IV-A) rather than the
#   printed |Pi_i| / (S sum_k rho_{i,k}), so that Lambda_i / Lambda_i^[e] = 1
#   under equal allocation, as the text after (33) states; r is the
#   bottleneck link (5) of the whole cluster (the inter-node rate unless all
#   workers share a node), in the units of :mod:`optsched.hetero.instance`.
#   This reading gives fairness ranges [0.520, 0.998] (K = 15) and
#   [0.38, 0.999] (K = 30) on our H = 1.15 instances of the first four jobs
#   of Table III.
# * Psi[alpha C, C] (Alg. 3 line 2) is the rear part of Psi in Alg. 1 order:
#   the categories with 0-based position >= ceil(alpha |Psi|), i.e. the last
#   floor((1 - alpha) |Psi|) ones (Sec. VI-B: alpha = 0.9, K = 15 leaves 36
#   of 364); at least one category is kept.
# * "Select N samples uniformly": N distinct positions drawn uniformly
#   without replacement (all of them when N exceeds the rear part), examined
#   in Alg. 1 order; (34) ties go to the lower average JCT, then to the
#   earlier category, so that JPS with alpha = 0, N >= |Psi| and beta = 1
#   reproduces HAS.
# * Job prioritising (line 1) sorts the jobs by T_i |Pi_i| / (S sum_k rho_{i,k})
#   ascending (stable); category (K_1, ..., K_S) then gives K_j workers to
#   the j-th job of that order.  Placements and ``category`` are reported in
#   the instance's job order.


def category_at(index: int, n_workers: int, n_jobs: int) -> tuple[int, ...]:
    """The category at 0-based position ``index`` of ``Psi`` in Alg. 1 order (unranking).

    Alg. 1 lists ``Psi`` in ascending lexicographic order of
    ``(K_S, K_{S-1}, ..., K_2)``; the number of categories with a given
    suffix ``(K_j, ..., K_S)`` summing to ``K - R`` is ``C(R - 1, j - 2)``
    (compositions of ``R`` into ``j - 1`` positive parts), which locates
    ``K_S``, then ``K_{S-1}``, ... in ``O(S K)`` without listing ``Psi``
    (``|Psi| = 4,410,499`` for ``K = 300, S = 4``).
    """
    K, S = int(n_workers), int(n_jobs)
    _check_ks(K, S)
    n = n_categories(K, S)
    idx = int(index)
    if not 0 <= idx < n:
        raise IndexError(f"index: must be in 0..{n - 1} (|Psi|), got {index}")
    out = [0] * S
    rest = K
    for j in range(S, 1, -1):  # paper's 1-based position j = S, ..., 2
        v = 1
        while True:
            count = math.comb(rest - v - 1, j - 2)
            if idx < count:
                break
            idx -= count
            v += 1
        out[j - 1] = v
        rest -= v
    out[0] = rest
    return tuple(out)


def rear_start(n_psi: int, alpha: float) -> int:
    """0-based first position of ``Psi[alpha |Psi|, |Psi|]`` (Alg. 3 line 2)."""
    start = math.ceil(round(float(alpha) * n_psi, 9))
    return min(max(start, 0), n_psi - 1)


def priority_order(inst: HeteroInstance) -> np.ndarray:
    """Alg. 3 line 1: jobs sorted by ``T_i |Pi_i| / (S sum_k rho_{i,k})`` ascending.

    The key is job ``i``'s computation time on all workers over ``S``, an
    estimate of its computational complexity (Sec. V-B), on
    ``inst.rho_hat``.  Stable: equal keys keep the instance order.
    """
    key = inst.epochs * inst.dataset_size / (inst.n_jobs * inst.rho_hat.sum(axis=1))
    return np.argsort(key, kind="stable")


def equal_share_jct(inst: HeteroInstance) -> np.ndarray:
    """``Lambda_i^[e]`` of Eq. (32) as adopted: job ``i``'s JCT with an equal ``1/S`` share.

    ``T_i (2 (K/S - 1) D_i / (r K/S) + S |Pi_i| / sum_k rho_{i,k})`` seconds on
    ``inst.rho_hat``, with ``r`` the bottleneck link of the whole cluster and
    no communication when ``K/S = 1`` or the instance ignores it.  The sum
    over ``i`` printed in (32) and its computation term
    ``|Pi_i| / (S sum_k rho_{i,k})`` are read as explained in the comment
    above this function and in docs/errata.md.
    """
    S, K = inst.n_jobs, inst.n_workers
    one_node = bool((inst.node == inst.node[0]).all())
    comm = comm_latency(inst, np.full(S, K / S), np.full(S, one_node))
    comp = S * inst.dataset_size / inst.rho_hat.sum(axis=1)
    return inst.epochs * (comm + comp)


def jain_index(x: Sequence[float] | np.ndarray) -> float:
    """Jain's fairness index ``(sum_i x_i)^2 / (n sum_i x_i^2)`` [37], in ``[1/n, 1]``.

    1 when all ``x_i`` are equal (also when all are 0), ``1/n`` when one
    entry carries everything.
    """
    v = np.asarray(x, dtype=float).ravel()
    if v.size == 0:
        raise ValueError("jain_index: need at least one value")
    sq = float((v * v).sum())
    if sq == 0.0:
        return 1.0
    return float(v.sum() ** 2 / (v.size * sq))


def fairness_degree(inst: HeteroInstance, jct: Sequence[float] | np.ndarray) -> float:
    """Fairness degree ``F`` of Eq. (33): Jain's index of ``Lambda_i / Lambda_i^[e]``.

    ``jct`` holds the per-job JCTs ``Lambda_i`` (7) of a placement; the
    equal-allocation JCTs come from :func:`equal_share_jct` (32).
    """
    lam = np.asarray(jct, dtype=float)
    if lam.shape != (inst.n_jobs,):
        raise ValueError(f"jct: need {inst.n_jobs} values, got shape {lam.shape}")
    return jain_index(lam / equal_share_jct(inst))


@dataclass(frozen=True, eq=False)
class JPSSample:
    """One sampled category of Alg. 3 (line 3) and what Alg. 2 made of it.

    Attributes
    ----------
    id
        1-based position of the category in ``Psi`` (Alg. 1 order, the IDs
        of Figs. 4-6).
    category
        ``(K_1, ..., K_S)`` as sampled, i.e. in the prioritised job order.
    category_jobs
        The same worker counts in the instance's job order.
    assignment
        Job of every worker (K,).
    prices
        Final market prices (``p3="market"``) or None (``p3="exact"``).
    jct
        ``Lambda_i`` (7) per job with the proportional split (12), on
        ``inst.rho_hat``.
    avg_jct
        ``Lambda_n``: the average JCT (8).
    fairness
        ``F_n``: the fairness degree (33).
    cleared
        Whether rule (22) cleared the market (True for ``p3="exact"``).
    """

    id: int
    category: tuple[int, ...]
    category_jobs: tuple[int, ...]
    assignment: np.ndarray
    prices: np.ndarray | None
    jct: np.ndarray
    avg_jct: float
    fairness: float
    cleared: bool = True


def jps_samples(
    inst: HeteroInstance,
    *,
    n_samples: int = 60,
    alpha: float = 0.7,
    prioritise: bool = True,
    seed: int | np.random.Generator | None = 0,
    p3: str = "market",
    tol: float | None = None,
    max_rounds: int | None = None,
    on_cycle: str = "exact",
) -> tuple[np.ndarray, list[JPSSample]]:
    """Alg. 3 lines 1-3: prioritise, sample ``N`` categories of the rear part, solve each.

    Returns the job order (line 1; the identity when ``prioritise`` is
    False) and the sampled categories in Alg. 1 order.  Parameters as in
    :func:`jps`.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer):
        raise ValueError(f"n_samples: must be an integer >= 1, got {n_samples!r}")
    if n_samples < 1:
        raise ValueError(f"n_samples: must be >= 1, got {n_samples!r}")
    if not 0.0 <= float(alpha) < 1.0:
        raise ValueError(f"alpha: must be in [0, 1), got {alpha!r}")
    if p3 not in ("market", "exact"):
        raise ValueError(f"p3: must be 'market' or 'exact', got {p3!r}")
    S, K = inst.n_jobs, inst.n_workers
    rho = inst.rho_hat
    order = priority_order(inst) if prioritise else np.arange(S)
    n_psi = n_categories(K, S)
    start = rear_start(n_psi, alpha)
    n_rear = n_psi - start
    rng = np.random.default_rng(seed)
    if n_samples >= n_rear:
        picks = np.arange(n_rear)
    else:
        picks = np.sort(rng.choice(n_rear, size=int(n_samples), replace=False))
    positions = [start + int(p) for p in picks]
    cats, cats_jobs = [], []
    for pos in positions:
        cat = category_at(pos, K, S)
        cat_jobs = np.empty(S, dtype=np.int64)
        cat_jobs[order] = cat
        cats.append(cat)
        cats_jobs.append(cat_jobs)
    if p3 == "market":  # line 3: one market per sample (a batch, see markets())
        ms = markets(rho, cats_jobs, tol=tol, max_rounds=max_rounds, on_cycle=on_cycle)
    samples = []
    for j, (pos, cat, cat_jobs) in enumerate(
        zip(positions, cats, cats_jobs, strict=True)
    ):
        if p3 == "market":
            assignment, prices, cleared = ms[j].assignment, ms[j].prices, ms[j].cleared
        else:
            assignment, prices, cleared = exact_p3(rho, cat_jobs), None, True
        V, n, single = assignment_stats(inst, assignment, rho)
        lam = job_jct(inst, V, n, single)
        samples.append(
            JPSSample(
                id=pos + 1,
                category=tuple(int(x) for x in cat),
                category_jobs=tuple(int(x) for x in cat_jobs),
                assignment=assignment,
                prices=prices,
                jct=lam,
                avg_jct=avg_jct(inst, assignment, rho),
                fairness=fairness_degree(inst, lam),
                cleared=cleared,
            )
        )
    return order, samples


def select_sample(samples: Sequence[JPSSample], beta: float) -> int:
    """Selection rule (34): ``argmax_n beta min_m Lambda_m / Lambda_n + (1 - beta) F_n``.

    Returns the position in ``samples``; ties go to the lower ``Lambda_n``,
    then to the earlier sample.
    """
    if not 0.0 <= float(beta) <= 1.0:
        raise ValueError(f"beta: must be in [0, 1], got {beta!r}")
    if not samples:
        raise ValueError("select_sample: no sample")
    lam = np.array([s.avg_jct for s in samples])
    fair = np.array([s.fairness for s in samples])
    score = beta * lam.min() / lam + (1.0 - beta) * fair
    best = score.max()
    tied = np.flatnonzero(score == best)
    return int(tied[np.argmin(lam[tied])])


@dataclass(frozen=True)
class JpsParams:
    """Parameters of :func:`jps`.

    Attributes
    ----------
    n_samples
        ``N`` (default 60, the setting of the paper's headline results;
        Table V uses 40).
    alpha
        Start of the rear part, in ``[0, 1)`` (paper default 0.7).
    beta
        Weight of JCT against fairness in (34), in ``[0, 1]`` (paper
        default 1.0: JCT only).
    prioritise
        Apply line 1 (default True); False samples ``Psi`` with the jobs in
        the instance order (Figs. 4-5).
    p3
        ``"market"``: Alg. 2's matching market on each sample (the paper);
        ``"exact"``: P3 (18) solved by the Hungarian method
        (:func:`exact_p3`), the same throughput by Theorem 2 but possibly a
        different optimal assignment (ties among workers), much faster for
        large ``K``; no prices are reported.
    tol, max_rounds, on_cycle
        Passed to :func:`market`.
    """

    n_samples: int = 60
    alpha: float = 0.7
    beta: float = 1.0
    prioritise: bool = True
    p3: str = "market"
    tol: float | None = None
    max_rounds: int | None = None
    on_cycle: str = "exact"


def jps(
    inst: HeteroInstance, /, *, seed: int = 0, params: JpsParams | None = None
) -> HeteroPlacement:
    """Job Prioritizing for Sampling (JPS, Alg. 3, Sec. V-B).

    1. Sort the jobs by ``T_i |Pi_i| / (S sum_k rho_{i,k})`` ascending, so that
       the rear part of ``Psi`` (Alg. 1 order) gives the heavier jobs more
       workers (Fig. 6);
    2. draw ``N`` categories uniformly without replacement from the rear
       part ``Psi[alpha |Psi|, |Psi|]``;
    3. run the matching market of Alg. 2 on each sample: average JCT
       ``Lambda_n`` (8) with the split (12) and fairness degree ``F_n`` (33)
       against the equal allocation (32);
    4. return the sample maximising (34)
       ``beta min_m Lambda_m / Lambda_n + (1 - beta) F_n``.

    No JCT guarantee (a sub-sample of HAS, which has none); complexity
    ``O(S K P_max N)`` instead of HAS's ``O(S K P_max C(K-1, S-1))``.  The
    paper reports it within 0.54% (K = 15) and 2.04% (K = 30) of the optimum
    with ``N = 60`` (Fig. 9).  Readings of (32) and of line 2: see the
    comment above :func:`category_at` and docs/errata.md.

    Parameters
    ----------
    inst
        The instance; decisions use ``inst.rho_hat``.
    seed
        Seed for ``numpy.random.default_rng`` (a Generator is accepted
        too); same seed, same samples and placement.
    params
        :class:`JpsParams` (None: the paper's defaults).

    Returns
    -------
    HeteroPlacement
        ``category`` in the instance's job order; ``meta`` holds
        ``category_prioritised`` (as sampled), ``job_order`` (line 1),
        ``sampled_ids`` (1-based positions in ``Psi``), ``samples``
        (:class:`JPSSample` list), ``fairness`` and ``avg_jct_predicted`` of
        the chosen sample, ``n_psi``, ``rear_start`` and the parameters.
    """
    p = resolve(params, JpsParams, "jps")
    n_samples, alpha, beta, prioritise, p3 = (
        p.n_samples,
        p.alpha,
        p.beta,
        p.prioritise,
        p.p3,
    )
    order, samples = jps_samples(
        inst,
        n_samples=n_samples,
        alpha=alpha,
        prioritise=prioritise,
        seed=seed,
        p3=p3,
        tol=p.tol,
        max_rounds=p.max_rounds,
        on_cycle=p.on_cycle,
    )
    best = samples[select_sample(samples, beta)]
    n_psi = n_categories(inst.n_workers, inst.n_jobs)
    return HeteroPlacement.from_assignment(
        inst,
        best.assignment,
        algorithm="jps",
        category=best.category_jobs,
        prices=best.prices,
        meta={
            "category_prioritised": best.category,
            "category_id": best.id,
            "job_order": [int(i) for i in order],
            "sampled_ids": [s.id for s in samples],
            "samples": samples,
            "fairness": best.fairness,
            "avg_jct_predicted": best.avg_jct,
            "n_psi": n_psi,
            "rear_start": rear_start(n_psi, alpha),
            "cycled": [s.category_jobs for s in samples if not s.cleared],
            "params": {
                "n_samples": int(n_samples),
                "alpha": float(alpha),
                "beta": float(beta),
                "prioritise": bool(prioritise),
                "p3": p3,
            },
        },
    )
