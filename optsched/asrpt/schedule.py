"""A schedule of the A-SRPT problem: start slot and placement per job.

Job ``i`` starts at slot ``start[i]`` on the servers ``servers[i]`` with
``x[i][s, j]`` replicas of stage ``s`` on server ``servers[i][j]`` (the
paper's ``x_{i,s}^m``, kept sparse: only the servers the job uses).  The
placement never changes (non-preemptive, placed once).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optsched.core.errors import InvalidInstanceError


@dataclass(frozen=True)
class AsrptSchedule:
    """``start[i]``, ``servers[i]`` and ``x[i]`` (``(S_i, len(servers[i]))`` ints)."""

    start: tuple[int, ...]
    servers: tuple[tuple[int, ...], ...]
    x: tuple[np.ndarray, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": [int(t) for t in self.start],
            "servers": [list(map(int, s)) for s in self.servers],
            "x": [np.asarray(a).tolist() for a in self.x],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> AsrptSchedule:
        try:
            d = json.loads(text)
            return cls(
                tuple(d["start"]),
                tuple(tuple(s) for s in d["servers"]),
                tuple(np.asarray(a) for a in d["x"]),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InvalidInstanceError(f"<schedule json>: {exc}") from exc
