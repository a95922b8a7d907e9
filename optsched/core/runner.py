"""The one runner of the experiment layer: spec -> rows, plot, claims, files.

:func:`run` expands a spec's grid (:meth:`~optsched.core.spec.Experiment.tasks`),
maps the task function over it with :func:`optsched.core.sweep.map` (local
processes or Dask, identical rows), builds the tidy table (:func:`table`),
draws the plot, evaluates the claims (:func:`evaluate_claims`), writes
``<name>.csv``, ``<name>.png`` and ``<name>.claims.csv`` atomically
(:func:`optsched.core.base.write_atomic`) and prints the claims table.
Checking every schedule with the paper's checker is the task function's
job.

Several figures plot other columns of the same runs (edge-cloud Figs. 7
and 9 run the same task on the same grid; Figs. 7 and 8 share the grid
point of 300 jobs on 100 servers).  A :class:`TaskCache` passed to every
:func:`run` of a session (``shared=``) computes each distinct task once and
hands its rows to every spec that lists it; each figure's CSV is the one a
run of its own grid gives.
"""

from __future__ import annotations

import datetime as _dt
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import sweep
from .base import write_atomic
from .spec import CLAIM_COLUMNS, Experiment, ExperimentResult, read_rows


class TaskCache:
    """Task results of one session, shared between specs (``run(..., shared=)``).

    Keyed by the task function (module and qualified name) and the task's
    items in sorted key order, each value by its ``repr``: two specs that
    list the same task (same function, equal values, any key order) share
    one computation.  A task function's rows must depend on the task's
    values only, as :func:`run` requires anyway (the same seed gives the
    same table).  Without a cache every run computes its own grid.
    """

    def __init__(self) -> None:
        self._results: dict[tuple, Any] = {}
        #: Tasks computed and tasks served from the cache, over the session.
        self.computed = 0
        self.reused = 0

    @staticmethod
    def key(task_fn: Callable[..., Any], task: Mapping[str, Any]) -> tuple:
        """The cache key of ``task_fn(task)``."""
        items = tuple(sorted((str(k), repr(v)) for k, v in task.items()))
        return (task_fn.__module__, task_fn.__qualname__, items)

    def __len__(self) -> int:
        return len(self._results)

    def map(
        self,
        task_fn: Callable[[dict[str, Any]], Any],
        tasks: Sequence[dict[str, Any]],
        **map_kw: Any,
    ) -> list[Any]:
        """``sweep.map(task_fn, tasks, **map_kw)``, computing only the tasks not cached."""
        keys = [self.key(task_fn, t) for t in tasks]
        todo: dict[tuple, dict[str, Any]] = {}
        for k, t in zip(keys, tasks, strict=True):
            if k not in self._results and k not in todo:
                todo[k] = t
        if todo:
            got = sweep.map(task_fn, list(todo.values()), **map_kw)
            self._results.update(zip(todo, got, strict=True))
        self.computed += len(todo)
        self.reused += len(keys) - len(todo)
        return [self._results[k] for k in keys]


