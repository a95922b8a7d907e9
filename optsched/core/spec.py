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
