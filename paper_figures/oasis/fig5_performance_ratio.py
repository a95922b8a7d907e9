"""Fig. 5 of Bao et al. (INFOCOM 2018): performance ratio OPT / OASiS.

The paper solves the offline problem (1) exactly for 10 jobs in ``T = 10``
slots, varies the number of servers (split evenly between workers and
parameter servers) and the range of job priorities ``gamma_1`` (so that
``max_r (U_1^r / L_1, U_2^r / L_2)`` increases), and reports *a ratio around
1.1 to 1.5* with *no clear trend* in either factor (Sec. V-A, "Results").

We do the same with ``p.solve_offline`` (HiGHS on the exact MILP of
``optsched.models.oasis``) and ``p.run("oasis", ...)``; both objectives are
the checker's recomputation.  A point ratio ``OPT / ALG`` is reported only
when HiGHS proved optimality (``status == "optimal"``); otherwise the row
carries the interval ``[incumbent / ALG, bound / ALG]`` (``kind ==
"interval"``).  Instances where OASiS earns 0 (ratio infinite) are kept with
``kind == "alg_zero"`` and counted separately, as are solves that returned
no incumbent at all (``kind == "no_opt"``, e.g. status ``error``).  Every row also records
``ln_max_ul`` (``ln max_r U/L``) and Theorem 4's bound ``two_alpha = 2 max_r(1,
ln U/L)``.

Instance ``j`` of every configuration uses seed ``j``; for a fixed number of
servers the configurations differ only in the drawn ``gamma_1`` (same random
stream, rescaled range).  Each CSV row is one instance x configuration.
Full run: 2/4/8 servers per side x 3 priority ranges x 10 seeds, HiGHS limit
120 s per solve; quick: 2/4 x 2 ranges x 1 seed, 10 s.

Claims.  "Around 1.1 to 1.5" is the paper's own range and is applied as
printed (not widened by the house 10%: 1.65 would pass, a third of the
range's width beyond it); no direction is stated, so a miss is ``not
reproduced``.  "No clear trend" with the servers and with ``max U/L`` (the
priority range) is read on the median proven ratio per value of the factor:
``reproduced`` when the medians differ by at most 10% of the smallest
(``(max - min) / min <= 10%``, the threshold of the okita "roughly equal"
claims), ``trend only`` when they differ more but neither rise nor fall
throughout (not monotone over the three values), else ``not reproduced``
(a monotone change of more than 10%).

Sizes.  Paper: 10 jobs, ``T = 10``; the numbers of servers and the priority
ranges are in the figure only (not in the text we have).  Ours: 10 jobs,
``T = 10``, 4, 8 and 16 servers (2/4/8 per side), ``gamma1`` in [1, 10],
[1, 50], [1, 100], 10 seeds per cell.  The paper's footnote gives 2 days for
one offline solve of 10 jobs; HiGHS proves all 90 here within 120 s, so the
size is the paper's where the text states it.
"""

from optsched.core.experiment import Claim, Experiment
from optsched.oasis import experiments as ex

_FIXED = {"n_jobs": 10, "n_slots": 10}
#: Tolerances of the claims, in words (the ``note`` column).
_BAND = "the paper's range 1.1-1.5 as printed"
_NO_TREND = (
    "medians within 10% of the smallest; trend only: beyond that but not monotone"
)

SPEC = Experiment(
    name="fig5_performance_ratio",
    paper="oasis",
    ref="Fig. 5, Sec. V-A",
    doc=__doc__,
    task=ex.performance_ratio,
    grid={
        "servers_per_side": [8, 4, 2],
        "gamma1_range": [(1.0, 10.0), (1.0, 50.0), (1.0, 100.0)],
        "seed": list(range(10)),
        **_FIXED,
        "time_limit": 120.0,
    },
    quick={
        "servers_per_side": [4, 2],
        "gamma1_range": [(1.0, 10.0), (1.0, 100.0)],
        "seed": [0],
        **_FIXED,
        "time_limit": 10.0,
    },
    columns=ex.FIG5_COLUMNS,
    sort=["n_servers", "gamma1_hi", "seed"],
    plot=ex.plot_performance_ratio,
    summary=ex.summarize_performance_ratio,
    claims=[
        Claim(
            "OPT / OASiS around 1.1-1.5 (median of proven ratios)",
            "1.1-1.5",
            lambda df: ex.proven_ratios(df).median(),
            holds=lambda v: 1.1 <= v <= 1.5,
            fmt="{:.3f}",
            tolerance=_BAND,
        ),
        Claim(
            "OPT / OASiS around 1.1-1.5 (mean of proven finite ratios)",
            "1.1-1.5",
            lambda df: ex.proven_ratios(df).mean(),
            holds=lambda v: 1.1 <= v <= 1.5,
            fmt="{:.3f}",
            tolerance=_BAND,
        ),
        Claim(
            "every ratio below Theorem 4's 2 alpha (share of proven)",
            "100%",
            lambda df: (
                ex.proven_ratios(df) <= df.loc[ex.proven_ratios(df).index, "two_alpha"]
            ).mean(),
            holds=lambda v: v == 1.0,
            fmt="{:.0%}",
        ),
        Claim(
            "instances with a proven optimum / where OASiS earns 0 (ratio inf)",
            "-",
            lambda df: (
                f"{(df['kind'] == 'proven').sum()}/{len(df)} proven, "
                f"{(df['kind'] == 'alg_zero').sum()} with OASiS = 0"
            ),
        ),
        Claim(
            "no clear trend with the number of servers (median proven ratio per "
            "number of servers)",
            "no trend",
            lambda df: ex.median_ratio_per(df, "n_servers"),
            holds=ex.flat,
            trend=ex.no_direction,
            tolerance=_NO_TREND,
        ),
        Claim(
            "no clear trend with larger max U/L (median proven ratio per priority "
            "range)",
            "no trend",
            lambda df: ex.median_ratio_per(df, "gamma1_hi"),
            holds=ex.flat,
            trend=ex.no_direction,
            tolerance=_NO_TREND,
        ),
    ],
)
