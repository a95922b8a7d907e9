"""Worst-case search for ``edgecloud`` (a_online): best certified ratio vs evaluations.

Not a figure of the paper.  Searches the instances of the paper's demo size
for the one maximising the certified ratio of its own online algorithm,
with both methods of ``optsched.core.adversary``; every point is a proven
ratio or the lower end of its interval.  The paper's proven bound: Theorem 3: D_max (1 + 1/eps) with (1 + eps)-speed augmentation.
Grid, rows and claims: ``worst_case_spec.search_spec``; results beside the
random-instance means: ``benchmarks/worst_case_bench.py``,
docs/worst_case.md.

Sizes.  The paper runs no worst-case search; ours searches its demo size
(3 jobs, 1 edge server plus the cloud, ``T = 36`` one-day slots, at most 2
chunks, 2 worker and 2 PS types), small enough that every optimum of (2) is
proven in seconds, which a certified ratio needs.
"""

from optsched.core import worst_case_spec

SPEC = worst_case_spec.search_spec("edgecloud", ("a_online",), doc=__doc__)
