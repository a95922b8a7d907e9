"""The shared base of the data layer: one tolerance, one atomic writer, one JSON mixin.

Every slice used to carry its own copy of these; they live here once.

* :data:`TOL` -- the feasibility / tie tolerance of the checkers and the
  instance validation (``1e-9``).
* :func:`write_atomic` / :func:`write_text_atomic` -- write output files
  through a temporary file in the target folder and :func:`os.replace`, so
  a reader never sees a half-written file and a failed write leaves the old
  file (or none) in place.
* :class:`JsonMixin` -- ``to_json`` / ``from_json`` on top of an instance
  class's own ``to_dict`` / ``from_dict`` (format tag, exact round trip,
  unknown keys refused by :func:`optsched.core.validate.check_keys`);
  :class:`ScheduleJsonMixin` -- the same for the schedule classes, whose
  errors are :class:`~optsched.core.errors.InvalidScheduleError`.

* :class:`EvaluationBase` -- the base of the checkers' results (objective,
  summary scalars, the per-job table).
* :func:`certified_solve` -- the build / start / solve / extract / check
  skeleton of every offline model (with :func:`start_objective`,
  :func:`best_checked`, :func:`best_bound`, :func:`lazy_solve_offline`).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

import numpy as np

from .errors import (
    InfeasibleScheduleError,
    InvalidInstanceError,
    InvalidScheduleError,
    SolverError,
)
from .protocols import (  # models import OfflineResult from here
    BOUND_KINDS,
    BoundKind,
    OfflineResult,
)
from .validate import schedule_json

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd

    from .solver import Deadline

__all__ = [
    "TOL",
    "EvaluationBase",
    "JsonMixin",
    "OfflineResult",
    "ScheduleJsonMixin",
    "BEAT_RTOL",
    "best_bound",
    "best_checked",
    "certify",
    "certified_solve",
    "lazy_solve_offline",
    "start_objective",
    "default_file_mode",
    "write_atomic",
    "write_text_atomic",
]

# --------------------------------------------------------------------------
# Tolerance
# --------------------------------------------------------------------------

#: The one numerical tolerance of the checkers and of instance validation.
#:
#: It absorbs floating-point noise, never a modelling slack.  How it is
#: scaled where it is used:
#:
#: * **relative** in the checkers, against the larger of 1 and the quantity
#:   compared (so absolute for quantities below 1): work / data delivered
#:   ``got >= need - TOL max(1, need)`` or ``have >= need (1 - TOL)``
#:   (``oasis.check`` (2), ``edgecloud.check``, ``okita.check``,
#:   ``hetero.check``), capacities ``use <= cap + TOL max(1, cap)``
#:   (``oasis.check``, ``okita.check``, ``edgecloud.check`` /
#:   ``edgecloud.storage`` storage), and the same tests in
#:   ``oasis.baselines``;
#: * **absolute** on slot and chunk counts computed in floating point,
#:   ``ceil(x - TOL)`` / ``floor(x + TOL)`` (``EPS`` of ``oasis.instance``,
#:   ``edgecloud.instance``, ``okita.instance``, used by okita's schedule and
#:   online code), and on the dual-constraint excess of
#:   ``edgecloud.certificate``.
#:
#: One value keeps every reference CSV and hash byte-identical; changing it
#: changes results.
TOL: float = 1e-9

# --------------------------------------------------------------------------
# Atomic writes
# --------------------------------------------------------------------------


def default_file_mode() -> int:
    """``0o666`` minus the umask: the mode ``open()`` gives a new file.

    ``tempfile.mkstemp`` creates its files ``0o600``; outputs renamed into
    place from it get this mode instead, like any other file the user writes.
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _fsync_path(path: str | os.PathLike[str], *, directory: bool = False) -> None:
    """Flush ``path`` (a file, or a folder's entries) to disk; best effort for folders."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        if directory:  # some platforms / file systems cannot open a folder
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:
            raise
    finally:
        os.close(fd)


def write_atomic(
    out_dir: str | os.PathLike[str],
    writers: Mapping[str, Callable[[str], object]],
    *,
    mode: int | None = None,
) -> dict[str, Path]:
    """Write every file of ``writers`` (name -> ``write(tmp_path)``) or none.

    Each file is written to a temporary file in ``out_dir`` first (same file
    system, so the rename is atomic), flushed to disk, and all are renamed
    into place with :func:`os.replace` only after every write succeeded.  On
    any exception (also ``KeyboardInterrupt``) every temporary file is
    removed and the targets are left as they were.

    Parameters
    ----------
    out_dir
        Target folder; created (with parents) if missing.
    writers
        File name (inside ``out_dir``) -> function writing the file's full
        content to the temporary path it is given.
    mode
        Permission bits of the written files; default
        :func:`default_file_mode` (what a plain ``open()`` would give).

    Returns
    -------
    dict[str, Path]
        File name -> final path, in the order of ``writers``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bits = default_file_mode() if mode is None else mode
    done: list[tuple[str, Path]] = []
    try:
        for fname, write in writers.items():
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{fname}.", suffix=".tmp")
            os.fchmod(fd, bits)
            os.close(fd)
            done.append((tmp, out_dir / fname))
            write(tmp)
            _fsync_path(tmp)
        for tmp, dst in done:
            os.replace(tmp, dst)
    except BaseException:
        for tmp, _ in done:
            Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_path(out_dir, directory=True)
    return {dst.name: dst for _, dst in done}


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    *,
    mode: int | None = None,
    encoding: str = "utf-8",
) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`write_atomic`).

    Parameters
    ----------
    path
        Target file; its folder is created if missing.
    text
        The full new content (written as is: no newline is added).
    mode
        Permission bits; default :func:`default_file_mode`.
    encoding
        Text encoding of the file.

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding=encoding) as fh:
            fh.write(text)

    return write_atomic(path.parent, {path.name: write}, mode=mode)[path.name]


