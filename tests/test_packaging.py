"""The built wheel holds every slice, every model module and every figure spec."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from optsched import PAPERS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """File names inside a wheel built from the working tree."""
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
            str(REPO),
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
