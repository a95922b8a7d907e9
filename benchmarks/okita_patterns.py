r"""Packing patterns per site and slot: the root bound of a branch and price for okita (2).

``docs/okita.md`` ("Where the 5 x 10 gap lives") ends with: the 5 sites x
10 jobs x 20 slots gap needs the per-site, per-slot packing of workers and
PSs integral jointly with the completion slots, "for example
configuration (pattern) variables per site and slot under a branch and
price".  Before such a branch and price is built, this script measures its
root: the LP relaxation of formulation v3 with every capacity polytope of
one site and slot replaced by the convex hull of its integer packings (a
Dantzig-Wolfe reformulation of the rows (2d) per ``(r, t)``).

Patterns.  For a site ``r`` and slot ``t`` let ``J_{rt}`` be the jobs
with variables ``y[i, r, t]``, ``s[i, r, t]`` in :func:`build_model`
(exactly its index set ``Y``: the jobs with ``a_i <= t``).  A *pattern*
``p`` of ``(r, t)`` is an integer vector ``(Y_i, S_i)_{i in J_{rt}}`` with
``0 <= Y_i <= Ybar_i^r`` (:func:`worker_bound`), ``S_i in {0, 1}`` and, for
every resource ``k``,

.. math::

   \sum_{i \in J_{rt}} m_i^k Y_i + n_i^k S_i \le C_r^k (1 + \epsilon_r^k),
   \qquad \epsilon_r^k C_r^k = 10^{-9} \max(1, C_r^k)

(the checker's tolerance ``TOL``: the set holds every packing the exact
rows allow, and a few more only when a row is within ``1e-9`` of binding).
``P_{rt}`` is finite and downward closed (``m, n >= 0``); the empty
pattern is in it.

Master (minimisation).  All variables of v3's LP relaxation (every v3 row
except ``c2d_capacity``, which is deactivated), plus ``lambda_p >= 0`` per
pattern and the rows

.. math::

   \sum_{p \in P_{rt}} \lambda_p \le 1, \qquad
   y_{i,r,t} \le \sum_{p} Y_{p,i} \lambda_p, \qquad
   s_{i,r,t} \le \sum_{p} S_{p,i} \lambda_p .

Linking rows are written for the ``(i, r, t)`` whose ``y`` (``s``) is a
column of the LP with a positive upper bound.  The continuous columns
without an upper bound in v3 get one that every optimal integer point
meets: ``yp <= Ybar_i^r``, ``lp, w <= N_i``, ``e <= pi_i max_p q^{rp}
Ybar_i^r`` (``yp <= Ybar^{(p)} s <= Ybar``, ``lp <= N_i s``
(``v2_slot_load``), ``sum w <= sum x <= N_i`` (``v2_inflow``), and the
least ``e``, which an optimum has, is ``pi_i sum_p q^{rp} yp <= pi_i
max_p q^{rp} y``); they make every reduced-cost term below finite.

*The master is a relaxation of (2).*  Take an optimal integer point of v3
(with ``e`` least) and, for every ``(r, t)``, its slice ``p* = (y[., r,
t], s[., r, t])``.  It meets the rows ``c2d_capacity`` that v3 writes and
the ones it skips (those cannot bind: every job at its bounds fits), so
``p*`` is a pattern; ``lambda_{p*} = 1`` (nothing when ``p*`` is empty)
meets the convexity row and the linking rows with equality, and every
other v3 row holds.  So ``z_DW`` (the master LP over all patterns) is at
most OPT.  *It is at least v3's LP:* at a master point, for every ``(r,
t, k)``, ``sum_i m y + n s <= sum_p lambda_p (sum_i m Y_p + n S_p) <=
sum_p lambda_p C (1 + eps) <= C (1 + eps)`` (``m, n >= 0``, convexity), so
``(y, s, ...)`` is a point of v3's LP with capacities ``C (1 + eps)``.

Valid bound at every round.  The restricted master (some patterns, and
elastic columns ``a >= 0`` of cost ``M`` in the linking rows, ``y - sum_p
Y lambda - a <= 0``, with ``a <= Ybar`` resp. ``1``: a further relaxation,
feasible for any columns) is solved by HiGHS; let ``pi`` be its row
duals.  HiGHS's signs for a minimisation (checked on a two-variable LP,
and in ``tests/test_okita_patterns_quick.py``): the dual of an active
``<=`` row is ``<= 0``, of an active ``>=`` row ``>= 0``, and the reduced
cost is ``d = c - A^T pi``.  For *any* ``pi`` the Lagrangian of the
non-convexity rows

.. math::

   L(\pi) = \mathrm{offset} + \sum_{i \notin \mathrm{conv}} h_i(\pi_i)
          + \sum_{j} \min_{l_j \le x_j \le u_j} d_j x_j
          + \sum_{(r,t)} \min\Bigl(0, \min_{p \in P_{rt}} d_p\Bigr)
          \le z_{DW} \le \mathrm{OPT},

``h_i(pi_i) = min_{L_i <= v <= U_i} pi_i v`` (row ``i`` has bounds ``[L_i,
U_i]``), ``j`` over the LP's and the elastic columns (all finite bounds),
``d_p = sum_i Y_{p,i} pi^y_{irt} + S_{p,i} pi^s_{irt}`` (a pattern column
costs 0 and has ``-Y``, ``-S`` in the linking rows), and the last term is
the minimum over ``{lambda >= 0, sum lambda <= 1}`` (the convexity rows are
kept, not priced).  Proof: at a master point with row activities ``v``,
``c x = (c - A^T pi) x + pi^T v`` summed over the priced rows and all
columns, each term at least its minimum.  To keep every ``h_i`` finite the
duals are first clipped to their sign (``pi_i <= 0`` on rows without a
lower bound, ``>= 0`` on rows without an upper one: HiGHS's duals
already have these signs up to its tolerances), and ``d`` is recomputed
from the clipped ``pi``.  With ``w_i = -pi^y_{irt} >= 0``, ``v_i =
-pi^s_{irt} >= 0`` the pattern term is ``-K*_{rt}`` with

.. math::

   K^*_{rt} = \max_{p \in P_{rt}} \sum_i w_i Y_{p,i} + v_i S_{p,i} \ \ (\ge 0),

the pricing problem: an integer knapsack with ``K`` rows over at most
``|J_{rt}| <= 10`` jobs, solved by HiGHS (gap 0) and replaced by its
proven *upper* bound (``mip_dual_bound``) plus ``1e-6 (1 + |K|)`` for its
tolerances: ``L`` stays a lower bound.  At optimal restricted-master duals
this is the textbook ``LB = z_master + sum_{(r,t)} min(0, rc*_{rt})`` with
``rc*_{rt} = -K*_{rt} - mu_{rt}`` (``mu_{rt} <= 0`` the convexity row's
dual): complementary slackness turns the row and column terms into
``z_master - sum mu``; both are computed and agree to ``1e-6``.  The
master value itself is *never* reported as a bound; ``pattern_bound`` is
the best ``L`` over the rounds.  Column generation adds, per ``(r, t)``
and round, the pricing optimum when its reduced cost ``-K - mu`` is below
``-1e-7``; ``converged`` = a round without such a pattern (then ``L`` =
the master value up to tolerances, the root bound of the branch and
price, provided the elastic columns are 0: ``artificial`` reports their
sum at the end).

Start columns: per ``(r, t)`` every job alone with the most workers that
fit with and without its PS, and the slices of the checked ``local_first``
schedule (``optsched.okita.local_search.online_start``, a point of v3).

Written to ``<out>/okita_patterns.csv`` (:data:`COLUMNS`, merged by
``(size_json, seed)``) with, where the committed CSVs have the instance:
HiGHS's 60-s v3 bound and the incumbent (``benchmarks/data/frontier.csv``,
``highs_bound``, ``incumbent``), the best Lagrangian bound
(``okita_colgen.csv``, ``lagrangian``) and the ``y + s`` partial
relaxation's bound (``integrality.csv``, ``ys_bound``).  ``history``:
``[seconds, L, master]`` of (at most 60 evenly spread) rounds.

Measured (2026-12-06, ``benchmarks/data/okita_patterns.csv``): on the five
5 x 10 x 20 seeds the column generation converges in 1-5 s; the root
closes 0-7% of the LP's gap to the incumbent on seeds 0-3 and 30% on seed
4, below HiGHS's 60-s v3 bound on every seed.

``--quick``: 3 sites x 4 jobs x 12 slots, seed 0, 30 s; reference from a
proven ``solve_offline(formulation="v3")``.

Run (one HiGHS thread, niced on 2 shared cores; timings are
measurements, not assertions)::

    nice -n 5 python -m benchmarks.okita_patterns --seeds 0 1 2 3 4 --time-limit 300 --out benchmarks/data
    python -m benchmarks.okita_patterns --quick
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import highspy
import numpy as np
import pandas as pd
import pyomo.environ as pyo
import scipy.sparse as sp
from optsched.models.okita import build_model, worker_bound
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table, seeds_cli
from benchmarks.frontier import CSV, LADDERS, reference_row
from optsched.core.base import TOL
from optsched.core.solver import _use_threads
from optsched.okita.check import check
from optsched.okita.instance import OkitaInstance
from optsched.okita.local_search import online_start
from optsched.okita.schedule import OkitaSchedule

INF = highspy.kHighsInf
SIZE: dict[str, int] = dict(LADDERS["okita"][-1])
QUICK_SIZE: dict[str, int] = {"n_sites": 3, "n_jobs": 4, "n_slots": 12}
DATA = Path("benchmarks/data")
#: Reduced cost below which a priced pattern enters the master.
RC_TOL = 1e-7
#: Relative margin added to each pricing upper bound (HiGHS's tolerances).
PRICE_MARGIN = 1e-6
KEY = ["size_json", "seed"]
COLUMNS = [
    "size_json", "seed", "lp", "pattern_bound", "master", "rounds", "columns",
    "converged", "artificial", "runtime_s", "time_limit_s", "highs_bound",
    "incumbent", "lagrangian", "ys_bound", "width_highs", "width_pattern",
    "loadavg", "history",
]  # fmt: skip


def _highs() -> highspy.Highs:
    _use_threads(1)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


def capacity_limit(inst: OkitaInstance) -> np.ndarray:
    """``C_r^k + 1e-9 max(1, C_r^k)`` (R x K): a pattern's capacity (docstring)."""
    cap = inst.capacity
    return cap + TOL * np.maximum(1.0, cap)


