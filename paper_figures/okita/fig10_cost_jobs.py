"""Fig. 10 of Han et al.: total cost of every algorithm vs the number of jobs I.

The paper (Sec. V-C): *Okita performs better than other baselines,
especially in a large scale of input*; the abstract: *Okita reduces up to
20% ~ 65% of the total cost, compared to three benchmarks* (read: Okita's
largest reduction against each benchmark lies in 20-65%).

Ours: Sec. V-B's setting (``R = 50`` sites, ``T = 150``, exponential
latency cost) with I from 20 to 100, 3 seeds; total cost (2) per scheme from
the checker (latency and bandwidth parts as columns), schedules past ``T``
checked with ``T`` extended to the makespan (``past_T``).  Full: 5 values of
I x 3 seeds; quick: I = 3, 6 on 4 sites, ``T = 30``.
"""

from optsched.core.experiment import Experiment
from optsched.okita import experiments as ex

X = "n_jobs"

SPEC = Experiment(
    name="fig10_cost_jobs",
    paper="okita",
    ref="Fig. 10, Sec. V-C",
    doc=__doc__,
    task=ex.total_cost,
    grid={**ex.SIM, X: [20, 40, 60, 80, 100], "seed": list(range(3))},
    quick={**ex.SIM_QUICK, X: [3, 6], "seed": [0]},
    columns=ex.COST_COLUMNS,
    sort=[X, "seed", "scheme"],
    plot=ex.lines(X, "total", "total cost (2)", "Fig. 10: total cost vs I"),
    summary=ex.summarize_cost(X),
    claims=ex.cost_claims(X, "I"),
)
