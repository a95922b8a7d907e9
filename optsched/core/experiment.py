"""The experiment layer: declarative figure specs and the one runner (public facade).

A reproduced figure or table is an :class:`Experiment`: a name, the paper's
key and figure reference, a parameter grid (and a ``quick`` grid), an
importable task function ``task dict -> row dict(s)`` from the slice's
``experiments`` module, a plot (a kind of :mod:`optsched.core.plots` or a
small function ``df -> Figure``) and the paper's claims as data
(:class:`Claim`).  Specs live in ``paper_figures/<key>/<name>.py`` as a
module-level ``SPEC``; the package installs them as
``optsched.figures.<key>.<name>`` so that they are imported, never loaded by
path.

This module gathers the layer's public names; each concern has its module:

* :mod:`optsched.core.spec` -- the types (:class:`Experiment`,
  :class:`Claim`, :class:`Span`, :class:`Cells`, :class:`ExperimentResult`),
  grids (:func:`expand`) and the determinism columns
  (:data:`VOLATILE`, :func:`stable_columns`);
* :mod:`optsched.core.runner` -- :func:`run` (grid -> rows -> plot, claims,
  files), :func:`table`, :func:`evaluate_claims`, :class:`TaskCache` (one
  computation of a task several specs share);
* :mod:`optsched.core.optima` -- what task functions use:
  :func:`optimum` (solved once per instance and process) and
  :func:`optimum_columns`;
* :mod:`optsched.core.discovery` -- :func:`specs`, :func:`get_spec`;
* :mod:`optsched.core.report` -- :func:`record_claims`, the findings table
  :func:`report`, :func:`replace_block`;
* :mod:`optsched.core.base` -- :func:`write_atomic`, :func:`default_file_mode`;
* :mod:`optsched.core.worst_case_spec` -- the worst-case search specs.
"""

from __future__ import annotations

from typing import Any

from . import horizon
from .base import default_file_mode, write_atomic
from .discovery import SPECS_PACKAGE, get_spec, specs
from .optima import optimum, optimum_columns
from .report import REPORT_BEGIN, REPORT_END, record_claims, replace_block, report
from .runner import TaskCache, command, evaluate_claims, run, table
from .spec import (
    CLAIM_COLUMNS,
    STATUSES,
    VOLATILE,
    Cells,
    Claim,
    Experiment,
    ExperimentResult,
    Grid,
    Span,
    expand,
    near,
    read_rows,
    stable_columns,
)

__all__ = [
    "STATUSES",
    "near",
    "read_rows",
    "CLAIM_COLUMNS",
    "REPORT_BEGIN",
    "REPORT_END",
    "SPECS_PACKAGE",
    "VOLATILE",
    "Cells",
    "Claim",
    "Experiment",
    "ExperimentResult",
    "Grid",
    "Span",
    "TaskCache",
    "command",
    "default_file_mode",
    "evaluate_claims",
    "expand",
    "get_spec",
    "optimum",
    "optimum_columns",
    "record_claims",
    "replace_block",
    "report",
    "run",
    "specs",
    "stable_columns",
    "table",
    "until_done",
    "write_atomic",
]


def until_done(inst: Any, makespan: int) -> Any:
    """``inst`` with ``T = max(T, makespan)`` (the papers' "T large enough").

    Kept for old callers: an alias of the core horizon rule,
    :func:`optsched.core.horizon.extend` (use :func:`optsched.core.horizon.fit`
    with the schedules themselves in new code).
    """
    return horizon.extend(inst, int(makespan))[0]
