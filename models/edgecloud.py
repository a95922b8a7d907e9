r"""Offline model of Wang et al. (edge-cloud, preemptive): exact MILP of problem (2).

Exact MILP of (2a)-(2k) (and (7b)-(7d) with ``storage``)
---------------------------------------------------------
It implements the readings of ``docs/edgecloud.md`` / ``docs/errata.md``
that the checker (:mod:`optsched.edgecloud.check`) enforces: (2b) per
chunk, a chunk is dispatched to one worker and never migrates, one chunk per
worker and slot, no preemption of cloud chunks, ``c_j`` = last slot with a
run, ``zeta_j = 1`` iff every run and every PS row of job ``j`` is in the
cloud.  Indices: jobs ``j``, chunks ``d``, servers ``s`` (edge ``0..S_e - 1``,
the cloud ``c = inst.cloud``), local workers ``w`` / PSs ``p`` 0-based as in
the instance, slots ``t`` 1-based as in the paper.  ``k_j0, k_j1`` are
``inst.chunk_slots[j, zeta]``: the slots one chunk needs at ``n_j`` of
Eq. (1) for ``zeta_j = 0, 1`` (``k_j1 <= k_j0``); ``(2b)`` per chunk is
``|slots of d| >= k_j,zeta_j`` for integer slot counts.

The cloud has unlimited workers and PSs; it is modelled with one virtual
worker per chunk (index ``sum_{j' < j} D_j' + d``, as in
``optsched.edgecloud.schedule.cloud_only``) and one PS per job (index ``j``).
Since cloud workers and PSs have no capacity, any checker-feasible schedule
can be re-indexed this way without changing a constraint or ``c_j``.

Variables (all created only where the paper's domain allows them):

* ``x[j, d, s, w]`` binary: chunk ``d`` is dispatched to worker ``w`` of
  ``s``; only for qualified workers (this *is* (2a), ``v_jsw = 1``) on
  servers where the chunk can still finish by ``T`` (``r_j + Delta_js +
  k - 1 <= T`` with ``k = k_j0`` on the edge, ``k_j1`` in the cloud);
* ``y[j, d, s, w, t]`` binary: the chunk trains on that worker in slot ``t``,
  only for ``r_j + Delta_js <= t <= T`` ((2i), (2k));
* ``z[j, s, p, t]`` binary: PS ``p`` of ``s`` serves job ``j`` in slot ``t``,
  only for qualified PSs (``o_jsp = 1``) and ``r_j + Delta_js <= t <= T``;
* ``zeta[j]`` binary ((2g)-(2h)); upper bound 0 when no cloud worker is usable;
* ``u[j, t]`` binary: job ``j`` completes in slot ``t`` (``c_j = t``), only
  for ``t >= first_j``, the earliest completion over the usable servers;
* ``st[j, d, t]`` in [0, 1]: a cloud chunk starts (0 -> 1) in slot ``t``.

Constraints (component names carry the equation numbers)::

    sum_{s,w} x[j,d,s,w] == 1                          c2c_dispatch_once
    y[j,d,s,w,t] <= x[j,d,s,w]                          c2c_no_migration
    sum_{s,w,t} y[j,d,s,w,t] >= k_j0 - (k_j0 - k_j1) zeta_j
                                                        c2b_chunk_work
    sum_{j,d} y[j,d,s,w,t] <= 1     (edge s)            c2d_worker_capacity
    sum_{s,p} z[j,s,p,t] <= 1                           c2e_one_ps
    sum_{s,w} y[j,d,s,w,t] <= sum_{s,p} z[j,s,p,t]      c2e_ps_when_training
    sum_j z[j,s,p,t] <= 1           (edge s)            c2f_ps_capacity
    zeta_j + sum_{edge s,w} x[j,d,s,w] <= 1             c2h_zeta_edge_worker
    zeta_j + sum_{edge s,p} z[j,s,p,t] <= 1             c2h_zeta_edge_ps
    zeta_j + sum_{d, edge s,w} x + sum_{t, edge s,p} z >= 1
                                                        c2g_zeta_all_cloud
    st[j,d,t] >= y[j,d,c,w,t] - y[j,d,c,w,t-1]          sec3_cloud_start
    sum_t st[j,d,t] <= 1                                sec3_cloud_no_preemption
    sum_t u[j,t] == 1                                   c2j_completion_once
    sum_{s,w} y[j,d,s,w,t] <= sum_{t' >= t} u[j,t']     c2j_completion_upper
    u[j,t] <= sum_{d,s,w} y[j,d,s,w,t]                  c2j_completion_lower
    objective (2) = sum_{j,t} (t - r_j) u[j,t]          obj

In formulas: the objective and the rows that carry (2b) per chunk and
the completion slot (2j) of the sum:

.. math::

   \min\ & \sum_{j} \sum_{t \ge \mathrm{first}_j} (t - r_j) \, u_{j,t} \\
   \text{s.t.}\ & \sum_{s,w,t} y_{j,d,s,w,t} \ge k_{j0} - (k_{j0} - k_{j1}) \, \zeta_j
       \quad \forall j, d, \qquad \sum_t u_{j,t} = 1, \\
   & u_{j,t} \le \sum_{d,s,w} y_{j,d,s,w,t}, \qquad
       \sum_{s,w} y_{j,d,s,w,t} \le \sum_{t' \ge t} u_{j,t'} \quad \forall j, d, t.

(2a), (2i) and (2k) hold by the variable domains.  Capacity rows with a
single term are not written (the variable is binary).

Why this is exact.  *Model -> schedule*: take an integer feasible point and
write a run row for every ``y = 1`` (cloud virtual worker as above), a PS
row for every ``z = 1`` and ``zeta`` as in the model.  Every chunk has one
dispatch and runs only on it (2c); (2d), (2e), (2f) are the rows above;
(2h) holds because ``zeta_j = 1`` forbids any edge dispatch and any edge PS
(an edge dispatch means edge runs: the chunk's runs are all on its
dispatched worker and there are ``>= k_j1 >= 1`` of them), and (2g) because
``zeta_j = 0`` needs an edge dispatch or an edge PS row; a cloud chunk has
at most one 0 -> 1 transition, so its slots are consecutive (Sec. III);
(2b) per chunk is ``c2b`` with the declared ``zeta_j``.  If ``u[j,t] = 1``
the upper rows forbid runs after ``t`` and the lower row puts a run in
``t``, so ``t`` is the last slot with a run, ``c_j`` of (2j), and the
objective equals the checker's ``sum_j (c_j - r_j)``.  *Schedule -> model*:
every checker-feasible schedule sets ``x`` to its chunk's (only) worker,
``y``, ``z`` to its rows (cloud ones re-indexed), ``zeta`` to the declared
value, ``u[j, c_j] = 1`` and ``st`` to the first slot of each cloud chunk;
every variable it needs exists (a chunk on ``s`` runs ``>= k`` slots in
``[r_j + Delta_js, T]``, so ``s`` is usable and ``c_j >= first_j``) and
every row holds, with the same objective (:func:`start_values` does this
and the tests verify it row by row).  So both feasible sets map onto each
other with equal objectives and the optima coincide.

Storage (Sec. VI, (7a)-(7d)), on when the instance has storage (some
``U_s``): a chunk dispatched to edge server ``s`` occupies ``u_j`` there in
every slot of ``[r_j, c_j]`` (the reading of docs/edgecloud.md; (7a) is the
dispatch itself).  With ``N[j, s] = sum_{d,w} x[j,d,s,w]`` (chunks of ``j``
on ``s``) and ``[t <= c_j] = sum_{t' >= t} u[j,t']`` the occupancy
``occ[j,s,t] = N[j,s] [t <= c_j]`` is the product of an integer in
``[0, D_j]`` and a binary, linearised exactly for a ``<=`` capacity row by::

    occ[j,s,t] >= N[j,s] - D_j (1 - sum_{t' >= t} u[j,t'])    c7c_occupancy
    sum_j u_j occ[j,s,t] <= U_s                                c7b_storage

(``occ >= 0``; for ``t < first_j`` the bracket is 1).  Any feasible point
has ``occ`` at least the true occupancy, and the true occupancy is a
feasible value, so the projection onto the schedule variables is exactly
the set of schedules satisfying (7b).  (8)-(9) (the reformulated ILP and its
dual) are not written here.

Formulation v2 (``build_model(..., formulation="v2")``): v1 (the rows
above) plus the *work-by-completion* rows, per chunk ``d`` of job ``j``
and slot ``t`` from ``first_j`` to ``T - 1``::

    W[j,d,t] = sum_{t' <= t} sum_{s,w} y[j,d,s,w,t']            v2_work
    U[j,t]   = sum_{first_j <= t' <= t} u[j,t']                  v2_done
    W[j,d,t] >= k_j0 U[j,t] - (k_j0 - k_j1) zeta_j              v2_work_by_completion

(``W``, ``U`` continuous, defined by the equalities).  Valid: at an
integer point with ``c_j <= t`` (``U = 1``) every run of the chunk lies in
a slot ``<= c_j`` (c2j_completion_upper) and (2b) gives at least ``k_j0 -
(k_j0 - k_j1) zeta_j`` of them; with ``U = 0`` the right side is ``<= 0``.
So v2 has exactly v1's integer points (same optimum), and its LP
relaxation is never weaker: v1's lets a job "complete" early with a
fraction of its work done.  Measured (``generate(seed, 20, 3, 30,
max_chunks=2, slot_hours=24, 2 + 2 types)``, seeds 0 / 2 / 3 / 4): LP
bound 103.4 / 90.2 / 83.7 / 95.2 (v1) -> 105.9 / 91.4 / 85.1 / 102.6
(v2); on seed 4 HiGHS's bound after 60 s 104 -> 108 (incumbent 118).

Formulation v3 (``build_model(..., formulation="v3")``): v2 plus an order
on the chunks of a job, for every job ``j`` and chunk ``d < D_j - 1``::

    sum_{s,w} rank(s,w) x[j,d,s,w] <= sum_{s,w} rank(s,w) x[j,d+1,s,w]
                                                        v3_chunk_order

with :func:`worker_rank` numbering the edge workers by ``(server,
worker)`` and giving every cloud (virtual) worker one rank after them.
Valid: the chunks of a job are interchangeable (same slots needed, same
usable servers and workers; a cloud chunk's virtual worker follows its
index), so renumbering a job's chunks by the rank of their workers
(:func:`relabel_chunks`, stable) maps any schedule to one that meets the
rows with the same objective; :func:`start_values` does this for the MIP
start.  So v3 has v2's optimum and removes up to ``D_j!`` copies of every
schedule from the branch-and-bound tree.

Measured sizes (this machine, 2 cores shared with other work, highspy
1.16.0, ``threads=1``, MIP start = the all-cloud schedule, 60 s limit) on
``generate(seed, n_jobs, n_servers, n_slots=30, max_chunks=2,
slot_hours=24, n_worker_types=2, n_ps_types=2)`` (default 2/4/8 workers per
edge server), seeds 0 and 1:

* 10 jobs, 2 edge servers (about 5,000 variables): optimal in 12-13 s;
* 15 jobs, 3 edge servers: seed 1 optimal in 21 s, seed 0 not closed
  (incumbent 92, bound 84);
* 20 jobs, 3 edge servers: seed 1 optimal in 33 s, seed 0 not closed
  (156 / 112); 30 jobs: not closed (282 / 179);
* ``n_slots=40, max_chunks=3``, 10 jobs, 3 edge servers: neither closed.

So about 10 jobs x 2 edge servers x 30 slots is the size that is reliably
proven within 60 s.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from optsched.core.base import OfflineResult, certified_solve
from optsched.core.errors import InvalidInstanceError
from optsched.core.solver import Deadline
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule

__all__ = [
    "DEFAULT_FORMULATION",
    "FORMULATIONS",
    "FORMULATION_NAMES",
    "build_model",
    "extract_schedule",
    "jct_bound",
    "solve_offline",
    "start_values",
]


def _chunk_offset(inst: EdgeCloudInstance) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(inst.D))).astype(np.int64)


def _usable(inst: EdgeCloudInstance) -> tuple[list, np.ndarray]:
    """Usable (server, worker list, first slot, slots needed) per job; ``first_j``.

    A server is usable for job ``j`` when it has a qualified worker and one
    chunk can finish there by ``T`` (``k_j0`` slots on the edge, at least
    ``k_j1`` in the cloud).  ``first_j`` is the earliest completion slot.
    """
    T, c = inst.n_slots, inst.cloud
    k = inst.chunk_slots
    usable, first = [], np.full(inst.n_jobs, T + 1, dtype=np.int64)
    for j, job in enumerate(inst.jobs):
        rows = []
        for s in range(c + 1):
            ready = int(inst.arrival[j] + inst.delay[j, s])
            need = int(k[j, 1] if s == c else k[j, 0])
            if ready + need - 1 > T:
                continue
            workers: list[Any] | np.ndarray  # [None] or ints (an array in between)
            if s == c:
                workers = [None]  # one virtual cloud worker per chunk
            else:
                workers = np.flatnonzero(inst.worker_types[s] == job.worker_type)
                workers = [int(w) for w in workers]
                if not workers:
                    continue
            rows.append((s, workers, ready, need))
            first[j] = min(first[j], ready + need - 1)
        usable.append(rows)
    return usable, first


def build_model(
    inst: EdgeCloudInstance,
    *,
    relax: bool = False,
    storage: bool | None = None,
    deadline: Deadline | None = None,
    formulation: str = "v1",
) -> pyo.ConcreteModel:
    """Exact MILP of problem (2) (minimise total JCT), or its LP relaxation.

    Constraint components carry the paper's equation numbers (module
    docstring): ``c2b_chunk_work``, ``c2c_dispatch_once``,
    ``c2c_no_migration``, ``c2d_worker_capacity``, ``c2e_one_ps``,
    ``c2e_ps_when_training``, ``c2f_ps_capacity``, ``c2g_zeta_all_cloud``,
    ``c2h_zeta_edge_worker``, ``c2h_zeta_edge_ps``, ``sec3_cloud_start``,
    ``sec3_cloud_no_preemption``, ``c2j_completion_once``,
    ``c2j_completion_upper``, ``c2j_completion_lower`` and, with storage,
    ``c7c_occupancy`` and ``c7b_storage``; the objective ``obj`` is (2).

    Parameters
    ----------
    inst
        The instance.
    relax
        Make every variable continuous (LP relaxation).
    storage
        Model the storage extension (7b)-(7d).  None (default) = exactly when
        the instance has storage (``inst.storage``), as the checker does;
        False on an instance with storage gives problem (2) without (7),
        a relaxation.
    deadline
        Budget of the caller (:class:`optsched.core.solver.Deadline`),
        checked per job and chunk, and per constraint row.
    formulation
        ``"v1"`` (the rows of the module docstring), ``"v2"`` (v1 and the
        work-by-completion rows, "Formulation v2" there) or ``"v3"`` (v2
        and the chunk order, "Formulation v3").

    Returns
    -------
    pyomo.environ.ConcreteModel
        Minimisation model; index data are kept in ``model._edgecloud``.

    Raises
    ------
    InvalidInstanceError
        If some job cannot complete by ``T`` on any server (the instance is
        infeasible; :func:`solve_offline` reports status ``infeasible``).
    ValueError
        If ``formulation`` is not one of :data:`FORMULATION_NAMES`.
    optsched.core.solver.DeadlineExceeded
        When ``deadline`` runs out during the building.
    """
    if formulation not in FORMULATION_NAMES:
        raise ValueError(
            f"formulation: must be one of {FORMULATION_NAMES}, got {formulation!r}"
        )
    dl = Deadline(None) if deadline is None else deadline
    usable, first = _usable(inst)
    for j in range(inst.n_jobs):
        if not usable[j]:
            raise InvalidInstanceError(
                f"n_slots: job {j} cannot complete by T = {inst.n_slots} on any server"
            )
    use_storage = inst.storage if storage is None else bool(storage)
    idx = _index(inst, usable, first, dl)
    m = pyo.ConcreteModel(name="edgecloud_relaxed" if relax else "edgecloud")
    m._edgecloud = {
        "first": first,
        "usable": usable,
        "offset": _chunk_offset(inst),
        "storage": use_storage,
    }
    _add_variables(m, idx, relax)
    g = _group(m, inst, idx, dl)
    r = inst.arrival
    # objective (2)
    m.obj = pyo.Objective(
        expr=pyo.quicksum(
            float(t - r[j]) * m.u[j, t] for j, t in dl.iterate(idx.u, "objective (2)")
        ),
        sense=pyo.minimize,
    )
    _add_chunk_rows(m, inst, g, dl)
    _add_zeta_rows(m, inst, g, idx.cloud_usable, dl)
    _add_cloud_rows(m, inst, idx.st, dl)
    later = _add_completion_rows(m, inst, g, dl)
    if use_storage:
        _add_storage(m, inst, idx.x, later, dl)
    _add_formulation(m, inst, formulation, idx.x, list(g.x_chunk), g.y_chunk_t, dl)
    dl.check()
    return m


@dataclasses.dataclass
class _Index:
    """Index lists of the variables of :func:`build_model` (module docstring)."""

    x: list[tuple[int, int, int, int]]
    y: list[tuple[int, int, int, int, int]]
    z: list[tuple[int, int, int, int]]
    u: list[tuple[int, int]]
    st: list[tuple[int, int, int]]
    cloud_usable: list[bool]


def _index(inst: EdgeCloudInstance, usable: list, first, dl: Deadline) -> _Index:
    """Where the paper's domain allows each variable (module docstring)."""
    T, c, J = inst.n_slots, inst.cloud, inst.n_jobs
    off = _chunk_offset(inst)
    x_idx: list[tuple[int, int, int, int]] = []
    y_idx: list[tuple[int, int, int, int, int]] = []
    for j in range(J):
        for d in dl.iterate(range(int(inst.D[j])), "building the variables", every=1):
            for s, workers, ready, _need in usable[j]:
                for w in workers:
                    w = int(off[j] + d) if w is None else w
                    x_idx.append((j, d, s, w))
                    y_idx.extend((j, d, s, w, t) for t in range(ready, T + 1))
    z_idx: list[tuple[int, int, int, int]] = []
    for j, job in enumerate(inst.jobs):
        for s in range(c + 1):
            ready = int(inst.arrival[j] + inst.delay[j, s])
            if s == c:
                ps = [j]
            else:
                ps = [int(p) for p in np.flatnonzero(inst.ps_types[s] == job.ps_type)]
            z_idx.extend((j, s, p, t) for p in ps for t in range(ready, T + 1))
    return _Index(
        x=x_idx,
        y=y_idx,
        z=z_idx,
        u=[(j, t) for j in range(J) for t in range(int(first[j]), T + 1)],
        # one start indicator per cloud run variable
        st=[(j, d, t) for j, d, s, w, t in y_idx if s == c],
        cloud_usable=[any(s == c for s, *_ in usable[j]) for j in range(J)],
    )