def fits(inst: OkitaInstance, r: int, jobs: list[int], Y, S) -> bool:
    """Whether ``(Y, S)`` over ``jobs`` is a pattern of site ``r`` (capacity only)."""
    use = inst.m[jobs].T @ np.asarray(Y, float) + inst.n[jobs].T @ np.asarray(S, float)
    return bool(np.all(use <= capacity_limit(inst)[r]))


class PatternPricer:
    """``max sum_i w_i Y_i + v_i S_i`` over the patterns of one ``(r, t)`` (HiGHS MIP).

    Columns ``Y_0..Y_{n-1}`` (integer, ``0..Ybar_i^r``), then ``S`` (binary);
    one row per resource.  :meth:`price` returns ``(value, (Y, S), upper)``:
    the best pattern found (rounded, re-checked), its value and HiGHS's proven
    upper bound plus :data:`PRICE_MARGIN`.
    """

    def __init__(self, inst: OkitaInstance, r: int, jobs: list[int]) -> None:
        self.inst, self.r, self.jobs = inst, r, jobs
        n = len(jobs)
        ybar = worker_bound(inst)
        self.h = h = _highs()
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-9)
        up = np.array([float(ybar[i, r]) for i in jobs] + [1.0] * n)
        h.addVars(2 * n, np.zeros(2 * n), up)
        h.changeColsIntegrality(
            2 * n, np.arange(2 * n, dtype=np.int32),
            np.array([highspy.HighsVarType.kInteger] * (2 * n)),
        )  # fmt: skip
        limit = capacity_limit(inst)[r]
        idx = np.arange(2 * n, dtype=np.int32)
        for k in range(inst.n_resources):
            val = np.concatenate([inst.m[jobs, k], inst.n[jobs, k]])
            h.addRow(-INF, float(limit[k]), 2 * n, idx, val)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.n = n

    def price(
        self, w: np.ndarray, v: np.ndarray
    ) -> tuple[float, tuple[tuple[int, ...], tuple[int, ...]], float]:
        n = self.n
        cost = np.concatenate([w, v]).astype(float)
        if not np.any(cost > 0):
            return 0.0, ((0,) * n, (0,) * n), 0.0
        self.h.changeColsCost(2 * n, np.arange(2 * n, dtype=np.int32), cost)
        self.h.run()
        x = np.rint(np.asarray(self.h.getSolution().col_value)).astype(int)
        Y, S = tuple(int(a) for a in x[:n]), tuple(int(a) for a in x[n:])
        if not fits(self.inst, self.r, self.jobs, Y, S):  # never expected
            Y, S = (0,) * n, (0,) * n
        value = float(cost @ np.concatenate([Y, S]))
        status = self.h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"pricing: {self.h.modelStatusToString(status)}")
        upper = max(value, float(self.h.getInfo().mip_dual_bound))
        return value, (Y, S), upper + PRICE_MARGIN * (1.0 + abs(upper))


