r"""Branch-and-price lower bound for problem (2), over the column generation's relaxation.

:func:`optsched.models.edgecloud_colgen.column_generation` (``pricing="dp"``)
converges to the Dantzig-Wolfe bound of (2) without the PS rows (2f): every
job's schedules ``X_j`` are priced exactly, and what remains is the
integrality of the master.  On the one instance of Figs. 12-13 whose interval
stayed above 5% (10 jobs x 5 servers, seed 1: incumbent 106) the converged
bound is 100 (99.9999), HiGHS's after 60 s too, and HiGHS needs 900 s to
reach 101 -- with or without the (2f) rows (measured: 600 s without them
end at 106 / 101), so the gap is the master's integrality, not (2f).  This
module closes it by branching.

Branching.  A node restricts some jobs: worker-slots ``r = ("w", s, w, t)``
a job must not use (``forbid``) and must use (``force``).  The node's
problem is the relaxation above with those restrictions; a branch on ``(j,
r)`` splits it into "job ``j`` does not use ``r``" and "job ``j`` uses
``r``", which partition it, so every schedule of (2) lies in exactly one
leaf.  Pricing under restrictions stays exact (:class:`RestrictedPricer`:
the chunks on worker ``g`` take its forced slots and the cheapest allowed
others; a forced slot rules out the all-cloud schedule), so the node's
Lagrangian ``L`` (:func:`~optsched.models.edgecloud_colgen.generate`, valid
at every round whatever the master's columns) is a lower bound of the
node's problem; a child keeps ``max(L_parent, L_child)``.  The branching
pair is the master's most fractional use ``x_{j,r} = sum_q lambda_q
a_{q,r}`` of a coupling row by one job; when every use is 0 or 1, each job's
columns in the master's support share their coupling rows, one column per
job is a schedule of the node's problem of cost equal to the master value,
so the node's bound is exact and it is not branched further.

Bound.  Nodes are explored best first (smallest bound); the objective (2)
is an integer, so a node whose ``L`` exceeds ``v`` (by more than ``1e-6``)
holds no schedule of cost below ``ceil(L - 1e-6)``, and the reported bound is
``min(incumbent, min over open nodes of ceil(L - 1e-6))`` -- every
schedule of cost below it would lie in an open node.  A node whose bound
reaches the incumbent is pruned; a node whose master still uses an
artificial column at convergence (cost :data:`~optsched.models.edgecloud_colgen.ARTIFICIAL_COST`:
its region has no schedule, or costs more than that) is not branched and
keeps its ``L``, a valid bound either way.  The bound is valid at any stop (a time limit leaves
nodes open with their parents' bounds), never a master value.  Bounds
(2f) and storage (7b) stay relaxed, so with time enough the search ends
at the optimum of (2) without them, which can be below (2)'s.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import time
from collections import defaultdict
from typing import Any

import numpy as np

from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule, cloud_only

from .edgecloud_colgen import (
    Column,
    DPPricer,
    Master,
    Resource,
    generate,
    schedule_columns,
)

__all__ = ["BPResult", "RestrictedPricer", "branch_and_price", "bp_bound"]

#: A node's restrictions: job -> (forbidden worker-slots, forced worker-slots).
Restrictions = dict[int, tuple[frozenset[Resource], frozenset[Resource]]]
_NONE: tuple[frozenset[Resource], frozenset[Resource]] = (frozenset(), frozenset())


@dataclasses.dataclass
class BPResult:
    """Outcome of :func:`branch_and_price`.

    Attributes
    ----------
    bound
        A valid lower bound on (2) (an integer, or ``-inf`` when not even
        the root's first pricing round ended); at most ``incumbent``.
    root
        The root's Lagrangian (the column-generation bound before branching).
    proven
        Whether ``bound`` reached the incumbent (the incumbent is optimal).
    exhausted
        Whether no node is left open (the relaxation's optimum is ``bound``).
    nodes, open, columns, runtime
        Nodes solved, nodes left open, columns in the pool, wall seconds.
    history
        ``(seconds, bound)`` each time the bound rose.
    """

    bound: float
    root: float
    proven: bool
    exhausted: bool
    nodes: int
    open: int
    columns: int
    runtime: float
    history: list[tuple[float, float]]


class RestrictedPricer(DPPricer):
    """:class:`~optsched.models.edgecloud_colgen.DPPricer` under a node's restrictions.

    ``forbid``: worker-slots the job must not use; ``force``: worker-slots it
    must use (each on its own worker: ``n`` chunks on worker ``g`` take its
    forced slots and the ``n k0 - |forced|`` cheapest allowed others, ``C``
    at least the last forced slot, and no all-cloud schedule).  Exact over
    the restricted job set (tested against the one-job MILP with the same
    variables fixed).
    """

    forbid: frozenset[Resource] = frozenset()
    force: frozenset[Resource] = frozenset()

    @classmethod
    def of(
        cls, base: DPPricer, forbid: frozenset[Resource], force: frozenset[Resource]
    ) -> RestrictedPricer:
        """A copy of ``base`` (its instance data shared) with restrictions."""
        new = cls.__new__(cls)
        new.__dict__.update(base.__dict__)
        new.forbid, new.force = frozenset(forbid), frozenset(force)
        return new

    def _slots(self, g: int, C: int) -> tuple[list[int], list[int]]:
        s, w, slots = self.workers[g]
        forced = sorted(t for _k, ss, ww, t in self.force if (ss, ww) == (s, w))
        free = [
            int(t)
            for t in slots
            if t <= C
            and int(t) not in forced
            and ("w", s, w, int(t)) not in self.forbid
        ]
        return forced, free

    def _zeta1(self) -> float:
        return math.inf if self.force else self.zeta1


def _pruned(L: float, incumbent: float) -> bool:
    """Whether a node with bound ``L`` is closed without branching.

    ``L = inf``: the node holds no schedule.  Otherwise the JCT is an
    integer, so a node is closed once its bound rounded up reaches the
    incumbent (``L = -inf``, a node whose pricing gave no bound, never is).
    """
    return L == math.inf or (L > -math.inf and math.ceil(L - 1e-6) >= incumbent)


def _compatible(col: Column, restr: Restrictions) -> bool:
    """Whether ``col`` meets its job's restrictions."""
    forbid, force = restr.get(col.job, _NONE)
    return not (col.uses & forbid) and force <= col.uses


def _uses(master: Master, n_jobs: int) -> dict[tuple[int, Resource], float] | None:
    """The master's ``x_{j,r}`` on coupling rows; None while an artificial column is used."""
    x = np.asarray(master.h.getSolution().col_value)
    if np.any(x[:n_jobs] > 1e-7):
        return None
    use: dict[tuple[int, Resource], float] = defaultdict(float)
    for k, col in enumerate(master.columns):
        v = float(x[n_jobs + k])
        if v > 1e-9:
            for r in col.uses:
                if r in master.row:
                    use[col.job, r] += v
    return use


def _node(
    inst: EdgeCloudInstance,
    base: list[DPPricer],
    shared: list[Resource],
    pool: dict[tuple[int, frozenset[Resource]], Column],
    restr: Restrictions,
    left: Any,
) -> tuple[float, bool, dict[tuple[int, Resource], float] | None]:
    """Column generation at a node: ``(L, converged, uses)``; new columns join ``pool``."""
    pricers = [RestrictedPricer.of(pr, *restr.get(pr.job, _NONE)) for pr in base]
    master = Master(inst.n_jobs, shared)
    for col in pool.values():
        if _compatible(col, restr):
            master.add(col)
    best, _pi, _value, converged, _rounds, _h = generate(master, pricers, shared, left)
    for col in master.columns:
        pool.setdefault((col.job, col.uses), col)
    return best, converged, _uses(master, inst.n_jobs) if converged else None


def branch_and_price(
    inst: EdgeCloudInstance,
    *,
    incumbent: float = math.inf,
    time_limit: float | None = 30.0,
    starts: tuple[EdgeCloudSchedule, ...] = (),
) -> BPResult:
    """Best-first branch and price over the relaxation of the module docstring.

    Parameters
    ----------
    inst
        The instance (PS rows (2f) and storage (7b) relaxed).
    incumbent
        The value of a checked schedule: nodes whose bound reaches it are
        pruned, and the search stops when the bound does (``proven``).
    time_limit
        Wall seconds (None: until no node is open); checked between pricing
        problems.
    starts
        Checked schedules whose per-job pieces seed the column pool.

    Returns
    -------
    BPResult
        ``bound`` is valid at any stop.
    """
    began = time.perf_counter()

    def left() -> float | None:
        return (
            None if time_limit is None else time_limit - (time.perf_counter() - began)
        )

    base = [DPPricer(inst, j) for j in range(inst.n_jobs)]
    users: dict[Resource, set[int]] = defaultdict(set)
    for pr in base:
        for key in pr.res_cols:
            users[key].add(pr.job)
    shared = sorted(k for k, js in users.items() if len(js) > 1)
    pool: dict[tuple[int, frozenset[Resource]], Column] = {}
    for sched in (cloud_only(inst), *starts):
        for col in schedule_columns(inst, sched):
            ws = frozenset(r for r in col.uses if r[0] == "w")
            pool.setdefault((col.job, ws), Column(col.job, col.cost, ws))
    # heap of (bound, tiebreak, restrictions or None for an exact leaf)
    heap: list[tuple[float, int, Restrictions | None]] = [(-math.inf, 0, {})]
    count, nodes, root = 1, 0, -math.inf
    history: list[tuple[float, float]] = []

    def current() -> float:
        low = min((b for b, _c, _r in heap), default=math.inf)
        return min(incumbent, math.ceil(low - 1e-6) if math.isfinite(low) else low)

    while heap:
        lim = left()
        bnd, tie, restr = heap[0]
        if restr is None or (lim is not None and lim <= 0) or current() >= incumbent:
            break  # the least node is exact, the time is up, or the incumbent proven
        heapq.heappop(heap)
        L, converged, uses = _node(inst, base, shared, pool, restr, left)
        L = max(L, bnd)
        nodes += 1
        if nodes == 1:
            root = L
        if not converged:  # time ran out inside: the node stays open
            heapq.heappush(heap, (L, tie, restr))
            break
        if _pruned(L, incumbent):
            pass
        elif uses is None:  # an artificial column at convergence: not branched
            heapq.heappush(heap, (L, count, None))  # (its L stays a valid bound)
            count += 1
        else:
            frac = [(abs(v - 0.5), k) for k, v in uses.items() if 1e-6 < v < 1 - 1e-6]
            if not frac:  # exact: the relaxation's optimum in this region is L
                heapq.heappush(heap, (L, count, None))
                count += 1
            else:
                _, (j, r) = min(frac)
                forbid, force = restr.get(j, _NONE)
                for child in ({**restr, j: (forbid | {r}, force)},
                              {**restr, j: (forbid, force | {r})}):  # fmt: skip
                    heapq.heappush(heap, (L, count, child))
                    count += 1
        now = current()
        if not history or now > history[-1][1]:
            history.append((time.perf_counter() - began, now))
    bound = current()
    return BPResult(
        bound=float(bound),
        root=float(root),
        proven=bound >= incumbent,
        exhausted=all(r is None for _b, _c, r in heap),
        nodes=nodes,
        open=sum(r is not None for _b, _c, r in heap),
        columns=len(pool),
        runtime=time.perf_counter() - began,
        history=history,
    )


def bp_bound(
    inst: EdgeCloudInstance, deadline: Any, incumbent: float = math.inf
) -> dict[str, float]:
    """``{"branch_price": bound}`` within what is left of ``deadline`` (for ``certified_solve``)."""
    res = branch_and_price(inst, incumbent=incumbent, time_limit=deadline.remaining())
    return {"branch_price": res.bound} if math.isfinite(res.bound) else {}
