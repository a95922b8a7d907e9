"""Branch and price of edgecloud at the sizes of Figs. 12-13 and the frontier's 20 x 3 (issue 26).

For every instance: the incumbent (the checked MIP start, ``best_start``),
the column-generation root bound, the bound of
:func:`optsched.models.edgecloud_bp.branch_and_price` after ``LIMIT_S``
seconds (stopping early when it reaches the incumbent), the seconds to its
first lift above the root, nodes, and the widths ``incumbent / bound - 1``
before and after branching -- upper bounds on the widths the figures
report (HiGHS may still improve the incumbent; its own bound counts when
higher).  Written to ``<out>/edgecloud_bp.csv``; the committed run is
``benchmarks/data/edgecloud_bp.csv`` (docs/edgecloud.md).

Run (timings are measurements, not assertions; 2 shared cores)::

    python -m benchmarks.edgecloud_bp          # Figs. 12-13 seeds 0-2, 20 x 3 seeds 0-4
    python -m benchmarks.edgecloud_bp --quick  # 2 small sizes, seed 0, 5 s
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, cli, print_table
from benchmarks.edgecloud_colgen import QUICK_SIZES, SIZES
from optsched.core.experiment import write_atomic
from optsched.core.horizon import fit
from optsched.core.ratio import best_start
from optsched.edgecloud import experiments as ex

#: Seconds of branch and price per instance (the figures' ``COLGEN_MIN_S``).
LIMIT_S = ex.COLGEN_MIN_S
#: The frontier's 20 x 3 size (``benchmarks/frontier.py``), not a figure's.
FRONTIER_20X3 = {
    "n_jobs": 20, "n_servers": 3, "n_slots": 30, "max_chunks": 2,
    "slot_hours": 24.0, "n_worker_types": 2, "n_ps_types": 2,
}  # fmt: skip
COLUMNS = [
    "source", "n_jobs", "n_servers", "seed", "incumbent", "root_bound", "bp_bound",
    "proven", "first_lift_s", "nodes", "open", "bp_s", "width_root", "width_bp",
    "loadavg",
]  # fmt: skip


def instance(source: str, n_jobs: int, n_servers: int, seed: int, quick: bool):
    """The instance of Figs. 12-13 (``"figure"``) or of the frontier (``"frontier"``)."""
    p = optsched.get_paper("edgecloud")
    if source == "frontier":
        return p.generate(seed, **FRONTIER_20X3)
    reduced = ex.REDUCED_QUICK if quick else ex.REDUCED
    task = {"n_jobs": n_jobs, "n_servers": n_servers, "seed": seed, **reduced}
    _, inst = ex._generate(task)
    done, _ = fit(inst, p.run("a_online", inst))
    return done


def row(
    source: str, n_jobs: int, n_servers: int, seed: int, quick: bool, limit: float
) -> dict[str, Any]:
    """One instance: checked incumbent, root and branched bounds, widths."""
    from optsched.models.edgecloud_bp import branch_and_price

    p = optsched.get_paper("edgecloud")
    inst = instance(source, n_jobs, n_servers, seed, quick)
    incumbent = float(p.check(inst, best_start("edgecloud", inst)).objective)
    res = branch_and_price(inst, incumbent=incumbent, time_limit=limit)
    root = min(incumbent, float(math.ceil(res.root - 1e-6)))
    lifts = [t for t, b in res.history if b > root]
    return {
        "source": source,
        "n_jobs": n_jobs,
        "n_servers": n_servers,
        "seed": seed,
        "incumbent": incumbent,
        "root_bound": root,
        "bp_bound": res.bound,
        "proven": res.proven,
        "first_lift_s": lifts[0] if lifts else float("nan"),
        "nodes": res.nodes,
        "open": res.open,
        "bp_s": res.runtime,
        "width_root": incumbent / root - 1.0,
        "width_bp": incumbent / res.bound - 1.0,
        "loadavg": os.getloadavg()[0],
    }


def main(out_dir: Path = OUT, quick: bool = False) -> pd.DataFrame:
    """Run every instance, print the table, write the CSV atomically."""
    if quick:
        todo = [("figure", n, s, 0) for n, s in QUICK_SIZES]
        limit = 5.0
    else:
        todo = [("figure", n, s, seed) for n, s in SIZES for seed in (0, 1, 2)]
        todo += [("frontier", 20, 3, seed) for seed in range(5)]
        limit = LIMIT_S
    rows = []
    for source, n_jobs, n_servers, seed in todo:
        t0 = time.perf_counter()
        rows.append(row(source, n_jobs, n_servers, seed, quick, limit))
        r = rows[-1]
        print(
            f"{source} {n_jobs} x {n_servers} seed {seed}: incumbent"
            f" {r['incumbent']:.0f} root {r['root_bound']:.0f} bp {r['bp_bound']:.0f}"
            f" ({r['nodes']} nodes, {time.perf_counter() - t0:.1f} s)"
            f" width {r['width_root']:.2%} -> {r['width_bp']:.2%}",
            flush=True,
        )
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df)
    print(f"largest width {df['width_bp'].max():.2%}{' (QUICK)' if quick else ''}")
    out = Path(out_dir)
    write_atomic(out, {"edgecloud_bp.csv": lambda f: df.to_csv(f, index=False)})
    return df


if __name__ == "__main__":
    cli(main, __doc__)