def _flatten(results: Iterable[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for r in results:
        if isinstance(r, Mapping):
            rows.append(dict(r))
        else:
            rows.extend(dict(x) for x in r)
    return rows


def table(spec: Experiment, results: Iterable[Any]) -> pd.DataFrame:
    """The tidy table of a run from the task results (in task order)."""
    rows = _flatten(results)
    df = pd.DataFrame(rows, columns=list(spec.columns) if spec.columns else None)
    if spec.post is not None:
        df = spec.post(df)
    if spec.sort:
        df = df.sort_values(list(spec.sort), kind="stable").reset_index(drop=True)
    return df


def command(spec: Experiment, quick: bool = False) -> str:
    """The CLI command that reproduces ``spec``."""
    return f"optsched figure run {spec.name}" + (" --quick" if quick else "")


def evaluate_claims(
    spec: Experiment, df: pd.DataFrame, *, quick: bool, how: str | None = None
) -> pd.DataFrame:
    """The claims table of a run (columns :data:`~optsched.core.spec.CLAIM_COLUMNS`);
    ``how`` is the command recorded (default :func:`command`)."""
    today = _dt.date.today().isoformat()
    rows = [
        {
            "figure": spec.name,
            "paper_key": spec.paper,
            "ref": spec.ref,
            "claim": c.text,
            "paper": c.paper,
            "status": "",
            "mode": "quick" if quick else "full",
            "command": how or command(spec, quick),
            "date": today,
            **c.evaluate(df),
        }
        for c in spec.claims
    ]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def run(
    spec: Experiment,
    *,
    quick: bool = False,
    out: Path | str | None = None,
    workers: int | None = 1,
    scheduler: Any = None,
    progress: bool = True,
    echo: bool = True,
    results: Sequence[Any] | None = None,
    how: str | None = None,
    shared: TaskCache | None = None,
) -> ExperimentResult:
    """Run one experiment and write its CSV, PNG and claims CSV.

    Parameters
    ----------
    spec
        The experiment.
    quick
        Use the ``quick`` grid (smoke-test sizes).
    out
        Output folder (default ``paper_figures/out/<paper>`` under the
        current directory).
    workers
        ``1`` = in this process (default, works in a plain script); ``N > 1``
        or ``None`` (one per CPU) = a pool of spawned processes, which needs
        the ``if __name__ == "__main__":`` guard in scripts.
    scheduler
        A Dask client or scheduler address: run on that cluster instead
        (:func:`optsched.core.sweep.map`).
    progress
        tqdm bar.
    echo
        Print the claims table (and the spec's summary).
    results
        The task results, one per task of the grid in order, when they were
        computed elsewhere with the same parameters (e.g. the saved searches
        of ``benchmarks/worst_case_bench.py``): the grid is not run again;
        table, plot and claims are built from them as from a run.
    how
        The command that produced ``results`` (recorded in the claims).
    shared
        A :class:`TaskCache` shared by the runs of one session: tasks
        another spec already ran are not run again.
    """
    out_dir = (
        Path(out) if out is not None else Path("paper_figures") / "out" / spec.paper
    )
    tasks = spec.tasks(quick)
    if results is None:
        map_kw = {"workers": workers, "scheduler": scheduler, "progress": progress}
        if shared is None:
            results = sweep.map(spec.task, tasks, desc=spec.name, **map_kw)
        else:
            results = shared.map(spec.task, tasks, desc=spec.name, **map_kw)
    elif len(results) != len(tasks):
        raise ValueError(f"{spec.name}: {len(results)} results for {len(tasks)} tasks")
    df = table(spec, results)
    fig = spec.plot(df)
    # claims see the rows as the CSV keeps them (the form a recorded run's
    # rows are read back in), so a recorded verdict can be re-derived
    claims = evaluate_claims(
        spec, read_rows(io.StringIO(df.to_csv(index=False))), quick=quick, how=how
    )
    paths = write_atomic(
        out_dir,
        {
            f"{spec.name}.csv": lambda p: df.to_csv(p, index=False),
            f"{spec.name}.png": lambda p: fig.savefig(p, format="png", dpi=150),
            f"{spec.name}.claims.csv": lambda p: claims.to_csv(p, index=False),
        },
    )
    if echo:
        _echo(spec, quick, len(tasks), df, claims, out_dir)
    return ExperimentResult(spec, df, claims, fig, paths)


def _echo(
    spec: Experiment,
    quick: bool,
    n_tasks: int,
    df: pd.DataFrame,
    claims: pd.DataFrame,
    out_dir: Path,
) -> None:
    """Print the run's header line, its claims table and the spec's summary."""
    mode = "quick" if quick else "full"
    print(
        f"== {spec.name} ({spec.paper}, {spec.ref}; {mode}, {n_tasks} tasks, "
        f"{len(df)} rows) -> {out_dir}"
    )
    if len(claims):
        with pd.option_context("display.width", 200, "display.max_colwidth", 80):
            print(claims[["claim", "paper", "ours", "status"]].to_string(index=False))
    if spec.summary is not None:
        with pd.option_context("display.width", 200, "display.precision", 4):
            print(spec.summary(df).to_string())
