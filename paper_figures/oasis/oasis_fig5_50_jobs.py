"""Fig. 5 of Bao et al. at five times the paper's size: 50 jobs, certified intervals.

The paper's Fig. 5 (``fig5_performance_ratio``) solves 10 jobs in ``T = 10``
slots exactly and reports OPT / OASiS *around 1.1 to 1.5*; HiGHS proves all
90 of our instances of that size.  This spec runs the same task
(``ex.performance_ratio``: OASiS checked, the offline optimum from the
harness's MIP start, which at 30 jobs or more includes the MIP
neighbourhood search of ``optsched.oasis.lns``) on Fig. 5's grid with
**50 jobs**, where proof is not always in reach: a row is ``proven`` only
when HiGHS proved the optimum, otherwise it carries the certified interval
``[incumbent / OASiS, bound / OASiS]`` (``kind == "interval"``, the bound
named in ``bound_kind``).  It measures the project's target for oasis at
scale: a certified interval of width at most 5% on every instance of Fig. 5
at 50 jobs (width = bound / incumbent - 1; docs/ratios.md).

Claims.  The paper states nothing at 50 jobs, so its band 1.1-1.5 is
printed beside our medians as ``not comparable``.  Theorem 4 (``OPT / ALG
<= 2 alpha``) is a theorem about every instance, so it is a claim here
too: ``reproduced`` only when every instance is *certified* within
(``ratio_hi <= 2 alpha``); an instance whose whole interval lies above
``2 alpha`` is a certified violation, one whose interval straddles it is
undecided (both counted in the value).  The interval widths (the 5% target) and the proof counts are printed for context (``no claim``).

Sizes.  Fig. 5's grid (``T = 10``; 2, 4 and 8 servers per side; ``gamma1``
in [1, 10], [1, 50], [1, 100]) with 50 jobs, 5 seeds per cell (Fig. 5
uses 10).  Time per solve (:data:`TIME_LIMITS`): 120 s at 2 servers per
side, as in Fig. 5 (all proven within 30 s); 900 s at 4 servers per
side, where 120 s left intervals of 5-14% that are the incumbent's *and*
the bound's (docs/oasis.md: given 900 s, the two widest, 13.8% and
10.5%, end at 3.5% and proven); 300 s at 8 servers per side (one
interval of 6.6% after 120 s).  The full run took 87 min on 2
cores; quick: 2 servers per side, one range, one seed, 10 s.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from optsched.figures.oasis.fig5_performance_ratio import SPEC as FIG5

from optsched.core.experiment import Claim

#: The width target for the certified intervals.
TARGET = 0.05
_FIXED = {"n_jobs": 50, "n_slots": 10}
#: Seconds per solve by servers per side (the longest cell first: the
#: runner hands out tasks in grid order).
TIME_LIMITS = {4: 900.0, 8: 300.0, 2: 120.0}


def widths(df: pd.DataFrame) -> pd.Series:
    """Certified interval width ``bound / incumbent - 1`` per row (0 when
    proven; infinite for a row without incumbent or bound, e.g. ``no_opt``,
    so that it counts as above the target)."""
    w = df["opt_bound"] / df["opt_objective"] - 1.0
    w = w.where(np.isfinite(w), np.inf)
    return w.where(df["kind"] != "proven", 0.0)


def width_summary(df: pd.DataFrame) -> str:
    """Widest interval, rows above the target, proven rows."""
    w = widths(df)
    worst = df.loc[w.idxmax()]
    return (
        f"widest {w.max():.1%} ({worst['n_servers']:g} servers, "
        f"gamma1 <= {worst['gamma1_hi']:g}, seed {worst['seed']:g}); "
        f"{int((w > TARGET).sum())} of {len(df)} above {TARGET:.0%}; "
        f"{int((df['kind'] == 'proven').sum())} proven"
    )


def widest_per_servers(df: pd.DataFrame) -> str:
    """Widest interval and proven count per number of servers."""
    w = widths(df)
    parts = []
    for n, g in df.groupby("n_servers"):
        parts.append(
            f"{n:g} servers: {w[g.index].max():.1%} "
            f"({int((g['kind'] == 'proven').sum())}/{len(g)} proven)"
        )
    return "; ".join(parts)


def ratio_medians(df: pd.DataFrame) -> str:
    """Median of the lower and of the upper ends of OPT / OASiS (finite rows)."""
    lo = df["ratio_lo"].where(df["kind"] == "interval", df["ratio"])
    hi = df["ratio_hi"].where(df["kind"] == "interval", df["ratio"])
    ok = np.isfinite(lo) & np.isfinite(hi)
    return f"median in [{lo[ok].median():.3f}, {hi[ok].median():.3f}]"


def theorem4(df: pd.DataFrame) -> str:
    """Shares of instances certified within 2 alpha, certified above it, undecided."""
    lo = df["ratio_lo"].where(df["kind"] == "interval", df["ratio"])
    hi = df["ratio_hi"].where(df["kind"] == "interval", df["ratio"])
    within = hi <= df["two_alpha"]
    above = lo > df["two_alpha"]
    undecided = ~within & ~above
    return (
        f"{within.mean():.0%} within / {above.mean():.0%} above / "
        f"{undecided.mean():.0%} undecided"
    )


SPEC = dataclasses.replace(
    FIG5,  # Fig. 5's task, columns, sort, plot and summary
    name="oasis_fig5_50_jobs",
    ref="Fig. 5, Sec. V-A (at 50 jobs)",
    doc=__doc__,
    grid=[
        {
            **FIG5.grid,
            "servers_per_side": [h],
            "seed": list(range(5)),
            **_FIXED,
            "time_limit": limit,
        }
        for h, limit in TIME_LIMITS.items()
    ],
    quick={
        **FIG5.quick,
        "servers_per_side": [2],
        "gamma1_range": [(1.0, 10.0)],
        **_FIXED,
    },
    claims=[
        Claim(
            "certified interval width bound / incumbent - 1 (target: at most 5% "
            "on every instance)",
            "-",
            width_summary,
        ),
        Claim(
            "widest interval per number of servers",
            "-",
            widest_per_servers,
        ),
        Claim(
            "OPT / OASiS at 50 jobs (median of the interval ends, proven rows "
            "at their ratio)",
            "1.1-1.5 (10 jobs)",
            ratio_medians,
            not_comparable="the paper's Fig. 5 has 10 jobs; it states nothing at "
            "50 jobs",
        ),
        Claim(
            "Theorem 4: OPT / OASiS <= 2 alpha on every instance (certified "
            "within / certified above / undecided)",
            "100% within",
            theorem4,
            holds=lambda s: s.startswith("100% within"),
        ),
    ],
)