def _add_variables(m: pyo.ConcreteModel, idx: _Index, relax: bool) -> None:
    """The sets and variables of the module docstring on ``m``.

    ``zeta[j]`` of a job without a usable cloud worker gets the upper bound
    0 (a bound, not ``fix(0)``: Pyomo's persistent HiGHS interface re-applies
    a fixed variable's value as bounds when the solve begins, which drops
    the MIP start; ``tests/core/test_solver_start_fixed.py``).
    """
    bin_dom = pyo.UnitInterval if relax else pyo.Binary
    m.X = pyo.Set(initialize=idx.x, dimen=4, ordered=True)
    m.Y = pyo.Set(initialize=idx.y, dimen=5, ordered=True)
    m.Z = pyo.Set(initialize=idx.z, dimen=4, ordered=True)
    m.U = pyo.Set(initialize=idx.u, dimen=2, ordered=True)
    m.ST = pyo.Set(initialize=idx.st, dimen=3, ordered=True)
    m.J = pyo.Set(initialize=range(len(idx.cloud_usable)), ordered=True)
    m.x = pyo.Var(m.X, domain=bin_dom)
    m.y = pyo.Var(m.Y, domain=bin_dom)
    m.z = pyo.Var(m.Z, domain=bin_dom)
    m.u = pyo.Var(m.U, domain=bin_dom)
    m.zeta = pyo.Var(m.J, domain=bin_dom)
    m.st = pyo.Var(m.ST, domain=pyo.UnitInterval)
    for j, ok in enumerate(idx.cloud_usable):
        if not ok:
            m.zeta[j].setub(0)


