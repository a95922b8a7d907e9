"""Online scheduling of unbiased distributed learning at the edge (Han et al., Okita).

Modules: :mod:`~optsched.okita.instance` (sites with capacities ``C_r^k``,
bandwidth costs ``q^{rr'}``, jobs with per-site data ``D_i^r`` and a latency
cost ``f_i`` of one of three kinds, validation, JSON, generator of Sec.
V-B), :mod:`~optsched.okita.schedule` (slot-by-slot rows ``y_i^r(t)``,
``s_i^r(t)``, ``g_i^{rr'}(t)``; the local-first calibration witness),
:mod:`~optsched.okita.check` (independent checker of (2a)-(2g), latency
cost, bandwidth cost (1) and total cost (2)), :mod:`~optsched.okita.online`
(Okita, Alg. 1-3), :mod:`~optsched.okita.baselines` (FIFO, DRF, OASiS of
Sec. V-A), :mod:`~optsched.okita.paper` (registry record).  Readings: ``docs/okita.md``;
paper errata: ``docs/errata.md``.
"""

from .baselines import drf, fifo, oasis
from .check import OkitaEvaluation, check
from .instance import Job, LatencyCost, OkitaInstance, Site, generate
from .online import okita
from .schedule import OkitaSchedule, local_first

__all__ = [
    "Job",
    "LatencyCost",
    "OkitaEvaluation",
    "OkitaInstance",
    "OkitaSchedule",
    "Site",
    "check",
    "drf",
    "fifo",
    "oasis",
    "local_first",
    "okita",
    "generate",
]
