"""Shared fixture: each figure spec's quick run, made once per test session."""

from __future__ import annotations

import pytest

from optsched.core import experiment


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory: pytest.TempPathFactory):
    """``quick_run(name) -> ExperimentResult``: the spec's quick run (cached per session)."""
    specs = experiment.specs()
    cache: dict[str, experiment.ExperimentResult] = {}

    def get(name: str) -> experiment.ExperimentResult:
        if name not in cache:
            out = tmp_path_factory.mktemp(name)
            cache[name] = experiment.run(
                specs[name], quick=True, out=out, workers=1, progress=False, echo=False
            )
        return cache[name]

    return get
