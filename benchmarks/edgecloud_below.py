"""Is there a schedule of edgecloud (2) with total JCT at most N?  An objective-cut certificate.

The frontier's 20 x 3 instances (``benchmarks/frontier.py``, T = 30) have
checked schedules one unit above the best proven bound on some seeds
(``benchmarks/edgecloud_gap.py``, ``benchmarks/edgecloud_pool.py``), and
so have instances of Figs. 12-13 (``--source figure --size J S``: the
figures' instance at the paper's reduced sizes, as
``benchmarks.edgecloud_bp.instance`` builds it).  The
total JCT is a sum of whole slots, so a schedule of value ``N + 1`` is
optimal exactly when no schedule has value ``N`` or less.  This script
asks that question directly: the exact MILP of (2) (formulation v3, as
``solve_offline`` builds it) with one more row, *objective <= N + 0.5*,
solved with no start and no objective bound other than that row, one
thread:

* ``infeasible`` (HiGHS's proof) says every schedule of (2) has total JCT
  at least ``N + 1``: a lower bound (``bound = N + 1``), and with a
  checked schedule of value ``N + 1`` a certified optimum (``certified``);
* a solution is extracted and run through the checker
  (``found_objective``, at most ``N``), and saved with ``--save``;
* ``optimal`` says more: the cut removes only schedules above ``N``, so
  the cut model's proven optimum, at most ``N``, is (2)'s optimum
  (``bound`` = the checked value, ``certified``);
* ``time_limit`` without a solution says nothing;
* ``killed`` (``--hard-limit S``): the solve ran in a child process that
  outlived ``S`` seconds and was killed
  (:func:`benchmarks.common.run_with_hard_limit`; HiGHS's own limit can be
  overrun, docs/edgecloud.md), and says nothing either.

``--confirm scip`` gives an infeasible cut model to SCIP too
(:func:`optsched.core.confirm.scip_value`, same model written as an LP
file, one thread, the same time limit; ``scip_status``): a second solver's
proof of the same bound, or ``timelimit`` when it has none in time.

The row keeps the model exact otherwise: every schedule of (2) is a point
of v3 with its checked JCT as objective (``start_values``), so the cut
removes exactly the schedules of value above ``N``.  Beside it each row
reports the checked value of the best online schedule (``best_start``,
``start_objective``) and, with ``--against FILE``, of a checked schedule
(JSON) of the same instance (``against_objective``); ``certified`` needs
an infeasible cut and one of the two to equal ``N + 1``, or an
``optimal`` cut model.

Written to ``<out>/edgecloud_below.csv`` (columns :data:`COLUMNS`, merged
by ``(source, n_jobs, n_servers, seed, below)``).  Timings are measurements on 2
shared cores, not assertions.

Run::

    python -m benchmarks.edgecloud_below --seeds 4 --below 112 --limit 1800 --confirm scip \\
        --against benchmarks/data/edgecloud_below_schedules/20x3_seed4.json \\
        --out benchmarks/data
    python -m benchmarks.edgecloud_below --source figure --size 5 5 --seeds 2 \
        --below 63 --limit 600 --out benchmarks/data   # Fig. 12's 5 x 5, seed 2
    python -m benchmarks.edgecloud_below --source figure --size 25 15 --seeds 1 \
        --below 288 --limit 300 --hard-limit 660 --out benchmarks/data  # killed at 660 s
    python -m benchmarks.edgecloud_below --quick       # 5 x 2, seed 0, N = start - 1, 20 s
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pyomo.environ as pyo

import optsched
from benchmarks.common import (
    OUT,
    merge_into_csv,
    print_table,
    run_with_hard_limit,
    seeds_parser,
)
from benchmarks.edgecloud_bp import FRONTIER_20X3
from optsched.core import solver
from optsched.core.base import write_atomic
from optsched.core.errors import SolverError
from optsched.core.ratio import best_start
from optsched.edgecloud.check import check

#: ``--quick``: the frontier's smallest edgecloud size, seed 0.
QUICK_SIZE = {**FRONTIER_20X3, "n_jobs": 5, "n_servers": 2}
KEY = ["source", "n_jobs", "n_servers", "seed", "below"]
COLUMNS = [
    *KEY, "status", "found_objective", "bound", "seconds", "scip_status",
    "scip_seconds", "start_objective", "against_objective", "certified",
    "time_limit_s", "loadavg",
]  # fmt: skip


def below(
    inst: Any, n: int, limit: float | None, confirm: str | None = None
) -> dict[str, Any]:
    """Solve v3 of (2) with the row ``objective <= n + 0.5`` (module docstring).

    Returns ``status`` (``infeasible``, ``optimal``, ``time_limit``, ...),
    ``found_objective`` (the checker's JCT of the extracted schedule, NaN
    without one), ``bound`` (``n + 1`` when infeasible, the checked value
    when ``optimal``: the cut model's optimum is (2)'s; else NaN, since a
    MILP bound of the cut model says nothing beyond the cut), ``seconds``,
    ``scip_status`` / ``scip_seconds`` (``confirm="scip"`` and HiGHS
    proved infeasibility; else empty / NaN) and ``schedule`` (the checked
    schedule or None).
    """
    from optsched.models import edgecloud as M

    t0 = time.perf_counter()
    model = M.build_model(inst, formulation="v3")
    obj = next(model.component_data_objects(pyo.Objective, active=True))
    model.objective_cut = pyo.Constraint(expr=obj.expr <= n + 0.5)
    sol = solver.solve(model, time_limit=limit, threads=1)
    out: dict[str, Any] = {
        "status": sol.status,
        "found_objective": math.nan,
        "bound": float(n + 1) if sol.status == "infeasible" else math.nan,
        "seconds": time.perf_counter() - t0,
        "scip_status": "",
        "scip_seconds": math.nan,
        "schedule": None,
    }
    if confirm == "scip" and sol.status == "infeasible":
        from optsched.core.confirm import scip_value

        t1 = time.perf_counter()
        out["scip_status"] = scip_value(model, time_limit=limit)[0]
        out["scip_seconds"] = time.perf_counter() - t1
    if sol.has_solution:
        sched = M.extract_schedule(model, inst)
        out["found_objective"] = float(check(inst, sched).objective)
        out["schedule"] = sched
        if sol.status == "optimal":  # (2)'s optimum: the checker must agree
            if abs(sol.objective - out["found_objective"]) > 1e-6 * (
                1 + abs(sol.objective)
            ):
                raise SolverError(
                    f"cut model optimal at {sol.objective}, but its schedule checks"
                    f" at {out['found_objective']}"
                )
            out["bound"] = out["found_objective"]
    return out


def row(
    source: str,
    size: dict[str, Any],
    seed: int,
    n: int | None,
    limit: float,
    against: Any = None,
    confirm: str | None = None,
    hard: float | None = None,
) -> dict[str, Any]:
    """One seed: ``below`` at ``n`` (None: the checked start's value - 1).

    ``hard``: seconds after which the solve's process is killed (status
    ``killed``); None runs it here, unguarded.

    ``source``: ``"frontier"`` (``size`` is ``generate``'s keywords) or
    ``"figure"`` (the instance of Figs. 12-13 of ``size``'s ``n_jobs`` and
    ``n_servers``).
    """
    from benchmarks.edgecloud_bp import instance

    p = optsched.get_paper("edgecloud")
    if source == "figure":
        inst = instance("figure", size["n_jobs"], size["n_servers"], seed, False)
    else:
        inst = p.generate(seed, **size)
    start = float(p.check(inst, best_start(p, inst)).objective)
    n = int(round(start)) - 1 if n is None else n
    value = float(check(inst, against).objective) if against is not None else math.nan
    done, res = run_with_hard_limit(below, (inst, n, limit, confirm), hard)
    if not done:
        res = {
            "status": "killed", "found_objective": math.nan, "bound": math.nan,
            "seconds": hard, "scip_status": "", "scip_seconds": math.nan,
            "schedule": None,
        }  # fmt: skip
    return {
        "source": source, "n_jobs": size["n_jobs"], "n_servers": size["n_servers"],
        "seed": seed, "below": n, **res, "start_objective": start,
        "against_objective": value,
        "certified": bool(
            res["status"] == "optimal"
            or (res["status"] == "infeasible" and n + 1 in (start, value))
        ),
        "time_limit_s": limit, "loadavg": os.getloadavg()[0],
    }  # fmt: skip


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    seeds: tuple[int, ...] | None = None,
    limit: float | None = None,
    n: int | None = None,
    against: Path | None = None,
    save: Path | None = None,
    confirm: str | None = None,
    figure: tuple[int, int] | None = None,
    hard: float | None = None,
) -> pd.DataFrame:
    """Run the seeds, print a line each, merge the rows into the CSV atomically.

    ``against``: a schedule JSON of the (single) seed's instance.  ``save``:
    a folder for a found schedule, ``<n_jobs>x<n_servers>_seed<seed>.json``
    (``figure_`` in front for a figure's instance).  ``figure``: ``(J, S)``
    of Figs. 12-13 instead of the frontier's 20 x 3.  ``hard``: see :func:`row`.
    """
    from optsched.edgecloud.schedule import EdgeCloudSchedule

    size = QUICK_SIZE if quick else FRONTIER_20X3
    source = "frontier"
    if figure is not None:
        source, size = "figure", {"n_jobs": figure[0], "n_servers": figure[1]}
    seeds = seeds if seeds is not None else (0,)
    limit = limit if limit is not None else (20.0 if quick else 1800.0)
    if against is not None and len(seeds) != 1:
        raise ValueError(f"--against: one schedule is one instance, got seeds {seeds}")
    other = EdgeCloudSchedule.from_json(Path(against).read_text()) if against else None
    rows = []
    for seed in seeds:
        r = row(source, size, seed, n, limit, other, confirm, hard)
        sched = r.pop("schedule")
        if save is not None and sched is not None:
            name = f"{size['n_jobs']}x{size['n_servers']}_seed{seed}.json"
            name = f"figure_{name}" if source == "figure" else name
            text = sched.to_json()
            write_atomic(Path(save), {name: lambda f, t=text: Path(f).write_text(t)})
        rows.append(r)
        print(
            f"{source} {size['n_jobs']} x {size['n_servers']} seed {seed}:"
            f" JCT <= {r['below']}:"
            f" {r['status']} ({r['seconds']:.0f} s)"
            + (f", SCIP {r['scip_status']}" if r["scip_status"] else "")
            + f"; found {r['found_objective']:.0f}; start {r['start_objective']:.0f};"
            f" against {r['against_objective']:.0f}; certified {r['certified']}",
            flush=True,
        )
    df = merge_into_csv(out_dir, "edgecloud_below.csv", rows, COLUMNS, KEY)
    print_table(df)
    return df


if __name__ == "__main__":
    ap = seeds_parser(__doc__)
    ap.add_argument("--below", type=int, help="N: is there a schedule of JCT <= N?")
    ap.add_argument("--against", type=Path, help="a checked schedule (JSON) to compare")
    ap.add_argument("--save", type=Path, help="folder for a found schedule")
    ap.add_argument(
        "--confirm", choices=["scip"], help="SCIP re-proves an infeasible cut"
    )
    ap.add_argument("--source", choices=["frontier", "figure"], default="frontier")
    ap.add_argument("--hard-limit", type=float,
                    help="kill a solve still running after this many seconds")  # fmt: skip
    ap.add_argument("--size", type=int, nargs=2, metavar=("J", "S"),
                    help="--source figure: Figs. 12-13's J jobs x S edge servers")  # fmt: skip
    a = ap.parse_args()
    if (a.source == "figure") != (a.size is not None):
        ap.error("--size J S goes with --source figure, and only with it")
    main(
        a.out, a.quick, tuple(a.seeds) if a.seeds else None, a.limit, a.below,
        a.against, a.save, a.confirm, tuple(a.size) if a.size else None,
        a.hard_limit,
    )  # fmt: skip
