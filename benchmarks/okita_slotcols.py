r"""Slot columns over all sites: the root bound of a per-slot decomposition of okita (2).

``benchmarks/okita_patterns.py`` (one column per integer packing of one
``(site, slot)``) stays below HiGHS's 60-s bound on every 5 x 10 x 20 seed:
the LP's cheat, the PS of a slot split over *sites* so that workers sit
beside a PS fraction and pay little exchange cost (Eq. (1)), is a choice
across sites that a per-``(r, t)`` hull cannot see.  This script measures
the root of the next decomposition: **one column per slot** ``t``, an
integer assignment, over all sites at once, of every active job's workers
and PS site, with its exact exchange cost.

Columns.  For a slot ``t`` let ``J_t`` be the jobs with variables at
``t`` in :func:`build_model` (``a_i <= t``, exactly its index set ``Y``).
A column ``q`` of ``t`` is ``(Y, S)`` with integers ``0 <= Y_{ir} <=
Ybar_i^r`` (:func:`worker_bound`) and binaries ``S_{ir}`` (``i in J_t``,
all sites ``r``) such that

* ``sum_r S_{ir} <= 1`` (at most one PS per job),
* ``Y_{ir} <= Ybar_i^r sum_p S_{ip}`` (workers need a PS),
* ``sum_i m_i^k Y_{ir} + n_i^k S_{ir} <= C_r^k (1 + eps_r^k)`` for every
  site and resource (``capacity_limit`` of ``okita_patterns``: the checker's
  tolerance),

with ``YP_{irp} = Y_{ir} S_{ip}`` (the workers on ``r`` with the PS on
``p``) and the exact exchange cost of Eq. (1),
``E_q = sum_i pi_i sum_{r,p} q^{rp} Y_{ir} S_{ip}`` (:func:`exchange_cost`:
per job at most one PS, so this is ``pi_i q^{r p_i} Y_{ir}`` with ``p_i``
its PS site, the checker's definition).  The empty column is a column.

Master (minimisation).  v3's LP relaxation with every row kept except the
exchange rows ``v2_exchange``, and the exchange variables ``e`` fixed to 0
(so their objective coefficient is 0: the exchange cost now comes from the
columns).  Dropping those rows is the same as keeping them with ``e`` at
cost 0: ``e`` appears nowhere else and has no upper bound, so
``e >= pi sum_p q^{rp} yp`` can always be met.  Per slot ``t``:
``lambda_q >= 0`` per column (objective ``E_q``), the convexity row
``sum_q lambda_q <= 1`` and the *equality* linking rows

.. math::

   y_{i,r,t} = \sum_q Y_{q,ir} \lambda_q, \qquad
   s_{i,r,t} = \sum_q S_{q,ir} \lambda_q, \qquad
   yp_{i,r,p,t} = \sum_q YP_{q,irp} \lambda_q

for every ``y``, ``s`` and v2 ``yp`` of the model (``link_yp=True``, the
default; the variant ``link_yp=False`` links ``y`` and ``s`` only).  A ``y``
that is no column of the LP (``Ybar_i^r = 0``: it is in no row) gets no
row; every column has ``Y_{ir} = 0`` there.

Why ``yp`` is linked too.  The v3 exchange rows price the v2 split ``yp``,
not ``(y, s)``.  Without ``yp`` in the linking rows the master may split
``yp`` (and with it ``lp``, ``w``, whose rows ``v2_workers``, ``v2_data``,
``v2_slot_load`` depend on the split) differently from the columns' PS
sites while paying the columns' exchange cost, and a master point then
need not give a v3 LP point of the same value: (b) below would fail.
It does fail: without ``yp`` linking the converged master is *below* v3's
LP on small instances (``generate(0, 2, 3, 8)``: 218.3 against 228.1;
``generate(0, 3, 4, 12)``: 249.3 against 279.6), since the ``yp`` split
that serves ``lp`` then carries no exchange cost.  Linking ``yp`` costs
nothing at integer points (next paragraph) and makes (b) immediate.

*(a) The master is a relaxation: z_master <= OPT.*  Take an optimal
integer point of v3; its ``e`` is least (positive cost, only the rows
``v2_exchange``), ``e_{irt} = pi_i sum_p q^{rp} yp_{irpt}``.  In a slot
``t`` of the job's window exactly one ``s_{ipt} = 1`` (``c2c``), so
``v2_worker_cap`` (``yp <= Ybar s``) and ``v2_split_workers`` give
``yp_{irpt} = y_{irt} s_{ipt}``; outside the window (after ``t_i``)
``y = s = yp = 0``.  The slice ``q_t = (y[., ., t], s[., ., t])`` is a
column: one PS at most (``c2c``); ``y <= Ybar sum_p s`` (``c2e_completion_upper``
and ``sum_p s = act``; at ``t = a_i`` ``act = 1``); capacity: the rows
``c2d`` v3 writes and those it skips (they cannot bind).  A job inside its
window without workers in ``t`` has ``S`` without ``Y``: allowed.  Put
``lambda_{q_t} = 1`` (none for an empty slice): the linking rows hold with
equality (``YP = Y S = yp``), the convexity rows hold, every other v3 row
holds, and ``E_{q_t} = sum_{i,r} pi_i q^{r p_i} y_{irt} = sum_{i,r}
e_{irt}``: the master objective equals v3's.  (Numerically: the first
restricted master of a run started from a proven optimum is at most it,
``tests/test_okita_slotcols_quick.py``.)

*(b) z_master >= v3's LP.*  At a master point put ``e_{irt} := pi_i sum_p
q^{rp} yp_{irpt}``.  It meets ``v2_exchange`` with equality and every other
v3 row holds at the master point (all are kept), so it is a v3 LP point.
Its objective: ``sum_{i,r} e_{irt} = sum_q lambda_q sum_{i,r,p} pi_i
q^{rp} YP_{q,irp} = sum_q lambda_q E_q`` (the ``yp`` linking rows): the
same as the master's.  *(c) z_master >= the pattern root* of
``okita_patterns``: a column restricted to one site is a pattern, so the
master's ``(y, s)`` of each ``(r, t)`` lie in the patterns' hull, and
their exchange cost ``pi sum_p q^{rp} yp`` is what the pattern master's
least ``e`` pays at that ``yp``.  So ``z_DW`` lies between the pattern
root and every restricted master's value (``master`` in the CSV), which
brackets it even when the column generation has not converged.
(For ``link_yp=False`` this argument is not
available; the tests check that variant's validity, (a), and that it is
not above the linked master.)

Pricing per slot (exact).  For the master's duals ``pi`` (equality rows:
free; HiGHS's signs as in ``okita_patterns``, reduced cost ``d = c - A^T
pi``) a column of ``t`` has reduced cost, the convexity row left out,

.. math::

   d'_q = E_q + \sum_{i,r} \pi^y_{irt} Y_{q,ir} + \pi^s_{irt} S_{q,ir}
        + \sum_{i,r,p} \pi^{yp}_{irpt} YP_{q,irp}

(a column has ``-Y``, ``-S``, ``-YP`` in the linking rows).  ``min_q d'_q``
is a MILP (:class:`SlotPricer`, HiGHS, gap 0): integer ``Y``, binary ``S``
and continuous ``YP >= 0`` with ``sum_p YP_{irp} = Y_{ir}`` and ``YP_{irp}
<= Ybar_i^r S_{ip}``, objective ``sum (pi_i q^{rp} + pi^{yp}) YP + pi^y Y +
pi^s S``.  The linearisation is exact *whatever the signs* of the
coefficients: with at most one ``S_{ip} = 1`` the rows force ``YP_{irp} =
Y_{ir}`` for that ``p`` and 0 for the others (and ``Y = 0`` without a PS).
``YP`` exists for the ``(i, r, p)`` of v2's index set ``P`` (``Ybar_i^r >
0`` and the PS fits on ``p``); elsewhere ``Y_{ir} = 0`` or ``S_{ip} = 0``
anyway (capacity).  The solution is rounded, re-checked and re-costed
exactly; its *lower* bound ``mip_dual_bound`` minus ``1e-6 (1 + |.|)`` is
used.

Valid bound at every round.  ``L(pi) = offset + sum_i h_i(pi_i) + sum_j
min d_j x_j + sum_t min(0, min_q d'_q)`` (``okita_patterns``'s Lagrangian
of the non-convexity rows: ``MasterLP.lagrangian_terms``, ``j`` over the
LP's and the elastic columns, all with finite bounds, ``h_i = 0`` for the
equality linking rows), with each ``min_q d'_q`` replaced by the pricing's
lower bound: ``L <= z_DW <= OPT`` for any ``pi`` (``z_DW`` the master over
all columns).  The master value is never reported as a bound; ``bound``
is the best ``L`` over the rounds.  At the master's duals the textbook
``z_master + sum_t min(0, rc*_t)`` (``rc*_t = min d' - mu_t``) is computed
beside it (``Round.formula``).  Duals: Wentges smoothing (:data:`SMOOTHING`
= 0.5): each round prices at ``0.5 pi_c + 0.5 pi`` (``pi_c`` the duals of
the best ``L`` so far, ``pi`` the master's) and falls back to ``pi`` when
that gives no column; each priced round is a ``history`` entry and its
``L`` counts (valid for any duals).  Columns entering per slot and round:
the pricing optimum and HiGHS's earlier incumbents of that MILP, when
their reduced cost at the master's duals is below ``-1e-7``.  Elastic columns ``a^+,
a^- in [0, U]`` of cost ``M`` in each linking row (``U`` the linked
variable's upper bound) keep every restricted master feasible;
``artificial`` reports their sum at the end.  ``converged``: a round at
the master's duals in which no slot priced a column of reduced cost below
``-1e-7`` (then ``L`` = the master value up to the pricing margins).

Start columns: per slot and job, the job alone with its PS on each site it
fits, without workers and with the most workers that fit on every site;
and the slices of the checked ``local_first`` schedule
(``online_start``; worker counts above ``Ybar`` lowered to it).

Written to ``<out>/okita_slotcols.csv`` (:data:`COLUMNS`, merged by
``(size_json, seed)``) with the committed references of
``okita_patterns.references`` (HiGHS's 60-s v3 bound and incumbent from
``frontier.csv``, the Lagrangian bound of ``okita_colgen.csv``, the ``y +
s`` partial relaxation of ``integrality.csv``) and the pattern root of
``okita_patterns.csv``.  ``history``: ``[seconds, L, master]`` of at most
60 evenly spread rounds.

``--quick``: 3 sites x 4 jobs x 12 slots, seed 0, 30 s; reference from a
proven ``solve_offline(formulation="v3")``.

Run (one HiGHS thread, niced on 2 shared cores; timings are
measurements, not assertions)::

    nice -n 5 python -m benchmarks.okita_slotcols --seeds 0 1 2 3 4 --time-limit 300 --out benchmarks/data
    python -m benchmarks.okita_slotcols --quick
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import highspy
import numpy as np
import pandas as pd
import scipy.sparse as sp
from optsched.models.okita import build_model, ps_worker_bound, worker_bound

from benchmarks.common import OUT, seeds_cli
from benchmarks.okita_patterns import (
    DATA,
    INF,
    PRICE_MARGIN,
    RC_TOL,
    MasterLP,
    PatternResult,
    Round,
    _highs,
    _standard,
    capacity_limit,
    run_study,
    study_row,
)
from optsched.okita.check import check
from optsched.okita.instance import OkitaInstance
from optsched.okita.local_search import online_start
from optsched.okita.schedule import OkitaSchedule

#: Wentges smoothing weight of the stability centre (0: price at the master's duals).
SMOOTHING = 0.5
COLUMNS = [
    "size_json", "seed", "lp", "bound", "master", "rounds", "columns",
    "converged", "artificial", "runtime_s", "time_limit_s", "highs_bound",
    "incumbent", "lagrangian", "pattern_bound", "ys_bound", "width_highs",
    "width_slot", "loadavg", "history",
]  # fmt: skip

#: A column of one slot: ``(Y, S)``, both ``len(jobs) x R`` nested tuples.
Column = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


def exchange_cost(inst: OkitaInstance, jobs: Sequence[int], Y, S) -> float:
    """``E = sum_i pi_i sum_{r,p} q^{rp} Y_{ir} S_{ip}`` of a column (Eq. (1))."""
    Y = np.asarray(Y, dtype=float).reshape(len(jobs), inst.n_sites)
    S = np.asarray(S, dtype=float).reshape(len(jobs), inst.n_sites)
    per = np.einsum("ar,rp,ap->a", Y, inst.q, S)
    return float(inst.pi[list(jobs)] @ per) if len(jobs) else 0.0


def is_column(inst: OkitaInstance, jobs: Sequence[int], Y, S) -> bool:
    """Whether ``(Y, S)`` (``len(jobs) x R``) is a column of a slot (docstring)."""
    Y, S = np.asarray(Y), np.asarray(S)
    ybar = worker_bound(inst)[list(jobs)]
    if np.any(Y < 0) or np.any(Y > ybar) or not np.isin(S, (0, 1)).all():
        return False
    ps = S.sum(axis=1)
    if np.any(ps > 1) or np.any(Y > ybar * ps[:, None]):
        return False
    m, n = inst.m[list(jobs)], inst.n[list(jobs)]  # (jobs, K)
    use = Y.T @ m + S.T @ n  # (R, K)
    return bool(np.all(use <= capacity_limit(inst)))


class SlotPricer:
    """``min d'_q`` over the columns of one slot (HiGHS MILP, docstring).

    HiGHS columns: ``Y`` (``a * R + r``), ``S`` (``n R + a * R + p``), then
    ``YP`` over :attr:`yp_idx` (``(a, r, p)``).  :meth:`price` returns
    ``(value, column, lower)``: the best column found (rounded, re-checked,
    re-costed exactly), its value and the proven lower bound minus
    :data:`PRICE_MARGIN`.
    """

    def __init__(self, inst: OkitaInstance, t: int, jobs: list[int]) -> None:
        self.inst, self.t, self.jobs = inst, t, jobs
        R, n = inst.n_sites, len(jobs)
        ybar, fits = worker_bound(inst), ps_worker_bound(inst) >= 0
        self.n, self.R = n, R
        self.yp_idx = [
            (a, r, p)
            for a, i in enumerate(jobs)
            for r in range(R)
            if ybar[i, r] > 0
            for p in range(R)
            if fits[i, p]
        ]
        nyp = len(self.yp_idx)
        up_y = np.array([float(ybar[i, r]) for i in jobs for r in range(R)])
        up_s = np.array([float(fits[i, p]) for i in jobs for p in range(R)])
        up_p = np.array([float(ybar[jobs[a], r]) for a, r, _ in self.yp_idx])
        self.pcost = np.array(
            [inst.pi[jobs[a]] * inst.q[r, p] for a, r, p in self.yp_idx], dtype=float
        )
        self.h = h = _highs()
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-9)
        h.setOptionValue("mip_improving_solution_save", True)
        ncol = 2 * n * R + nyp
        h.addVars(ncol, np.zeros(ncol), np.concatenate([up_y, up_s, up_p]))
        h.changeColsIntegrality(
            2 * n * R, np.arange(2 * n * R, dtype=np.int32),
            np.array([highspy.HighsVarType.kInteger] * (2 * n * R)),
        )  # fmt: skip
        self._rows(ybar)

    def _rows(self, ybar: np.ndarray) -> None:
        """One PS, workers need a PS, capacity, ``sum_p YP = Y``, ``YP <= Ybar S``."""
        inst, jobs, n, R, h = self.inst, self.jobs, self.n, self.R, self.h
        nY = n * R
        yp0 = 2 * nY

        def add(lo: float, up: float, idx: list[int], val: list[float]) -> None:
            h.addRow(lo, up, len(idx), np.asarray(idx, np.int32), np.asarray(val))

        for a, i in enumerate(jobs):
            ps = [nY + a * R + p for p in range(R)]
            add(-INF, 1.0, ps, [1.0] * R)
            for r in range(R):
                if ybar[i, r] > 0:
                    add(-INF, 0.0, [a * R + r, *ps], [1.0] + [-float(ybar[i, r])] * R)
        limit = capacity_limit(inst)
        for r in range(R):
            for k in range(inst.n_resources):
                idx = [a * R + r for a in range(n)] + [nY + a * R + r for a in range(n)]
                val = list(inst.m[jobs, k]) + list(inst.n[jobs, k])
                add(-INF, float(limit[r, k]), idx, [float(v) for v in val])
        split: dict[tuple[int, int], list[int]] = {}
        for c, (a, r, p) in enumerate(self.yp_idx):
            split.setdefault((a, r), []).append(yp0 + c)
            yb = float(ybar[jobs[a], r])
            add(-INF, 0.0, [yp0 + c, nY + a * R + p], [1.0, -yb])
        for (a, r), cols in split.items():
            add(0.0, 0.0, [*cols, a * R + r], [1.0] * len(cols) + [-1.0])

    def price(
        self, cy: np.ndarray, cs: np.ndarray, cp: np.ndarray
    ) -> tuple[float, Column, float]:
        """Best column for the dual costs ``cy``, ``cs`` (``n x R``), ``cp`` (per ``YP``).

        :attr:`improving` keeps HiGHS's earlier incumbents of this call (rounded
        columns, possibly empty), further candidates for the master.
        """
        n, R = self.n, self.R
        cost = np.concatenate([cy.ravel(), cs.ravel(), self.pcost + cp])
        self.improving: list[Column] = []
        if not np.any(cost < 0):
            empty = tuple((0,) * R for _ in range(n))
            return 0.0, (empty, empty), 0.0
        self.h.changeColsCost(len(cost), np.arange(len(cost), dtype=np.int32), cost)
        self.h.run()
        status = self.h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"pricing: {self.h.modelStatusToString(status)}")
        self.improving = [
            self._column(np.asarray(sol.col_value))
            for sol in self.h.getSavedMipSolutions()[:-1]
        ]
        col = self._column(np.asarray(self.h.getSolution().col_value))
        value = self.value(*col, cy, cs, cp)
        lower = min(value, float(self.h.getInfo().mip_dual_bound))
        return value, col, lower - PRICE_MARGIN * (1.0 + abs(lower))

    def _column(self, x: np.ndarray) -> Column:
        """The rounded ``(Y, S)`` of a HiGHS point; empty if it is no column."""
        n, R = self.n, self.R
        x = np.rint(x[: 2 * n * R]).astype(int)
        Y, S = x[: n * R].reshape(n, R), x[n * R :].reshape(n, R)
        if not is_column(self.inst, self.jobs, Y, S):  # never expected
            Y, S = np.zeros((n, R), int), np.zeros((n, R), int)
        return tuple(map(tuple, Y.tolist())), tuple(map(tuple, S.tolist()))

    def value(self, Y, S, cy, cs, cp) -> float:
        """``d'`` of the column ``(Y, S)`` at the dual costs (exact ``YP = Y S``)."""
        Y, S = np.asarray(Y, float), np.asarray(S, float)
        yp = np.array([Y[a, r] * S[a, p] for a, r, p in self.yp_idx])
        return float(
            exchange_cost(self.inst, self.jobs, Y, S)
            + (cy * Y).sum() + (cs * S).sum() + (cp @ yp if len(yp) else 0.0)
        )  # fmt: skip


