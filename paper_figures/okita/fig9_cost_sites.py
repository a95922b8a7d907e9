"""Fig. 9 of Han et al.: total cost of every algorithm vs the number of sites R.

The paper (Sec. V-C): *Okita performs better than other baselines,
especially in a large scale of input*; the abstract: *Okita reduces up to
20% ~ 65% of the total cost, compared to three benchmarks* (read: Okita's
largest reduction against each benchmark lies in 20-65%).

Ours: Sec. V-B's setting (``I = 100`` jobs, ``T = 150``, exponential
latency cost) with R from 10 to 50, 3 seeds; total cost (2) per scheme from
the checker (latency and bandwidth parts as columns), schedules past ``T``
checked with ``T`` extended to the makespan (``past_T``).  Full: 5 values of
R x 3 seeds; quick: R = 3, 5 with 6 jobs, ``T = 30``.
"""

from optsched.core.experiment import Experiment
from optsched.okita import experiments as ex

X = "n_sites"

SPEC = Experiment(
    name="fig9_cost_sites",
    paper="okita",
    ref="Fig. 9, Sec. V-C",
    doc=__doc__,
    task=ex.total_cost,
    grid={**ex.SIM, X: [10, 20, 30, 40, 50], "seed": list(range(3))},
    quick={**ex.SIM_QUICK, X: [3, 5], "seed": [0]},
    columns=ex.COST_COLUMNS,
    sort=[X, "seed", "scheme"],
    plot=ex.lines(X, "total", "total cost (2)", "Fig. 9: total cost vs R"),
    summary=ex.summarize_cost(X),
    claims=ex.cost_claims(X, "R"),
)
