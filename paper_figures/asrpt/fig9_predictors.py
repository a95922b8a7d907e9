"""Fig. 9 of Luo et al.: A-SRPT with different iteration predictors.

The paper (Sec. V-B-2-d): random forest vs the mean and median of earlier
jobs' iterations and perfect prediction (A-SRPT-Perfect), baselines with
the random forest; *average errors 369, 563 and 593* (RF, median, mean);
*[RF] is only 14% less efficient than the perfect model*.

Ours, two parts (column ``source``): A-SRPT once per predictor
(``predictor`` column), the baselines with RF; the predictors' mean
absolute error in iterations (``mean_abs_error``).

* ``trace``: windows of 620 jobs with the trace's GPU demands on 2 x 8
  GPUs; 3 seeds.
* ``synthetic`` (the paper's scale): 75,000 calibrated synthetic jobs on
  250 x 8 GPUs with the trace's GPU-count distribution (``ex.PAPER_SCALE``,
  as Fig. 6; docs/asrpt.md, "Paper scale"); 3 seeds.

Quick: 100 trace jobs on 2 x 8 GPUs and 100 synthetic jobs on 4 x 8 GPUs,
one seed.

Claims, on each part: "14% less efficient" is ``reproduced`` within 10% of
the paper's value, ``trend only`` when RF is above Perfect by more than 1% (a
smaller difference is within seed noise: ``not reproduced``); the error ordering (RF below both) and "RF below mean" are
qualitative (the errors' magnitudes are iterations of another trace).  On
the paper-scale part the predictors learn the generator's recurrence (a
group repeats one duration exactly with probability 0.6), not the
trace's; the claims there start "at the paper's scale".

Sizes.  Paper: 250 servers x 8 GPUs, job count not stated ("jobs with GPU
demands following the original trace").  Ours: (trace) 2 servers x 8
GPUs, 620 jobs of the shipped sample, the paper's jobs per GPU
(docs/errata.md); (synthetic) the paper's 250 x 8 GPUs and 75,000 jobs (the
count the paper fixes in Figs. 7-8); 3 seeds: three instances per seed
(one per predictor) and ten schedules, about 4 minutes of one core per
seed (estimated from the 37,500-job measurement in docs/asrpt.md).
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Cells, Claim, Experiment, near
from optsched.core.plots import Bars

PREDICTORS = ("rf", "median", "mean")


def _asrpt(df, pred):
    return df[(df["scheme"] == "asrpt") & (df["predictor"] == pred)]


def _rf_over_perfect(source: str = "trace"):
    def value(df):
        df = ex.part(df, source)
        perfect = df[df["scheme"] == "asrpt_perfect"]["total"].mean()
        return float(_asrpt(df, "rf")["total"].mean() / perfect - 1)

    return value


def _errors(source: str = "trace"):
    def value(df):
        d = ex.part(df, source)
        e = d[d["scheme"] == "asrpt"].groupby("predictor")["mean_abs_error"].mean()
        return Cells((float(e["rf"]), float(e["median"]), float(e["mean"])), "{:.0f}")

    return value


def _rf_below_mean(source: str = "trace"):
    def value(df):
        d = ex.part(df, source)
        return bool(_asrpt(d, "rf")["total"].mean() < _asrpt(d, "mean")["total"].mean())

    return value


def _claims(source: str, pre: str = "") -> list[Claim]:
    return [
        Claim(
            f"{pre}A-SRPT with RF above A-SRPT-Perfect",
            "14%",
            _rf_over_perfect(source),
            holds=near(0.14),
            trend=lambda v: v > 0.01,
            tolerance="+-10% of the paper's value; trend: above by more than 1% "
            "(differences below that are seed noise)",
            fmt="{:+.0%}",
        ),
        Claim(
            f"{pre}RF's mean error below the median's and the mean's (rf / median / "
            "mean, iterations)",
            "369 < 563, 593",
            _errors(source),
            holds=lambda v: v.values[0] < min(v.values[1:]),
        ),
        Claim(
            f"{pre}A-SRPT with RF below A-SRPT with the mean predictor",
            "yes",
            _rf_below_mean(source),
            holds=lambda v: v,
        ),
    ]


def _summary(df):
    index = ["source", "scheme"] if "source" in df.columns else "scheme"
    return df.pivot_table(
        index=index, columns="predictor", values="total", aggfunc="mean"
    )


SPEC = Experiment(
    name="fig9_predictors",
    paper="asrpt",
    ref="Fig. 9, Sec. V-B-2-d",
    doc=__doc__,
    task=ex.total_time,
    grid=[
        {**ex.TRACE_PART, "n_jobs": 620, "predictors": PREDICTORS, "seed": [0, 1, 2]},
        {
            **ex.PAPER_SCALE,
            "n_jobs": 75_000,
            "predictors": PREDICTORS,
            "seed": [0, 1, 2],
        },
    ],
    quick=[
        {**ex.TRACE_PART, "n_jobs": 100, "predictors": PREDICTORS, "seed": [0]},
        {**ex.PAPER_SCALE_QUICK, "n_jobs": 100, "predictors": PREDICTORS, "seed": [0]},
    ],
    columns=ex.SOURCE_TIME_COLUMNS,
    sort=["source", "seed", "scheme", "predictor"],
    plot=Bars(
        x="scheme",
        y="total",
        hue="predictor",
        facet="source",
        labels={"rf": "random forest"},
        ylabel="total completion time (8), slots",
        title="Fig. 9: predictors",
    ),
    summary=_summary,
    claims=[
        *_claims("trace"),
        *_claims("synthetic", f"{ex.PAPER_SCALE_TEXT}: "),
    ],
)
