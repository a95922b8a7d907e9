"""The built wheel holds every slice, model module and figure spec; the test tiers
(Makefile, pyproject, tests/conftest.py) are wired as the README says."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from optsched import PAPERS

REPO = Path(__file__).resolve().parents[1]
#: not copied for the wheel build: VCS, venv, build outputs and caches
_NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__")
_NOT_SOURCE += (".pytest_cache", ".hypothesis", ".ruff_cache", "out")


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """File names inside a wheel built from a copy of the working tree.

    setuptools builds in ``<source>/build``: built in the repository itself,
    two concurrent runs (xdist workers, or two checkouts' test runs) trip
    over each other's half-built ``build/bdist*`` folder.
    """
    src = tmp_path_factory.mktemp("src") / "optsched"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(out),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    (whl,) = out.glob("optsched-*.whl")
    with zipfile.ZipFile(whl) as zf:
        return set(zf.namelist())


def test_wheel_has_every_slice(wheel_files: set[str]) -> None:
    """Each registered paper's package and its paper.py are in the wheel."""
    for key in PAPERS:
        assert f"optsched/{key}/__init__.py" in wheel_files, key
        assert f"optsched/{key}/paper.py" in wheel_files, key
    for sub in ("core/solver.py", "core/experiment.py", "core/plots.py", "cli.py"):
        assert f"optsched/{sub}" in wheel_files, sub


def test_wheel_has_every_model_module(wheel_files: set[str]) -> None:
    """Every ``models/*.py`` is installed as ``optsched.models.*``."""
    modules = sorted(p.name for p in (REPO / "models").glob("*.py"))
    assert "oasis.py" in modules
    for name in modules:
        assert f"optsched/models/{name}" in wheel_files, name


def test_wheel_has_every_figure_spec(wheel_files: set[str]) -> None:
    """Every ``paper_figures/<key>/*.py`` is installed as ``optsched.figures.<key>.*``."""
    specs = sorted((REPO / "paper_figures").glob("*/*.py"))
    assert specs
    for path in specs:
        rel = path.relative_to(REPO / "paper_figures").as_posix()
        assert f"optsched/figures/{rel}" in wheel_files, rel


def test_wheel_has_the_trace_sample_and_its_provenance(wheel_files: set[str]) -> None:
    """``optsched/data`` (trace sample + README with source and terms) is package data."""
    for name in ("__init__.py", "README.md", "alibaba_gpu_v2023_default.csv"):
        assert f"optsched/data/{name}" in wheel_files, name
    assert "optsched/core/trace.py" in wheel_files


# ------------------------------------------------------------------ test tiers
def _recipe(target: str) -> str:
    """The dependency line and recipe of ``target`` in the Makefile."""
    text = (REPO / "Makefile").read_text()
    m = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", text, re.M)
    assert m, f"Makefile: no target {target!r}"
    return m.group(1) + "\n" + m.group(2)


def test_make_test_is_the_full_suite_on_two_workers() -> None:
    """``make test`` (what CI runs) lints, gets Chromium for the browser test of
    the site, then runs tests and notebooks on 2 xdist workers."""
    recipe = _recipe("test")
    assert recipe.split("\n")[0].split() == ["lint", "browser"]
    browser = _recipe("browser")
    assert "command -v chromium" in browser and "apt-get install -y" in browser
    for flag in (
        "-n 2",
        "--dist loadgroup",
        "--durations=15",
        "--nbmake notebooks tests",
    ):
        assert flag in recipe, flag
    assert "not slow" not in recipe
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_make_test_fast_leaves_out_slow_tests_and_notebooks() -> None:
    """``make test-fast`` runs ``-m "not slow"`` over tests/ only (no nbmake)."""
    recipe = _recipe("test-fast")
    assert '-m "not slow"' in recipe and recipe.rstrip().endswith(" tests")
    assert "nbmake" not in recipe and "notebooks" not in recipe


def test_dev_extra_has_pytest_xdist() -> None:
    """The dev extra installs pytest-xdist (``-n 2``) and the markers are declared."""
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    dev = meta["project"]["optional-dependencies"]["dev"]
    assert any(re.match(r"pytest-xdist\b", d) for d in dev), dev
    markers = meta["tool"]["pytest"]["ini_options"]["markers"]
    assert {m.split(":")[0] for m in markers} >= {"slow", "xdist_group"}


def test_every_listed_slow_test_exists() -> None:
    """Each SLOW_TESTS entry names a test function of an existing file (no stale ids)."""
    conftest = _load_conftest()
    for nodeid in conftest.SLOW_TESTS:
        path, name = nodeid.split("[", 1)[0].split("::")
        assert (REPO / path).is_file(), nodeid
        assert re.search(rf"^def {name}\(", (REPO / path).read_text(), re.M), nodeid


def test_slow_reason_follows_the_four_rules() -> None:
    """Slow by file, fixture, measured id (with or without params), seed sweep; else fast."""
    cf = _load_conftest()
    rel = "tests/test_worst_case_regression.py"
    assert "file" in cf.slow_reason(rel, f"{rel}::test_x", ())
    assert "file" in cf.slow_reason("notebooks/a.ipynb", "notebooks/a.ipynb::a", ())
    rel = "tests/paper_figures/test_oasis_figures.py"
    assert "quick_run" in cf.slow_reason(rel, f"{rel}::t", ("tmp_path", "quick_run"))
    rel = "tests/test_every_algorithm_checked.py"
    nid = f"{rel}::test_every_algorithm_passes_the_checker[oasis]"
    assert "measured" in cf.slow_reason(rel, nid, ())
    rel = "tests/models/test_oasis_models.py"
    assert "measured" in cf.slow_reason(
        rel, f"{rel}::test_milp_matches_brute_force[1]", ()
    )
    assert cf.slow_reason(rel, f"{rel}::test_milp_matches_brute_force[3]", ()) is None
    assert cf.slow_reason(rel, f"{rel}::test_hand_instance_optimum", ()) is None
    rel = "tests/edgecloud/test_edgecloud_relax.py"
    nid = f"{rel}::test_relaxation_chain"
    assert "seed sweep" in cf.slow_reason(rel, f"{nid}[5]", (), seed_index=5)
    assert cf.slow_reason(rel, f"{nid}[0]", (), seed_index=0) is None
    assert cf.slow_reason(rel, f"{rel}::test_values_are_finite", ()) is None


def test_shared_fixtures_and_memos_get_one_xdist_group(
    pytester: pytest.Pytester,
) -> None:
    """On a toy suite: tests sharing a module fixture or a memo share a group; others none."""
    pytester.makeconftest((REPO / "tests" / "conftest.py").read_text())
    tests = pytester.mkdir("tests")  # no __init__: "tests" is taken in sys.modules
    (tests / "test_toy_shared.py").write_text(
        "import functools\nimport pytest\n\n"
        "@pytest.fixture(scope='module')\ndef table():\n    return [1]\n\n"
        "def test_a(table):\n    assert table\n\n"
        "def test_b(table, tmp_path):\n    assert table\n\n"
        "def test_alone(tmp_path):\n    assert tmp_path\n"
    )
    (tests / "test_toy_memo.py").write_text(
        "import functools\n\n"
        "@functools.cache\ndef opt(seed):\n    return seed\n\n"
        "def test_c():\n    assert opt(1) == 1\n\n"
        "def test_d():\n    assert opt(2) == 2\n"
    )
    (tests / "test_worst_case_toy.py").write_text("def test_e():\n    pass\n")
    items = {i.name: i for i in pytester.inline_genitems("tests")[0]}
    group = {
        n: (m.args[0] if (m := i.get_closest_marker("xdist_group")) else None)
        for n, i in items.items()
    }
    assert (
        group["test_a"] == group["test_b"] == "fixture:tests/test_toy_shared.py::table"
    )
    assert group["test_c"] == group["test_d"] == "module:tests/test_toy_memo.py"
    assert group["test_alone"] is None and group["test_e"] is None
    slow = {n for n, i in items.items() if i.get_closest_marker("slow")}
    assert slow == {"test_e"}


def _load_conftest():
    """tests/conftest.py as a module of its own (its functions are pure)."""
    spec = importlib.util.spec_from_file_location(
        "tests_tiers_conftest", REPO / "tests" / "conftest.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
