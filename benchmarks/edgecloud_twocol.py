r"""Job and worker columns together: a Lagrangian-decomposition bound of edgecloud (2).

One lever named for the proof-time target at 20 x 3 (docs/ratios.md) is a
branch and price with *two kinds of columns*: the job columns of
:mod:`optsched.models.edgecloud_colgen` (one job's whole schedule, whose
root bound is 1-2 units below the optimum on four of the five 20 x 3
seeds, ``benchmarks/data/edgecloud_bp.csv``)
and columns over single workers (one worker's slots, which hold the
no-migration rule that the pool relaxation of
``benchmarks/edgecloud_pool.py`` shows to be the last unit on seeds 0
and 3).  Before building a branch and price this script measures its root:
the bound of the master with both kinds of columns.

Relaxation.  (2) without the PS capacity rows (2f) and without storage
(7b), as the ``"dp"`` coupling of ``edgecloud_colgen``: every job keeps its
own rows (dispatch, no migration, (2b) per chunk, a PS available in every
training slot, (2g)-(2h), completion), the workers keep (2d).  Its optimum
is at most (2)'s, and it is attained by a schedule in which every chunk
trains *exactly* its ``k`` slots: dropping a chunk's runs beyond the
slots it needs (for a cloud chunk, keeping one block) breaks no row and
keeps or lowers every completion slot.  Only such schedules are columns
below (with negative prices, extra runs would otherwise pay).

Master.  Edge workers of one server and one worker type are identical; a
*group* ``g`` has ``m_g`` of them.  Columns:

* job columns ``nu_p`` (``p`` a schedule of job ``j`` in the relaxation,
  cost ``c_j - r_j``, ``a_p(g, t)`` = chunks of ``j`` running on a worker
  of ``g`` in slot ``t``), ``sum_p nu_p = 1`` per job;
* worker columns ``lambda_q`` (``q`` a schedule of one worker of ``g``:
  per slot at most one job, job ``j`` in ``k_j0 n_j`` of its allowed slots
  for some ``n_j`` in ``0..D_j``, cost 0, ``b_q(j, t)`` = 1 when ``j``
  runs in ``t``), ``sum_q lambda_q <= m_g`` per group;
* linking rows per ``(j, g, t)``: ``sum_p a_p(g, t) nu_p = sum_q b_q(j, t)
  lambda_q``.

*Every such schedule of the relaxation is a master point*: its job pieces
are job columns, its workers' timetables are worker columns (one per used worker,
at most ``m_g`` per group), and the linking rows count the same runs on
both sides.  So the master LP is at most the relaxation's optimum, hence
at most (2)'s.

Valid bound at any iteration.  Relaxing the linking rows with any prices
``pi`` (free: equality rows),

.. math::

   L(\pi) = \sum_j \min_p \bigl(c_p - \pi \cdot a_p\bigr)
          + \sum_g m_g \min\bigl(0, \min_q \pi \cdot b_q\bigr) \le \mathrm{OPT},

with the exact job minimum (:class:`SignedDP`, the enumeration of
``edgecloud_colgen.DPPricer``) and the worker minimum's proven lower bound
(HiGHS's MIP dual bound of :class:`WorkerPricer`).  ``pi`` comes from the
master LP's duals; the master value is never reported as a bound.  The
total JCT is an integer, so ``ceil(L - 1e-6)`` is valid too.

Two phases.  Phase 1 solves the linking rows as ``<=`` (job runs covered
by worker timetables); it converges in seconds to the job columns' bound
(with ``<=`` rows the worker columns added nothing on any seed of the
10 x 2 ladder; 0.4-4 s, 10-100 rounds there), so a good bound is there
early.  Phase 2 turns the rows into equalities and continues from phase
1's columns.
(Equalities from the first round converged faster on two 10 x 2 seeds
and slower on three, and at 20 x 3 gave Lagrangian values near -1,000
after 100 rounds; scratch runs of 2026-12-06.)

Written to ``<out>/edgecloud_twocol.csv`` (:data:`COLUMNS`, merged by
``(n_jobs, n_servers, seed)``), with the job columns' own bound
(``column_generation``, same time limit) beside it.  The measured outcome
is in docs/edgecloud.md ("Two kinds of columns").  Timings are
measurements on 2 shared cores, not assertions.

Run (the committed rows)::

    python -m benchmarks.edgecloud_twocol --steps 1 --limit 300 --out benchmarks/data
    python -m benchmarks.edgecloud_twocol --steps 3 --seeds 0 --limit 1500 --out benchmarks/data
    python -m benchmarks.edgecloud_twocol --steps 3 --seeds 4 --limit 900 --out benchmarks/data
    python -m benchmarks.edgecloud_twocol --quick   # 5 x 2, seeds 0-1
"""

