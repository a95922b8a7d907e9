"""Preemptive scheduling of ML jobs in edge-cloud networks (Wang et al.).

Modules: :mod:`~optsched.edgecloud.instance` (edge servers with typed
workers and PSs, the cloud, jobs, throughput Eq. (1), validation, JSON,
generator of Sec. V-A), :mod:`~optsched.edgecloud.schedule` (slot-by-slot
schedule rows ``y_jdsw(t)``, ``z_jsp(t)``, ``zeta_j``; the all-cloud
calibration witness), :mod:`~optsched.edgecloud.check` (independent checker
of (2a)-(2k) and (7b), total JCT (2), preemptions, utilisation).  Readings:
``docs/edgecloud.md``; paper errata: ``docs/errata.md``.
"""

from .check import EdgeCloudEvaluation, check
from .instance import EdgeCloudInstance, Job, Server, generate, throughput
from .schedule import EdgeCloudSchedule, cloud_only

__all__ = [
    "EdgeCloudEvaluation",
    "EdgeCloudInstance",
    "EdgeCloudSchedule",
    "Job",
    "Server",
    "check",
    "cloud_only",
    "generate",
    "throughput",
]
