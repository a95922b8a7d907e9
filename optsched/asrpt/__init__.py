"""Prediction-assisted non-preemptive DDL scheduling (Luo, Liu, Lee, Shroff; A-SRPT).

Instance and generator (:mod:`~optsched.asrpt.instance`, model profiles in
:mod:`~optsched.asrpt.profiles`, predictors in :mod:`~optsched.asrpt.predict`),
per-iteration time (:mod:`~optsched.asrpt.timing`, Eqs. (4)-(7)), Heavy-Edge
(:mod:`~optsched.asrpt.heavy_edge`), A-SRPT (:mod:`~optsched.asrpt.online`)
and the baselines (:mod:`~optsched.asrpt.baselines`), the checker
(:mod:`~optsched.asrpt.check`) and lower bounds (:mod:`~optsched.asrpt.bounds`).
"""

from .baselines import spjf, spwf, wcs_duration, wcs_subtime, wcs_workload
from .check import AsrptEvaluation, check
from .heavy_edge import heavy_edge, job_graph
from .instance import AsrptInstance, Job, generate
from .online import asrpt, asrpt_eager, asrpt_perfect
from .schedule import AsrptSchedule
from .timing import Cluster, Stage, alpha, stage_times

__all__ = [
    "AsrptEvaluation",
    "AsrptInstance",
    "AsrptSchedule",
    "Cluster",
    "Job",
    "Stage",
    "alpha",
    "asrpt",
    "asrpt_eager",
    "asrpt_perfect",
    "check",
    "generate",
    "heavy_edge",
    "job_graph",
    "spjf",
    "spwf",
    "stage_times",
    "wcs_duration",
    "wcs_subtime",
    "wcs_workload",
]
