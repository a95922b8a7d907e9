"""The sigmoid reading of Figs. 9-12: a second part of each figure's grid.

The paper calls its default latency cost a "Sigmoid Function" but prints
``tau e^{0.25 t}`` (docs/okita.md, "Diagnosis: the cost reading"; errata).
The figures' default cost is the print (``exp``).  :func:`with_sigmoid_part`
adds to a figure spec the same grid with the saturating ``sigmoid`` kind
(``tau / (1 + e^{-0.25 (t - 4)})``; same instances but for the cost) and:

* the spec's own claims, plot and summary, restricted to the ``exp`` rows
  (unchanged verdicts);
* the same claims on the ``sigmoid`` rows, each named "..., sigmoid
  reading" and marked with the reading (status ``reading`` when it holds).

Not a spec itself (no ``SPEC``): Figs. 9-12 build on it, and their record
digests cover this module and Fig. 14's (:mod:`optsched.core.record`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pandas as pd
from optsched.figures.okita.fig14_cost_functions import READING, SIGMOID

from optsched.core.experiment import Experiment

#: The printed cost: the figures' default and their original claims' rows.
PRINTED = "exp"


def rows_of(kind: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A filter keeping the rows of latency cost ``kind``."""

    def keep(df: pd.DataFrame) -> pd.DataFrame:
        return df[df["cost"] == kind]

    return keep


def _on(f: Callable[[pd.DataFrame], Any], kind: str) -> Callable[[pd.DataFrame], Any]:
    keep = rows_of(kind)
    return lambda df: f(keep(df))


def _part(grid: Any, cost: str) -> list[dict[str, Any]]:
    parts = grid if isinstance(grid, list) else [grid]
    return [{**g, "cost": cost} for g in parts]


def with_sigmoid_part(spec: Experiment) -> Experiment:
    """``spec`` (total cost under the printed ``exp`` cost) plus its sigmoid part."""
    printed = [dataclasses.replace(c, ours=_on(c.ours, PRINTED)) for c in spec.claims]
    read = [
        dataclasses.replace(
            c,
            text=f"{c.text}, sigmoid reading",
            ours=_on(c.ours, SIGMOID),
            reading=READING if c.holds is not None else c.reading,
        )
        for c in spec.claims
    ]
    summary = spec.summary
    return dataclasses.replace(
        spec,
        grid=[*_part(spec.grid, PRINTED), *_part(spec.grid, SIGMOID)],
        quick=[*_part(spec.quick, PRINTED), *_part(spec.quick, SIGMOID)],
        plot=_on(spec.plot, PRINTED),
        summary=None if summary is None else _on(summary, PRINTED),
        sort=["cost", *(spec.sort or [])],
        claims=[*printed, *read],
    )
