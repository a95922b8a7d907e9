"""Which side of the edgecloud 20 x 3 frontier's interval is open: the v3 MILP with and without (2f).

The frontier's 20 x 3 instances (``benchmarks/frontier.py``, T = 30; issue
26 asks for proofs within 60 s) stay open after 60 s with an incumbent one
to three above the bound on seeds 0, 2 and 3, and branch and price over
the relaxation without the PS rows (2f) (``models/edgecloud_bp.py``) keeps
its root bound there.  This script solves, per seed and from the same
checked MIP start (``best_start``), formulation v3 of (2) as shipped and v3
with (2f) dropped, each with a long time limit and one thread:

* the optimum of v3 without (2f), when proven, is a lower bound on (2)
  (a relaxation: every schedule of (2) is a point of it);
* when it equals the checked incumbent, the incumbent is optimal for (2)
  (``certified``), whatever the full model did in the same time: the open
  side was the bound, not the incumbent, and not the (2f) rows;
* its schedule may break (2f) only through its PS rows: the PSs are
  re-assigned slot by slot by a maximum bipartite matching (jobs training
  in the slot against the free qualified PSs whose delay has passed; the
  cloud PS once the cloud's delay has passed), and the result goes
  through the checker (``no2f_repaired``: its checked JCT, NaN when some
  slot has no matching).  A repaired schedule at the relaxed optimum is
  optimal for (2) too (``certified``), and a better incumbent than the
  start when below it.

Written to ``<out>/edgecloud_gap.csv`` (columns :data:`COLUMNS`; ``full_*``
and ``no2f_*`` are status, objective, bound and seconds of the two solves).
Timings are measurements on 2 shared cores, not assertions.

Run::

    python -m benchmarks.edgecloud_gap                     # seeds 0-4, 900 s per solve
    python -m benchmarks.edgecloud_gap --seeds 0 2 --limit 600
    python -m benchmarks.edgecloud_gap --models no2f       # the relaxation only
    python -m benchmarks.edgecloud_gap --quick             # 5 x 2, seed 0, 20 s
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

import optsched
from benchmarks.common import OUT, print_table, seeds_parser
from benchmarks.edgecloud_bp import FRONTIER_20X3
from optsched.core import solver
from optsched.core.experiment import write_atomic
from optsched.core.ratio import best_start
from optsched.edgecloud.check import check

#: Seconds per solve (each of the two models, per seed).
LIMIT_S = 900.0
SEEDS = (0, 1, 2, 3, 4)
#: The two models: v3 as shipped (``full``) and without (2f) (``no2f``).
MODELS = ("full", "no2f")
#: ``--quick``: the frontier's smallest edgecloud size, seed 0.
QUICK_SIZE = {**FRONTIER_20X3, "n_jobs": 5, "n_servers": 2}
COLUMNS = [
    "n_jobs", "n_servers", "seed", "incumbent",
    "full_status", "full_objective", "full_bound", "full_s",
    "no2f_status", "no2f_objective", "no2f_bound", "no2f_s", "no2f_repaired",
    "certified", "loadavg",
]  # fmt: skip


def solve(inst: Any, start: Any, limit: float, drop_2f: bool) -> dict[str, Any]:
    """v3 of (2) from ``start``, with or without the rows (2f), one thread.

    With (2f): ``solve_offline(formulation="v3")``, so the objective is the
    checker's value of the extracted schedule and ``optimal`` means HiGHS's
    proof.  Without (2f): the model solved directly (its incumbent need not
    be a schedule of (2), so only its proven optimum and bound are used),
    and ``repaired``, the checked JCT of its runs with PSs re-assigned by
    :func:`assign_ps` (NaN when none).
    """
    from optsched.models import edgecloud as M

    t0 = time.perf_counter()
    if not drop_2f:
        res = M.solve_offline(
            inst, time_limit=limit, start=start, threads=1, formulation="v3"
        )
        return {
            "status": res.status,
            "objective": res.objective,
            "bound": res.bound,
            "s": time.perf_counter() - t0,
        }
    model = M.build_model(inst, formulation="v3")
    model.c2f_ps_capacity.deactivate()
    sol = solver.solve(
        model, time_limit=limit, threads=1, start=M.start_values(model, inst, start)
    )
    out = {
        "status": sol.status,
        "objective": sol.objective,
        "bound": sol.bound,
        "s": time.perf_counter() - t0,
        "repaired": math.nan,
    }
    if sol.has_solution:
        sched = assign_ps(inst, M.extract_schedule(model, inst).runs)
        if sched is not None:
            out["repaired"] = float(check(inst, sched).objective)
    return out


def assign_ps(inst: Any, runs: Any) -> Any:
    """A schedule with ``runs`` and PSs by a maximum matching per slot, or None.

    In each slot, a job that trains gets the cloud PS once ``t >= r_j +
    Delta_jc``, else one edge PS of its type on a server whose delay has
    passed, at most one job per PS ((2f)); None when some slot has no such
    matching.  ``zeta_j`` is derived (``EdgeCloudSchedule.build``).
    """
    from optsched.edgecloud.schedule import EdgeCloudSchedule

    c = inst.cloud
    training = sorted({(int(t), int(j)) for j, _d, t, _s, _w in np.asarray(runs)})
    ps: list[tuple[int, int, int, int]] = []
    for t in sorted({t for t, _j in training}):
        need: list[int] = []
        cols: dict[tuple[int, int], int] = {}
        edges: list[tuple[int, int]] = []
        for tt, j in training:
            r = int(inst.arrival[j])
            if tt != t:
                continue
            if t >= r + int(inst.delay[j, c]):
                ps.append((j, t, c, j))  # the cloud PS (one per job)
                continue
            need.append(j)
            for s in range(c):
                if t < r + int(inst.delay[j, s]):
                    continue
                for q in np.flatnonzero(inst.ps_types[s] == inst.jobs[j].ps_type):
                    edges.append(
                        (len(need) - 1, cols.setdefault((s, int(q)), len(cols)))
                    )
        if not need:
            continue
        rows, cs = zip(*edges, strict=True) if edges else ((), ())
        graph = csr_matrix(
            (np.ones(len(edges)), (rows, cs)), shape=(len(need), max(1, len(cols)))
        )
        match = maximum_bipartite_matching(graph, perm_type="column")
        if np.any(match < 0):
            return None
        names = {v: k for k, v in cols.items()}
        ps += [(j, t, *names[int(match[i])]) for i, j in enumerate(need)]
    return EdgeCloudSchedule.build(inst, np.asarray(runs), sorted(ps), algorithm="no2f")


def row(
    size: dict[str, Any], seed: int, limit: float, models: tuple[str, ...] = MODELS
) -> dict[str, Any]:
    """One seed: the checked incumbent and the solves of ``models``."""
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed, **size)
    start = best_start(p, inst)
    incumbent = float(p.check(inst, start).objective)
    out: dict[str, Any] = {
        "n_jobs": size["n_jobs"],
        "n_servers": size["n_servers"],
        "seed": seed,
        "incumbent": incumbent,
    }
    for name, drop in (("full", False), ("no2f", True)):
        if name in models:
            for k, v in solve(inst, start, limit, drop).items():
                out[f"{name}_{k}"] = v
    # the relaxation's proven optimum is at most OPT: it certifies the
    # incumbent, or a repaired schedule, that reaches it (within 1e-6)
    reached = min(incumbent, out.get("no2f_repaired", math.inf))
    out["certified"] = bool(
        out.get("no2f_status") == "optimal" and out["no2f_objective"] >= reached - 1e-6
    )
    out["loadavg"] = os.getloadavg()[0]
    return out


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: tuple[int, ...] | None = None,
    limit: float | None = None,
    models: tuple[str, ...] = MODELS,
) -> pd.DataFrame:
    """Run the seeds, print the table, write the CSV atomically."""
    size = QUICK_SIZE if quick else FRONTIER_20X3
    seeds = seeds if seeds is not None else ((0,) if quick else SEEDS)
    limit = limit if limit is not None else (20.0 if quick else LIMIT_S)
    rows = []
    for seed in seeds:
        r = row(size, seed, limit, models)
        rows.append(r)
        said = [f"{size['n_jobs']} x {size['n_servers']} seed {seed}: incumbent"
                f" {r['incumbent']:.0f}"]  # fmt: skip
        for name, label in (("full", "v3"), ("no2f", "without (2f)")):
            if name in models:
                said.append(
                    f"{label} {r[name + '_status']} {r[name + '_objective']:.0f}"
                    f" / {r[name + '_bound']:.2f} ({r[name + '_s']:.0f} s)"
                )
        if "no2f" in models:
            said.append(f"repaired {r['no2f_repaired']:.0f}")
        print("; ".join(said) + f"; certified {r['certified']}", flush=True)
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df)
    write_atomic(
        Path(out_dir), {"edgecloud_gap.csv": lambda f: df.to_csv(f, index=False)}
    )
    return df


if __name__ == "__main__":
    ap = seeds_parser(__doc__)
    ap.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    a = ap.parse_args()
    main(a.out, a.quick, tuple(a.seeds) if a.seeds else None, a.limit, tuple(a.models))