from __future__ import annotations

import math
import os
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import highspy
import numpy as np
import pandas as pd
from optsched.models.edgecloud_colgen import (
    Column,
    DPPricer,
    column_generation,
    schedule_columns,
)

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table, seeds_parser
from benchmarks.frontier import LADDERS
from optsched.core.ratio import best_start
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule

INF = highspy.kHighsInf
#: Steps of the frontier's edgecloud ladder run by default: 10 x 2 and 20 x 3.
STEPS = (1, 3)
KEY = ["n_jobs", "n_servers", "seed"]
COLUMNS = [
    *KEY, "incumbent", "job_value", "job_bound", "job_s", "two_value", "two_bound",
    "two_master", "two_converged", "iterations", "phase1_iterations",
    "job_columns", "worker_columns", "two_s", "time_limit_s", "loadavg",
]  # fmt: skip


class SignedDP(DPPricer):
    """:class:`DPPricer`'s exact enumeration for prices of either sign.

    ``DPPricer.price`` stops at the first completion slot ``C`` with ``C -
    r_j`` above the best value found, which is exact for the nonnegative
    prices of ``edgecloud_colgen`` only; the linking rows here are
    equalities, whose prices may be negative, so every ``C`` is tried.
    (``DPPricer`` lives in a recorded module; an option there waits for
    the next re-recording.)
    """

    def price(
        self, prices: dict, time_limit: float | None = None
    ) -> tuple[float, Column | None, bool]:
        best, arg = self._zeta1(), None
        cloud_done = self.cloud_ready + self.k0 - 1  # a zeta = 0 cloud chunk
        first = min(
            (int(sl[self.k0 - 1]) for _s, _w, sl in self.workers if len(sl) >= self.k0),
            default=self.T + 1,
        )
        for C in range(min(first, cloud_done), self.T + 1):
            f, pick = self._knapsack(self._worker_costs(prices, C))
            for n_edge in range(1, self.D + 1):
                if n_edge < self.D and cloud_done > C:
                    continue
                v = C - self.r + f[n_edge]
                if v < best - 1e-12:
                    best, arg = v, (C, pick[n_edge])
        return best, self._column(prices, arg), True

    def _knapsack(self, cost: np.ndarray) -> tuple[np.ndarray, list]:
        """``f[n]``: cheapest placement of ``n`` chunks on the edge workers, and how."""
        f = np.full(self.D + 1, math.inf)
        pick: list[list[tuple[int, int]]] = [[] for _ in range(self.D + 1)]
        f[0] = 0.0
        for g in range(len(self.workers)):
            new, new_pick = f + cost[g, 0], [list(x) for x in pick]
            for n in range(1, self.D + 1):
                for m in range(1, n + 1):
                    v = f[n - m] + cost[g, m]
                    if v < new[n] - 1e-12:
                        new[n], new_pick[n] = v, pick[n - m] + [(g, m)]
            f, pick = new, new_pick
        return f, pick


def _highs() -> highspy.Highs:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


