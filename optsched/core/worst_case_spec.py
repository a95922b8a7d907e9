"""The worst-case search as a figure spec: ``worst_case_<key>``, one per paper.

:func:`search_spec` builds the :class:`~optsched.core.spec.Experiment` of
``paper_figures/<key>/worst_case_<key>.py`` from the search itself
(:mod:`optsched.core.adversary`: task :func:`~optsched.core.adversary.trace_rows`,
one search -> its trace) and its presentation
(:mod:`optsched.core.search_plots`).  The search knows nothing of specs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .adversary import TRACE_COLUMNS, trace_rows
from .registry import get_paper
from .search_plots import plot_traces, worst_found
from .spec import Claim, Experiment

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

__all__ = ["search_spec"]

#: Why a search's worst ratio is no verdict on the paper's bound.
_BOUND_NOTE = (
    "a search finds a lower bound on the competitive ratio, the paper proves an "
    "instance-dependent upper bound; the bound at each worst instance is compared "
    "in docs/worst_case.md"
)


def search_spec(key: str, algorithms: tuple[str, ...], *, doc: str) -> Experiment:
    """The experiment-layer spec ``worst_case_<key>`` (one per paper).

    Full run: each of ``algorithms`` x (``anneal`` from the worst of 8
    generated instances, ``evolve``), 2,000 evaluations, seed 0, 30 s per
    solve, at the paper's ``demo_size`` (optima proven in seconds); quick:
    3 evaluations, ``anneal`` only.  Rows: the traces
    (:func:`~optsched.core.adversary.trace_rows`); plot
    :func:`~optsched.core.search_plots.plot_traces`; one claim per algorithm,
    the worst certified ratio found
    (:func:`~optsched.core.search_plots.worst_found`) beside the paper's
    proven bound (``Paper.proven_bound``; status ``not comparable``: the
    bound is instance-dependent and compared at each worst instance in
    docs/worst_case.md), or ``-`` (status ``no claim``) where the paper
    proves none.
    """
    p = get_paper(key)
    fixed = {"paper": key, "algorithm": list(algorithms), "seed": 0, "time_limit": 30.0,
             "size": dict(p.demo_size)}  # fmt: skip
    return Experiment(
        name=f"worst_case_{key}",
        paper=key,
        ref="worst-case search (not in the paper)",
        doc=doc,
        task=trace_rows,
        grid={
            **fixed,
            "method": ["anneal", "evolve"],
            "n_evals": 2000,
            "batch": 4,
            "starts": 8,
        },  # fmt: skip
        quick={**fixed, "method": ["anneal"], "n_evals": 3, "batch": 2},
        columns=["paper", "algorithm", "seed", *TRACE_COLUMNS],
        plot=plot_traces,
        claims=[
            Claim(
                f"worst certified ratio found for {a} (per method)",
                p.proven_bound.get(a, "-"),
                cast(
                    "Callable[[pd.DataFrame], str]", lambda df, a=a: worst_found(df, a)
                ),
                not_comparable=_BOUND_NOTE if a in p.proven_bound else "",
            )
            for a in algorithms
        ],
    )
