"""Prediction-assisted non-preemptive DDL scheduling (Luo, Liu, Lee, Shroff; A-SRPT).

In progress (issue 12): :mod:`~optsched.asrpt.timing` (per-iteration
training time ``alpha_i`` of Eqs. (4)-(7)).  Not registered yet.
"""

from .timing import Cluster, Stage, alpha, stage_times

__all__ = ["Cluster", "Stage", "alpha", "stage_times"]
