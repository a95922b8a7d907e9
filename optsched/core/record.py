"""Recorded full runs you can audit: rows, claims, provenance, freshness.

``optsched figure run NAME --record`` keeps, in ``paper_figures/claims/<key>/``:

* ``<name>.claims.csv`` -- the claims table (:func:`optsched.core.report.record_claims`);
* ``<name>.rows.csv.gz`` -- the run's tidy rows, gzip-compressed with a
  fixed header time (the bytes depend on the rows only);
* ``<name>.record.json`` -- provenance: commit, date, the machine's load
  average and CPU count, the number of rows and the compressed size, and
  the :func:`code_digest` of the code that produced the rows, and the
  hash of each file the digest covers (:func:`code_hashes`).

:func:`rederive` evaluates a spec's claims on the recorded rows (no
recomputation of the experiment), so a test can check that every recorded
claim follows from its rows; :func:`is_stale` compares the recorded code
digest with the current one: a recorded claim is ``stale`` when the
figure's spec or task code, its slice (``optsched/<key>``, ``models/<key>*``)
or the core code that computes rows and verdicts changed since the
recording.  Comments, docstrings and formatting do not count (the digest is
taken over the syntax trees without docstrings).  :func:`stale_files` names
the files whose code changed since the recording (records written before
the per-file hashes were kept cannot say).

:func:`interval_verdicts` tells which verdicts rest on unproven optima: it
evaluates the claims again with every unproven optimum moved to each end of
its certified interval (:func:`interval_ends`); a claim whose status
changes at either end is flagged in the findings table.
"""

from __future__ import annotations

import ast
import datetime as _dt
import functools
import gzip
import hashlib
import importlib
import io
import json
import os
import platform
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from .base import write_atomic
from .spec import Experiment, read_rows

__all__ = [
    "CORE_MODULES",
    "NOT_DIGESTED",
    "record_claims",
    "code_digest",
    "code_hashes",
    "is_stale",
    "stale_files",
    "current_commit",
    "uncommitted_files",
    "run_time",
    "machine_numerics",
    "read_record",
    "record_run",
    "rederive",
    "interval_ends",
    "interval_verdicts",
]

#: Core modules whose code computes a figure's rows or its verdicts (every
#: core module is either here or in :data:`NOT_DIGESTED`; a test keeps the two
#: complete).
CORE_MODULES = (
    "adversary",
    "base",
    "confirm",
    "horizon",
    "local_search",
    "mutate",
    "optima",
    "params",
    "ratio",
    "registry",
    "runner",
    "solver",
    "spec",
    "trace",
    "validate",
    "worst_case_spec",
)

#: Core modules that compute no row and no verdict: plotting, reports, the
#: records themselves, discovery, the parallel map, types and errors.
NOT_DIGESTED = (
    "__init__",
    "discovery",
    "errors",
    "experiment",
    "plots",
    "protocols",
    "record",
    "report",
    "search_plots",
    "sweep",
    "verify",
)


def _tree_text(path: Path) -> str:
    """The syntax tree of a Python file without docstrings, as text.

    Memoised per file, size and modification time (:func:`_parsed_tree`):
    the digests of every spec share the slice and core files, and the docs
    build digests all of them.
    """
    st = path.stat()
    return _parsed_tree(str(path), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=512)
