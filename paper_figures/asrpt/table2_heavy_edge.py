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
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Claim, Experiment, Span
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
            holds=lambda v: 0.0 <= v.lo and v.hi <= 0.11,
        ),
        Claim(
            "GPT-175B: Heavy-Edge PITT equal to the ILP's",
            "+0% (10.14 ms)",
            _ratio("GPT-175B"),
            holds=lambda v: v.lo >= -0.01 and v.hi <= 0.01,
        ),
        Claim(
            "VGG19, same GPUs as Heavy-Edge: gap of the mapping alone",
            "(not printed)",
            _ratio("VGG19", "same_alpha_ms"),
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
            fmt="{:.0f} ms",
        ),
    ],  # fmt: skip
)
