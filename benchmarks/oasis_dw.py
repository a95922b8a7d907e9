"""How far the job decomposition of OASiS's ILP (14) is from the compact LP at 50 jobs.

Issue 26 proposes a branch and price over the exact pricing oracle of ILP
(14) for oasis at 50 jobs, T = 30, 20 + 20 servers.  Its root bound is the
LP relaxation of (14)-(17) (the Dantzig-Wolfe bound ``DW``: each job's
schedules are integer), which lies between every Lagrangian value
``D(p, q)`` of (19)-(20) (:func:`optsched.models.oasis.dual_bound`, valid
for any prices ``p, q >= 0``) and the value of any restricted master LP
(a subset of the columns).  This benchmark brackets ``DW`` by column
generation with Wentges smoothing (prices ``alpha * center + (1 - alpha) *
master``; the center is the best-bound prices so far, starting from the
duals of the compact LP's capacity rows (4)-(5); on a mispricing round --
no new column at the master's duals -- ``alpha`` is halved, then 0):

* ``compact_lp``: the LP relaxation of the exact MILP
  (:func:`~optsched.models.oasis.build_model` with ``relax=True``);
* ``d_lp``: ``D`` at the compact LP's duals;
* ``dw_upper``: the best ``D`` found (an upper bound on ``DW`` and on the
  optimum);
* ``dw_lower``: the last restricted master LP value (a lower bound on
  ``DW``, not on the optimum);
* ``converged``: no column at the master's duals (then ``dw_lower =
  dw_upper = DW`` up to tolerances).

So a branch and price over (14) starts from ``DW >= dw_lower``: if
``dw_lower`` is close to ``compact_lp``, the decomposition does not buy a
better root bound than the compact model has.  Reference: the frontier
CSV's 60-s row (``ref_bound``, ``ref_incumbent``).  Output:
``<out>/oasis_dw.csv`` (rows of other seeds kept); the committed run is
``benchmarks/data/oasis_dw.csv``.

``--quick``: 12 jobs, T = 24, 2 + 2 servers, seed 0, 15 s (the smoke test;
there the compact LP, ``DW`` and the optimum differ).

Run (one HiGHS thread; timings are measurements, not assertions)::

    python -m benchmarks.oasis_dw --seeds 4 --time-limit 900 --out benchmarks/data
    python -m benchmarks.oasis_dw --quick
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from optsched.models import oasis as mo

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table, seeds_cli
from benchmarks.frontier import LADDERS
from benchmarks.integrality import frontier_row
from optsched.core.solver import PersistentLP, SolverError, solve

SIZE: dict[str, int] = LADDERS["oasis"][-1]  # 50 jobs, T = 30, 20 + 20 servers
QUICK_SIZE: dict[str, int] = {
    "n_jobs": 12,
    "n_slots": 24,
    "n_worker_servers": 2,
    "n_ps_servers": 2,
}
ALPHA = 0.8
COLUMNS = [
    "size_json", "seed", "compact_lp", "d_lp", "dw_upper", "dw_lower", "converged",
    "rounds", "alpha", "runtime_s", "time_limit_s", "ref_bound", "ref_incumbent",
    "loadavg", "history",
]  # fmt: skip


def _prices(
    inst, model, rows4: str, rows5: str, duals
) -> tuple[np.ndarray, np.ndarray]:
    """Capacity-row duals of a (compact or master) LP as prices ``p, q >= 0``."""
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    p, q = np.zeros((H, R, T)), np.zeros((K, R, T))
    for (h, r, t), c in getattr(model, rows4).items():
        p[h, r, t - 1] = max(0.0, duals[c])
    for (k, r, t), c in getattr(model, rows5).items():
        q[k, r, t - 1] = max(0.0, duals[c])
    return p, q


def _price(inst, p, q) -> tuple[list[Any], float]:
    """Every job's best column at ``p, q`` and the Lagrangian value ``D(p, q)``."""
    cols = [mo.best_column(inst, i, p, q) for i in range(inst.n_jobs)]
    fixed = (p * inst.c_worker[:, :, None]).sum() + (q * inst.c_ps[:, :, None]).sum()
    return cols, float(sum(max(0.0, c.profit) for c in cols) + fixed)


def _improves(inst, col, p, q, mu) -> bool:
    """``col`` has a positive reduced profit at the master's duals ``p, q, mu``."""
    if not np.isfinite(col.cost):
        return False
    return col.utility - mo.column_cost(inst, col, p, q) - mu[col.job] > 1e-7


