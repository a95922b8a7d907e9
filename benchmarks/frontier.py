"""The proven-optimum frontier per paper: time to proof (or final gap) up a size ladder.

For every paper a size ladder (:data:`LADDERS`, generator keywords, smallest
first) starts at a size HiGHS proves in seconds today and climbs past the
targets of issue 26.  Per ``(paper, size, seed, formulation)`` the instance
``p.generate(seed, **size)`` is solved from the harness's MIP start
(``optsched.core.ratio.best_start``) with ``time_limit`` seconds and one HiGHS
thread (``--threads``); the incumbent is re-checked by the paper's checker
(its objective must equal the reported one, relative 1e-6), and two
formulations that both prove an optimum of one instance must agree (relative
1e-6).  A row holds the status, objective, bound, ``gap = |objective - bound|
/ max(1, |objective|)`` (NaN without both), the solve's wall time, whether
it was proven (``status == "optimal"``), the start's checked objective and
the load average when the row was written (the machine is shared).

Formulations.  A paper's model module ``optsched.models.<key>`` may expose
``FORMULATIONS: dict[str, Callable]`` (name -> a ``solve_offline``-like
callable ``(inst, *, time_limit, start, threads) -> OfflineResult``); without
it the paper has one formulation, ``{"current": p.solve_offline}``.  A new
formulation is compared with the previous one by registering both there and
running this benchmark (``--formulations`` picks names); the CSV then holds
one row per formulation and instance, and the plot one colour per
formulation.

Outputs: the CSV (default ``benchmarks/data/frontier.csv``, written
atomically after every row, so ``--resume`` continues an interrupted run by
skipping the ``(paper, size, seed, formulation)`` rows already there) and the
plot (default ``docs/img/frontier.png``): one panel per paper, x = ladder
step labelled with its size, y = time to proof (log scale); an unproven row
is an open marker at the time limit annotated with its final gap.
:func:`summary` (printed at the end) gives per paper x size x formulation
the proven count over the seeds, the median time of the proven rows and the
largest gap of the unproven ones.

Run (timings are measurements, not assertions; 2 shared cores)::

    python -m benchmarks.frontier                      # all papers, seeds 0-4, 60 s
    python -m benchmarks.frontier --papers oasis okita --seeds 0 1 --resume
    python -m benchmarks.frontier --formulations current new --time-limit 120
    python -m benchmarks.frontier --quick              # 2 steps, seeds 0-1, 10 s
    python -m benchmarks.frontier --papers edgecloud --hard-limit 300  # kill overruns

``--hard-limit S`` runs each solve in a child process killed after ``S``
seconds (HiGHS's ``time_limit`` is a target: it once ran 17 min past a
300-s limit, docs/edgecloud.md); such a row says ``killed``, with the
checked start as objective and no bound.

``--quick`` writes to ``benchmarks/out/frontier_quick.{csv,png}`` unless
``--out`` / ``--plot`` are given; ``--steps N`` keeps each ladder's first
``N`` sizes.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.common import OUT, print_table, run_with_hard_limit
from optsched.core.base import write_atomic
from optsched.core.ratio import best_start

#: Paper -> generator keywords, smallest first (the issue 26 sizes in the middle).
LADDERS: dict[str, list[dict[str, Any]]] = {
    "oasis": [
        {"n_jobs": n, "n_slots": 30, "n_worker_servers": 20, "n_ps_servers": 20}
        for n in (6, 10, 20, 30, 50)
    ],
    "edgecloud": [
        {
            "n_jobs": j,
            "n_servers": s,
            "n_slots": 30,
            "max_chunks": 2,
            "slot_hours": 24.0,
            "n_worker_types": 2,
            "n_ps_types": 2,
        }
        for j, s in ((5, 2), (10, 2), (15, 3), (20, 3))
    ],
    "okita": [
        {"n_sites": r, "n_jobs": i, "n_slots": 20}
        for r, i in ((3, 5), (3, 8), (4, 10), (5, 10))
    ],
    "asrpt": [
        {"n_jobs": n, "n_servers": 2, "gpus_per_server": 2} for n in (10, 15, 20, 30)
    ],
    "hetero": [
        {"n_jobs": s, "n_workers": k} for s, k in ((4, 50), (8, 50), (4, 180), (8, 180))
    ],
}
#: Paper -> label of a ladder size (``str.format`` of its keywords).
LABELS: dict[str, str] = {
    "oasis": "{n_jobs} jobs\nT={n_slots} {n_worker_servers}+{n_ps_servers}",
    "edgecloud": "{n_jobs}x{n_servers}\nT={n_slots}",
    "okita": "{n_sites}x{n_jobs}\nT={n_slots}",
    "asrpt": "{n_jobs} jobs\n{n_servers}x{gpus_per_server} GPU",
    "hetero": "S={n_jobs}\nK={n_workers}",
}
SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)
LIMIT_S = 60.0
#: ``--quick``: first steps, seeds and time limit (explicit options win).
QUICK: dict[str, Any] = {"steps": 2, "seeds": [0, 1], "time_limit": 10.0}
CSV = Path("benchmarks/data/frontier.csv")
PNG = Path("docs/img/frontier.png")
KEY = ["paper", "size_json", "seed", "formulation"]
SIZE_COLUMNS = list(
    dict.fromkeys(k for lad in LADDERS.values() for s in lad for k in s)
)
COLUMNS = [
    "paper", "step", "size", *SIZE_COLUMNS, "size_json", "seed", "formulation",
    "status", "objective", "bound", "gap", "runtime_s", "proven", "start_objective",
    "start_s", "time_limit_s", "threads", "loadavg",
]  # fmt: skip


def reference_row(
    paper: str, size: dict[str, Any], formulation: str, seed: int, csv: Path = CSV
) -> dict[str, float]:
    """The frontier CSV's (last) row of one instance: HiGHS's bound, the incumbent.

    Keys ``bound`` and ``objective``; ``LookupError`` when the CSV has no row
    of this paper, size, formulation and seed.  The reference other
    benchmarks (``okita_colgen``, ``integrality``, ``oasis_dw``) put beside
    their own bounds.
    """
    df = pd.read_csv(csv)
    key = json.dumps(size, sort_keys=True)
    hit = df[
        (df["paper"] == paper)
        & (df["formulation"] == formulation)
        & (df["size_json"] == key)
        & (df["seed"] == seed)
    ]
    if hit.empty:
        raise LookupError(
            f"no {paper} {formulation} row for {key} seed {seed} in {csv}"
        )
    r = hit.iloc[-1]
    return {"bound": float(r["bound"]), "objective": float(r["objective"])}


def formulations(key: str) -> dict[str, Callable[..., Any]]:
    """``optsched.models.<key>.FORMULATIONS``, else ``{"current": solve_offline}``."""
    found = getattr(
        importlib.import_module(f"optsched.models.{key}"), "FORMULATIONS", None
    )
    return dict(found) if found else {"current": optsched.get_paper(key).solve_offline}


def size_label(key: str, size: dict[str, Any]) -> str:
    """Short label of ladder size ``size`` of paper ``key`` (one line)."""
    return LABELS[key].format(**size).replace("\n", " ")


def solve_row(
    key: str,
    step: int,
    seed: int,
    name: str,
    solve: Callable[..., Any],
    time_limit: float,
    threads: int | None,
    hard_limit: float | None = None,
) -> dict[str, Any]:
    """Solve one ``(paper, size, seed)`` with formulation ``solve``; its checked row.

    ``hard_limit``: seconds after which the solve's process is killed
    (:func:`benchmarks.common.run_with_hard_limit`; HiGHS can overrun its
    own limit): the row's status is then ``killed``, its objective the
    checked start's and its bound NaN.  None solves here, unguarded.

    Raises
    ------
    RuntimeError
        The checker's objective of the returned schedule differs from the
        reported one (relative 1e-6).
    """
    p = optsched.get_paper(key)
    size = LADDERS[key][step]
    inst = p.generate(seed, **size)
    t0 = time.perf_counter()
    start = best_start(p, inst)
    start_s = time.perf_counter() - t0
    start_obj = math.nan if start is None else float(p.check(inst, start).objective)
    call = functools.partial(solve, time_limit=time_limit, start=start, threads=threads)
    finished, res = run_with_hard_limit(call, (inst,), hard_limit)
    status, schedule = (res.status, res.schedule) if finished else ("killed", None)
    obj = float(res.objective) if finished else start_obj
    bound = float(res.bound) if finished else math.nan
    runtime = float(res.runtime) if finished else float(hard_limit or 0.0)
    if schedule is not None:
        checked = float(p.check(inst, schedule).objective)
        if not math.isclose(checked, obj, rel_tol=1e-6, abs_tol=1e-9):
            raise RuntimeError(
                f"{key} {size_label(key, size)} seed {seed} {name}: checker "
                f"objective {checked!r} != reported {obj!r}"
            )
    both = math.isfinite(obj) and math.isfinite(bound)
    return {
        "paper": key,
        "step": step,
        "size": size_label(key, size),
        **size,
        "size_json": json.dumps(size, sort_keys=True),
        "seed": seed,
        "formulation": name,
        "status": status,
        "objective": obj,
        "bound": bound,
        "gap": abs(obj - bound) / max(1.0, abs(obj)) if both else math.nan,
        "runtime_s": runtime,
        "proven": status == "optimal",
        "start_objective": start_obj,
        "start_s": start_s,
        "time_limit_s": time_limit,
        "threads": threads,
        "loadavg": os.getloadavg()[0],
    }


def _agree(rows: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """Raise if ``new`` proves an optimum another formulation's row contradicts."""
    if not new["proven"]:
        return
    for r in rows:
        same = all(r[k] == new[k] for k in ("paper", "size_json", "seed"))
        if same and r["proven"] and r["formulation"] != new["formulation"]:
            if not math.isclose(r["objective"], new["objective"], rel_tol=1e-6):
                raise RuntimeError(
                    f"{new['paper']} {new['size']} seed {new['seed']}: proven optima "
                    f"differ: {r['formulation']} {r['objective']!r}, "
                    f"{new['formulation']} {new['objective']!r}"
                )


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    write_atomic(path.parent, {path.name: lambda tmp: df.to_csv(tmp, index=False)})


