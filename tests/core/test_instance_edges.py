"""Instance edges of issue 23 section 3: unknown keys, bounded sizes, huge integers."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.core.validate import as_float, as_int, check_keys

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("oasis", "hetero", "edgecloud", "okita", "asrpt")

#: Per paper: a nested object of the JSON form with its own keys (path from
#: the top), besides the first job.
NESTED = {
    "oasis": [("jobs", 0)],
    "hetero": [("jobs", 0), ("workers", 0)],
    "edgecloud": [("jobs", 0), ("servers", 0)],
    "okita": [("jobs", 0), ("sites", 0), ("jobs", 0, "cost")],
    "asrpt": [("jobs", 0), ("cluster",), ("jobs", 0, "stages", 0)],
}
#: Per paper: the size keyword of ``generate`` (and CLI option) that allocates.
SIZE_FIELD = {
    "oasis": "n_slots",
    "hetero": "n_workers",
    "edgecloud": "n_slots",
    "okita": "n_slots",
    "asrpt": "n_servers",
}
#: Per paper: where the size sits in the JSON form.
SIZE_PATH = {
    "oasis": ("n_slots",),
    "hetero": None,  # S and K are list lengths: checked via the worker count
    "edgecloud": ("n_slots",),
    "okita": ("n_slots",),
    "asrpt": ("cluster", "n_servers"),
}
#: Per paper: an integer field of the first job.
INT_FIELD = {
    "oasis": "epochs",
    "hetero": "dataset_size",
    "edgecloud": "minibatches",
    "okita": "epochs",
    "asrpt": "iterations",
}


def _small(key: str, seed: int = 0):
    p = optsched.get_paper(key)
    return p.generate(seed=seed, **p.demo_size)


def _at(data, path):
    for k in path:
        data = data[k]
    return data


def _load(key: str, data) -> object:
    return optsched.get_paper(key).instance_type.from_dict(data)


# ------------------------------------------------------------ core helpers
def test_check_keys_names_key_and_place():
    """check_keys names the object, the unknown key, a close match and the known keys."""
    with pytest.raises(InvalidInstanceError) as e:
        check_keys({"arival": 1}, ("arrival", "epochs"), "jobs[2]")
    msg = str(e.value)
    assert msg.startswith("jobs[2]: unknown field 'arival'")
    assert "did you mean 'arrival'" in msg and "known: arrival, epochs" in msg
    with pytest.raises(InvalidInstanceError, match="instance: expected a JSON object"):
        check_keys([1], ("a",))


def test_as_int_and_as_float_refuse_huge_integers():
    """Integers beyond 2**62 (and beyond the float range) raise InvalidInstanceError."""
    with pytest.raises(InvalidInstanceError, match="x: must be at most 2\\*\\*62"):
        as_int(2**70, "x")
    with pytest.raises(InvalidInstanceError, match="x: must be at most 2\\*\\*62"):
        as_int(-(2**63), "x")
    assert as_int(2**62, "x") == 2**62
    with pytest.raises(InvalidInstanceError, match="y: must be finite"):
        as_float(10**400, "y")


# ------------------------------------------------------------ unknown keys
@pytest.mark.parametrize("key", PAPERS)
def test_unknown_top_level_key_is_refused(key):
    """A typo at the top level of a generated instance's dict names the key."""
    data = _small(key).to_dict()
    data["n_slotz"] = 5
    with pytest.raises(InvalidInstanceError, match="instance: unknown field 'n_slotz'"):
        _load(key, data)


@pytest.mark.parametrize(
    ("key", "path"), [(k, p) for k in PAPERS for p in NESTED[k]], ids=str
)
def test_unknown_nested_key_is_refused(key, path):
    """A typo inside a job, server, site, worker, cost, cluster or stage names it and where."""
    data = _small(key).to_dict()
    _at(data, path)["arival"] = 1
    where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)
    where = where.lstrip(".")
    with pytest.raises(InvalidInstanceError) as e:
        _load(key, data)
    assert f"{where}: unknown field 'arival'" in str(e.value)


def test_hetero_unknown_gpu_type_is_refused():
    """A GPU type outside (T4, P100, V100) in a hetero file names the field and the known types."""
    data = _small("hetero").to_dict()
    data["workers"][1]["gpu"] = "A100"
    with pytest.raises(InvalidInstanceError) as e:
        _load("hetero", data)
    assert "workers[1].gpu: unknown GPU type 'A100' (known: T4, P100, V100)" in str(
        e.value
    )


def test_okita_cost_parameter_of_another_kind_is_refused():
    """An exp cost carrying the linear cost's ``b`` is refused, not silently dropped."""
    data = _small("okita").to_dict()
    cost = data["jobs"][0]["cost"]
    assert cost["kind"] == "exp"
    cost["b"] = 3.0
    with pytest.raises(
        InvalidInstanceError, match=r"jobs\[0\]\.cost: unknown field 'b'"
    ):
        _load("okita", data)


# ------------------------------------------------------------ sizes
def _refused_without_allocating(fn, field: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInstanceError) as e:
            fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(e.value).startswith(field), str(e.value)
    assert peak < 50 * 1024**2


