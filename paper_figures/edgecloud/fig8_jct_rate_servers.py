"""Fig. 8 of Wang et al.: JCT rate (total JCT over SRTF's) vs the number of servers.

The paper (Sec. V-C): *the performances of A_online and A_online-E are
better than other baselines regardless of the setting of hardware*; *as the
amount of edge resources increases, the JCT rates of A_online and BatchSche
get larger. On the contrary, the JCT rates of A_online-E and Tiresias-L
become smaller.*

Same task and instance family as Fig. 7 (``ex.jct_rate``, ``ex.SIM``) with
300 jobs and 20-100 edge servers (offered edge load about 6 down to 1.2).
Rows: one per instance x scheme.  Full: 5 server counts x 5 seeds; quick:
3 and 6 servers, 20 jobs, 1 seed.

Claims: orderings (at every ``S``) and directions (mean JCT rate at 100
servers minus at 20), all qualitative: ``reproduced`` when they hold.

Sizes.  Paper: 300 jobs; its server counts (the axis) are not in the text,
its simulator has 100 servers.  Ours: 300 jobs on 20-100 edge servers, so
the largest point is the paper's 100-server cluster.
"""

from optsched.core.experiment import Claim
from optsched.edgecloud import experiments as ex

X = "n_servers"

SPEC = ex.jct_figure(
    8,
    X,
    "jct_rate",
    doc=__doc__,
    claims=[
        ex.edge_only_claim(X),
        ex.always(
            "A_online beats every other scheme",
            X,
            "a_online",
            ("a_online_e", "srtf", "tiresias_l", "batchsche"),
        ),
        *[
            Claim(
                f"JCT rate of {ex.LABELS[s]} {'grows' if up else 'falls'} with S (most minus fewest servers)",
                "> 0" if up else "< 0",
                lambda df, s=s: ex.trend(df, X, s),
                holds=(lambda v: v > 0) if up else (lambda v: v < 0),
                fmt="{:+.3f}",
            )
            for s, up in (
                ("a_online", True),
                ("batchsche", True),
                ("a_online_e", False),
                ("tiresias_l", False),
            )
        ],
    ],
)
