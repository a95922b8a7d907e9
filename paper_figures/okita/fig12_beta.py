"""Fig. 12 of Han et al.: Okita's total cost under different beta1, beta2, beta3.

The paper (Sec. V-C): *the total cost of Okita is roughly equal, and not
affected greatly by proportional factors* ``beta1``-``beta3`` of the
deployment metric ``Q_i^r(t)`` (Eq. (6)).  The seed prints neither the
values tried nor a tolerance.

Ours: Okita on Sec. V-B's setting (``R = 50``, ``I = 100``, ``T = 150``,
exponential cost), 3 seeds, ``(beta1, beta2, beta3)`` = (1, 1, 1) and each
factor halved and doubled in turn (``alpha`` = 1); the claim holds when the
mean total cost varies by at most 10% (our threshold).  Full: 7 settings x
3 seeds; quick: 2 settings on the quick instance.

Sizes.  Paper: presumably Sec. V-B's default (``R = 50``, ``I = 100``,
``T = 150``; the text does not say), values and runs not stated.  Ours:
that default, 3 seeds per setting.

Sigmoid reading: the grid also runs every point with the saturating
``sigmoid`` cost, and every claim is repeated on those rows ("..., sigmoid
reading"); ``sigmoid_reading.with_sigmoid_part`` says how (docs/okita.md).
"""

from optsched.figures.okita.sigmoid_reading import with_sigmoid_part

from optsched.okita import experiments as ex

BETAS = [
    (1, 1, 1),
    (0.5, 1, 1),
    (2, 1, 1),
    (1, 0.5, 1),
    (1, 2, 1),
    (1, 1, 0.5),
    (1, 1, 2),
]
SETTINGS = [
    {"beta1": b1, "beta2": b2, "beta3": b3, "setting": f"{b1}/{b2}/{b3}"}
    for b1, b2, b3 in BETAS
]

SPEC = with_sigmoid_part(
    ex.setting_figure(
        12,
        "fig12_beta",
        SETTINGS,
        [SETTINGS[0], SETTINGS[2]],
        title="Fig. 12: beta1 / beta2 / beta3",
        over="the betas",
        doc=__doc__,
    )
)
