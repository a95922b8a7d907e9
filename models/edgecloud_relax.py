"""ILP (4) of Wang et al. (edge-cloud), its LP relaxation and the dual LP (6);
with storage (Sec. VI) ILP (8), its LP relaxation and the dual LP (9).

Sec. IV-B of the seed reformulates MINLP (2) (:mod:`optsched.models.edgecloud`)
as ILP (4): minimise the *average fractional flow time* of the chunks,

    f_jd(y) = sum_{s,w,t} y_jdsw(t) n_jsw / (E_j D_j B_j) (t - r_j)     (3)

subject to (4a) chunk work ``sum_{t,s,w} y_jdsw(t) n_jsw >= E_j B_j``, (4b)
one chunk per worker and slot, (4c) one PS per job in every slot where it
trains, (4d) one job per PS and slot, (4e) one worker per chunk and slot,
(4f)-(4g) ``zeta_j = 1`` iff the whole job (workers and PS) is in the cloud,
(4h) binaries from slot ``r_j + Delta_js`` on.  Lemma 1: the optimum of (4)
is a lower bound on the optimum of (2).  Sec. IV-D relaxes (4h) to
``y >= 0``, drops (4c), (4d), (4f), (4g) (and (4e), "redundant") and writes
the dual (6) with ``alpha_jd`` for (4a) and ``beta_sw(t)`` for (4b).

Readings
--------
Indices, slots and the cloud as in ``docs/edgecloud.md`` and
:mod:`optsched.models.edgecloud`.

1. **Per-slot share of a chunk** ``a_jz`` (``rate="slots"``, default):
   ``a_jz = 1 / k_jz`` with ``k_jz = inst.chunk_slots[j, zeta]`` =
   ``ceil(E_j B_j / n_jz)``, i.e. ``n_jsw`` of (3)/(4a) is read as
   ``E_j B_j / k_jz`` (a chunk trains in whole slots, the ``p`` of Eq. (5) in
   ``docs/edgecloud.md``, A_online reading 1).  With binary ``y`` the
   feasible set of (4a) is the same either way (``sum y n >= E B`` iff
   ``sum y >= k``); only the objective weight changes.  ``rate="printed"``
   uses the printed ``a_jz = n_jz / (E_j B_j)``.  With the printed weight a
   chunk that needs one slot at ``n_j >> E_j B_j`` (common at
   ``slot_hours=24``) gets ``f_jd = n_j / (E_j B_j) (t - r_j) / D_j``, larger
   than its share ``(c_j - r_j) / D_j`` of (2): **Lemma 1 fails for the
   printed ILP (4)** (the proof in App. B assumes ``E_j B_j / n_jsw`` is a
   whole number of slots).  With ``a = 1/k`` the proof goes through:
   ``f_jd`` is ``1/D_j`` times the mean of ``t - r_j`` over the chunk's
   ``k`` slots, ``<= (c_jd - r_j)/D_j``.  Both are tested.
   All rows of (4a) are divided by ``E_j B_j`` (``sum a y >= 1``); this is
   the scaling under which (6) has ``sum alpha`` in its objective.
2. **zeta and the rate** (Eq. (1), (4f)-(4g)), ``ps=True``: cloud runs come
   in two classes, at ``a_j0`` (allowed only when ``zeta_j = 0``) and at
   ``a_j1`` (only when ``zeta_j = 1``); edge runs are at ``a_j0`` and need
   ``zeta_j = 0``; an edge PS needs ``zeta_j = 0``; ``zeta_j = 1`` unless
   some edge run or edge PS exists ((4f)).  Rows per chunk and slot::

       sum_{edge s,w} y + y_cloud,0 <= 1 - zeta_j       c4fg_zeta0_runs
       y_cloud,1 <= zeta_j                              c4fg_zeta1_runs
       sum_{edge s,p} z[j,s,p,t] <= 1 - zeta_j          c4g_edge_ps
       zeta_j + sum_{d,edge,t} y + sum_{edge,t} z >= 1  c4f_all_cloud

   ``ps=False`` (the problem Sec. IV-D dualizes): no ``z``, no ``zeta``;
   edge runs at ``a_j0``, cloud runs at ``a_j1`` (the cloud's best rate, as
   A_greedy's ``Q`` "computed by setting zeta_j = 1"), which relaxes every
   choice of ``zeta``.
3. **The cloud** has unlimited workers; as in the MILP it is one virtual
   worker per chunk (index ``sum_{j'<j} D_j' + d``) with its own (4b) row
   and ``beta``, and one PS per job.  Under (4e) this is exact; without
   (4e) it keeps a chunk from using several cloud workers in one slot (with
   unlimited cloud workers the LP would put a whole cloud chunk into the
   single slot ``r_j + Delta_jc``).
4. **(4c)** ``= 1 when training`` is written as ``sum_{s,p} z <= 1`` and
   ``sum_{s,w} y_jdsw(t) <= sum_{s,p} z_jsp(t)`` per chunk (as c2e of the
   MILP).  ILP (4) has no dispatch variable: a chunk may change workers
   between slots and cloud chunks may be preempted (neither is forbidden by
   (4a)-(4h)); this only lowers (4), so Lemma 1 is unaffected.
5. ``zeta_one=True``: "the simplified ILP (4) with zeta_j = 1" of Sec. V-C
   (Figs. 12-13): every run, edge or cloud, at ``a_j1``; no ``zeta``, no
   (4f)-(4g); (4c)-(4d) kept when ``ps``.  Its optimum is ``<=`` that of
   (4) with ``rate="slots"`` (take the first ``k_j1 <= k_jz`` slots of every
   chunk of an optimal (4) schedule: still feasible, and the mean of the
   first slots is at most the mean of all), as the paper claims; tested.

The dual (6) and what had to be fixed
-------------------------------------
The LP that (6) dualizes is ``build_ilp4(inst, relax=True, ps=False,
chunk_once=False)``: ``min sum a_jz / D_j (t - r_j) y`` s.t. ``sum a y >= 1``
(4a/E_j B_j, dual ``alpha_jd >= 0``), ``sum_{j,d} y <= 1`` per worker and
slot (4b, dual ``beta_sw(t) >= 0``), ``y >= 0``.  Its dual is exactly
(6)-(6b) -- (6a) is the column of ``y_jdsw(t)`` --  *with two corrections*:

* (6a) is printed ``for all t >= r_j``; the primal has ``y_jdsw(t)`` only
  for ``t >= r_j + Delta_js`` ((4h)), so the dual row exists only there.
  The printed index set adds rows, i.e. it is the dual of the LP without
  transmission delays, whose optimum can be strictly smaller
  (``build_dual6(..., printed_window=True)``; weak duality only, tested).
* (4e) is *not* redundant in the relaxation: without it a chunk may train
  on several workers in one slot, and the LP can be strictly smaller than
  the relaxation with (4e).  (6) has no dual variable for (4e), so it is
  the dual of the relaxation *without* (4e); strong duality is tested
  against that LP.  ``n_jsw`` in (6a) is ``a_jz E_j B_j`` with ``zeta`` as
  in reading 2 (edge 0, cloud 1; ``zeta_one``: 1 everywhere).

Speed augmentation (App. D, (11)): ``speed=1 / (1 + eps)`` multiplies every
``n_jsw`` (both readings of reading 1); :func:`build_dual11` is (11).

Sign convention: with :func:`optsched.core.solver.solve` (``duals=True``)
on that LP, ``alpha_jd`` is the dual of ``c4a_chunk_work[j, d]`` (a ``>=``
row of a min problem: ``>= 0``) and ``beta_sw(t)`` is *minus* the dual of
``c4b_worker_capacity[s, w, t]`` (a ``<=`` row of a min problem: ``<= 0``).

Storage extension: ILP (8) and the dual (9) (Sec. VI)
-----------------------------------------------------
(8) is (4) plus (7a)-(7e): ``x_jds(t)`` binary says chunk ``d`` of job
``j`` is stored on server ``s`` in slot ``t``; (7a) ``y_jdsw(t) <=
x_jds(t)`` (printed without the chunk index ``d`` on ``y``), (7b) ``sum_jd
u_j x_jds(t) <= U_s``, (7c)-(7d) stored exactly in ``[r_j, c_j]``.
Storage exists only on edge servers with a finite ``U_s``
(``Server.storage_mb``); the cloud's is unlimited (as the checker and the
MILP read (7)).  Readings (rows of ``docs/errata.md``):

6. **(7c)-(7d) in (8)** (``occupancy="stored"``, default of
   :func:`build_ilp8`): ILP (4) has no completion time ``c_j`` and no
   dispatch (a chunk may change servers), so (7c)-(7d) are written as
   "stored from arrival until the chunk's last run on ``s``"::

       sum_{w,z} y[j,d,s,w,t,z] <= x[j,d,s,t]       c7a_stored_when_training
       x[j,d,s,t] >= x[j,d,s,t+1]   (t >= r_j)      c7cd_stored_until_done
       sum_{j,d} u_j x[j,d,s,t] <= U_s              c7b_storage

   with ``x`` defined from ``r_j`` on ((7d) before it).  (7a) is printed
   per worker; summed over ``w`` it is the same for integer points under
   (4e) and tighter in the LP (it implies the row of reading 7, so the LP
   of (9) is below the LP of (8); tested).  A non-increasing
   ``x`` that covers every run is 1 on ``[r_j, c_jd^s]``, ``c_jd^s`` the
   last run of ``d`` on ``s``.  This is a relaxation of (7) as the checker
   reads it (a chunk occupies its server in ``[r_j, c_j]``, ``c_j >=
   c_jd``), so Lemma 1 still holds for (7) vs (8) (tested against the MILP
   of (2)+(7)).
7. **The LP that (9) dualizes** (``occupancy="training"``): the seed says
   that after relaxing, (7a), (7c), (7d) "are redundant" and attaches
   ``eta_s(t)`` to (7b); (9a) -- the column of ``y_jdsw(t)`` -- then has
   ``eta_s(t) u_j``, so ``x`` has been replaced by the training indicator:
   ``sum_{j,d,w} u_j y_jdsw(t) <= U_s`` (``c7b_storage``; implied by (7a)
   and (7b), so still a relaxation).  Neither (7a) nor (7c)-(7d) is
   redundant: storage held while a chunk waits is lost, and the LP with
   ``x`` is strictly larger on some instances (tested).  With the two
   corrections of (6) (window ``t >= r_j + Delta_js``, no (4e)), (9) is
   exactly the dual of ``build_ilp8(inst, relax=True, ps=False,
   chunk_once=False, occupancy="training")`` (strong duality tested):
   ``eta_s(t) = -dual(c7b_storage[s, t]) >= 0`` (:func:`dual9_from_lp_duals`).
   ``eta`` exists for capped edge servers only; a chunk with ``u_j = 0``
   has no ``eta`` term.

The paper's dual point for (9) is Sec. IV's ``(alpha, beta)`` with ``eta =
0``; every feasible point of (6) is then feasible in (9) with the same
objective, so (9) is never below (6) (tested).  A_online's own point on a
storage instance is not such a point: its ``alpha_jd`` is a minimum over
the servers with room only, and violates (9a) with ``eta = 0`` on an
excluded server (``docs/edgecloud.md``, "Storage extension").
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pyomo.environ as pyo

from optsched.core.errors import InvalidInstanceError
from optsched.edgecloud.instance import EdgeCloudInstance

__all__ = [
    "build_dual11",
    "build_dual6",
    "build_dual9",
    "build_ilp4",
    "build_ilp8",
    "chunk_share",
    "dual6_from_lp_duals",
    "dual9_from_lp_duals",
]


def chunk_share(
    inst: EdgeCloudInstance, rate: str = "slots", speed: float = 1.0
) -> np.ndarray:
    """Share ``a_jz`` of a chunk trained in one slot, (J, 2) by ``zeta``.

    ``rate="slots"``: ``1 / ceil(E_j B_j / n_jz)`` (reading 1 of the module
    docstring); ``rate="printed"``: ``n_jz / (E_j B_j)`` as in (3)-(4a).
    Both are multiplied by ``speed`` (``n_jsw -> speed n_jsw``; the offline
    problem of App. D / (11) has ``speed = 1 / (1 + eps)``).
    """
    if not speed > 0:
        raise InvalidInstanceError(f"speed must be > 0, got {speed!r}")
    if rate == "slots":
        return speed / inst.chunk_slots.astype(float)
    if rate == "printed":
        return speed * inst.rate / inst.chunk_work[:, None].astype(float)
    raise InvalidInstanceError(f"rate must be 'slots' or 'printed', got {rate!r}")


def _columns(inst: EdgeCloudInstance, *, ps: bool, zeta_one: bool, window: str):
    """Run columns ``(j, d, s, w, t, z)``: chunk, worker, slot, rate class.

    ``window="delay"``: ``t >= r_j + Delta_js`` ((4h)); ``"arrival"``:
    ``t >= r_j`` (the printed index set of (6a)).
    """
    T, c = inst.n_slots, inst.cloud
    off = np.concatenate(([0], np.cumsum(inst.D))).astype(int)
    cols = []
    for j, job in enumerate(inst.jobs):
        r = int(inst.arrival[j])
        edge_z = 1 if zeta_one else 0
        cloud_z = (1,) if zeta_one or not ps else (0, 1)
        for d in range(int(inst.D[j])):
            for s in range(c + 1):
                first = r + (int(inst.delay[j, s]) if window == "delay" else 0)
                if s == c:
                    workers, classes = [int(off[j] + d)], cloud_z
                else:
                    q = np.flatnonzero(inst.worker_types[s] == job.worker_type)
                    workers, classes = [int(w) for w in q], (edge_z,)
                for w in workers:
                    for t in range(max(first, 1), T + 1):
                        for z in classes:
                            cols.append((j, d, s, w, t, z))
    return cols


def build_ilp4(
    inst: EdgeCloudInstance,
    *,
    relax: bool = False,
    zeta_one: bool = False,
    rate: str = "slots",
    ps: bool = True,
    chunk_once: bool = True,
    speed: float = 1.0,
) -> pyo.ConcreteModel:
    """ILP (4) (minimise the total average fractional flow time (3)).

    Parameters
    ----------
    inst
        The instance (storage, Sec. VI, is ignored: that is :func:`build_ilp8`).
    relax
        LP relaxation: every variable continuous in ``[0, 1]``.
    zeta_one
        The paper's simplified bound (Sec. V-C): ``zeta_j = 1``, every run
        at the cloud-free rate ``n_j1``; (4f)-(4g) dropped.
    rate
        ``"slots"`` (default, ``n_jsw = E_j B_j / ceil(E_j B_j / n_j)``) or
        ``"printed"`` (``n_jsw = n_j``); see reading 1 of the module
        docstring.
    ps
        Include the PS variables ``z`` and (4c), (4d), and ``zeta`` with
        (4f), (4g).  ``False`` gives the problem that (6) dualizes (edge at
        ``n_j0``, cloud at ``n_j1``).
    chunk_once
        Include (4e) (one worker per chunk and slot).
    speed
        Multiply every ``n_jsw`` by ``speed`` (``1 / (1 + eps)``: the
        offline problem of the speed-augmentation analysis, App. D).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``y[j, d, s, w, t, z]`` (``z`` the rate class), ``zps[j,
        s, p, t]`` and ``zeta[j]`` when ``ps`` and not ``zeta_one``;
        objective ``obj``.  Constraint names carry the equation numbers.
    """
    a = chunk_share(inst, rate, speed)
    T = inst.n_slots
    cols = _columns(inst, ps=ps, zeta_one=zeta_one, window="delay")
    dom = pyo.UnitInterval if relax else pyo.Binary
    m = pyo.ConcreteModel(name="edgecloud_ilp4" + ("_lp" if relax else ""))
    m.Y = pyo.Set(initialize=cols, dimen=6, ordered=True)
    # relaxed y: ``>= 0`` as in Sec. IV-D; ``y <= 1`` follows from (4b).
    m.y = pyo.Var(m.Y, domain=pyo.NonNegativeReals if relax else pyo.Binary)
    r, D = inst.arrival, inst.D
    m.obj = pyo.Objective(
        expr=sum(
            a[j, z] / D[j] * (t - r[j]) * m.y[j, d, s, w, t, z]
            for (j, d, s, w, t, z) in cols
        ),
        sense=pyo.minimize,
        doc="(4): sum_jd f_jd(y), f_jd of (3)",
    )

    by_chunk = defaultdict(list)  # (j, d) -> columns
    by_worker = defaultdict(list)  # (s, w, t) -> columns
    by_chunk_slot = defaultdict(list)  # (j, d, t) -> columns
    for col in cols:
        j, d, s, w, t, z = col
        by_chunk[j, d].append(col)
        by_worker[s, w, t].append(col)
        by_chunk_slot[j, d, t].append(col)
    for j in range(inst.n_jobs):
        for d in range(int(D[j])):
            if not by_chunk[j, d]:
                raise InvalidInstanceError(f"job {j} has no worker usable by T = {T}")

    m.c4a_chunk_work = pyo.Constraint(
        sorted(by_chunk),
        rule=lambda _, j, d: (
            sum(a[j, col[5]] * m.y[col] for col in by_chunk[j, d]) >= 1
        ),
        doc="(4a) / (E_j B_j): sum_{t,s,w} y n_jsw / (E_j B_j) >= 1",
    )
    m.c4b_worker_capacity = pyo.Constraint(
        sorted(by_worker),
        rule=lambda _, s, w, t: sum(m.y[col] for col in by_worker[s, w, t]) <= 1,
        doc="(4b): one chunk per worker and slot (cloud: one virtual worker per chunk)",
    )
    if chunk_once:
        m.c4e_one_worker = pyo.Constraint(
            sorted(k for k, v in by_chunk_slot.items() if len(v) > 1),
            rule=lambda _, j, d, t: (
                sum(m.y[col] for col in by_chunk_slot[j, d, t]) <= 1
            ),
            doc="(4e): a chunk trains on at most one worker per slot",
        )
    if ps:
        ps_of, zcols = _add_ps4(m, inst, by_chunk_slot, dom)
        if not zeta_one:
            _add_zeta4(m, inst, cols, zcols, by_chunk_slot, ps_of, dom)
    return m


def _add_ps4(
    m: pyo.ConcreteModel, inst: EdgeCloudInstance, by_chunk_slot: dict, dom: Any
) -> tuple[dict, list]:
    """PS variables ``zps`` and rows (4c), (4d) of :func:`build_ilp4`.

    Qualified edge PSs and one virtual cloud PS (index ``j``) per job.
    Returns the PS columns per ``(job, slot)`` and the list of PS columns.
    """
    T, c, r = inst.n_slots, inst.cloud, inst.arrival
    zcols = []
    for j, job in enumerate(inst.jobs):
        for s in range(c + 1):
            first = int(r[j] + inst.delay[j, s])
            if s == c:
                pss = [j]
            else:
                pss = [int(p) for p in np.flatnonzero(inst.ps_types[s] == job.ps_type)]
            zcols += [(j, s, p, t) for p in pss for t in range(first, T + 1)]
    m.Z = pyo.Set(initialize=zcols, dimen=4, ordered=True)
    m.zps = pyo.Var(m.Z, domain=dom)
    ps_of = defaultdict(list)  # (j, t) -> PS columns
    ps_load = defaultdict(list)  # (s, p, t) -> PS columns (edge)
    for zc in zcols:
        j, s, p, t = zc
        ps_of[j, t].append(zc)
        if s != c:
            ps_load[s, p, t].append(zc)
    m.c4c_one_ps = pyo.Constraint(
        sorted(k for k, v in ps_of.items() if len(v) > 1),
        rule=lambda _, j, t: sum(m.zps[zc] for zc in ps_of[j, t]) <= 1,
        doc="(4c): at most one PS per job and slot",
    )
    m.c4c_ps_when_training = pyo.Constraint(
        sorted(by_chunk_slot),
        rule=lambda _, j, d, t: (
            sum(m.y[col] for col in by_chunk_slot[j, d, t])
            <= sum(m.zps[zc] for zc in ps_of.get((j, t), []))
        ),
        doc="(4c): a PS in every slot where the job trains",
    )
    m.c4d_ps_capacity = pyo.Constraint(
        sorted(k for k, v in ps_load.items() if len(v) > 1),
        rule=lambda _, s, p, t: sum(m.zps[zc] for zc in ps_load[s, p, t]) <= 1,
        doc="(4d): one job per edge PS and slot",
    )
    return ps_of, zcols


def _add_zeta4(
    m: pyo.ConcreteModel,
    inst: EdgeCloudInstance,
    cols: list,
    zcols: list,
    by_chunk_slot: dict,
    ps_of: dict,
    dom: Any,
) -> None:
    """``zeta`` and rows (4f), (4g) of :func:`build_ilp4` (Eq. (1)'s rate class)."""
    c = inst.cloud
    m.zeta = pyo.Var(range(inst.n_jobs), domain=dom)

    def zeta0_runs(_, j, d, t):
        terms = [m.y[col] for col in by_chunk_slot[j, d, t] if col[5] == 0]
        return sum(terms) <= 1 - m.zeta[j] if terms else pyo.Constraint.Skip

    def zeta1_runs(_, j, d, t):
        terms = [m.y[col] for col in by_chunk_slot[j, d, t] if col[5] == 1]
        return sum(terms) <= m.zeta[j] if terms else pyo.Constraint.Skip

    m.c4fg_zeta0_runs = pyo.Constraint(
        sorted(by_chunk_slot),
        rule=zeta0_runs,
        doc="(4g), Eq. (1): edge runs and cloud runs at n_j0 need zeta_j = 0",
    )
    m.c4fg_zeta1_runs = pyo.Constraint(
        sorted(by_chunk_slot),
        rule=zeta1_runs,
        doc="(4f), Eq. (1): cloud runs at n_j1 need zeta_j = 1",
    )

    def edge_ps(_, j, t):
        terms = [m.zps[zc] for zc in ps_of.get((j, t), []) if zc[1] != c]
        return sum(terms) <= 1 - m.zeta[j] if terms else pyo.Constraint.Skip

    m.c4g_edge_ps = pyo.Constraint(
        sorted(ps_of), rule=edge_ps, doc="(4g): an edge PS needs zeta_j = 0"
    )

    on_edge = defaultdict(list)  # j -> edge y and edge z variables
    for col in cols:
        if col[2] != c:
            on_edge[col[0]].append(m.y[col])
    for zc in zcols:
        if zc[1] != c:
            on_edge[zc[0]].append(m.zps[zc])

    def all_cloud(_, j):
        return m.zeta[j] + sum(on_edge[j]) >= 1

    m.c4f_all_cloud = pyo.Constraint(
        range(inst.n_jobs), rule=all_cloud, doc="(4f): zeta_j = 1 if all in the cloud"
    )


def _storage(inst: EdgeCloudInstance) -> tuple[dict[int, float], list[float]]:
    """``U_s`` of the capped edge servers and ``u_j`` of every job (Sec. VI)."""
    cap = {
        s: float(srv.storage_mb)
        for s, srv in enumerate(inst.servers)
        if srv.storage_mb is not None
    }
    return cap, [float(job.chunk_mb) for job in inst.jobs]


def build_ilp8(
    inst: EdgeCloudInstance,
    *,
    relax: bool = False,
    occupancy: str = "stored",
    **kw,
) -> pyo.ConcreteModel:
    """ILP (8): ILP (4) with the storage constraints (7a)-(7e) (Sec. VI).

    Parameters
    ----------
    inst
        The instance; only edge servers with ``U_s`` (``storage_mb``) are
        capped, the cloud's storage is unlimited.  Without storage (8) is (4).
    relax
        LP relaxation (``x``, ``y`` continuous).
    occupancy
        ``"stored"`` (default, ILP (8)): variables ``x[j, d, s, t]`` from
        ``r_j`` on, rows ``c7a_stored_when_training`` (``y <= x``),
        ``c7cd_stored_until_done`` (``x`` non-increasing: stored from
        arrival until the chunk's last run on ``s``) and ``c7b_storage``
        (``sum u_j x <= U_s``), reading 6 of the module docstring.
        ``"training"``: no ``x``; ``c7b_storage`` is ``sum_{j,d,w} u_j
        y_jdsw(t) <= U_s`` (reading 7), the primal of (9) when combined
        with ``relax=True, ps=False, chunk_once=False``.
    **kw
        ``zeta_one``, ``rate``, ``ps``, ``chunk_once``, ``speed`` as in
        :func:`build_ilp4`.

    Returns
    -------
    pyomo.environ.ConcreteModel
        The model of :func:`build_ilp4` with the storage components added.
    """
    if occupancy not in ("stored", "training"):
        raise InvalidInstanceError(
            f"occupancy must be 'stored' or 'training', got {occupancy!r}"
        )
    m = build_ilp4(inst, relax=relax, **kw)
    m.name = "edgecloud_ilp8" + ("_lp" if relax else "")
    cap, u = _storage(inst)
    on_server = defaultdict(list)  # (s, t) -> run columns using storage of s
    for col in m.Y:
        j, _d, s, _w, t, _z = col
        if s in cap and u[j] > 0:
            on_server[s, t].append(col)
    if occupancy == "training":
        m.c7b_storage = pyo.Constraint(
            sorted(on_server),
            rule=lambda _, s, t: (
                sum(u[col[0]] * m.y[col] for col in on_server[s, t]) <= cap[s]
            ),
            doc="(7b) with x_jds(t) := sum_w y_jdsw(t) (the primal of (9))",
        )
        return m

    T, r = inst.n_slots, inst.arrival
    runs = [col for cols in on_server.values() for col in cols]
    keys = sorted({(j, d, s) for (j, d, s, _w, _t, _z) in runs})
    xidx = [(j, d, s, t) for (j, d, s) in keys for t in range(int(r[j]), T + 1)]
    m.X = pyo.Set(initialize=xidx, dimen=4, ordered=True)
    m.x = pyo.Var(m.X, domain=pyo.UnitInterval if relax else pyo.Binary)
    train = defaultdict(list)  # (j, d, s, t) -> run columns
    for col in runs:
        train[col[:3] + (col[4],)].append(col)
    m.c7a_stored_when_training = pyo.Constraint(
        sorted(train),
        rule=lambda _, j, d, s, t: (
            sum(m.y[col] for col in train[j, d, s, t]) <= m.x[j, d, s, t]
        ),
        doc="(7a) summed over w: a chunk trains on s only while stored there",
    )
    m.c7cd_stored_until_done = pyo.Constraint(
        [k for k in xidx if k[3] < T],
        rule=lambda _, j, d, s, t: m.x[j, d, s, t] >= m.x[j, d, s, t + 1],
        doc="(7c)-(7d): stored from r_j until the chunk's last run on s",
    )
    stored = defaultdict(list)  # (s, t) -> x keys
    for j, d, s, t in xidx:
        stored[s, t].append((j, d, s, t))
    m.c7b_storage = pyo.Constraint(
        sorted(stored),
        rule=lambda _, s, t: sum(u[k[0]] * m.x[k] for k in stored[s, t]) <= cap[s],
        doc="(7b): sum_jd u_j x_jds(t) <= U_s",
    )
    return m


def build_dual6(
    inst: EdgeCloudInstance,
    *,
    zeta_one: bool = False,
    rate: str = "slots",
    printed_window: bool = False,
    speed: float = 1.0,
) -> pyo.ConcreteModel:
    """Dual LP (6) of the relaxed (4) without (4c)-(4g) (see module docstring).

    ``max sum_jd alpha_jd - sum_swt beta_sw(t)`` s.t. (6a)
    ``alpha_jd n_jsw / (E_j B_j) <= n_jsw / (E_j D_j B_j) (t - r_j) +
    beta_sw(t)`` for every column ``y_jdsw(t)`` of the primal, (6b)
    ``alpha, beta >= 0``.  Its optimum equals that of ``build_ilp4(inst,
    relax=True, zeta_one=zeta_one, rate=rate, ps=False, chunk_once=False)``.

    Parameters
    ----------
    inst, zeta_one, rate, speed
        As in :func:`build_ilp4`.
    printed_window
        Write (6a) for every ``t >= r_j`` as printed, instead of ``t >= r_j
        + Delta_js`` ((4h)); then (6) is the dual of the LP without
        transmission delays, only a weak bound.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``alpha[j, d]``, ``beta[s, w, t]`` (cloud ``w`` = the
        chunk's virtual worker), rows ``c6a``, objective ``obj``.
    """
    return _dual(
        inst,
        zeta_one=zeta_one,
        rate=rate,
        printed_window=printed_window,
        speed=speed,
        storage=False,
    )


def build_dual9(
    inst: EdgeCloudInstance,
    *,
    zeta_one: bool = False,
    rate: str = "slots",
    printed_window: bool = False,
    speed: float = 1.0,
) -> pyo.ConcreteModel:
    """Dual LP (9) of the relaxed (8) without (4c)-(4g) (Sec. VI; readings 6-7).

    ``max sum_jd alpha_jd - sum_swt beta_sw(t) - sum_st eta_s(t) U_s``
    s.t. (9a) ``alpha_jd n_jsw / (E_j B_j) <= n_jsw / (E_j D_j B_j) (t -
    r_j) + beta_sw(t) + eta_s(t) u_j`` for every column ``y_jdsw(t)`` of the
    primal (``eta_s(t) u_j`` only on capped edge servers), (9b) ``alpha,
    beta, eta >= 0``.  Its optimum equals that of ``build_ilp8(inst,
    relax=True, zeta_one=zeta_one, rate=rate, ps=False, chunk_once=False,
    occupancy="training")``.  On an instance without storage it is (6).

    Parameters
    ----------
    inst, zeta_one, rate, printed_window, speed
        As in :func:`build_dual6` (``printed_window``: (9a) for every ``t >=
        r_j`` as printed, a weak bound only).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``alpha[j, d]``, ``beta[s, w, t]``, ``eta[s, t]`` (capped
        edge servers, slots with a column), rows ``c9a``, objective ``obj``.
    """
    return _dual(
        inst,
        zeta_one=zeta_one,
        rate=rate,
        printed_window=printed_window,
        speed=speed,
        storage=True,
    )


def _dual(
    inst: EdgeCloudInstance,
    *,
    zeta_one: bool,
    rate: str,
    printed_window: bool,
    speed: float,
    storage: bool,
) -> pyo.ConcreteModel:
    """(6) (``storage=False``) or (9) (``storage=True``)."""
    a = chunk_share(inst, rate, speed)
    window = "arrival" if printed_window else "delay"
    cols = _columns(inst, ps=False, zeta_one=zeta_one, window=window)
    r, D = inst.arrival, inst.D
    cap, u = _storage(inst) if storage else ({}, [])
    m = pyo.ConcreteModel(name="edgecloud_dual9" if storage else "edgecloud_dual6")
    m.A = pyo.Set(
        initialize=[(j, d) for j in range(inst.n_jobs) for d in range(int(D[j]))],
        dimen=2,
        ordered=True,
    )
    m.B = pyo.Set(
        initialize=sorted({(s, w, t) for (_, _, s, w, t, _) in cols}), dimen=3
    )
    eq = "(9b)" if storage else "(6b)"
    m.alpha = pyo.Var(m.A, domain=pyo.NonNegativeReals, doc=f"{eq}, dual of (4a)")
    m.beta = pyo.Var(m.B, domain=pyo.NonNegativeReals, doc=f"{eq}, dual of (4b)")
    objective = sum(m.alpha[k] for k in m.A) - sum(m.beta[k] for k in m.B)
    if storage:
        m.E = pyo.Set(
            initialize=sorted(
                {(s, t) for (j, _, s, _, t, _) in cols if s in cap and u[j] > 0}
            ),
            dimen=2,
        )
        m.eta = pyo.Var(m.E, domain=pyo.NonNegativeReals, doc="(9b), dual of (7b)")
        objective -= sum(cap[s] * m.eta[s, t] for s, t in m.E)
    m.obj = pyo.Objective(
        expr=objective, sense=pyo.maximize, doc="(9)" if storage else "(6)"
    )
    m.C = pyo.Set(initialize=cols, dimen=6, ordered=True)

    def row(_, j, d, s, w, t, z):
        rhs = a[j, z] / D[j] * (t - r[j]) + m.beta[s, w, t]
        if storage and (s, t) in m.E and u[j] > 0:
            rhs += u[j] * m.eta[s, t]
        return a[j, z] * m.alpha[j, d] <= rhs

    if storage:
        m.c9a = pyo.Constraint(
            m.C,
            rule=row,
            doc="(9a): alpha n/(E B) <= n/(E D B)(t - r_j) + beta_sw(t) + eta_s(t) u_j",
        )
    else:
        m.c6a = pyo.Constraint(
            m.C,
            rule=row,
            doc="(6a): alpha n_jsw/(E_j B_j) <= n_jsw/(E_j D_j B_j)(t - r_j) + beta_sw(t)",
        )
    return m


def build_dual11(inst: EdgeCloudInstance, eps: float, **kw) -> pyo.ConcreteModel:
    """Dual LP (11) of the ``(1 + eps)``-slowed offline problem (App. D).

    (11a) is (6a) with ``n_jsw`` replaced by ``n_jsw / (1 + eps)``, so this is
    :func:`build_dual6` with ``speed = 1 / (1 + eps)`` (variables ``alpha``,
    ``beta`` stand for the paper's ``alpha'``, ``beta'``); the same two
    corrections apply.  Its optimum equals ``build_ilp4(inst, relax=True,
    ps=False, chunk_once=False, speed=1 / (1 + eps))``.  Lemma 5:
    ``alpha' = alpha``, ``beta' = beta / (1 + eps)`` maps any feasible point
    of (6) to one of (11) (tested).
    """
    if not eps >= 0:
        raise InvalidInstanceError(f"eps must be >= 0, got {eps!r}")
    return build_dual6(inst, speed=1.0 / (1.0 + eps), **kw)


def dual6_from_lp_duals(model: pyo.ConcreteModel, duals) -> tuple[dict, dict]:
    """``(alpha, beta)`` of (6) from the row duals of the relaxed (4).

    ``duals`` is :attr:`optsched.core.solver.SolveResult.duals` of
    ``build_ilp4(..., relax=True, ps=False, chunk_once=False)``:
    ``alpha_jd = dual(c4a[j, d])``, ``beta_sw(t) = -dual(c4b[s, w, t])``
    (the solver's convention: ``>=`` rows of a min problem have duals
    ``>= 0``, ``<=`` rows ``<= 0``).
    """
    alpha = {k: duals.get(model.c4a_chunk_work[k], 0.0) for k in model.c4a_chunk_work}
    beta = {
        k: -duals.get(model.c4b_worker_capacity[k], 0.0)
        for k in model.c4b_worker_capacity
    }
    return alpha, beta


def dual9_from_lp_duals(model: pyo.ConcreteModel, duals) -> tuple[dict, dict, dict]:
    """``(alpha, beta, eta)`` of (9) from the row duals of the relaxed (8).

    ``model`` is ``build_ilp8(..., relax=True, ps=False, chunk_once=False,
    occupancy="training")``: ``alpha``, ``beta`` as in
    :func:`dual6_from_lp_duals` and ``eta_s(t) = -dual(c7b_storage[s, t])``.
    """
    alpha, beta = dual6_from_lp_duals(model, duals)
    eta = {k: -duals.get(model.c7b_storage[k], 0.0) for k in model.c7b_storage}
    return alpha, beta, eta
