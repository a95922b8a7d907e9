"""Fig. 17 of Liu et al. (TPDS 2024): static vs dynamic policies (reset events) and Gavel.

What the paper shows (Sec. VI-B2, Fig. 17, ``S = 4``, ``K = 15``): the
average JCT and the makespan (largest JCT) of every scheme with a *static*
policy (placement computed once at submission) and with a *dynamic* one
(*when a job completion happens, the policy will be recomputed among the
remaining active jobs*), and Gavel (round-based, recomputed occasionally).
Claims: *compared with the static policy, the average JCT is reduced ranging
from 17.01% to 41.67%* and *the makespan is reduced ranging from 27.34% to
44.35%*; *compared with Gavel, the average JCT and the makespan yielded by HAS
with reset events are decreased by 21.2% and 71.3%, respectively*.

What we do: every job is submitted at time 0 and run to completion by
:func:`optsched.hetero.simulate.simulate` (``dynamic=False`` / ``True``) for
Optimus, Optimus-LB, HAS, JPS (``N = 60``, paper defaults ``alpha = 0.7``,
``beta = 1``; several sampler seeds) and the exhaustive search (the optimum
placement of P1 at every decision), and by ``simulate(inst, "gavel")``
(rounds of 6 minutes, scale factors ``[5, 5, 5, 5]``, allocation recomputed
after a round with a completion).  Every placement a policy produces, at time
0 and at every reset, is recorded and re-checked with ``p.check`` on the
(sub-)instance it was computed for; a job's progress rate comes from the
checker's latencies (inside ``simulate``), so the JCTs are the checker's.  In
static mode the task also asserts that every completion equals the checker's
JCT (7) of the time-0 placement.

Instances (``resets.instance``): ``S = 4``, ``K = 15``, two GPU settings
(column ``setting``):

* ``1:1:1``: 5 T4, 5 P100, 5 V100 (the paper's default testbed ratio);
* ``H=1.15``: ``generate(heterogeneity=1.15)``, the paper's stated default
  ``H`` (with our throughput table: 8 T4, 5 P100, 2 V100 for the first four
  jobs; docs/hetero.md explains why 1:1:1 gives ``H`` about 1.26 here).

and the five 4-job subsets of Table III (column ``pool`` = the job left
out): ``no_Transformer`` = ResNet-101, ResNet-18, VGG-19, AlexNet is the
instance of Figs. 9-14 and of docs/hetero.md; the others contain the
Transformer, a 3-epoch job that finishes first and triggers an early reset.
The paper does not say which four of its five jobs form the default ``S = 4``.
Throughputs carry no noise, so the instance seed (0) only permutes the job
order; different seeds are not different instances.

Readings and choices
--------------------
* "Reduction" of a scheme = ``1 - dynamic / static`` of the same scheme on
  the same instance (JPS: same sampler seed), per metric; the paper's ranges
  are over schemes, so the claims set the range of the schemes' mean
  reductions (over instances, JPS seeds and settings) beside them.
* "Exhaustive search" as a policy = ``p.run("exhaustive")``, optimal for P1
  at every decision; the dynamic policy is then a sequence of optimal
  placements, not an optimal dynamic schedule.
* HAS vs Gavel = ``1 - HAS dynamic / Gavel`` (Gavel's row carries it).
* Gavel's scale factor ``n_workers // 3`` (= 5 at ``K = 15``: the GPUs of one
  type on the 1:1:1 testbed, the paper's maximum and best value, Fig. 18),
  for every job and both settings; with 2 V100 (``H=1.15``) a job of scale 5
  cannot use the V100s at all (Gavel gangs ``scale_factor`` GPUs of one
  type).  Gavel's own tie-breakers, deficits and round length are those of
  :mod:`optsched.hetero.simulate` (docs/hetero.md).
* JPS is re-seeded with the same sampler seed at every reset.

Verdicts: the ranges of cuts must lie inside the paper's ranges widened by
``max(10%, 0.5 pp)`` at each end (``common.widen``), with the direction
(every scheme's mean cut positive) as the trend; HAS vs Gavel must be
within ``max(10%, 0.5 pp)`` of 21.2% and 71.3% in every setting, the
direction (HAS cuts both in every setting) as the trend.  Ours (full run
2026-11-25): 1:1:1 14.79% / 35.94%, H=1.15 40.31% / 54.08%: ``trend
only`` (HAS beats Gavel everywhere, by other margins).

Sizes
-----
Paper: ``S = 4`` jobs on the ``K = 15``-worker testbed, one job set (which
four of Table III's five is not said), JPS rounds not stated.  Ours: the
same ``S`` and ``K``, both GPU settings x the five 4-job subsets, 10 JPS
seeds, simulated with a partly estimated throughput table
(docs/hetero.md); the wider instance set stands in for the job set the
paper does not name.

CSV: one row per setting x instance x scheme x mode (x JPS sampler seed),
with ``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers`` to regenerate
the instance (``resets.instance``), ``jobs`` (drawn order), achieved
``heterogeneity`` and ``gpu_counts`` (T4/P100/V100), the completion time of
every job (``completion_s``, instance order, ``;``-separated), ``avg_jct``,
``makespan``, ``check_avg_jct`` (checker objective of the time-0 placement),
``opt_objective`` (certified optimum of P1, ``p.solve_offline``: a lower
bound of every static average JCT), and the reductions with the paper's
values beside them.  Full run: both settings x the five pools, 10 JPS seeds,
600 s per solve; quick: ``K = 9`` (Gavel scale factor 3), ``no_Transformer``
only, one JPS seed, 60 s.
"""

