"""Fig. 9 of Luo et al.: A-SRPT with different iteration predictors.

The paper (Sec. V-B-2-d): random forest vs the mean and median of earlier
jobs' iterations and perfect prediction (A-SRPT-Perfect), baselines with
the random forest; *average errors 369, 563 and 593* (RF, median, mean);
*[RF] is only 14% less efficient than the perfect model*.

Ours: windows of 620 jobs with the trace's GPU demands on 2 x 8 GPUs;
A-SRPT once per predictor (``predictor`` column), the baselines with RF;
the predictors' mean absolute error in iterations (``mean_abs_error``);
3 seeds.  Quick: 100 jobs.
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Claim, Experiment
from optsched.core.plots import Bars


def _asrpt(df, pred):
    return df[(df["scheme"] == "asrpt") & (df["predictor"] == pred)]


def _rf_over_perfect(df):
    perfect = df[df["scheme"] == "asrpt_perfect"]["total"].mean()
    return float(_asrpt(df, "rf")["total"].mean() / perfect - 1)


def _errors(df):
    e = df[df["scheme"] == "asrpt"].groupby("predictor")["mean_abs_error"].mean()
    return f"rf {e['rf']:.0f}, median {e['median']:.0f}, mean {e['mean']:.0f}"


SPEC = Experiment(
    name="fig9_predictors",
    paper="asrpt",
    ref="Fig. 9, Sec. V-B-2-d",
    doc=__doc__,
    task=ex.total_time,
    grid={
        **ex.TRACE,
        "n_jobs": 620,
        "predictors": ("rf", "median", "mean"),
        "seed": [0, 1, 2],
    },  # fmt: skip
    quick={
        **ex.TRACE,
        "n_jobs": 100,
        "predictors": ("rf", "median", "mean"),
        "seed": [0],
    },  # fmt: skip
    columns=ex.TIME_COLUMNS,
    sort=["seed", "scheme", "predictor"],
    plot=Bars(
        x="scheme",
        y="total",
        hue="predictor",
        labels={"rf": "random forest"},
        ylabel="total completion time (8), slots",
        title="Fig. 9: predictors",
    ),
    summary=lambda df: df.pivot_table(
        index="scheme", columns="predictor", values="total", aggfunc="mean"
    ),
    claims=[
        Claim(
            "A-SRPT with RF above A-SRPT-Perfect",
            "14%",
            _rf_over_perfect,
            holds=lambda v: 0.09 <= v <= 0.19,
            fmt="{:+.0%}",
        ),
        Claim(
            "RF's mean error below the median's and the mean's",
            "369 < 563, 593",
            _errors,
        ),
        Claim(
            "A-SRPT with RF below A-SRPT with the mean predictor",
            "yes",
            lambda df: bool(
                _asrpt(df, "rf")["total"].mean() < _asrpt(df, "mean")["total"].mean()
            ),
            holds=lambda v: v,
        ),
    ],
)
