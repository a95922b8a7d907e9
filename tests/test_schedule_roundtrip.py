"""Schedules survive their own JSON (issue 23, section 3).

For every paper: schedule -> ``to_json`` -> ``from_json`` gives the same
checker verdict (feasible with the same objective, or infeasible with the
same message) and the same JSON again; a value ``to_dict`` would not write
for a schedule in the variables' domain (a fractional slot, a bool, a
string number, an unknown key, a ragged list) is refused with an
:class:`InvalidScheduleError` naming the field.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import optsched
from optsched.core.errors import (
    InfeasibleScheduleError,
    InvalidInstanceError,
    InvalidScheduleError,
    OptschedError,
)


def _hetero_size() -> st.SearchStrategy[dict[str, int]]:
    """Hetero needs ``n_workers >= n_jobs``."""
    return st.integers(1, 3).flatmap(
        lambda s: st.fixed_dictionaries(
            {"n_jobs": st.just(s), "n_workers": st.integers(s, s + 3)}
        )
    )


#: Tiny generate keywords per paper (each example runs every algorithm).
SIZES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "oasis": st.fixed_dictionaries(
        {
            "n_jobs": st.integers(0, 4),
            "n_slots": st.integers(2, 8),
            "n_worker_servers": st.integers(1, 2),
            "n_ps_servers": st.integers(1, 2),
        }
    ),
    "hetero": _hetero_size(),
    "edgecloud": st.fixed_dictionaries(
        {
            "n_jobs": st.integers(0, 3),
            "n_servers": st.integers(1, 2),
            "n_slots": st.integers(12, 36),
            "max_chunks": st.integers(1, 2),
        }
    ),
    "okita": st.fixed_dictionaries(
        {
            "n_sites": st.integers(2, 3),
            "n_jobs": st.integers(0, 3),
            "n_slots": st.integers(6, 12),
            "cost": st.sampled_from(["exp", "linear", "piecewise"]),
        }
    ),
    # predictor "rf" trains a forest per instance (0.25 s); the others are
    # instant and give the same schedule types
    "asrpt": st.fixed_dictionaries(
        {
            "n_jobs": st.integers(1, 4),
            "n_servers": st.integers(1, 2),
            "gpus_per_server": st.integers(1, 2),
            "predictor": st.sampled_from(["mean", "median", "perfect"]),
        }
    ),
}


def _verdict(p: optsched.Paper, inst: Any, sched: Any) -> tuple[str, Any]:
    """The checker's verdict: ("feasible", objective) or ("infeasible", message)."""
    try:
        return ("feasible", p.check(inst, sched).objective)
    except InfeasibleScheduleError as exc:
        return ("infeasible", str(exc))


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    """Verdicts equal exactly (NaN objectives count as equal)."""
    if a[0] == b[0] == "feasible" and isinstance(a[1], float) and math.isnan(a[1]):
        return isinstance(b[1], float) and math.isnan(b[1])
    return a == b