@dataclass
class Slot:
    """One ``(r, t)``: its jobs, the linking rows of their ``y`` / ``s``, its pricer."""

    r: int
    t: int
    jobs: list[int]
    y_row: dict[int, int] = field(default_factory=dict)  # job -> linking row
    s_row: dict[int, int] = field(default_factory=dict)
    conv: int = -1
    seen: set = field(default_factory=set)
    pricer: PatternPricer | None = None


def _finite_upper(var: Any, inst: OkitaInstance, ybar: np.ndarray) -> float:
    """The bound of the docstring for a v3 column without an upper bound."""
    name, idx = var.parent_component().local_name, var.index()
    i, r = int(idx[0]), int(idx[1])
    if name == "yp":
        return float(ybar[i, r])
    if name in ("lp", "w"):
        return float(inst.D[i].sum())
    if name == "e":
        return float(inst.pi[i] * inst.q[r].max() * ybar[i, r])
    raise RuntimeError(f"column {var.name} has no upper bound and no rule for one")


def v3_lp(inst: OkitaInstance) -> float:
    """v3's LP relaxation value (all rows, HiGHS, one thread)."""
    model = build_model(inst, relax=True, formulation="v3")
    h, *_ = _standard(model, inst, bound=False)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError("v3 LP not optimal")
    return float(h.getInfo().objective_function_value)


