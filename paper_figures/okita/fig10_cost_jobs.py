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

The sigmoid reading (``sigmoid_reading.with_sigmoid_part``; docs/okita.md,
"Diagnosis: the cost reading").  The paper calls its cost a "Sigmoid
Function" but prints ``tau e^{0.25 t}``.  The grid also runs every point
with the saturating ``sigmoid`` kind (``tau / (1 + e^{-0.25 (t - 4)})``,
same instances but for the cost); the claims above see only the printed
``exp`` rows, and each is repeated on the sigmoid rows as "..., sigmoid
reading" (status ``reading`` when it holds).  The plot shows the ``exp``
rows.
"""

from optsched.figures.okita.sigmoid_reading import with_sigmoid_part

from optsched.okita import experiments as ex

SPEC = with_sigmoid_part(
    ex.cost_figure(10, "n_jobs", [20, 40, 60, 80, 100], [3, 6], doc=__doc__)
)
