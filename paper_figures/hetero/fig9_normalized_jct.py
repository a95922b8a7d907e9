"""Fig. 9 of Liu et al. (TPDS 2024): average JCT normalised by the optimum.

What the paper shows (Sec. VI-B1, Fig. 9): the average JCT (8) of Optimus,
Optimus-LB, HAS and JPS (``N = 20, 40, 60``; mean over 100 rounds with a 90%
confidence interval) divided by the JCT of exhaustive search, for ``S = 4``
jobs on ``K = 15`` and ``K = 30`` workers.  Claims: *Optimus-LB incurs
performance losses of 15.1% for 15-worker and 30-worker scenarios*; HAS
*incurs the same average JCT as exhaustive search*; JPS (``N = 60``) incurs
*0.54% and 2.04%* (K = 15, 30).  The figure's bar heights for Optimus and
JPS ``N = 20, 40`` are not in the text.

What we do (``jct.normalized_jct``): every scheme runs through the registry
(``p.run``) and every placement is re-evaluated by the checker; the figure
uses the checker's objective only.  The denominator is the certified
optimum of P1 (``p.solve_offline``, the exact MILP of ``models/hetero.py``;
the paper's exhaustive search would need ~1.1e11 placements at ``K = 30``).
A ratio is reported only when the solve proved optimality (``opt_status ==
"optimal"``, ``kind == "proven"``); otherwise ``normalized`` is NaN and the
row carries the interval ``[avg_jct / incumbent, avg_jct / bound]``
(``kind == "interval"``).  The optimum's own placement is a row too
(``scheme == "optimum"``, checked like the others).

Readings and choices
--------------------
* *100 rounds of JPS* = sampler seeds ``0..99`` (``p.run("jps", inst,
  seed=r, params=JpsParams(n_samples=N))``) on the same instance; the rest of JPS is at the
  paper's defaults (``alpha = 0.7``, ``beta = 1``, prioritising, Alg. 2's
  market).  One CSV row per round.  The *90% confidence interval* is read
  as the t-interval of the mean over the rounds (``ci90_lo``/``ci90_hi`` of
  the summary); the 5th-95th percentiles of the rounds are given too.
* Instances, two settings (column ``setting``, ``common.make_instance``):

  - ``h115`` (the figure's main bars; the claims are read on it): the first
    ``S`` jobs of Table III (ResNet-101, ResNet-18, VGG-19, AlexNet for
    ``S = 4``) and GPU counts chosen for the paper's heterogeneity degree
    ``H = 1.15`` (35) (8 T4, 5 P100, 2 V100 at ``K = 15``; 15/12/3 at
    ``K = 30``).  The seed only permutes the job order here, so one seed is
    used.
  - ``mix111``: the generator's default 1:1:1 GPU mix with ``S`` distinct
    random Table III jobs, seeds ``0..4``; ``H`` is 1.27-1.5 with our
    throughput table, not 1.15 (docs/hetero.md, "Generator").

  The paper states both "1:1:1" and ``H = 1.15`` for its default setting,
  which our (partly estimated) throughput table cannot satisfy at once.

CSV: one row per instance x scheme (x JPS round), with ``setting``,
``seed``, ``n_jobs``, ``n_workers`` (enough to regenerate the instance with
``common.make_instance``), the checker's ``avg_jct`` (s) and ``fairness``
(33), the optimum's value/bound/status, ``normalized`` and the paper's value
``paper_normalized`` where the text gives one.  Full run: both settings,
``K = 15, 30``, 100 rounds, 600 s per optimum; quick: ``h115``, 3 rounds,
60 s, and no HAS at ``K = 30`` (3,654 categories).

Verdicts
--------
Every number is a ratio to exhaustive search, judged on its loss (ratio -
1): within ``max(10% of the paper's loss, 0.5 pp)``, the house 10% applied
to the loss (10% of the ratio would accept a 10-pp loss where the paper
states none; ``common.ratio_near``).  Optimus-LB's claim also has a trend:
it loses and trails HAS and JPS ``N = 60`` at every ``K`` (the paper's
ranking).  Ours (full run, 2026-11-25) is 1.087 / 1.037, *ahead* of HAS
(1.094 / 1.050) and JPS (1.107 / 1.085): the ranking is reversed, so the
claim is ``not reproduced``, not ``trend only``.  HAS's "same JCT" and
JPS's losses have no direction beyond the number (a loss is never
negative), so no trend.

Sizes
-----
Paper: ``S = 4`` jobs on ``K = 15`` and ``30`` GPU workers of the authors'
testbed (Compute Canada, V100/P100/T4), JPS over 100 rounds, one instance
per ``K`` (jobs and GPU counts not listed).  Ours: the same ``S``, ``K``
and 100 rounds, on simulated instances (``h115``: one per ``K``; ``mix111``:
five seeds per ``K``) with a throughput table that is partly estimated
(docs/hetero.md), because the paper's instance (its throughput matrix (9)
and GPU counts) is not printed; the exact MILP replaces the enumeration
(same optimum, certified).
"""

