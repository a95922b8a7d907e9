"""Fig. 9 of Wang et al.: preemption frequency of the preemptive schemes vs the number of jobs.

The paper (Sec. V-C): *A_online can reduce resource contention by
offloading overloaded workload to the cloud* (fewer preemptions than
A_online-E), and *the number of preemption triggered by A_online is larger
than SRTF*; in the testbed (Fig. 5) *preemption gets more frequent with the
increasing number of tested jobs*.

Same runs as Fig. 7 (``ex.jct_rate``, ``ex.BY_JOBS``); the preemption count
is the checker's: a chunk that resumes after a gap counts once per gap
(BatchSche never preempts and is left out of the plot).
"""

from optsched.core.experiment import Claim
from optsched.edgecloud import experiments as ex

X = "n_jobs"

SPEC = ex.jct_figure(
    9,
    X,
    "preemptions",
    doc=__doc__,
    claims=[
        *ex.preemption_claims(X),
        *[
            Claim(
                f"preemptions of {ex.LABELS[s]} grow with J (most minus fewest jobs)",
                "> 0",
                lambda df, s=s: ex.trend(df, X, s, "preemptions"),
                holds=lambda v: v > 0,
                fmt="{:+.0f}",
            )
            for s in ex.PREEMPTIVE
        ],
    ],
)
