"""Helpers shared by the figure scripts in ``paper_figures/`` (no paper code).

The CLI and the tests load figure scripts by file path, not as importable
modules, so ``pickle`` (needed by :mod:`optsched.core.sweep`'s process pool
and by Dask) cannot name their functions; :class:`ScriptFunction` makes them
picklable.  :func:`write_outputs` writes a figure's CSV and PNG atomically,
so a failed run never leaves a half-written file.
"""

from __future__ import annotations

import operator
import os
import runpy
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure


class ScriptFunction:
    """Picklable handle on a module-level function of a script loaded by path.

    Pickling records "run the file with ``runpy.run_path`` and take the
    function ``name``", which a spawned worker can resolve.
    """

    def __init__(self, fn: Callable[[Any], Any], path: str | None = None) -> None:
        self.fn = fn
        self.path = str(Path(path or fn.__globals__["__file__"]).resolve())

    def __call__(self, task: Any) -> Any:
        return self.fn(task)

    def __reduce__(self) -> tuple[Any, ...]:
        return (operator.getitem, (_RunPath(self.path), self.fn.__name__))


class _RunPath:
    """Unpickles to the globals of the script at ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (runpy.run_path, (self.path,))


def write_outputs(out_dir: Path, name: str, df: pd.DataFrame, fig: Figure) -> None:
    """Write ``<name>.csv`` and ``<name>.png`` atomically (temp files + rename)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    writers = {
        ".csv": lambda path: df.to_csv(path, index=False),
        ".png": lambda path: fig.savefig(path, format="png", dpi=150),
    }
    done: list[tuple[str, Path]] = []
    try:
        for suffix, write in writers.items():
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp")
            os.close(fd)
            done.append((tmp, out_dir / f"{name}{suffix}"))
            write(tmp)
        for tmp, dst in done:
            os.replace(tmp, dst)
    except BaseException:
        for tmp, _ in done:
            Path(tmp).unlink(missing_ok=True)
        raise