def _standard(
    model: pyo.ConcreteModel, inst: OkitaInstance, *, bound: bool
) -> tuple[highspy.Highs, list[Any], sp.csc_matrix, dict[str, np.ndarray]]:
    """``model`` as a HiGHS LP; ``bound``: finite upper bounds (docstring).

    Returns ``(highs, columns, A, data)`` with ``data`` the cost, column and
    row bounds and the offset as arrays.
    """
    repn = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    if repn.eliminated_vars:
        raise RuntimeError("standard form eliminated variables (not expected)")
    cols = list(repn.columns)
    ybar = worker_bound(inst)
    lo = np.array([-INF if v.lb is None else float(v.lb) for v in cols])
    up = np.array([INF if v.ub is None else float(v.ub) for v in cols])
    if bound:
        for j, v in enumerate(cols):
            if up[j] >= INF:
                up[j] = _finite_upper(v, inst, ybar)
    if np.any(lo <= -INF):
        raise RuntimeError("a column without a lower bound (not expected)")
    bts = [row.bound_type for row in repn.rows]
    rhs = np.asarray(repn.rhs, dtype=float)
    data = {
        "cost": np.asarray(repn.c.todense()).ravel().astype(float),
        "col_lo": lo,
        "col_up": up,
        "row_lo": np.array([-INF if b == 1 else v for b, v in zip(bts, rhs, strict=True)]),
        "row_up": np.array([INF if b == -1 else v for b, v in zip(bts, rhs, strict=True)]),
        "offset": np.asarray(repn.c_offset, dtype=float).ravel()[:1],
    }  # fmt: skip
    A = repn.A.tocsc()
    h = _highs()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(cols), len(bts)
    lp.col_cost_, lp.offset_ = data["cost"], float(data["offset"][0])
    lp.col_lower_, lp.col_upper_ = lo, up
    lp.row_lower_, lp.row_upper_ = data["row_lo"], data["row_up"]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = A.indptr, A.indices
    lp.a_matrix_.value_ = A.data
    h.passModel(lp)
    return h, cols, A, data


