"""Execute the teaching notebooks in place and keep their outputs (``make notebooks``).

The ``.ipynb`` files are the source: edit them as notebooks.  This script
re-runs every notebook given (default: ``notebooks/*.ipynb``) from a fresh
kernel, stores the outputs so that plots and tables show on GitHub, and
strips what changes from run to run without a code change: execution
counts, per-cell execution timings and the kernel's language version; it
also joins consecutive pieces of one stream (stdout or stderr), which the
kernel splits wherever its output buffer happened to be flushed.  A
re-run with the same code and seeds therefore gives an empty diff.

Usage: ``python tools/run_notebooks.py [NOTEBOOK ...] [--timeout SECONDS]``.
"""

from __future__ import annotations

import argparse
import stat
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from optsched.core.base import write_atomic as _write_files


def strip_volatile(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Remove execution counts, timings and interpreter versions from ``nb``
    and join consecutive outputs of the same stream."""
    nb.metadata.pop("language_info", None)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.execution_count = None
            for out in cell.get("outputs", []):
                if "execution_count" in out:
                    out["execution_count"] = None
            cell.outputs = join_streams(cell.get("outputs", []))
    return nb


def join_streams(outputs: list) -> list:
    """``outputs`` with each run of consecutive same-name stream outputs as one."""
    joined: list = []
    for out in outputs:
        prev = joined[-1] if joined else None
        if (
            prev is not None
            and out.get("output_type") == "stream"
            and prev.get("output_type") == "stream"
            and out.get("name") == prev.get("name")
        ):
            prev["text"] = _text(prev["text"]) + _text(out["text"])
        else:
            joined.append(out)
    return joined


def _text(text: str | list[str]) -> str:
    return text if isinstance(text, str) else "".join(text)


def execute(path: Path, timeout: int) -> None:
    """Run ``path`` from a fresh kernel (cwd = its folder) and rewrite it atomically."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    write_atomic(strip_volatile(nb), path)


def write_atomic(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write ``nb`` to ``path`` atomically, keeping ``path``'s mode.

    Uses :func:`optsched.core.base.write_atomic` (temporary file in the same
    folder, then ``os.replace``) with the old file's permission bits, so
    that the notebook does not become unreadable to other users after
    ``make notebooks``; a new notebook gets the mode a plain ``open()``
    gives.
    """
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    _write_files(
        path.parent, {path.name: lambda tmp: nbformat.write(nb, tmp)}, mode=mode
    )


def main(argv: list[str] | None = None) -> int:
    """Execute the notebooks named on the command line (default: all)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = ap.parse_args(argv)
    paths = args.notebooks or sorted(Path("notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"executing {path}", flush=True)
        execute(path, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
