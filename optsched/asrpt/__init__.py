"""Prediction-assisted non-preemptive DDL scheduling (Luo, Liu, Lee, Shroff; A-SRPT).

In progress (issue 12): :mod:`~optsched.asrpt.timing` (per-iteration
training time ``alpha_i`` of Eqs. (4)-(7)), :mod:`~optsched.asrpt.heavy_edge`
(Heavy-Edge GPU mapping, Sec. IV-B).  Not registered yet.
"""

from .heavy_edge import heavy_edge, job_graph
from .timing import Cluster, Stage, alpha, stage_times

__all__ = ["Cluster", "Stage", "alpha", "heavy_edge", "job_graph", "stage_times"]