class MasterLP:
    """A restricted master LP in HiGHS and the base terms of its bound ``L``.

    Shared with ``benchmarks/okita_slotcols.py``.  A subclass sets ``h`` (the
    HiGHS LP: base columns, then ``n_elastic`` elastic columns, then the
    generated ones), ``data`` (of :func:`_standard`), ``M`` (rows x (base +
    elastic) matrix), ``c``, ``col_lo``, ``col_up``, ``row_lo``, ``row_up``
    (of those columns and of every row), ``conv_rows`` and ``n_base``.
    """

    h: highspy.Highs
    data: dict[str, np.ndarray]
    M: sp.csc_matrix
    c: np.ndarray
    col_lo: np.ndarray
    col_up: np.ndarray
    row_lo: np.ndarray
    row_up: np.ndarray
    conv_rows: np.ndarray
    n_base: int
    n_elastic: int

    def solve(self) -> tuple[float, np.ndarray]:
        """Master value and row duals."""
        self.h.run()
        status = self.h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"master: {self.h.modelStatusToString(status)}")
        pi = np.asarray(self.h.getSolution().row_dual, dtype=float)
        return float(self.h.getInfo().objective_function_value), pi

    def lagrangian_terms(self, pi: np.ndarray) -> tuple[float, np.ndarray]:
        """``(offset + sum h_i + sum_j min d_j x_j, clipped pi)`` (docstring)."""
        p = pi.copy()
        p[self.conv_rows] = 0.0
        p = np.where(self.row_lo <= -INF, np.minimum(p, 0.0), p)
        p = np.where(self.row_up >= INF, np.maximum(p, 0.0), p)
        rows = np.where(p > 0, p * np.where(p > 0, self.row_lo, 0.0), 0.0)
        rows += np.where(p < 0, p * np.where(p < 0, self.row_up, 0.0), 0.0)
        d = self.c - self.M.T @ p
        cols = np.where(d > 0, d * self.col_lo, d * self.col_up)
        return float(self.data["offset"][0] + rows.sum() + cols.sum()), p

    def elastic(self) -> float:
        """Sum of the elastic columns at the last master solution."""
        x = np.asarray(self.h.getSolution().col_value)
        return float(x[self.n_base : self.n_base + self.n_elastic].sum())


