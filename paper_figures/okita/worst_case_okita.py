"""Worst-case search for okita: best certified ratio vs evaluations (issue 14).

Not a figure of the paper: the paper proves (or does not prove) a
worst-case ratio and reports averages on random instances; this spec
searches the instance space at the size ``{'n_sites': 3, 'n_jobs': 3, 'n_slots': 12}`` (optima proven in
seconds) for the instance maximising the certified ratio of the paper's
own online algorithm (okita), with both methods of
``optsched.core.adversary`` (``anneal`` on the slice's mutations,
``evolve`` over the generator's parameters), and plots the best ratio found
against the number of evaluations.  Every point is certified: a proven
optimum, or the lower end of the ratio interval.  The paper's proven bound
(``okita``: no competitive ratio proven in the paper).

CSV: one row per evaluation (the search trace, ``adversary.TRACE_COLUMNS``
plus ``paper``, ``algorithm``, ``seed``).  Full run: 2,000 evaluations per
algorithm and method, seed 0, 30 s per solve, annealing from the worst of
8 generated instances (hours on 2 cores); quick: 3 evaluations, ``anneal``
only.  The summary over all papers and the
random-instance means are in ``benchmarks/worst_case_bench.py`` and
docs/worst_case.md.
"""

from optsched.core import adversary
from optsched.core.experiment import Claim, Experiment

_SIZE = {"n_sites": 3, "n_jobs": 3, "n_slots": 12}

SPEC = Experiment(
    name="worst_case_okita",
    paper="okita",
    ref="worst-case search (issue 14; not in the paper)",
    doc=__doc__,
    task=adversary.trace_rows,
    grid={
        "paper": "okita",
        "algorithm": ["okita"],
        "method": ["anneal", "evolve"],
        "seed": 0,
        "n_evals": 2000,
        "time_limit": 30.0,
        "batch": 4,
        "starts": 8,
        "size": _SIZE,
    },
    quick={
        "paper": "okita",
        "algorithm": ["okita"],
        "method": ["anneal"],
        "seed": 0,
        "n_evals": 3,
        "time_limit": 30.0,
        "batch": 2,
        "size": _SIZE,
    },
    columns=["paper", "algorithm", "seed", *adversary.TRACE_COLUMNS],
    plot=adversary.plot_traces,
    claims=[
        Claim(
            "worst certified ratio found for okita (per method)",
            "no bound proven",
            lambda df: adversary.worst_found(df, "okita"),
        ),
    ],
)
