"""Fig. 10 of Han et al.: total cost of every algorithm vs the number of jobs I.

The paper's claims (Sec. V-C, abstract) and our reading are Fig. 9's (see
its spec): Okita has the lowest total cost, especially at large scale, and
reduces it by up to 20% ~ 65% against each of the three benchmarks.

Ours: Sec. V-B's setting (``ex.cost_figure``) with ``R = 50`` sites and I
from 20 to 100, 3 seeds.  Full: 5 values of I x 3 seeds; quick: I = 3, 6 on
4 sites, ``T = 30``.  Statuses as in Fig. 9 (``ex.cost_claims``).

Sizes.  Paper: Sec. V-B's setting, ``R = 50``, ``T = 150``, I up to its
default 100; the values of I are on the figure's axis only, the number of
runs is not stated.  Ours: I = 20, 40, 60, 80, 100 (the paper's default as
the largest), ``R = 50``, ``T = 150``, 3 seeds.

Sigmoid reading: the grid also runs every point with the saturating
``sigmoid`` cost, and every claim is repeated on those rows ("..., sigmoid
reading"); ``sigmoid_reading.with_sigmoid_part`` says how (docs/okita.md).
"""

from optsched.figures.okita.sigmoid_reading import with_sigmoid_part

from optsched.okita import experiments as ex

SPEC = with_sigmoid_part(
    ex.cost_figure(10, "n_jobs", [20, 40, 60, 80, 100], [3, 6], doc=__doc__)
)