class PatternMaster(MasterLP):
    """The restricted master LP (module docstring) in HiGHS, and its bound ``L``."""

    def __init__(self, inst: OkitaInstance, big_m: float) -> None:
        self.inst = inst
        model = build_model(inst, relax=True, formulation="v3")
        model.c2d_capacity.deactivate()
        self.h, cols, A, self.data = _standard(model, inst, bound=True)
        col_of = {id(v): j for j, v in enumerate(cols)}
        n_base_rows, n_base = A.shape
        self.slots: dict[tuple[int, int], Slot] = {}
        by_rt: dict[tuple[int, int], list[int]] = defaultdict(list)
        for i, r, t in model.Y:
            by_rt[r, t].append(i)
        link: list[tuple[int, int, float]] = []  # (row, base column, upper)
        row = n_base_rows
        for (r, t), jobs in sorted(by_rt.items()):
            sl = self.slots[r, t] = Slot(r, t, sorted(jobs))
            for i in sl.jobs:
                for var, rows in ((model.y, sl.y_row), (model.s, sl.s_row)):
                    j = col_of.get(id(var[i, r, t]))
                    if j is not None and self.data["col_up"][j] > 0:
                        rows[i] = row
                        link.append((row, j, float(self.data["col_up"][j])))
                        row += 1
        for sl in self.slots.values():
            sl.conv = row
            row += 1
        self.n_rows, self.n_link = row, len(link)
        self.conv_rows = np.arange(row - len(self.slots), row)
        self._add_rows_and_elastic(link, n_base_rows, big_m)
        # the base + elastic part of the matrix, for L(pi)
        el = np.arange(len(link))
        link_rows = np.array([lk[0] for lk in link], dtype=np.int64)
        B = sp.csc_matrix(
            (np.ones(len(link)), (link_rows, [lk[1] for lk in link])),
            shape=(row, n_base),
        )
        E = sp.csc_matrix(
            (-np.ones(len(link)), (link_rows, el)), shape=(row, len(link))
        )
        A_full = sp.vstack([A, sp.csc_matrix((row - n_base_rows, n_base))]).tocsc()
        self.M = sp.hstack([A_full + B, E]).tocsc()
        d = self.data
        self.c = np.concatenate([d["cost"], np.full(len(link), big_m)])
        self.col_lo = np.concatenate([d["col_lo"], np.zeros(len(link))])
        self.col_up = np.concatenate([d["col_up"], [lk[2] for lk in link]])
        self.row_lo = np.concatenate([d["row_lo"], np.full(row - n_base_rows, -INF)])
        self.row_up = np.concatenate(
            [d["row_up"], np.zeros(len(link)), np.ones(len(self.slots))]
        )
        self.n_base, self.n_elastic, self.columns = n_base, len(link), 0

    def _add_rows_and_elastic(
        self, link: list[tuple[int, int, float]], n_base_rows: int, big_m: float
    ) -> None:
        """Linking rows ``y - a <= 0`` (patterns come later), convexity rows ``<= 1``."""
        h, n_new = self.h, self.n_rows - n_base_rows
        lo, up = np.full(n_new, -INF), np.zeros(n_new)
        up[self.n_link :] = 1.0
        starts = np.arange(n_new, dtype=np.int32).clip(max=self.n_link)
        idx = np.array([lk[1] for lk in link], dtype=np.int32)
        h.addRows(n_new, lo, up, len(link), starts, idx, np.ones(len(link)))
        rows = np.array([lk[0] for lk in link], dtype=np.int32)
        h.addCols(
            len(link), np.full(len(link), big_m), np.zeros(len(link)),
            np.array([lk[2] for lk in link]), len(link),
            np.arange(len(link), dtype=np.int32), rows, -np.ones(len(link)),
        )  # fmt: skip

    def add(self, sl: Slot, Y: tuple[int, ...], S: tuple[int, ...]) -> bool:
        """Pattern ``(Y, S)`` of ``sl`` (per ``sl.jobs``) as a column; False if known."""
        if (Y, S) in sl.seen or not any(Y) and not any(S):
            return False
        sl.seen.add((Y, S))
        idx, val = [sl.conv], [1.0]
        for i, yv, sv in zip(sl.jobs, Y, S, strict=True):
            if yv and i in sl.y_row:
                idx.append(sl.y_row[i])
                val.append(-float(yv))
            if sv and i in sl.s_row:
                idx.append(sl.s_row[i])
                val.append(-float(sv))
        self.h.addCol(
            0.0, 0.0, INF, len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val)
        )
        self.columns += 1
        return True


def start_columns(master: PatternMaster, start: OkitaSchedule | None) -> None:
    """Every job alone (most workers with and without its PS), the start's slices."""
    inst = master.inst
    ybar = worker_bound(inst)
    for (r, _t), sl in master.slots.items():
        n = len(sl.jobs)
        for a, i in enumerate(sl.jobs):
            for ps in (0, 1):
                for c in range(int(ybar[i, r]), -1, -1):
                    Y = tuple(c if b == a else 0 for b in range(n))
                    S = tuple(ps if b == a else 0 for b in range(n))
                    if fits(inst, r, sl.jobs, Y, S):
                        master.add(sl, Y, S)
                        break
    if start is None:
        return
    per: dict[tuple[int, int], dict[int, list[int]]] = defaultdict(dict)
    for i, t, r, c in np.asarray(start.workers).tolist():
        per[r, t].setdefault(i, [0, 0])[0] = min(int(c), int(ybar[i, r]))
    for i, t, r in np.asarray(start.ps).tolist():
        per[r, t].setdefault(i, [0, 0])[1] = 1
    for (r, t), jobs in per.items():
        sl = master.slots.get((r, t))
        if sl is None:
            continue
        Y = tuple(jobs.get(i, [0, 0])[0] for i in sl.jobs)
        S = tuple(jobs.get(i, [0, 0])[1] for i in sl.jobs)
        if fits(inst, r, sl.jobs, Y, S):
            master.add(sl, Y, S)


