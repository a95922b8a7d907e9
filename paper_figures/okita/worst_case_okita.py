"""Worst-case search for ``okita`` (okita): best certified ratio vs evaluations.

Not a figure of the paper.  Searches the instances of the paper's demo size
for the one maximising the certified ratio of its own online algorithm,
with both methods of ``optsched.core.adversary``; every point is a proven
ratio or the lower end of its interval.  The paper's proven bound: none: the paper reports performance ratios < 1.8, no theorem.
Grid, rows and claims: ``worst_case_spec.search_spec``; results beside the
random-instance means: ``benchmarks/worst_case_bench.py``,
docs/worst_case.md.

Sizes: not a figure of the paper, which has no worst-case experiment;
the registry's ``demo_size`` (3 sites, 3 jobs, ``T = 12``), within the sizes of
Figs. 7-8 (``fig7_ratio_okita``) so that the optimum of each of the 2,000
evaluations is proven in seconds (30 s limit per solve).
"""

from optsched.core import worst_case_spec

SPEC = worst_case_spec.search_spec("okita", ("okita",), doc=__doc__)