def _solve_master(lp: PersistentLP | None, master) -> tuple[PersistentLP, Any]:
    """Re-solve the master LP; its persistent solver and the result."""
    lp = PersistentLP(master.model) if lp is None else lp
    res = lp.solve()
    # a warm-started re-solve can end in "solve error"; afresh succeeds
    # (as in models/oasis.column_generation)
    if res.status == "error":
        lp = PersistentLP(master.model)
        res = lp.solve()
    if res.status != "optimal":
        raise SolverError(f"master LP ended {res.status!r}")
    return lp, res


def bracket(inst, time_limit: float, alpha: float = ALPHA) -> dict[str, Any]:
    """Smoothed column generation: ``compact_lp``, ``d_lp``, ``dw_upper``, ``dw_lower``."""
    t0 = time.perf_counter()
    compact = mo.build_model(inst, relax=True)
    res = solve(compact, duals=True, threads=1)
    center = _prices(inst, compact, "c4_worker_capacity", "c5_ps_capacity", res.duals)
    cols, d_lp = _price(inst, *center)
    best, lower, rounds, converged, history = d_lp, 0.0, 0, False, []
    # models/oasis.py's master LP (14)-(17), kept persistent between rounds
    # (its public build_master would rebuild it every round)
    master = mo._Master(inst)
    master.add(cols)
    lp = None
    while time.perf_counter() - t0 < time_limit:
        lp, mres = _solve_master(lp, master)
        lower = mres.objective
        mm = master.model
        pm, qm = _prices(inst, mm, "c15_worker_capacity", "c16_ps_capacity", mres.duals)
        mu = np.zeros(inst.n_jobs)
        for i, c in mm.c17_one_schedule.items():
            mu[i] = max(0.0, mres.duals[c])
        added = 0
        while not added:
            sep = (
                alpha * center[0] + (1 - alpha) * pm,
                alpha * center[1] + (1 - alpha) * qm,
            )
            cols, d = _price(inst, *sep)
            rounds += 1
            if d < best:
                best, center = d, sep
            history.append(
                [round(time.perf_counter() - t0, 1), round(d, 3), round(lower, 3)]
            )
            new = [c for c in cols if _improves(inst, c, pm, qm, mu)]
            added = master.add(new) if new else 0
            if added or alpha == 0.0:
                break
            alpha = 0.0 if alpha < 0.1 else alpha / 2  # mispricing
        if not added:  # no column at the master's duals: the master LP is DW
            converged = True
            break
    return {
        "compact_lp": res.objective,
        "d_lp": d_lp,
        "dw_upper": best,
        "dw_lower": lower,
        "converged": converged,
        "rounds": rounds,
        "alpha": alpha,
        "runtime_s": time.perf_counter() - t0,
        "history": json.dumps(history),
    }


def row(seed: int, quick: bool, time_limit: float) -> dict[str, Any]:
    """One instance: the bracket beside the frontier's 60-s row."""
    p = optsched.get_paper("oasis")
    size = QUICK_SIZE if quick else SIZE
    inst = p.generate(seed, **size)
    if quick:
        opt = p.solve_offline(inst, time_limit=60.0, threads=1)
        ref = {"ref_bound": float(opt.bound), "ref_incumbent": float(opt.objective)}
    else:
        ref = frontier_row("oasis", size, "current", seed)
    out = bracket(inst, time_limit)
    return {
        "size_json": json.dumps(size, sort_keys=True),
        "seed": seed,
        **out,
        "time_limit_s": time_limit,
        **ref,
        "loadavg": os.getloadavg()[0],
    }


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: list[int] | None = None,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """Run the seeds, write the CSV after every row, print the table."""
    seeds = ([0] if quick else [4]) if seeds is None else seeds
    limit = (15.0 if quick else 900.0) if time_limit is None else time_limit
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        rows.append(row(seed, quick, limit))
        r = rows[-1]
        print(
            f"seed {seed}: compact LP {r['compact_lp']:.2f}, D(LP duals) {r['d_lp']:.2f},"
            f" DW in [{r['dw_lower']:.2f}, {r['dw_upper']:.2f}]"
            f" ({r['rounds']} rounds, {r['runtime_s']:.0f} s, converged {r['converged']});"
            f" incumbent {r['ref_incumbent']:.2f}",
            flush=True,
        )
        merge_into_csv(
            out_dir, "oasis_dw.csv", rows, COLUMNS, ["seed"], keep_old=not quick
        )
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df.drop(columns=["size_json", "history", "loadavg"]))
    return df


if __name__ == "__main__":
    seeds_cli(main, __doc__)
