r"""Offline model of Han et al. (Okita, UDL at the edge): exact MILP of problem (2).

Exact MILP of (2a)-(2g)
-----------------------
Problem (2) is an MINLP: the exchange term ``pi_i y_i^r(t) s_i^{r'}(t)`` of
Eq. (1) is bilinear (integer x binary), the completion time ``t_i`` of (2e)
is an arg max and the latency cost ``f_i(t_i - a_i)`` is non-linear.  This
module writes it as an exact MILP under the readings of ``docs/okita.md``
that the checker (:mod:`optsched.okita.check`) enforces: (2a) per source
site, chunks moved in slot ``t`` are trained in slot ``t``, (2c) exactly one
PS in every slot of ``[a_i, t_i]`` and none outside, ``t_i`` = last slot
with workers.  Indices: jobs ``i``, sites ``r, r'`` (0-based), resources
``k``, slots ``t`` 1-based; every variable of job ``i`` exists only for
``a_i <= t <= T`` (Sec. III-A; the checker also requires ``t_i <= T``).

Variables:

* ``y[i, r, t]`` integer in ``[0, Ybar_i^r]``: workers (``y_i^r(t)``), with
  ``Ybar_i^r = min(min_{k: m_i^k > 0} floor(C_r^k / m_i^k),
  max(1, ceil(E_i N_i / rho_i)))``, ``N_i = sum_r D_i^r``;
* ``s[i, r, t]`` binary: the PS is on ``r`` (``s_i^r(t)``);
* ``x[i, r, r']`` integer in ``[0, D_i^r]``, only for ``D_i^r > 0``:
  chunks of site ``r`` trained on ``r'`` over the whole horizon
  (``sum_t g_i^{rr'}(t)``; ``r = r'`` is local training);
* ``l[i, r', t]`` integer in ``[0, N_i]``: chunks trained on ``r'`` in slot
  ``t`` (``sum_r g_i^{rr'}(t)``);
* ``u[i, t]`` binary: job ``i`` completes in slot ``t`` (``t_i = t``); the
  window indicator is ``act_i(t) = sum_{t' >= t} u[i, t']`` (1 iff
  ``a_i <= t <= t_i``, non-increasing);
* ``e[i, r, t] >= 0`` (continuous): the exchange cost of the workers on
  ``r``, ``q^{r p} pi_i y_i^r(t)`` with ``p`` the PS site; only where some
  ``q^{rr'} pi_i > 0``.

Constraints (component names carry the equation numbers)::

    sum_{r'} x[i,r,r'] == D_i^r                              c2a_data
    sum_t l[i,r',t] == sum_r x[i,r,r']                       c2a_balance
    rho_i y[i,r',t] >= E_i l[i,r',t]                         c2b_workers
    sum_r s[i,r,t] == sum_{t' >= t} u[i,t']                 c2c_one_ps_in_window
    sum_t u[i,t] == 1                                        c2e_completion_once
    y[i,r,t] <= Ybar_i^r sum_{t' >= t} u[i,t']               c2e_completion_upper
    u[i,t] <= sum_r y[i,r,t]                                 c2e_completion_lower
    sum_i m_i^k y[i,r,t] + n_i^k s[i,r,t] <= C_r^k           c2d_capacity
    e[i,r,t] >= pi_i (q^{rr'} y[i,r,t]
                - Ybar_i^r sum_{r''} (q^{rr'} - q^{rr''})^+ s[i,r'',t])
                                            (every r' != r)  eq1_exchange
    objective (2) = sum_{i,t} f_i(t - a_i) u[i,t]
                    + sum q^{rr'} delta_i x[i,r,r'] + sum e[i,r,t]   obj

In formulas: the objective and the rows of (2b), (2c) in the job's
window and the exchange cost of Eq. (1):

.. math::

   \min\ & \sum_{i} \sum_{t \ge a_i} f_i(t - a_i) \, u_{i,t}
       + \sum_{i, r, r'} q^{rr'} \delta_i \, x_{i,r,r'} + \sum_{i,r,t} e_{i,r,t} \\
   \text{s.t.}\ & \rho_i \, y_{i,r',t} \ge E_i \, l_{i,r',t}, \qquad
       \sum_r s_{i,r,t} = \sum_{t' \ge t} u_{i,t'}, \qquad \sum_t u_{i,t} = 1, \\
   & e_{i,r,t} \ge \pi_i \Bigl(q^{rr'} y_{i,r,t}
       - \bar{Y}_i^r \sum_{r''} \left(q^{rr'} - q^{rr''}\right)^+ s_{i,r'',t}\Bigr)
       \quad \forall r' \ne r.

(2f), (2g) and Sec. III-A hold by the variable domains.  Capacity rows that
cannot bind (every variable at its upper bound fits) are not written.

Why this is exact.  *Data.* ``g`` enters (2a), (2b) and Eq. (1) only
through ``x = sum_t g`` (the transfer cost ``q^{rr'} delta_i`` does not
depend on the slot) and ``l = sum_r g``.  Conversely any integer ``x, l``
with the two balance rows come from some integer ``g``: for each ``r'``,
list the ``x[i, r, r']`` chunks (by source) and the ``l[i, r', t]`` slots
(by slot), both of total ``sum_r x[i, r, r']``, and cut them alike
(:func:`extract_schedule` does this).  *Completion.* ``c2e_completion_once`` picks one slot
``t*`` with ``u = 1``; ``act_i(t) = [t <= t*]``.  The upper rows forbid
workers after ``t*``, the lower row puts a worker in ``t*``, so ``t*`` is the
last slot with workers, ``t_i`` of (2e), and the latency term is
``f_i(t_i - a_i)`` for any ``f`` (all three kinds).  *(2c).* The PS count in
slot ``t`` is ``act_i(t)``: exactly one in ``[a_i, t_i]``, none after (none
before by the domain).  *Exchange.* Let ``p`` be the PS site in slot ``t``.
The row for ``r' = p`` reads ``e >= pi q^{rp} y`` (the ``s`` term vanishes:
``(q^{rp} - q^{rp})^+ = 0``); for ``r' != p`` it reads ``e >= pi (q^{rr'} y
- Ybar (q^{rr'} - q^{rp})^+) <= pi q^{rp} y`` (``y <= Ybar``); outside the
window ``y = 0`` and every row is ``<= 0``.  So at every integer point the
rows say exactly ``e >= pi q^{rp} y = pi sum_{r'} q^{rr'} y s^{r'}``
(``q^{rr} = 0``), and since ``e`` has a positive objective coefficient and
no other row, its least feasible value is the exchange cost of Eq. (1) (the
big-M form ``e >= pi q^{rr'} (y - Ybar (1 - s^{r'}))`` of the issue is the
same with the weaker coefficient ``q^{rr'}`` on every ``s^{r''}``).
*Model -> schedule*: an integer point gives rows ``y > 0``, ``s = 1``, ``g >
0`` that satisfy every checker constraint with checker objective at most the
model's (equal when ``e`` is least, e.g. at an optimum).  *Schedule ->
model*: every checker-feasible schedule whose worker counts are at most
``Ybar`` is a point of the model with the same objective
(:func:`start_values`).  A checker-feasible schedule with more workers on
some ``(i, r, t)`` than ``Ybar_i^r`` has more than ``ceil(E_i N_i / rho_i)``
there (the capacity part of ``Ybar`` is implied by (2d)); lowering that
count to ``max(1, ceil(E_i g / rho_i))`` with ``g`` the chunks trained there
keeps (2b), (2d), ``t_i`` and (2c) and does not increase the objective.  So
the model contains an optimal schedule of the checker's problem and every
model point is a checker-feasible schedule of at most its model objective:
the optima coincide.  ((2b) is written exactly, ``rho y >= E g``; the
checker accepts ``rho y >= E g (1 - 1e-9)``, which differs only when ``E g /
rho`` exceeds an integer by less than ``1e-9`` relative, never with the
generator's integer ``rho_i / E_i``.)

Measured sizes: ``docs/okita.md`` ("Exact MILP"); about 3 sites x 5-10 jobs x
20 slots is proven within 60 s (``threads=1``), 5 sites x 5 jobs only
sometimes.

Formulation v2 (``build_model(..., formulation="v2")``)
---------------------------------------------------------
The rows above are formulation ``"v1"``.  Its LP relaxation spreads the PS
of a slot over the sites (``s ~ 1/R`` each) and puts every site's workers
"beside" their PS fraction at zero exchange cost, which ``y <= Ybar s``
allows because ``Ybar`` (workers to train the whole job in one slot) is
several times a site's real worker count.  v2 replaces ``eq1_exchange`` by a
disaggregation over the PS site ``p`` that ties the zero-cost share to the
data a site holds.  Continuous variables, for ``(i, r, t)`` of ``l`` and
``p`` a site the PS of ``i`` fits on: ``yp[i, r, p, t]``, ``lp[i, r, p, t]``
(workers on ``r`` and chunks they train in slot ``t`` *with the PS on*
``p``) and, where another site holds data of ``i``, ``w[i, r, p, t]`` (of
those chunks, the ones moved into ``r``).  Rows::

    y[i,r,t] == sum_p yp[i,r,p,t]                        v2_split_workers
    l[i,r,t] == sum_p lp[i,r,p,t]                        v2_split_load
    E_i lp <= rho_i yp                                   v2_workers
    yp <= Ybar_i^{r(p)} s[i,p,t]                         v2_worker_cap
    lp <= D_i^r s[i,p,t] + w[i,r,p,t]                    v2_data
    sum_{p,t} w[i,r,p,t] <= sum_{r0 != r} x[i,r0,r]      v2_inflow
    sum_r lp[i,r,p,t] <= N_i s[i,p,t]                    v2_slot_load
    s[i,p,t] == 0  where some n_i^k > C_p^k              v2_ps_fits
    e[i,r,t] >= pi_i sum_p q^{rp} yp[i,r,p,t]            v2_exchange

with ``Ybar_i^{r(p)} = Ybar_i^r`` for ``p != r`` and, for ``p = r``, the
workers that fit on ``r`` beside the job's own PS (:func:`ps_worker_bound`).

*Every v1 point is a v2 point* (so no schedule, and no optimum, is cut
off).  Take an integer v1 point with ``e`` least and, in a slot ``t`` of the
window, ``p_t`` the one PS site (``c2c``): put all of ``y`` and ``l`` in
``yp[., ., p_t, t]``, ``lp[., ., p_t, t]`` and zeros elsewhere (outside the
window ``y = l = s = 0``: all zero).  Then the split rows hold;
``v2_workers`` is (2b); ``v2_worker_cap`` for ``p_t != r`` is ``y <=
Ybar``, and for ``p_t = r`` the job's own workers and PS share ``r`` in
slot ``t``, so (2d) alone gives ``m y + n <= C`` (checker tolerance kept);
``v2_data``/``v2_inflow``: let site ``r`` train its own ``x[i, r, r] <=
D_i^r`` chunks first and the moved-in ones after (any order of chunks on
one site is the same schedule), ``w`` the moved-in part of slot ``t``: the
own part of a slot is at most ``x[i,r,r] <= D_i^r``, the ``w`` add up to
the chunks moved in; ``v2_slot_load``: a slot trains at most ``N_i``
chunks; ``v2_ps_fits``: (2d); ``v2_exchange``: ``e = pi q^{r p_t} y``
exactly.  :func:`start_values` builds this point.  *Every v2 point projects
to a v1 point*: for each ``r'``, ``sum_p q^{rp} yp >= q^{rr'} y - sum_p
(q^{rr'} - q^{rp})^+ yp >= q^{rr'} y - Ybar sum_p (q^{rr'} - q^{rp})^+
s^p`` (``yp <= Ybar s^p``), i.e. v1's ``eq1_exchange`` row; the other rows
are v1's.  So both have the same optimum, :func:`extract_schedule` (which
reads only ``y, s, x, l``) serves both, and v2's LP bound is at least
v1's.  Measured: ``docs/okita.md`` ("Formulation v2").

Formulation v3 (``build_model(..., formulation="v3")``)
-------------------------------------------------------
v2 plus two families of rows valid at *every* integer point (so every v2
point, a checked MIP start among them, is a v3 point and the optimum is
the same); :func:`add_cuts`.  The v2 relaxation lets a job complete
fractionally: ``u[i, t]`` spreads over several slots while its chunks are
trained in late slots, so the job pays mostly its early latency cost.

``cut_cumulative[i, t]`` (``a_i <= t < T``): ``sum_{t' <= t} sum_r l[i, r,
t'] >= N_i sum_{t' <= t} u[i, t']`` with ``N_i = sum_r D_i^r``.  Valid:
either ``t_i > t`` (right side 0, ``l >= 0``) or ``t_i <= t`` (right side
``N_i``); then no worker of job ``i`` runs after ``t_i``
(``c2e_completion_upper``), so ``l = 0`` there (``c2b_workers``), and the
load over the horizon is ``N_i`` (``c2a_data``, ``c2a_balance``), all of it
in slots ``<= t``.

``cut_earliest[i, t]`` (``u[i, t] = 0`` for ``t`` before
:func:`earliest_completion`, ``a_i + d_i - 1``, ``d_i = ceil(N_i / c_i)``,
``c_i = max_p sum_r floor(rho_i Ybar^{(p)}_{i,r} / E_i)``, ``Ybar^{(p)}``
the workers of job ``i`` that fit on ``r`` alone with its PS on ``p``:
:func:`ps_worker_bound` for ``r = p``, :func:`worker_bound` otherwise).
Valid: in a slot with the PS on ``p`` site ``r`` trains at most
``floor(rho_i y / E_i)`` chunks ((2b), integer chunks) with ``y <=
Ybar^{(p)}_{i,r}`` ((2d) for the job alone; other jobs only lower it), so
the ``N_i`` chunks need at least ``d_i`` slots of ``[a_i, t_i]``.

``cut_last_load`` (``u[i, t] <= sum_r l[i, r, t]``, off by default, not in
v3): a dominance row valid for the optimum only (delete the workers and PS
of trailing slots without load: the cost does not rise); it cuts off
checked starts whose last slot holds idle workers and moved no LP bound.

LP relaxation v2 -> v3 on ``generate(s, 5, 10, 20)``: 1,519.0 -> 1,523.2
(``s = 0``) and 2,380.5 -> 2,543.8 (``s = 4``); docs/okita.md
("Formulation v3").

One-shot problems of OSF (Sec. IV-B)
------------------------------------
:func:`build_placement` is the placement problem (5)-(5e) that PA (Alg. 2)
solves by enumeration and a greedy: minimise ``sum_{r,r'} q^{rr'} pi_i
y^r s^{r'}`` subject to ``sum_r y^r >= N`` (5a), ``m^k y^r + n^k s^r <=
U_r^k`` (5b), one PS (5c), integer ``y`` (5d), binary ``s`` (5e).  The
bilinear term is exact with ``z[r, p] = y^r s^p``: ``sum_p z[r, p] = y^r``,
``z[r, p] <= Ybar_r s^p`` (``Ybar_r`` the capacity bound of ``y^r``), so
with one PS ``z[r, p] = y^r`` for ``p`` the PS and 0 otherwise.

:func:`build_transfer` is the data-transmission problem (7) that DTA (Alg.
3) solves heuristically: minimise ``sum q^{rr'} delta g^{rr'}`` subject to
(7a) ``sum_{r != r'} g^{rr'} + M^{r'} >= d^{r'}`` and -- not printed in (7)
but needed, since without it (7) lets a site send data it does not have --
the supply row ``sum_{r' != r} g^{rr'} <= max(M^r - d^r, 0)`` (what a site
holds beyond its own workload, DTA's ``H^r``).  With the supply row (7) is
a transportation problem (totally unimodular), so its LP relaxation is
integral; the paper calls (7) NP-hard (docs/errata.md).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyomo.environ as pyo
from pyomo.common.collections import ComponentMap

from optsched.core.base import OfflineResult, certified_solve
from optsched.core.solver import Deadline
from optsched.okita.check import TOL, check
from optsched.okita.instance import OkitaInstance
from optsched.okita.schedule import OkitaSchedule

__all__ = [
    "DEFAULT_FORMULATION",
    "FORMULATIONS",
    "FORMULATION_NAMES",
    "ALL_CUTS",
    "CUTS",
    "add_cuts",
    "build_model",
    "build_placement",
    "cost_bound",
    "build_transfer",
    "earliest_completion",
    "extract_schedule",
    "ps_worker_bound",
    "solve_offline",
    "start_values",
    "worker_bound",
]

#: The formulations of :func:`build_model` (module docstring).
FORMULATION_NAMES: tuple[str, ...] = ("v1", "v2", "v3")
#: The one :func:`solve_offline` uses unless told otherwise: v1 until v2 is
#: timed on an idle machine.  v2 has the higher root bound after cuts on 9 of
#: 10 and the smaller 60 s gap on 8 of 10 instances of 4-5 sites x 10 jobs x
#: 20 slots, but is 3.5x larger and was 1.5-3x slower on some figure-size
#: instances under load (docs/okita.md "Formulation v2").
DEFAULT_FORMULATION = "v1"


#: Row families :func:`add_cuts` knows (module docstring).
ALL_CUTS: tuple[str, ...] = ("cumulative", "earliest", "last_load")
#: The default families: rows valid for *every* schedule of the model, so a
#: checked MIP start stays a point.  ``last_load`` (a dominance row) is not
#: among them: on ``generate(s, 5, 10, 20)``, ``s = 0, 4``, it leaves the LP
#: bound unchanged (1,523.2 and 2,543.8 with or without it; 1,519.0 and
#: 2,380.5 without any row) and would cut off a start whose last slot only
#: holds idle workers.
CUTS: tuple[str, ...] = ("cumulative", "earliest")


def earliest_completion(inst: OkitaInstance) -> np.ndarray:
    """``a_i + d_i - 1`` per job (int array): no schedule completes job ``i`` earlier.

    ``d_i`` of the module docstring ("Formulation v3", ``cut_earliest``); ``a_i`` for a job
    without data or with ``c_i = 0`` (then no schedule exists at all and the
    model is infeasible anyway).
    """
    ybar, ybar_ps = worker_bound(inst), ps_worker_bound(inst)
    out = np.asarray(inst.arrival, dtype=np.int64).copy()
    for i in range(inst.n_jobs):
        per = float(inst.rho[i]) / float(inst.epochs[i])
        n_i = int(inst.D[i].sum())
        best = 0
        for p in range(inst.n_sites):
            if ybar_ps[i, p] < 0:  # the PS does not fit on p
                continue
            caps = [
                ybar_ps[i, r] if r == p else ybar[i, r] for r in range(inst.n_sites)
            ]
            best = max(best, sum(math.floor(per * c * (1 + 1e-9) + 1e-9) for c in caps))
        if n_i > 0 and best > 0:
            out[i] += math.ceil(n_i / best) - 1
    return out


def add_cuts(
    model: pyo.ConcreteModel,
    inst: OkitaInstance,
    cuts: tuple[str, ...] = CUTS,
) -> None:
    """Add the rows of ``cuts`` (names of :data:`ALL_CUTS`) to a model of
    :func:`build_model` of ``inst`` (module docstring, "Formulation v3").

    Raises
    ------
    ValueError
        A name not in :data:`ALL_CUTS`.
    """
    unknown = set(cuts) - set(ALL_CUTS)
    if unknown:
        raise ValueError(f"cuts: unknown {sorted(unknown)}, must be among {ALL_CUTS}")
    T, R = inst.n_slots, inst.n_sites
    a = inst.arrival
    loads: dict[tuple[int, int], list] = {}
    for i in range(inst.n_jobs):
        for t in range(int(a[i]), T + 1):
            loads[i, t] = [model.l[i, r, t] for r in range(R) if (i, r, t) in model.l]
    jobs = [i for i in range(inst.n_jobs) if int(inst.D[i].sum()) > 0]
    if "cumulative" in cuts:
        idx = [(i, t) for i in jobs for t in range(int(a[i]), T)]

        def cumulative(_, i, t):
            done = [v for tt in range(int(a[i]), t + 1) for v in loads[i, tt]]
            ends = [model.u[i, tt] for tt in range(int(a[i]), t + 1)]
            return pyo.quicksum(done) >= int(inst.D[i].sum()) * pyo.quicksum(ends)

        model.cut_cumulative = pyo.Constraint(idx, rule=cumulative)
    if "earliest" in cuts:
        first = earliest_completion(inst)
        idx = [
            (i, t) for i in jobs for t in range(int(a[i]), min(int(first[i]), T + 1))
        ]
        model.cut_earliest = pyo.Constraint(
            idx, rule=lambda _, i, t: model.u[i, t] == 0
        )
    if "last_load" in cuts:
        idx = [(i, t) for i in jobs for t in range(int(a[i]), T + 1)]
        model.cut_last_load = pyo.Constraint(
            idx, rule=lambda _, i, t: model.u[i, t] <= pyo.quicksum(loads[i, t])
        )


def worker_bound(inst: OkitaInstance) -> np.ndarray:
    """``Ybar_i^r`` (I x R int): the upper bound of ``y_i^r(t)`` in the model.

    ``min(min_{k: m_i^k > 0} floor(C_r^k / m_i^k), max(1, ceil(E_i N_i /
    rho_i)))``; the capacity part uses the checker's tolerance, so every
    count the checker accepts alone on an empty site is below it.
    """
    I_, R = inst.n_jobs, inst.n_sites
    out = np.zeros((I_, R), dtype=np.int64)
    for i in range(I_):
        m = inst.m[i]
        pos = m > 0
        need = max(1, math.ceil(inst.epochs[i] * int(inst.D[i].sum()) / inst.rho[i]))
        for r in range(R):
            cap = inst.capacity[r, pos]
            fit = np.floor((cap + TOL * np.maximum(1.0, cap)) / m[pos]).min()
            out[i, r] = int(min(max(fit, 0), need))
    return out


def build_model(
    inst: OkitaInstance,
    *,
    relax: bool = False,
    deadline: Deadline | None = None,
    formulation: str = "v1",
) -> pyo.ConcreteModel:
    """Exact MILP of problem (2) (minimise total cost), or its LP relaxation.

    Constraint components: ``c2a_data``, ``c2b_workers``,
    ``c2c_one_ps_in_window``, ``c2d_capacity``, ``c2e_completion_once``,
    ``c2e_completion_upper``, ``c2e_completion_lower``, ``eq1_exchange``;
    objective ``obj`` is (2) (module docstring).  Index data are kept in
    ``model._okita``.  ``deadline`` (:class:`optsched.core.solver.Deadline`)
    is checked per objective term, capacity row and constraint row; it
    raises :class:`~optsched.core.solver.DeadlineExceeded` when it runs out.
    ``formulation``: ``"v1"`` (the rows above) or ``"v2"``: the exchange rows
    ``eq1_exchange`` replaced by the PS-site disaggregation of
    :func:`_add_v2_rows` ("Formulation v2" of the module docstring); same
    integer points projected on ``y, s, x, l, u``, same optimum; ``"v3"``:
    v2 plus the valid rows :data:`CUTS` of :func:`add_cuts` ("Formulation
    v3"), the same integer points.
    """
    if formulation not in FORMULATION_NAMES:
        raise ValueError(
            f"formulation: must be one of {FORMULATION_NAMES}, got {formulation!r}"
        )
    dl = Deadline(None) if deadline is None else deadline
    d = _model_data(inst)
    m = pyo.ConcreteModel(name="okita_relaxed" if relax else "okita")
    m._okita = {"ybar": d.ybar}
    _add_variables(m, inst, d, relax=relax)
    _add_objective(m, inst, d, dl)
    _add_job_rows(m, inst, d, dl)
    _add_capacity_rows(m, inst, d, dl)
    if formulation == "v1":
        _add_exchange_rows(m, inst, d, dl)
    else:
        _add_v2_rows(m, inst, d, dl)
    if formulation == "v3":
        add_cuts(m, inst, CUTS)
    m._okita["formulation"] = formulation
    dl.check()
    return m


@dataclass(frozen=True)
class _ModelData:
    """Worker bounds and index lists of one :func:`build_model` call.

    ``ybar`` is :func:`worker_bound` (I x R); ``y_idx`` indexes ``y`` and
    ``s``, ``x_idx``, ``l_idx``, ``u_idx`` and ``e_idx`` index ``x``, ``l``,
    ``u`` and ``e`` (module docstring, "Variables").
    """

    ybar: np.ndarray
    y_idx: list[tuple[int, int, int]]
    x_idx: list[tuple[int, int, int]]
    l_idx: list[tuple[int, int, int]]
    u_idx: list[tuple[int, int]]
    e_idx: list[tuple[int, int, int]]


def _model_data(inst: OkitaInstance) -> _ModelData:
    """The worker bounds and index lists of :func:`build_model`."""
    I_, R, T = inst.n_jobs, inst.n_sites, inst.n_slots
    a, D, q = inst.arrival, inst.D, inst.q
    ybar = worker_bound(inst)
    y_idx = [(i, r, t) for i in range(I_) for r in range(R) for t in range(a[i], T + 1)]
    return _ModelData(
        ybar=ybar,
        y_idx=y_idx,
        x_idx=[
            (i, r, rr)
            for i in range(I_)
            for r in range(R)
            if D[i, r] > 0
            for rr in range(R)
            if ybar[i, rr] > 0
        ],
        l_idx=[(i, r, t) for i, r, t in y_idx if ybar[i, r] > 0],
        u_idx=[(i, t) for i in range(I_) for t in range(a[i], T + 1)],
        e_idx=[
            (i, r, t)
            for i, r, t in y_idx
            if ybar[i, r] > 0 and inst.pi[i] > 0 and q[r].max() > 0
        ],
    )


def _add_variables(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, *, relax: bool
) -> None:
    """Sets ``Y, X, L, U, E`` and variables ``y, s, x, l, u, e`` (integer or,
    with ``relax``, their continuous relaxations)."""
    ybar, D = d.ybar, inst.D
    dom_int = pyo.NonNegativeReals if relax else pyo.NonNegativeIntegers
    dom_bin = pyo.UnitInterval if relax else pyo.Binary
    m.Y = pyo.Set(initialize=d.y_idx, dimen=3, ordered=True)
    m.X = pyo.Set(initialize=d.x_idx, dimen=3, ordered=True)
    m.L = pyo.Set(initialize=d.l_idx, dimen=3, ordered=True)
    m.U = pyo.Set(initialize=d.u_idx, dimen=2, ordered=True)
    m.E = pyo.Set(initialize=d.e_idx, dimen=3, ordered=True)
    m.y = pyo.Var(m.Y, domain=dom_int, bounds=lambda _, i, r, t: (0, int(ybar[i, r])))
    m.s = pyo.Var(m.Y, domain=dom_bin)
    m.x = pyo.Var(m.X, domain=dom_int, bounds=lambda _, i, r, rr: (0, int(D[i, r])))
    m.l = pyo.Var(m.L, domain=dom_int, bounds=lambda _, i, r, t: (0, int(D[i].sum())))
    m.u = pyo.Var(m.U, domain=dom_bin)
    m.e = pyo.Var(m.E, domain=pyo.NonNegativeReals)


def _active(m: pyo.ConcreteModel, i: int, t: int, T: int):
    """``act_i(t) = sum_{t' >= t} u[i, t']``: 1 iff ``a_i <= t <= t_i``."""
    return pyo.quicksum(m.u[i, tt] for tt in range(t, T + 1))


def _add_objective(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, dl: Deadline
) -> None:
    """Objective ``obj``, (2): latency by completion indicators + Eq. (1)."""
    a, q = inst.arrival, inst.q
    lat = [
        (float(inst.jobs[i].cost.value(t - a[i])), m.u[i, t])
        for i, t in dl.iterate(d.u_idx, "objective (2)")
    ]
    transfer = [
        (float(inst.delta[i] * q[r, rr]), m.x[i, r, rr])
        for i, r, rr in d.x_idx
        if q[r, rr] > 0 and inst.delta[i] > 0
    ]
    m.obj = pyo.Objective(
        expr=pyo.quicksum(c * v for c, v in lat + transfer)
        + pyo.quicksum(m.e[k] for k in d.e_idx),
        sense=pyo.minimize,
    )


def _add_job_rows(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, dl: Deadline
) -> None:
    """Rows (2a), (2b), (2c) and (2e) of every job."""
    I_, R, T = inst.n_jobs, inst.n_sites, inst.n_slots
    a, D, ybar = inst.arrival, inst.D, d.ybar
    x_src: dict[tuple[int, int], list] = defaultdict(list)
    x_dst: dict[tuple[int, int], list] = defaultdict(list)
    for i, r, rr in d.x_idx:
        x_src[i, r].append(m.x[i, r, rr])
        x_dst[i, rr].append(m.x[i, r, rr])
    l_dst: dict[tuple[int, int], list] = defaultdict(list)
    for i, r, t in d.l_idx:
        l_dst[i, r].append(m.l[i, r, t])
    # (2a) per source site, and the per-slot loads l = sum_r g
    m.c2a_data = dl.constraint(
        [(i, r) for i in range(I_) for r in range(R) if D[i, r] > 0],
        rule=lambda _, i, r: pyo.quicksum(x_src[i, r]) == int(D[i, r]),
    )
    m.c2a_balance = dl.constraint(
        list(l_dst),
        rule=lambda _, i, rr: (
            pyo.quicksum(l_dst[i, rr]) == pyo.quicksum(x_dst.get((i, rr), []))
        ),
    )
    # (2b)
    m.c2b_workers = dl.constraint(
        m.L,
        rule=lambda _, i, rr, t: (
            float(inst.rho[i]) * m.y[i, rr, t] >= int(inst.epochs[i]) * m.l[i, rr, t]
        ),
    )
    # (2c) one PS in every slot of [a_i, t_i], none after
    m.c2c_one_ps_in_window = dl.constraint(
        m.U,
        rule=lambda _, i, t: (
            pyo.quicksum(m.s[i, r, t] for r in range(R)) == _active(m, i, t, T)
        ),
    )
    # (2e) completion indicators
    m.c2e_completion_once = dl.constraint(
        range(I_),
        rule=lambda _, i: pyo.quicksum(m.u[i, t] for t in range(a[i], T + 1)) == 1,
    )
    m.c2e_completion_upper = dl.constraint(
        [(i, r, t) for i, r, t in d.y_idx if t > a[i] and ybar[i, r] > 0],
        rule=lambda _, i, r, t: m.y[i, r, t] <= int(ybar[i, r]) * _active(m, i, t, T),
    )
    m.c2e_completion_lower = dl.constraint(
        m.U,
        rule=lambda _, i, t: m.u[i, t] <= pyo.quicksum(m.y[i, r, t] for r in range(R)),
    )


def _add_capacity_rows(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, dl: Deadline
) -> None:
    """Rows ``c2d_capacity``, (2d); rows that cannot bind are skipped."""
    I_, R, K, T = inst.n_jobs, inst.n_sites, inst.n_resources, inst.n_slots
    a, ybar = inst.arrival, d.ybar
    rows = {}
    for r in range(R):
        for t in dl.iterate(range(1, T + 1), "capacity rows (2d)", every=16):
            jobs = [i for i in range(I_) if a[i] <= t]
            for k in range(K):
                cap = float(inst.capacity[r, k])
                most = sum(inst.m[i, k] * ybar[i, r] + inst.n[i, k] for i in jobs)
                if most <= cap:
                    continue
                rows[r, t, k] = (
                    pyo.quicksum(
                        float(inst.m[i, k]) * m.y[i, r, t]
                        + float(inst.n[i, k]) * m.s[i, r, t]
                        for i in jobs
                        if inst.m[i, k] > 0 or inst.n[i, k] > 0
                    )
                    <= cap
                )
    m.c2d_capacity = dl.constraint(list(rows), rule=lambda _, r, t, k: rows[r, t, k])


def _add_exchange_rows(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, dl: Deadline
) -> None:
    """Rows ``eq1_exchange`` of formulation v1, Eq. (1):
    ``e >= pi (q^{rr'} y - Ybar sum_r'' (q^{rr'} - q^{rr''})^+ s^{r''})``."""
    R, q, ybar = inst.n_sites, inst.q, d.ybar
    ex_rows = [(i, r, t, rr) for i, r, t in d.e_idx for rr in range(R) if q[r, rr] > 0]

    def exchange(_, i, r, t, rr):
        pi, yb = float(inst.pi[i]), int(ybar[i, r])
        drop = [
            (q[r, rr] - q[r, r2], m.s[i, r2, t])
            for r2 in range(R)
            if q[r, rr] > q[r, r2]
        ]
        return m.e[i, r, t] >= pi * (
            float(q[r, rr]) * m.y[i, r, t]
            - yb * pyo.quicksum(float(c) * v for c, v in drop)
        )

    m.eq1_exchange = dl.constraint(ex_rows, rule=exchange)


def ps_worker_bound(inst: OkitaInstance) -> np.ndarray:
    """``Ybar_i^{rr}`` (I x R int): workers of job ``i`` on ``r`` beside its own PS.

    ``min(Ybar_i^r, min_{k: m_i^k > 0} floor((C_r^k - n_i^k) / m_i^k))``
    with the checker's tolerance (as :func:`worker_bound`); -1 where the PS
    alone does not fit (``n_i^k > C_r^k`` for some ``k``: no PS of job
    ``i`` can ever sit on ``r``, by (2d)).
    """
    ybar = worker_bound(inst)
    out = ybar.copy()
    for i in range(inst.n_jobs):
        m, n = inst.m[i], inst.n[i]
        for r in range(inst.n_sites):
            cap = inst.capacity[r] + TOL * np.maximum(1.0, inst.capacity[r])
            if (n > cap).any():
                out[i, r] = -1
                continue
            pos = m > 0
            if pos.any():
                fit = np.floor((cap[pos] - n[pos]) / m[pos]).min()
                out[i, r] = int(min(max(fit, 0), ybar[i, r]))
    return out


def _add_v2_rows(
    m: pyo.ConcreteModel, inst: OkitaInstance, d: _ModelData, dl: Deadline
) -> None:
    """The rows of formulation v2 (module docstring, "Formulation v2").

    Continuous ``yp[i, r, p, t]`` / ``lp[i, r, p, t]``: the workers on ``r``
    and the chunks they train in slot ``t`` *when the PS is on* ``p``.
    Rows ``v2_split_workers`` (``y = sum_p yp``), ``v2_split_load`` (``l =
    sum_p lp``), ``v2_workers`` (``E lp <= rho yp``), ``v2_worker_cap``
    (``yp <= Ybar^p s^p``, ``Ybar^r`` of :func:`ps_worker_bound` for ``p =
    r``), ``v2_data`` (``lp <= D_i^r s^p + sum_{r0 != r} x[i, r0, r]``),
    ``v2_slot_load`` (``sum_r lp <= N_i s^p``), ``v2_exchange`` (``e >= pi
    sum_p q^{rp} yp``) and ``s[i, p, t] = 0`` where the PS does not fit
    (``v2_ps_fits``).  The data rows are :func:`_add_v2_data_rows`'.
    """
    R, T = inst.n_sites, inst.n_slots
    a, q = inst.arrival, inst.q
    ybar = d.ybar
    ybar_ps = ps_worker_bound(inst)
    m._okita["ybar_ps"] = ybar_ps
    fits = ybar_ps >= 0
    # (i, r, p, t): r a site job i can train on, p a site its PS fits on
    idx = [
        (i, r, p, t)
        for i, r, t in dl.iterate(m.L, "v2 index")
        for p in range(R)
        if fits[i, p]
    ]
    m.P = pyo.Set(initialize=idx, dimen=4, ordered=True)
    m.yp = pyo.Var(m.P, domain=pyo.NonNegativeReals)
    m.lp = pyo.Var(m.P, domain=pyo.NonNegativeReals)
    by_irt: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, r, p, t in idx:
        by_irt[i, r, t].append(p)

    def cap(i: int, r: int, p: int) -> int:
        return int(ybar_ps[i, r] if p == r else ybar[i, r])

    m.v2_ps_fits = dl.constraint(
        [(i, p, t) for i in range(inst.n_jobs) for p in range(R) if not fits[i, p]
         for t in range(a[i], T + 1)],
        rule=lambda _, i, p, t: m.s[i, p, t] == 0,
    )  # fmt: skip
    m.v2_split_workers = dl.constraint(
        list(by_irt),
        rule=lambda _, i, r, t: (
            m.y[i, r, t] == pyo.quicksum(m.yp[i, r, p, t] for p in by_irt[i, r, t])
        ),
    )
    m.v2_split_load = dl.constraint(
        list(by_irt),
        rule=lambda _, i, r, t: (
            m.l[i, r, t] == pyo.quicksum(m.lp[i, r, p, t] for p in by_irt[i, r, t])
        ),
    )
    m.v2_workers = dl.constraint(
        m.P,
        rule=lambda _, i, r, p, t: (
            int(inst.epochs[i]) * m.lp[i, r, p, t]
            <= float(inst.rho[i]) * m.yp[i, r, p, t]
        ),
    )
    m.v2_worker_cap = dl.constraint(
        m.P,
        rule=lambda _, i, r, p, t: m.yp[i, r, p, t] <= cap(i, r, p) * m.s[i, p, t],
    )
    _add_v2_data_rows(m, inst, idx, by_irt, dl)
    m.v2_exchange = dl.constraint(
        [k for k in m.E if k in by_irt],
        rule=lambda _, i, r, t: (
            m.e[i, r, t]
            >= float(inst.pi[i])
            * pyo.quicksum(
                float(q[r, p]) * m.yp[i, r, p, t]
                for p in by_irt[i, r, t]
                if q[r, p] > 0
            )
        ),
    )


def _add_v2_data_rows(
    m: pyo.ConcreteModel,
    inst: OkitaInstance,
    idx: list[tuple[int, int, int, int]],
    by_irt: Mapping[tuple[int, int, int], list[int]],
    dl: Deadline,
) -> None:
    """Formulation v2's data rows ``v2_data``, ``v2_inflow`` and
    ``v2_slot_load`` over ``idx`` (the index of ``yp`` / ``lp``) with the
    variables ``w[i, r, p, t]``: chunks moved into ``r`` from other sites and
    trained there in slot ``t`` with the PS on ``p``."""
    R, D = inst.n_sites, inst.D
    by_ipt: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, r, p, t in idx:
        by_ipt[i, p, t].append(r)
    inflow = {
        (i, r): [m.x[i, r0, r] for r0 in range(R) if r0 != r and (i, r0, r) in m.x]
        for i, r, _ in by_irt
    }
    m.W = pyo.Set(initialize=[k for k in idx if inflow[k[0], k[1]]], dimen=4)
    m.w = pyo.Var(m.W, domain=pyo.NonNegativeReals)
    m.v2_data = dl.constraint(
        m.P,
        rule=lambda _, i, r, p, t: (
            m.lp[i, r, p, t]
            <= int(D[i, r]) * m.s[i, p, t]
            + (m.w[i, r, p, t] if (i, r, p, t) in m.W else 0)
        ),
    )
    w_of: dict[tuple[int, int], list] = defaultdict(list)
    for i, r, p, t in m.W:
        w_of[i, r].append(m.w[i, r, p, t])
    m.v2_inflow = dl.constraint(
        list(w_of),
        rule=lambda _, i, r: pyo.quicksum(w_of[i, r]) <= pyo.quicksum(inflow[i, r]),
    )
    m.v2_slot_load = dl.constraint(
        list(by_ipt),
        rule=lambda _, i, p, t: (
            pyo.quicksum(m.lp[i, r, p, t] for r in by_ipt[i, p, t])
            <= int(D[i].sum()) * m.s[i, p, t]
        ),
    )


def extract_schedule(model: pyo.ConcreteModel, inst: OkitaInstance) -> OkitaSchedule:
    """Rows ``y > 0``, ``s = 1``, ``g > 0`` of a solved (integer) model, rounded.

    ``g`` is cut from ``x`` and ``l`` (module docstring): for each job and
    destination ``r'`` the chunks ``x[i, r, r']`` in source order fill the
    slots ``l[i, r', t]`` in slot order.
    """

    def val(v) -> int:
        return int(round(v.value)) if v.value is not None else 0

    workers = [(i, t, r, val(v)) for (i, r, t), v in model.y.items() if val(v) > 0]
    ps = [(i, t, r) for (i, r, t), v in model.s.items() if val(v) > 0]
    sources: dict[tuple[int, int], list[list[int]]] = defaultdict(list)
    for (i, r, rr), v in model.x.items():
        if val(v) > 0:
            sources[i, rr].append([r, val(v)])
    data = []
    for (i, rr, t), v in model.l.items():
        need = val(v)
        src = sources.get((i, rr), [])
        while need > 0 and src:
            r, have = src[0]
            take = min(have, need)
            data.append((i, t, r, rr, take))
            need -= take
            src[0][1] -= take
            if src[0][1] == 0:
                src.pop(0)
        if need > 0:  # l and x disagree: an invalid point; the checker rejects
            data.append((i, t, rr, rr, need))
    return OkitaSchedule.build(
        sorted(workers), sorted(ps), sorted(data), algorithm="milp"
    )


def start_values(
    model: pyo.ConcreteModel, inst: OkitaInstance, sched: OkitaSchedule
) -> ComponentMap:
    """The point of :func:`build_model` that a checker-feasible ``sched`` maps to.

    Every variable gets a value (``e`` its least feasible value, the
    exchange cost of Eq. (1)), so the model objective at this point equals
    the checker's objective of ``sched``.

    Raises
    ------
    ValueError
        If ``sched`` has a row the model has no variable for, or more workers
        than ``Ybar_i^r`` (then lower them first, module docstring).
    """
    values = ComponentMap((v, 0.0) for v in model.component_data_objects(pyo.Var))
    ybar = model._okita["ybar"]

    def put(var, key, x):
        if key not in var:
            raise ValueError(f"schedule row {key} has no variable in the model")
        values[var[key]] = float(x)

    y = {}
    for i, t, r, c in np.asarray(sched.workers).tolist():
        if c > ybar[i, r]:
            raise ValueError(
                f"job {i}, site {r}, slot {t}: {c} workers > Ybar = {ybar[i, r]}"
            )
        if c > 0:
            put(model.y, (i, r, t), c)
            y[i, r, t] = c
    ps = {}
    for i, t, r in np.asarray(sched.ps).tolist():
        put(model.s, (i, r, t), 1)
        ps[i, t] = r
    x: dict[tuple[int, int, int], int] = defaultdict(int)
    load: dict[tuple[int, int, int], int] = defaultdict(int)
    for i, t, r, rr, c in np.asarray(sched.data).tolist():
        if c > 0:
            x[i, r, rr] += c
            load[i, rr, t] += c
    for key, c in x.items():
        put(model.x, key, c)
    for key, c in load.items():
        put(model.l, key, c)
    completion = sched.completion(inst.n_jobs)
    for i in range(inst.n_jobs):
        put(model.u, (i, int(completion[i])), 1)
    q, pi = inst.q, inst.pi
    for i, r, t in model.E:
        c = y.get((i, r, t), 0)
        values[model.e[i, r, t]] = float(pi[i] * q[r, ps[i, t]] * c) if c else 0.0
    if hasattr(model, "yp"):  # formulation v2: everything in the PS's share
        _v2_start(model, values, y, load, x, ps)
    return values


def _v2_start(
    model: pyo.ConcreteModel,
    values: ComponentMap,
    y: dict[tuple[int, int, int], int],
    load: dict[tuple[int, int, int], int],
    x: dict[tuple[int, int, int], int],
    ps: dict[tuple[int, int], int],
) -> None:
    """Values of v2's ``yp``, ``lp``, ``w`` at the point of a checked schedule.

    Slot ``t``'s workers and load go to its PS site ``p``; the chunks a
    site ``r`` trains are its own ``x[i, r, r]`` first (in slot order), then
    the moved-in ones, which are ``w`` (module docstring, "Formulation v2").
    """
    for (i, r, t), c in y.items():
        values[model.yp[i, r, ps[i, t], t]] = float(c)
    own = {(i, r): x.get((i, r, r), 0) for i, r, _ in load}
    for i, r, t in sorted(load, key=lambda k: k[2]):
        c, p = load[i, r, t], ps[i, t]
        values[model.lp[i, r, p, t]] = float(c)
        local = min(c, own[i, r])
        own[i, r] -= local
        if c > local:
            values[model.w[i, r, p, t]] = float(c - local)


def cost_bound(inst: OkitaInstance) -> float:
    """A valid lower bound on (2) without a solve: ``sum_i min_t f_i(t - a_i)``.

    Every job completes in some slot ``t`` of ``[a_i, T]`` and pays its
    latency cost there; the transfer and exchange terms are ``>= 0``.
    """
    total = 0.0
    for i, job in enumerate(inst.jobs):
        d = np.arange(inst.n_slots - int(inst.arrival[i]) + 1, dtype=float)
        total += float(np.min(job.cost.value(d))) if d.size else 0.0
    return total


def solve_offline(
    inst: OkitaInstance,
    *,
    time_limit: float | None = 60.0,
    start: OkitaSchedule | None = None,
    threads: int | None = None,
    verbose: bool = False,
    confirm: str | None = None,
    formulation: str | None = None,
    extra_bounds: Callable[[Deadline], Mapping[str, float]] | None = None,
    bound_reserve: float = 0.0,
) -> OfflineResult:
    """Offline optimum of (2) by HiGHS.

    The steps are :func:`optsched.core.base.certified_solve`'s.  The model
    is :func:`build_model` with ``formulation`` (None:
    :data:`DEFAULT_FORMULATION`); :data:`FORMULATIONS` holds one callable
    per formulation with this signature (for ``benchmarks/frontier.py``).

    Parameters
    ----------
    inst
        The instance.
    time_limit
        Wall-clock limit in seconds for the whole call (None = none): model
        building, the MIP start and HiGHS, which gets what is left (HiGHS,
        and Pyomo handing it a large model, may overshoot).
    start
        A checked schedule of ``inst``, kept as incumbent when HiGHS stops
        at the limit without a better one and handed to HiGHS as MIP start
        when its worker counts are within ``Ybar`` (:func:`start_values`);
        None: no start.  The harness passes
        :func:`~optsched.okita.schedule.local_first` when the checker
        accepts it (:func:`optsched.okita.paper.default_start`).
    threads
        HiGHS threads (None = HiGHS default).
    verbose
        Show the HiGHS log.
    confirm
        None, or ``"scip"``: SCIP's second opinion on an optimum HiGHS
        proved (:mod:`optsched.core.confirm` says how;
        ``pip install optsched[scip]``).
    formulation
        ``"v1"``, ``"v2"`` or ``"v3"`` (module docstring), None =
        :data:`DEFAULT_FORMULATION`.
    extra_bounds, bound_reserve
        Further lower bounds for an unproven result, as in
        :func:`optsched.core.base.certified_solve`: ``extra_bounds(deadline)``
        returns ``{kind: bound}`` (each valid for (2)), computed with the
        ``bound_reserve`` share of ``time_limit`` withheld from HiGHS (0:
        none).  For example the Lagrangian bound of
        :mod:`optsched.models.okita_colgen` (``colgen_bound``, kind
        ``colgen``; that module imports this one, so it is handed in, not
        imported here).

    Returns
    -------
    OfflineResult
        ``objective`` is the checker's total cost of the incumbent (NaN when
        there is none), ``bound`` HiGHS's lower bound, or when not
        proven the largest of it, :func:`cost_bound` and the values of
        ``extra_bounds`` (``bound_kind`` ``milp``, ``combinatorial`` or a
        kind of ``extra_bounds``), ``status`` from
        :func:`optsched.core.solver.solve` (``optimal`` only when proven),
        ``runtime`` the wall time of build + solve.  When ``time_limit`` runs
        out before HiGHS starts: status ``time_limit``, ``start`` as
        incumbent and :func:`cost_bound` as bound; when HiGHS stops at the
        limit without an incumbent as good as ``start``, ``start`` is the
        incumbent.  An instance without jobs is optimal with the empty
        schedule and value 0.

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker (``"start: ..."``), or the incumbent
        does (a model bug, never expected).
    """

    form = DEFAULT_FORMULATION if formulation is None else formulation
    if form not in FORMULATION_NAMES:
        raise ValueError(
            f"formulation: must be one of {FORMULATION_NAMES}, got {formulation!r}"
        )

    def build(deadline: Deadline) -> pyo.ConcreteModel | OfflineResult:
        if inst.n_jobs == 0:
            sched = OkitaSchedule.build(algorithm="milp")
            return OfflineResult(0.0, 0.0, "optimal", deadline.elapsed(), sched)
        return build_model(inst, deadline=deadline, formulation=form)

    def mip_start(
        model: pyo.ConcreteModel, sched: OkitaSchedule
    ) -> ComponentMap | None:
        try:
            return start_values(model, inst, sched)
        except ValueError:  # more workers than Ybar: the incumbent only
            return None

    return certified_solve(
        inst,
        build=build,
        extract=lambda model: extract_schedule(model, inst),
        check=check,
        sense="min",
        time_limit=time_limit,
        start=start,
        start_values=mip_start,
        bound=lambda: cost_bound(inst),
        extra_bounds=extra_bounds,
        bound_reserve=bound_reserve,
        threads=threads,
        verbose=verbose,
        confirm=confirm,
    )


def _formulation(name: str) -> Callable[..., OfflineResult]:
    """:func:`solve_offline` with ``formulation=name`` (same keywords otherwise)."""

    def solve(
        inst: OkitaInstance,
        *,
        time_limit: float | None = 60.0,
        start: OkitaSchedule | None = None,
        threads: int | None = None,
        verbose: bool = False,
        confirm: str | None = None,
        extra_bounds: Callable[[Deadline], Mapping[str, float]] | None = None,
        bound_reserve: float = 0.0,
    ) -> OfflineResult:
        return solve_offline(
            inst,
            time_limit=time_limit,
            start=start,
            threads=threads,
            verbose=verbose,
            confirm=confirm,
            formulation=name,
            extra_bounds=extra_bounds,
            bound_reserve=bound_reserve,
        )

    solve.__name__ = solve.__qualname__ = f"solve_offline_{name}"
    solve.__doc__ = f"``solve_offline(..., formulation={name!r})``."
    return solve


#: Name -> ``solve_offline``-like callable, one per formulation of the MILP
#: (``benchmarks/frontier.py`` compares them): ``"v1"`` the big-M exchange
#: rows, ``"v2"`` the PS-site disaggregation, ``"v3"`` v2 with the valid
#: rows of :func:`add_cuts` (module docstring).
FORMULATIONS: dict[str, Callable[..., OfflineResult]] = {
    name: _formulation(name) for name in FORMULATION_NAMES
}


def build_placement(
    U: np.ndarray,
    q: np.ndarray,
    pi: float,
    m: np.ndarray,
    n: np.ndarray,
    N: int,
) -> pyo.ConcreteModel:
    """The one-shot placement problem (5)-(5e) as a MILP (module docstring).

    ``U`` (R, K) available capacity, ``q`` (R, R), ``pi`` the job's MB per
    worker and slot, ``m``, ``n`` (K,) worker and PS demands, ``N`` the
    workers required.  Variables ``y[r]`` (integer), ``s[r]`` (binary),
    ``z[r, p]``; objective ``sum q[r, p] pi z[r, p]`` (PA's cost over
    ``l_i``).  Infeasible when no PS site leaves room for ``N`` workers.
    """
    U = np.asarray(U, dtype=float)
    q = np.asarray(q, dtype=float)
    m = np.asarray(m, dtype=float)
    n = np.asarray(n, dtype=float)
    R, K = U.shape
    pos = m > 0
    ybar = [
        int(N)
        if not pos.any()
        else max(0, min(int(N), int(np.floor((U[r, pos] + 1e-9) / m[pos]).min())))
        for r in range(R)
    ]
    mod = pyo.ConcreteModel(name="okita_placement_5")
    mod.R = pyo.RangeSet(0, R - 1)
    mod.y = pyo.Var(
        mod.R, domain=pyo.NonNegativeIntegers, bounds=lambda _, r: (0, ybar[r])
    )
    mod.s = pyo.Var(mod.R, domain=pyo.Binary)
    mod.z = pyo.Var(mod.R, mod.R, domain=pyo.NonNegativeReals)
    mod.c5a = pyo.Constraint(expr=sum(mod.y[r] for r in mod.R) >= int(N))
    mod.c5b = pyo.Constraint(
        mod.R,
        range(K),
        rule=lambda _, r, k: m[k] * mod.y[r] + n[k] * mod.s[r] <= U[r, k],
    )
    mod.c5c = pyo.Constraint(expr=sum(mod.s[r] for r in mod.R) == 1)
    mod.link = pyo.Constraint(
        mod.R, rule=lambda _, r: sum(mod.z[r, p] for p in mod.R) == mod.y[r]
    )
    mod.only_ps = pyo.Constraint(
        mod.R, mod.R, rule=lambda _, r, p: mod.z[r, p] <= ybar[r] * mod.s[p]
    )
    mod.obj = pyo.Objective(
        expr=sum(q[r, p] * pi * mod.z[r, p] for r in mod.R for p in mod.R)
    )
    return mod


def build_transfer(
    M: np.ndarray, d: np.ndarray, q: np.ndarray, delta: float
) -> pyo.ConcreteModel:
    """The data-transmission problem (7) with the supply row, as a MILP.

    ``M`` (R,) remaining chunks per site, ``d`` (R,) workload, ``q`` (R, R),
    ``delta`` MB per chunk.  Variables ``g[r, r']`` (integer, ``r != r'``):
    chunks sent from ``r`` to ``r'``; rows ``c7a`` (deficits met) and
    ``supply`` (module docstring); objective ``sum q delta g``.
    """
    M = np.asarray(M, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    q = np.asarray(q, dtype=float)
    R = len(M)
    pairs = [(r, rr) for r in range(R) for rr in range(R) if r != rr]
    mod = pyo.ConcreteModel(name="okita_transfer_7")
    mod.g = pyo.Var(pairs, domain=pyo.NonNegativeIntegers)
    mod.c7a = pyo.Constraint(
        range(R),
        rule=lambda _, rr: (
            sum(mod.g[r, rr] for r in range(R) if r != rr) + int(M[rr]) >= int(d[rr])
        ),
    )
    mod.supply = pyo.Constraint(
        range(R),
        rule=lambda _, r: (
            sum(mod.g[r, rr] for rr in range(R) if rr != r) <= max(int(M[r] - d[r]), 0)
        ),
    )
    mod.obj = pyo.Objective(
        expr=sum(q[r, rr] * delta * mod.g[r, rr] for r, rr in pairs)
    )
    return mod
