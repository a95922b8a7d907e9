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
  violation the algorithm declares,
  :func:`optsched.core.ratio.declared_violation`).

Papers whose instances have no slot horizon (``hetero``, ``asrpt``: jobs run
until done) and papers whose algorithms only admit what fits in ``T``
(``oasis``) are unaffected: their schedules state no needed horizon and
:func:`fit` returns the instance unchanged.

How a schedule's needed horizon is read is :func:`needed_slots`, the one
place that reads it: the typed ``last_slot`` of a
:class:`~optsched.core.protocols.SlottedSchedule` (edgecloud, okita), the
last slot any row of the schedule uses.  It is computed from the rows, so
a schedule read back from JSON states it too.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, cast

import numpy as np

Inst = TypeVar("Inst")


def needed_slots(sched: Any) -> int | None:
    """The number of slots ``sched`` needs (its last busy slot), or None.

    The typed fact of the schedule: ``sched.last_slot``
    (:class:`~optsched.core.protocols.SlottedSchedule`: the edgecloud and
    okita schedules, also when read from JSON).  None for schedules of
    papers without a slot horizon (``hetero``, ``asrpt``) and of ``oasis``
    (its algorithms admit only what fits in ``T``).

    ``meta`` is never read (traces only): an object without ``last_slot``
    needs no longer horizon.

    Parameters
    ----------
    sched
        A slice's schedule.

    Returns
    -------
    int or None
        The last slot the schedule uses, or None.

    Raises
    ------
    ValueError
        When the stated value is not a slot number (an integer).
    """
    value: Any = getattr(sched, "last_slot", None)
    name = "last_slot"
    if value is None:
        return None
    if isinstance(value, bool) or int(value) != value:
        raise ValueError(f"{name}: not a slot number, got {value!r}")
    return int(value)


def last_slot(*tables: tuple[Any, int]) -> int:
    """The last slot of the row tables ``tables`` (0 when all are empty).

    The schedules' ``last_slot`` (:class:`~optsched.core.protocols.SlottedSchedule`)
    is this over their row arrays.  A fractional slot counts rounded up
    (the horizon that contains it); non-finite entries, and a table that is
    not a 2-D array with that column, are ignored: the checker rejects them
    as outside the variables' domain whatever ``T`` is.

    Parameters
    ----------
    *tables
        ``(rows, column)``: a 2-D array of schedule rows and the index of
        its slot column (1-based slots).

    Returns
    -------
    int
        The largest slot, or 0.
    """
    last = 0
    for rows, column in tables:
        a = np.asarray(rows)
        if a.ndim != 2 or a.shape[1] <= column or not a.shape[0]:
            continue
        col = a[:, column]
        if col.dtype.kind in "iu":
            last = max(last, int(col.max()))
            continue
        if col.dtype.kind not in "fb":
            continue
        col = col.astype(float)
        col = col[np.isfinite(col)]
        if col.size:
            last = max(last, int(np.ceil(col.max())))
    return last


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
    return dataclasses.replace(cast(Any, inst), n_slots=int(slots)), True


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
    >>> extended, fitted.n_slots == sched.last_slot > inst.n_slots
    (True, True)
    """
    need = [n for s in scheds if (n := needed_slots(s)) is not None]
    if not need:
        return inst, False
    return extend(inst, max(need))
