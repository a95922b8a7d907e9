"""Fig. 10 of Wang et al.: preemption frequency of the preemptive schemes vs the number of servers.

The paper (Sec. V-C) draws the same conclusions as for Fig. 9: A_online
preempts less than A_online-E (it offloads to the cloud under contention)
and more than SRTF.  Same runs as Fig. 8 (``ex.jct_rate``,
``ex.BY_SERVERS``); preemptions are the checker's count.
"""

from optsched.core.experiment import Experiment
from optsched.edgecloud import experiments as ex

X = "n_servers"

SPEC = Experiment(
    name="fig10_preemptions_servers",
    paper="edgecloud",
    ref="Fig. 10, Sec. V-C",
    doc=__doc__,
    task=ex.jct_rate,
    grid=ex.BY_SERVERS,
    quick=ex.BY_SERVERS_QUICK,
    columns=ex.JCT_COLUMNS,
    sort=[X, "seed", "scheme"],
    plot=ex.plot_lines(
        X,
        "preemptions",
        "preemptions (total)",
        "Fig. 10: preemption frequency vs S",
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
    ],
)
