"""Fig. 12 of Wang et al.: competitive ratio of A_online vs the number of jobs and eps.

The paper (Sec. V-C) divides A_online's total JCT with ``(1 + eps)``-speed
workers by the optimum of ILP (4) with ``zeta_j = 1`` (a lower bound on the
optimum, so the quotient bounds the true ratio from above), on a "reduced
input" of 5-25 jobs and 5-45 servers: *the number of jobs or servers has
little influence on the competitive ratio*, *the observed competitive ratio
remains at a low level (< 1.7) and is much better than the theoretical
bound*, *the larger the eps, the smaller the ratio, and A_online is close to
optimal when eps = 0.5*.

``ex.competitive_ratio`` reports both denominators as separate columns: the
paper's (``paper_ratio``; ``paper_ratio_hi`` against the ILP's proven lower
bound when HiGHS did not close it) and ours, the exact optimum of (2) by the
MILP in formulation v3 (``ex.RATIO_FORMULATION``) (``ratio`` when proven, else ``[ratio_lo, ratio_hi]``), with Theorem 3's
``D_max (1 + 1/eps)`` beside them.  Reduced input: 8-hour slots, ``T = 60``,
at most 3 chunks per job (``ex.REDUCED``), 5 edge servers.  Note that ILP
(4)'s objective (3) is the *average fractional* flow time (chunk weights
``1/D_j``), not the total JCT; the paper's quotient mixes the two.  Full:
5-25 jobs x 3 seeds x eps in {0, 0.1, 0.25, 0.5}, 60 s per solve; quick: 3
and 6 jobs on 2 servers, 10 s.

Claims (``ex.ratio_claims``): by default on the paper's quotient
(``paper_ratio``); the same "< 1.7" and "close to optimal" with the exact
optimum of (2) carry the reading ``ex.EXACT_READING``.  "Little influence
of J" is checked as: every plotted mean (per ``J`` and ``eps``) within
+-10% of the mean over ``J`` of its ``eps`` (``ex.influence``, the house
tolerance); "close to optimal" as a mean ratio of at most 1.1; "much
better than the bound" as every ``eps > 0`` row at most Theorem 3's bound.

Sizes.  The paper's reduced input (MATLAB's matrix limit): 5-25 jobs,
5-45 servers; ours the same counts (Fig. 12: 5-25 jobs on 5 servers) with
8-hour slots, ``T = 60`` and at most 3 chunks per job, because ILP (4)'s
LP with the full ``D_j`` has 1.5 M columns (docs/edgecloud.md).
"""

from optsched.edgecloud import experiments as ex

SPEC = ex.ratio_figure(
    12,
    {"n_jobs": [25, 20, 15, 10, 5], "n_servers": 5},
    {"n_jobs": [6, 3], "n_servers": 2},
    doc=__doc__,
)