@dataclasses.dataclass
class _Groups:
    """The variables of :func:`build_model` grouped by the rows they enter."""

    x_chunk: dict[tuple[int, int], list]
    x_chunk_edge: dict[tuple[int, int], list]
    y_chunk: dict[tuple[int, int], list]
    y_chunk_t: dict[tuple[int, int, int], list]
    y_job_t: dict[tuple[int, int], list]
    y_worker_t: dict[tuple[int, int, int], list]
    z_job_t: dict[tuple[int, int], list]
    z_job_t_edge: dict[tuple[int, int], list]
    z_ps_t: dict[tuple[int, int, int], list]


def _group(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, idx: _Index, dl: Deadline
) -> _Groups:
    """Group ``m``'s dispatch, run and PS variables by chunk, job, worker and slot."""
    c = inst.cloud
    g = _Groups(*(defaultdict(list) for _ in dataclasses.fields(_Groups)))
    for j, d, s, w in idx.x:
        g.x_chunk[j, d].append(m.x[j, d, s, w])
        if s != c:
            g.x_chunk_edge[j, d].append(m.x[j, d, s, w])
    for j, d, s, w, t in dl.iterate(idx.y, "grouping the variables", every=4096):
        v = m.y[j, d, s, w, t]
        g.y_chunk[j, d].append(v)
        g.y_chunk_t[j, d, t].append(v)
        g.y_job_t[j, t].append(v)
        if s != c:
            g.y_worker_t[s, w, t].append(v)
    for j, s, p, t in idx.z:
        v = m.z[j, s, p, t]
        g.z_job_t[j, t].append(v)
        if s != c:
            g.z_job_t_edge[j, t].append(v)
            g.z_ps_t[s, p, t].append(v)
    return g