@dataclass
class SlotCols:
    """One slot: its jobs, linking rows (``-1``: none), convexity row, pricer."""

    t: int
    jobs: list[int]
    y_row: np.ndarray  # (n, R)
    s_row: np.ndarray  # (n, R)
    p_row: np.ndarray  # per SlotPricer.yp_idx
    pricer: SlotPricer
    conv: int = -1
    seen: set = field(default_factory=set)


class SlotMaster(MasterLP):
    """The restricted slot-column master LP (module docstring) in HiGHS."""

    def __init__(self, inst: OkitaInstance, big_m: float, *, link_yp: bool = True):
        self.inst = inst
        model = build_model(inst, relax=True, formulation="v3")
        model.v2_exchange.deactivate()
        model.e.fix(0.0)
        self.h, cols, A, self.data = _standard(model, inst, bound=True)
        col_of = {id(v): j for j, v in enumerate(cols)}
        n_rows0, n_base = A.shape
        link: list[tuple[int, float]] = []  # (base column, its upper bound)

        def row_of(var: Any) -> int:
            j = col_of.get(id(var))
            if j is None:
                if var.ub is None or var.ub > 0:
                    raise RuntimeError(f"{var.name} is not in the LP (not expected)")
                return -1
            link.append((j, float(self.data["col_up"][j])))
            return n_rows0 + len(link) - 1

        R = inst.n_sites
        self.slots: dict[int, SlotCols] = {}
        for t in range(1, inst.n_slots + 1):
            jobs = sorted(i for i in range(inst.n_jobs) if (i, 0, t) in model.Y)
            if not jobs:
                continue
            pricer = SlotPricer(inst, t, jobs)
            rows = [[row_of(v[i, r, t]) for i in jobs for r in range(R)]
                    for v in (model.y, model.s)]  # fmt: skip
            p_row = [
                row_of(model.yp[jobs[a], r, p, t]) if link_yp else -1
                for a, r, p in pricer.yp_idx
            ]
            self.slots[t] = SlotCols(
                t, jobs, np.reshape(rows[0], (-1, R)), np.reshape(rows[1], (-1, R)),
                np.asarray(p_row, dtype=np.int64), pricer,
            )  # fmt: skip
        n_link = len(link)
        for k, sl in enumerate(self.slots.values()):
            sl.conv = n_rows0 + n_link + k
        self.conv_rows = np.arange(n_rows0 + n_link, n_rows0 + n_link + len(self.slots))
        self._assemble(A, link, big_m)
        self.n_base, self.n_elastic, self.columns = n_base, 2 * n_link, 0

    def _assemble(
        self, A: sp.csc_matrix, link: list[tuple[int, float]], big_m: float
    ) -> None:
        """The base LP + linking rows ``x - a^+ + a^- = 0`` + convexity rows in HiGHS."""
        n_rows0, n_base = A.shape
        n_link, n_conv = len(link), len(self.slots)
        n_rows = n_rows0 + n_link + n_conv
        lk = np.arange(n_link) + n_rows0
        base = [j for j, _ in link]
        B = sp.csc_matrix((np.ones(n_link), (lk, base)), shape=(n_rows, n_base))
        el = np.arange(n_link)
        E = sp.csc_matrix(
            (np.r_[-np.ones(n_link), np.ones(n_link)],
             (np.r_[lk, lk], np.r_[el, el + n_link])),
            shape=(n_rows, 2 * n_link),
        )  # fmt: skip
        A_full = sp.vstack([A, sp.csc_matrix((n_rows - n_rows0, n_base))]).tocsc()
        self.M = sp.hstack([A_full + B, E]).tocsc()
        d = self.data
        ub = np.array([u for _, u in link])
        self.c = np.concatenate([d["cost"], np.full(2 * n_link, big_m)])
        self.col_lo = np.concatenate([d["col_lo"], np.zeros(2 * n_link)])
        self.col_up = np.concatenate([d["col_up"], ub, ub])
        self.row_lo = np.concatenate(
            [d["row_lo"], np.zeros(n_link), np.full(n_conv, -INF)]
        )
        self.row_up = np.concatenate([d["row_up"], np.zeros(n_link), np.ones(n_conv)])
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = self.M.shape[1], n_rows
        lp.col_cost_, lp.offset_ = self.c, float(d["offset"][0])
        lp.col_lower_, lp.col_upper_ = self.col_lo, self.col_up
        lp.row_lower_, lp.row_upper_ = self.row_lo, self.row_up
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_ = self.M.indptr, self.M.indices
        lp.a_matrix_.value_ = self.M.data
        self.h.passModel(lp)

    def add(self, sl: SlotCols, col: Column) -> bool:
        """Column ``col`` of slot ``sl`` (cost ``E_q``); False if known or empty."""
        Y, S = np.asarray(col[0]), np.asarray(col[1])
        if col in sl.seen or not (Y.any() or S.any()):
            return False
        sl.seen.add(col)
        yp = np.array([Y[a, r] * S[a, p] for a, r, p in sl.pricer.yp_idx], dtype=float)
        entries = [(sl.conv, 1.0)]
        for rows, vals in ((sl.y_row, Y), (sl.s_row, S), (sl.p_row, yp)):
            for rw, v in zip(np.ravel(rows), np.ravel(vals), strict=True):
                if v and rw >= 0:
                    entries.append((int(rw), -float(v)))
        idx = np.array([e[0] for e in entries], dtype=np.int32)
        val = np.array([e[1] for e in entries])
        cost = exchange_cost(self.inst, sl.jobs, Y, S)
        self.h.addCol(cost, 0.0, INF, len(idx), idx, val)
        self.columns += 1
        return True

    def duals_of(self, sl: SlotCols, p: np.ndarray) -> tuple[np.ndarray, ...]:
        """The (clipped) duals of ``sl``'s linking rows, 0 where there is none."""
        return tuple(
            np.where(rows >= 0, p[np.maximum(rows, 0)], 0.0)
            for rows in (sl.y_row, sl.s_row, sl.p_row)
        )


