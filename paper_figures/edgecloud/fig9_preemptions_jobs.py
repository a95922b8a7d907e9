"""Fig. 9 of Wang et al.: preemption frequency of the preemptive schemes vs the number of jobs.

The paper (Sec. V-C): *A_online can reduce resource contention by
offloading overloaded workload to the cloud* (fewer preemptions than
A_online-E), and *the number of preemption triggered by A_online is larger
than SRTF*; in the testbed (Fig. 5) *preemption gets more frequent with the
increasing number of tested jobs*.

Same runs as Fig. 7 (``ex.jct_rate``, ``ex.BY_JOBS``); the preemption count
is the checker's: a chunk that resumes after a gap counts once per gap
(BatchSche never preempts and is left out of the plot).

Claims: the two orderings (at every ``J``) are qualitative; the growth of
each scheme's preemptions with ``J`` (at 300 jobs minus at 50) is the
paper's statement for the testbed (Fig. 5) checked on the simulator, so
its status is ``reading`` when it holds (``ex.TESTBED_READING``).

Sizes.  As Fig. 7: paper 100 servers and up to 300 jobs; ours 100 edge
servers and 50-300 jobs (the same runs).
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
                reading=ex.TESTBED_READING,
                fmt="{:+.0f}",
            )
            for s in ex.PREEMPTIVE
        ],
    ],
)
