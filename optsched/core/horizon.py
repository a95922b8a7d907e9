"""The horizon rule: one rule, for every paper, for online runs past ``T``.

Several papers take the horizon ``T`` (``n_slots``) "large enough to
complete all jobs", and their online algorithms have no admission control:
they never look at ``T`` and may need more slots than the instance has
(edgecloud's A_online and baselines, Okita and its baselines).  The rule:

* An online run that needs more slots than the instance's ``T`` is checked
  against the same instance with ``T`` extended to the run's makespan
  (:func:`fit`), and the offline optimum it is compared with is solved on
  that same extended instance.  Extending ``T`` adds empty slots at the
  end: every job, capacity and cost is unchanged, and the instance's
  validation runs again (``dataclasses.replace`` calls ``__post_init__``).
* A ratio table (:func:`optsched.core.ratio.ratios`) extends each instance
  once, to the largest makespan of all algorithms run on it, so every
  algorithm of that instance is compared with the same optimum; the row
  reports ``horizon_extended`` (bool) and ``n_slots_used`` (the ``T`` the
  ratio refers to).  The worst-case search
  (:func:`optsched.core.adversary.evaluate`) and the figures
  (``edgecloud.experiments``, ``okita.experiments``) apply the same rule.
* Never an exception, never silent: a run past ``T`` is a fact reported in
  a column, not an infeasible schedule.  A schedule the checker still
  rejects on the fitted instance breaks something else (a bug, or a
  violation the algorithm declares, ``optsched.core.ratio.DECLARED``).

Papers whose instances have no slot horizon (``hetero``, ``asrpt``: jobs run
until done) and papers whose algorithms only admit what fits in ``T``
(``oasis``) are unaffected: their schedules state no needed horizon and
:func:`fit` returns the instance unchanged.

How a schedule's needed horizon is read is :func:`needed_slots`, the one
place to change when it becomes a typed field of the schedule (issue 24).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

Inst = TypeVar("Inst")


def needed_slots(sched: Any) -> int | None:
    """The number of slots ``sched`` needs (its makespan), or None.

    Read from ``sched.meta["makespan"]`` (the last busy slot, set by the
    edgecloud and okita algorithms); None when the schedule states no
    makespan (papers without a slot horizon, schedules read from JSON).

    Parameters
    ----------
    sched
        A slice's schedule.

    Returns
    -------
    int or None
        The last slot the schedule uses, or None.
    """
    meta = getattr(sched, "meta", None) or {}
    makespan = meta.get("makespan")
    if makespan is None:
        return None
    if isinstance(makespan, bool) or int(makespan) != makespan:
        raise ValueError(f"meta['makespan']: not a slot number, got {makespan!r}")
    return int(makespan)


def n_slots(inst: Any) -> int | None:
    """The slot horizon ``T`` of ``inst`` (``n_slots``), or None if it has none."""
    T = getattr(inst, "n_slots", None)
    return None if T is None else int(T)


def extend(inst: Inst, slots: int) -> tuple[Inst, bool]:
    """``inst`` with ``T = max(T, slots)``, and whether ``T`` grew.

    Returns ``inst`` itself when it has no slot horizon or ``slots <= T``;
    otherwise ``dataclasses.replace(inst, n_slots=slots)``, which validates
    the new instance again.
    """
    T = n_slots(inst)
    if T is None or slots <= T:
        return inst, False
    return dataclasses.replace(inst, n_slots=int(slots)), True


def fit(inst: Inst, *scheds: Any) -> tuple[Inst, bool]:
    """The instance every schedule of ``scheds`` fits, and whether it was extended.

    ``T`` is extended to the largest :func:`needed_slots` of the schedules
    when that exceeds ``T`` (module docstring); schedules that state no
    needed horizon do not extend it.

    Parameters
    ----------
    inst
        The instance the schedules were computed on.
    *scheds
        Schedules of algorithms run on ``inst``.

    Returns
    -------
    tuple
        ``(fitted, extended)``: ``fitted`` is ``inst`` itself when no
        schedule needs more than ``T`` slots (``extended`` False), else the
        instance with ``n_slots`` equal to the largest makespan.

    Examples
    --------
    >>> import optsched
    >>> p = optsched.get_paper("okita")
    >>> inst = p.generate(seed=17, n_sites=3, n_jobs=3, n_slots=12)
    >>> sched = p.run("okita", inst)
    >>> fitted, extended = fit(inst, sched)
    >>> extended, fitted.n_slots == sched.meta["makespan"] > inst.n_slots
    (True, True)
    """
    need = [n for s in scheds if (n := needed_slots(s)) is not None]
    if not need:
        return inst, False
    return extend(inst, max(need))
