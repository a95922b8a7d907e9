"""What every benchmark script shares: running its benches, printing, the CLI."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

#: Default output folder of every benchmark (git-ignored).
OUT = Path("benchmarks/out")


def run_benches(
    benches: Iterable[Callable[[bool], list[dict[str, Any]]]], quick: bool
) -> list[dict[str, Any]]:
    """Run each ``bench(quick) -> rows`` in turn, printing its wall time."""
    rows: list[dict[str, Any]] = []
    for bench in benches:
        t0 = time.perf_counter()
        rows += bench(quick)
        print(f"  {bench.__name__}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rows


def print_table(df: pd.DataFrame, width: int = 200) -> None:
    """Print a summary table with 4 significant digits."""
    with pd.option_context("display.width", width, "display.max_columns", 30):
        print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


def cli(main: Callable[[Path, bool], Any], doc: str) -> None:
    """``python -m benchmarks.<name> [--quick] [--out DIR]``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    main(a.out, a.quick)
