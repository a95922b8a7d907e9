"""Re-run a recorded figure and compare its rows with the record, row by row.

A record (:mod:`optsched.core.record`) keeps a full run's rows and the
digest of the code that produced them; a fresh digest says the code did
not change, not that the rows come out again.  :func:`verify_figure` runs
the spec's full grid with the current code and :func:`compare_rows` holds
the new rows against the recorded ones, so that anyone can audit a
recorded number (``optsched figure verify NAME``).

How two runs may differ and still agree:

* **Measured times** (:data:`TIMING`: ``*runtime*``, ``*time_ms``,
  ``*time_s``, ``estimate_s``, ``load_avg*``, ``wall_s``) are not
  compared; they are listed.  A measured time written into a text cell
  (a number with a time unit, :data:`TEXT_TIME`, e.g. a note's "estimate
  at 0.798 us/placement") may differ too: two texts equal once such times
  are masked are a *variation* (below), listed but not a failure.  A figure whose claims are about running
  times can then change its verdict: that is reported like any other
  verdict change.
* **Solves stopped by their time limit.**  A row is *time-limited* when a
  status column (``status`` or ``*_status``) holds anything but
  ``optimal`` (or is empty) in either run.  In such a row the columns a
  solve produces (:data:`SOLVER`: ``opt_*``, ``*bound*``, ``*status``,
  ``kind``, ``*ratio*``, ``*normalized*``, ``gap*``) may differ between
  runs (another incumbent, another bound after the same seconds): those
  differences are *variations*, listed but not failures.  Both runs'
  certified intervals ``[min(opt_objective, opt_bound),
  max(opt_objective, opt_bound)]`` contain the true optimum, so they must
  intersect (relative tolerance ``rtol``): a row where they do not is a
  failure (one certificate is wrong).
* **The offline optimum's own rows** (``algorithm`` ``solve_offline``,
  as hetero's figures write it): every column but the row's task may
  differ -- another optimal schedule of the same value (alternative
  optima), or at a time limit another incumbent -- as long as the rows
  have the certified intervals (``opt_objective``, ``opt_bound``) and the
  two intersect (below); these are variations.
* **Everything else** must be equal: strings and booleans exactly, numbers
  within ``rtol`` (relative) / ``atol`` (absolute), NaN equal to NaN.

Where a record keeps numpy's CPU kernels (``simd``, kept since
2026-11-29) and they differ from this machine's, the summary says so and
names the ``NPY_DISABLE_CPU_FEATURES`` value that runs numpy on the recorded
ones: ``np.exp`` and ``np.log`` differ in the last bit between AVX-512 and
AVX2 kernels, which flips OASiS's decision on some near-tie instances.

The rows are compared position by position (a spec sorts its rows, so the
order is part of the result); the two tables must have the same columns and
the same number of rows.  The run's claim verdicts are compared with the
recorded claims file as well.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .base import write_atomic
from .record import is_stale, machine_numerics, read_record
from .spec import Experiment, read_rows

__all__ = [
    "SOLVER",
    "TEXT_TIME",
    "TIMING",
    "Verification",
    "compare_rows",
    "compare_with_revision",
    "row_labels",
    "verify_figure",
]

#: Columns holding measured wall-clock times (or the machine's load): never compared.
TIMING = re.compile(r"runtime|time_ms$|time_s$|^estimate_s$|^load_avg|^wall_s$")
#: A measured time inside a text cell: a number and a time unit.
TEXT_TIME = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s*(?:ns|us|µs|ms|s|min|h)\b")
#: Columns a solve produces: in a time-limited row their differences are variations.
SOLVER = re.compile(r"^opt_|bound|status$|^kind$|ratio|normalized|^gap")
#: Columns naming a solve's status (a row is time-limited when one is not ``optimal``).
_STATUS = re.compile(r"(^|_)status$")

_DIFF_COLUMNS = ["row", "key", "column", "recorded", "rerun", "what"]


@dataclass(frozen=True)
class Verification:
    """The outcome of comparing a re-run's rows (and claims) with a record.

    ``differences`` has one row per differing cell or row: ``row`` (position),
    ``key`` (the task's parameters in that row, e.g. ``n_jobs=10, seed=3``),
    ``column``, ``recorded``, ``rerun`` and ``what``: ``mismatch`` (a
    failure), ``variation`` (a solver column of a time-limited row, a
    column of the offline optimum's own row, or a text that differs only
    in measured times: allowed),
    ``disjoint`` (the two certified intervals of the optimum do not
    intersect: a failure) or ``shape`` (columns or row count differ: a
    failure).  ``claims`` lists each claim's recorded and re-run status
    (``changed`` True when they differ).
    """

    figure: str
    rows_recorded: int
    rows_rerun: int
    time_limited_rows: int
    timing_columns: list[str]
    differences: pd.DataFrame
    claims: pd.DataFrame
    stale: bool = False
    simd_recorded: list[str] | None = None
    simd_now: list[str] | None = None
    against: str | None = None

    @property
    def failures(self) -> pd.DataFrame:
        """The differences that are not allowed (``what`` other than ``variation``)."""
        return self.differences[self.differences["what"] != "variation"]

    @property
    def reproduced(self) -> bool:
        """No failing difference and every claim keeps its recorded status."""
        changed = bool(self.claims["changed"].any()) if len(self.claims) else False
        return self.failures.empty and not changed

    def summary(self) -> str:
        """A few lines saying what was compared and what differs."""
        d = self.differences
        counts = {
            w: int((d["what"] == w).sum())
            for w in ("mismatch", "disjoint", "shape", "variation")
        }
        changed = int(self.claims["changed"].sum()) if len(self.claims) else 0
        verdict = "reproduced" if self.reproduced else "NOT reproduced"
        runs = (
            f"{self.rows_recorded} recorded rows, {self.rows_rerun} re-run rows"
            if self.against is None
            else f"against its record at {self.against}: {self.rows_recorded} rows "
            f"there, {self.rows_rerun} now"
        )
        lines = [
            f"{self.figure}: {verdict} ({runs}, {self.time_limited_rows} time-limited)",
            f"  failing cells: {counts['mismatch']} mismatch, {counts['disjoint']} "
            f"disjoint intervals, {counts['shape']} shape; allowed variations: "
            f"{counts['variation']}",
            f"  claims whose status changed: {changed} of {len(self.claims)}",
            "  not compared (measured times): "
            + (", ".join(self.timing_columns) or "none"),
        ]
        if self.stale:
            lines.append(
                "  the record is stale: it was made by other code than this checkout"
            )
        lines += self._kernel_lines()
        return "\n".join(lines)

    def _kernel_lines(self) -> list[str]:
        """What to say about numpy's CPU kernels here and at recording time."""
        now = self.simd_now or []
        if self.simd_recorded is None:
            if self.reproduced:
                return []
            return [
                "  the record does not keep numpy's CPU kernels (recorded before "
                f"they were kept); here: {' '.join(now)}. A last-bit difference "
                "of np.exp / np.log between kernels can flip a near tie: try "
                "NPY_DISABLE_CPU_FEATURES (paper_figures/README.md)"
            ]
        if self.simd_recorded == now:
            return []
        extra = [f for f in now if f not in self.simd_recorded]
        hint = (
            f"; NPY_DISABLE_CPU_FEATURES='{' '.join(extra)}' runs numpy on the "
            "recorded ones"
            if extra
            else ""
        )
        return [
            f"  numpy's CPU kernels differ: recorded on {' '.join(self.simd_recorded)}, "
            f"here {' '.join(now)}{hint}"
        ]


def _same(a: pd.Series, b: pd.Series, rtol: float, atol: float) -> np.ndarray:
    """Element-wise equality: numbers within tolerance (NaN == NaN, inf == inf), else exact text."""
    if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
        if pd.api.types.is_bool_dtype(a) or pd.api.types.is_bool_dtype(b):
            return np.asarray(a.astype(str).to_numpy() == b.astype(str).to_numpy())
        x = a.to_numpy(dtype=float)
        y = b.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        return np.asarray(close | (x == y))
    both_missing = a.isna().to_numpy() & b.isna().to_numpy()
    return np.asarray(
        (a.astype(str).to_numpy() == b.astype(str).to_numpy()) | both_missing
    )


def _same_but_times(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Text cells equal once the measured times in them (:data:`TEXT_TIME`) are masked."""
    if pd.api.types.is_numeric_dtype(a) or pd.api.types.is_numeric_dtype(b):
        return np.zeros(len(a), dtype=bool)

    def masked(s: pd.Series) -> np.ndarray:
        return np.array([TEXT_TIME.sub("<time>", str(v)) for v in s], dtype=object)

    return np.asarray(masked(a) == masked(b), dtype=bool)


def _optimum_rows(rows: pd.DataFrame) -> np.ndarray:
    """Rows that report the offline optimum itself (``algorithm == "solve_offline"``)."""
    if "algorithm" not in rows.columns:
        return np.zeros(len(rows), dtype=bool)
    return np.asarray(rows["algorithm"].astype(str).to_numpy() == "solve_offline")


def _time_limited(rows: pd.DataFrame) -> np.ndarray:
    """Rows where some status column holds a value other than ``optimal``."""
    mask = np.zeros(len(rows), dtype=bool)
    for col in rows.columns:
        if _STATUS.search(col):
            s = rows[col]
            mask |= (s.notna() & (s.astype(str) != "optimal")).to_numpy()
    return mask


def _interval(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """Per row the certified interval of the optimum, or None without both columns.

    NaN ends where a run has no incumbent: its interval is unbounded on one
    side, so it meets every other interval (never reported disjoint).
    """
    if "opt_objective" not in rows.columns or "opt_bound" not in rows.columns:
        return None
    obj = pd.to_numeric(rows["opt_objective"], errors="coerce").to_numpy(dtype=float)
    bnd = pd.to_numeric(rows["opt_bound"], errors="coerce").to_numpy(dtype=float)
    bnd = np.where(np.isnan(bnd), obj, bnd)
    none = np.isnan(obj)
    return (
        np.where(none, np.nan, np.fmin(obj, bnd)),
        np.where(none, np.nan, np.fmax(obj, bnd)),
    )


def _disjoint(
    old: pd.DataFrame, new: pd.DataFrame, rtol: float, atol: float
) -> np.ndarray:
    """Rows whose two certified intervals of the optimum do not intersect."""
    a, b = _interval(old), _interval(new)
    if a is None or b is None:
        return np.zeros(len(old), dtype=bool)
    lo = np.fmax(a[0], b[0])
    hi = np.fmin(a[1], b[1])
    slack = rtol * np.fmax(np.abs(lo), np.abs(hi)) + atol
    with np.errstate(invalid="ignore"):
        return np.asarray(lo > hi + slack)  # NaN (no incumbent in a run) compares False


def row_labels(spec: Experiment, rows: pd.DataFrame) -> list[str]:
    """The columns that say which task a row belongs to, for the differences' ``key``.

    Of the row's leading columns (up to the first float column) those that
    hold text, ``seed`` or a size ``n_*``, and the grid's swept keys that are
    columns; of these, those whose value varies.
    """
    lead: list[str] = []
    for col in rows.columns:
        if pd.api.types.is_float_dtype(rows[col]):
            break
        text = not pd.api.types.is_numeric_dtype(rows[col])
        if text or col == "seed" or col.startswith("n_"):
            lead.append(col)
    tasks = spec.tasks(False)
    swept = (
        [k for k in tasks[0] if len({repr(t.get(k)) for t in tasks}) > 1]
        if tasks
        else []
    )
    names = [*lead, *(k for k in swept if k in rows.columns and k not in lead)]
    return [c for c in names if rows[c].nunique(dropna=False) > 1]


def _keys(rows: pd.DataFrame, key_columns: list[str], i: Any) -> str:
    return ", ".join(f"{k}={rows[k].iloc[i]}" for k in key_columns)


def compare_rows(
    recorded: pd.DataFrame,
    rerun: pd.DataFrame,
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    key_columns: list[str] | None = None,
) -> tuple[pd.DataFrame, int, list[str]]:
    """Compare two runs' rows by the module's rules.

    Returns ``(differences, time_limited_rows, timing_columns)``:
    ``differences`` as :class:`Verification` documents it,
    ``time_limited_rows`` the number of rows time-limited in either run and
    ``timing_columns`` the columns not compared.  ``key_columns`` (columns
    naming a row's task) label the differences; default none.
    """
    keys = [k for k in (key_columns or []) if k in recorded.columns]
    timing = [c for c in recorded.columns if TIMING.search(c)]
    diffs: list[dict[str, Any]] = []
    if list(recorded.columns) != list(rerun.columns) or len(recorded) != len(rerun):
        diffs.append({
            "row": math.nan, "key": "", "column": "",
            "recorded": f"{len(recorded)} rows: {', '.join(recorded.columns)}",
            "rerun": f"{len(rerun)} rows: {', '.join(rerun.columns)}",
            "what": "shape",
        })  # fmt: skip
        return pd.DataFrame(diffs, columns=_DIFF_COLUMNS), 0, timing
    old = recorded.reset_index(drop=True)
    new = rerun.reset_index(drop=True)
    limited = _time_limited(old) | _time_limited(new)
    # the optimum's own rows vary only where their intervals can be checked
    own = _optimum_rows(old) & _optimum_rows(new) & (_interval(old) is not None)
    for col in old.columns:
        if col in timing:
            continue
        differs = ~_same(old[col], new[col], rtol, atol)
        allowed = limited & bool(SOLVER.search(col))
        if col not in keys and col != "algorithm":
            allowed = allowed | own
        if differs.any():
            allowed = allowed | _same_but_times(old[col], new[col])
        for i in np.flatnonzero(differs):
            diffs.append({
                "row": int(i), "key": _keys(old, keys, i), "column": col,
                "recorded": old[col].iloc[i], "rerun": new[col].iloc[i],
                "what": "variation" if allowed[i] else "mismatch",
            })  # fmt: skip
    for i in np.flatnonzero(_disjoint(old, new, rtol, atol)):
        diffs.append({
            "row": int(i), "key": _keys(old, keys, i), "column": "opt_objective, opt_bound",
            "recorded": f"[{old['opt_objective'].iloc[i]}, {old['opt_bound'].iloc[i]}]",
            "rerun": f"[{new['opt_objective'].iloc[i]}, {new['opt_bound'].iloc[i]}]",
            "what": "disjoint",
        })  # fmt: skip
    return pd.DataFrame(diffs, columns=_DIFF_COLUMNS), int(limited.sum()), timing


def _compare_claims(recorded: pd.DataFrame | None, rerun: pd.DataFrame) -> pd.DataFrame:
    """Each claim's recorded and re-run status, matched by claim text."""
    cols = ["claim", "recorded", "rerun", "changed"]
    if recorded is None:
        return pd.DataFrame(columns=cols)
    was = dict(zip(recorded["claim"], recorded["status"], strict=True))
    out = []
    for claim, status in zip(rerun["claim"], rerun["status"], strict=True):
        before = was.get(claim, "(not recorded)")
        out.append({"claim": claim, "recorded": before, "rerun": status,
                    "changed": str(before) != str(status)})  # fmt: skip
    return pd.DataFrame(out, columns=cols)


def _verification(
    spec: Experiment,
    recorded: pd.DataFrame,
    rerun: pd.DataFrame,
    claims_recorded: pd.DataFrame | None,
    claims_rerun: pd.DataFrame,
    *,
    rtol: float,
    atol: float,
    stale: bool,
    simd: tuple[list[str] | None, list[str] | None],
    against: str | None = None,
) -> Verification:
    """Compare two runs' rows and claims (:func:`compare_rows`) into a :class:`Verification`."""
    diffs, limited, timing = compare_rows(
        recorded, rerun, rtol=rtol, atol=atol, key_columns=row_labels(spec, recorded)
    )
    return Verification(
        figure=spec.name,
        rows_recorded=len(recorded),
        rows_rerun=len(rerun),
        time_limited_rows=limited,
        timing_columns=timing,
        differences=diffs,
        claims=_compare_claims(claims_recorded, claims_rerun),
        stale=stale,
        simd_recorded=simd[0],
        simd_now=simd[1],
        against=against,
    )


def verify_figure(
    spec: Experiment,
    folder: Path | str,
    *,
    out: Path | str | None = None,
    workers: int | None = 1,
    scheduler: Any = None,
    progress: bool = True,
    rtol: float = 1e-9,
    atol: float = 1e-12,
) -> Verification:
    """Run ``spec``'s full grid with the current code and compare it with its record in ``folder``.

    ``out`` receives the re-run's figure, table and claims (as ``optsched
    figure run`` writes them) and ``<name>.verify.csv``, the differences;
    the record itself is never written.  Raises ``FileNotFoundError`` when
    ``folder`` keeps no record of ``spec``.
    """
    from .runner import run  # the runner imports the heavy plotting stack

    folder = Path(folder)
    record = read_record(folder, spec.name)
    if record is None:
        raise FileNotFoundError(f"{spec.name}: no record in {folder}")
    recorded = read_rows(folder / str(record["rows_file"]))
    out_dir = (
        Path(out) if out is not None else Path("paper_figures") / "out" / spec.paper
    )
    res = run(spec, quick=False, out=out_dir, workers=workers, scheduler=scheduler,
              progress=progress, echo=False)  # fmt: skip
    rerun = read_rows(io.StringIO(res.rows.to_csv(index=False)))
    claims_path = folder / f"{spec.name}.claims.csv"
    was = pd.read_csv(claims_path) if claims_path.is_file() else None
    result = _verification(
        spec, recorded, rerun, was, res.claims, rtol=rtol, atol=atol,
        stale=is_stale(spec, record), simd=(record.get("simd"),
                                            machine_numerics()["simd"]),
    )  # fmt: skip
    diffs = result.differences
    write_atomic(
        out_dir, {f"{spec.name}.verify.csv": lambda p: diffs.to_csv(p, index=False)}
    )
    return result


def _at_revision(folder: Path, rev: str, name: str) -> bytes:
    """The bytes of ``folder/name`` as of git revision ``rev``.

    Raises ``FileNotFoundError`` naming the file and revision when git
    cannot give them (no git, not a repository, an unknown revision, or
    no such file there).
    """
    try:
        top = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
        rel = (folder.resolve().relative_to(Path(top).resolve()) / name).as_posix()
        return subprocess.run(
            ["git", "-C", top, "show", f"{rev}:{rel}"],
            capture_output=True, check=True, timeout=60,
        ).stdout  # fmt: skip
    except (OSError, ValueError, subprocess.SubprocessError):
        raise FileNotFoundError(f"{name}: not in git at revision {rev!r}") from None


def compare_with_revision(
    spec: Experiment,
    folder: Path | str,
    rev: str,
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
) -> Verification:
    """Compare ``spec``'s record in ``folder`` with its record at git revision ``rev``.

    Nothing is run: the record committed at ``rev`` plays the recorded run
    and the record in ``folder`` the re-run, under the module's rules (so a
    figure recorded again after a change of its code can be audited
    against the record before: ``optsched figure verify NAME --against
    REV``).  ``stale`` says whether the current record is stale.

    Raises
    ------
    FileNotFoundError
        When ``folder`` keeps no record of ``spec``, or git has none at ``rev``.
    """
    folder = Path(folder)
    record = read_record(folder, spec.name)
    if record is None:
        raise FileNotFoundError(f"{spec.name}: no record in {folder}")
    old = json.loads(_at_revision(folder, rev, f"{spec.name}.record.json"))
    data = _at_revision(folder, rev, str(old["rows_file"]))
    if str(old["rows_file"]).endswith(".gz"):
        data = gzip.decompress(data)
    recorded = read_rows(io.BytesIO(data))
    current = read_rows(folder / str(record["rows_file"]))
    try:
        was = pd.read_csv(
            io.BytesIO(_at_revision(folder, rev, f"{spec.name}.claims.csv"))
        )
    except FileNotFoundError:
        was = None
    claims_path = folder / f"{spec.name}.claims.csv"
    now = (
        pd.read_csv(claims_path)
        if claims_path.is_file()
        else pd.DataFrame(columns=["claim", "status"])
    )
    return _verification(
        spec, recorded, current, was, now, rtol=rtol, atol=atol,
        stale=is_stale(spec, record), simd=(old.get("simd"), record.get("simd")),
        against=rev,
    )  # fmt: skip
