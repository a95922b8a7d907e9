"""Fig. 18 of Liu et al. (TPDS 2024): Gavel's average JCT against one job's scale factor.

What the paper shows (Sec. VI-B2, Fig. 18, ``S = 4``, ``K = 15``): *the
average JCT of using Gavel with the increased value of predefined
scale_factor_i for a learning job ... the scale factors of other learning
jobs are set to 5*.  Gavel gangs ``scale_factor_i`` GPUs of a single type per
round, so *the maximum value of scale_factor_i is 5* (5 GPUs per type on the
1:1:1 testbed).  Claims: *the average JCT decreases with the increased value
of scale_factor_i from 1 to 5* and *the lowest JCT of using Gavel can be
achieved when the scale factors of four learning jobs are set to
[5, 5, 5, 5]*.  No numbers are given.

What we do: :func:`optsched.hetero.simulate.simulate` with policy
``"gavel"`` (Gavel's round mechanism, rounds of 6 minutes, allocation
recomputed after a round with a completion; docs/hetero.md), all jobs
submitted at time 0.  The caption does not say which job is varied, so we
vary **each job in turn** (column ``varied_job``): its scale factor goes
``1..sf_max`` while the others stay at ``sf_max = n_workers // 3`` (5 at
``K = 15``).  Completions come from the checker's latencies of every round's
equal-split placement (inside ``simulate``).

Instances: those of Fig. 17 (``resets.instance``): settings ``1:1:1`` (5 T4, 5 P100, 5 V100; the paper's testbed, where
5 is the largest feasible scale factor) and ``H=1.15``
(``generate(heterogeneity=1.15)``: 8 T4, 5 P100, 2 V100 for the first four
jobs, so a job of scale factor 3-5 cannot use the V100s), and the five 4-job
subsets of Table III (column ``pool`` = the job left out; ``no_Transformer``
is the instance of Figs. 9-14), seed 0.

Readings and choices
--------------------
* "Decreases" is checked per curve (instance x varied job) as
  non-increasing up to a relative ``1e-9`` (column ``curve_decreasing``), and
  "lowest at [5, 5, 5, 5]" as the all-``sf_max`` value being the curve's
  minimum (``curve_lowest_at_max``).
* The ``[sf_max] * S`` run is shared by every curve of an instance.

Verdicts: both statements are qualitative and must hold on every curve
(share 100%), per setting; no tolerance.  The paper's statement is for its
1:1:1 testbed; ``H=1.15`` is our second setting (2 V100 only, so a scale
factor of 3-5 cannot use them), judged the same way.

Sizes
-----
Paper: ``S = 4`` jobs on the ``K = 15``-worker 1:1:1 testbed, one varied
job (not named), one job set (not named).  Ours: the same ``S`` and ``K``,
each job varied in turn, both settings x the five 4-job subsets,
simulated with a partly estimated throughput table (docs/hetero.md).

CSV: one row per setting x instance x varied job x scale factor, with
``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers`` (regenerate with
``resets.instance``), ``jobs``, ``heterogeneity``, ``gpu_counts``
(T4/P100/V100), ``varied_job`` / ``varied_name``, ``scale_factor`` (of the
varied job) and ``scale_factors`` (all jobs, ``;``-separated), ``avg_jct``,
``makespan``, ``completion_s`` (instance order), ``normalized`` (avg JCT
over the instance's ``[sf_max] * S`` value) and the paper's trend.  Full run:
``K = 15`` (scale factors 1..5), both settings x the five pools; quick:
``K = 9`` (1..3), ``no_Transformer`` only.
"""

from optsched.core.experiment import Claim, Experiment
from optsched.core.plots import Line
from optsched.hetero.experiments import resets as ex

_FIXED = {"seed": 0, "n_jobs": 4, "round_s": ex.ROUND_S}


#: Per-curve flag -> (the paper's claim, its value); a claim per setting each.
_TREND = {
    "curve_decreasing": ("average JCT decreases as scale_factor_i grows", "decreasing"),
    "curve_lowest_at_max": (
        "lowest average JCT with all at the maximum ([5, 5, 5, 5])",
        "all at max",
    ),
}

SPEC = Experiment(
    name="fig18_gavel_scale",
    paper="hetero",
    ref="Fig. 18, Sec. VI-B2",
    doc=__doc__,
    task=ex.gavel_scale,
    grid={
        "setting": list(ex.SETTINGS),
        "pool": list(ex.POOLS),
        **_FIXED,
        "n_workers": 15,
        "sf_max": 5,
    },
    quick={
        "setting": list(ex.SETTINGS),
        "pool": [ex.DEFAULT_POOL],
        **_FIXED,
        "n_workers": 9,
        "sf_max": 3,
    },
    columns=ex.FIG18_COLUMNS,
    plot=Line(
        x="scale_factor",
        y="normalized",
        hue="varied_name",
        facet="setting",
        order=list(ex.MODELS),
        estimator="mean",
        band=(0.0, 100.0),
        hlines={"all at sf_max": 1.0},
        xlabel="scale_factor of the varied job (others at the maximum)",
        ylabel="avg JCT / avg JCT at [sf_max] * S (mean, min-max)",
        title=f"Fig. 18: Gavel, one job's scale factor varied; paper: {ex.PAPER_TREND}",
    ),
    summary=ex.summarize_gavel_scale,
    claims=[
        Claim(
            f"{setting}: {text} (share of curves)",
            paper,
            lambda df, f=flag, s=setting: ex.curve_share(df, f, s),
            holds=lambda v: v == 1.0,
            fmt="{:.0%}",
        )
        for setting in ex.SETTINGS
        for flag, (text, paper) in _TREND.items()
    ],
)