def slice_columns(
    inst: OkitaInstance, sched: OkitaSchedule, slots: dict[int, SlotCols]
) -> dict[int, Column]:
    """The slot slices of ``sched`` (worker counts above ``Ybar`` lowered to it)."""
    ybar, R = worker_bound(inst), inst.n_sites
    Y = {t: np.zeros((len(sl.jobs), R), int) for t, sl in slots.items()}
    S = {t: np.zeros((len(sl.jobs), R), int) for t, sl in slots.items()}
    for i, t, r, c in np.asarray(sched.workers).tolist():
        if t in slots and i in slots[t].jobs:
            Y[t][slots[t].jobs.index(i), r] = min(int(c), int(ybar[i, r]))
    for i, t, r in np.asarray(sched.ps).tolist():
        if t in slots and i in slots[t].jobs:
            S[t][slots[t].jobs.index(i), r] = 1
    return {
        t: (tuple(map(tuple, Y[t].tolist())), tuple(map(tuple, S[t].tolist())))
        for t, sl in slots.items()
        if is_column(inst, sl.jobs, Y[t], S[t])
    }


def start_columns(master: SlotMaster, start: OkitaSchedule | None) -> None:
    """Per slot and job: alone with its PS on each site, no / most workers; the start."""
    inst, R = master.inst, master.inst.n_sites
    ybar, ybar_ps = worker_bound(inst), ps_worker_bound(inst)
    for sl in master.slots.values():
        n = len(sl.jobs)
        for a, i in enumerate(sl.jobs):
            for p in range(R):
                if ybar_ps[i, p] < 0:
                    continue
                S = np.zeros((n, R), int)
                S[a, p] = 1
                Y = np.zeros((n, R), int)
                for full in (False, True):
                    if full:
                        Y[a] = [
                            ybar_ps[i, r] if r == p else ybar[i, r] for r in range(R)
                        ]
                    if is_column(inst, sl.jobs, Y, S):
                        master.add(sl, (tuple(map(tuple, Y)), tuple(map(tuple, S))))
    if start is not None:
        for t, col in slice_columns(inst, start, master.slots).items():
            master.add(master.slots[t], col)


