"""Fig. 16 of Liu et al. (TPDS 2024): average JCT versus the number of workers K.

What the paper shows (Sec. VI-B1, "Impact of K", Fig. 16): the average JCT
(8) of Optimus, Optimus-LB, JPS (``N = 40``) and HAS for ``S = 4`` jobs on
``K = 15, 30, 50, 100, 200, 300`` workers, the GPU types in the proportions
of the 15-worker scenario; *HAS is not applied to the scenarios of K = 200
and K = 300 due to the prohibitively high computational overheads*.  Claims:

* *with the increase of K, the average JCT produced by all four schemes
  decreases*;
* *JPS consistently achieves lower JCT compared to Optimus and Optimus-LB*,
  but *the performance gain of JPS over Optimus-LB diminishes* with K,
  because communication takes a growing share of the latency;
* at ``K = 300``, JPS (``N = 40``) has an *average communication latency of
  68.86 s and an average computation latency of 201.30 s*, Optimus-LB
  *69.13 s and 217.96 s*.  We read these as the averages over the jobs of
  ``T_i l_i^[c]`` and ``T_i l_i^[p]``, the two terms of the JCT (7), so
  that they add up to the average JCT (270.16 s and 287.09 s).

What we do (``scale.workers``, one task per instance): every scheme runs
through the registry (``p.run``) and every placement through the checker
(``p.check``); the JCT and both latency terms come from the checker's
evaluation (``jct``, ``comm_latency``, ``compute_latency`` per job), never
from the algorithm.  Schemes (column ``scheme``):

* ``optimus``, ``optimus_lb``: the baselines (equal split / proportional
  split (12); docs/hetero.md);
* ``jps_market``: JPS ``N = 40`` with Alg. 2's matching market (the
  paper's JPS); ``jps_exact``: JPS ``N = 40`` with P3 by the Hungarian
  method (``p3="exact"``: the same total throughput per category by
  Theorem 2, ties broken differently).  Both run at every K (the compiled
  market takes 3-11 s at ``K = 300`` here on 2 threads, 2026-11-24);
  ``market_max_k`` caps the market, column ``p3`` names a row's P3 solver;
* ``has``: only for ``K <= has_max_k`` (50: HAS over all ``C(49, 3) =
  18,424`` categories took 34-55 s at ``K = 50`` here with the compiled,
  multi-threaded markets, the paper's Table V 857.81 s; at ``K = 100`` the
  paper needed 12.98 h);
* ``optimum``: the certified optimum of P1 (``p.solve_offline``, exact MILP,
  via ``optimum``) with a time limit, up to ``opt_max_k``; ``opt_status``
  is ``optimal`` only when proven.  ``ratio_to_opt`` (the checker's JCT
  over the proven optimum of the same instance) is NaN otherwise;
  ``opt_bound`` is a valid lower bound in every case.

Readings and choices
--------------------
* Instances: ``generate(seed, 4, K)`` (the generator's 1:1:1 GPU mix of
  T4 / P100 / V100 laid out 5 per node, 4 distinct random Table III jobs),
  seeds ``0..2``.  The same seed draws the same jobs at every K, so each
  seed is a curve.  ``H`` (35) is about 1.27 (with AlexNet) to 1.5, not
  the paper's 1.15 (docs/hetero.md).
* JPS: ``alpha = 0.7``, ``beta = 1``, prioritising, sampler seed 0
  (``jps_seed``), one run per instance.
* "Decreases with K" is judged per (scheme, seed) curve with two or more K,
  the optimum left out; "consistently lower" per instance (K, seed).
* The paper's K = 300 latencies sit beside our means over seeds of the same
  quantities for ``jps_market`` and ``optimus_lb`` (``paper_avg_comm_s`` /
  ``paper_avg_comp_s`` / ``paper_avg_jct`` on those rows).  Our JCT scale
  differs (estimated throughputs, model sizes from parameter counts:
  docs/hetero.md), so only the shares and the ordering are comparable:
  the latency claims are judged on the communication share (within the
  house 10% of the paper's 25.5% / 24.1%), the seconds are printed beside.

Verdicts: "decreases with K", "consistently lower", "diminishes" and the
latency order are qualitative (they hold or not, no tolerance).

Sizes
-----
Paper: ``S = 4`` jobs on ``K = 15-300`` workers (the 15-worker testbed's
GPU proportions; the testbed has 15 and 30 workers and the text does not
say how K = 50-300 were run), one instance per K.
Ours: the same ``S`` and ``K`` on three seeds of simulated 1:1:1 instances
(partly estimated throughputs and model sizes, docs/hetero.md; the
paper's instances are not printed), the optimum with 120 s per solve.

CSV: one row per instance x scheme with ``seed``, ``n_jobs``, ``n_workers``
(regenerate with ``generate(seed, n_jobs, n_workers)``), the placement
(``assignment``: job of each worker, ``-1`` idle; ``split``: ``equal`` for
Optimus, ``proportional`` (12) otherwise), the checker's ``avg_jct``,
``avg_comm_s``, ``avg_comp_s`` (seconds, averages over jobs, summing to
``avg_jct``) and ``makespan``, the optimum's status/bound, the paper's
values and the wall-clock ``runtime_s`` (informational; see
``table5_running_time``).  Full run: K = 15-300, 3 seeds, HAS up to K = 50,
120 s per optimum; quick: K = 15, 30, one seed, HAS and the optimum at
K = 15 only, 30 s.
"""