@pytest.mark.parametrize("key", PAPERS)
def test_huge_size_in_file_is_refused_before_allocation(key):
    """A size field of 10**9 in an instance file is refused, naming it, in < 50 MB."""
    data = _small(key).to_dict()
    if SIZE_PATH[key] is None:  # hetero: the worker count is the list's length
        data["workers"] = data["workers"] * 2000  # 12,000 > MAX_WORKERS
        field = "n_workers"
    else:
        *head, last = SIZE_PATH[key]
        _at(data, head)[last] = 10**9
        field = ".".join(SIZE_PATH[key])
    _refused_without_allocating(lambda: _load(key, data), field)


@pytest.mark.parametrize("key", PAPERS)
def test_huge_size_in_generate_is_refused_before_allocation(key):
    """``generate(..., <size>=10**9)`` is refused naming the keyword, in < 50 MB."""
    p = optsched.get_paper(key)
    size = {**p.demo_size, SIZE_FIELD[key]: 10**9}
    field = SIZE_FIELD[key]
    _refused_without_allocating(lambda: p.generate(seed=0, **size), field)


def test_oasis_product_of_sizes_is_bounded():
    """Sizes each within their maximum but with a schedule over 2 GiB are refused."""
    p = optsched.get_paper("oasis")
    _refused_without_allocating(
        lambda: p.generate(
            seed=0, n_jobs=10_000, n_slots=10_000, n_worker_servers=2, n_ps_servers=2
        ),
        "n_jobs x (n_worker_servers + n_ps_servers) x n_slots",
    )


@pytest.mark.parametrize("key", PAPERS)
def test_int_above_int64_is_refused(key):
    """2**70 in a job's integer field gives InvalidInstanceError naming it, not OverflowError."""
    data = _small(key).to_dict()
    field = INT_FIELD[key]
    data["jobs"][0][field] = 2**70
    with pytest.raises(InvalidInstanceError, match=rf"jobs\[0\]\.{field}"):
        _load(key, data)
    text = json.dumps(data).replace(str(2**70), "1" + "0" * 5000)
    with pytest.raises(InvalidInstanceError):
        optsched.get_paper(key).instance_type.from_json(text)


@pytest.mark.parametrize("key", ["oasis", "edgecloud", "okita"])
def test_huge_n_slots_int_is_refused(key):
    """n_slots = 2**70 (above int64) names n_slots instead of raising OverflowError."""
    data = _small(key).to_dict()
    data["n_slots"] = 2**70
    with pytest.raises(InvalidInstanceError, match="^n_slots"):
        _load(key, data)


#: Per paper: float fields whose extreme finite values overflowed downstream.
EXTREME = {
    "oasis": [(("jobs", 0, "tau"), 1e308), (("slot_seconds",), 5e-324)],
    "hetero": [(("throughput", 0, 0), 1e308)],
    "edgecloud": [(("jobs", 0, "bandwidth_mbps"), 5e-324), (("slot_hours",), 1e308)],
    "okita": [(("jobs", 0, "rho"), 5e-324)],
    "asrpt": [(("cluster", "b_inter"), 5e-324), (("slot",), 5e-324)],
}


@pytest.mark.parametrize(
    ("key", "path", "value"),
    [(k, p, v) for k in PAPERS for p, v in EXTREME[k]],
    ids=str,
)
def test_extreme_finite_floats_are_refused(key, path, value):
    """Finite floats that overflowed derived times to inf are refused with a named field."""
    data = _small(key).to_dict()
    *head, last = path
    _at(data, head)[last] = value
    with pytest.raises(InvalidInstanceError):
        _load(key, data)


# ------------------------------------------------------------ round trip
@pytest.mark.parametrize("key", PAPERS)
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 10_000))
def test_generated_instances_round_trip_exactly(key, seed):
    """Generated instances still survive to_json / from_json unchanged (strict keys accept them)."""
    inst = _small(key, seed)
    again = type(inst).from_json(inst.to_json())
    assert again == inst
    assert again.to_json() == inst.to_json()
    data = copy.deepcopy(inst.to_dict())
    assert type(inst).from_dict(data) == inst


# ------------------------------------------------------------ committed files
def _committed_instances() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "*.json"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    files = []
    for name in out:
        data = json.loads((ROOT / name).read_text())
        fmt = data.get("format", "") if isinstance(data, dict) else ""
        # an instance is "optsched.<key>/<version>"; schedules are
        # "optsched.<key>.schedule/<version>" (checked where they are used)
        if isinstance(fmt, str) and re.fullmatch(r"optsched\.[a-z]+/\d+", fmt):
            files.append(ROOT / name)
    return files


COMMITTED = _committed_instances()


def test_committed_instances_found():
    """The repository's saved instances are discovered (worst-case files and the bug file)."""
    assert len(COMMITTED) >= 30


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_instance_loads(path):
    """Every committed instance file loads with its paper's strict from_json and round-trips."""
    text = path.read_text()
    key = json.loads(text)["format"].split(".", 1)[1].split("/", 1)[0]
    assert key == path.name.split("_", 1)[0]
    inst = optsched.get_paper(key).instance_type.from_json(text)
    assert type(inst).from_json(inst.to_json()) == inst


# ------------------------------------------------------------ CLI
@pytest.mark.parametrize("key", PAPERS)
def test_cli_generate_huge_size_exits_2_with_one_line(key, capsys):
    """``optsched generate <key> --<size> 1000000000`` exits 2 with one line naming it."""
    from optsched.cli import main

    opt = "--" + SIZE_FIELD[key].replace("_", "-")
    code = main(["generate", key, opt, "1000000000"])
    out, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert SIZE_FIELD[key] in lines[0]
    assert out == ""