def price_round(
    master: SlotMaster, pi: np.ndarray, value: float, mpi: np.ndarray | None = None
) -> Round:
    """Price every slot at the duals ``pi``: ``L(pi)``, columns added.

    A column (the pricing optimum, and HiGHS's earlier incumbents) enters
    when its reduced cost at the master's duals ``mpi`` (None: ``pi``) is
    below ``-RC_TOL``.  ``formula`` (the textbook value)
    only when ``mpi`` is None, else NaN.
    """
    base, p = master.lagrangian_terms(pi)
    exact = mpi is None
    mp = p if mpi is None else master.lagrangian_terms(mpi)[1]
    mpi = pi if mpi is None else mpi
    total, formula, added = 0.0, value, 0
    for sl in master.slots.values():
        found, col, lower = sl.pricer.price(*master.duals_of(sl, p))
        total += min(0.0, lower)
        mu = float(mpi[sl.conv])
        formula += min(0.0, lower - mu)
        cand = [(col, found if exact else None)]
        cand += [(c, None) for c in sl.pricer.improving]
        for c, rc in cand:
            if rc is None:
                rc = sl.pricer.value(*c, *master.duals_of(sl, mp))
            if rc - mu < -RC_TOL and master.add(sl, c):
                added += 1
    return Round(math.nan, base + total, value, formula if exact else math.nan, added)