@dataclass
class Round:
    """One round: seconds, ``L`` (valid), the master value, the textbook formula."""

    seconds: float
    bound: float
    master: float
    formula: float
    added: int


def price_round(master: PatternMaster, pi: np.ndarray, value: float) -> Round:
    """Price every ``(r, t)`` at the duals ``pi``: ``L(pi)``, columns added."""
    base, p = master.lagrangian_terms(pi)
    total_k, formula, added = 0.0, value, 0
    for sl in master.slots.values():
        if sl.pricer is None:
            sl.pricer = PatternPricer(master.inst, sl.r, sl.jobs)
        w = np.array([-p[sl.y_row[i]] if i in sl.y_row else 0.0 for i in sl.jobs])
        v = np.array([-p[sl.s_row[i]] if i in sl.s_row else 0.0 for i in sl.jobs])
        found, (Y, S), upper = sl.pricer.price(w, v)
        total_k += upper
        mu = float(pi[sl.conv])
        formula += min(0.0, -upper - mu)
        if -found - mu < -RC_TOL and master.add(sl, Y, S):
            added += 1
    return Round(math.nan, base - total_k, value, formula, added)


@dataclass
class PatternResult:
    """The outcome of :func:`pattern_bound` (module docstring)."""

    bound: float
    master: float
    rounds: int
    columns: int
    converged: bool
    artificial: float
    runtime: float
    history: list[Round]


def pattern_bound(
    inst: OkitaInstance,
    *,
    time_limit: float | None = 300.0,
    start: OkitaSchedule | None = None,
    big_m: float | None = None,
) -> PatternResult:
    """Column generation on the pattern master; the best ``L`` over the rounds.

    ``start`` (None: ``online_start(inst)``, the checked ``local_first``)
    seeds the columns; ``big_m`` is the elastic columns' cost (None: ten
    times the start's objective, at least ``1e4``).  A round that begins
    before ``time_limit`` is completed.
    """
    began = time.perf_counter()
    if start is None:
        start = online_start(inst)
    if big_m is None:
        obj = 0.0 if start is None else float(check(inst, start).objective)
        big_m = max(1e4, 10.0 * obj)
    master = PatternMaster(inst, big_m)
    start_columns(master, start)
    history: list[Round] = []
    best = -math.inf
    while True:
        value, pi = master.solve()
        rnd = price_round(master, pi, value)
        rnd.seconds = time.perf_counter() - began
        history.append(rnd)
        best = max(best, rnd.bound)
        if rnd.added == 0 or (time_limit is not None and rnd.seconds > time_limit):
            break
    return PatternResult(
        bound=best,
        master=value,
        rounds=len(history),
        columns=master.columns,
        converged=history[-1].added == 0,
        artificial=master.elastic(),
        runtime=time.perf_counter() - began,
        history=history,
    )


def history_json(history: list[Round]) -> str:
    """``[seconds, L, master]`` of at most 60 evenly spread rounds (and the last)."""
    step = max(1, math.ceil(len(history) / 60))
    hist = history[::step] + ([] if step == 1 else history[-1:])
    return json.dumps(
        [[round(h.seconds, 1), round(h.bound, 2), round(h.master, 2)] for h in hist]
    )


def references(seed: int, size: dict[str, int], data: Path = DATA) -> dict[str, float]:
    """The committed CSVs' values for this instance (NaN where absent)."""
    out = dict.fromkeys(
        ("highs_bound", "incumbent", "lagrangian", "ys_bound"), math.nan
    )
    key = json.dumps(size, sort_keys=True)
    try:
        r = reference_row("okita", size, "v3", seed, data / CSV.name)
        out["highs_bound"], out["incumbent"] = r["bound"], r["objective"]
    except (LookupError, FileNotFoundError):
        pass
    if (data / "okita_colgen.csv").exists():
        df = pd.read_csv(data / "okita_colgen.csv")
        hit = df[(df["seed"] == seed)
                 & (df[list(size)] == pd.Series(size)).all(axis=1)]  # fmt: skip
        if not hit.empty:
            out["lagrangian"] = float(hit.iloc[-1]["lagr_best"])
    if (data / "integrality.csv").exists():
        df = pd.read_csv(data / "integrality.csv")
        hit = df[(df["paper"] == "okita") & (df["size_json"] == key)
                 & (df["seed"] == seed) & (df["keep"] == "y+s")]  # fmt: skip
        if not hit.empty:
            out["ys_bound"] = float(hit.iloc[-1]["bound"])
    return out