@pytest.mark.parametrize("key", optsched.PAPERS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_round_trip_keeps_verdict_and_json(key: str, data: st.DataObject) -> None:
    """Every algorithm's schedule keeps its checker verdict and JSON through JSON."""
    p = optsched.get_paper(key)
    size = data.draw(SIZES[key], label="size")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    try:
        inst = p.generate(seed=seed, **size)
    except InvalidInstanceError:
        reject()  # a size the generator refuses (e.g. no room for a PS)
    for name in p.algorithms:
        sched = p.run(name, inst)
        text = sched.to_json()
        again = p.schedule_type.from_json(text)
        assert type(again) is p.schedule_type
        first, second = _verdict(p, inst, sched), _verdict(p, inst, again)
        assert _same(first, second), (name, first, second)
        assert again.to_json() == text, name


# --------------------------------------------------------------------------
# Tampered schedules
# --------------------------------------------------------------------------

#: (paper, small generate keywords) of the base schedule of the tamper tests
BASE: dict[str, dict[str, Any]] = {
    "oasis": {"n_jobs": 3, "n_slots": 6, "n_worker_servers": 2, "n_ps_servers": 2},
    "hetero": {"n_jobs": 2, "n_workers": 4},
    "edgecloud": {"n_jobs": 2},
    "okita": {"n_sites": 2, "n_jobs": 2, "n_slots": 12},
    "asrpt": {"n_jobs": 3, "n_servers": 2, "gpus_per_server": 2, "predictor": "mean"},
}


def _base(key: str) -> tuple[optsched.Paper, Any, Any]:
    """Paper, a small instance and its paper algorithm's feasible schedule."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=1, **BASE[key])
    sched = p.run(next(iter(p.algorithms)), inst)
    assert _verdict(p, inst, sched)[0] == "feasible"
    return p, inst, sched


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    """Edit that sets ``d[path[0]][path[1]]... = value``."""

    def edit(d: dict[str, Any]) -> None:
        target = d
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value

    return edit


def _add_key(key: str) -> Callable[[dict[str, Any]], None]:
    """Edit that adds the unknown key ``key``."""

    def edit(d: dict[str, Any]) -> None:
        d[key] = 1

    return edit


def _drop(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    """Edit that deletes ``d[path[0]][path[1]]...``."""

    def edit(d: dict[str, Any]) -> None:
        target = d
        for k in path[:-1]:
            target = target[k]
        del target[path[-1]]

    return edit


#: (paper, edit of the to_dict output, regex the InvalidScheduleError must match)
TAMPERED = [
    # oasis: y, z integer arrays of three levels, x 0/1
    (
        "oasis",
        _set(("workers", 0, 0, 0), 0.5),
        r"^workers\[0\]\[0\]\[0\]: must be an integer, got 0\.5$",
    ),
    (
        "oasis",
        _set(("workers", 0, 0, 0), 1.0),
        r"^workers\[0\]\[0\]\[0\]: must be an integer, got 1\.0$",
    ),
    (
        "oasis",
        _set(("ps", 1, 0, 2), True),
        r"^ps\[1\]\[0\]\[2\]: must be an integer, got True$",
    ),
    (
        "oasis",
        _set(("ps", 0, 1, 0), "2"),
        r"^ps\[0\]\[1\]\[0\]: must be an integer, got '2'$",
    ),
    (
        "oasis",
        _set(("admitted", 2), True),
        r"^admitted\[2\]: must be an integer, got True$",
    ),
    ("oasis", _set(("admitted", 1), 2), r"^admitted\[1\]: must be 0 or 1, got 2$"),
    (
        "oasis",
        _set(("workers", 1, 1), [0, 0]),
        r"^workers\[1\]\[1\]: must have 6 entries, got 2$",
    ),
    ("oasis", _set(("workers", 1), 0), r"^workers\[1\]: must be a list"),
    (
        "oasis",
        _set(("workers_shape",), [3, 2]),
        r"^workers_shape: must have 3 entries, got 2$",
    ),
    (
        "oasis",
        _add_key("admited"),
        r"^admited: unknown field .*did you mean 'admitted'",
    ),
    ("oasis", _drop(("ps",)), r"^ps: missing required field"),
    ("oasis", _set(("algorithm",), 3), r"^algorithm: must be a string, got 3$"),
    # hetero: sigma integers, workload / prices numbers, category integers
    (
        "hetero",
        _set(("sigma", 0, 1), 0.5),
        r"^sigma\[0\]\[1\]: must be an integer, got 0\.5$",
    ),
    (
        "hetero",
        _set(("sigma", 1, 0), True),
        r"^sigma\[1\]\[0\]: must be an integer, got True$",
    ),
    (
        "hetero",
        _set(("workload", 0, 0), "2"),
        r"^workload\[0\]\[0\]: must be a number, got '2'$",
    ),
    (
        "hetero",
        _set(("workload", 1, 3), False),
        r"^workload\[1\]\[3\]: must be a number, got False$",
    ),
    (
        "hetero",
        _set(("category",), [2, "1"]),
        r"^category\[1\]: must be an integer, got '1'$",
    ),
    (
        "hetero",
        _set(("prices",), [1.0, True, 0.0, 0.0]),
        r"^prices\[1\]: must be a number, got True$",
    ),
    (
        "hetero",
        _set(("sigma", 1), [0, 1, 1]),
        r"^sigma\[1\]: must have 4 entries, got 3$",
    ),
    ("hetero", _add_key("placement"), r"^placement: unknown field"),
    # edgecloud: rows of 5 / 4 integers, zeta 0/1
    (
        "edgecloud",
        _set(("runs", 0, 2), 1.5),
        r"^runs\[0\]\[2\]: must be an integer, got 1\.5$",
    ),
    (
        "edgecloud",
        _set(("runs", 1, 4), True),
        r"^runs\[1\]\[4\]: must be an integer, got True$",
    ),
    (
        "edgecloud",
        _set(("ps", 0, 1), "3"),
        r"^ps\[0\]\[1\]: must be an integer, got '3'$",
    ),
    (
        "edgecloud",
        _set(("zeta", 0), True),
        r"^zeta\[0\]: must be an integer, got True$",
    ),
    ("edgecloud", _set(("zeta", 1), 2), r"^zeta\[1\]: must be 0 or 1, got 2$"),
    (
        "edgecloud",
        _set(("runs", 2), [0, 0, 1, 0]),
        r"^runs\[2\]: must have 5 entries, got 4$",
    ),
    (
        "edgecloud",
        _set(("runs", 0, 0), 2**63),
        r"^runs\[0\]\[0\]: must be an integer within the int64 range",
    ),
    ("edgecloud", _add_key("zetas"), r"^zetas: unknown field .*did you mean 'zeta'"),
    # okita: rows of 4 / 3 / 5 integers
    (
        "okita",
        _set(("workers", 0, 3), 0.5),
        r"^workers\[0\]\[3\]: must be an integer, got 0\.5$",
    ),
    (
        "okita",
        _set(("data", 0, 4), True),
        r"^data\[0\]\[4\]: must be an integer, got True$",
    ),
    ("okita", _set(("ps", 0, 1), "3"), r"^ps\[0\]\[1\]: must be an integer, got '3'$"),
    (
        "okita",
        _set(("data",), [[0, 1, 0, 0]]),
        r"^data\[0\]: must have 5 entries, got 4$",
    ),
    ("okita", _set(("workers",), {"0": [0, 1, 0, 1]}), r"^workers: must be a list"),
    ("okita", _add_key("meta"), r"^meta: unknown field"),
    # asrpt: integer starts, integer server lists, integer x matrices
    ("asrpt", _set(("start", 1), 0.5), r"^start\[1\]: must be an integer, got 0\.5$"),
    ("asrpt", _set(("start", 0), True), r"^start\[0\]: must be an integer, got True$"),
    ("asrpt", _set(("start", 2), "2"), r"^start\[2\]: must be an integer, got '2'$"),
    (
        "asrpt",
        _set(("servers", 1, 0), 1.0),
        r"^servers\[1\]\[0\]: must be an integer, got 1\.0$",
    ),
    (
        "asrpt",
        _set(("x", 0, 0, 0), 1.5),
        r"^x\[0\]\[0\]\[0\]: must be an integer, got 1\.5$",
    ),
    (
        "asrpt",
        _set(("x", 0), [[1], [1, 0]]),
        r"^x\[0\]\[1\]: must have 1 entries like x\[0\]\[0\], got 2$",
    ),
    ("asrpt", _set(("servers",), "0"), r"^servers: must be a list"),
    ("asrpt", _add_key("starts"), r"^starts: unknown field .*did you mean 'start'"),
    ("asrpt", _drop(("x",)), r"^x: missing required field"),
]


@pytest.mark.parametrize(
    ("key", "edit", "match"),
    TAMPERED,
    ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(TAMPERED)],
)
def test_tampered_json_is_refused_naming_the_field(
    key: str, edit: Callable[[dict[str, Any]], None], match: str
) -> None:
    """A value to_dict would not write is refused, naming the field."""
    p, _, sched = _base(key)
    d = json.loads(sched.to_json())
    edit(d)
    with pytest.raises(InvalidScheduleError, match=match):
        p.schedule_type.from_json(json.dumps(d))


def _fractional(key: str, sched: Any) -> Any:
    """``sched`` with one integer variable made fractional (in memory)."""
    if key == "asrpt":
        return dataclasses.replace(sched, start=(sched.start[0], 0.5, *sched.start[2:]))
    if key == "oasis":
        y = sched.workers.astype(float)
        y[np.unravel_index(np.argmax(y), y.shape)] -= 0.5
        return dataclasses.replace(sched, workers=y)
    if key == "hetero":
        sigma = sched.sigma.astype(float)
        sigma[0, np.argmax(sigma[0])] = 0.5
        return dataclasses.replace(sched, sigma=sigma)
    if key == "edgecloud":
        runs = sched.runs.astype(float)
        runs[0, 2] += 0.5
        return dataclasses.replace(sched, runs=runs)
    workers = sched.workers.astype(float)  # okita
    workers[0, 3] -= 0.5
    return dataclasses.replace(sched, workers=workers)


#: The field each in-memory tampering of :func:`_fractional` names (a float
#: array is written as floats; the first of them is refused).
FRACTIONAL_FIELD = {
    "asrpt": r"^start\[1\]: must be an integer, got 0\.5$",
    "oasis": r"^workers\[0\]\[0\]\[0\]: must be an integer, got \d+\.\d+$",
    "hetero": r"^sigma\[0\]\[0\]: must be an integer, got \d\.\d+$",
    "edgecloud": r"^runs\[0\]\[0\]: must be an integer, got \d+\.\d+$",
    "okita": r"^workers\[0\]\[0\]: must be an integer, got \d+\.\d+$",
}


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_fractional_schedule_is_not_turned_into_an_integer_one(key: str) -> None:
    """A fractional slot or count is refused after JSON, never rounded."""
    p, inst, sched = _base(key)
    bad = _fractional(key, sched)
    assert _verdict(p, inst, bad)[0] == "infeasible"
    text = bad.to_json()
    with pytest.raises(InvalidScheduleError, match=FRACTIONAL_FIELD[key]):
        p.schedule_type.from_json(text)


def test_asrpt_half_slot_start_is_refused() -> None:
    """The issue's case: an A-SRPT start of 0.5 no longer reloads as start 0."""
    p, inst, sched = _base("asrpt")
    bad = dataclasses.replace(sched, start=(0.5, *sched.start[1:]))
    with pytest.raises(InfeasibleScheduleError, match=r"\(8\)"):
        p.check(inst, bad)
    assert json.loads(bad.to_json())["start"][0] == 0.5
    with pytest.raises(InvalidScheduleError, match=r"^start\[0\]: must be an integer"):
        p.schedule_type.from_json(bad.to_json())


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [("asrpt", True, "True"), ("asrpt", "2", "'2'"), ("asrpt", np.int64(2), None)],
)
def test_asrpt_bool_and_string_starts(key: str, value: Any, shown: str | None) -> None:
    """In memory, a bool or string start is refused after JSON; a numpy int is kept."""
    p, inst, sched = _base(key)
    start = (sched.start[0], value, *sched.start[2:])
    s = dataclasses.replace(sched, start=start)
    if shown is None:
        again = p.schedule_type.from_json(s.to_json())
        assert again.start == tuple(int(t) for t in start)
        assert _same(_verdict(p, inst, s), _verdict(p, inst, again))
    else:
        with pytest.raises(InvalidScheduleError, match=rf"^start\[1\]: .*got {shown}$"):
            p.schedule_type.from_json(s.to_json())


