"""Fig. 14 of Han et al.: total cost of every algorithm under the three latency costs.

The paper (Sec. V-C, "Applicability"): *Okita always generates a lower
cost*; *compared with the sigmoid function, Okita outperforms under the
linear function*; with the piecewise cost (and the priority's first term
changed as the paper says) *the advantage of the piecewise function is the
most obvious*.  Read: Okita's reduction against the best benchmark is
larger under the linear cost than under the exponential ("sigmoid") one,
and largest under the piecewise cost.

Ours: Sec. V-B's setting (``R = 50``, ``I = 100``, ``T = 150``), 3 seeds,
``cost`` in exp (``tau e^{0.25 t}``), linear, piecewise; Okita switches to
Sec. V-C's priority when every job has the piecewise cost
(``optsched.okita.online``, reading 6).  Full: 3 costs x 3 seeds; quick:
the quick instance, 1 seed.

The three claims are qualitative (an ordering, a direction, an arg max):
``reproduced`` when they hold on the means.

Sizes.  Paper: presumably Sec. V-B's default (``R = 50``, ``I = 100``,
``T = 150``; the text does not say), runs not stated.  Ours: that default,
3 seeds per cost.

The sigmoid reading (docs/okita.md, "Diagnosis: the cost reading").  The
paper calls its default cost a "Sigmoid Function" but prints ``tau
e^{0.25 t}``; the default ``exp`` is the print.  The grid also runs the
saturating ``sigmoid`` kind (``tau / (1 + e^{-0.25 (t - 4)})``, same
instances as ``exp`` but for ``f``; 3 seeds, quick: 1).  The claims above
see only the exp / linear / piecewise rows (unchanged); the claims marked
"sigmoid reading" read the paper's "sigmoid" as that kind (status
``reading`` when they hold): the same three statements on sigmoid / linear
/ piecewise, and the abstract's "20% ~ 65%" against each benchmark at this
point (the band as printed; ``trend only`` when every reduction is > 0).
"""

import pandas as pd

from optsched.core.experiment import Claim, Experiment
from optsched.okita import experiments as ex

X = "cost"
KINDS = ["exp", "linear", "piecewise"]
#: The non-default reading of the paper's "sigmoid" (docs/okita.md).
SIGMOID = "sigmoid"
READING = (
    "sigmoid: the paper's 'Sigmoid Function' read as tau / (1 + e^{-0.25 (t - 4)})"
)
#: The costs of the sigmoid-reading claims: the paper's three kinds, read so.
READ_KINDS = [SIGMOID, "linear", "piecewise"]


def printed(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of the printed kinds (exp, linear, piecewise): the original claims."""
    return df[df[X].isin(KINDS)]


def read(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of the sigmoid reading's kinds (sigmoid, linear, piecewise)."""
    return df[df[X].isin(READ_KINDS)]


def best_reduction(df: pd.DataFrame) -> pd.Series:
    """Okita's reduction against the best benchmark per cost."""
    return ex.best_baseline_reduction(df, X)


SPEC = Experiment(
    name="fig14_cost_functions",
    paper="okita",
    ref="Fig. 14, Sec. V-C",
    doc=__doc__,
    task=ex.total_cost,
    grid=[
        {**ex.SIM, X: KINDS, "seed": list(range(3))},
        {**ex.SIM, X: SIGMOID, "seed": list(range(3))},
    ],
    quick=[
        {**ex.SIM_QUICK, X: KINDS, "seed": [0]},
        {**ex.SIM_QUICK, X: SIGMOID, "seed": [0]},
    ],
    columns=ex.COST_COLUMNS,
    sort=[X, "seed", "scheme"],
    plot=ex.bars(
        X, "total", "total cost (2)", "Fig. 14: latency cost functions", logy=True
    ),
    summary=ex.summarize_cost(X),
    claims=[
        Claim(
            "Okita always generates a lower cost (per latency cost)",
            "all",
            lambda df: ex.lowest_everywhere(printed(df), X),
            holds=lambda v: v.startswith("all"),
        ),
        Claim(
            "reduction vs the best benchmark: linear minus exp",
            "> 0",
            lambda df: float(
                best_reduction(printed(df))["linear"]
                - best_reduction(printed(df))["exp"]
            ),
            holds=lambda v: v > 0,
            fmt="{:+.1%}",
        ),
        Claim(
            "advantage most obvious under the piecewise cost (cost of the largest reduction)",
            "piecewise",
            lambda df: str(best_reduction(printed(df)).idxmax()),
            holds=lambda v: v == "piecewise",
        ),
        Claim(
            "reduction vs the best benchmark per cost (ours)",
            "-",
            lambda df: ", ".join(
                f"{k} {v:.0%}" for k, v in best_reduction(printed(df)).items()
            ),
        ),
        Claim(
            "median reduction per instance, per benchmark (ours; robust to outliers)",
            "-",
            lambda df: ex.median_reductions(printed(df)),
        ),
        Claim(
            "schedules past T / with PS gaps (ours)",
            "-",
            lambda df: ex.past_horizon(printed(df)),
        ),
        # ---- the sigmoid reading (module docstring)
        Claim(
            "Okita always generates a lower cost (per latency cost), sigmoid reading",
            "all",
            lambda df: ex.lowest_everywhere(read(df), X),
            holds=lambda v: v.startswith("all"),
            reading=READING,
        ),
        Claim(
            "reduction vs the best benchmark: linear minus sigmoid, sigmoid reading",
            "> 0",
            lambda df: float(
                best_reduction(read(df))["linear"] - best_reduction(read(df))[SIGMOID]
            ),
            holds=lambda v: v > 0,
            fmt="{:+.1%}",
            reading=READING,
        ),
        Claim(
            "advantage most obvious under the piecewise cost (cost of the largest "
            "reduction), sigmoid reading",
            "piecewise",
            lambda df: str(best_reduction(read(df)).idxmax()),
            holds=lambda v: v == "piecewise",
            reading=READING,
        ),
        Claim(
            "up to 20%-65% lower total cost than each benchmark (abstract), "
            "sigmoid reading, this point",
            "20%-65%",
            lambda df: ex.largest_reductions(df[df[X] == SIGMOID], X),
            holds=lambda v: v.all_within(0.20, 0.65),
            trend=ex.PerScheme.all_positive,
            tolerance="each benchmark's reduction in the paper's 20%-65% as "
            "printed; trend only: every one > 0",
            reading=READING,
        ),
        Claim(
            "reduction vs the best benchmark per cost, sigmoid reading (ours)",
            "-",
            lambda df: ", ".join(
                f"{k} {v:.0%}" for k, v in best_reduction(read(df)).items()
            ),
            reading=READING,
        ),
        Claim(
            "schedules past T / with PS gaps, sigmoid (ours)",
            "-",
            lambda df: ex.past_horizon(df[df[X] == SIGMOID]),
            reading=READING,
        ),
    ],
)