def slot_bound(
    inst: OkitaInstance,
    *,
    time_limit: float | None = 300.0,
    start: OkitaSchedule | None = None,
    big_m: float | None = None,
    link_yp: bool = True,
    smoothing: float = SMOOTHING,
) -> PatternResult:
    """Column generation on the slot master; the best ``L`` over the rounds.

    ``start`` (None: ``online_start(inst)``) seeds the columns; ``big_m`` the
    elastic columns' cost (None: ten times the start's objective, at least
    ``1e4``).  Wentges smoothing: price at ``alpha pi_c + (1 - alpha) pi``
    (``pi_c`` the duals of the best ``L`` so far, ``alpha = smoothing``);
    when that adds no column, price again at the master's duals ``pi``
    (every priced round is in ``history`` and its ``L`` counts).  A round
    that begins before ``time_limit`` is completed.
    """
    began = time.perf_counter()
    if start is None:
        start = online_start(inst)
    if big_m is None:
        obj = 0.0 if start is None else float(check(inst, start).objective)
        big_m = max(1e4, 10.0 * obj)
    master = SlotMaster(inst, big_m, link_yp=link_yp)
    start_columns(master, start)
    history: list[Round] = []
    best, center = -math.inf, None
    while True:
        value, pi = master.solve()
        for at in ([] if center is None or smoothing <= 0 else [center]) + [None]:
            duals = pi if at is None else smoothing * at + (1.0 - smoothing) * pi
            rnd = price_round(master, duals, value, None if at is None else pi)
            rnd.seconds = time.perf_counter() - began
            history.append(rnd)
            if rnd.bound > best:
                best, center = rnd.bound, duals
            if rnd.added:
                break
        if rnd.added == 0 or (time_limit is not None and rnd.seconds > time_limit):
            break
    return PatternResult(
        bound=best, master=value, rounds=len(history), columns=master.columns,
        converged=rnd.added == 0, artificial=master.elastic(),
        runtime=time.perf_counter() - began, history=history,
    )  # fmt: skip


def pattern_root(seed: int, size: dict[str, int], data: Path = DATA) -> float:
    """The committed pattern root (``okita_patterns.csv``), NaN where absent."""
    path = data / "okita_patterns.csv"
    if not path.exists():
        return math.nan
    df = pd.read_csv(path)
    hit = df[
        (df["size_json"] == json.dumps(size, sort_keys=True)) & (df["seed"] == seed)
    ]
    return math.nan if hit.empty else float(hit.iloc[-1]["pattern_bound"])


def row(seed: int, quick: bool, time_limit: float) -> dict[str, Any]:
    """One instance: v3 LP, the slot-column root bound, the committed references."""
    return study_row(
        seed, quick, time_limit, solve=slot_bound, bound_col="bound",
        width_col="width_slot", more_refs={"pattern_bound": pattern_root},
    )  # fmt: skip


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: list[int] | None = None,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """Run the seeds, merge each row into the CSV, print the table."""
    return run_study(
        out_dir, quick, seeds, time_limit, row=row, csv_name="okita_slotcols.csv",
        columns=COLUMNS, bound_col="bound", label="slot columns",
    )  # fmt: skip


if __name__ == "__main__":
    seeds_cli(main, __doc__)
