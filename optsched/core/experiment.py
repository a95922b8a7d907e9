"""The experiment layer: declarative figure specs and the one runner.

A reproduced figure or table is an :class:`Experiment`: a name, the paper's
key and figure reference, a parameter grid (and a ``quick`` grid), an
importable task function ``task dict -> row dict(s)`` from the slice's
``experiments`` module, a plot (a kind of :mod:`optsched.core.plots` or a
small function ``df -> Figure``) and the paper's claims as data
(:class:`Claim`).  Specs live in ``paper_figures/<key>/<name>.py`` as a
module-level ``SPEC``; the package installs them as
``optsched.figures.<key>.<name>`` so that they are imported, never loaded by
path.

:func:`run` expands the grid (:func:`expand`), maps the task function over
it with :func:`optsched.core.sweep.map` (local processes or Dask, identical
rows), builds the tidy table, draws the plot, evaluates the claims, writes
``<name>.csv``, ``<name>.png`` and ``<name>.claims.csv`` atomically and
prints the claims table (claim, paper, ours).  Checking every schedule with
the paper's checker is the task function's job; offline optima come from
:func:`optimum`, solved once per instance with the certified status carried
into the rows by :func:`optimum_columns`.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import errno
import hashlib
import importlib
import io
import itertools
import math
import os
import pkgutil
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from . import horizon, sweep
from .ratio import ratio_columns
from .registry import OfflineResult, get_paper

Grid = Mapping[str, Any] | Sequence[Mapping[str, Any]]
#: Package under which the figure specs are installed (``paper_figures/``).
SPECS_PACKAGE = "optsched.figures"
#: Wall-time columns (``*runtime_s``, ``*time_s``): the only columns of a
#: figure's CSV that may differ between two runs with the same seeds.
VOLATILE = re.compile(r"(runtime|time)_s$")
CLAIM_COLUMNS = [
    "figure",
    "paper_key",
    "ref",
    "claim",
    "paper",
    "ours",
    "status",
    "mode",
    "command",
    "date",
]


@dataclass(frozen=True)
class Claim:
    """One claim of the paper, as data.

    Attributes
    ----------
    text
        The claim in a few words (quote the paper where possible).
    paper
        The paper's value: a number or a short text (e.g. ``"1.1-1.5"``).
    ours
        ``ours(df) -> value``: our value computed from the tidy rows only.
    holds
        Optional verdict ``holds(ours) -> bool``; the status column reads
        ``reproduced`` / ``not reproduced``, or ``see notes`` without it.
    fmt
        Format of a numeric ``ours`` (``str.format`` spec).
    """

    text: str
    paper: Any
    ours: Callable[[pd.DataFrame], Any]
    holds: Callable[[Any], bool] | None = None
    fmt: str = "{:.4g}"

    def evaluate(self, df: pd.DataFrame) -> dict[str, str]:
        """Our value (formatted) and the status for the tidy rows ``df``."""
        try:
            value = self.ours(df)
        except (KeyError, ValueError, IndexError, ZeroDivisionError) as exc:
            return {"ours": f"n/a ({type(exc).__name__}: {exc})", "status": "error"}
        if isinstance(value, float | int) and not isinstance(value, bool):
            text = self.fmt.format(value)
        else:
            text = str(value)
        if self.holds is None:
            status = "see notes"
        else:
            status = "reproduced" if self.holds(value) else "not reproduced"
        return {"ours": text, "status": status}


# Claim values: print as the 'ours' column, judge in ``holds``.
@dataclass(frozen=True)
class Span:
    """A claim value: a range of our values, printed ``lo..hi`` with ``fmt``."""

    lo: float
    hi: float
    fmt: str = "{:.2%}"

    def __str__(self) -> str:
        return f"{self.fmt.format(self.lo)}..{self.fmt.format(self.hi)}"

    def within(self, bounds: tuple[float, float]) -> bool:
        """Whether the whole range lies inside ``bounds``."""
        return bounds[0] <= self.lo and self.hi <= bounds[1]


@dataclass(frozen=True)
class Cells:
    """A claim value: ours per case (e.g. per ``K``), printed ``a / b``; None: not run."""

    values: tuple[float | None, ...]
    fmt: str = "{:.4f}"

    def __str__(self) -> str:
        return " / ".join(
            "not run" if v is None else self.fmt.format(v) for v in self.values
        )

    def at_most(self, bounds: Sequence[float], atol: float = 1e-6) -> bool:
        """Whether every value that ran is at most its bound (and one ran)."""
        pairs = [
            (v, b) for v, b in zip(self.values, bounds, strict=True) if v is not None
        ]
        return bool(pairs) and all(v <= b + atol for v, b in pairs)


@dataclass(frozen=True)
class Experiment:
    """Declarative spec of one reproduced figure or table.

    Attributes
    ----------
    name
        File stem, e.g. ``"fig5_performance_ratio"``.
    paper
        Registry key of the paper (``"oasis"``).
    ref
        The paper's figure/table and section, e.g. ``"Fig. 5, Sec. V-A"``.
    task
        Importable ``task(dict) -> dict | list[dict]`` (one task -> rows).
    grid, quick
        Parameter grids of the full and the smoke-test run (see :func:`expand`).
    plot
        ``plot(df) -> matplotlib.figure.Figure``.
    claims
        The paper's claims, evaluated on the rows.
    columns
        Column order of the CSV (default: the order the rows give).
    sort
        Columns to sort the rows by (stable) before writing.
    post
        ``post(df) -> df`` applied to the whole table before writing
        (derived columns that need every row, e.g. normalising by a reference).
    summary
        ``summary(df) -> DataFrame`` printed after the claims table.
    volatile
        Columns, besides the wall-time columns matched by :data:`VOLATILE`,
        that depend on the machine or the clock (e.g. a load average or a
        note quoting a time estimate); excluded from determinism checks.
    doc
        The spec's docstring (the paper's claim and our readings).
    """

    name: str
    paper: str
    ref: str
    task: Callable[[dict[str, Any]], Any]
    grid: Grid
    quick: Grid
    plot: Callable[[pd.DataFrame], Figure]
    claims: Sequence[Claim] = ()
    columns: Sequence[str] | None = None
    sort: Sequence[str] | None = None
    post: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    summary: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    volatile: Sequence[str] = ()
    doc: str = field(default="", repr=False)

    def tasks(self, quick: bool = False) -> list[dict[str, Any]]:
        """The expanded grid (full or quick)."""
        return expand(self.quick if quick else self.grid)


@dataclass(frozen=True)
class ExperimentResult:
    """What :func:`run` produced: the rows, the claims table and the figure."""

    spec: Experiment
    rows: pd.DataFrame
    claims: pd.DataFrame
    figure: Figure
    paths: dict[str, Path]


# ------------------------------------------------------------------ grids
def expand(grid: Grid) -> list[dict[str, Any]]:
    """Expand a grid into task dicts, in a documented order.

    A grid is a dict or a list of dicts.  In each dict a **list** value is
    swept and any other value (including tuples) is fixed; the tasks are the
    Cartesian product in key order, the last key varying fastest.  A list of
    dicts is the concatenation of their expansions (as scikit-learn's
    ``ParameterGrid``, but keeping key order).
    """
    dicts = [grid] if isinstance(grid, Mapping) else list(grid)
    out: list[dict[str, Any]] = []
    for g in dicts:
        keys = list(g)
        axes = [g[k] if isinstance(g[k], list) else [g[k]] for k in keys]
        out.extend(
            dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes)
        )
    return out


# ---------------------------------------------------------------- optima
_OPTIMA: dict[tuple[str, str, float | None, tuple], OfflineResult] = {}


def until_done(inst: Any, makespan: int) -> Any:
    """``inst`` with ``T = max(T, makespan)`` (the papers' "T large enough").

    A thin alias of the core horizon rule,
    :func:`optsched.core.horizon.extend` (use :func:`optsched.core.horizon.fit`
    with the schedules themselves in new code).
    """
    return horizon.extend(inst, int(makespan))[0]


def optimum(
    paper: str, inst: Any, *, time_limit: float | None, threads: int = 1, **kw: Any
) -> OfflineResult:
    """The paper's offline optimum of ``inst``, solved once per process.

    The result is memoised by (paper, instance JSON, time limit, options),
    so the several schemes or settings of one task that need the same
    instance's optimum share one solve.  The status is the solver's
    certified one (``optimal`` only when proven); the objective is the
    checker's recomputation (``Paper.solve_offline``).
    """
    digest = hashlib.sha256(inst.to_json().encode()).hexdigest()
    key = (paper, digest, time_limit, tuple(sorted(kw.items())))
    if key not in _OPTIMA:
        p = get_paper(paper)
        _OPTIMA[key] = p.solve_offline(
            inst, time_limit=time_limit, threads=threads, **kw
        )
    return _OPTIMA[key]


def optimum_columns(
    opt: OfflineResult, sense: str, alg: float | None = None, **context: Any
) -> dict[str, Any]:
    """Row columns of an optimum (and of ``alg``'s ratio to it, when given).

    ``opt_objective``, ``opt_bound``, ``opt_status``, ``opt_runtime_s``;
    with ``alg`` also ``ratio``, ``ratio_lo``, ``ratio_hi`` and ``kind``
    (:func:`optsched.core.ratio.ratio_columns`, which raises
    :class:`~optsched.core.errors.SolverError` when ``alg`` beats a certified
    value; ``context`` -- ``instance=``, ``algorithm=`` -- names the row in
    that message).
    """
    cols: dict[str, Any] = {
        "opt_objective": opt.objective,
        "opt_bound": opt.bound,
        "opt_status": opt.status,
        "opt_runtime_s": opt.runtime,
    }
    if alg is not None:
        cols.update(
            ratio_columns(sense, alg, opt.objective, opt.bound, opt.status, **context)
        )
    return cols


def stable_columns(df: pd.DataFrame, extra: Sequence[str] = ()) -> list[str]:
    """Columns of ``df`` that must be identical for identical seeds.

    All but the wall-time columns (:data:`VOLATILE`) and ``extra`` (a spec's
    ``volatile``).
    """
    return [c for c in df.columns if not VOLATILE.search(str(c)) and c not in extra]


# ---------------------------------------------------------------- runner
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
    """The claims table of a run (columns :data:`CLAIM_COLUMNS`); ``how`` is
    the command recorded (default :func:`command`)."""
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


def write_atomic(
    out_dir: Path, writers: Mapping[str, Callable[[str], None]]
) -> dict[str, Path]:
    """Write every file of ``writers`` (name -> ``write(tmp_path)``) or none.

    Each file is written to a temporary file in ``out_dir`` first and all are
    renamed into place only after every write succeeded.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    done: list[tuple[str, Path]] = []
    try:
        for fname, write in writers.items():
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{fname}.", suffix=".tmp")
            os.fchmod(fd, default_file_mode())
            os.close(fd)
            done.append((tmp, out_dir / fname))
            write(tmp)
        for tmp, dst in done:
            os.replace(tmp, dst)
    except BaseException:
        for tmp, _ in done:
            Path(tmp).unlink(missing_ok=True)
        raise
    return {dst.name: dst for _, dst in done}


def default_file_mode() -> int:
    """``0o666`` minus the umask: the mode ``open()`` gives a new file.

    ``tempfile.mkstemp`` creates its files ``0o600``; outputs renamed into
    place from it get this mode instead, like any other file the user writes.
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _claims_text(claims: pd.DataFrame) -> pd.DataFrame:
    """``claims`` as read back from its CSV (all strings), without ``date``."""
    back = pd.read_csv(
        io.StringIO(claims.to_csv(index=False)), dtype=str, keep_default_na=False
    )
    return back.drop(columns=["date"], errors="ignore")


def record_claims(claims: pd.DataFrame, folder: Path | str, name: str) -> bool:
    """Keep ``claims`` as ``folder/<name>.claims.csv`` unless only the date changed.

    The recorded claims are committed (``paper_figures/claims``): a re-run
    that reproduces every claim, paper value, status, mode and command leaves
    the file untouched (bytes and mtime), so that ``git status`` shows only
    real changes.  Any other difference, or a missing or unreadable file,
    rewrites it atomically (:func:`write_atomic`).

    Parameters
    ----------
    claims
        A claims table (:data:`CLAIM_COLUMNS`), e.g. ``ExperimentResult.claims``.
    folder
        The claims folder of the paper (``paper_figures/claims/<key>``).
    name
        The figure's name; the file is ``<name>.claims.csv``.

    Returns
    -------
    bool
        True when the file was (re)written, False when it was left as it was.
    """
    path = Path(folder) / f"{name}.claims.csv"
    if path.is_file():
        try:
            old = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (OSError, ValueError):  # unreadable or not a CSV: rewrite it
            old = None
        if old is not None:
            old = old.drop(columns=["date"], errors="ignore")
            if old.equals(_claims_text(claims)):
                return False
    write_atomic(Path(folder), {path.name: lambda f: claims.to_csv(f, index=False)})
    return True


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
    """
    out_dir = (
        Path(out) if out is not None else Path("paper_figures") / "out" / spec.paper
    )
    tasks = spec.tasks(quick)
    if results is None:
        results = sweep.map(
            spec.task,
            tasks,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            desc=spec.name,
        )
    elif len(results) != len(tasks):
        raise ValueError(f"{spec.name}: {len(results)} results for {len(tasks)} tasks")
    df = table(spec, results)
    fig = spec.plot(df)
    claims = evaluate_claims(spec, df, quick=quick, how=how)
    paths = write_atomic(
        out_dir,
        {
            f"{spec.name}.csv": lambda p: df.to_csv(p, index=False),
            f"{spec.name}.png": lambda p: fig.savefig(p, format="png", dpi=150),
            f"{spec.name}.claims.csv": lambda p: claims.to_csv(p, index=False),
        },
    )
    if echo:
        print(
            f"== {spec.name} ({spec.paper}, {spec.ref}; {'quick' if quick else 'full'}, {len(tasks)} tasks, {len(df)} rows) -> {out_dir}"
        )
        if len(claims):
            with pd.option_context("display.width", 200, "display.max_colwidth", 80):
                print(
                    claims[["claim", "paper", "ours", "status"]].to_string(index=False)
                )
        if spec.summary is not None:
            with pd.option_context("display.width", 200, "display.precision", 4):
                print(spec.summary(df).to_string())
    return ExperimentResult(spec, df, claims, fig, paths)


# ------------------------------------------------------------- discovery
def specs() -> dict[str, Experiment]:
    """Every installed figure spec, by name, in (paper, name) order."""
    root = importlib.import_module(SPECS_PACKAGE)
    found: dict[str, Experiment] = {}
    for info in sorted(
        pkgutil.walk_packages(root.__path__, SPECS_PACKAGE + "."), key=lambda i: i.name
    ):
        if info.ispkg:
            continue
        mod = importlib.import_module(info.name)
        spec = getattr(mod, "SPEC", None)
        if isinstance(spec, Experiment):
            if spec.name in found:
                raise ValueError(f"figure name {spec.name!r} is defined twice")
            found[spec.name] = spec
    return dict(sorted(found.items(), key=lambda kv: (kv[1].paper, _natural(kv[0]))))


def _natural(name: str) -> tuple:
    parts = []
    for k, grp in itertools.groupby(name, str.isdigit):
        s = "".join(grp)
        parts.append((0, int(s), "") if k else (1, 0, s))
    return tuple(parts)


def get_spec(name: str) -> Experiment:
    """The spec called ``name`` (also ``key/name``), or the one spec whose name
    starts with ``name``: any unique prefix (``fig5``, ``fig5_perf``, or
    ``edgecloud/fig9`` when several papers have a Fig. 9).  A prefix that
    ends a word (``fig1`` before ``fig1_...``) wins over longer words
    (``fig10_...``).  Raises ``KeyError`` saying ``ambiguous`` with the
    candidates, or ``unknown`` with the closest names."""
    all_specs = specs()
    key, _, name = name.rpartition("/")
    if key:
        all_specs = {n: s for n, s in all_specs.items() if s.paper == key}
    if name in all_specs:
        return all_specs[name]
    for sep in ("_", ""):
        hits = [n for n in all_specs if n.startswith(name + sep)]
        if len(hits) == 1:
            return all_specs[hits[0]]
    label = f"{key}/{name}" if key else name
    if hits:
        raise KeyError(f"figure {label!r}: ambiguous (candidates: {', '.join(hits)})")
    close = difflib.get_close_matches(name, all_specs, n=4, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise KeyError(f"figure {label!r}: unknown ({hint}all: optsched figure list)")


# ---------------------------------------------------------------- report
REPORT_BEGIN = (
    "<!-- figure report: begin (generated by `optsched figure report`; do not edit) -->"
)
REPORT_END = "<!-- figure report: end -->"


def _md(text: Any) -> str:
    s = (
        ""
        if text is None or (isinstance(text, float) and math.isnan(text))
        else str(text)
    )
    return s.replace("|", "\\|").replace("\n", " ")


def report(claims_dir: Path | str, readme: Path | str | None = None) -> str:
    """Markdown findings table from every ``*.claims.csv`` under ``claims_dir``.

    One table per paper: figure, claim, paper value, ours, status, run (mode
    and date) and command.  A spec without a claims file gets one row saying
    that no run is recorded, so the table always lists every figure.  With
    ``readme``, the block between :data:`REPORT_BEGIN` and :data:`REPORT_END`
    in that file is replaced (appended when absent), atomically.  A missing
    ``claims_dir``, or one without any claims file, raises
    ``FileNotFoundError`` naming it (``readme`` is left untouched).
    """
    if not Path(claims_dir).is_dir():
        raise FileNotFoundError(
            errno.ENOENT,
            "no claims folder (run from the repository root, or pass --claims)",
            str(claims_dir),
        )
    files = sorted(Path(claims_dir).rglob("*.claims.csv"))
    if not files:
        raise FileNotFoundError(
            errno.ENOENT, "no *.claims.csv file in the claims folder", str(claims_dir)
        )
    frames = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in files]
    found = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=CLAIM_COLUMNS)
    )
    all_specs = specs()
    missing = [
        {
            "figure": n,
            "paper_key": s.paper,
            "ref": s.ref,
            "claim": "(no recorded run)",
            "paper": "",
            "ours": "",
            "status": "not run",
            "mode": "-",
            "command": command(s),
            "date": "-",
        }
        for n, s in all_specs.items()
        if n not in set(found["figure"])
    ]
    claims = pd.concat(
        [found, pd.DataFrame(missing, columns=CLAIM_COLUMNS)], ignore_index=True
    )
    order = {n: i for i, n in enumerate(all_specs)}
    claims["_o"] = claims["figure"].map(lambda n: order.get(n, len(order)))
    lines = [REPORT_BEGIN]
    for key, part in claims.sort_values(["paper_key", "_o"], kind="stable").groupby(
        "paper_key", sort=False
    ):
        lines += [
            "",
            f"### `{key}`",
            "",
            "| figure | claim | paper | ours | status | run | command |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in part.itertuples(index=False):
            lines.append(
                f"| {_md(r.figure)} ({_md(r.ref)}) | {_md(r.claim)} | {_md(r.paper)} | {_md(r.ours)} "
                f"| {_md(r.status)} | {_md(r.mode)}, {_md(r.date)} | `{_md(r.command)}` |"
            )
    lines += ["", REPORT_END]
    block = "\n".join(lines)
    if readme is not None:
        replace_block(readme, block, REPORT_BEGIN, REPORT_END)
    return block


def replace_block(path: Path | str, block: str, begin: str, end: str) -> None:
    """Put ``block`` (which starts with ``begin`` and ends with ``end``) in
    place of the file's ``begin`` ... ``end`` block (appended when absent),
    atomically: a generated part of a hand-written Markdown file."""
    path = Path(path)
    text = path.read_text() if path.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    write_atomic(path.parent, {path.name: lambda p: Path(p).write_text(text)})
