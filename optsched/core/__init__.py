"""Shared machinery: solver, registry, ratio harness, sweep, errors."""

from .errors import (
    InfeasibleScheduleError,
    InvalidInstanceError,
    InvalidScheduleError,
    OptschedError,
    SolverError,
)
from .registry import PAPERS, OfflineResult, Paper, get_paper

__all__ = [
    "PAPERS",
    "InfeasibleScheduleError",
    "InvalidInstanceError",
    "InvalidScheduleError",
    "OfflineResult",
    "OptschedError",
    "Paper",
    "SolverError",
    "get_paper",
]
