"""Fig. 4 of Luo et al.: share of jobs by prediction error of the random forest.

The paper (Sec. V-A-1-c): trained on the first 80% of the PAI trace;
*approximately 60% of the jobs are predicted correctly*.

Ours: the random forest (100 trees, hashed user and group) trained on the
jobs before a window of the shipped Alibaba v2023 sample, whose groups are
resource signatures (docs/errata.md), and -- as a control with the paper's
recurrence -- on the synthetic generator (a group's duration repeats
exactly with probability 0.6).  Rows: one per job; ``bucket`` = exact or
the relative error band.  Full: 1,240-job trace windows and 1,000-job
synthetic instances, 3 seeds; quick: 100 jobs, one seed.

Claims: both ``not comparable``.  The shipped trace has no recurrence
group id (its groups are resource signatures that mix unrelated jobs,
docs/errata.md), so the paper's 60% cannot be compared with it; the
synthetic share is circular: the generator repeats a group's duration
exactly with probability 0.6, so "about 60% exact" is built in.  Both
shares are printed.

Sizes.  Paper: the PAI trace, 758,223 jobs, the forest trained on the
first 80%.  Ours: 1,240-job windows of the shipped sample (6,203 usable
jobs) after at least half of it as history, and 1,000 synthetic jobs; the
PAI job tables are not available here (docs/errata.md).
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Claim, Experiment
from optsched.core.plots import Bars


def _exact(source):
    def value(df):
        d = df[df["source"] == source]
        return float((d["bucket"] == "exact").mean())

    return value


def _share(df):
    n = df.groupby("source").size()
    c = df.groupby(["source", "bucket"]).size().div(n, level="source")
    return c.rename("share").reset_index()


SPEC = Experiment(
    name="fig4_prediction_error_share",
    paper="asrpt",
    ref="Fig. 4, Sec. V-A-1-c",
    doc=__doc__,
    task=ex.prediction_error,
    grid=[
        {**ex.TRACE, "source": "trace", "n_jobs": 1240, "seed": [0, 1, 2]},
        {
            "source": "synthetic",
            "trace": None,
            "n_jobs": 1000,
            "n_servers": 250,
            "gpus_per_server": 8,
            "seed": [0, 1, 2],
        },
    ],  # fmt: skip
    quick=[
        {**ex.TRACE, "source": "trace", "n_jobs": 100, "seed": [0]},
        {
            "source": "synthetic",
            "trace": None,
            "n_jobs": 100,
            "n_servers": 250,
            "gpus_per_server": 8,
            "seed": [0],
        },
    ],  # fmt: skip
    columns=["source", *ex.ERROR_COLUMNS],
    sort=["source", "seed", "job"],
    plot=lambda df: Bars(
        x="bucket",
        y="share",
        hue="source",
        order=["trace", "synthetic"],
        band=None,
        ylabel="share of jobs",
        title="Fig. 4: prediction error (random forest)",
    )(_share(df)),
    summary=lambda df: _share(df).pivot_table(
        index="bucket", columns="source", values="share"
    ),
    claims=[
        Claim(
            "share predicted exactly, real trace",
            "about 60%",
            _exact("trace"),
            not_comparable="another trace: the shipped Alibaba v2023 sample has no "
            "recurrence group id; its resource-signature groups mix unrelated jobs "
            "(docs/errata.md)",
            fmt="{:.1%}",
        ),
        Claim(
            "share predicted exactly, synthetic recurrence",
            "about 60%",
            _exact("synthetic"),
            not_comparable="circular: the generator repeats a group's duration "
            "exactly with probability 0.6",
            fmt="{:.1%}",
        ),
    ],
)
