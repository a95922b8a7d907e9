"""Small validation helpers that raise InvalidInstanceError naming the field."""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import InvalidInstanceError

#: Largest magnitude of any integer field (``as_int`` always enforces it).  Far
#: above every meaningful count or slot and below the int64 range, so no
#: validated integer overflows a numpy int64 array or a product of two of them
#: with a small factor; Python ints beyond it raise InvalidInstanceError
#: instead of ``OverflowError`` deep inside numpy.
INT_LIMIT = 2**62

#: Memory bound of the size checks: an instance whose dense arrays (estimated
#: per slice, e.g. OASiS's ``(I, H + K, T)`` schedule) need more than 2 GiB is
#: refused before anything is allocated (docs/<paper>.md, "Limits").
MAX_BYTES = 2 * 1024**3


def check_keys(data: Any, allowed: Collection[str], where: str = "") -> Mapping:
    """Check that ``data`` is a JSON object with no key outside ``allowed``.

    Parameters
    ----------
    data
        The parsed JSON value.
    allowed
        Every key the object may have (required and optional ones).
    where
        Field path of the object for messages (``"jobs[2]"``; ``""`` = the
        top level, reported as ``instance``).

    Returns
    -------
    Mapping
        ``data`` itself.

    Raises
    ------
    InvalidInstanceError
        ``data`` is not an object, or has a key not in ``allowed``; the
        message names the object, the key and the known keys, e.g.
        ``"jobs[2]: unknown field 'arival' (did you mean 'arrival'?; known:
        ...)"``.
    """
    name = where or "instance"
    if not isinstance(data, Mapping):
        raise InvalidInstanceError(
            f"{name}: expected a JSON object, got {type(data).__name__}"
        )
    for key in data:
        if key not in allowed:
            known = ", ".join(allowed)
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f"did you mean {close[0]!r}?; " if close else ""
            raise InvalidInstanceError(
                f"{name}: unknown field {key!r} ({hint}known: {known})"
            )
    return data


def check_memory(n_bytes: int, what: str, limit: int = MAX_BYTES) -> None:
    """Refuse an instance whose estimated dense arrays need more than ``limit`` bytes.

    ``what`` names the size fields and the estimate, e.g.
    ``"n_jobs x (H + K) x n_slots (schedule arrays, 8 bytes each)"``.
    """
    if n_bytes > limit:
        raise InvalidInstanceError(
            f"{what}: needs about {n_bytes / 1024**3:.3g} GiB, more than the "
            f"{limit / 1024**3:.3g} GiB limit (lower the sizes)"
        )


def as_size(value: Any, name: str, limit: int, *, lo: int = 0, why: str = "") -> int:
    """``as_int`` for a size field with a documented maximum ``limit``.

    The message names the constant's reason (``why``, e.g. ``"MAX_SLOTS"``)
    so a user sees that the bound is a documented limit, not a typo check.
    """
    v = as_int(value, name, lo=lo)
    if v > limit:
        note = f" ({why})" if why else ""
        raise InvalidInstanceError(f"{name}: must be <= {limit}{note}, got {v}")
    return v


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
    """Check that ``value`` is an integer in ``[lo, hi]`` and return it.

    Whatever ``lo`` and ``hi`` say, ``|value| <= INT_LIMIT`` (2**62) is
    always required, so a huge Python int is refused here, naming the
    field, instead of overflowing int64 later.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInstanceError(f"{name}: must be an integer, got {value!r}")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise InvalidInstanceError(f"{name}: must be an integer, got {value!r}")
    v = int(value)
    if abs(v) > INT_LIMIT:
        raise InvalidInstanceError(
            f"{name}: must be at most 2**62 in magnitude, got {_short(value)}"
        )
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
    try:
        v = float(value)
    except OverflowError:  # a Python int beyond the float range
        raise InvalidInstanceError(
            f"{name}: must be finite, got {_short(value)}"
        ) from None
    if not math.isfinite(v):
        raise InvalidInstanceError(f"{name}: must be finite, got {value!r}")
    if lo is not None and (v < lo or (lo_open and v <= lo)):
        op = ">" if lo_open else ">="
        raise InvalidInstanceError(f"{name}: must be {op} {lo}, got {value!r}")
    if hi is not None and v > hi:
        raise InvalidInstanceError(f"{name}: must be <= {hi}, got {value!r}")
    return v


def _short(value: Any) -> str:
    """``repr`` of a value, shortened when it is a huge integer."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} digits)"


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


