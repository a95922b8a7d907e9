"""Exception types shared by every paper slice."""

from __future__ import annotations


class OptschedError(Exception):
    """Base class of every error optsched raises on purpose."""


class InvalidInstanceError(OptschedError, ValueError):
    """An instance field is missing, malformed or out of range.

    The message always names the field and the offending value, e.g.
    ``"jobs[3].N: must be an integer >= 1, got 0"``.
    """


class InvalidScheduleError(OptschedError, ValueError):
    """A schedule file (JSON) is malformed: a field is missing, unknown or mistyped.

    Raised by the schedule classes' ``from_json`` / ``from_dict`` before any
    checking: the message names the field and the offending value, e.g.
    ``"start[3]: must be an integer, got 0.5"``.  A well-formed schedule that
    violates a constraint is an :class:`InfeasibleScheduleError` instead.
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