def _parsed_tree(path: str, size: int, mtime_ns: int) -> str:
    """:func:`_tree_text` of ``path`` as of ``size`` and ``mtime_ns`` (cache keys)."""
    tree = ast.parse(Path(path).read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.Pass()
    return ast.dump(tree, annotate_fields=False)


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


def _code_files(spec: Experiment) -> dict[str, Path]:
    """Label -> file of every Python file :func:`code_digest` covers."""
    from .discovery import SPECS_PACKAGE

    files: dict[str, Path] = {}
    try:
        mod = importlib.import_module(f"{SPECS_PACKAGE}.{spec.paper}.{spec.name}")
        if mod.__file__:
            files[f"spec/{spec.name}.py"] = Path(mod.__file__)
            for name, path in _figure_imports(Path(mod.__file__)).items():
                files[f"spec/{name}"] = path
    except ImportError:  # a spec built elsewhere (tests): its task code counts
        pass
    task_mod = importlib.import_module(spec.task.__module__)
    if task_mod.__file__:
        files[f"task/{spec.task.__module__}"] = Path(task_mod.__file__)
    slice_pkg = importlib.import_module(f"optsched.{spec.paper}")
    for root in slice_pkg.__path__:
        for f in sorted(Path(root).rglob("*.py")):
            files[f"slice/{f.relative_to(root)}"] = f
    models = importlib.import_module("optsched.models")
    for root in models.__path__:
        for f in sorted(Path(root).glob(f"{spec.paper}*.py")):
            files[f"models/{f.name}"] = f
    here = Path(__file__).parent
    for name in CORE_MODULES:
        files[f"core/{name}.py"] = here / f"{name}.py"
    return files


def _figure_imports(path: Path, seen: frozenset[Path] = frozenset()) -> dict[str, Path]:
    """The figure modules (``optsched.figures.*``) a spec module imports, transitively.

    A spec built on another (a variant figure on its base figure's grid, a
    shared reading) depends on that module's code too.
    """
    from .discovery import SPECS_PACKAGE

    found: dict[str, Path] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if not name.startswith(SPECS_PACKAGE + "."):
                continue
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            if mod.__file__ and Path(mod.__file__) not in seen | {path}:
                f = Path(mod.__file__)
                found[name.removeprefix(SPECS_PACKAGE + ".") + ".py"] = f
                found.update(_figure_imports(f, seen | {path, f}))
    return found


def code_digest(spec: Experiment) -> str:
    """SHA-256 (first 16 hex digits) of the code that produces ``spec``'s rows and verdicts.

    Covers the spec's module and the figure modules it imports
    (:func:`_figure_imports`), its task's module, every module of its slice,
    the slice's models and :data:`CORE_MODULES`, each as a syntax tree
    without docstrings (a comment or docstring edit keeps the digest).
    """
    h = hashlib.sha256()
    for label, path in sorted(_code_files(spec).items()):
        h.update(label.encode() + b"\0" + _tree_text(path).encode() + b"\0")
    return h.hexdigest()[:16]


def code_hashes(spec: Experiment) -> dict[str, str]:
    """Label -> SHA-256 (first 16 hex digits) of each file :func:`code_digest` covers.

    The same syntax trees as the digest, one hash per file, so that a stale
    record can say which files changed (:func:`stale_files`).
    """
    return {
        label: hashlib.sha256(_tree_text(path).encode()).hexdigest()[:16]
        for label, path in sorted(_code_files(spec).items())
    }


def current_commit() -> str:
    """The short commit of this package's working tree (``+dirty`` when it has
    changes), or ``""``; read where the package lives, whatever the caller's
    directory."""
    here = str(Path(__file__).resolve().parent)
    try:
        head = subprocess.run(
            ["git", "-C", here, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+dirty" if dirty else "")


def uncommitted_files(spec: Experiment) -> list[str] | None:
    """Labels of the files :func:`code_digest` covers that differ from git's ``HEAD``.

    Modified, staged or untracked covered files, sorted; ``[]`` when the
    code of ``spec`` is exactly a commit's; None when git cannot tell (no
    git, or the code is not in a repository).  A record written with a
    non-empty list cannot be reproduced from any commit.
    """
    files = _code_files(spec)
    by_path = {p.resolve(): label for label, p in files.items()}
    roots = {p.resolve().parent for p in files.values()}
    dirty: set[str] = set()
    try:
        for root in sorted(roots):
            top = subprocess.run(
                ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                capture_output=True, text=True, check=True, timeout=10,
            ).stdout.strip()  # fmt: skip
            out = subprocess.run(
                ["git", "-C", top, "status", "--porcelain", "--untracked-files=all",
                 "--", str(root)],
                capture_output=True, text=True, check=True, timeout=10,
            ).stdout  # fmt: skip
            for line in out.splitlines():
                path = (Path(top) / line[3:].split(" -> ")[-1]).resolve()
                if path in by_path:
                    dirty.add(by_path[path])
    except (OSError, subprocess.SubprocessError):
        return None
    return sorted(dirty)


def _gzip_csv(df: pd.DataFrame) -> bytes:
    """``df`` as CSV, gzip-compressed with header time 0 (reproducible bytes)."""
    raw = df.to_csv(index=False).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buf.getvalue()


def record_run(
    spec: Experiment,
    rows: pd.DataFrame,
    claims: pd.DataFrame,
    folder: Path | str,
    *,
    n_tasks: int | None = None,
    code: str | None = None,
    files: dict[str, str] | None = None,
    wall_s: float | None = None,
    uncommitted: list[str] | None = None,
    commit: str | None = None,
) -> dict[str, Any]:
    """Keep a full run's claims, rows and provenance in ``folder``.

    The claims file follows :func:`record_claims`
    (untouched when only the date changed); the rows and the record are
    always written (atomically, all or none).  ``code`` and ``files`` are the
    :func:`code_digest` and :func:`code_hashes` taken when the run started
    (default: now); when the code changed during the run, the start's are
    kept, so the record reads ``stale`` (a warning says so).  A ``code``
    given without its ``files`` keeps no per-file hashes (``code_files`` is
    None: hashes taken now could disagree with that digest).  ``wall_s`` is
    the run's wall-clock time in seconds (None: not measured), kept so that a
    reader knows what a re-run costs.  ``uncommitted`` lists the covered
    files that differed from git's ``HEAD`` when the run started
    (:func:`uncommitted_files`; default: now); a non-empty list is kept in
    the record and warned about: such rows cannot be reproduced from any
    commit.  ``commit`` is the checkout the run started from (default: now;
    commits made during a long run would otherwise be named instead).
    The record also keeps the numerical environment
    (:func:`machine_numerics`: numpy's CPU kernels, package versions).
    Returns the record.
    """
    folder = Path(folder)
    now = code_digest(spec)
    if code is not None and code != now:
        warnings.warn(
            f"{spec.name}: the code changed during the run; recorded with the "
            "digest of the code it started with (stale in the report)",
            stacklevel=2,
        )
    if uncommitted is None:
        uncommitted = uncommitted_files(spec)
    if uncommitted:
        shown = ", ".join(uncommitted[:3]) + (" ..." if len(uncommitted) > 3 else "")
        warnings.warn(
            f"{spec.name}: recorded from uncommitted code ({shown}); commit first "
            "so that the rows can be reproduced from git",
            stacklevel=2,
        )
    if files is not None:
        kept_files: dict[str, str] | None = dict(files)
    else:  # hashes taken now could disagree with a digest taken before
        kept_files = code_hashes(spec) if code is None else None
    blob = _gzip_csv(rows)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    record = {
        "figure": spec.name,
        "paper": spec.paper,
        "commit": current_commit() if commit is None else commit,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load_1_5_15": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "tasks": n_tasks,
        "rows": len(rows),
        "rows_file": f"{spec.name}.rows.csv.gz",
        "rows_bytes": len(blob),
        "code": now if code is None else code,
        "code_files": kept_files,
        "wall_s": None if wall_s is None else round(float(wall_s), 1),
        "uncommitted": None if uncommitted is None else list(uncommitted),
        **machine_numerics(),
    }
    text = json.dumps(record, indent=1) + "\n"
    write_atomic(
        folder,
        {
            f"{spec.name}.rows.csv.gz": lambda p: Path(p).write_bytes(blob),
            f"{spec.name}.record.json": lambda p: Path(p).write_text(text),
        },
    )
    record_claims(claims, folder, spec.name)
    return record


#: Packages whose versions a record keeps (the numbers a run computes depend on them).
NUMERIC_PACKAGES = ("numpy", "scipy", "pandas", "highspy", "pyomo", "numba")


def machine_numerics() -> dict[str, Any]:
    """The numerical environment of this process, as a record keeps it.

    ``simd``: the CPU instruction sets numpy's kernels use here (its baseline
    and the dispatch targets it found, after ``NPY_DISABLE_CPU_FEATURES``):
    transcendental functions such as ``np.exp`` and ``np.log`` differ in the
    last bit between them (e.g. ``X86_V4``, AVX-512, against ``X86_V3``,
    AVX2), which can flip an algorithm's decision on a near tie (docs:
    paper_figures/README.md, "Auditing a record").  ``packages``: the
    versions of :data:`NUMERIC_PACKAGES` (None when one is not installed).
    """
    import importlib.metadata as md

    import numpy as np

    try:
        ext = np.show_config(mode="dicts")["SIMD Extensions"]
        simd = [*ext.get("baseline", []), *ext.get("found", [])]
    except Exception:  # pragma: no cover - another numpy's layout
        simd = []
    versions: dict[str, str | None] = {}
    for name in NUMERIC_PACKAGES:
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    return {"simd": simd, "packages": versions}


def run_time(record: dict[str, Any]) -> str:
    """The recorded run's wall-clock time as text (``45 min``, ``7 s``); empty when not kept."""
    wall = record.get("wall_s")
    if not isinstance(wall, int | float) or isinstance(wall, bool):
        return ""
    return f"{wall:.0f} s" if wall < 120 else f"{wall / 60:.0f} min"


def read_record(folder: Path | str, name: str) -> dict[str, Any] | None:
    """The record of figure ``name`` in ``folder``, or None when none is kept."""
    path = Path(folder) / f"{name}.record.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def is_stale(spec: Experiment, record: dict[str, Any] | None) -> bool:
    """Whether a recording (``record``; None: recorded without one) predates the current code."""
    return record is None or record.get("code") != code_digest(spec)


def stale_files(spec: Experiment, record: dict[str, Any]) -> list[str] | None:
    """The files (labels of :func:`code_hashes`) whose code changed since ``record``.

    Changed, added and removed files, sorted; ``[]`` when none did (the
    record is fresh).  None when the record keeps no per-file hashes (it
    was written before they were kept): then only :func:`is_stale` can tell.
    """
    then = record.get("code_files")
    if not isinstance(then, dict):
        return None
    now = code_hashes(spec)
    return sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))


def rederive(spec: Experiment, folder: Path | str) -> pd.DataFrame:
    """The claims table (claim, paper, ours, status, note) re-derived from the recorded rows.

    Reads ``<name>.rows.csv.gz`` as a run's claims see their rows
    (:func:`~optsched.core.spec.read_rows`) and evaluates ``spec.claims``
    with their own functions; nothing of the experiment is recomputed.
    """
    rows = read_rows(Path(folder) / f"{spec.name}.rows.csv.gz")
    out = [
        {"claim": c.text, "paper": str(c.paper), **c.evaluate(rows)}
        for c in spec.claims
    ]
    return pd.DataFrame(out, columns=["claim", "paper", "ours", "status", "note"])


def interval_ends(rows: pd.DataFrame) -> dict[str, pd.DataFrame] | None:
    """The rows with every unproven optimum at one end of its certified interval.

    A row's optimum is unproven when its ``opt_status`` is not ``optimal``
    but it has an incumbent (``opt_objective``); the true optimum lies
    between the incumbent and ``opt_bound``, and its ratio between
    ``ratio_lo`` (optimum = incumbent) and ``ratio_hi`` (optimum = bound),
    in either sense (:func:`optsched.core.ratio.ratio_bounds`).  Returns
    ``{"incumbent": rows, "bound": rows}`` with, on the unproven rows only,
    ``ratio``, ``ratio_lo`` and ``ratio_hi`` all set to the ratio at that end
    and (at ``"bound"``) ``opt_objective`` set to ``opt_bound``; every other
    column, ``opt_status`` included, is unchanged.  None when the rows carry
    no ``opt_status`` or every optimum is proven.  Columns a task derived
    from the optimum (e.g. a normalised value) are not moved.
    """
    if "opt_status" not in rows.columns or "opt_objective" not in rows.columns:
        return None
    unproven = (
        rows["opt_status"].notna()
        & (rows["opt_status"] != "optimal")
        & pd.to_numeric(rows["opt_objective"], errors="coerce").notna()
    )
    if not unproven.any():
        return None
    ends = {}
    for end, col in (("incumbent", "ratio_lo"), ("bound", "ratio_hi")):
        moved = rows.copy()
        if col in moved.columns:
            value = moved.loc[unproven, col]
            for c in ("ratio", "ratio_lo", "ratio_hi"):
                moved.loc[unproven, c] = value
        if end == "bound" and "opt_bound" in moved.columns:
            moved.loc[unproven, "opt_objective"] = moved.loc[unproven, "opt_bound"]
        ends[end] = moved
    return ends


def interval_verdicts(spec: Experiment, folder: Path | str) -> pd.DataFrame | None:
    """Each claim's status on the recorded rows and at both interval ends.

    Columns ``claim``, ``status`` (on the rows as recorded), ``at_incumbent``
    and ``at_bound`` (:func:`interval_ends`) and ``rests`` (True when either
    end gives another status: the verdict rests on unproven optima).  None
    when the record has no rows file or its rows have no unproven optimum.
    """
    path = Path(folder) / f"{spec.name}.rows.csv.gz"
    if not path.is_file():
        return None
    rows = read_rows(path)
    ends = interval_ends(rows)
    if ends is None:
        return None
    out: list[dict[str, Any]] = []
    for c in spec.claims:
        got: dict[str, Any] = {
            "claim": c.text,
            "status": c.evaluate(rows)["status"],
            "at_incumbent": c.evaluate(ends["incumbent"])["status"],
            "at_bound": c.evaluate(ends["bound"])["status"],
        }
        got["rests"] = got["status"] != got["at_incumbent"] or (
            got["status"] != got["at_bound"]
        )
        out.append(got)
    return pd.DataFrame(
        out, columns=["claim", "status", "at_incumbent", "at_bound", "rests"]
    )
