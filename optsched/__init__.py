"""optsched: online scheduling of distributed ML training jobs.

Each paper lives in a slice (``optsched.<key>``) registered in
:mod:`optsched.core.registry`; use :func:`get_paper`, :func:`ratios` and
:func:`worst_case`.
"""

from .core.adversary import worst_case
from .core.errors import (
    InfeasibleScheduleError,
    InvalidInstanceError,
    InvalidScheduleError,
    SolverError,
)
from .core.ratio import ratios
from .core.registry import PAPERS, OfflineResult, Paper, get_paper

__version__ = "0.1.0"

__all__ = [
    "PAPERS",
    "InfeasibleScheduleError",
    "InvalidInstanceError",
    "InvalidScheduleError",
    "OfflineResult",
    "Paper",
    "SolverError",
    "__version__",
    "get_paper",
    "ratios",
    "worst_case",
]
