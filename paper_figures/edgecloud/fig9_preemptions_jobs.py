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

from optsched.core.experiment import Claim, Experiment
from optsched.edgecloud import experiments as ex

X = "n_jobs"

SPEC = Experiment(
    name="fig9_preemptions_jobs",
    paper="edgecloud",
    ref="Fig. 9, Sec. V-C",
    doc=__doc__,
    task=ex.jct_rate,
    grid=ex.BY_JOBS,
    quick=ex.BY_JOBS_QUICK,
    columns=ex.JCT_COLUMNS,
    sort=[X, "seed", "scheme"],
    plot=ex.plot_lines(
        X,
        "preemptions",
        "preemptions (total)",
        "Fig. 9: preemption frequency vs J",
        ex.PREEMPTIVE,
    ),
    summary=lambda df: ex.mean_by(df, X, "preemptions"),
    claims=[
        ex.always(
            "A_online preempts less than A_online-E",
            X,
            "a_online",
            ("a_online_e",),
            "preemptions",
        ),
        ex.always(
            "A_online preempts more than SRTF", X, "srtf", ("a_online",), "preemptions"
        ),
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
