"""Fig. 13 of Wang et al.: competitive ratio of A_online vs the number of servers and eps.

The paper's claims and our two denominators are those of Fig. 12 (see its
spec and ``ex.competitive_ratio``); here 25 jobs on 5-45 edge servers of the
reduced input (``ex.REDUCED``).  Full: 5 server counts x 3 seeds x eps in
{0, 0.1, 0.25, 0.5}, 60 s per solve; quick: 1 and 3 servers, 4 jobs, 10 s.
"""

from optsched.core.experiment import Experiment
from optsched.edgecloud import experiments as ex

X = "n_servers"

SPEC = Experiment(
    name="fig13_ratio_servers",
    paper="edgecloud",
    ref="Fig. 13, Sec. V-C",
    doc=__doc__,
    task=ex.competitive_ratio,
    grid={
        "n_servers": [45, 35, 25, 15, 5],
        "n_jobs": 25,
        "seed": list(range(3)),
        **ex.REDUCED,
    },
    quick={"n_servers": [3, 1], "n_jobs": 4, "seed": [0], **ex.REDUCED_QUICK},
    columns=ex.RATIO_COLUMNS,
    sort=[X, "seed", "eps"],
    plot=ex.plot_ratio(X, "Fig. 13: competitive ratio of A_online vs S"),
    summary=ex.summarize_ratio(X),
    claims=ex.ratio_claims(X),
)
