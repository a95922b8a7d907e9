"""Figs. 4, 5, 6 of Liu et al. (TPDS 2024): the landscape of feasible solution categories.

What the paper shows (Sec. V, S = 4 jobs, K = 15 and K = 30 workers, the
setting of Sec. VI-A): for every category ``{K_1, ..., K_S}`` of ``Psi``
(IDs in Alg. 1 order, ``|Psi| = C(K-1, S-1)`` = 364 and 3,654) the placement
of Alg. 2's matching market and

* Fig. 4: its average JCT (8), jobs in the instance order.  *A rough and
  changing periodicity*; e.g. (K = 15) ``{6, 6, 2, 1}`` (ID 18) and
  ``{5, 5, 2, 3}`` (ID 159) give 4,047.59 s and 4,046.35 s, and the 94th
  category ``{6, 5, 2, 2}`` gives the lowest JCT, 3,948.9 s, with fairness
  0.824.  Sampling ``N = 20`` categories of ``Psi`` and keeping the best
  increases the average JCT by 7.65% (K = 15) and 10.43% (K = 30)
  (Sec. V-B, citing Sec. VI-B).
* Fig. 5: its fairness degree (33); ranges [0.527, 0.994] (K = 15) and
  [0.384, 0.999] (K = 30).
* Fig. 6: the average JCT after job prioritising (Alg. 3 line 1: category
  ``{K_1, ..., K_S}`` gives ``K_j`` workers to the ``j``-th job in ascending
  order of ``T_i |Pi_i| / (S sum_k rho_{i,k})``): *a trend of decline*, so
  JPS samples the rear part ``Psi[alpha |Psi|, |Psi|]``; with ``N = 20`` and
  ``alpha = 0.7`` the increase drops to 2.95% (K = 15) and 5.10% (K = 30).

What we do (``categories.landscape``, one task per K):

* Instance: the first four jobs of Table III (ResNet-101, ResNet-18, VGG-19,
  AlexNet) with ``H = 1.15`` (35), the instance of docs/hetero.md's fairness
  evidence: ``generate(seed, 4, K, models=first four, heterogeneity=1.15)``
  (K = 15: 8 T4, 5 P100, 2 V100; K = 30: 15 T4, 12 P100, 3 V100).  The
  generator draws the jobs *without replacement*, i.e. a seed-dependent
  permutation of the four models, and the IDs of Fig. 4 depend on the job
  order; ``seed = 28`` is the smallest seed whose draw is Table III's order
  (asserted at run time).
* The market of Alg. 2 (``has_categories``: the compiled engine, prices
  reset per category) runs **once per K** over ``Psi`` in the instance's job
  order.  Prioritising only relabels the categories: prioritised ID ``j`` is
  ``c = category_at(j - 1)`` given to the jobs in priority order, i.e. the
  instance-order category ``c_jobs[order] = c``, itself in ``Psi`` (closed
  under permutations); the market is a deterministic function of
  ``(rho, c_jobs)``, so the rows look it up instead of running it again
  (tested against ``jps_samples``).  Figs. 4 and 6 thus show the same
  multiset of JCTs, and Fig. 5's range is the same for both orderings.
* Every placement (``HeteroPlacement.from_assignment``, split (12)) goes
  through the checker; ``avg_jct`` is the checker's objective and
  ``fairness`` is (33) on the checker's per-job JCTs with the equal-share
  reading of (32) (``fairness_degree``; docs/hetero.md).
* ``best_avg_jct``: the best category (= HAS's result); ``opt_avg_jct``:
  the certified optimum of P1 (``optimum``, the MILP).
* Sampling analogue of Sec. V-B (summary, ``expected_min``): the expected
  minimum of ``N = 20`` categories drawn uniformly without replacement,
  exact from the sorted JCTs (``P(min = v_(j)) = C(n - j, N - 1) / C(n,
  N)``), (a) over all of ``Psi`` (no prioritising; the order does not
  matter) and (b) over the rear part of the prioritised order (``alpha =
  0.7``: 0-based positions ``>= ceil(alpha |Psi|)``, ``rear_start``),
  relative to the best category and to the optimum.  This is JPS with
  ``beta = 1`` in expectation over its sampler seed.
* "Trend of decline": mean JCT of the rear 30% vs the front 70% and
  Spearman's rank correlation of JCT with the ID, for both orderings.

Verdicts
--------
* ``|Psi|``, the categories at IDs 18 / 159 / 94, Fig. 6's decline:
  exact or qualitative.
* The JCTs of IDs 18 / 159 / 94 and the lowest category's JCT and fairness:
  each within the house 10% of the paper's value; the trend of the three
  JCTs is the paper's relation (ID 94 lowest).  The lowest category must
  also be ID 94 = {6,5,2,2}.
* Fig. 5's fairness ranges: each end within 0.01 (tighter than the house
  10%, which would accept [0.47, 1.0] for [0.527, 0.994]; ours meets it).
* Sec. V-B's sampling increases: each within ``max(10%, 0.5 pp)`` of the
  paper's (``common.pct_near``), with the direction (the prioritised rear
  beats all of ``Psi`` at every K) as the trend.  Ours (full run
  2026-11-25): +13.53% -> +4.50% (K = 15), +17.48% -> +8.06% (K = 30)
  against +7.65% -> +2.95% and +10.43% -> +5.10%: ``trend only``.  Ours is
  the exact expectation over the sampler; the paper's is its measured
  average over rounds (count not stated).

Sizes
-----
Paper: ``S = 4`` jobs on ``K = 15`` and ``30`` workers of the authors'
testbed (one instance per K, not printed).  Ours: the same ``S`` and ``K``
on the simulated ``h115`` instance with a partly estimated throughput
table (docs/hetero.md), which is why the JCTs in seconds differ.

CSV: one row per K x ordering (``instance`` = Figs. 4-5, ``prioritised`` =
Fig. 6) x category ID; ``category`` as indexed (the ordering's job order),
``category_jobs`` in the instance's job order, ``job_order`` the instance
job index of each position.  ``paper_avg_jct`` / ``paper_fairness`` hold the
paper's values at IDs 18, 159, 94 (K = 15, instance ordering) and
``paper_fairness_lo`` / ``_hi`` the ranges of Fig. 5.  Any row is
regenerable from ``seed``, ``n_jobs``, ``n_workers``,
``heterogeneity_target`` and ``category_jobs`` (``market`` on
``inst.rho_hat``).  Full run: K = 15, 30, 600 s per optimum; quick: K = 8,
10 (35 and 84 categories), 30 s.
"""

