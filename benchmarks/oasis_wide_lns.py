"""Which side of the oasis 50-job interval is open: a longer, wider neighbourhood search.

The frontier's oasis 50-job instances (``benchmarks/frontier.py``: 50 jobs,
T = 30, 20 + 20 servers) stay open after 60 s, and on seed 4 fifteen
minutes of HiGHS moved neither end (1,436.85 / 1,512.39, width 5.26%,
docs/oasis.md).  This is :mod:`benchmarks.wide_lns` with ``--paper
oasis``: from the harness's start it runs :func:`optsched.oasis.lns.improve`
again and again with neighbourhoods of ``k`` = 14, 18, 22 and 26 jobs in
turn, every kept schedule checked (a certified lower end of the optimum:
oasis maximises utility); ``--prove SECONDS`` gives the best schedule to
HiGHS as its start.  Files: ``<out>/oasis_wide_lns.csv``,
``<out>/oasis_wide_lns/seed<S>.json``, ``<out>/oasis_wide_lns_highs.csv``
(columns and rules in :mod:`benchmarks.wide_lns`).

Run (one HiGHS thread per sub-solve; the times are measurements)::

    nice -n 5 python -m benchmarks.oasis_wide_lns --seeds 4 --budget 2700 --out benchmarks/data
    python -m benchmarks.oasis_wide_lns --seeds 0 1 2 3 4 --prove 60 --out benchmarks/data
    python -m benchmarks.oasis_wide_lns --quick [--prove 60]
"""

from __future__ import annotations

from typing import Any

from benchmarks import wide_lns
from benchmarks.wide_lns import COLUMNS, PROVE_COLUMNS

SIZE: dict[str, Any] = wide_lns.size_of("oasis", quick=False)
QUICK_SIZE: dict[str, Any] = wide_lns.size_of("oasis", quick=True)

__all__ = ["COLUMNS", "PROVE_COLUMNS", "QUICK_SIZE", "SIZE", "main"]


def main(argv: list[str] | None = None) -> int:
    """:func:`benchmarks.wide_lns.main` for oasis."""
    return wide_lns.main(argv, paper="oasis")


if __name__ == "__main__":
    raise SystemExit(main())
