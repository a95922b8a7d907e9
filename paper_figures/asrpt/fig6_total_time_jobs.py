"""Fig. 6 of Luo et al.: total completion time vs the number of jobs.

The paper (Sec. V-B-2-a): 37,500-150,000 jobs (5%-20% of the trace) on 250
servers x 8 GPUs; *A-SRPT consistently outperforms baselines, reducing
total job completion times by 31% to 91%*; *SPJF performs the worst*.

Ours: windows of 5%-20% of the shipped Alibaba v2023 sample (6,203 usable
jobs: 310-1,240 jobs) on 2 servers x 8 GPUs (the paper's jobs per GPU),
history = the jobs before the window (at least the first half), random
forest predictions, 10 Gbps NIC, 300 GB/s NVLink; 3 windows (seeds).  Every
schedule is checked; ``ratio_hi`` is the certified upper end of its ratio
against OPT (total / lower bound).  Full: 4 sizes x 3 seeds; quick: 100
jobs, one seed.  The real trace holds 8,152 pods, so the paper's job counts
cannot be drawn from it (docs/asrpt.md).
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Experiment

X = "n_jobs"

SPEC = Experiment(
    name="fig6_total_time_jobs",
    paper="asrpt",
    ref="Fig. 6, Sec. V-B-2-a",
    doc=__doc__,
    task=ex.total_time,
    grid={**ex.TRACE, X: [310, 620, 930, 1240], "seed": [0, 1, 2]},
    quick={**ex.TRACE, X: [100], "seed": [0]},
    columns=ex.TIME_COLUMNS,
    sort=[X, "seed", "scheme", "predictor"],
    plot=ex.lines(X, "jobs (window of the trace)", "Fig. 6: total completion time"),
    summary=ex.summarize(X),
    claims=ex.reduction_claims(
        X, "A-SRPT's reduction against the baselines", "31%-91%", 0.31, 0.91
    ),
)
