"""Heterogeneity-aware multi-job placement (Liu, Wang, Huang, Pan, TPDS 2024).

Modules: :mod:`~optsched.hetero.instance` (instances, generator, the Sec. IV-A
example), :mod:`~optsched.hetero.schedule` (placements),
:mod:`~optsched.hetero.check` (independent checker of (8a)-(8d) and (8)),
:mod:`~optsched.hetero.online` (Alg. 1 and HAS, Alg. 2),
:mod:`~optsched.hetero.baselines` (exhaustive search, LAS),
:mod:`~optsched.hetero.paper` (registry record).  The P3 assignment LP is in
``optsched.models.hetero``.
"""

from .check import HeteroEvaluation, check
from .instance import HeteroInstance, Job, Worker, example, generate
from .schedule import HeteroPlacement

__all__ = [
    "HeteroEvaluation",
    "HeteroInstance",
    "HeteroPlacement",
    "Job",
    "Worker",
    "check",
    "example",
    "generate",
]
