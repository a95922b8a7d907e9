"""The Hypothesis profile of the suite (tests/conftest.py, "Hypothesis profiles")."""

import os

from hypothesis import given, settings
from hypothesis import strategies as st

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
DRAWN: list[int] = []


def test_the_profile_named_by_the_environment_is_loaded():
    """``ci`` (the default) is derandomised without a database; ``explore`` draws fresh examples."""
    assert PROFILE in {"ci", "explore"}
    assert settings.default.derandomize == (PROFILE == "ci")
    if PROFILE == "ci":
        assert settings.default.database is None


@given(st.integers(0, 10**9))
@settings(max_examples=5)
def _draw(n: int) -> None:
    DRAWN.append(n)


def test_ci_draws_the_same_examples_twice():
    """Two runs of one property test under ``ci`` draw the same integers (not so under ``explore``)."""
    runs = []
    for _ in range(2):
        DRAWN.clear()
        _draw()
        runs.append(list(DRAWN))
    if PROFILE == "ci":
        assert runs[0] == runs[1]
    else:
        assert runs[0] != runs[1]
