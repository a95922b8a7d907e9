"""Fig. 7 of Luo et al.: total completion time vs the share of single-GPU jobs.

The paper (Sec. V-B-2-b): 75,000 jobs, single-GPU share from 80% to 0%
("jobs randomly set for single-GPU or distributed training"); *as
single-GPU jobs decrease from 80% to 0%, A-SRPT increasingly outperforms
baselines, reducing total job completion time by 16% to 57%*.

Ours: windows of 620 jobs (10% of the usable sample, as 75,000 is of the
paper's trace) on 2 x 8 GPUs; every recurrence group is redrawn single-GPU
with the given probability, else 2, 4 or 8 GPUs (per group, so that
recurrence and the predictor survive; docs/asrpt.md); 3 seeds.  Quick: 100
jobs, shares 0.8 and 0.0.
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Experiment

X = "single_gpu_share"

SPEC = Experiment(
    name="fig7_single_gpu_share",
    paper="asrpt",
    ref="Fig. 7, Sec. V-B-2-b",
    doc=__doc__,
    task=ex.total_time,
    grid={**ex.TRACE, "n_jobs": 620, X: [0.8, 0.6, 0.4, 0.2, 0.0], "seed": [0, 1, 2]},
    quick={**ex.TRACE, "n_jobs": 100, X: [0.8, 0.0], "seed": [0]},
    columns=ex.TIME_COLUMNS,
    sort=[X, "seed", "scheme", "predictor"],
    plot=ex.lines(X, "share of single-GPU jobs", "Fig. 7: single-GPU share"),
    summary=ex.summarize(X),
    claims=ex.reduction_claims(
        X, "A-SRPT's reduction against the baselines", "16%-57%", 0.16, 0.57
    ),
)