def test_oasis_no_jobs_keeps_its_shape() -> None:
    """An OASiS schedule of no jobs reloads with its (0, H, T) and (0, K, T) arrays."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=0, n_jobs=0, n_slots=4, n_worker_servers=2, n_ps_servers=3)
    sched = p.run("oasis", inst)
    again = p.schedule_type.from_json(sched.to_json())
    assert again.workers.shape == (0, 2, 4) and again.ps.shape == (0, 3, 4)
    assert p.check(inst, again).objective == 0.0


@pytest.mark.parametrize("key", ["oasis", "hetero"])
def test_files_without_shape_keys_still_load(key: str) -> None:
    """JSON written before the shape keys existed reads as the same schedule."""
    p, inst, sched = _base(key)
    d = sched.to_dict()
    old = {k: v for k, v in d.items() if not k.endswith("_shape")}
    again = p.schedule_type.from_json(json.dumps(old))
    assert again.to_dict() == d
    assert _same(_verdict(p, inst, sched), _verdict(p, inst, again))


@pytest.mark.parametrize("key", optsched.PAPERS)
@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", r"^schedule: not valid JSON"),
        ("[]", r"^schedule: expected a JSON object, got list"),
        (b"\xff", r"^schedule: not valid JSON"),
        (None, r"^schedule: expected JSON text, got NoneType"),
    ],
)
def test_not_a_schedule_object(key: str, text: Any, match: str) -> None:
    """Text that is not a JSON object is refused with InvalidScheduleError."""
    with pytest.raises(InvalidScheduleError, match=match):
        optsched.get_paper(key).schedule_type.from_json(text)


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_duplicate_key_is_refused(key: str) -> None:
    """A key given twice (json.loads would keep the last) is refused, naming it."""
    p, _, sched = _base(key)
    text = sched.to_json()
    first = next(iter(json.loads(text)))
    twice = text[:-1] + f", {json.dumps(first)}: []}}"
    with pytest.raises(InvalidScheduleError, match=rf"^{first}: field given twice"):
        p.schedule_type.from_json(twice)


def test_meta_traces_are_not_written() -> None:
    """meta (numpy values, DataFrames) never breaks to_json and reloads as {}."""
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed=0, **BASE["edgecloud"])
    sched = p.run("a_online", inst)
    sched.meta["numpy"] = np.float64(1.5)
    assert "trace" in sched.meta  # a DataFrame
    text = sched.to_json()
    assert "meta" not in json.loads(text)
    assert p.schedule_type.from_json(text).meta == {}


def test_invalid_schedule_error_is_exported() -> None:
    """InvalidScheduleError is a ValueError and an OptschedError, exported."""
    assert optsched.InvalidScheduleError is InvalidScheduleError
    assert issubclass(InvalidScheduleError, ValueError)
    assert issubclass(InvalidScheduleError, OptschedError)
    assert not issubclass(InvalidScheduleError, InvalidInstanceError)


def test_input_dict_is_not_modified() -> None:
    """from_dict reads its argument without changing it."""
    p, _, sched = _base("okita")
    d = sched.to_dict()
    before = copy.deepcopy(d)
    p.schedule_type.from_dict(d)
    assert d == before


def test_negative_value_is_reported_against_its_lower_bound():
    """A negative slot below ``lo=0`` is named as ``must be >= 0``, not as out of int64."""
    from optsched.core.validate import schedule_ints, schedule_shape

    with pytest.raises(InvalidScheduleError, match=r"start\[1\]: must be >= 0, got -2"):
        schedule_ints([1, -2], "start", 1, lo=0)
    with pytest.raises(InvalidScheduleError, match=r"shape\[0\]: must be >= 0"):
        schedule_shape([-1, 2], "shape", 2)


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_schedule_format_tag(key: str) -> None:
    """The schedule JSON starts with its format tag; a wrong tag is refused.

    A file without the tag (written before it existed) still loads, to the
    same schedule.
    """
    p, inst, sched = _base(key)
    d = json.loads(sched.to_json())
    assert next(iter(d)) == "format"
    assert d["format"] == f"optsched.{key}.schedule/1"
    old = {k: v for k, v in d.items() if k != "format"}
    again = p.schedule_type.from_json(json.dumps(old))
    assert again.to_json() == sched.to_json()
    for wrong in ("optsched.oasis/1", f"optsched.{key}.schedule/2", None):
        with pytest.raises(InvalidScheduleError, match=r"^format: expected"):
            p.schedule_type.from_json(json.dumps({**d, "format": wrong}))
    with pytest.raises(
        InvalidScheduleError, match=r"^schedule: expected a JSON object"
    ):
        p.schedule_type.from_json("[]")