def study_row(
    seed: int,
    quick: bool,
    time_limit: float,
    *,
    solve: Callable[..., PatternResult],
    bound_col: str,
    width_col: str,
    more_refs: dict[str, Callable[[int, dict[str, int]], float]] | None = None,
) -> dict[str, Any]:
    """One instance of a root-bound study: v3 LP, ``solve``'s bound, the references.

    Shared with ``benchmarks/okita_slotcols.py``.  ``--quick`` takes HiGHS's
    proven optimum as reference; otherwise the committed CSVs
    (:func:`references`, plus ``more_refs``: column -> reader).
    """
    more = more_refs or {}
    p = optsched.get_paper("okita")
    size = QUICK_SIZE if quick else SIZE
    inst = p.generate(seed, **size)
    if quick:
        res = p.solve_offline(inst, time_limit=20.0, threads=1, formulation="v3")
        ref = dict.fromkeys(("lagrangian", "ys_bound", *more), math.nan)
        ref.update(highs_bound=float(res.bound), incumbent=float(res.objective))
    else:
        ref = {**references(seed, size), **{c: f(seed, size) for c, f in more.items()}}
    lp = v3_lp(inst)
    out = solve(inst, time_limit=time_limit)
    inc = ref["incumbent"]
    return {
        "size_json": json.dumps(size, sort_keys=True), "seed": seed, "lp": lp,
        bound_col: out.bound, "master": out.master, "rounds": out.rounds,
        "columns": out.columns, "converged": out.converged,
        "artificial": out.artificial, "runtime_s": out.runtime,
        "time_limit_s": time_limit, **ref,
        "width_highs": inc / ref["highs_bound"] - 1.0,
        width_col: inc / out.bound - 1.0,
        "loadavg": os.getloadavg()[0],
        "history": history_json(out.history),
    }  # fmt: skip


def run_study(
    out_dir: Path,
    quick: bool,
    seeds: list[int] | None,
    time_limit: float | None,
    *,
    row: Callable[[int, bool, float], dict[str, Any]],
    csv_name: str,
    columns: list[str],
    bound_col: str,
    label: str,
) -> pd.DataFrame:
    """Run the seeds, merge each row into ``csv_name``, print the table."""
    seeds = ([0] if quick else [0, 1, 2, 3, 4]) if seeds is None else seeds
    limit = (30.0 if quick else 300.0) if time_limit is None else time_limit
    rows: list[dict[str, Any]] = []
    df = pd.DataFrame(columns=columns)
    for seed in seeds:
        rows.append(row(seed, quick, limit))
        r = rows[-1]
        print(
            f"seed {seed}: LP {r['lp']:.1f} {label} {r[bound_col]:.1f}"
            f" (master {r['master']:.1f}, {r['rounds']} rounds, {r['columns']} columns,"
            f" {'converged' if r['converged'] else 'time limit'}, {r['runtime_s']:.0f} s)"
            f" HiGHS {r['highs_bound']:.1f} incumbent {r['incumbent']:.1f}",
            flush=True,
        )
        df = merge_into_csv(out_dir, csv_name, rows, columns, KEY, keep_old=not quick)
    print_table(df.drop(columns=["size_json", "history"]))
    return df


def row(seed: int, quick: bool, time_limit: float) -> dict[str, Any]:
    """One instance: v3 LP, the pattern root bound, the committed references."""
    return study_row(
        seed, quick, time_limit, solve=pattern_bound,
        bound_col="pattern_bound", width_col="width_pattern",
    )  # fmt: skip


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: list[int] | None = None,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """Run the seeds, merge each row into the CSV, print the table."""
    return run_study(
        out_dir, quick, seeds, time_limit, row=row, csv_name="okita_patterns.csv",
        columns=COLUMNS, bound_col="pattern_bound", label="patterns",
    )  # fmt: skip


if __name__ == "__main__":
    seeds_cli(main, __doc__)
