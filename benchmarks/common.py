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


def seeds_parser(doc: str) -> argparse.ArgumentParser:
    """The parser of a per-seed study: ``--quick``, ``--out DIR``, ``--seeds``, ``--limit``.

    The caller adds its own options and calls ``parse_args``.
    """
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--seeds", type=int, nargs="+")
    ap.add_argument("--limit", type=float, help="seconds per solve")
    return ap


def seeds_cli(main: Callable[..., Any], doc: str) -> None:
    """Run ``main(out, quick, seeds, limit)`` from :func:`seeds_parser`'s options.

    ``--time-limit`` is kept as another name of ``--limit``.
    """
    ap = seeds_parser(doc)
    ap.add_argument("--time-limit", dest="limit", type=float, help="seconds per seed")
    a = ap.parse_args()
    main(a.out, a.quick, a.seeds, a.limit)


def summarize(
    df: pd.DataFrame, keys: list[str], *, meets: str = "median_s", **extra: Any
) -> pd.DataFrame:
    """Median / max seconds, peak memory and row count per ``keys``, beside the target.

    ``extra`` are further named aggregations (``name=(column, func)``);
    ``meets_target`` compares the ``meets`` column with ``target_s``
    (``-`` where there is no target).
    """
    import numpy as np

    out = (
        df.groupby(keys, sort=False)
        .agg(
            median_s=("seconds", "median"),
            max_s=("seconds", "max"),
            peak_mb=("peak_mb", "median"),
            n=("seconds", "size"),
            **extra,
            checked=("checked", "all"),
            target_s=("target_s", "first"),
        )
        .reset_index()
    )
    out["meets_target"] = np.where(
        out["target_s"].isna(),
        "-",
        np.where(out[meets] <= out["target_s"], "yes", "NO"),
    )
    return out


def statuses(s: pd.Series) -> str:
    """The distinct statuses of a group, sorted and comma-separated."""
    return ",".join(sorted(set(map(str, s))))


def plot_time_memory(df: pd.DataFrame, bench: str, name: str, title: str, path) -> None:
    """Median wall time and tracemalloc peak of ``bench`` rows against the number of jobs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    med = df[df["bench"] == bench].groupby("n_jobs")[["seconds", "peak_mb"]].median()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    a1.plot(med.index, med["seconds"], "o-")
    a1.set(xlabel="jobs", ylabel="wall time (s)", title=f"{name} time")
    a2.plot(med.index, med["peak_mb"], "s-", color="C1")
    a2.set(xlabel="jobs", ylabel="tracemalloc peak (MB)", title=f"{name} memory")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def merge_rows(
    old: pd.DataFrame | None, new: pd.DataFrame, key: list[str]
) -> pd.DataFrame:
    """``new`` plus the rows of ``old`` whose ``key`` columns are not in ``new``.

    For a benchmark CSV that a run over some seeds (or settings) updates:
    the other rows already in the file are kept; sorted by ``key``.
    """
    if old is None:
        return new
    done = set(new[key].itertuples(index=False, name=None))
    mask = [k not in done for k in old[key].itertuples(index=False, name=None)]
    both = pd.concat([old[mask], new], ignore_index=True)
    return both.sort_values(key, kind="stable").reset_index(drop=True)


def merge_into_csv(
    out_dir: Path,
    name: str,
    rows: list[dict[str, Any]],
    columns: list[str],
    key: list[str],
    *,
    keep_old: bool = True,
) -> pd.DataFrame:
    """Merge ``rows`` into ``<out_dir>/<name>`` by ``key`` and write it atomically.

    The rows already in the file whose key is not among ``rows`` are kept
    (:func:`merge_rows`; none with ``keep_old=False``, e.g. a quick run).
    Returns the table written.
    """
    from optsched.core.base import write_atomic

    csv = Path(out_dir) / name
    old = pd.read_csv(csv) if keep_old and csv.exists() else None
    df = merge_rows(old, pd.DataFrame(rows, columns=columns), key)
    write_atomic(Path(out_dir), {name: lambda f: df.to_csv(f, index=False)})
    return df


def run_with_hard_limit(
    fn: Callable[..., Any], args: tuple, seconds: float | None
) -> tuple[bool, Any]:
    """``fn(*args)`` in a child process, killed when it outlives ``seconds``.

    Returns ``(True, result)``, or ``(False, None)`` when the child was
    killed.  For solves that must end: HiGHS's own ``time_limit`` is a
    target, not a guarantee (a 300-s limit ran 17 min inside a nested
    sub-MIP's presolve, docs/edgecloud.md).  The child is started with
    ``spawn`` (no copy of the parent's HiGHS threads), so ``fn`` must be a
    module-level function and ``args`` picklable; ``seconds=None`` runs
    ``fn`` here, unguarded.
    """
    if seconds is None:
        return True, fn(*args)
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(1) as pool:
        pending = pool.apply_async(fn, args)
        try:
            return True, pending.get(timeout=seconds)
        except mp.TimeoutError:
            pool.terminate()  # SIGTERM: the solver stops with its process
            return False, None
