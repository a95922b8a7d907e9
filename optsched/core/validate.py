"""Small validation helpers that raise InvalidInstanceError naming the field."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import InvalidInstanceError


def require(data: Mapping[str, Any], key: str, where: str = "") -> Any:
    """Return ``data[key]`` or raise InvalidInstanceError naming the field."""
    if not isinstance(data, Mapping):
        raise InvalidInstanceError(
            f"{where or 'instance'}: expected a JSON object, got {type(data).__name__}"
        )
    if key not in data:
        name = f"{where}.{key}" if where else key
        raise InvalidInstanceError(f"{name}: missing required field")
    return data[key]


def as_int(
    value: Any, name: str, *, lo: int | None = None, hi: int | None = None
) -> int:
    """Check that ``value`` is an integer in ``[lo, hi]`` and return it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInstanceError(f"{name}: must be an integer, got {value!r}")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise InvalidInstanceError(f"{name}: must be an integer, got {value!r}")
    v = int(value)
    if lo is not None and v < lo:
        raise InvalidInstanceError(f"{name}: must be >= {lo}, got {value!r}")
    if hi is not None and v > hi:
        raise InvalidInstanceError(f"{name}: must be <= {hi}, got {value!r}")
    return v


def as_float(
    value: Any,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
) -> float:
    """Check that ``value`` is a finite number in the given range and return it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInstanceError(f"{name}: must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise InvalidInstanceError(f"{name}: must be finite, got {value!r}")
    if lo is not None and (v < lo or (lo_open and v <= lo)):
        op = ">" if lo_open else ">="
        raise InvalidInstanceError(f"{name}: must be {op} {lo}, got {value!r}")
    if hi is not None and v > hi:
        raise InvalidInstanceError(f"{name}: must be <= {hi}, got {value!r}")
    return v


def as_vector(
    value: Any, name: str, length: int, *, lo: float = 0.0
) -> tuple[float, ...]:
    """Check a list of ``length`` finite numbers >= ``lo`` and return a tuple."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InvalidInstanceError(f"{name}: must be a list of numbers, got {value!r}")
    if len(value) != length:
        raise InvalidInstanceError(
            f"{name}: must have {length} entries (one per resource), got {len(value)}"
        )
    return tuple(as_float(v, f"{name}[{j}]", lo=lo) for j, v in enumerate(value))


def as_int_vector(
    value: Any, name: str, length: int, *, lo: int = 0
) -> tuple[int, ...]:
    """Check a list of ``length`` integers >= ``lo`` and return a tuple."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InvalidInstanceError(f"{name}: must be a list of integers, got {value!r}")
    if len(value) != length:
        raise InvalidInstanceError(
            f"{name}: must have {length} entries, got {len(value)}"
        )
    return tuple(as_int(v, f"{name}[{k}]", lo=lo) for k, v in enumerate(value))


def as_list(value: Any, name: str) -> list[Any]:
    """Check that ``value`` is a (JSON) list and return it."""
    if not isinstance(value, list):
        raise InvalidInstanceError(f"{name}: must be a list, got {value!r}")
    return value


def int_rows(rows: Iterable[Iterable[float]] | np.ndarray, width: int) -> np.ndarray:
    """Schedule rows as an (N, width) int64 array; non-integral values stay float.

    A float that is not a whole number is kept (a float array) so that the
    paper's checker rejects it as outside the variables' domain instead of a
    cast silently truncating it.
    """
    arr = np.asarray(list(rows) if not isinstance(rows, np.ndarray) else rows)
    if arr.size == 0:
        return np.zeros((0, width), dtype=np.int64)
    if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        return arr.reshape(-1, width)
    return arr.astype(np.int64).reshape(-1, width)