def _add_chunk_rows(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, g: _Groups, dl: Deadline
) -> None:
    """(2b)-(2f): dispatch, no migration, work per chunk, worker and PS capacity."""
    k0, k1 = inst.chunk_slots[:, 0], inst.chunk_slots[:, 1]
    chunks = list(g.x_chunk)
    # (2c) one worker per chunk, no migration
    m.c2c_dispatch_once = dl.constraint(
        chunks, rule=lambda _, j, d: pyo.quicksum(g.x_chunk[j, d]) == 1
    )
    m.c2c_no_migration = dl.constraint(
        m.Y, rule=lambda _, j, d, s, w, t: m.y[j, d, s, w, t] <= m.x[j, d, s, w]
    )
    # (2b) per chunk (as (4a)), slots needed at the declared zeta_j
    m.c2b_chunk_work = dl.constraint(
        chunks,
        rule=lambda _, j, d: (
            pyo.quicksum(g.y_chunk[j, d]) >= int(k0[j]) - int(k0[j] - k1[j]) * m.zeta[j]
        ),
    )
    # (2d) as (4b): one chunk per edge worker and slot
    rows: list[tuple[int, ...]] = [
        key for key, vs in g.y_worker_t.items() if len(vs) > 1
    ]
    m.c2d_worker_capacity = dl.constraint(
        rows, rule=lambda _, s, w, t: pyo.quicksum(g.y_worker_t[s, w, t]) <= 1
    )
    # (2e) one PS in each training slot, at most one PS per job and slot
    rows = [key for key, vs in g.z_job_t.items() if len(vs) > 1]
    m.c2e_one_ps = dl.constraint(
        rows, rule=lambda _, j, t: pyo.quicksum(g.z_job_t[j, t]) <= 1
    )
    m.c2e_ps_when_training = dl.constraint(
        list(g.y_chunk_t),
        rule=lambda _, j, d, t: (
            pyo.quicksum(g.y_chunk_t[j, d, t])
            <= pyo.quicksum(g.z_job_t.get((j, t), []))
        ),
    )
    # (2f) an edge PS serves one job per slot
    rows = [key for key, vs in g.z_ps_t.items() if len(vs) > 1]
    m.c2f_ps_capacity = dl.constraint(
        rows, rule=lambda _, s, p, t: pyo.quicksum(g.z_ps_t[s, p, t]) <= 1
    )