class WorkerPricer:
    """Cheapest timetable of one worker: ``min sum cost(j, t) x[j, t]``.

    ``allowed[j] = (k_j0, D_j, slots)``: job ``j`` may run in ``slots``, in
    ``k_j0 n_j`` of them for an integer ``n_j`` in ``0..D_j``; at most one
    job per slot.  A small MIP (HiGHS, gap 0); :meth:`price` returns the
    timetable, its cost and HiGHS's proven lower bound.
    """

    def __init__(self, allowed: dict[int, tuple[int, int, list[int]]]) -> None:
        self.h = h = _highs()
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-9)
        self.x: dict[tuple[int, int], int] = {}
        for j, (_k, _d, slots) in allowed.items():
            for t in slots:
                self.x[j, t] = len(self.x)
        n_x = len(self.x)
        n = n_x + len(allowed)
        up = np.ones(n)
        for i, (k, d, slots) in enumerate(allowed.values()):
            up[n_x + i] = min(d, len(slots) // k)
        h.addVars(n, np.zeros(n), up)
        h.changeColsIntegrality(
            n, np.arange(n, dtype=np.int32),
            np.array([highspy.HighsVarType.kInteger] * n),
        )  # fmt: skip
        for i, (j, (k, _d, slots)) in enumerate(allowed.items()):
            idx = [self.x[j, t] for t in slots] + [n_x + i]
            self._row(0.0, 0.0, idx, [1.0] * len(slots) + [-float(k)])
        by_slot: dict[int, list[int]] = defaultdict(list)
        for (_j, t), col in self.x.items():
            by_slot[t].append(col)
        for cols in by_slot.values():
            if len(cols) > 1:
                self._row(-INF, 1.0, cols, [1.0] * len(cols))
        self.n = n

    def _row(self, lo: float, up: float, idx: list[int], val: list[float]) -> None:
        self.h.addRow(
            lo, up, len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val)
        )

    def price(
        self, cost: Callable[[int, int], float]
    ) -> tuple[float, frozenset[tuple[int, int]], float]:
        """``(value, used (j, t) pairs, proven lower bound)`` under ``cost``."""
        c = np.zeros(self.n)
        for (j, t), col in self.x.items():
            c[col] = cost(j, t)
        self.h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), c)
        self.h.run()
        v = np.asarray(self.h.getSolution().col_value)
        used = frozenset(jt for jt, col in self.x.items() if v[col] > 0.5)
        return sum(cost(j, t) for j, t in used), used, self.h.getInfo().mip_dual_bound


def groups(inst: EdgeCloudInstance) -> list[tuple[int, int, int]]:
    """``(server, worker type, m_g)`` of every group of identical edge workers."""
    out = []
    for s in range(inst.cloud):
        for tau in range(inst.n_worker_types):
            m = int(np.sum(inst.worker_types[s] == tau))
            if m:
                out.append((s, tau, m))
    return out


