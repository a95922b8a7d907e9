"""Worst-case search for ``hetero`` (has, jps): best certified ratio vs evaluations.

Not a figure of the paper.  Searches the instances of the paper's demo size
for the one maximising the certified ratio of its own online algorithm,
with both methods of ``optsched.core.adversary``; every point is a proven
ratio or the lower end of its interval.  The paper's proven bound: none: HAS and JPS have no competitive-ratio guarantee.
Grid, rows and claims: ``worst_case_spec.search_spec``; results beside the
random-instance means: ``benchmarks/worst_case_bench.py``,
docs/worst_case.md.

Sizes: not a figure of the paper, which has no worst-case experiment;
the registry's ``demo_size`` (3 jobs, 6 workers; the paper's Table II
example has 2 jobs on 4 GPUs, its Sec. VI runs up to 300 GPUs), small so that the optimum of each of the
2,000 evaluations is proven in seconds (30 s limit per solve).
"""

from optsched.core import worst_case_spec

SPEC = worst_case_spec.search_spec("hetero", ("has", "jps"), doc=__doc__)
