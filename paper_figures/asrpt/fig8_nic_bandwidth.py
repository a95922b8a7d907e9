"""Fig. 8 of Luo et al.: total completion time vs the servers' NIC bandwidth.

The paper (Sec. V-B-2-c): the job set with 0% single-GPU jobs, NIC 1-50
Gbps; *at 50 Gbps, A-SRPT outperforms the best baseline WCS-Duration by
12%, and at 1 Gbps, it reduces total job completion time by up to 92%*.

Ours: windows of 620 jobs, every group multi-GPU (single-GPU share 0), on
2 x 8 GPUs, NIC 1, 5, 10, 25, 50 Gbps; 3 seeds.  Quick: 100 jobs, 1 and 50
Gbps.
"""

from optsched.asrpt import experiments as ex
from optsched.core.experiment import Claim, Experiment

X = "nic_gbps"


def _at(gbps: float):
    def value(df):
        r = ex.reductions(df, X).loc[gbps]
        return float(r.max()) if gbps == 1 else float(r.min())

    return value


SPEC = Experiment(
    name="fig8_nic_bandwidth",
    paper="asrpt",
    ref="Fig. 8, Sec. V-B-2-c",
    doc=__doc__,
    task=ex.total_time,
    grid={
        **ex.TRACE,
        "n_jobs": 620,
        "single_gpu_share": 0.0,
        X: [1, 5, 10, 25, 50],
        "seed": [0, 1, 2],
    },  # fmt: skip
    quick={
        **ex.TRACE,
        "n_jobs": 100,
        "single_gpu_share": 0.0,
        X: [1, 50],
        "seed": [0],
    },  # fmt: skip
    columns=ex.TIME_COLUMNS,
    sort=[X, "seed", "scheme", "predictor"],
    plot=ex.lines(X, "NIC bandwidth (Gbps)", "Fig. 8: NIC bandwidth", logx=True),
    summary=ex.summarize(X),
    claims=[
        Claim(
            "reduction vs the best baseline at 50 Gbps",
            "12%",
            _at(50),
            holds=lambda v: 0.07 <= v <= 0.17,
            fmt="{:.0%}",
        ),
        Claim(
            "largest reduction at 1 Gbps",
            "up to 92%",
            _at(1),
            holds=lambda v: 0.87 <= v <= 0.97,
            fmt="{:.0%}",
        ),
    ],
)
