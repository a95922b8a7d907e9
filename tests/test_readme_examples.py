"""The Python examples of the README and the getting-started page run as plain scripts.

Every fenced ``python`` block of ``README.md`` and ``docs/getting_started.md``
(the files are the fixture) is saved as ``example_<i>.py``
in a temporary folder and run with this interpreter, without an
``if __name__ == "__main__":`` guard, exactly as a new user would paste it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GETTING_STARTED = ROOT / "docs" / "getting_started.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def python_blocks(text: str) -> list[str]:
    """The bodies of the fenced ``python`` blocks of a Markdown text, in order."""
    return BLOCK.findall(text)


def all_blocks() -> list[str]:
    """The python blocks of the README, then those of the getting-started page."""
    return python_blocks(README.read_text()) + python_blocks(
        GETTING_STARTED.read_text()
    )


def test_readme_has_python_examples() -> None:
    """The README shows the library example; getting started adds the figure example."""
    assert any("optsched.ratios(" in b for b in python_blocks(README.read_text()))
    assert any(
        "experiment.run(" in b for b in python_blocks(GETTING_STARTED.read_text())
    )


@pytest.mark.parametrize("index", range(len(all_blocks())), ids=lambda i: f"block{i}")
def test_readme_example_runs_as_script(index: int, tmp_path: Path) -> None:
    """A README or getting-started python block saved as a script exits 0, once."""
    code = all_blocks()[index]
    script = tmp_path / f"example_{index}.py"
    start, done = f"readme example {index}: start", f"readme example {index}: done"
    script.write_text(f"print({start!r})\n{code}\nprint({done!r})\n")
    proc = subprocess.run(
        [sys.executable, script.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    # a spawned pool re-runs an unguarded script's top level: output printed twice
    assert proc.stdout.count(start) == 1, proc.stdout
    assert proc.stdout.count(done) == 1, proc.stdout
