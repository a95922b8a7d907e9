"""The teaching notebooks are committed executed, with stable metadata (``make notebooks``).

``make test`` executes every notebook again (nbmake); this test checks the
committed files themselves: outputs present (plots show on GitHub) and no
volatile metadata (a re-run with the same code gives an empty diff).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tools.run_notebooks import strip_volatile, write_atomic

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert {p.stem for p in NOTEBOOKS} >= {
        "oasis_primal_dual",
        "hetero_matching_markets",
        "edgecloud_primal_dual",
        "okita_exact_vs_online",
        "asrpt_virtual_srpt",
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_with_outputs_and_stable_metadata(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs for c in code), "every code cell has its output"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    assert all(c.execution_count is None for c in code)
    assert not any("execution" in c.metadata for c in nb.cells)
    assert "language_info" not in nb.metadata
    # stripping again changes nothing
    assert nbformat.writes(strip_volatile(nbformat.read(path, as_version=4))) == (
        nbformat.writes(nb)
    )


def test_strip_volatile_removes_counts_and_timings() -> None:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3)
    cell.metadata["execution"] = {"iopub.execute_input": "2026-11-25T00:00:00Z"}
    cell.outputs = [
        nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)
    ]
    nb.cells = [cell]
    nb.metadata["language_info"] = {"version": "3.11.9"}
    out = strip_volatile(nb)
    assert out.cells[0].execution_count is None
    assert out.cells[0].outputs[0]["execution_count"] is None
    assert "execution" not in out.cells[0].metadata
    assert "language_info" not in out.metadata


def test_write_atomic_keeps_the_file_mode(tmp_path: Path) -> None:
    """Rewriting a notebook in place keeps its permissions (mkstemp makes 0600)."""
    path = tmp_path / "nb.ipynb"
    nb = nbformat.v4.new_notebook()
    nbformat.write(nb, path)
    path.chmod(0o644)
    nb.cells = [nbformat.v4.new_markdown_cell("hello")]
    write_atomic(nb, path)
    assert path.stat().st_mode & 0o777 == 0o644
    assert nbformat.read(path, as_version=4).cells[0].source == "hello"
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]
