"""Small valid changes of an instance, for the worst-case search (:mod:`.adversary`).

A slice describes what may change as :class:`Knob` s -- numeric fields of
its instance's JSON dict (``to_dict``/``from_dict``) with bounds -- and
gets its ``mutate(inst, rng, **size) -> inst`` from :func:`knob_mutator`.
One mutation picks one knob and one of the fields it matches (uniformly),
moves the value a small random step, clips it to the knob's bounds,
applies the slice's ``fix`` (e.g. re-sort jobs by arrival) and rebuilds the
instance through ``from_dict``, i.e. through the slice's own validation.  A
change that validation rejects is redrawn (up to ``tries`` times).  All
randomness comes from the ``numpy.random.Generator`` passed in, so a
mutation sequence is reproducible from a seed.

Paths are dotted keys into the dict; ``*`` matches every index of a list
(``"jobs.*.arrival"``, ``"worker_servers.*.*"``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidInstanceError

Bound = float | Callable[[dict[str, Any]], float]


@dataclass(frozen=True)
class Knob:
    """One mutable numeric field family of an instance dict.

    Attributes
    ----------
    path
        Dotted path, ``*`` for every list index.
    lo, hi
        Bounds of the new value (numbers, or functions of the whole dict,
        e.g. ``lambda d: d["n_slots"]``).
    integer
        Round the new value to an integer.
    step
        Relative knobs (``absolute=False``): the value is multiplied by
        ``exp(N(0, step))``; absolute knobs: ``N(0, step)`` is added (integer
        knobs move by at least 1).
    absolute
        Additive instead of multiplicative steps (for values that may be 0
        or whose scale is fixed, such as slots).
    """

    path: str
    lo: Bound
    hi: Bound
    integer: bool = False
    step: float = 0.3
    absolute: bool = False


def _bound(b: Bound, data: dict[str, Any]) -> float:
    return float(b(data)) if callable(b) else float(b)


def matches(data: Any, path: str) -> list[tuple[Any, ...]]:
    """Every concrete key tuple of ``path`` in ``data`` (``*`` expanded, sorted)."""
    out: list[tuple[Any, ...]] = [()]
    for part in path.split("."):
        nxt = []
        for keys in out:
            node = get(data, keys)
            if part == "*":
                if isinstance(node, list):
                    nxt += [(*keys, j) for j in range(len(node))]
            elif isinstance(node, dict) and part in node:
                nxt.append((*keys, part))
        out = nxt
    return [k for k in out if isinstance(get(data, k), int | float)]


def get(data: Any, keys: Sequence[Any]) -> Any:
    """``data[k0][k1]...``."""
    for k in keys:
        data = data[k]
    return data


def _set(data: Any, keys: Sequence[Any], value: Any) -> None:
    get(data, keys[:-1])[keys[-1]] = value


def step_value(
    value: float, knob: Knob, data: dict[str, Any], rng: np.random.Generator
) -> float:
    """A new value for ``knob`` near ``value`` within its bounds."""
    lo, hi = _bound(knob.lo, data), _bound(knob.hi, data)
    if hi < lo:
        return value
    if knob.absolute or value == 0:
        new = value + rng.normal(0.0, knob.step)
        if knob.integer:
            delta = new - value
            new = value + (
                math.copysign(max(1.0, round(abs(delta))), delta) if delta else 1.0
            )
    else:
        new = value * math.exp(rng.normal(0.0, knob.step))
        if knob.integer and round(new) == value:
            new = value + (1 if new >= value else -1)
    new = min(max(new, lo), hi)
    return float(round(new)) if knob.integer else float(new)


def mutate_dict(
    data: dict[str, Any], knobs: Sequence[Knob], rng: np.random.Generator
) -> tuple[dict[str, Any], str]:
    """A copy of ``data`` with one field moved; also ``"path[index]: old -> new"``."""
    out = copy.deepcopy(data)
    live = [(k, m) for k in knobs if (m := matches(out, k.path))]
    if not live:
        raise InvalidInstanceError("mutate: no mutable field in the instance")
    knob, fields = live[int(rng.integers(len(live)))]
    keys = fields[int(rng.integers(len(fields)))]
    old = get(out, keys)
    new = step_value(float(old), knob, out, rng)
    _set(out, keys, int(new) if knob.integer else new)
    where = ".".join(str(k) for k in keys)
    return out, f"{where}: {old!r} -> {get(out, keys)!r}"


def knob_mutator(
    from_dict: Callable[[dict[str, Any]], Any],
    knobs: Sequence[Knob],
    fix: Callable[[dict[str, Any]], None] | None = None,
    tries: int = 20,
) -> Callable[..., Any]:
    """``mutate(inst, rng, **size) -> inst``: one valid knob change (module docstring).

    The returned instance carries the change in ``meta["mutation"]`` when
    the instance type has a ``meta`` dict.  After ``tries`` rejected draws
    the instance is returned unchanged (``meta["mutation"] = "none"``).
    """

    def mutate(inst: Any, rng: np.random.Generator, **_size: Any) -> Any:
        base = inst.to_dict()
        for _ in range(tries):
            data, what = mutate_dict(base, knobs, rng)
            if fix is not None:
                fix(data)
            if data == base:  # clipped back to the old value: draw again
                continue
            try:
                new = from_dict(data)
            except InvalidInstanceError:
                continue
            _note(new, what)
            return new
        new = from_dict(copy.deepcopy(base))
        _note(new, "none")
        return new

    return mutate


def sort_list(key: str, field: str) -> Callable[[dict[str, Any]], None]:
    """A ``fix`` that stably sorts ``data[key]`` by each item's ``field`` (e.g. jobs by arrival)."""

    def fix(data: dict[str, Any]) -> None:
        data[key].sort(key=lambda item: item[field])

    return fix


#: ``fix`` of the slices whose instances list jobs in arrival (online) order.
jobs_by_arrival = sort_list("jobs", "arrival")
#: A job's arrival slot, moved by about 2 slots within ``1..n_slots``.
ARRIVAL_IN_HORIZON = Knob(
    "jobs.*.arrival", 1, lambda d: d["n_slots"], integer=True, step=2.0, absolute=True
)


def _note(inst: Any, what: str) -> None:
    meta = getattr(inst, "meta", None)
    if isinstance(meta, dict):
        meta["mutation"] = what
