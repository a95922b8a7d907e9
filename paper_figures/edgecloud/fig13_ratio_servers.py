"""Fig. 13 of Wang et al.: competitive ratio of A_online vs the number of servers and eps.

The paper's claims and our two denominators are those of Fig. 12 (see its
spec and ``ex.competitive_ratio``); here 25 jobs on 5-45 edge servers of the
reduced input (``ex.REDUCED``).  Full: 5 server counts x 3 seeds x eps in
{0, 0.1, 0.25, 0.5}, 60 s per solve; quick: 1 and 3 servers, 4 jobs, 10 s.
"Little influence of S": every plotted mean within +-10% of the mean over
``S`` of its ``eps`` (``ex.influence``).

Sizes.  The paper's reduced input: 5-45 servers (and 5-25 jobs); ours
25 jobs on 5-45 servers with ``ex.REDUCED`` (8-hour slots, ``T = 60``, at
most 3 chunks), for the size of ILP (4) (see Fig. 12).
"""

from optsched.edgecloud import experiments as ex

SPEC = ex.ratio_figure(
    13,
    {"n_servers": [45, 35, 25, 15, 5], "n_jobs": 25},
    {"n_servers": [3, 1], "n_jobs": 4},
    doc=__doc__,
)
