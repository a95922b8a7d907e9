"""Table II of Luo et al.: Heavy-Edge vs the exact placement ILP.

The paper (Sec. V-B-2-e): per-iteration training time (PITT) and placement
computation time (PCT) averaged over 20 cases with varying GPU
availability per server: VGG19 Heavy-Edge 88.11 ms / 1.94 ms vs ILP 82.96
ms / 55,318.86 ms (Gurobi); GPT-175B 10.14 / 1.52 vs 10.14 / 2,288.12;
*Heavy-Edge achieves a PITT only 6% longer than the optimal ILP solution*
(VGG19) and matches it on GPT-175B.

Ours: the substituted profiles (docs/errata.md; absolute milliseconds are
not comparable), every 8-GPU configuration of the two models, 20 cases:
free GPUs per server uniform in 0..8 on 8 servers; Heavy-Edge on the GPUs
of the most-available servers vs the exact MILP (HiGHS) over any free GPU
(``ilp_*``) and over the same GPUs (``same_*``).  Quick: 2 cases.

Claims: the milliseconds are not comparable (substituted profiles), the
Heavy-Edge / exact PITT quotient is: ``reproduced`` when it is within 10%
of the paper's (VGG19 88.11 / 82.96 = 1.062, GPT-175B 1.000) for every
8-GPU configuration (only proven MILPs count).  The default reference is
the MILP over any free GPU; the MILP over the GPUs Heavy-Edge was given
(server choice fixed, the mapping alone) is the reading ``SAME_GPUS``.
"Under 2 ms" is the paper's bound on our machine; the ILP's time is
Gurobi's on a MacBook (not comparable with HiGHS here).

Sizes.  Paper: 20 availability cases, server count not stated.  Ours: 20
cases on 8 servers x 8 GPUs (an 8-GPU job fits any availability that
holds it).
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Claim, Experiment, Span, near
from optsched.core.plots import Bars


def _ratio(model, col="ilp_alpha_ms"):
    """Mean Heavy-Edge PITT over the mean exact PITT - 1, per configuration (a range).

    Only cases whose MILP was proven optimal count (``ilp_status`` /
    ``same_status``): an unproven incumbent is not the exact PITT.
    """
    status = "ilp_status" if col == "ilp_alpha_ms" else "same_status"

    def value(df):
        d = df[(df["model"] == model) & (df[status] == "optimal")].groupby("n_stages")
        r = d["he_alpha_ms"].mean() / d[col].mean() - 1
        return Span(float(r.min()), float(r.max()), "{:+.1%}")

    return value


#: Reading of the claims against the MILP over the GPUs Heavy-Edge was given.
SAME_GPUS = "ILP over the same GPUs Heavy-Edge was given (the mapping alone)"
#: The paper's Heavy-Edge / ILP PITT quotients (Table II).
PAPER = {"VGG19": 88.11 / 82.96, "GPT-175B": 10.14 / 10.14}


def _within(model):
    """``holds``: every configuration's quotient ``1 + gap`` within 10% of the paper's."""
    close = near(PAPER[model])
    return lambda v: close(1 + v.lo) and close(1 + v.hi)


_TOL = (
    "Heavy-Edge / exact PITT within +-10% of the paper's quotient, every configuration"
)

SPEC = Experiment(
    name="table2_heavy_edge",
    paper="asrpt",
    ref="Table II, Sec. V-B-2-e",
    doc=__doc__,
    task=ex.placement_case,
    grid={"model": ["VGG19", "GPT-175B"], "gpus": 8, "case": list(range(20))},
    quick={"model": ["VGG19", "GPT-175B"], "gpus": 8, "case": [0, 1]},
    columns=ex.PLACEMENT_COLUMNS,
    sort=["model", "case", "n_stages"],
    plot=Bars(
        x="model",
        y="gap",
        hue="n_stages",
        ylabel="Heavy-Edge PITT / exact - 1",
        title="Table II: Heavy-Edge vs exact placement",
    ),
    summary=lambda df: df.groupby(["model", "n_stages"])[
        ["he_alpha_ms", "ilp_alpha_ms", "same_alpha_ms", "he_time_ms", "ilp_time_ms"]
    ].mean(),
    claims=[
        Claim(
            "VGG19: Heavy-Edge PITT above the ILP's (range over configurations)",
            "+6% (88.11 vs 82.96 ms)",
            _ratio("VGG19"),
            holds=_within("VGG19"),
            tolerance=_TOL,
        ),
        Claim(
            "GPT-175B: Heavy-Edge PITT equal to the ILP's (range over configurations)",
            "+0% (10.14 ms)",
            _ratio("GPT-175B"),
            holds=_within("GPT-175B"),
            tolerance=_TOL,
        ),
        Claim(
            "VGG19, same GPUs as Heavy-Edge: gap of the mapping alone",
            "+6% (88.11 vs 82.96 ms)",
            _ratio("VGG19", "same_alpha_ms"),
            holds=_within("VGG19"),
            reading=SAME_GPUS,
        ),
        Claim(
            "GPT-175B, same GPUs as Heavy-Edge: gap of the mapping alone",
            "+0% (10.14 ms)",
            _ratio("GPT-175B", "same_alpha_ms"),
            holds=_within("GPT-175B"),
            reading=SAME_GPUS,
        ),
        Claim(
            "Heavy-Edge computation time, mean",
            "< 2 ms",
            lambda df: float(df["he_time_ms"].mean()),
            holds=lambda v: v < 2,
            fmt="{:.2f} ms",
        ),
        Claim(
            "ILP computation time, mean",
            "2,288-55,319 ms (Gurobi)",
            lambda df: float(df["ilp_time_ms"].mean()),
            not_comparable="another solver and machine (Gurobi on an M1 Max; ours "
            "HiGHS) and substituted profiles",
            fmt="{:.0f} ms",
        ),
    ],  # fmt: skip
)
