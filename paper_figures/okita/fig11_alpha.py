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
"""

from optsched.core.experiment import Claim, Experiment
from optsched.okita import experiments as ex

RATIOS = [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)]
SETTINGS = [
    {"alpha1": float(a), "alpha2": float(b), "setting": f"{a}:{b}"} for a, b in RATIOS
]

SPEC = Experiment(
    name="fig11_alpha",
    paper="okita",
    ref="Fig. 11, Sec. V-C",
    doc=__doc__,
    task=ex.total_cost,
    grid=[
        {**ex.SIM, **s, "seed": list(range(3)), "schemes": ("okita",)} for s in SETTINGS
    ],
    quick=[
        {**ex.SIM_QUICK, **s, "seed": [0], "schemes": ("okita",)}
        for s in (SETTINGS[0], SETTINGS[-1])
    ],
    columns=ex.COST_COLUMNS,
    sort=["setting", "seed"],
    plot=ex.bars(
        "setting", "total", "total cost (2)", "Fig. 11: alpha1 : alpha2", logy=True
    ),
    summary=lambda df: ex.mean_by(df, "setting"),
    claims=[
        Claim(
            "total cost roughly equal over alpha1:alpha2 ((max - min) / min of the means)",
            "roughly equal",
            ex.spread,
            holds=lambda v: v <= 0.10,
            fmt="{:.1%}",
        ),
    ],
)
