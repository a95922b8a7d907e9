"""Fig. 11 of Wang et al.: job submissions and resource utilization over time.

The paper (Sec. V-C): *all schedulers have similar trends for different job
submissions, and their resource utilization rapidly increases at the two
peaks of job submission*; *the utilization of A_online and A_online-E can
reach 100%*; *the makespan of A_online is about 0.76x and 0.74x* that of
SRTF and Tiresias-L.

One instance of Fig. 7's family (300 jobs, 100 edge servers, ``ex.SIM``),
one task per scheme (``ex.utilization_over_time``): per slot, submissions
and the checker's edge worker utilization.  Our arrivals are uniform (the
Philly trace with its two peaks is not shipped), so the peak claim is not
tested.  "Under-utilization" is read as a lower mean edge utilization
than A_online-E's (the elastic edge-only scheme; A_online offloads to the
cloud, so its edge utilization is lower by design) while A_online-E still
runs.  Quick: 20 jobs on 5 servers.

Claims: "reaches 100%" and the under-utilization are qualitative; the
makespan quotients are ``reproduced`` within 10% of the paper's 0.76 /
0.74, ``trend only`` when A_online's makespan is shorter by another margin.

Sizes.  Paper: its 100-server cluster over the (scaled-up) trace window,
job count not stated (300 in Figs. 7-8).  Ours: 300 jobs on 100 edge
servers, one instance, arrivals uniform over 1,800 slots (``ex.SIM``).
"""

from optsched.core.experiment import Claim, Experiment, near
from optsched.edgecloud import experiments as ex

_POINT = {"n_jobs": 300, "n_servers": 100, "seed": 0, **ex.SIM}


def _makespan_ratio(other):
    return lambda df: ex.makespans(df)["a_online"] / ex.makespans(df)[other]


SPEC = Experiment(
    name="fig11_utilization",
    paper="edgecloud",
    ref="Fig. 11, Sec. V-C",
    doc=__doc__,
    task=ex.utilization_over_time,
    grid={**_POINT, "scheme": list(ex.SCHEMES)},
    quick={
        **_POINT,
        "n_jobs": 20,
        "n_servers": 5,
        **ex.SIM_QUICK,
        "scheme": list(ex.SCHEMES),
    },
    columns=ex.UTIL_COLUMNS,
    sort=["scheme", "slot"],
    plot=ex.plot_utilization,
    summary=lambda df: df.groupby("scheme")[["makespan", "utilization"]].agg(
        {"makespan": "first", "utilization": "max"}
    ),
    claims=[
        *[
            Claim(
                f"utilization of {ex.LABELS[s]} reaches 100% (its maximum)",
                1.0,
                lambda df, s=s: df.loc[df["scheme"] == s, "utilization"].max(),
                holds=lambda v: v >= 1.0 - 1e-9,
                fmt="{:.0%}",
            )
            for s in ("a_online", "a_online_e")
        ],
        Claim(
            "SRTF and Tiresias-L under-utilize (non-elastic): mean edge utilization until "
            "A_online-E's makespan, " + " / ".join(ex.LABELS[s] for s in ex.SCHEMES),
            "SRTF, Tiresias-L < A_online-E",
            ex.mean_utilization,
            holds=lambda v: max(v.values[2], v.values[3]) < v.values[1],
        ),
        *[
            Claim(
                f"makespan of A_online / {ex.LABELS[other]}'s",
                paper,
                _makespan_ratio(other),
                holds=near(paper),
                trend=lambda v: v < 1,
                tolerance="+-10% of the paper's value",
                fmt="{:.2f}",
            )
            for other, paper in (("srtf", 0.76), ("tiresias_l", 0.74))
        ],
    ],
)
