"""Worst certified ratios per paper: the search against the random-instance mean.

For each paper, at its ``demo_size`` (optima proven in seconds):

1. the random-instance ratios of its own online algorithm(s) and its
   baselines (:data:`OWN`, :data:`BASELINES`; ``optsched.ratios`` on
   ``--random`` instances, seeds ``0..``), whose median and mean certified ratio (proven
   ratio, else the lower end of the interval) rank the baselines;
2. ``optsched.worst_case`` for the own algorithm(s) and the two strongest
   baselines (lowest random median, then mean: :func:`strongest`), with
   each method (``anneal`` from the worst of :data:`STARTS` generated
   instances, ``evolve``), ``--evals`` evaluations, seed 0;
3. instances on which an algorithm *raised* (``alg_error``, a bug found by
   the search) are counted (``failures``) and the first three per search
   saved to ``--data`` as ``<paper>_<algorithm>_<method>.failure<n>.json``;
4. the worst instance of every search is saved to ``--data``
   (``<paper>_<algorithm>_<method>.json``) with its certified ratio in
   ``manifest.csv`` -- the regression cases that
   ``tests/test_worst_case_regression.py`` re-checks.

Output: ``benchmarks/out/worst_case_bench.csv`` (one row per saved search:
worst certified ratio, its kind, the random mean and max, the paper's proven
bound, the settings and the commit that ran it); per search, saved as soon
as it finishes, ``--data``/runs/``<stem>.row.json`` and
``<stem>.trace.csv.gz``, so ``--resume`` goes on after a stop.  The issue asks for 2,000 evaluations
per search: ``python -m benchmarks.worst_case_bench --evals 2000`` (hours on
2 cores); ``--refresh-random`` recomputes only the random-instance columns on the
current checkout (:func:`refresh_random`; minutes), for a table whose searches
ran at an older commit; ``--quick`` is the smoke test (2 random instances, 3 evaluations,
``anneal`` only, data written to the output folder, not to ``--data``).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optsched
from optsched.core import experiment
from optsched.core.adversary import certified_ratio, read_trace, task_rows, worst_case
from optsched.core.experiment import write_atomic
from optsched.core.record import current_commit, record_run

#: The papers' own online algorithms.
OWN = {
    "oasis": ("oasis",),
    "hetero": ("has", "jps"),
    "edgecloud": ("a_online",),
    "okita": ("okita",),
    "asrpt": ("asrpt",),
}
#: The baselines of each paper's evaluation (named variants and exact
#: searches excluded).
BASELINES = {
    "oasis": ("fifo", "drf", "rrh", "dorm"),
    "hetero": ("optimus", "optimus_lb", "gavel", "las"),
    "edgecloud": ("a_online_e", "srtf", "tiresias_l", "batchsche"),
    "okita": ("fifo", "drf", "oasis"),
    "asrpt": ("spjf", "spwf", "wcs_duration", "wcs_workload", "wcs_subtime"),
}
METHODS = ("anneal", "evolve")
TIME_LIMIT = 30.0
#: ``anneal`` starts from the worst of this many generated instances.
STARTS = 8
DATA = Path(__file__).parent / "data" / "worst"
BATCH = 4
GZ = {"method": "gzip", "mtime": 0}  # byte-identical archives for equal traces
ROOT = Path(__file__).resolve().parent.parent
COLUMNS = [
    "paper", "algorithm", "role", "method", "n_evals", "worst_ratio", "kind",
    "opt_status", "start_ratio", "random_median", "random_mean", "random_max", "random_n",
    "proven_bound", "size", "seed", "time_limit", "batch", "starts", "failures",
    "first_failure", "commit", "random_commit",
]  # fmt: skip
FIGURES_HOW = "python -m benchmarks.worst_case_bench --figures"
SHOW = ["paper", "algorithm", "role", "method", "n_evals", "worst_ratio", "kind",
        "start_ratio", "random_mean", "random_max", "failures"]  # fmt: skip


def random_ratios(
    key: str, n: int, size: dict[str, Any], workers: int | None = None
) -> pd.DataFrame:
    """Mean / max certified ratio per algorithm over ``n`` random instances
    (``workers`` processes, ``None``: one per CPU, as the searches)."""
    algs = [*OWN[key], *BASELINES[key]]
    df = optsched.ratios(key, n_instances=n, seed=0, algorithms=algs,
                         time_limit=TIME_LIMIT, progress=False, workers=workers,
                         **size)  # fmt: skip
    df["certified"] = [certified_ratio(r) for r in df.to_dict("records")]
    return df.groupby("algorithm")["certified"].agg(["median", "mean", "max", "count"])


def strongest(table: pd.DataFrame, key: str, k: int = 2) -> list[str]:
    """The ``k`` baselines with the lowest random median, then mean (ties: listed
    order).  The median first: one instance with ``ALG = 0`` makes a mean
    infinite (OASiS's FIFO and DRF), which says nothing about the rest."""
    order = {b: j for j, b in enumerate(BASELINES[key])}
    t = table.loc[list(BASELINES[key])]
    return sorted(
        order, key=lambda b: (t.loc[b, "median"], t.loc[b, "mean"], order[b])
    )[:k]


def foreign_searches(saved: list[dict], now: str) -> list[str]:
    """Commits of saved searches that are not the current clean checkout ``now``.

    Their traces came from other code (or from uncommitted code: ``+dirty``,
    or no commit at all), so a record of them under today's code digest
    would read ``fresh`` for rows today's code may not give: such rows are
    drawn, never recorded.  Empty when every search ran on ``now``.
    """
    bad = {str(r.get("commit", "")) for r in saved}
    if now and not now.endswith("+dirty"):
        bad.discard(now)
    return sorted(bad)


def _settings(key: str, alg: str, method: str, n_evals: int, size: dict) -> dict:
    """What determines a search's result (a saved row is reused only on a match)."""
    starts = min(STARTS, n_evals) if method == "anneal" else 1
    return {"paper": key, "algorithm": alg, "method": method, "n_evals": n_evals,
            "seed": 0, "time_limit": TIME_LIMIT, "batch": BATCH, "starts": starts,
            "size": json.dumps(size, sort_keys=True)}  # fmt: skip


def _saved(runs: Path, stem: str, settings: dict) -> dict | None:
    f = runs / f"{stem}.row.json"
    if not f.exists():
        return None
    row = json.loads(f.read_text())
    return row if all(row.get(k) == v for k, v in settings.items()) else None


def _random_table(
    runs: Path, key: str, n: int, size: dict, resume: bool, workers: int | None
):
    f = runs / f"{key}.random.csv"
    if resume and f.exists():
        t = pd.read_csv(f, index_col="algorithm")
        same = set(t.index) == {*OWN[key], *BASELINES[key]} and "median" in t
        if same and (t["count"] == n).all():
            return t
    t = random_ratios(key, n, size, workers)
    write_atomic(runs, {f.name: lambda g: t.to_csv(g, index_label="algorithm")})
    return t


def refresh_random(
    data_dir: Path, papers: tuple[str, ...], n: int, workers: int | None
) -> list[str]:
    """Recompute each paper's random-instance table on this checkout.

    Writes ``<data>/runs/<key>.random.csv`` anew (:func:`random_ratios`, ``n``
    instances at the paper's ``demo_size``) and sets the ``random_*`` fields
    of the paper's saved searches to its rows, with ``random_commit`` the
    checkout that computed them (the search itself, ``commit``, is not run
    again).  Every paper is computed and checked before anything is
    written; then all the files are written together or none
    (:func:`optsched.core.base.write_atomic`).  Returns one line per paper
    saying what changed.

    Raises
    ------
    RuntimeError
        When the two strongest baselines (:func:`strongest`) are not the
        ones the saved searches were run for: the searches would then have
        to be run again, not only their random columns.
    """
    runs = data_dir / "runs"
    commit = current_commit()
    said = []
    writers: dict[str, Callable[[str], object]] = {}
    for key in papers:
        f = runs / f"{key}.random.csv"
        old = pd.read_csv(f, index_col="algorithm") if f.exists() else None
        table = random_ratios(key, n, dict(optsched.get_paper(key).demo_size), workers)
        saved = [
            json.loads(r.read_text()) for r in sorted(runs.glob(f"{key}_*.row.json"))
        ]
        searched = {r["algorithm"] for r in saved if r["role"] == "baseline"}
        if searched and searched != set(strongest(table, key)):
            raise RuntimeError(
                f"{key}: the strongest baselines are now {strongest(table, key)}, "
                f"the saved searches are for {sorted(searched)}: run them again"
            )
        writers[f.name] = lambda g, t=table: t.to_csv(g, index_label="algorithm")
        for row in saved:
            alg = row["algorithm"]
            row.update(
                random_median=float(table.loc[alg, "median"]),
                random_mean=float(table.loc[alg, "mean"]),
                random_max=float(table.loc[alg, "max"]),
                random_n=int(table.loc[alg, "count"]),
                random_commit=commit,
            )
            stem = f"{key}_{alg}_{row['method']}"
            writers[f"{stem}.row.json"] = _text(json.dumps(row, indent=1))
        same = old is not None and _same_table(old, table)
        said.append(
            f"{key}: {'as before' if same else 'changed'} ({len(saved)} searches)"
        )
    # every table computed and checked first, then all files or none
    write_atomic(runs, writers)
    return said


def _same_table(old: pd.DataFrame, new: pd.DataFrame) -> bool:
    """Same algorithms, counts and (to 1e-9 relative) median / mean / max."""
    if set(old.index) != set(new.index):
        return False
    old = old.loc[new.index]
    cols = ["median", "mean", "max"]
    return bool(
        (old["count"].to_numpy() == new["count"].to_numpy()).all()
        and np.allclose(old[cols].to_numpy(float), new[cols].to_numpy(float),
                        rtol=1e-9, equal_nan=True)
    )  # fmt: skip


def _search(key, alg, role, method, n_evals, size, table, data_dir, workers) -> dict:
    """One search; writes its worst instance, failures, trace and row (last)."""
    st = _settings(key, alg, method, n_evals, size)
    res = worst_case(key, alg, n_evals=n_evals, seed=st["seed"], time_limit=TIME_LIMIT,
                     method=method, batch=BATCH, starts=st["starts"], workers=workers,
                     progress=False, **size)  # fmt: skip
    stem = f"{key}_{alg}_{method}"
    row = {
        **st, "role": role, "worst_ratio": res.ratio, "kind": res.kind,
        "opt_status": res.status,
        "start_ratio": float(res.trace["certified"].iloc[0]),
        "random_median": float(table.loc[alg, "median"]),
        "random_mean": float(table.loc[alg, "mean"]),
        "random_max": float(table.loc[alg, "max"]),
        "random_n": int(table.loc[alg, "count"]),
        "proven_bound": res.proven_bound or "",
        "failures": len(res.failures),
        "first_failure": res.failures[0][0] if res.failures else "",
        "commit": current_commit(),
    }  # fmt: skip
    files = {f"{stem}.json": _text(res.instance.to_json(indent=1) + "\n")}
    for n, (_err, bad) in enumerate(res.failures[:3]):
        files[f"{stem}.failure{n}.json"] = _text(bad.to_json(indent=1) + "\n")
    for old in data_dir.glob(f"{stem}.failure*.json"):  # an earlier run's
        if old.name not in files:
            old.unlink()
    write_atomic(data_dir, files)
    trace = res.trace
    write_atomic(data_dir / "runs", {
        f"{stem}.trace.csv.gz": lambda f: trace.to_csv(f, index=False, compression=GZ),
    })  # fmt: skip
    write_atomic(
        data_dir / "runs", {f"{stem}.row.json": _text(json.dumps(row, indent=1))}
    )
    print(f"  {stem}: worst {res.ratio:.4g} ({res.kind}) vs random mean "
          f"{table.loc[alg, 'mean']:.4g}", flush=True)  # fmt: skip
    return row


def _text(t: str):
    return lambda f: Path(f).write_text(t)


def run(
    out_dir: Path, data_dir: Path, n_evals: int, n_random: int, methods: tuple[str, ...],
    papers: tuple[str, ...], workers: int | None, resume: bool = False,
) -> pd.DataFrame:  # fmt: skip
    """Every search of the module docstring; returns the summary table.

    Each finished search is saved at once (``<data>/runs/<stem>.row.json``
    written last, with the trace as ``.trace.csv.gz``); with ``resume`` a
    search whose saved row has the same settings (:func:`_settings`) is not
    run again, so a long run can stop and go on (also in a later session).
    The manifest and the summary are rebuilt from every saved row of
    ``<data>/runs``.
    """
    runs = data_dir / "runs"
    tables = {}
    for role in ("own", "baseline"):  # every paper's own algorithm first
        for key in papers:
            size = dict(optsched.get_paper(key).demo_size)
            if key not in tables:
                tables[key] = _random_table(runs, key, n_random, size, resume, workers)
            table = tables[key]
            algs = OWN[key] if role == "own" else strongest(table, key)
            for alg in algs:
                for method in methods:
                    stem = f"{key}_{alg}_{method}"
                    st = _settings(key, alg, method, n_evals, size)
                    if resume and (row := _saved(runs, stem, st)) is not None:
                        print(f"  {stem}: saved ({row['worst_ratio']:.4g})", flush=True)
                        continue
                    _search(key, alg, role, method, n_evals, size, table, data_dir,
                            workers)  # fmt: skip
    return summarise(out_dir, data_dir)


def rescore(data_dir: Path) -> list[str]:
    """Re-derive ``kind`` / ratios of every saved trace with the current core rule.

    No instance is evaluated again: each trace row keeps its checked ALG,
    OPT, bound and status, and :func:`optsched.core.ratio.ratio_columns`
    (with its zero rule, :func:`optsched.core.ratio.near_zero`) recomputes
    ``ratio``, ``ratio_lo``, ``ratio_hi``, ``kind`` and ``certified``;
    ``current`` / ``best`` follow the rows whose certified value changed,
    and the saved row's ``worst_ratio`` / ``kind`` are those of the trace's
    worst row.  The searches' choices are the ones made under the old rule
    (a changed value was already the largest of its trace, so the worst
    instance is the same).  Returns the stems whose trace changed.
    """
    from optsched.core.ratio import ratio_columns

    changed = []
    for row_file in sorted((data_dir / "runs").glob("*.row.json")):
        row = json.loads(row_file.read_text())
        stem = row_file.name.removesuffix(".row.json")
        trace_file = row_file.with_name(f"{stem}.trace.csv.gz")
        tr = read_trace(trace_file)
        sense = optsched.get_paper(row["paper"]).sense
        new = tr.copy()
        remap: dict[float, float] = {}
        for i, r in tr.iterrows():
            if r["kind"] not in ("proven", "interval", "alg_zero", "opt_zero"):
                continue
            cols = ratio_columns(sense, r["alg_objective"], r["opt_objective"],
                                 r["opt_bound"], r["opt_status"])  # fmt: skip
            for c in ("ratio", "ratio_lo", "ratio_hi", "kind"):
                new.at[i, c] = cols[c]
            cert = certified_ratio({**r.to_dict(), **cols})
            if cert != r["certified"] and not (
                math.isnan(cert) and math.isnan(r["certified"])
            ):
                remap[float(r["certified"])] = cert
            new.at[i, "certified"] = cert
        if not remap:
            continue
        for c in ("current", "best"):
            new[c] = [remap.get(float(v), v) for v in new[c]]
        j = new["certified"].astype(float).fillna(-math.inf).idxmax()
        row["worst_ratio"], row["kind"] = (
            float(new.at[j, "certified"]),
            new.at[j, "kind"],
        )
        write_atomic(
            trace_file.parent,
            {trace_file.name: lambda f, t=new: t.to_csv(f, index=False, compression="gzip"),
             row_file.name: _text(json.dumps(row, indent=1))},
        )  # fmt: skip
        changed.append(stem)
    return changed


def _bound_at_worst(data_dir: Path, row: dict) -> float:
    """The paper's instance-dependent proven bound (``Paper.bound_value``) on the
    search's worst instance; NaN where there is none."""
    p = optsched.get_paper(row["paper"])
    f = p.bound_value.get(row["algorithm"])
    if f is None:
        return math.nan
    stem = f"{row['paper']}_{row['algorithm']}_{row['method']}"
    return float(f(p.instance_type.from_json((data_dir / f"{stem}.json").read_text())))


def summarise(out_dir: Path, data_dir: Path) -> pd.DataFrame:
    """The manifest (regression cases) and summary table from the saved rows."""
    rows = [
        json.loads(f.read_text())
        for f in sorted((data_dir / "runs").glob("*.row.json"))
    ]
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["bound_at_worst"] = [_bound_at_worst(data_dir, r) for r in rows]
    man = pd.DataFrame(
        {"file": [f"{r['paper']}_{r['algorithm']}_{r['method']}.json" for r in rows],
         "paper": df["paper"], "algorithm": df["algorithm"], "method": df["method"],
         "certified_ratio": df["worst_ratio"], "kind": df["kind"],
         "time_limit": df["time_limit"], "n_evals": df["n_evals"]}
    )  # fmt: skip
    write_atomic(out_dir, {"worst_case_bench.csv": lambda f: df.to_csv(f, index=False)})
    write_atomic(data_dir, {"manifest.csv": lambda f: man.to_csv(f, index=False)})
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(df[SHOW].to_string(index=False))
    return df


def _same_search(row: dict, task: dict) -> bool:
    """Does a saved search row have the parameters of a figure task?"""
    keys = ("paper", "algorithm", "method", "n_evals", "seed", "time_limit", "batch")
    same = all(row[k] == task[k] for k in keys)
    same &= row["size"] == json.dumps(dict(task["size"]), sort_keys=True)
    # ``starts`` only matters to anneal (evolve starts from its own draws)
    return same and (task["method"] != "anneal" or row["starts"] == task["starts"])


def figures(data_dir: Path, papers: tuple[str, ...], out: Path | None, record: bool):
    """The ``worst_case_<key>`` figures from the saved searches (no search re-run).

    Every task of the spec's full grid must have a saved search with its
    parameters (:func:`_same_search`); its trace gives the task's rows
    exactly as ``optsched figure run worst_case_<key>`` would compute them
    (``adversary.trace_rows``; the search is deterministic for a seed, with
    any number of workers -- tested).  ``record`` keeps the claims in
    ``paper_figures/claims`` as ``optsched figure run --record`` does
    with the rows and their provenance (:func:`optsched.core.record.record_run`;
    unchanged claims files, date aside, are not rewritten), but only when
    every search it uses ran on the current clean checkout
    (:func:`foreign_searches`); otherwise the figure is drawn and not
    recorded.
    """
    from optsched.cli import FIGURES_CLAIMS, FIGURES_OUT

    runs = data_dir / "runs"
    saved = [json.loads(f.read_text()) for f in sorted(runs.glob("*.row.json"))]
    done = []
    for key in papers:
        spec = experiment.get_spec(f"{key}/worst_case_{key}")
        results, missing, used = [], [], []
        for task in spec.tasks():
            hit = [r for r in saved if _same_search(r, task)]
            used += hit[:1]
            stem = f"{task['paper']}_{task['algorithm']}_{task['method']}"
            if not hit:
                missing.append(f"{stem} ({task['n_evals']} evaluations)")
                continue
            trace = read_trace(runs / f"{stem}.trace.csv.gz")
            results.append(task_rows(trace, key, task["algorithm"], task["seed"]))
        if missing:
            print(f"{spec.name}: no saved search for {', '.join(missing)}; skipped")
            continue
        res = experiment.run(spec, results=results, out=out or FIGURES_OUT / key,
                             how=FIGURES_HOW, progress=False)  # fmt: skip
        other = foreign_searches(used, current_commit()) if record else []
        if other:
            print(f"{spec.name}: saved searches from {', '.join(other)}, not the "
                  "current clean checkout: not recorded (run the searches again, "
                  f"or `optsched figure run {spec.name} --record`)")  # fmt: skip
        elif record:  # rows + provenance; claims whose only change is the date stay
            record_run(spec, res.rows, res.claims, FIGURES_CLAIMS / key,
                       n_tasks=len(results))  # fmt: skip
        done.append(res)
    return done


TABLE_BEGIN = (
    "<!-- worst-case table: begin (python -m benchmarks.worst_case_bench"
    " --table FILE; do not edit) -->"
)
TABLE_END = "<!-- worst-case table: end -->"


def _num(x: float) -> str:
    return "inf" if x == math.inf else "-" if math.isnan(x) else f"{x:.4g}"


def markdown(df: pd.DataFrame) -> str:
    """The results table of docs/worst_case.md from the saved rows: one line per
    (paper, algorithm), both methods side by side."""
    lines = [
        TABLE_BEGIN, "",
        "| paper | algorithm | evaluations | random median / mean / max (n) "
        "| worst found, anneal | worst found, evolve | crashes found "
        "| paper's proven bound | bound on the worst instances | commit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    order = {k: j for j, k in enumerate(OWN)}
    df = df.assign(_p=df["paper"].map(order), _r=df["role"].ne("own"))
    for (key, alg), d in df.sort_values(["_p", "_r"], kind="stable").groupby(
        ["paper", "algorithm"], sort=False
    ):
        by = {r["method"]: r for r in d.to_dict("records")}
        r0 = d.iloc[0]
        cells = []
        for m in METHODS:
            r = by.get(m)
            kind = "" if r is None or r["kind"] == "proven" else f" ({r['kind']})"
            cells.append("-" if r is None else _num(float(r["worst_ratio"])) + kind)
        evals = "/".join(sorted({str(int(v)) for v in d["n_evals"]}))
        rnd = (f"{_num(float(r0['random_median']))} / {_num(float(r0['random_mean']))}"
               f" / {_num(float(r0['random_max']))} ({int(r0['random_n'])})")  # fmt: skip
        bound = r0["proven_bound"] if isinstance(r0["proven_bound"], str) else ""
        at = "-"
        if d["bound_at_worst"].notna().any():
            at = " / ".join(
                "-" if m not in by else _num(float(by[m]["bound_at_worst"]))
                for m in METHODS
            )
        commits = "/".join(sorted({c for c in d["commit"] if isinstance(c, str)}))
        redone = sorted({c for c in d["random_commit"] if isinstance(c, str)})
        if redone:
            commits += f" (random: {'/'.join(redone)})"
        lines.append(
            f"| `{key}` | `{alg}` ({r0['role']}) | {evals} | {rnd} | {cells[0]} "
            f"| {cells[1]} | {int(d['failures'].sum())} | {bound or 'none proven'} "
            f"| {at} | {commits} |"
        )
    return "\n".join([*lines, "", TABLE_END])


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--evals", type=int, default=200)
    ap.add_argument("--random", type=int, default=20, help="random instances per paper")
    ap.add_argument("--papers", default=",".join(OWN))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/out"))
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--out-figures",
        type=Path,
        default=None,
        help="with --figures: folder (default paper_figures/out/<paper>)",
    )
    ap.add_argument("--resume", action="store_true",
                    help="skip searches already saved with the same settings")  # fmt: skip
    ap.add_argument(
        "--figures",
        action="store_true",
        help="only write the worst_case_<key> figures from the saved searches",
    )
    ap.add_argument("--rescore", action="store_true",
                    help="re-derive kinds and ratios of the saved traces with the "
                    "current core rule (no new evaluation), then rebuild the manifest")  # fmt: skip
    ap.add_argument("--refresh-random", action="store_true",
                    help="recompute the random-instance tables on this checkout and "
                    "the saved searches' random columns (no search re-run)")  # fmt: skip
    ap.add_argument("--table", type=Path, default=None, metavar="FILE",
                    help="only write the results table from the saved rows into FILE")  # fmt: skip
    ap.add_argument(
        "--record",
        action="store_true",
        help="with --figures: keep the claims in paper_figures/claims",
    )
    a = ap.parse_args(argv)
    papers = tuple(x for x in a.papers.split(",") if x)
    if a.record and not a.figures:
        ap.error("--record goes with --figures")
    if a.rescore:
        print("rescored:", ", ".join(rescore(a.data)) or "nothing changed")
        return summarise(a.out, a.data)
    if a.refresh_random:
        print("\n".join(refresh_random(a.data, papers, a.random, a.workers)))
        return summarise(a.out, a.data)
    if a.figures:
        figures(a.data, papers, a.out_figures, a.record)
    if a.table is not None or a.figures:
        df = summarise(a.out, a.data)
        if a.table is not None:
            experiment.replace_block(a.table, markdown(df), TABLE_BEGIN, TABLE_END)
        return df
    if a.quick:
        return run(
            a.out, a.out / "worst", 3, 2, ("anneal",), papers, a.workers, a.resume
        )
    if a.evals < 1 or math.isnan(a.evals):
        ap.error(f"--evals must be >= 1, got {a.evals}")
    return run(a.out, a.data, a.evals, a.random, METHODS, papers, a.workers, a.resume)


if __name__ == "__main__":
    main()
