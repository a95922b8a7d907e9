"""Standard plot kinds of the experiment layer (no paper code).

Each kind is a frozen dataclass whose call ``kind(df) -> Figure`` draws the
tidy rows of one experiment.  They share the same small vocabulary:

* ``x`` / ``y``: column names; ``hue``: one colour per value (e.g. the
  algorithm); ``facet``: one panel per value (e.g. the setting);
* ``where``: a :meth:`pandas.DataFrame.query` string applied first;
* ``order``: the hue order (values absent from the data are skipped) and
  ``labels``: hue value -> legend text;
* ``title``: the suptitle (the runner prefixes nothing).

A figure that needs more than this writes a small function ``df -> Figure``
in its slice's ``experiments`` module instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def _values(df: pd.DataFrame, col: str | None, order: Sequence[Any] | None) -> list:
    if col is None:
        return [None]
    present = list(pd.unique(df[col]))
    if order is None:
        return present
    return [v for v in order if v in set(present)]


def _panels(df: pd.DataFrame, facet: str | None, width: float, height: float):
    facets = _values(df, facet, None)
    fig = Figure(figsize=(width * len(facets), height), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(facets), squeeze=False)[0])
    return fig, list(zip(facets, axes, strict=True))


def _sub(df: pd.DataFrame, col: str | None, value: Any) -> pd.DataFrame:
    return df if col is None else df[df[col] == value]


def _title(ax, facet: str | None, value: Any) -> None:
    if facet is not None:
        ax.set_title(f"{facet} = {value}", fontsize=9)


@dataclass(frozen=True)
class _Kind:
    """Fields shared by every kind (see the module docstring)."""

    hue: str | None = None
    facet: str | None = None
    where: str | None = None
    order: Sequence[Any] | None = None
    labels: Mapping[Any, str] = field(default_factory=dict)
    title: str = ""
    xlabel: str | None = None
    ylabel: str | None = None
    logx: bool = False
    logy: bool = False
    hlines: Mapping[str, float] = field(default_factory=dict)

    def _rows(self, df: pd.DataFrame) -> pd.DataFrame:
        return df.query(self.where) if self.where else df

    def _label(self, value: Any) -> str | None:
        return None if value is None else self.labels.get(value, str(value))

    def _finish(self, fig: Figure, panels, x: str, y: str) -> Figure:
        for k, (_, ax) in enumerate(panels):
            for j, (label, yv) in enumerate(self.hlines.items()):
                ax.axhline(yv, color=f"C{7 + j % 3}", ls="--", lw=0.9, label=label)
            ax.set_xlabel(self.xlabel or x)
            if k == 0:
                ax.set_ylabel(self.ylabel or y)
            if self.logx:
                ax.set_xscale("log")
            if self.logy:
                ax.set_yscale("log")
        if panels:
            handles, _ = panels[0][1].get_legend_handles_labels()
            if handles:
                panels[0][1].legend(fontsize=7)
        if self.title:
            fig.suptitle(self.title, fontsize=10)
        return fig


@dataclass(frozen=True)
class Line(_Kind):
    """``y`` against ``x``: the median (or mean) line and a percentile band.

    The band spans the ``band`` percentiles of the rows sharing one ``x``
    (and hue/facet) value, i.e. over seeds; ``band=None`` draws no band.
    """

    x: str = "x"
    y: str = "y"
    estimator: str = "median"
    band: tuple[float, float] | None = (10.0, 90.0)

    def __call__(self, df: pd.DataFrame) -> Figure:
        df = self._rows(df)
        fig, panels = _panels(df, self.facet, 5.0, 3.8)
        for fv, ax in panels:
            part = _sub(df, self.facet, fv)
            for j, hv in enumerate(_values(part, self.hue, self.order)):
                s = _sub(part, self.hue, hv).groupby(self.x)[self.y]
                mid = s.median() if self.estimator == "median" else s.mean()
                ax.plot(
                    mid.index,
                    mid.values,
                    marker="o",
                    ms=3,
                    color=f"C{j}",
                    label=self._label(hv),
                )
                if self.band is not None:
                    lo, hi = (
                        s.quantile(self.band[0] / 100),
                        s.quantile(self.band[1] / 100),
                    )
                    ax.fill_between(
                        lo.index, lo.values, hi.values, color=f"C{j}", alpha=0.15
                    )
            _title(ax, self.facet, fv)
        return self._finish(fig, panels, self.x, self.y)


@dataclass(frozen=True)
class Bars(_Kind):
    """Grouped bars: one group per ``x`` value, one bar per hue value.

    Bar height is the mean (or median) over the rows; the whisker spans the
    ``band`` percentiles.  ``paper`` names a column holding the paper's value
    of the same quantity: it is drawn as a red diamond above the bar.
    """

    x: str = "x"
    y: str = "y"
    estimator: str = "mean"
    band: tuple[float, float] | None = (5.0, 95.0)
    paper: str | None = None

    def __call__(self, df: pd.DataFrame) -> Figure:
        df = self._rows(df)
        fig, panels = _panels(df, self.facet, 5.5, 4.0)
        for fv, ax in panels:
            part = _sub(df, self.facet, fv)
            xs = list(pd.unique(part[self.x]))
            hues = _values(part, self.hue, self.order)
            width = 0.8 / len(hues)
            for j, hv in enumerate(hues):
                g = _sub(part, self.hue, hv).groupby(self.x, sort=False)[self.y]
                mid = g.median() if self.estimator == "median" else g.mean()
                pos = np.arange(len(xs)) + (j - (len(hues) - 1) / 2) * width
                h = [mid.get(v, np.nan) for v in xs]
                ax.bar(pos, h, width, color=f"C{j}", alpha=0.85, label=self._label(hv))
                if self.band is not None:
                    lo = g.quantile(self.band[0] / 100)
                    hi = g.quantile(self.band[1] / 100)
                    ax.vlines(
                        pos,
                        [lo.get(v, np.nan) for v in xs],
                        [hi.get(v, np.nan) for v in xs],
                        color="k",
                        lw=1,
                    )
                if self.paper is not None:
                    pv = (
                        _sub(part, self.hue, hv)
                        .groupby(self.x, sort=False)[self.paper]
                        .first()
                    )
                    ax.scatter(
                        pos,
                        [pv.get(v, np.nan) for v in xs],
                        marker="D",
                        color="C3",
                        zorder=5,
                        s=18,
                        label="paper" if j == 0 else None,
                    )
            ax.set_xticks(np.arange(len(xs)), [str(v) for v in xs], fontsize=8)
            _title(ax, self.facet, fv)
        return self._finish(fig, panels, self.x, self.y)


@dataclass(frozen=True)
class Cdf(_Kind):
    """Empirical CDF of ``x`` per hue value."""

    x: str = "x"

    def __call__(self, df: pd.DataFrame) -> Figure:
        df = self._rows(df)
        fig, panels = _panels(df, self.facet, 5.0, 3.8)
        for fv, ax in panels:
            part = _sub(df, self.facet, fv)
            for j, hv in enumerate(_values(part, self.hue, self.order)):
                v = np.sort(_sub(part, self.hue, hv)[self.x].dropna().to_numpy(float))
                if v.size:
                    ax.step(
                        v,
                        np.arange(1, v.size + 1) / v.size,
                        where="post",
                        color=f"C{j}",
                        label=self._label(hv),
                    )
            _title(ax, self.facet, fv)
        return self._finish(fig, panels, self.x, self.ylabel or "CDF")


@dataclass(frozen=True)
class Scatter(_Kind):
    """One point per row, ``y`` against ``x``; ``diagonal`` draws y = x."""

    x: str = "x"
    y: str = "y"
    diagonal: bool = False

    def __call__(self, df: pd.DataFrame) -> Figure:
        df = self._rows(df)
        fig, panels = _panels(df, self.facet, 5.0, 3.8)
        for fv, ax in panels:
            part = _sub(df, self.facet, fv)
            for j, hv in enumerate(_values(part, self.hue, self.order)):
                s = _sub(part, self.hue, hv)
                ax.scatter(
                    s[self.x], s[self.y], s=12, color=f"C{j}", label=self._label(hv)
                )
            if self.diagonal and len(part):
                lo = float(np.nanmin(part[[self.x, self.y]].to_numpy(float)))
                hi = float(np.nanmax(part[[self.x, self.y]].to_numpy(float)))
                ax.plot([lo, hi], [lo, hi], color="grey", ls=":", lw=0.8)
            _title(ax, self.facet, fv)
        return self._finish(fig, panels, self.x, self.y)