class TwoColumnMaster:
    """The restricted master LP (module docstring) in HiGHS."""

    def __init__(self, inst: EdgeCloudInstance) -> None:
        self.inst = inst
        self.J = J = inst.n_jobs
        self.groups = groups(inst)
        self.group_of = {
            (s, int(w)): g
            for g, (s, tau, _m) in enumerate(self.groups)
            for w in np.flatnonzero(inst.worker_types[s] == tau)
        }
        self.jobs = [SignedDP(inst, j) for j in range(J)]
        self.allowed: dict[int, dict[int, tuple[int, int, list[int]]]] = {
            g: {} for g in range(len(self.groups))
        }
        for j, dp in enumerate(self.jobs):
            for s, w, slots in dp.workers:
                self.allowed[self.group_of[s, w]][j] = (
                    dp.k0,
                    dp.D,
                    [int(t) for t in slots],
                )
        self.link: dict[tuple[int, int, int], int] = {}
        n_row = J + len(self.groups)
        for g, per_job in self.allowed.items():
            for j, (_k, _d, slots) in per_job.items():
                for t in slots:
                    self.link[j, g, t] = n_row
                    n_row += 1
        lo, up = np.full(n_row, -INF), np.zeros(n_row)
        lo[:J] = up[:J] = 1.0
        for g, (_s, _tau, m) in enumerate(self.groups):
            up[J + g] = m
        self.h = _highs()
        empty = np.array([], dtype=np.int32)
        self.h.addRows(
            n_row, lo, up, 0, np.zeros(n_row, dtype=np.int32), empty, np.array([])
        )
        for j in range(J):  # artificial: every restricted master is feasible
            self._col(1e4, [j], [1.0])
        self.counts = {"job": 0, "worker": 0}

    def _col(self, cost: float, idx: list[int], val: list[float]) -> None:
        self.h.addCol(
            cost, 0.0, INF, len(idx), np.asarray(idx, dtype=np.int32), np.asarray(val)
        )

    def add_job(self, col: Column) -> None:
        """A job column (``col.uses``' PS rows play no part here)."""
        per: dict[tuple[int, int], int] = defaultdict(int)
        for kind, s, w, t in col.uses:
            if kind == "w":
                per[self.group_of[s, w], t] += 1
        idx = [col.job] + [self.link[col.job, g, t] for g, t in per]
        self._col(col.cost, idx, [1.0] + [float(n) for n in per.values()])
        self.counts["job"] += 1

    def add_worker(self, g: int, used: frozenset[tuple[int, int]]) -> None:
        """A worker column of group ``g`` running ``(j, t)`` for each pair of ``used``."""
        idx = [self.J + g] + [self.link[j, g, t] for j, t in used]
        self._col(0.0, idx, [1.0] + [-1.0] * len(used))
        self.counts["worker"] += 1

    def seed(self, start: EdgeCloudSchedule | None) -> None:
        """Every job's cheapest schedule at zero prices, and the start's pieces."""
        for dp in self.jobs:
            col = dp.price({})[1]
            if col is not None:
                self.add_job(col)
        if start is None:
            return
        for col in schedule_columns(self.inst, start):
            self.add_job(col)
        per: dict[tuple[int, int], set] = defaultdict(set)
        for j, _d, t, s, w in np.asarray(start.runs).tolist():
            if s != self.inst.cloud:
                per[s, w].add((j, t))
        for (s, w), used in per.items():
            self.add_worker(self.group_of[s, w], frozenset(used))

    def equalities(self) -> None:
        """Phase 2: the linking rows become equalities."""
        rows = np.array(sorted(self.link.values()), dtype=np.int32)
        zero = np.zeros(len(rows))
        self.h.changeRowsBounds(len(rows), rows, zero, zero)

    def solve(self) -> tuple[float, np.ndarray]:
        self.h.run()
        y = np.asarray(self.h.getSolution().row_dual)
        return self.h.getInfo().objective_function_value, y


def _round(master: TwoColumnMaster, pricers: dict, y: np.ndarray) -> tuple[float, int]:
    """Price every job and group at the duals ``y``: ``(L(pi), columns added)``."""
    value, added = 0.0, 0
    for j, dp in enumerate(master.jobs):
        prices = {
            ("w", s, w, t): -y[master.link[j, master.group_of[s, w], t]]
            for s, w, slots in dp.workers
            for t in slots
        }
        best, col, _ = dp.price(prices)
        value += best
        if best - y[j] < -1e-7 and col is not None:
            master.add_job(col)
            added += 1
    for g, pricer in pricers.items():
        val, used, low = pricer.price(lambda j, t, g=g: y[master.link[j, g, t]])
        value += master.groups[g][2] * min(0.0, low)
        if val - y[master.J + g] < -1e-7 and used:
            master.add_worker(g, used)
            added += 1
    return value, added


