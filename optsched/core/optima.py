"""Offline optima for the figures' task functions: solved once per process.

A task function (run in a worker process, :mod:`optsched.core.runner`) that
compares algorithms with the offline optimum gets it from :func:`optimum`,
memoised by instance content so that the schemes or settings of one task
share one solve, and turns it into row columns with
:func:`optimum_columns` (the certified status and, given an algorithm's
value, its ratio by :func:`optsched.core.ratio.ratio_columns`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .ratio import ratio_columns
from .registry import OfflineResult, get_paper

_OPTIMA: dict[tuple[str, str, float | None, tuple], OfflineResult] = {}


def optimum(
    paper: str, inst: Any, *, time_limit: float | None, threads: int = 1, **kw: Any
) -> OfflineResult:
    """The paper's offline optimum of ``inst``, solved once per process.

    The result is memoised by (paper, instance JSON, time limit, options),
    so the several schemes or settings of one task that need the same
    instance's optimum share one solve.  The status is the solver's
    certified one (``optimal`` only when proven); the objective is the
    checker's recomputation (``Paper.solve_offline``).
    """
    digest = hashlib.sha256(inst.to_json().encode()).hexdigest()
    key = (paper, digest, time_limit, tuple(sorted(_hashable(kw).items())))
    if key not in _OPTIMA:
        p = get_paper(paper)
        _OPTIMA[key] = p.solve_offline(
            inst, time_limit=time_limit, threads=threads, **kw
        )
    return _OPTIMA[key]


def _hashable(kw: dict[str, Any]) -> dict[str, Any]:
    """``kw`` with schedules (a MIP ``start=``) replaced by their JSON digest.

    Schedules hold numpy arrays (not hashable); two starts with the same
    content give the same solve, so the memo keys on the content.
    """
    return {
        k: ("json", hashlib.sha256(v.to_json().encode()).hexdigest())
        if hasattr(v, "to_json")
        else v
        for k, v in kw.items()
    }


def optimum_columns(
    opt: OfflineResult, sense: str, alg: float | None = None, **context: Any
) -> dict[str, Any]:
    """Row columns of an optimum (and of ``alg``'s ratio to it, when given).

    ``opt_objective``, ``opt_bound``, ``bound_kind`` (which bound
    ``opt_bound`` is, :attr:`OfflineResult.bound_kind`), ``opt_status``,
    ``opt_runtime_s``;
    with ``alg`` also ``ratio``, ``ratio_lo``, ``ratio_hi`` and ``kind``
    (:func:`optsched.core.ratio.ratio_columns`, which raises
    :class:`~optsched.core.errors.SolverError` when ``alg`` beats a certified
    value; ``context`` -- ``instance=``, ``algorithm=`` -- names the row in
    that message).
    """
    cols: dict[str, Any] = {
        "opt_objective": opt.objective,
        "opt_bound": opt.bound,
        "bound_kind": opt.bound_kind,
        "opt_status": opt.status,
        "opt_runtime_s": opt.runtime,
    }
    if alg is not None:
        cols.update(
            ratio_columns(sense, alg, opt.objective, opt.bound, opt.status, **context)
        )
    return cols