from optsched.core.experiment import Claim, Experiment
from optsched.hetero.experiments import categories as ex

_TASK = {"seed": ex.SEED, "n_jobs": ex.N_JOBS, "alpha": ex.ALPHA}
_IDS = ex.PAPER_IDS[15]
_PCT = "{:+.2%} -> {:+.2%}"

SPEC = Experiment(
    name="fig4_6_categories",
    paper="hetero",
    ref="Figs. 4-6, Sec. V",
    doc=__doc__,
    task=ex.landscape,
    grid={**_TASK, "n_workers": [15, 30], "time_limit": 600.0},
    quick={**_TASK, "n_workers": [8, 10], "time_limit": 30.0},
    columns=ex.FIG4_6_COLUMNS,
    plot=ex.plot_landscape,
    summary=ex.summarize_landscape,
    claims=[
        Claim(
            "|Psi| = C(K-1, S-1) categories, S = 4 (listed in both orderings)",
            "K=15: 364, K=30: 3,654",
            ex.n_categories_per_k,
            holds=ex.psi_sizes_hold,
        ),
        Claim(
            "Fig. 4, K = 15: IDs 18 / 159 / 94 are {6,6,2,1} / {5,5,2,3} / {6,5,2,2}",
            ex.paper_id_categories(),
            lambda df: ex.paper_id_cells(df, "category"),
            holds=lambda v: v == ex.paper_id_categories(),
        ),
        Claim(
            "Fig. 4, K = 15: average JCT (s) of IDs 18 / 159 (similar) / 94 (lowest)",
            " / ".join(f"{v[1]:,.2f}" for v in _IDS.values()),
            ex.paper_id_jcts,
            holds=ex.paper_id_jcts_hold,
            trend=ex.id94_lowest,
            tolerance="+-10% of each value; trend: ID 94 the lowest of the three",
        ),
        Claim(
            "Fig. 4: lowest-JCT category (K = 15: ID 94 {6,5,2,2}, fairness 0.824)",
            "K=15: ID 94 {6,5,2,2} 3,948.9 s, F 0.824",
            ex.best_categories,
            holds=ex.best_category_holds,
            tolerance="ID and category exact; JCT and fairness +-10%",
        ),
        Claim(
            "Fig. 5: fairness degree range over Psi (ours within 0.01)",
            "K=15: [0.527, 0.994], K=30: [0.384, 0.999]",
            ex.fairness_ranges,
            holds=ex.fairness_ranges_hold,
            tolerance="+-0.01 at each end",
        ),
        Claim(
            "Sec. V-B: best of N = 20 categories, increase over the best: all of Psi "
            "-> prioritised rear 30% (ours: exact expectation; trend: rear < all)",
            ", ".join(
                f"K={k}: {_PCT.format(*v)}" for k, v in ex.PAPER_SAMPLING.items()
            ),
            ex.sampling_increases,
            holds=ex.sampling_holds,
            trend=ex.sampling_trend,
            tolerance=ex.SAMPLING_TOLERANCE,
        ),
        Claim(
            "Fig. 6: a trend of decline after prioritising (mean JCT rear 30% / front "
            "70%, Spearman JCT vs ID; Fig. 4 without prioritising beside)",
            "decline",
            ex.decline,
            holds=lambda v: bool(v) and all(r[0] < 1 for r in v.values()),
        ),
    ],
)
