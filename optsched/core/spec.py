"""Spec types of the experiment layer: what a reproduced figure declares.

A reproduced figure or table is an :class:`Experiment`: a name, the paper's
key and figure reference, a parameter grid (and a ``quick`` grid, expanded by
:func:`expand`), an importable task function ``task dict -> row dict(s)``
from the slice's ``experiments`` module, a plot and the paper's claims as
data (:class:`Claim`, with the claim values :class:`Span` and
:class:`Cells`).  This module holds the types only; running a spec is
:mod:`optsched.core.runner`, finding the installed specs
:mod:`optsched.core.discovery`, the findings table :mod:`optsched.core.report`.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

Grid = Mapping[str, Any] | Sequence[Mapping[str, Any]]
#: Wall-time columns (``*runtime_s``, ``*time_s``): the only columns of a
#: figure's CSV that may differ between two runs with the same seeds.
VOLATILE = re.compile(r"(runtime|time)_s$")
#: Columns of a claims table (``<name>.claims.csv``).
CLAIM_COLUMNS = [
    "figure",
    "paper_key",
    "ref",
    "claim",
    "paper",
    "ours",
    "status",
    "note",
    "mode",
    "command",
    "date",
]


#: The claim statuses: one definition, used by :class:`Claim`, the findings
#: table (:mod:`optsched.core.report`) and paper_figures/README.md.
STATUSES: dict[str, str] = {
    "reproduced": "the paper's number is matched within the claim's stated "
    "tolerance (or its qualitative statement holds), under the default reading",
    "trend only": "the direction the paper states holds but the magnitude is "
    "outside the tolerance (both numbers printed)",
    "not reproduced": "the claim fails under the default reading",
    "reading": "the claim holds only under a named, documented reading that is "
    "not the default (the reading is named)",
    "not comparable": "the paper's setting differs (machine, solver, setting) or "
    "its value is built into our generator (circular); the reason is named",
    "no claim": "our measurement printed for context; the paper states no value",
    "not run": "no full run is recorded for the figure",
    "stale": "recorded before the figure's task code, its slice or the core "
    "experiment code changed (the recorded status is shown beside it)",
    "error": "the claim function failed on the rows (a bug)",
}

#: ``paper`` values that mean "the paper states no value" (status ``no claim``).
NO_PAPER_VALUE = ("", "-")


@dataclass(frozen=True)
class Claim:
    """One claim of the paper, as data, with the rule of its verdict.

    Attributes
    ----------
    text
        The claim in a few words (quote the paper where possible).
    paper
        The paper's value: a number or a short text (e.g. ``"1.1-1.5"``);
        ``"-"`` when the paper states none (a measurement for context).
    ours
        ``ours(df) -> value``: our value computed from the tidy rows only.
    holds
        ``holds(ours) -> bool``: the claim as the paper states it -- the
        paper's number within :attr:`tolerance`, or its qualitative
        statement (an ordering, a bound).  Required when the paper states a
        value, unless :attr:`not_comparable` says why no verdict is possible.
    fmt
        Format of a numeric ``ours`` (``str.format`` spec).
    trend
        Optional ``trend(ours) -> bool``: the direction only.  When
        ``holds`` fails and ``trend`` holds the status is ``trend only``.
    tolerance
        The tolerance ``holds`` applies, in words (e.g. ``"+-5 pp"``);
        printed in the ``note`` column.
    reading
        Name of the non-default, documented reading under which the claim
        is evaluated (status ``reading`` when it holds).
    not_comparable
        Why the paper's number cannot be compared with ours (another
        machine, solver or setting, or a value built into the generator):
        status ``not comparable`` whatever the value.

    Status (:data:`STATUSES`): ``not comparable`` when :attr:`not_comparable`
    is set; ``no claim`` without ``holds`` (the paper states no value);
    otherwise ``reproduced`` (or ``reading``) when ``holds``, ``trend
    only`` when ``trend``, else ``not reproduced``.
    """

    text: str
    paper: Any
    ours: Callable[[pd.DataFrame], Any]
    holds: Callable[[Any], bool] | None = None
    fmt: str = "{:.4g}"
    trend: Callable[[Any], bool] | None = None
    tolerance: str = ""
    reading: str = ""
    not_comparable: str = ""

    def __post_init__(self) -> None:
        where = f"claim {self.text!r}"
        if self.reading and self.not_comparable:
            raise ValueError(f"{where}: both a reading and not_comparable")
        if self.holds is None and self.trend is not None:
            raise ValueError(f"{where}: a trend test needs the claim's holds test")
        if (
            self.holds is None
            and not self.not_comparable
            and str(self.paper).strip() not in NO_PAPER_VALUE
        ):
            raise ValueError(
                f"{where}: the paper states {self.paper!r} but the claim has no "
                "verdict (give holds=..., or not_comparable='why')"
            )

    @property
    def note(self) -> str:
        """The ``note`` column: the reason, the reading or the tolerance."""
        if self.not_comparable:
            return self.not_comparable
        if self.reading:
            return f"reading: {self.reading}"
        return f"tolerance: {self.tolerance}" if self.tolerance else ""

    def status(self, value: Any) -> str:
        """The status (:data:`STATUSES`) of our ``value``."""
        if self.not_comparable:
            return "not comparable"
        if self.holds is None:
            return "no claim"
        if self.holds(value):
            return "reading" if self.reading else "reproduced"
        if self.trend is not None and self.trend(value):
            return "trend only"
        return "not reproduced"

    def evaluate(self, df: pd.DataFrame) -> dict[str, str]:
        """Our value (formatted), the status and the note for the tidy rows ``df``."""
        try:
            value = self.ours(df)
        except (KeyError, ValueError, IndexError, ZeroDivisionError) as exc:
            text = f"n/a ({type(exc).__name__}: {exc})"
            return {"ours": text, "status": "error", "note": self.note}
        if isinstance(value, float | int) and not isinstance(value, bool):
            text = self.fmt.format(value)
        else:
            text = str(value)
        return {"ours": text, "status": self.status(value), "note": self.note}


def near(
    target: float, rel: float = 0.10, abs_tol: float = 0.0
) -> Callable[[Any], bool]:
    """``holds`` test: ours within ``max(rel |target|, abs_tol)`` of ``target``.

    The house default for a number the paper prints is ``rel = 0.10`` (10%
    of the paper's value); a claim that uses another tolerance says why in
    its ``tolerance`` text.  NaN or a non-number never holds.
    """

    def holds(value: Any) -> bool:
        try:
            v = float(value)
        except (TypeError, ValueError):
            return False
        return math.isfinite(v) and abs(v - target) <= max(rel * abs(target), abs_tol)

    return holds


def read_rows(text_or_path: Any) -> pd.DataFrame:
    """A figure's tidy rows as read back from its CSV (the form claims see).

    Claims are evaluated on this form in a run as well as on a recorded
    run's ``<name>.rows.csv.gz``, so both give the same verdict.
    """
    return pd.read_csv(text_or_path)


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
    """What :func:`optsched.core.runner.run` produced: rows, claims table, figure."""

    spec: Experiment
    rows: pd.DataFrame
    claims: pd.DataFrame
    figure: Figure
    paths: dict[str, Path]


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


def stable_columns(df: pd.DataFrame, extra: Sequence[str] = ()) -> list[str]:
    """Columns of ``df`` that must be identical for identical seeds.

    All but the wall-time columns (:data:`VOLATILE`) and ``extra`` (a spec's
    ``volatile``).
    """
    return [c for c in df.columns if not VOLATILE.search(str(c)) and c not in extra]
