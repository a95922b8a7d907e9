"""Worst-case search for edgecloud: best certified ratio vs evaluations (issue 14).

Not a figure of the paper: the paper proves (or does not prove) a
worst-case ratio and reports averages on random instances; this spec
searches the instance space at the size ``{'n_jobs': 3, 'n_servers': 1, 'n_slots': 36, 'max_chunks': 2, 'slot_hours': 24.0, 'n_worker_types': 2, 'n_ps_types': 2}`` (optima proven in
seconds) for the instance maximising the certified ratio of the paper's
own online algorithm (a_online), with both methods of
``optsched.core.adversary`` (``anneal`` on the slice's mutations,
``evolve`` over the generator's parameters), and plots the best ratio found
against the number of evaluations.  Every point is certified: a proven
optimum, or the lower end of the ratio interval.  The paper's proven bound
(``a_online``: D_max (1 + 1/eps) with (1 + eps)-speed augmentation, for (2) (Theorem 3; (1 + 1/eps) for ILP (4))).

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

_SIZE = {
    "n_jobs": 3,
    "n_servers": 1,
    "n_slots": 36,
    "max_chunks": 2,
    "slot_hours": 24.0,
    "n_worker_types": 2,
    "n_ps_types": 2,
}

SPEC = Experiment(
    name="worst_case_edgecloud",
    paper="edgecloud",
    ref="worst-case search (issue 14; not in the paper)",
    doc=__doc__,
    task=adversary.trace_rows,
    grid={
        "paper": "edgecloud",
        "algorithm": ["a_online"],
        "method": ["anneal", "evolve"],
        "seed": 0,
        "n_evals": 2000,
        "time_limit": 30.0,
        "batch": 4,
        "starts": 8,
        "size": _SIZE,
    },
    quick={
        "paper": "edgecloud",
        "algorithm": ["a_online"],
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
            "worst certified ratio found for a_online (per method)",
            "D_max (1 + 1/eps) with (1 + eps)-speed augmentation, for (2) (Theorem 3; (1 + 1/eps) for ILP (4))",
            lambda df: adversary.worst_found(df, "a_online"),
        ),
    ],
)