# --------------------------------------------------------------------------
# JSON mixin of the instance classes
# --------------------------------------------------------------------------


class JsonMixin:
    """``to_json`` / ``from_json`` for a class with ``to_dict`` / ``from_dict``.

    The class sets :attr:`FORMAT` (``"optsched.<key>/<version>"``), writes
    ``"format": FORMAT`` first in its ``to_dict`` and calls
    :meth:`check_format` in its ``from_dict`` (after
    :func:`~optsched.core.validate.check_keys`, which refuses unknown keys).
    The JSON text is ``json.dumps(to_dict(), indent=indent)``: the exact
    bytes of the committed instance files, and ``from_json(to_json())``
    rebuilds an equal instance.
    """

    __slots__ = ()

    #: Format tag written to and required in the ``format`` field.
    FORMAT: ClassVar[str]
    #: What the class holds, for messages (``"instance"`` / ``"schedule"``).
    WHAT: ClassVar[str] = "instance"
    #: The error every refusal of :meth:`from_json` / :meth:`check_format` raises.
    ERROR: ClassVar[type[Exception]] = InvalidInstanceError
    #: Whether a missing ``format`` field is refused (True for instances).
    FORMAT_REQUIRED: ClassVar[bool] = True

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - overridden
        """The instance as plain JSON values (implemented by the class)."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: Any) -> Self:  # pragma: no cover - overridden
        """Build and validate an instance (implemented by the class)."""
        raise NotImplementedError

    def to_json(self, indent: int | None = None) -> str:
        """JSON text of :meth:`to_dict` (``indent`` as in :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def check_format(cls, data: Mapping[str, Any]) -> None:
        """Require ``data["format"] == cls.FORMAT``.

        Raises
        ------
        InvalidInstanceError
            (:attr:`ERROR`; InvalidScheduleError for schedules) The field
            is missing and :attr:`FORMAT_REQUIRED` (``"format: missing
            required field"``) or
            holds another tag (``"format: expected 'optsched.oasis/1', got
            ..."``).
        """
        if "format" not in data:
            if cls.FORMAT_REQUIRED:
                raise cls.ERROR("format: missing required field")
            return
        fmt = data["format"]
        if fmt != cls.FORMAT:
            raise cls.ERROR(f"format: expected {cls.FORMAT!r}, got {fmt!r}")

    @classmethod
    def parse_json(cls, text: str | bytes | bytearray) -> Any:
        """JSON text -> plain values; bad JSON raises :attr:`ERROR`."""
        try:
            return json.loads(text)
        except ValueError as exc:  # JSONDecodeError, or an int of > 4300 digits
            raise cls.ERROR(f"<json>: not valid JSON ({exc})") from exc

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> Self:
        """Parse and validate JSON text; every error is an InvalidInstanceError.

        Raises
        ------
        InvalidInstanceError
            The text is not JSON (also an integer literal beyond Python's
            4,300-digit conversion limit), the top level is not an object, or
            :meth:`from_dict` refuses the content (naming the field).
        """
        data = cls.parse_json(text)
        if not isinstance(data, Mapping):
            raise cls.ERROR(
                f"{cls.WHAT}: expected a JSON object, got {type(data).__name__}"
            )
        return cls.from_dict(data)


class ScheduleJsonMixin(JsonMixin):
    """:class:`JsonMixin` for the schedule classes.

    Differences from instances: every refusal is an
    :class:`~optsched.core.errors.InvalidScheduleError`; the JSON parser
    (:func:`~optsched.core.validate.schedule_json`) also refuses a repeated
    key; the ``format`` field (``"optsched.<key>.schedule/1"``) is written
    first by ``to_dict`` but optional on reading, so schedule files written
    before it was introduced still load (a wrong tag is refused).
    """

    __slots__ = ()

    WHAT: ClassVar[str] = "schedule"
    ERROR: ClassVar[type[Exception]] = InvalidScheduleError
    FORMAT_REQUIRED: ClassVar[bool] = False

    @classmethod
    def parse_json(cls, text: str | bytes | bytearray) -> Any:
        """Schedule JSON text -> plain values (:func:`~optsched.core.validate.schedule_json`)."""
        return schedule_json(text)


# --------------------------------------------------------------------------
# Evaluations
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EvaluationBase:
    """The shared base of the five checkers' results (``<Key>Evaluation``).

    Each paper's evaluation adds its own recomputed quantities (arrays per
    job or per slot, totals) after :attr:`objective` and names

    * in :attr:`SUMMARY` the scalar attributes (fields or properties) worth
      a line beside the objective (the CLI's ``run`` / ``check`` print
      them), and
    * in :attr:`PER_JOB` the fields holding one value per job, which
      :meth:`per_job` returns as a table.

    Attributes
    ----------
    objective
        The paper's objective recomputed from the schedule alone (the only
        field core reads; see :class:`optsched.core.protocols.Evaluation`).
    """

    objective: float

    #: Scalar attributes shown beside the objective, in order.
    SUMMARY: ClassVar[tuple[str, ...]] = ()
    #: Fields of one value per job, in column order.
    PER_JOB: ClassVar[tuple[str, ...]] = ()

    def summary(self) -> dict[str, float | int]:
        """``{"objective": ..., **{name: value for name in SUMMARY}}`` as Python numbers."""
        out: dict[str, float | int] = {"objective": float(self.objective)}
        for name in self.SUMMARY:
            value = getattr(self, name)
            out[name] = (
                int(value) if isinstance(value, int | np.integer) else float(value)
            )
        return out

    def per_job(self) -> pd.DataFrame:
        """One row per job (index ``job``), one column per :attr:`PER_JOB` field."""
        import pandas as pd

        cols = {name: np.asarray(getattr(self, name)) for name in self.PER_JOB}
        frame = pd.DataFrame(cols)
        frame.index.name = "job"
        return frame


# --------------------------------------------------------------------------
# The certified-solve skeleton
# --------------------------------------------------------------------------
#
# One skeleton for every ``models/<key>.py`` ``solve_offline``: build the
# model within the budget, apply the caller's MIP start, solve with what is
# left, extract the incumbent, check it with the paper's checker, keep the
# start when HiGHS stopped without a better incumbent.  The solver module
# (Pyomo, HiGHS) is imported on the first call, so that the data layer that
# imports this module stays light.


#: Relative slack before a checked schedule "beats" a certified value
#: (:func:`certify`): solver round-off, not modelling.
BEAT_RTOL = 1e-6


def certify(
    sense: str,
    alg: float,
    opt: float,
    bound: float,
    status: str,
    *,
    instance: Any = "?",
    algorithm: str = "?",
) -> None:
    """Raise :class:`SolverError` when a checked schedule beats a certified value.

    A checked algorithm schedule with objective ``alg`` can never be better
    than a proven optimum ``opt`` (nor than the dual ``bound`` of an
    unproven solve).  Beyond :data:`BEAT_RTOL` relative, the solver's
    "optimal" (or its bound) is wrong -- highspy 1.15.1 has returned such
    results (DESIGN.md, "Solver") -- and no ratio below 1 is reported.
    """
    better = (lambda a, b: a > b) if sense == "max" else (lambda a, b: a < b)
    for what, ref in (
        ("proven optimum", opt if status == "optimal" else math.nan),
        ("dual bound", bound),
    ):
        if math.isnan(ref) or math.isnan(alg):
            continue
        tol = BEAT_RTOL * max(1.0, abs(ref))
        if better(alg - (tol if sense == "max" else -tol), ref):
            raise SolverError(
                f"instance {instance}: algorithm {algorithm!r} scores {alg!r}, better than the "
                f"solver's {what} {ref!r} ({sense}); the solver result is wrong"
            )


def best_bound(sense: str, candidates: Mapping[str, float]) -> tuple[float, BoundKind]:
    """The tightest finite bound among ``candidates`` and its kind.

    ``candidates`` maps a kind of :data:`~optsched.core.protocols.BOUND_KINDS`
    to a bound on the optimum that the caller has shown valid (upper bounds
    for ``sense == "max"``, lower bounds for ``"min"``); NaN and infinite
    values are skipped.  The tightest is the smallest for max and the
    largest for min; on ties the first listed wins (list ``milp`` first, so
    an equally tight extra bound never hides HiGHS's).

    Returns
    -------
    (float, str)
        The bound and its kind; ``(nan, "none")`` when no candidate is finite.

    Raises
    ------
    ValueError
        For an unknown ``sense`` or a kind outside ``BOUND_KINDS``.
    """
    if sense not in ("max", "min"):
        raise ValueError(f"sense: must be 'max' or 'min', got {sense!r}")
    best, kind = math.nan, cast(BoundKind, "none")
    for name, value in candidates.items():
        if name not in BOUND_KINDS or name == "none":
            raise ValueError(
                f"bound kind: must be one of {BOUND_KINDS[:-1]}, got {name!r}"
            )
        value = float(value)
        if not math.isfinite(value):
            continue
        tighter = value < best if sense == "max" else value > best
        if kind == "none" or tighter:
            best, kind = value, cast(BoundKind, name)
    return best, kind


def start_objective(inst: Any, start: Any, check: Callable[[Any, Any], Any]) -> float:
    """The checker's objective of the MIP start ``start`` (NaN without one).

    Raises
    ------
    InfeasibleScheduleError
        When ``start`` fails ``check`` on ``inst``; the message starts with
        ``start:`` and keeps the violated constraint.
    """
    if start is None:
        return math.nan
    try:
        return float(check(inst, start).objective)
    except InfeasibleScheduleError as exc:
        raise InfeasibleScheduleError(
            f"start: the MIP start fails the checker on this instance: {exc}",
            constraint=exc.constraint,
        ) from exc


def certified_solve(
    inst: Any,
    *,
    build: Callable[[Deadline], Any],
    extract: Callable[[Any], Any],
    check: Callable[[Any, Any], Any],
    sense: str,
    time_limit: float | None,
    start: Any = None,
    start_values: Callable[[Any, Any], Mapping[Any, float] | None] | None = None,
    bound: Callable[[], float] | None = None,
    extra_bounds: Callable[[Deadline], Mapping[str, float]] | None = None,
    bound_reserve: float = 0.0,
    solve_step: Callable[[Any, Mapping[Any, float] | None, Deadline], OfflineResult]
    | None = None,
    deadline: Deadline | None = None,
    threads: int | None = None,
    verbose: bool = False,
    options: Mapping[str, Any] | None = None,
    confirm: str | None = None,
    final_model: Callable[[Any], tuple[Any, float]] | None = None,
) -> OfflineResult:
    """Build, start, solve, extract, check: the offline optimum of one instance.

    1. ``start`` (a schedule of the paper, or None) is checked by ``check``
       (:func:`start_objective`): the caller passes the MIP start, the
       model never runs an algorithm for one.
    2. ``build(deadline)`` builds the model; the time limit covers it
       (:class:`optsched.core.solver.Deadline`, which the builder checks
       and which raises :class:`~optsched.core.solver.DeadlineExceeded`).
       It may instead return an :class:`OfflineResult` (an instance decided
       without a solve, e.g. no job can finish); that is returned as is.
    3. ``start_values(model, start)`` turns the start into values by Pyomo
       variable for :func:`optsched.core.solver.solve` (None: no MIP start,
       the start is still the incumbent of last resort).
    4. HiGHS gets what is left of the budget (``solve_step(model, values,
       deadline)`` instead, for a model that solves in rounds, e.g. outer
       approximation); with an incumbent, ``extract(model)`` gives the
       schedule and ``check`` its objective (never HiGHS's value).
    5. When HiGHS stops at the limit without an incumbent as good as the
       start, the start is the incumbent
       (:func:`optsched.core.solver.keep_better`).  When the budget runs out
       before HiGHS, the result is status ``time_limit`` with the start as
       incumbent and ``bound()`` (a valid bound without a solve, NaN when
       None) as bound (:func:`optsched.core.solver.timed_out`).
    6. ``confirm="scip"``: SCIP re-solves a model HiGHS proved optimal
       (:func:`_confirm`).
    7. An unproven result gets the tightest certified bound, named in
       ``bound_kind`` (:func:`_best_certified`, :func:`_milp_deadline`).

    Parameters
    ----------
    inst
        The instance.
    build, extract, check, start_values, bound, extra_bounds, bound_reserve, solve_step
        The model's steps (above).
    sense
        ``"max"`` or ``"min"``: the paper's objective sense.
    time_limit
        Seconds for the whole call (None = none), when ``deadline`` is None.
    start
        A schedule of ``inst`` that passes ``check``, or None.
    deadline
        A budget started by the caller (e.g. before computing a witness);
        default ``Deadline(time_limit)`` from now.
    threads, verbose, options
        Passed to :func:`optsched.core.solver.solve` (single solve only).
    confirm, final_model
        See :func:`_confirm` (None: no second opinion).

    Returns
    -------
    OfflineResult
        ``runtime`` from the start of the budget to the end of the solve.

    Raises
    ------
    InfeasibleScheduleError
        When ``start`` fails the checker (``"start: ..."``).
    SolverError
        When HiGHS's result contradicts the checked ``start`` or SCIP's.
    ValueError, ImportError
        A bad ``confirm`` (:func:`_confirm`).
    """
    from .confirm import check_confirm
    from .solver import Deadline, DeadlineExceeded, keep_better, timed_out

    check_confirm(confirm)
    dl = Deadline(time_limit) if deadline is None else deadline
    milp_dl = _milp_deadline(dl, extra_bounds, bound_reserve)
    start_obj = start_objective(inst, start, check)
    try:
        model = build(dl)
        if isinstance(model, OfflineResult):
            return model
        if confirm is not None and solve_step is not None and final_model is None:
            raise ValueError(f"confirm={confirm!r} is not available for {model.name} "
                             "(the model solves in rounds)")  # fmt: skip
        values = None
        if start is not None and start_values is not None:
            dl.check("applying the MIP start")
            values = start_values(model, start)
        dl.check("applying the MIP start")
    except DeadlineExceeded:
        out = timed_out(dl, math.nan, start, start_obj)  # bound(): step 7
        return _best_certified(out, sense, dl, bound, None, None, start_obj)
    solver = {"threads": threads, "verbose": verbose, "options": options}
    out, highs_objective = _solve_step(
        inst, model, values, milp_dl, solve_step, extract, check, solver
    )
    _certify_against_start(out, sense, start, start_obj)
    if confirm is not None and out.status == "optimal":
        _confirm(model, highs_objective, final_model if solve_step else None, dl)
    out = keep_better(out, sense, start, start_obj)
    return _best_certified(out, sense, dl, bound, extra_bounds, start, start_obj)


def _solve_step(
    inst: Any,
    model: Any,
    values: Mapping[Any, float] | None,
    deadline: Deadline,
    solve_step: Callable[[Any, Mapping[Any, float] | None, Deadline], OfflineResult]
    | None,
    extract: Callable[[Any], Any],
    check: Callable[[Any, Any], Any],
    solver: Mapping[str, Any],
) -> tuple[OfflineResult, float]:
    """Step 4 of :func:`certified_solve`: the result and HiGHS's objective value.

    ``solve_step(model, values, deadline)`` when given (HiGHS's value NaN),
    else one HiGHS solve with what is left of ``deadline`` and the
    ``solver`` keywords of :func:`optsched.core.solver.solve`, whose
    incumbent is extracted and checked (the objective is the checker's).
    """
    from .solver import solve

    if solve_step is not None:
        return solve_step(model, values, deadline), math.nan
    res = solve(model, time_limit=deadline.remaining(), start=values, **solver)
    out = OfflineResult.from_solve(
        res, deadline.began, lambda: extract(model), lambda s: check(inst, s)
    )
    return out, res.objective


def _milp_deadline(
    deadline: Deadline,
    extra_bounds: Callable[[Deadline], Mapping[str, float]] | None,
    bound_reserve: float,
) -> Deadline:
    """The budget of HiGHS in :func:`certified_solve`: ``deadline`` without
    the ``bound_reserve`` share of its limit, kept for ``extra_bounds``.

    ``bound_reserve`` in ``[0, 1)`` (else a ValueError naming it); no
    reserve without ``extra_bounds`` or without a limit.
    """
    from .solver import Deadline

    if not 0.0 <= bound_reserve < 1.0:
        raise ValueError(f"bound_reserve: must be in [0, 1), got {bound_reserve!r}")
    limit = deadline.time_limit
    if extra_bounds is None or bound_reserve == 0 or limit is None:
        return deadline
    return Deadline(limit * (1.0 - bound_reserve), began=deadline.began)


def _best_certified(
    out: OfflineResult,
    sense: str,
    deadline: Deadline,
    bound: Callable[[], float] | None,
    extra_bounds: Callable[[Deadline], Mapping[str, float]] | None,
    start: Any,
    start_obj: float,
) -> OfflineResult:
    """Step 7 of :func:`certified_solve`: the best certified bound of a
    ``time_limit`` result (other results are returned unchanged).

    The new ``bound`` is the tightest (:func:`best_bound`) of the result's
    own (HiGHS's, kind ``milp``, or what a ``solve_step`` named),
    ``bound()`` (kind ``combinatorial``) and the kinds ``extra_bounds``
    returns (e.g. ``{"colgen": ...}``, computed with what is left of
    ``deadline``; ``runtime`` then includes them); ``bound_kind`` names the
    winner.  Every candidate must be a valid bound on the optimum of the
    exact problem the checker scores (the model's docstring says why); a
    checked ``start`` beating the winner is a
    :class:`~optsched.core.errors.SolverError` (``start=None``: not
    checked, as for a budget that ran out before HiGHS).  A proven optimum
    keeps HiGHS's bound (kind ``milp``).
    """
    if out.status != "time_limit":
        return out
    cands: dict[str, float] = {}
    if out.bound_kind != "none":
        cands[out.bound_kind] = out.bound
    if bound is not None:
        cands["combinatorial"] = bound()
    runtime = out.runtime
    if extra_bounds is not None:
        cands.update(extra_bounds(deadline))
        runtime = deadline.elapsed()
    value, kind = best_bound(sense, cands)
    out = replace(out, bound=value, bound_kind=kind, runtime=runtime)
    _certify_against_start(out, sense, start, start_obj)
    return out


def _confirm(
    model: Any,
    highs_objective: float,
    final_model: Callable[[Any], tuple[Any, float]] | None,
    deadline: Deadline,
) -> None:
    """Step 6 of :func:`certified_solve`: ``confirm="scip"``, a second opinion.

    When HiGHS proved an optimum, SCIP re-solves the same Pyomo model with
    one thread and what is left of the budget
    (:func:`optsched.core.confirm.confirm_scip`, needs pyscipopt: ``pip
    install optsched[scip]``) and compares its proven optimum with HiGHS's
    objective value of the model (not the checker's recomputation): more
    than 1e-6 relative apart is a :class:`SolverError`.  When SCIP does not
    prove optimality in time, the result stands unchanged (an
    :class:`~optsched.core.confirm.UnconfirmedWarning` says so).

    ``confirm`` is None or ``"scip"`` (else a ValueError naming the value;
    ``"scip"`` without pyscipopt is an ImportError).  A model that solves in
    rounds (``solve_step``) passes ``final_model(model) -> (model,
    objective)``: the model exactly as HiGHS last proved it optimal and
    HiGHS's value of it; without it ``confirm`` is a ValueError.
    """
    from .confirm import confirm_scip

    if final_model is not None:
        model, highs_objective = final_model(model)
    confirm_scip(model, highs_objective, time_limit=deadline.remaining())


def _certify_against_start(
    out: OfflineResult, sense: str, start: Any, start_obj: float
) -> None:
    """Raise :class:`~optsched.core.errors.SolverError` when HiGHS's result
    contradicts the checked ``start``: "infeasible" although the start is a
    feasible schedule, or a proven optimum / dual bound the start beats
    (:func:`certify`, the harness's rule).
    """
    if start is None or math.isnan(start_obj):
        return
    if out.status == "infeasible":
        raise SolverError(
            f"the solver reports the instance infeasible, but the start schedule "
            f"passes the checker with objective {start_obj!r}"
        )
    certify(sense, start_obj, out.objective, out.bound, out.status, algorithm="start")


def lazy_solve_offline(module: str, doc: str) -> Callable[..., OfflineResult]:
    """A paper's ``solve_offline``: ``module.solve_offline``, imported on the first call.

    The paper record (``optsched.<key>.paper``) holds this wrapper, so that
    ``import optsched`` and the registry do not import Pyomo and HiGHS.

    Parameters
    ----------
    module
        The model module, e.g. ``"optsched.models.oasis"``.
    doc
        Docstring of the wrapper.

    Returns
    -------
    Callable
        ``solve_offline(inst, *, time_limit=60.0, start=None, **options)``:
        ``start`` is the caller's MIP start (a checked schedule or None),
        ``options`` the model's own keywords (``threads``, ``verbose``,
        ``confirm="scip"`` for a second opinion from SCIP, ...).
    """

    def solve_offline(
        inst: Any,
        *,
        time_limit: float | None = 60.0,
        start: Any = None,
        **options: Any,
    ) -> OfflineResult:
        solve = importlib.import_module(module).solve_offline
        return solve(inst, time_limit=time_limit, start=start, **options)

    solve_offline.__doc__ = doc
    return solve_offline


def best_checked(
    inst: Any,
    candidates: Iterable[Any],
    check: Callable[[Any, Any], Any],
    sense: str,
    *,
    skip_infeasible: bool = False,
) -> Any:
    """The candidate schedule with the best checker objective (the first on ties).

    A paper's ``default_start`` picks the MIP start it hands to
    ``solve_offline`` with this.

    Parameters
    ----------
    inst
        The instance.
    candidates
        Schedules of ``inst`` (e.g. online algorithms' runs), in order of
        preference on ties.
    check
        The paper's checker.
    sense
        ``"max"`` or ``"min"``.
    skip_infeasible
        Leave out candidates the checker rejects (else its error propagates).

    Returns
    -------
    schedule or None
        None when no candidate is left.
    """
    best, best_value = None, math.nan
    for sched in candidates:
        try:
            value = float(check(inst, sched).objective)
        except InfeasibleScheduleError:
            if not skip_infeasible:
                raise
            continue
        better = value > best_value if sense == "max" else value < best_value
        if best is None or better:
            best, best_value = sched, value
    return best