def _add_zeta_rows(
    m: pyo.ConcreteModel,
    inst: EdgeCloudInstance,
    g: _Groups,
    cloud_usable: list[bool],
    dl: Deadline,
) -> None:
    """(2g)-(2h): ``zeta_j = 1`` iff nothing of job ``j`` is on the edge."""
    m.c2h_zeta_edge_worker = dl.constraint(
        list(g.x_chunk_edge),
        rule=lambda _, j, d: m.zeta[j] + pyo.quicksum(g.x_chunk_edge[j, d]) <= 1,
    )
    m.c2h_zeta_edge_ps = dl.constraint(
        list(g.z_job_t_edge),
        rule=lambda _, j, t: m.zeta[j] + pyo.quicksum(g.z_job_t_edge[j, t]) <= 1,
    )

    def all_cloud(_, j):
        edge = [v for (jj, _d), vs in g.x_chunk_edge.items() if jj == j for v in vs]
        edge += [v for (jj, _t), vs in g.z_job_t_edge.items() if jj == j for v in vs]
        return m.zeta[j] + pyo.quicksum(edge) >= 1

    m.c2g_zeta_all_cloud = dl.constraint(
        [j for j in range(inst.n_jobs) if cloud_usable[j]], rule=all_cloud
    )


def _add_cloud_rows(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, st_idx: list, dl: Deadline
) -> None:
    """Sec. III: no preemption in the cloud (at most one start per cloud chunk)."""
    c, off = inst.cloud, m._edgecloud["offset"]

    def cloud_start(_, j, d, t):
        w = int(off[j] + d)
        prev = m.y[j, d, c, w, t - 1] if (j, d, c, w, t - 1) in m.Y else 0
        return m.st[j, d, t] >= m.y[j, d, c, w, t] - prev

    m.sec3_cloud_start = dl.constraint(m.ST, rule=cloud_start)
    st_chunk: dict[tuple[int, int], list] = defaultdict(list)
    for j, d, t in st_idx:
        st_chunk[j, d].append(m.st[j, d, t])
    m.sec3_cloud_no_preemption = dl.constraint(
        list(st_chunk), rule=lambda _, j, d: pyo.quicksum(st_chunk[j, d]) <= 1
    )


def _add_completion_rows(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, g: _Groups, dl: Deadline
) -> Callable[[int, int], Any]:
    """(2j): ``c_j`` = the last slot with a run, by completion indicators.

    Returns ``later(j, t)`` = ``sum_{t' >= t} u[j, t']`` (``[t <= c_j]``),
    which the storage rows use.
    """
    T, first = inst.n_slots, m._edgecloud["first"]

    def later(j: int, t: int):
        return pyo.quicksum(m.u[j, s] for s in range(max(t, int(first[j])), T + 1))

    m.c2j_completion_once = dl.constraint(
        m.J,
        rule=lambda _, j: pyo.quicksum(m.u[j, t] for t in range(first[j], T + 1)) == 1,
    )
    m.c2j_completion_upper = dl.constraint(
        [key for key in g.y_chunk_t if key[2] > first[key[0]]],
        rule=lambda _, j, d, t: pyo.quicksum(g.y_chunk_t[j, d, t]) <= later(j, t),
    )
    m.c2j_completion_lower = dl.constraint(
        m.U,
        rule=lambda _, j, t: m.u[j, t] <= pyo.quicksum(g.y_job_t.get((j, t), [])),
    )
    return later