from optsched.core.experiment import Claim, Experiment
from optsched.hetero.experiments import resets as ex
from optsched.hetero.experiments.common import (
    PCT_FLOOR,
    PCT_TOLERANCE,
    pct_near,
    widen,
)

_FIXED = {"seed": 0, "n_jobs": 4, "n_samples": ex.JPS_N, "round_s": ex.ROUND_S}
#: Metric -> (its name, the paper's range of reductions over schemes).
_CUTS = {
    "avg_jct": ("average JCT", ex.PAPER_AVG),
    "makespan": ("makespan", ex.PAPER_MAKESPAN),
}

SPEC = Experiment(
    name="fig17_reset_events",
    paper="hetero",
    ref="Fig. 17, Sec. VI-B2",
    doc=__doc__,
    task=ex.reset_events,
    grid={
        "setting": list(ex.SETTINGS),
        "pool": list(ex.POOLS),
        **_FIXED,
        "n_workers": 15,
        "jps_seeds": 10,
        "scale_factor": 5,
        "time_limit": 600.0,
    },
    quick={
        "setting": list(ex.SETTINGS),
        "pool": [ex.DEFAULT_POOL],
        **_FIXED,
        "n_workers": 9,
        "jps_seeds": 1,
        "scale_factor": 3,
        "time_limit": 60.0,
    },
    columns=ex.FIG17_COLUMNS,
    post=ex.integer_columns,
    plot=ex.plot_reset_events,
    summary=ex.summarize_reset_events,
    claims=[
        *(
            Claim(
                f"reset events cut the {what} by {lo:.2%}-{hi:.2%} (every scheme's mean cut)",
                f"{lo:.2%}..{hi:.2%}",
                lambda df, m=metric: ex.reduction_span(df, m),
                holds=lambda s, lo=lo, hi=hi: s.within(
                    widen(lo, hi, abs_tol=PCT_FLOOR)
                ),
                trend=lambda s: s.lo > 0,
                tolerance=f"each end {PCT_TOLERANCE}",
            )
            for metric, (what, (lo, hi)) in _CUTS.items()
        ),
        Claim(
            "reset events cut both average JCT and makespan (share of dynamic runs)",
            1.0,
            ex.share_improved,
            holds=lambda v: v == 1.0,
            fmt="{:.0%}",
        ),
        Claim(
            "HAS with reset events cuts Gavel's average JCT / makespan (mean per setting)",
            "21.2% / 71.3%",
            ex.gavel_reductions,
            holds=lambda v: v.hold(*(pct_near(p) for p in ex.PAPER_HAS_VS_GAVEL)),
            trend=lambda v: v.hold(*(lambda x: x > 0,) * 2),
            tolerance=f"{PCT_TOLERANCE}, in every setting",
        ),
        Claim(
            "HAS with reset events beats Gavel on both metrics (share of instances)",
            1.0,
            ex.share_beats_gavel,
            holds=lambda v: v == 1.0,
            fmt="{:.0%}",
        ),
    ],
)
