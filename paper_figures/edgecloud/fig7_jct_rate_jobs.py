"""Fig. 7 of Wang et al.: JCT rate (total JCT over SRTF's) vs the number of jobs.

The paper (Sec. V-C): *A_online and A_online-E consistently outperform all
others in their category* (A_online-E among the edge-only schemes SRTF and
Tiresias-L, A_online against BatchSche), *the reduction of JCT in A_online
and A_online-E over SRTF and Tiresias-L grows as the number of jobs
increases*, *A_online performs better than A_online-E and BatchSche* and,
*compared with A_online-E, the reduction of JCT in A_online gets larger
with the increasing number of jobs*; the abstract and introduction: *up to
35%, 40% and 50%* lower average JCT than Tiresias-L, SRTF and BatchSche.

We run the five schemes (``ex.jct_rate``) on 100 edge servers plus the
cloud with the paper's job distributions.  The seed gives neither its job
counts nor its submission times (Philly trace, "scaled up"); our arrivals
are uniform over 1,800 one-hour slots so the offered edge load
(``edge_load``) goes from 0.2 to 1.2 (``ex.SIM``).  Every total JCT is the
checker's, on the instance with ``T`` extended to the makespan when a
scheme runs past ``T`` (``past_T``).  Rows: one per instance x scheme.
Full: 50-300 jobs x 5 seeds; quick: 10 and 30 jobs on 5 servers, 1 seed.

Claims: the orderings and growths are qualitative (``reproduced`` when
they hold; a growth is the reduction at 300 jobs minus at 50, ``ex.growth``);
the "up to" percentages are A_online's largest reduction over ``J``,
``reproduced`` within 10% of the paper's value, ``trend only`` when
A_online is below the scheme by another margin.

Sizes.  Paper: 100 servers drawn from the trace, the Philly jobs "scaled
up" to 300 (the J values of its axis are not in the text).  Ours: 100 edge
servers and 50-300 jobs, the paper's largest size; only the arrival window
is our choice (``ex.SIM``), because the paper gives none.
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
        *ex.growth_claims(X),
        *ex.up_to_claims(X),
        Claim(
            "offered edge load over J (ours; the paper gives none)",
            "-",
            lambda df: ", ".join(
                f"{n}: {v:.2f}" for n, v in df.groupby(X)["edge_load"].mean().items()
            ),
        ),
    ],
)
