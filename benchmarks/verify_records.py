"""Audit the recorded figures: run each again and compare its rows with the record.

For every chosen figure, ``optsched.core.verify.verify_figure`` runs the
spec's full grid with the current checkout (outputs into ``--out``) and
compares the rows and the claims' statuses with its record in
``paper_figures/claims/<key>/`` (rules in :mod:`optsched.core.verify`:
measured times skipped, the solver's columns of a time-limited row may move
inside intersecting certified intervals, every other cell equal to 1e-9).
One CSV row per figure (:data:`COLUMNS`): what was compared, what differs,
whether it was reproduced, the run's wall time and the machine's load,
numpy's CPU kernels here (``simd``) and at recording time (``record_simd``,
empty for records made before they were kept), the checkout the re-run
started from (``commit``; ``+dirty`` when a file the record's digest covers
differed from it) and the record's own commit and date.  The CSV is written
after every figure, so ``--resume`` skips the figures already in it (a
figure verified again replaces its row).

Run (wall times are measurements; 2 shared cores)::

    python -m benchmarks.verify_records                          # every figure but LONG
    python -m benchmarks.verify_records --figures fig12_ratio_jobs fig13_ratio_servers
    python -m benchmarks.verify_records --resume                 # go on after a stop
    python -m benchmarks.verify_records --quick                  # hetero Table II only
    python -m benchmarks.verify_records --table paper_figures/README.md --figures none

``--table FILE`` rewrites the generated block of FILE (:data:`TABLE_BEGIN`
... :data:`TABLE_END`) from the CSV (:func:`markdown`); ``--figures none``
verifies nothing first.

Default CSV: ``benchmarks/data/verify_records.csv`` (``--quick``:
``benchmarks/out/verify_records_quick.csv``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.common import OUT, merge_rows, print_table
from optsched.core import experiment
from optsched.core.base import write_atomic
from optsched.core.record import (
    current_commit,
    read_record,
    run_time,
    uncommitted_files,
)
from optsched.core.verify import verify_figure

DATA = Path("benchmarks/data/verify_records.csv")
CLAIMS = Path("paper_figures/claims")
#: Figures left out by default: their full runs take an hour or more on 2
#: cores (the worst-case searches, the running-time tables, the largest
#: grids); ``--figures NAME`` verifies one of them.
LONG = frozenset({
    "worst_case_oasis", "worst_case_hetero", "worst_case_edgecloud",
    "worst_case_okita", "worst_case_asrpt",
    "fig4_completion_timeliness",
    "oasis_fig5_50_jobs",  # 45 solves of up to 900 s: 147 CPU-min recorded
})  # fmt: skip
# (hetero Table IV, Figs. 9, 11, 16 and 18 and the readings of Fig. 9 left
# LONG on 2026-11-29: audited in 9 s to 6 min; hetero Table V and Figs. 4-6
# and edgecloud Fig. 11 later that day: 8 s to 2 min)
QUICK = ("table2_example",)
TABLE_BEGIN = (
    "<!-- verified records: begin (python -m benchmarks.verify_records --table FILE; "
    "do not edit) -->"
)
TABLE_END = "<!-- verified records: end -->"
COLUMNS = [
    "figure", "paper", "reproduced", "rows", "time_limited_rows", "variations",
    "mismatches", "disjoint", "shape", "claims", "claims_changed", "stale",
    "timing_columns", "wall_s", "load_1m", "workers", "simd", "record_simd",
    "commit", "record_commit", "record_date", "date",
]  # fmt: skip


def verify_one(name: str, out_dir: Path, workers: int) -> dict[str, Any]:
    """Verify figure ``name`` against its record; one CSV row."""
    spec = experiment.get_spec(name)
    folder = CLAIMS / spec.paper
    record = read_record(folder, spec.name) or {}
    # the checkout the re-run starts from; "+dirty" only when a file the
    # record's digest covers differs from HEAD (this CSV itself does, and
    # says nothing about the rows)
    commit = current_commit().removesuffix("+dirty")
    commit += "+dirty" if uncommitted_files(spec) else ""
    began = time.perf_counter()
    res = verify_figure(spec, folder, out=out_dir / spec.paper, workers=workers,
                        progress=False)  # fmt: skip
    what = res.differences["what"]
    print(res.summary(), flush=True)
    return {
        "figure": spec.name,
        "paper": spec.paper,
        "reproduced": res.reproduced,
        "rows": res.rows_recorded,
        "time_limited_rows": res.time_limited_rows,
        "variations": int((what == "variation").sum()),
        "mismatches": int((what == "mismatch").sum()),
        "disjoint": int((what == "disjoint").sum()),
        "shape": int((what == "shape").sum()),
        "claims": len(res.claims),
        "claims_changed": int(res.claims["changed"].sum()) if len(res.claims) else 0,
        "stale": res.stale,
        "timing_columns": " ".join(res.timing_columns),
        "wall_s": round(time.perf_counter() - began, 1),
        "load_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "workers": workers,
        "simd": " ".join(res.simd_now or []),
        "record_simd": None
        if res.simd_recorded is None
        else " ".join(res.simd_recorded),
        "commit": commit,
        "record_commit": record.get("commit"),
        "record_date": record.get("date"),
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def markdown(df: pd.DataFrame) -> str:
    """The CSV as a Markdown table between :data:`TABLE_BEGIN` and :data:`TABLE_END`."""
    lines = [
        TABLE_BEGIN,
        "",
        "| figure | rows | time-limited rows | allowed variations | failing "
        "cells | claims changed | verdict | re-run | record made at | verified at |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.sort_values(["paper", "figure"]).itertuples(index=False):
        failing = int(r.mismatches) + int(r.disjoint) + int(r.shape)
        verdict = "reproduced" if bool(r.reproduced) else "**not reproduced**"
        lines.append(
            f"| {r.paper}/{r.figure} | {int(r.rows)} | {int(r.time_limited_rows)} | "
            f"{int(r.variations)} | {failing} | {int(r.claims_changed)} of "
            f"{int(r.claims)} | {verdict} | {run_time({'wall_s': float(r.wall_s)})} | "
            f"{r.record_commit} | {r.commit}, {str(r.date)[:10]} |"
        )
    return "\n".join([*lines, "", TABLE_END])


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    figures: list[str] | None = None,
    workers: int = 2,
    csv: Path | None = None,
    resume: bool = False,
) -> pd.DataFrame:
    """Verify ``figures`` (default: every spec not in :data:`LONG`); returns the CSV's rows."""
    if csv is None:
        csv = out_dir / "verify_records_quick.csv" if quick else DATA
    if quick:
        names = list(QUICK)
    elif figures == ["none"]:
        names = []
    elif figures:
        names = [experiment.get_spec(f).name for f in figures]
    else:
        names = [n for n in experiment.specs() if n not in LONG]
    old = pd.read_csv(csv) if csv.is_file() else None
    if resume and old is not None:
        names = [n for n in names if n not in set(old["figure"])]
    table = old
    for name in names:
        row = pd.DataFrame([verify_one(name, out_dir / "verify_records", workers)],
                           columns=COLUMNS)  # fmt: skip
        table = merge_rows(table, row, ["figure"])
        write_atomic(
            csv.parent, {csv.name: lambda p, t=table: t.to_csv(p, index=False)}
        )
    if table is None:
        table = pd.DataFrame(columns=COLUMNS)
    print_table(table[["figure", "reproduced", "rows", "time_limited_rows",
                       "variations", "mismatches", "disjoint", "claims_changed",
                       "wall_s"]])  # fmt: skip
    return table


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--out", type=Path, default=OUT, help="folder of the re-runs' outputs"
    )
    ap.add_argument("--figures", nargs="+", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--csv", type=Path, default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--table", type=Path, default=None, metavar="FILE")
    a = ap.parse_args()
    df = main(a.out, a.quick, a.figures, a.workers, a.csv, a.resume)
    if a.table is not None:
        experiment.replace_block(a.table, markdown(df), TABLE_BEGIN, TABLE_END)
        print(f"rewrote the verified-records table of {a.table}")
