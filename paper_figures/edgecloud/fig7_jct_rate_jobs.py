"""Fig. 7 of Wang et al.: JCT rate (total JCT over SRTF's) vs the number of jobs.

The paper (Sec. V-C): *A_online and A_online-E consistently outperform all
others in their category* (A_online-E among the edge-only schemes SRTF and
Tiresias-L, A_online against BatchSche), *the reduction of JCT in A_online
and A_online-E over SRTF and Tiresias-L grows as the number of jobs
increases*, and *A_online performs better than A_online-E and BatchSche*;
the abstract and introduction: *up to 35%, 40% and 50%* lower average JCT
than Tiresias-L, SRTF and BatchSche.

We run the five schemes (``ex.jct_rate``) on 100 edge servers plus the
cloud with the paper's job distributions.  The seed gives neither its job
counts nor its submission times (Philly trace, "scaled up"); our arrivals
are uniform over 1,800 one-hour slots so the offered edge load
(``edge_load``) goes from 0.2 to 1.2 (``ex.SIM``).  Every total JCT is the
checker's, on the instance with ``T`` extended to the makespan when a
scheme runs past ``T`` (``past_T``).  Rows: one per instance x scheme.
Full: 50-300 jobs x 5 seeds; quick: 10 and 30 jobs on 5 servers, 1 seed.
"""

from optsched.core.experiment import Claim
from optsched.edgecloud import experiments as ex

X = "n_jobs"

SPEC = ex.jct_figure(
    7,
    X,
    "jct_rate",
    doc=__doc__,
    claims=[
        ex.edge_only_claim(X),
        ex.always(
            "A_online beats A_online-E and BatchSche",
            X,
            "a_online",
            ("a_online_e", "batchsche"),
        ),
        Claim(
            "reduction over SRTF grows with J: A_online's JCT rate, most minus fewest jobs",
            "< 0",
            lambda df: ex.trend(df, X, "a_online"),
            holds=lambda v: v < 0,
            fmt="{:+.3f}",
        ),
        *[
            Claim(
                f"up to {paper:.0%} lower JCT than {ex.LABELS[other]} (A_online, largest reduction over J)",
                paper,
                lambda df, other=other: ex.reduction(df, X, "a_online", other).max(),
                holds=lambda v, paper=paper: abs(v - paper) <= 0.10,
                fmt="{:.0%}",
            )
            for other, paper in (
                ("srtf", 0.40),
                ("tiresias_l", 0.35),
                ("batchsche", 0.50),
            )
        ],
        Claim(
            "offered edge load over J (ours; the paper gives none)",
            "-",
            lambda df: ", ".join(
                f"{n}: {v:.2f}" for n, v in df.groupby(X)["edge_load"].mean().items()
            ),
        ),
    ],
)
