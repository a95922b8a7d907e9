"""Exception types shared by every paper slice."""

from __future__ import annotations


class OptschedError(Exception):
    """Base class of every error optsched raises on purpose."""


class InvalidInstanceError(OptschedError, ValueError):
    """An instance field is missing, malformed or out of range.

    The message always names the field and the offending value, e.g.
    ``"jobs[3].N: must be an integer >= 1, got 0"``.
    """


class InfeasibleScheduleError(OptschedError):
    """A schedule violates one of the paper's constraints.

    The message names the violated paper equation and where, e.g.
    ``"constraint (4): server h3, slot 7, GPU 5 > 4"``.
    """

    def __init__(self, message: str, *, constraint: str | None = None) -> None:
        super().__init__(message)
        self.constraint = constraint


class SolverError(OptschedError, RuntimeError):
    """The solver failed or is unavailable."""