def two_column_bound(
    inst: EdgeCloudInstance,
    start: EdgeCloudSchedule | None = None,
    time_limit: float | None = 600.0,
) -> dict[str, Any]:
    """The master's bound (module docstring): best ``L(pi)``, its ceiling, the master value.

    The master's own duals are priced every round.  (Wentges smoothing
    towards the duals of the best ``L``, as in ``edgecloud_colgen``, was no
    faster here: on the 10 x 2 ladder seeds 0-2, 4,255 rounds / not
    converged in 300 s / 1,417 rounds, against the committed rows' 4,199 /
    not converged / 1,009; scratch run of 2026-12-06.)
    """
    began = time.perf_counter()
    master = TwoColumnMaster(inst)
    master.seed(start)
    pricers = {g: WorkerPricer(a) for g, a in master.allowed.items() if a}
    best, it, phase1, value = -math.inf, 0, 0, math.nan
    while True:
        it += 1
        value, y = master.solve()
        lagrange, added = _round(master, pricers, y)
        best = max(best, lagrange)
        if added == 0 and not phase1:
            phase1 = it
            master.equalities()
            continue
        over = time_limit is not None and time.perf_counter() - began > time_limit
        if added == 0 or over:
            break
    return {
        "two_value": best,
        "two_bound": float(math.ceil(best - 1e-6)),
        "two_master": value,
        "two_converged": added == 0,
        "iterations": it,
        "phase1_iterations": phase1,
        "job_columns": master.counts["job"],
        "worker_columns": master.counts["worker"],
        "two_s": time.perf_counter() - began,
    }


def row(size: dict[str, Any], seed: int, limit: float | None) -> dict[str, Any]:
    """One frontier instance: checked start, the job columns' bound, the two-column bound."""
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed, **size)
    start = best_start(p, inst)
    t0 = time.perf_counter()
    job = column_generation(inst, time_limit=limit)
    job_s = time.perf_counter() - t0
    return {
        "n_jobs": size["n_jobs"], "n_servers": size["n_servers"], "seed": seed,
        "incumbent": float(p.check(inst, start).objective),
        "job_value": job.value, "job_bound": job.bound, "job_s": job_s,
        **two_column_bound(inst, start, limit),
        "time_limit_s": limit, "loadavg": os.getloadavg()[0],
    }  # fmt: skip


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    steps: tuple[int, ...] = STEPS,
    seeds: tuple[int, ...] | None = None,
    limit: float | None = None,
) -> pd.DataFrame:
    """Run the ladder steps and seeds, print a line each, merge into the CSV."""
    sizes = (
        [LADDERS["edgecloud"][0]] if quick else [LADDERS["edgecloud"][s] for s in steps]
    )
    seeds = seeds if seeds is not None else ((0, 1) if quick else tuple(range(5)))
    limit = limit if limit is not None else (60.0 if quick else 600.0)
    rows = []
    for size in sizes:
        for seed in seeds:
            r = row(size, seed, limit)
            rows.append(r)
            print(
                f"{r['n_jobs']} x {r['n_servers']} seed {seed}: start {r['incumbent']:.0f};"
                f" job columns {r['job_value']:.4f} ({r['job_s']:.1f} s);"
                f" job + worker columns {r['two_value']:.4f}"
                f" ({'converged' if r['two_converged'] else 'time limit'},"
                f" {r['iterations']} rounds, {r['two_s']:.0f} s)",
                flush=True,
            )
    df = merge_into_csv(
        out_dir, "edgecloud_twocol.csv", rows, COLUMNS, KEY, keep_old=not quick
    )
    print_table(df)
    return df


if __name__ == "__main__":
    ap = seeds_parser(__doc__)
    ap.add_argument(
        "--steps", type=int, nargs="+", help="steps of the edgecloud ladder"
    )
    a = ap.parse_args()
    main(
        a.out, a.quick, tuple(a.steps) if a.steps else STEPS,
        tuple(a.seeds) if a.seeds else None, a.limit,
    )  # fmt: skip
