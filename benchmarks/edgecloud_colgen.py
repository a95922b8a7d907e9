"""Column-generation bound of edgecloud at the sizes of Figs. 12-13 (issue 26).

For every instance of the ratio figures (``optsched.edgecloud.experiments``:
the reduced input, ``generate``, the horizon fitted to A_online): the
incumbent of the optimum's MIP start (``best_start``, checked), the
column-generation bound of :mod:`optsched.models.edgecloud_colgen` run to
convergence, its time, and the interval width ``incumbent / bound - 1``, an
upper bound on the width the figures report (HiGHS may still improve the
incumbent; its own bound only counts when higher).  Written to
``<out>/edgecloud_colgen.csv``; the committed run is
``benchmarks/data/edgecloud_colgen.csv`` (docs/edgecloud.md).

Run (timings are measurements, not assertions; 2 shared cores)::

    python -m benchmarks.edgecloud_colgen          # Figs. 12-13 sizes, seeds 0-2
    python -m benchmarks.edgecloud_colgen --quick  # 2 small sizes, seed 0
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, cli, print_table
from optsched.core.experiment import write_atomic
from optsched.core.horizon import fit
from optsched.core.ratio import best_start
from optsched.edgecloud import experiments as ex

#: (jobs, edge servers) of Fig. 12 (5 servers) and Fig. 13 (25 jobs).
SIZES = [(n, 5) for n in (25, 20, 15, 10, 5)] + [(25, s) for s in (45, 35, 25, 15)]
QUICK_SIZES = [(3, 2), (4, 1)]
COLUMNS = [
    "n_jobs", "n_servers", "seed", "incumbent", "start_s", "colgen_bound",
    "colgen_value", "converged", "iterations", "colgen_s", "width", "loadavg",
]  # fmt: skip


def row(n_jobs: int, n_servers: int, seed: int, quick: bool) -> dict[str, Any]:
    """One instance of Figs. 12-13: checked incumbent, converged bound, width."""
    from optsched.models.edgecloud_colgen import column_generation

    p = optsched.get_paper("edgecloud")
    reduced = ex.REDUCED_QUICK if quick else ex.REDUCED
    task = {"n_jobs": n_jobs, "n_servers": n_servers, "seed": seed, **reduced}
    _, inst = ex._generate(task)
    done, _ = fit(inst, p.run("a_online", inst))
    t0 = time.perf_counter()
    start = best_start("edgecloud", done)
    start_s = time.perf_counter() - t0
    incumbent = float(p.check(done, start).objective)
    t0 = time.perf_counter()
    cg = column_generation(done, time_limit=None)
    colgen_s = time.perf_counter() - t0
    return {
        "n_jobs": n_jobs,
        "n_servers": n_servers,
        "seed": seed,
        "incumbent": incumbent,
        "start_s": start_s,
        "colgen_bound": cg.bound,
        "colgen_value": cg.value,
        "converged": cg.converged,
        "iterations": cg.iterations,
        "colgen_s": colgen_s,
        "width": incumbent / cg.bound - 1.0,
        "loadavg": os.getloadavg()[0],
    }


def main(out_dir: Path = OUT, quick: bool = False) -> pd.DataFrame:
    """Run every size and seed, print the table, write the CSV atomically."""
    sizes, seeds = (QUICK_SIZES, [0]) if quick else (SIZES, [0, 1, 2])
    rows = []
    for n_jobs, n_servers in sizes:
        for seed in seeds:
            rows.append(row(n_jobs, n_servers, seed, quick))
            r = rows[-1]
            print(
                f"{n_jobs} x {n_servers} seed {seed}: incumbent {r['incumbent']:.0f}"
                f" colgen {r['colgen_bound']:.0f} ({r['colgen_s']:.1f} s)"
                f" width {r['width']:.2%}",
                flush=True,
            )
    df = pd.DataFrame(rows, columns=COLUMNS)
    print_table(df)
    print(f"largest width {df['width'].max():.2%}{' (QUICK)' if quick else ''}")
    out = Path(out_dir)
    write_atomic(out, {"edgecloud_colgen.csv": lambda f: df.to_csv(f, index=False)})
    return df


if __name__ == "__main__":
    cli(main, __doc__)
