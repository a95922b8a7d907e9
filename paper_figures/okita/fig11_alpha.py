"""Fig. 11 of Han et al.: Okita's total cost under different alpha1 : alpha2.

The paper (Sec. V-C): *the total cost of Okita is roughly equal, and not
affected greatly by proportional factors* ``alpha1``, ``alpha2`` of the
priority ``O_i(t)`` (Eq. (4)).  The seed prints neither the ratios tried
nor a tolerance.

Ours: Okita on Sec. V-B's setting (``R = 50``, ``I = 100``, ``T = 150``,
exponential cost), 3 seeds, ``alpha1 : alpha2`` in 1:4, 1:2, 1:1, 2:1,
4:1 (``beta`` = 1); the claim holds when the mean total cost varies by at
most 10% (our threshold for "roughly equal").  Full: 5 settings x 3 seeds;
quick: 2 settings on the quick instance.

Sizes.  Paper: presumably Sec. V-B's default (``R = 50``, ``I = 100``,
``T = 150``; the text does not say), ratios and runs not stated.  Ours:
that default, 3 seeds per ratio.

Sigmoid reading: the grid also runs every point with the saturating
``sigmoid`` cost, and every claim is repeated on those rows ("..., sigmoid
reading"); ``sigmoid_reading.with_sigmoid_part`` says how (docs/okita.md).
"""

from optsched.figures.okita.sigmoid_reading import with_sigmoid_part

from optsched.okita import experiments as ex

RATIOS = [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)]
SETTINGS = [
    {"alpha1": float(a), "alpha2": float(b), "setting": f"{a}:{b}"} for a, b in RATIOS
]

SPEC = with_sigmoid_part(
    ex.setting_figure(
        11,
        "fig11_alpha",
        SETTINGS,
        [SETTINGS[0], SETTINGS[-1]],
        title="Fig. 11: alpha1 : alpha2",
        over="alpha1:alpha2",
        logy=True,
        doc=__doc__,
    )
)
