"""Worst-case search for ``asrpt`` (asrpt): best certified ratio vs evaluations.

Not a figure of the paper.  Searches the instances of the paper's demo size
for the one maximising the certified ratio of its own online algorithm,
with both methods of ``optsched.core.adversary``; every point is a proven
ratio or the lower end of its interval.  The paper's proven bound: Theorem 1: an instance-dependent expression in rho, tau, G, g_max and the prediction error.
Grid, rows and claims: ``worst_case_spec.search_spec``; results beside the
random-instance means: ``benchmarks/worst_case_bench.py``,
docs/worst_case.md.

Sizes.  The paper runs no worst-case search; ours searches its demo size
(4 jobs on 2 servers x 2 GPUs), small enough that the exact scheduling MILP
of (8) proves every optimum, which a certified ratio needs.
"""

from optsched.core import worst_case_spec

SPEC = worst_case_spec.search_spec("asrpt", ("asrpt",), doc=__doc__)
