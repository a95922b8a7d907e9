"""Fig. 10 of Wang et al.: preemption frequency of the preemptive schemes vs the number of servers.

The paper (Sec. V-C) draws the same conclusions as for Fig. 9: A_online
preempts less than A_online-E (it offloads to the cloud under contention)
and more than SRTF.  Same runs as Fig. 8 (``ex.jct_rate``,
``ex.BY_SERVERS``); preemptions are the checker's count.  Both claims are orderings at every
``S`` (qualitative).

Sizes.  As Fig. 8: paper 300 jobs (server counts not in the text); ours
300 jobs on 20-100 edge servers (the same runs).
"""

from optsched.edgecloud import experiments as ex

SPEC = ex.jct_figure(
    10,
    "n_servers",
    "preemptions",
    doc=__doc__,
    claims=ex.preemption_claims("n_servers"),
)
