"""Worst-case search for ``edgecloud`` (a_online): best certified ratio vs evaluations.

Not a figure of the paper.  Searches the instances of the paper's demo size
for the one maximising the certified ratio of its own online algorithm,
with both methods of ``optsched.core.adversary``; every point is a proven
ratio or the lower end of its interval.  The paper's proven bound: Theorem 3: D_max (1 + 1/eps) with (1 + eps)-speed augmentation.
Grid, rows and claims: ``worst_case_spec.search_spec``; results beside the
random-instance means: ``benchmarks/worst_case_bench.py``,
docs/worst_case.md.
"""

from optsched.core import worst_case_spec

SPEC = worst_case_spec.search_spec("edgecloud", ("a_online",), doc=__doc__)
