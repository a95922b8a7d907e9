"""Plots and the claim value of worst-case search traces (no search code).

The rows of a search are its trace (:data:`optsched.core.adversary.TRACE_COLUMNS`,
one row per evaluation).  :func:`plot_trace` draws one search (the CLI's
``worst-case`` command), :func:`plot_traces` the traces of a figure spec
(one panel per algorithm, :mod:`optsched.core.worst_case_spec`), and
:func:`worst_found` is the claim value: the worst certified ratio found per
method.  Re-exported by :mod:`optsched.core.adversary`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_trace", "plot_traces", "worst_found"]


def _draw_best(ax, x: np.ndarray, best: np.ndarray, label: str) -> None:
    """The running best as a step line; from the first ``inf`` (a proven
    ``OPT > 0`` against ``ALG = 0``) on, a marker at the top of the axes."""
    inf = np.flatnonzero(np.isposinf(best))
    line = ax.step(x, np.where(np.isfinite(best), best, np.nan), where="post",
                   label=label)[0]  # fmt: skip
    if inf.size:
        x0 = int(x[inf[0]])
        ax.plot([x0], [0.97], marker="v", color=line.get_color(), ls="none",
                transform=ax.get_xaxis_transform(),
                label=f"{label}: inf (ALG = 0) from evaluation {x0}")  # fmt: skip


def _ratio_scale(ax, best: pd.Series) -> None:
    """Log scale when the finite ratios span more than two decades."""
    finite = best[np.isfinite(best.astype(float))].astype(float)
    if len(finite) and finite.max() > 100 * max(finite.min(), 1e-300):
        ax.set_yscale("log")


def plot_trace(
    trace: pd.DataFrame, *, title: str = "", bound: float | None = None
) -> Figure:
    """Best (and current) certified ratio vs evaluations, one line per ``method``.

    ``bound``: a numeric proven bound to draw as a horizontal line.
    """
    fig = Figure(figsize=(6.0, 3.8), layout="constrained")
    ax = fig.subplots()
    for method, d in trace.groupby("method", sort=False):
        x = d["eval"].to_numpy() + 1
        _draw_best(ax, x, d["best"].to_numpy(dtype=float), f"{method}: best")
        ax.plot(x, d["current"].replace(np.inf, np.nan).to_numpy(dtype=float), lw=0.6,
                alpha=0.5, label=f"{method}: current")  # fmt: skip
    if bound is not None and math.isfinite(bound):
        ax.axhline(bound, color="k", ls="--", lw=0.8, label="paper's proven bound")
    _ratio_scale(ax, trace["best"])
    ax.set_xlabel("evaluations")
    ax.set_ylabel("certified ratio (>= 1)")
    ax.set_title(title or "worst-case search")
    ax.legend(fontsize=8)
    return fig


def worst_found(df: pd.DataFrame, algorithm: str) -> str:
    """Claim value: the worst certified ratio per method for ``algorithm`` (with its kind)."""
    cells = []
    for method, d in df[df["algorithm"] == algorithm].groupby("method", sort=False):
        j: Any = d["certified"].astype(float).fillna(-math.inf).idxmax()
        cells.append(
            f"{method}: {d.loc[j, 'certified']:.4g} ({d.loc[j, 'kind']}, {len(d)} evals)"
        )
    return "; ".join(cells) or "not run"


def plot_traces(df: pd.DataFrame) -> Figure:
    """Best certified ratio vs evaluations, one panel per algorithm, one line per method."""
    algs = list(dict.fromkeys(df["algorithm"]))
    fig = Figure(figsize=(4.2 * len(algs), 3.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(algs), squeeze=False)[0])
    for ax, alg in zip(axes, algs, strict=True):
        part = df[df["algorithm"] == alg]
        for method, d in part.groupby("method", sort=False):
            x = d["eval"].to_numpy() + 1
            _draw_best(ax, x, d["best"].to_numpy(dtype=float), method)
        _ratio_scale(ax, part["best"])
        ax.set_title(alg)
        ax.set_xlabel("evaluations")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("best certified ratio")
    fig.suptitle(f"worst-case search: {df['paper'].iloc[0]}")
    return fig