from optsched.core.experiment import Claim, Experiment, near
from optsched.hetero.experiments import scale as ex

_FIXED = {"n_jobs": ex.N_JOBS, "market_max_k": 300}

SPEC = Experiment(
    name="fig16_workers",
    paper="hetero",
    ref="Fig. 16, Sec. VI-B1",
    doc=__doc__,
    task=ex.workers,
    grid={
        "n_workers": list(ex.FIG16_KS),
        "seed": [0, 1, 2],
        **_FIXED,
        "has_max_k": 50,
        "opt_max_k": 300,
        "time_limit": 120.0,
    },
    quick={
        "n_workers": [15, 30],
        "seed": [0],
        **_FIXED,
        "has_max_k": 15,
        "opt_max_k": 15,
        "time_limit": 30.0,
    },
    columns=ex.FIG16_COLUMNS,
    plot=ex.plot_workers,
    summary=ex.summarize_workers,
    claims=[
        Claim(
            "average JCT decreases with K for all schemes ((scheme, seed) curves)",
            "all",
            ex.decreasing_curves,
            holds=lambda v: v.all,
        ),
        *(
            Claim(
                f"{ex.LABELS[jps]} below Optimus and Optimus-LB on every instance",
                "all",
                lambda df, jps=jps: ex.jps_below(df, jps),
                holds=lambda v: v.all,
            )
            for jps in ("jps_market", "jps_exact")
        ),
        Claim(
            "JPS's gain over Optimus-LB (1 - JCT ratio, mean) diminishes with K",
            "diminishes",
            ex.gain_by_k,
            holds=lambda v: v.non_increasing(),
        ),
        *(
            Claim(
                f"K = 300, {ex.LABELS[s]}: average comm. / comp. latency (judged: "
                "comm. share)",
                ex.paper_latencies_text(key),
                lambda df, s=s: ex.latencies_at(df, s),
                holds=lambda v, k=key: near(ex.paper_comm_share(k))(v.comm_share),
                tolerance="communication share +-10% of the paper's; seconds printed "
                "only (our model sizes and throughputs are estimates)",
            )
            for s, key in (("jps_market", "jps"), ("optimus_lb", "optimus_lb"))
        ),
        Claim(
            "K = 300: JPS below Optimus-LB in both latency terms",
            "2/2 terms (68.86 < 69.13 s, 201.30 < 217.96 s)",
            ex.latency_order,
            holds=lambda v: v.all,
        ),
        Claim("optima proven (MILP), by K", "-", ex.proven_by_k),
    ],
)
