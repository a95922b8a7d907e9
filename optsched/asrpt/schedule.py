"""A schedule of the A-SRPT problem: start slot and placement per job.

Job ``i`` starts at slot ``start[i]`` on the servers ``servers[i]`` with
``x[i][s, j]`` replicas of stage ``s`` on server ``servers[i][j]`` (the
paper's ``x_{i,s}^m``, kept sparse: only the servers the job uses).  The
placement never changes (non-preemptive, placed once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.base import ScheduleJsonMixin
from optsched.core.errors import InvalidScheduleError
from optsched.core.validate import (
    plain,
    schedule_fields,
    schedule_ints,
)


@dataclass(frozen=True)
class AsrptSchedule(ScheduleJsonMixin):
    """``start[i]``, ``servers[i]`` and ``x[i]`` (``(S_i, len(servers[i]))`` ints)."""

    start: tuple[int, ...]
    servers: tuple[tuple[int, ...], ...]
    x: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    #: Format tag of the schedule JSON (optional on reading: older files lack it).
    FORMAT = "optsched.asrpt.schedule/1"

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON representation (``meta`` omitted: traces only).

        Values are written as stored (no cast: a start of 0.5, ``True`` or
        ``"2"`` is written as such and :meth:`from_dict` refuses it).
        """
        return {
            "format": self.FORMAT,
            "start": [plain(t) for t in self.start],
            "servers": [plain(list(s)) for s in self.servers],
            "x": [plain(np.asarray(a)) for a in self.x],
        }

    @classmethod
    def from_dict(cls, data: Any) -> AsrptSchedule:
        """Read :meth:`to_dict` output, refusing what it would not write.

        ``start`` must be a list of integers, ``servers`` a list of integer
        lists and ``x`` a list of two-level integer lists (``[]`` reads as
        ``(0, len(servers[i]))``).  Counts and ranges are the checker's.

        Raises
        ------
        InvalidScheduleError
            Naming the field, e.g. ``"start[3]: must be an integer, got
            0.5"``: unknown or missing keys, a bool, string or float where an
            integer is expected, ragged or wrongly nested lists.
        """
        d = schedule_fields(data, ("start", "servers", "x"), ("format",))
        cls.check_format(d)
        start = schedule_ints(d["start"], "start", 1)
        servers = [
            schedule_ints(s, f"servers[{i}]", 1)
            for i, s in enumerate(_json_list(d["servers"], "servers"))
        ]
        x = []
        for i, a in enumerate(_json_list(d["x"], "x")):
            cols = len(servers[i]) if a == [] and i < len(servers) else None
            x.append(schedule_ints(a, f"x[{i}]", 2, shape=(None, cols)))
        return cls(
            tuple(int(t) for t in start),
            tuple(tuple(int(m) for m in s) for s in servers),
            tuple(x),
        )


def _json_list(value: Any, name: str) -> list[Any]:
    """``value`` if it is a JSON list, else InvalidScheduleError naming ``name``."""
    if type(value) is not list:
        raise InvalidScheduleError(f"{name}: must be a list, got {value!r:.60}")
    return value