def _add_formulation(m, inst, formulation, x_idx, chunks, y_chunk_t, dl) -> None:
    """The rows a formulation adds to v1's (module docstring)."""
    if formulation in ("v2", "v3"):
        _add_work_by_completion(m, inst, chunks, y_chunk_t, dl)
    if formulation == "v3":
        _add_chunk_order(m, inst, x_chunk_keys(x_idx), dl)


def worker_rank(inst: EdgeCloudInstance, s: int, w: int) -> int:
    """Rank of worker ``w`` of server ``s`` in formulation v3's chunk order.

    Edge workers by ``(server, worker)``; every cloud (virtual) worker has
    the one rank after them, so the order never separates cloud chunks.
    """
    width = 1 + max((len(t) for t in inst.worker_types), default=0)
    return (inst.cloud if s == inst.cloud else s) * width + (
        0 if s == inst.cloud else w
    )


def x_chunk_keys(x_idx) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """``(job, chunk) -> [(server, worker), ...]`` of the dispatch variables."""
    out: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for j, d, s, w in x_idx:
        out[j, d].append((s, w))
    return out


def _add_chunk_order(m, inst: EdgeCloudInstance, keys, dl: Deadline) -> None:
    """The rows of formulation v3 (module docstring, "Formulation v3")."""

    def rank(j: int, d: int):
        return pyo.quicksum(
            worker_rank(inst, s, w) * m.x[j, d, s, w] for s, w in keys[j, d]
        )

    pairs = [(j, d) for j, d in keys if (j, d + 1) in keys]
    m.v3_chunk_order = dl.constraint(
        pairs, rule=lambda _, j, d: rank(j, d) <= rank(j, d + 1)
    )


def relabel_chunks(
    inst: EdgeCloudInstance, sched: EdgeCloudSchedule
) -> EdgeCloudSchedule:
    """``sched`` with each job's chunks renumbered by :func:`worker_rank` (stable).

    Chunks of a job are interchangeable (same slots needed, same servers
    usable), so the checker's value is unchanged; the result meets
    formulation v3's order rows (tested).
    """
    runs = np.asarray(sched.runs).copy()
    for j in range(inst.n_jobs):
        mine = runs[:, 0] == j
        if not mine.any():
            continue
        rank = {}
        for _j, d, _t, s, w in runs[mine].tolist():
            rank[d] = worker_rank(inst, s, w)
        order = sorted(rank, key=lambda d: (rank[d], d))
        new = {old: k for k, old in enumerate(order)}
        runs[mine, 1] = [new[d] for d in runs[mine, 1].tolist()]
    return dataclasses.replace(sched, runs=runs)


def _add_work_by_completion(
    m: pyo.ConcreteModel,
    inst: EdgeCloudInstance,
    chunks: list[tuple[int, int]],
    y_chunk_t: dict[tuple[int, int, int], list],
    dl: Deadline,
) -> None:
    """The rows of formulation v2 (module docstring, "Formulation v2")."""
    T, first = inst.n_slots, m._edgecloud["first"]
    k0, k1 = inst.chunk_slots[:, 0], inst.chunk_slots[:, 1]
    keys = [(j, d, t) for j, d in chunks for t in range(int(first[j]), T)]
    done = [(j, t) for j in range(inst.n_jobs) for t in range(int(first[j]), T)]
    m.W = pyo.Var(keys, bounds=(0.0, None))
    m.Ucum = pyo.Var(done, bounds=(0.0, 1.0))

    def runs(j: int, d: int, t: int) -> list:
        if t > first[j]:
            return y_chunk_t.get((j, d, t), [])
        return [v for tt in range(t + 1) for v in y_chunk_t.get((j, d, tt), [])]

    def work(_, j, d, t):
        before = m.W[j, d, t - 1] if t > first[j] else 0.0
        return m.W[j, d, t] == before + pyo.quicksum(runs(j, d, t))

    def done_by(_, j, t):
        before = m.Ucum[j, t - 1] if t > first[j] else 0.0
        return m.Ucum[j, t] == before + m.u[j, t]

    m.v2_work = dl.constraint(keys, rule=work)
    m.v2_done = dl.constraint(done, rule=done_by)
    m.v2_work_by_completion = dl.constraint(
        keys,
        rule=lambda _, j, d, t: (
            m.W[j, d, t] >= int(k0[j]) * m.Ucum[j, t] - int(k0[j] - k1[j]) * m.zeta[j]
        ),
    )