def run(
    papers: Sequence[str],
    *,
    out: Path,
    steps: int | None = None,
    seeds: Sequence[int] = SEEDS,
    time_limit: float = LIMIT_S,
    names: Sequence[str] | None = None,
    threads: int | None = 1,
    resume: bool = False,
    hard_limit: float | None = None,
) -> pd.DataFrame:
    """Climb the ladders of ``papers``; the CSV at ``out`` is rewritten after each row.

    ``steps`` keeps each ladder's first sizes, ``names`` the formulations of
    those names; with ``resume`` the rows already in ``out`` are kept and
    their ``(paper, size, seed, formulation)`` skipped; ``hard_limit``: see
    :func:`solve_row`.
    """
    rows: list[dict[str, Any]] = []
    if resume and out.exists():
        rows = [
            {str(k): v for k, v in r.items()}
            for r in pd.read_csv(out).to_dict("records")
        ]
    done = {tuple(r[k] for k in KEY) for r in rows}
    for key in papers:
        forms = {
            n: f for n, f in formulations(key).items() if names is None or n in names
        }
        for step, size in enumerate(LADDERS[key][:steps]):
            for seed in seeds:
                for name, solve in forms.items():
                    if (key, json.dumps(size, sort_keys=True), seed, name) in done:
                        continue
                    row = solve_row(
                        key, step, seed, name, solve, time_limit, threads, hard_limit
                    )
                    _agree(rows, row)
                    rows.append(row)
                    _write_csv(pd.DataFrame(rows, columns=COLUMNS), out)
                    print(
                        f"{key:9s} {row['size']:28s} seed {seed} {name}: "
                        f"{row['status']} {row['runtime_s']:.1f} s gap {row['gap']:.2g}",
                        flush=True,
                    )
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per paper x size x formulation: proven / seeds, median s proven, max gap unproven."""
    g = df.assign(
        proven_s=df["runtime_s"].where(df["proven"]),
        open_gap=df["gap"].where(~df["proven"].astype(bool)),
    ).groupby(["paper", "step", "size", "formulation"], sort=False)
    out = g.agg(
        n_proven=("proven", "sum"),
        seeds=("seed", "size"),
        median_proven_s=("proven_s", "median"),
        max_open_gap=("open_gap", "max"),
    ).reset_index()
    out.insert(
        4, "proven", out["n_proven"].astype(str) + "/" + out["seeds"].astype(str)
    )
    return out.drop(columns=["n_proven", "seeds"])


def plot(df: pd.DataFrame, path: Path) -> None:
    """Time to proof per ladder step, one panel per paper (log scale), to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    papers = list(dict.fromkeys(df["paper"]))
    if not papers:
        raise ValueError("no rows to plot")
    fig, axes = plt.subplots(
        1, len(papers), figsize=(3.3 * len(papers), 3.6), squeeze=False
    )
    names = list(dict.fromkeys(df["formulation"]))
    for ax, key in zip(axes[0], papers, strict=True):
        d = df[df["paper"] == key]
        for i, name in enumerate(names):
            f = d[d["formulation"] == name]
            dx = 0.12 * (i - (len(names) - 1) / 2)
            pr, op = f[f["proven"].astype(bool)], f[~f["proven"].astype(bool)]
            ax.scatter(
                pr["step"] + dx, pr["runtime_s"], color=f"C{i}", s=18, label=name
            )
            ax.scatter(
                op["step"] + dx, op["time_limit_s"], facecolors="none",
                edgecolors=f"C{i}", s=30,
            )  # fmt: skip
            for _, r in op.iterrows():
                text = "no inc." if math.isnan(r["gap"]) else f"{100 * r['gap']:.2g}%"
                ax.annotate(
                    text, (r["step"] + dx, r["time_limit_s"]), fontsize=6,
                    xytext=(3, 3 + 6 * (int(r["seed"]) % 3)), textcoords="offset points",
                )  # fmt: skip
            med = pr.groupby("step")["runtime_s"].median()
            ax.plot(med.index + dx, med.values, color=f"C{i}", lw=0.8)
        ticks = d.drop_duplicates("step").sort_values("step")
        ax.set_xticks(ticks["step"], [LABELS[key].format(**json.loads(s))
                                      for s in ticks["size_json"]], fontsize=7)  # fmt: skip
        ax.set_yscale("log")
        limit = d["time_limit_s"].max()
        ax.axhline(limit, color="0.6", ls="--", lw=0.8)
        ax.set_xlim(ticks["step"].min() - 0.5, ticks["step"].max() + 0.7)
        low = min(0.1, 0.5 * d["runtime_s"].min())
        ax.set_ylim(low, 3 * limit)
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set(title=key, ylabel="time to proof (s)" if ax is axes[0][0] else None)
    axes[0][0].legend(fontsize=7, title="filled: proven", title_fontsize=7)
    fig.tight_layout()
    write_atomic(
        path.parent, {path.name: lambda tmp: fig.savefig(tmp, format="png", dpi=100)}
    )
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> pd.DataFrame:
    """The command line (module docstring); returns every row of the CSV."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", nargs="+", choices=list(LADDERS), default=list(LADDERS))
    ap.add_argument("--seeds", nargs="+", type=int)
    ap.add_argument("--time-limit", type=float)
    ap.add_argument("--steps", type=int, help="keep each ladder's first STEPS sizes")
    ap.add_argument("--formulations", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--hard-limit", type=float,
                    help="kill a solve still running after this many seconds")  # fmt: skip
    a = ap.parse_args(argv)
    base = {"steps": None, "seeds": list(SEEDS), "time_limit": LIMIT_S}
    for k, v in (QUICK if a.quick else base).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    out = a.out or (OUT / "frontier_quick.csv" if a.quick else CSV)
    png = a.plot or (OUT / "frontier_quick.png" if a.quick else PNG)
    print(f"frontier{' (QUICK)' if a.quick else ''}: {', '.join(a.papers)} -> {out}")
    df = run(
        a.papers, out=out, steps=a.steps, seeds=a.seeds, time_limit=a.time_limit,
        names=a.formulations, threads=a.threads, resume=a.resume,
        hard_limit=a.hard_limit,
    )  # fmt: skip
    if df.empty:
        raise SystemExit("no rows: check --papers / --formulations")
    _write_csv(df, out)
    plot(df, png)
    print_table(summary(df))
    return df


if __name__ == "__main__":
    main()