from optsched.core.experiment import Claim, Experiment
from optsched.core.plots import Bars
from optsched.hetero.experiments import jct as ex
from optsched.hetero.experiments.common import LOSS_TOLERANCE, cells_hold, ratio_near

_SIZES = {"n_jobs": 4, "n_workers": [15, 30]}
_K = (15, 30)


def _paper(scheme: str) -> tuple[float, ...]:
    return tuple(ex.PAPER_NORMALIZED[(k, scheme)] for k in _K)


def _claim(scheme: str, quote: str) -> Claim:
    """A scheme's mean ratio per K, each within :data:`LOSS_TOLERANCE` of the paper's."""
    paper = _paper(scheme)
    return Claim(
        f"{ex.LABELS[scheme]} {quote}: mean JCT / OPT at K = 15 / 30 (h115)",
        " / ".join(str(p) for p in paper),
        lambda df: ex.mean_ratios(df, scheme, _K),
        holds=lambda v: cells_hold(v, [ratio_near(p) for p in paper]),
        tolerance=LOSS_TOLERANCE,
    )


_LB = _paper("optimus_lb")

SPEC = Experiment(
    name="fig9_normalized_jct",
    paper="hetero",
    ref="Fig. 9, Sec. VI-B1",
    doc=__doc__,
    task=ex.normalized_jct,
    grid=ex.full_grid(_SIZES),
    quick=ex.quick_grid(_SIZES, rounds=3),
    columns=ex.FIG9_COLUMNS,
    plot=Bars(
        x="scheme",
        y="normalized",
        hue="setting",
        facet="n_workers",
        where="scheme != 'optimum'",
        labels=ex.SETTING_LABELS,
        paper="paper_normalized",
        hlines={"optimum": 1.0},
        ylabel="average JCT / optimum (checker; mean, 5-95%)",
        title="Fig. 9: normalised JCT, S = 4 (diamonds: the paper's text)",
    ),
    summary=ex.summarize_normalized,
    claims=[
        Claim(
            "Optimus-LB incurs losses of 15.1% (behind HAS and JPS N=60): mean JCT / "
            "OPT at K = 15 / 30 (h115); trend: it loses and trails both at every K",
            " / ".join(str(p) for p in _LB),
            lambda df: ex.ranking(df, "optimus_lb", ("has", "jps_n60"), _K),
            holds=lambda v: cells_hold(v.cells, [ratio_near(p) for p in _LB]),
            trend=lambda v: v.behind_all(),
            tolerance=LOSS_TOLERANCE,
        ),
        _claim("has", "incurs the same JCT as exhaustive search"),
        _claim("jps_n60", "incurs losses of 0.54% / 2.04%"),
        Claim("instances with a proven optimum", "-", ex.proven_optima),
    ],
)