def _add_storage(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, x_idx, later, dl: Deadline
) -> None:
    """(7b)-(7d): chunks on edge server ``s`` occupy ``u_j`` there in ``[r_j, c_j]``."""
    T, c = inst.n_slots, inst.cloud
    x_js: dict[tuple[int, int], list] = defaultdict(list)
    for j, d, s, w in x_idx:
        if s != c and inst.servers[s].storage_mb is not None:
            if inst.jobs[j].chunk_mb > 0:
                x_js[j, s].append(m.x[j, d, s, w])
    occ_idx = [(j, s, t) for (j, s) in x_js for t in range(int(inst.arrival[j]), T + 1)]
    m.OCC = pyo.Set(initialize=occ_idx, dimen=3, ordered=True)
    m.occ = pyo.Var(m.OCC, domain=pyo.NonNegativeReals)

    def occupancy(_, j, s, t):
        D = int(inst.D[j])
        return m.occ[j, s, t] >= pyo.quicksum(x_js[j, s]) - D * (1 - later(j, t))

    m.c7c_occupancy = dl.constraint(m.OCC, rule=occupancy)
    users: dict[tuple[int, int], list] = defaultdict(list)
    for j, s, t in occ_idx:
        users[s, t].append(j)
    rows = {}
    for (s, t), js in dl.iterate(users.items(), "building (7b)"):
        cap = float(inst.servers[s].storage_mb)
        most = sum(inst.jobs[j].chunk_mb * len(x_js[j, s]) for j in js)
        if most <= cap:
            continue  # cannot bind
        # an edge chunk counts at most once (dispatch == 1), so most is an upper bound
        rows[s, t] = (
            pyo.quicksum(float(inst.jobs[j].chunk_mb) * m.occ[j, s, t] for j in js)
            <= cap
        )
    m.c7b_storage = dl.constraint(list(rows), rule=lambda _, s, t: rows[s, t])


def extract_schedule(
    model: pyo.ConcreteModel, inst: EdgeCloudInstance
) -> EdgeCloudSchedule:
    """Read ``y_jdsw(t)``, ``z_jsp(t)`` and ``zeta_j`` from a solved model.

    Values are rounded (HiGHS returns integers up to its integrality
    tolerance).  Cloud workers keep the model's virtual index (one per
    chunk), cloud PSs the job index.  PS rows in slots where the job does
    not train cost nothing in the model and are dropped, and ``zeta_j`` is
    re-derived by (2g)-(2h) (``EdgeCloudSchedule.build``): this keeps every
    constraint ((2f) only loosens; a job that becomes all-cloud gets
    ``zeta_j = 1`` and needs ``k_j1 <= k_j0`` slots) and every ``c_j``.
    Meaningful for integer solutions only.
    """
    runs = [
        (j, d, t, s, w)
        for (j, d, s, w, t), v in model.y.items()
        if v.value is not None and v.value > 0.5
    ]
    training = {(j, t) for j, _d, t, _s, _w in runs}
    ps = [
        (j, t, s, p)
        for (j, s, p, t), v in model.z.items()
        if v.value is not None and v.value > 0.5 and (j, t) in training
    ]
    return EdgeCloudSchedule.build(inst, sorted(runs), sorted(ps), algorithm="milp")


#: The formulations of :func:`build_model` (module docstring).
FORMULATION_NAMES: tuple[str, ...] = ("v1", "v2", "v3")
#: The one :func:`solve_offline` uses unless told otherwise.
DEFAULT_FORMULATION = "v1"


def start_values(
    model: pyo.ConcreteModel, inst: EdgeCloudInstance, sched: EdgeCloudSchedule
) -> ComponentMap:
    """The point of :func:`build_model` that a checker-feasible ``sched`` maps to.

    Cloud workers are re-indexed to the chunk's virtual worker and cloud PSs
    to the job's one cloud PS (module docstring); every variable gets a
    value, so HiGHS receives a full solution, and the model's objective at
    this point equals the checker's objective of ``sched``.

    Raises
    ------
    ValueError
        If ``sched`` needs a variable the model does not have (it is then
        not checker-feasible).
    """
    c, off = inst.cloud, model._edgecloud["offset"]
    if hasattr(model, "v3_chunk_order"):  # formulation v3: chunks in worker order
        sched = relabel_chunks(inst, sched)
    values = ComponentMap((v, 0.0) for v in model.component_data_objects(pyo.Var))
    completion = sched.completion(inst.n_jobs)

    def put(var, key):
        if key not in var:
            raise ValueError(f"schedule row {key} has no variable in the model")
        values[var[key]] = 1.0

    cloud_slots: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, d, t, s, w in np.asarray(sched.runs).tolist():
        if s == c:
            w = int(off[j] + d)
            cloud_slots[j, d].append(t)
        put(model.x, (j, d, s, w))
        put(model.y, (j, d, s, w, t))
    for j, t, s, p in np.asarray(sched.ps).tolist():
        put(model.z, (j, s, j if s == c else p, t))
    for (j, d), slots in cloud_slots.items():
        put(model.st, (j, d, min(slots)))
    for j in range(inst.n_jobs):
        values[model.zeta[j]] = float(bool(sched.zeta[j]))
        put(model.u, (j, int(completion[j])))
    if hasattr(model, "W"):  # formulation v2: running work and completion
        for (j, d, t), v in model.W.items():
            values[v] = float(sum(values[y] for y in _chunk_runs_until(model, j, d, t)))
        for (j, t), v in model.Ucum.items():
            values[v] = float(completion[j] <= t)
    if hasattr(model, "occ"):
        n_js: dict[tuple[int, int], int] = defaultdict(int)
        edge = {
            (j, d, s) for j, d, _t, s, _w in np.asarray(sched.runs).tolist() if s != c
        }
        for j, _d, s in edge:
            n_js[j, s] += 1
        for (j, s, t), v in model.occ.items():
            inside = inst.arrival[j] <= t <= completion[j]
            values[v] = float(n_js[j, s] if inside else 0)
    return values


