"""Fig. 8 of Han et al.: performance ratio of every algorithm, by R and I.

The paper (Sec. V-C): *the performance ratio of Okita is the smallest,
indicating that the solution computed by Okita is closer to the optimal*
(against FIFO, DRF and OASiS).

Ours: the instances and certified optimum of Fig. 7 (same sizes, seeds and
time limit; ``optsched.okita.experiments.performance_ratio``), with the four
schemes.  Schedules with PS gaps get no ratio; their count per scheme is a
claim row.  Full: 7 sizes x 10 seeds; quick: 2 sizes x 1 seed at ``T = 12``.

The claim is an ordering: ``reproduced`` when Okita's mean proven ratio is the
smallest.

Sizes.  Those of Fig. 7 (paper: on the figure's axes only; ours: ``T = 16``,
R 2-4 at ``I = 4`` and I 2-6 at ``R = 3``, 10 seeds, the sizes whose optimum
the exact MILP proves within 60 s).
"""

from optsched.core.experiment import Claim, Experiment
from optsched.okita import experiments as ex

SPEC = Experiment(
    name="fig8_ratio_all",
    paper="okita",
    ref="Fig. 8, Sec. V-C",
    doc=__doc__,
    task=ex.performance_ratio,
    grid=[{**s, "seed": list(range(10)), **ex.SMALL} for s in ex.SMALL_SIZES],
    quick={"n_sites": [2, 3], "n_jobs": 3, "seed": [0], **ex.SMALL_QUICK},
    columns=ex.RATIO_COLUMNS,
    sort=["n_sites", "n_jobs", "seed", "scheme"],
    post=ex.with_size,
    plot=ex.bars("size", "ratio", "ALG / OPT", "Fig. 8: performance ratio"),
    summary=ex.summarize_ratio("size"),
    claims=[
        Claim(
            "Okita's performance ratio is the smallest (mean proven ratio per scheme)",
            "Okita smallest",
            ex.mean_ratio_per_scheme,
            holds=ex.PerScheme.okita_lowest,
        ),
        Claim(
            "schedules past T / with PS gaps (ours)",
            "-",
            ex.past_horizon,
        ),
    ],
)
