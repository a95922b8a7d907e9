"""Heterogeneity-aware multi-job placement (Liu, Wang, Huang, Pan, TPDS 2024).

Modules: :mod:`~optsched.hetero.instance` (instances, validation, generator,
the Sec. IV-A example), :mod:`~optsched.hetero.schedule` (placements),
:mod:`~optsched.hetero.check` (independent checker of (8a)-(8d) and (8)),
:mod:`~optsched.hetero.jct` (JCT (2)-(8) of an assignment),
:mod:`~optsched.hetero.online` (Alg. 1 categories, Alg. 2 HAS with its
matching market, Alg. 3 JPS with the fairness degree (32)-(33)),
:mod:`~optsched.hetero._market_nb` (compiled market loop, bit-identical to
the reference), :mod:`~optsched.hetero.baselines` (exhaustive search, LAS,
Optimus, Optimus-LB, Gavel), :mod:`~optsched.hetero.simulate` (reset events:
static vs dynamic policies, Gavel rounds), :mod:`~optsched.hetero.paper`
(registry record).  The P3 assignment LP with its dual and the exact MILP of
P1 (the certified optimum) are in ``optsched.models.hetero``.  Readings and
measured numbers: ``docs/hetero.md``; paper errata: ``docs/errata.md``.
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
