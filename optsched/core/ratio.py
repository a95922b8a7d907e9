"""Competitive-ratio harness: online algorithms against the certified offline optimum.

Definitions (DESIGN.md): ratios are >= 1, ``ALG/OPT`` for min problems and
``OPT/ALG`` for max problems.  Every objective is the paper checker's
recomputation from the schedule, never an algorithm's own bookkeeping.  The
offline optimum of an instance is solved once and shared by all algorithms.

When HiGHS proves optimality, ``ratio == ratio_lo == ratio_hi``.  Otherwise
(time limit) ``ratio`` is NaN and ``[ratio_lo, ratio_hi]`` brackets the true
ratio using the incumbent and the solver's dual bound:

* max: ``incumbent <= OPT <= bound`` so ``ratio in [incumbent/ALG, bound/ALG]``;
* min: ``bound <= OPT <= incumbent`` so ``ratio in [ALG/incumbent, ALG/bound]``.

``bound`` (column ``opt_bound``) is the tightest valid bound the paper's
``solve_offline`` certifies -- HiGHS's MILP bound, an LP or
column-generation bound, or the slice's combinatorial bound -- and column
``bound_kind`` names it (:data:`optsched.core.protocols.BOUND_KINDS`;
``milp`` for a proven optimum, ``none`` without a finite bound).

Instance ``j`` of a table with seed ``s`` is ``generate(seed=s + j, **size)``,
so ``optsched generate KEY --seed s+j`` reproduces any row.

Horizon.  Some papers' online algorithms have no admission control and
may run past the horizon ``T`` (Okita, A_online under heavy load).  The
core horizon rule (:mod:`optsched.core.horizon`) applies: all algorithms
of an instance run first, the instance is extended once to the largest
makespan among them (:func:`optsched.core.horizon.fit`), the optimum is
solved once on that instance and every schedule is checked on it.  Columns
``horizon_extended`` (bool) and ``n_slots_used`` (the ``T`` the row's
objectives and ratio refer to; None -- empty in a CSV -- for papers whose
instances have no slot horizon: ``hetero``, ``asrpt``) report it;
:func:`summarize` counts the extended rows.

Infeasible online schedules.  Okita can also leave a waiting job without a
PS (strict (2c)), which no horizon repairs.  Such an algorithm *declares*
it in a typed field of its schedule (``OkitaSchedule.ps_gaps``, which
survives JSON; :data:`DECLARED`, read by :func:`declared_violation` only,
never from ``meta``); the checker must then reject the schedule, and the
row is kept with ``kind == "alg_infeasible"``, NaN objective and ratios,
and the checker's message in ``infeasible`` (counted by
:func:`summarize`).  A rejection the algorithm did not declare is a bug and
raises; so is a declaration the checker contradicts.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from . import horizon, sweep
from .base import TOL, certify
from .errors import InfeasibleScheduleError, OptschedError
from .registry import Paper, get_paper

COLUMNS = [
    "paper",
    "instance",
    "seed",
    "algorithm",
    "alg_objective",
    "opt_objective",
    "opt_bound",
    "bound_kind",
    "opt_status",
    "ratio",
    "ratio_lo",
    "ratio_hi",
    "kind",
    "horizon_extended",
    "n_slots_used",
    "alg_runtime_s",
    "opt_runtime_s",
    "infeasible",
]

#: Typed schedule fields by which an online algorithm declares that its
#: schedule breaks the instance (a non-empty value is a declaration), with
#: the text the row's ``infeasible`` column reports.  (A run past ``T`` is
#: no violation: the horizon rule, :mod:`optsched.core.horizon`, checks it
#: on the extended instance.)
DECLARED: dict[str, str] = {"ps_gaps": "ps_every_slot=False"}


def declared_violation(sched: Any) -> str | None:
    """The violation ``sched`` declares in a typed field (:data:`DECLARED`), or None.

    Okita's ``ps_gaps`` (window slots without a PS, strict (2c)) gives
    ``"ps_every_slot=False"``; schedules without such a field declare
    nothing.  ``meta`` is not read.
    """
    said = [text for name, text in DECLARED.items() if getattr(sched, name, ())]
    return ", ".join(said) or None


def near_zero(value: float, scale: float = 0.0) -> bool:
    """Whether ``value`` is zero within the checkers' tolerance.

    The one rule for every paper: ``|value| <= TOL max(1, |scale|)``
    (:data:`optsched.core.base.TOL`, scaled as the checkers scale it), with
    ``scale`` the other side of the ratio.  An objective of 1.7e-34 against
    an optimum of 2,781 is zero: its ratio is infinite (``alg_zero``), never
    a finite 1.6e37.
    """
    return abs(value) <= TOL * max(1.0, abs(scale))


def _div(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if near_zero(b, a):
        return 1.0 if near_zero(a) else math.inf
    return a / b


def ratio_bounds(sense: str, alg: float, opt: float, bound: float, status: str):
    """Return ``(ratio, ratio_lo, ratio_hi)`` per the module docstring."""
    if sense == "max":
        lo, hi = _div(opt, alg), _div(bound, alg)
    else:
        lo, hi = _div(alg, opt), _div(alg, bound)
    if status == "optimal":
        r = _div(opt, alg) if sense == "max" else _div(alg, opt)
        return r, r, r
    return math.nan, lo, hi


def ratio_kind(sense: str, alg: float, opt: float, status: str) -> str:
    """Classify a row: ``proven``, ``interval``, ``alg_zero``, ``opt_zero`` or ``no_opt``.

    ``no_opt``: the solve returned no incumbent (no ratio at all);
    ``alg_zero`` (max) / ``opt_zero`` (min): the ratio is infinite
    (``OPT / 0`` or ``ALG / 0``, zero meaning :func:`near_zero`;
    ``0 / 0`` counts as a proven ratio 1);
    ``proven``: a point ratio against a proven optimum; ``interval``: only
    ``[ratio_lo, ratio_hi]`` is known.
    """
    if status not in ("optimal", "time_limit") or math.isnan(opt):
        return "no_opt"
    zero_opt_proven = status == "optimal" and near_zero(opt)
    if sense == "max" and near_zero(alg, opt) and not zero_opt_proven:
        return "alg_zero"
    if (
        sense == "min"
        and near_zero(opt, alg)
        and not near_zero(alg)
        and status == "optimal"
    ):
        return "opt_zero"
    return "proven" if status == "optimal" else "interval"


def ratio_columns(
    sense: str,
    alg: float,
    opt: float,
    bound: float,
    status: str,
    *,
    instance: Any = "?",
    algorithm: str = "?",
) -> dict[str, Any]:
    """``ratio``, ``ratio_lo``, ``ratio_hi`` and ``kind`` of one row, certified.

    Calls :func:`certify` first (a checked schedule beating a proven optimum
    raises :class:`SolverError`).  Infinite ratios stay ``inf`` in the row and
    are told apart by ``kind`` (:func:`ratio_kind`).
    """
    certify(sense, alg, opt, bound, status, instance=instance, algorithm=algorithm)
    r, lo, hi = ratio_bounds(sense, alg, opt, bound, status)
    return {
        "ratio": r,
        "ratio_lo": lo,
        "ratio_hi": hi,
        "kind": ratio_kind(sense, alg, opt, status),
    }


#: Starts computed by :func:`best_start` without ``runs``, by (paper,
#: instance JSON digest); the most recent :data:`_STARTS_KEPT` are kept.
_STARTS: OrderedDict[tuple[str, str], Any] = OrderedDict()
_STARTS_KEPT = 256


def best_start(
    paper: Paper | str, inst: Any, runs: Mapping[str, Any] | None = None
) -> Any:
    """The MIP start to pass to ``paper.solve_offline(inst, start=...)``, or None.

    ``paper.default_start(inst, runs)`` (the paper's rule, e.g. the best
    checked schedule of its online algorithms), None for a paper without
    one.  ``runs`` maps algorithm names to schedules of this very ``inst``
    already computed with default parameters (pass none when the horizon
    rule extended ``T`` after the runs: they were made for another
    instance); the rule runs what it needs beyond them.  The model never
    picks its start itself (it imports no algorithm).

    Without ``runs`` the start is computed once per process and instance
    (the rule is deterministic), so that the memo of
    :func:`optsched.core.experiment.optimum`, which keys on the ``start``
    object, is shared by every caller of one instance.
    """
    p = paper if isinstance(paper, Paper) else get_paper(paper)
    rule = p.default_start
    if rule is None:
        return None
    if runs is not None:
        return rule(inst, runs)
    key = (p.key, hashlib.sha256(inst.to_json().encode()).hexdigest())
    if key not in _STARTS:
        _STARTS[key] = rule(inst, None)
        while len(_STARTS) > _STARTS_KEPT:
            _STARTS.popitem(last=False)
    _STARTS.move_to_end(key)
    return _STARTS[key]


def _one_instance(task: tuple) -> list[dict[str, Any]]:
    key, j, seed, algorithms, time_limit, size = task
    paper = get_paper(key)
    inst = paper.generate(seed=seed, **size)
    runs = []
    for name in algorithms:
        t0 = time.perf_counter()
        sched = paper.run(name, inst)
        runs.append((name, sched, time.perf_counter() - t0))
    # the horizon rule: one instance every schedule fits, one optimum on it
    inst, extended = horizon.fit(inst, *(sched for _, sched, _ in runs))
    slots_used = horizon.n_slots(inst)
    # the MIP start: the paper's start rule, reusing the runs made on this T
    done = None if extended else {name: sched for name, sched, _ in runs}
    start = best_start(paper, inst, done)
    opt = paper.solve_offline(inst, time_limit=time_limit, start=start)
    rows = []
    for name, sched, runtime in runs:
        declared = declared_violation(sched)
        try:
            alg = float(paper.check(inst, sched).objective)
        except InfeasibleScheduleError as exc:
            if declared is None:
                raise
            alg, declared = math.nan, f"{declared}: {exc}"
            cols = {
                "ratio": math.nan,
                "ratio_lo": math.nan,
                "ratio_hi": math.nan,
                "kind": "alg_infeasible",
            }
        else:
            if declared is not None:
                raise OptschedError(
                    f"instance {key} seed={seed} {size}: algorithm {name!r} "
                    f"declares {declared} but the checker accepts its schedule"
                )
            cols = ratio_columns(
                paper.sense,
                alg,
                opt.objective,
                opt.bound,
                opt.status,
                instance=f"{key} seed={seed} {size}",
                algorithm=name,
            )
        rows.append(
            {
                "paper": key,
                "instance": j,
                "seed": seed,
                "algorithm": name,
                "alg_objective": alg,
                "opt_objective": opt.objective,
                "opt_bound": opt.bound,
                "bound_kind": opt.bound_kind,
                "opt_status": opt.status,
                **cols,
                "horizon_extended": extended,
                "n_slots_used": slots_used,
                "alg_runtime_s": runtime,
                "opt_runtime_s": opt.runtime,
                "infeasible": declared or "",
                **size,
            }
        )
    return rows


def ratios(
    paper: str | Paper,
    *,
    n_instances: int = 10,
    seed: int = 0,
    algorithms: Sequence[str] | None = None,
    time_limit: float | None = 60.0,
    workers: int | None = 1,
    scheduler: Any = None,
    progress: bool = True,
    **size: Any,
) -> pd.DataFrame:
    """Empirical competitive ratios on ``n_instances`` random instances.

    Parameters
    ----------
    paper
        Registry key or the registered :class:`Paper`.  A modified copy
        (``dataclasses.replace``) is not honoured yet: each instance's task
        carries the key and fetches the registered paper again, so the
        copy's own algorithms raise ``KeyError`` and its other fields are
        ignored (known; ``tests/core/test_ratios_paper_copy.py``; register
        a variant in its slice, docs/getting_started.md).
    n_instances, seed
        Instance ``j`` is generated with seed ``seed + j``.
    algorithms
        Algorithm names (default: all of the paper's).
    time_limit
        Limit per offline solve (seconds); unproven solves give intervals.
    workers
        ``1`` = in this process (default, works in a plain script); ``N > 1``
        or ``None`` (one per CPU) = a pool of spawned processes, which needs
        the ``if __name__ == "__main__":`` guard in scripts.
    scheduler
        A Dask client or scheduler address: run on that cluster instead
        (:func:`optsched.core.sweep.map`).
    progress
        tqdm progress bar.
    **size
        Size keywords of the paper's ``generate`` (``n_jobs=...``); they also
        become columns of the table.

    Returns
    -------
    pandas.DataFrame
        One row per instance x algorithm, columns :data:`COLUMNS` + size keys.
        Same seed, same table, except the wall-clock columns ``alg_runtime_s``
        and ``opt_runtime_s`` (matched by
        :data:`optsched.core.experiment.VOLATILE`): the only columns that vary
        between runs.
    """
    p = paper if isinstance(paper, Paper) else get_paper(paper)
    algs = list(algorithms) if algorithms is not None else list(p.algorithms)
    for a in algs:
        if a not in p.algorithms:
            raise KeyError(
                f"{p.key}: unknown algorithm {a!r} (known: {', '.join(p.algorithms)})"
            )
    tasks = [
        (p.key, j, seed + j, algs, time_limit, dict(size)) for j in range(n_instances)
    ]
    results = sweep.map(
        _one_instance,
        tasks,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        desc=f"{p.key} ratios",
    )
    rows = [row for rs in results for row in rs]
    return pd.DataFrame(rows, columns=COLUMNS + list(size))


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Per-algorithm summary over the finite, proven ratios.

    ``mean_ratio`` / ``max_ratio`` summarise the proven finite ratios only;
    instances with an infinite ratio (the algorithm earns 0 while OPT > 0,
    ``kind`` ``alg_zero``/``opt_zero``) are counted in ``infinite`` instead of
    turning the mean into ``inf``; unproven solves count in ``interval``;
    schedules the checker rejected as their algorithm declared
    (``kind == "alg_infeasible"``, module docstring) count in ``infeasible``;
    rows checked on an instance whose horizon was extended (module
    docstring) count in ``horizon_extended`` (0 without that column).
    """
    kind = df["kind"] if "kind" in df else pd.Series("proven", index=df.index)
    extended = (
        df["horizon_extended"].eq(True)
        if "horizon_extended" in df
        else pd.Series(False, index=df.index)
    )
    finite = df[(kind == "proven") & df["ratio"].map(math.isfinite)]
    g = df.groupby(["paper", "algorithm"], sort=False)
    fg = finite.groupby(["paper", "algorithm"], sort=False)["ratio"]
    return pd.DataFrame(
        {
            "instances": g.size(),
            "proven": g["opt_status"].apply(lambda s: int((s == "optimal").sum())),
            "infinite": kind.groupby([df["paper"], df["algorithm"]], sort=False).apply(
                lambda s: int(s.isin(["alg_zero", "opt_zero"]).sum())
            ),
            "interval": kind.groupby([df["paper"], df["algorithm"]], sort=False).apply(
                lambda s: int((s == "interval").sum())
            ),
            "infeasible": kind.groupby(
                [df["paper"], df["algorithm"]], sort=False
            ).apply(lambda s: int((s == "alg_infeasible").sum())),
            "horizon_extended": extended.groupby(
                [df["paper"], df["algorithm"]], sort=False
            ).apply(lambda s: int(s.sum())),
            "mean_ratio": fg.mean(),
            "median_ratio": fg.median(),
            "max_ratio": fg.max(),
            "ratio_lo_min": g["ratio_lo"].min(),
            "ratio_hi_max": g["ratio_hi"].max(),
        }
    ).reset_index()