# --------------------------------------------------------------------------
# Schedule JSON: strict readers that raise InvalidScheduleError
# naming the field.  A schedule's ``to_dict`` writes what it stores; these
# readers accept exactly what ``to_dict`` writes for a schedule whose values
# are in the variables' domain, and refuse anything else (bools and strings
# for numbers, fractional or whole floats for integers, ragged lists,
# unknown keys) instead of converting it.
# --------------------------------------------------------------------------

_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_FLOAT_EXACT = 2**53


def _schedule_error(message: str) -> Exception:
    """An :class:`~optsched.core.errors.InvalidScheduleError` with ``message``."""
    from .errors import InvalidScheduleError

    return InvalidScheduleError(message)


def _brief(value: Any) -> str:
    """``repr`` of a value for a message, shortened when long."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > 128:
            return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({type(value).__name__})"


def schedule_json(text: str | bytes | bytearray) -> Any:
    """Parse schedule JSON text; duplicate keys and bad JSON are refused.

    Raises
    ------
    InvalidScheduleError
        ``text`` is not a string, not valid JSON, or an object in it
        repeats a key (``json.loads`` would silently keep the last one).
    """

    import json

    from .errors import InvalidScheduleError

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise InvalidScheduleError(f"{key}: field given twice in the schedule")
            out[key] = value
        return out

    if not isinstance(text, str | bytes | bytearray):
        raise InvalidScheduleError(
            f"schedule: expected JSON text, got {type(text).__name__}"
        )
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except InvalidScheduleError:
        raise
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise InvalidScheduleError(f"schedule: not valid JSON ({exc})") from None


def schedule_fields(
    data: Any,
    required: Sequence[str],
    optional: Sequence[str] = (),
    where: str = "schedule",
) -> Mapping[str, Any]:
    """Check that ``data`` is an object with every ``required`` key and no other.

    Returns ``data``.  Raises InvalidScheduleError naming the unknown or
    missing key (with the known ones), or saying ``data`` is not an object.
    """
    import difflib

    if not isinstance(data, Mapping):
        raise _schedule_error(
            f"{where}: expected a JSON object, got {type(data).__name__}"
        )
    known = (*required, *optional)
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean {close[0]!r}?; " if close else ""
            raise _schedule_error(
                f"{key}: unknown field of the {where} ({hint}known: {', '.join(known)})"
            )
    for key in required:
        if key not in data:
            raise _schedule_error(f"{key}: missing required field of the {where}")
    return data


def schedule_str(value: Any, name: str) -> str:
    """Check that ``value`` is a string (e.g. the algorithm name) and return it."""
    if not isinstance(value, str):
        raise _schedule_error(f"{name}: must be a string, got {_brief(value)}")
    return value


def _path(name: str, flat: int, dims: Sequence[int]) -> str:
    """Field path ``name[i][j]...`` of item ``flat`` of a level of shape ``dims``."""
    idx = np.unravel_index(flat, tuple(dims)) if dims else ()
    return name + "".join(f"[{int(i)}]" for i in idx)


def _nested(
    value: Any, name: str, ndim: int, shape: Sequence[int | None] | None
) -> tuple[list[Any], tuple[int, ...]]:
    """Leaves (flat, row-major) and shape of a rectangular nested list.

    ``shape`` entries that are not None are required sizes; they also give
    the sizes an empty list cannot show (``[]`` read with ``shape = (0, 3,
    4)`` has that shape).  Every level must be a JSON list (a Python list).
    """
    level: list[Any] = [value]
    dims: list[int] = []
    for depth in range(ndim):
        want = None if shape is None else shape[depth]
        nxt: list[Any] = []
        n = want
        for k, item in enumerate(level):
            if type(item) is not list:
                where = _path(name, k, dims)
                raise _schedule_error(
                    f"{where}: must be a list ({ndim - depth} more level(s) of "
                    f"nesting), got {_brief(item)}"
                )
            if n is None:
                n = len(item)
            elif len(item) != n:
                where = _path(name, k, dims)
                like = "" if want is not None else f" like {_path(name, 0, dims)}"
                raise _schedule_error(
                    f"{where}: must have {n} entries{like}, got {len(item)}"
                )
            nxt.extend(item)
        dims.append(0 if n is None else n)
        level = nxt
    return level, tuple(dims)


def schedule_ints(
    value: Any,
    name: str,
    ndim: int,
    *,
    shape: Sequence[int | None] | None = None,
    lo: int | None = None,
    hi: int | None = None,
) -> np.ndarray:
    """A nested list of JSON integers as an int64 array of ``ndim`` dimensions.

    Integers only: ``True``, ``"2"``, ``0.5`` and also ``1.0`` are refused
    (``to_dict`` writes an integer variable as an integer; a float there is
    a value the schedule's domain does not have).  ``lo`` / ``hi`` bound
    every entry (``lo=0, hi=1`` for 0/1 variables).

    Raises
    ------
    InvalidScheduleError
        Naming the entry, e.g. ``"start[3]: must be an integer, got 0.5"``.
    """
    leaves, dims = _nested(value, name, ndim, shape)
    if not all(type(v) is int for v in leaves):
        k = next(k for k, v in enumerate(leaves) if type(v) is not int)
        raise _schedule_error(
            f"{_path(name, k, dims)}: must be an integer, got {_brief(leaves[k])}"
        )
    lo_ = _I64_MIN if lo is None else max(lo, _I64_MIN)
    hi_ = _I64_MAX if hi is None else min(hi, _I64_MAX)
    if leaves and (min(leaves) < lo_ or max(leaves) > hi_):
        k = next(k for k, v in enumerate(leaves) if not lo_ <= v <= hi_)
        v = leaves[k]
        if (lo, hi) == (0, 1):
            what = "0 or 1"
        elif lo is not None and _I64_MIN <= v < lo:
            what = f">= {lo}"
        elif hi is not None and hi < v <= _I64_MAX:
            what = f"<= {hi}"
        else:
            what = "an integer within the int64 range"
        raise _schedule_error(
            f"{_path(name, k, dims)}: must be {what}, got {_brief(v)}"
        )
    return np.array(leaves, dtype=np.int64).reshape(dims)


def schedule_floats(
    value: Any, name: str, ndim: int, *, shape: Sequence[int | None] | None = None
) -> np.ndarray:
    """A nested list of JSON numbers as a float64 array of ``ndim`` dimensions.

    Floats (``NaN`` and ``Infinity`` included: the checker judges them) and
    integers that a float holds exactly; ``True`` and ``"2"`` are refused.

    Raises
    ------
    InvalidScheduleError
        Naming the entry, e.g. ``"workload[0][2]: must be a number, got '2'"``.
    """
    leaves, dims = _nested(value, name, ndim, shape)
    for k, v in enumerate(leaves):
        if type(v) is float:
            continue
        if type(v) is not int:
            raise _schedule_error(
                f"{_path(name, k, dims)}: must be a number, got {_brief(v)}"
            )
        if abs(v) > _FLOAT_EXACT and (abs(v) > 2**1023 or float(v) != v):
            raise _schedule_error(
                f"{_path(name, k, dims)}: must be a number a float holds "
                f"exactly, got {_brief(v)}"
            )
    return np.array(leaves, dtype=float).reshape(dims)


def schedule_shape(value: Any, name: str, ndim: int) -> tuple[int, ...] | None:
    """An optional array shape field: None or a list of ``ndim`` integers >= 0."""
    if value is None:
        return None
    return tuple(int(v) for v in schedule_ints(value, name, 1, shape=(ndim,), lo=0))


def plain(value: Any) -> Any:
    """``value`` with numpy arrays and scalars as the equal Python objects.

    Kinds are kept (an int stays an int, a float a float, a bool a bool, a
    string a string), so ``json.dumps`` writes what the schedule stores and a
    strict reader can refuse what is outside the domain; tuples become lists.
    """
    if isinstance(value, np.ndarray):
        out = value.tolist()
        return plain(out) if value.dtype.kind == "O" else out
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