def _chunk_runs_until(model: pyo.ConcreteModel, j: int, d: int, t: int) -> list:
    """The run variables ``y[j, d, s, w, t']`` with ``t' <= t``."""
    index = model._edgecloud.setdefault("chunk_runs", defaultdict(list))
    if not index:
        for jj, dd, s, w, tt in model.Y:
            index[jj, dd].append((tt, model.y[jj, dd, s, w, tt]))
    return [v for tt, v in index[j, d] if tt <= t]


def jct_bound(inst: EdgeCloudInstance) -> float:
    """A valid lower bound on (2) without a solve: ``sum_j (first_j - r_j)``.

    ``first_j`` is the earliest completion slot over the usable servers
    (:func:`_usable`); every schedule completes job ``j`` no earlier.
    """
    _, first = _usable(inst)
    return float(sum(int(first[j]) - int(inst.arrival[j]) for j in range(inst.n_jobs)))


def solve_offline(
    inst: EdgeCloudInstance,
    *,
    time_limit: float | None = 60.0,
    start: EdgeCloudSchedule | None = None,
    threads: int | None = None,
    verbose: bool = False,
    confirm: str | None = None,
    formulation: str | None = None,
    extra_bounds: Callable[[Deadline], Mapping[str, float]] | None = None,
    bound_reserve: float = 0.0,
) -> OfflineResult:
    """Offline optimum of (2) (with (7) when the instance has storage) by HiGHS.

    The steps are :func:`optsched.core.base.certified_solve`'s.

    Parameters
    ----------
    inst
        The instance.
    time_limit
        Wall-clock limit in seconds for the whole call (None = none): model
        building, the MIP start and HiGHS, which gets what is left (HiGHS,
        and Pyomo handing it a large model, may overshoot).
    start
        A checked schedule of ``inst`` handed to HiGHS as MIP start
        (:func:`start_values`) and kept as incumbent when HiGHS stops at the
        limit without a better one; None: no start.  The harness passes the
        better of the all-cloud schedule and A_online's
        (:func:`optsched.edgecloud.paper.default_start`), so a time-limited
        solve never reports an incumbent worse than A_online's.
        (:func:`optsched.core.solver.solve` re-solves without the start if
        HiGHS returns another point than the incumbent it reports, a highspy
        1.16.0 defect seen on this model.)
    threads
        HiGHS threads (None = HiGHS default).
    verbose
        Show the HiGHS log.
    confirm
        None, or ``"scip"``: SCIP's second opinion on an optimum HiGHS
        proved (:mod:`optsched.core.confirm` says how;
        ``pip install optsched[scip]``).
    formulation
        ``"v1"``, ``"v2"`` or ``"v3"`` (:func:`build_model`; None:
        :data:`DEFAULT_FORMULATION`).
    extra_bounds, bound_reserve
        Further lower bounds for an unproven result, as in
        :func:`optsched.core.base.certified_solve`: ``extra_bounds(deadline)``
        returns ``{kind: bound}`` (each valid for (2)), computed with the
        ``bound_reserve`` share of ``time_limit`` withheld from HiGHS (0:
        none).  Figs. 12-13 pass the column-generation bound of
        :mod:`optsched.models.edgecloud_colgen` (kind ``colgen``; that
        module imports this one, so it is handed in, not imported here).

    Returns
    -------
    OfflineResult
        ``objective`` is the checker's total JCT of the incumbent (NaN when
        there is none), ``bound`` HiGHS's lower bound, or when not
        proven the larger of it and :func:`jct_bound` (``bound_kind``
        ``milp``, ``combinatorial`` or a kind of ``extra_bounds``), ``status`` from
        :func:`optsched.core.solver.solve` (``optimal`` only when HiGHS proved
        a zero gap; ``infeasible`` also when some job cannot finish by ``T``
        on any server), ``runtime`` the wall time of build + solve.  When
        ``time_limit`` runs out before HiGHS starts: status ``time_limit``,
        ``start`` as incumbent and :func:`jct_bound` as bound; when HiGHS
        stops at the limit without an incumbent as good as ``start``,
        ``start`` is the incumbent.  An instance without jobs is optimal
        with the empty schedule and value 0.

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker (``"start: ..."``), or the incumbent
        does (a model bug, never expected).
    ValueError
        If ``formulation`` is not one of :data:`FORMULATION_NAMES`.
    """
    form = DEFAULT_FORMULATION if formulation is None else formulation
    if form not in FORMULATION_NAMES:
        raise ValueError(
            f"formulation: must be one of {FORMULATION_NAMES}, got {form!r}"
        )

    def build(deadline: Deadline) -> pyo.ConcreteModel | OfflineResult:
        if inst.n_jobs == 0:
            sched = EdgeCloudSchedule.build(inst, [], [], algorithm="milp")
            return OfflineResult(0.0, 0.0, "optimal", deadline.elapsed(), sched)
        try:
            return build_model(inst, deadline=deadline, formulation=form)
        except InvalidInstanceError:
            return OfflineResult(
                math.nan, math.nan, "infeasible", deadline.elapsed(), None
            )

    return certified_solve(
        inst,
        build=build,
        extract=lambda model: extract_schedule(model, inst),
        check=check,
        sense="min",
        time_limit=time_limit,
        start=start,
        start_values=lambda model, sched: start_values(model, inst, sched),
        bound=lambda: jct_bound(inst),
        extra_bounds=extra_bounds,
        bound_reserve=bound_reserve,
        threads=threads,
        verbose=verbose,
        confirm=confirm,
    )


#: Name -> ``solve_offline``-like callable, one per formulation
#: (``benchmarks/frontier.py`` compares them).
FORMULATIONS: dict[str, Callable[..., OfflineResult]] = {
    name: functools.partial(solve_offline, formulation=name)
    for name in FORMULATION_NAMES
}
