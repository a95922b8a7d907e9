"""Worst-case instance search: certified lower bounds on an online algorithm's competitive ratio.

:func:`worst_case` searches the instance space of a paper for an instance
on which ``algorithm`` does badly against the certified offline optimum.
Every candidate instance goes through the slice's validation (it is built
by the slice's ``mutate``/``generate``), the algorithm, the paper's checker
and ``solve_offline`` (one HiGHS thread, so that a solve is reproducible).
The objective of the search is the *certified* ratio of a candidate:

* the ratio itself (``ALG/OPT`` for min, ``OPT/ALG`` for max) when HiGHS
  proved optimality;
* otherwise the lower end of the ratio interval (``ALG/incumbent`` for min,
  ``incumbent/ALG`` for max), which the true ratio can only exceed;
* ``inf`` for a proven ``OPT > 0`` against ``ALG = 0`` (max; ``kind ==
  "alg_zero"``), and NaN -- never better than anything -- when no ratio is
  certified (no incumbent, or a schedule the algorithm declared infeasible).

So the best ratio a search reports is a certified lower bound on the
algorithm's worst-case ratio, for instances of that size.

Methods
-------
``anneal``
    Simulated annealing on the slice's ``mutate`` (one small valid change of
    one job or one capacity), in the spirit of PISA's adversarial instance
    search for task-graph schedulers.  Each step draws ``batch`` neighbours
    of the current instance, evaluates them (in parallel through
    :func:`optsched.core.sweep.map`: local processes or a Dask cluster),
    moves to the best one if it is better, or with the Metropolis
    probability ``exp(-(log r_cur - log r_new) / temperature)`` otherwise;
    the temperature falls geometrically from ``t_start`` to ``t_end`` (in
    units of ``log ratio``).  Every random draw happens in the driver, in a
    fixed order, and ``batch`` does not depend on the number of workers, so
    a seed gives the same trace with any number of workers or a cluster.

``evolve``
    A genetic algorithm over the slice's *generator parameters*
    (``Paper.search_space``: e.g. utility ranges, arrival window, GPU mix,
    and the generator's own seed), with optuna's ``NSGAIISampler`` (seeded;
    single objective: the ``log`` certified ratio).  optuna rather than
    nevergrad: its ask/tell interface lets each batch of candidates be
    evaluated through :func:`optsched.core.sweep.map` and told back in a
    fixed order (so the trace is reproducible), its distributions handle
    integer, float and log-scaled parameters natively, and its wheel is on
    the workplace's package mirror.  ``batch`` candidates are asked per
    step; a parameter vector the generator rejects is told as a failure
    (trace kind ``invalid``).  The trace's ``mutation`` column holds the
    parameters as JSON.

The trace (:data:`TRACE_COLUMNS`, one row per evaluation) holds no wall
times, so the same seed writes the same CSV byte for byte.

This module is the search only.  Its plots and claim value live in
:mod:`optsched.core.search_plots` (re-exported here: :func:`plot_trace`,
:func:`plot_traces`, :func:`worst_found`), the figure specs
``worst_case_<key>`` in :mod:`optsched.core.worst_case_spec`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from . import horizon, sweep
from .errors import InfeasibleScheduleError, InvalidInstanceError, OptschedError
from .ratio import best_start, declared_violation, ratio_columns
from .registry import Paper, get_paper
from .search_plots import plot_trace, plot_traces, worst_found  # noqa: F401 (re-exported)

METHODS = ("anneal", "evolve")
TRACE_COLUMNS = [
    "eval", "step", "method", "parent", "mutation", "instance_sha", "kind",
    "opt_status", "alg_objective", "opt_objective", "opt_bound", "bound_kind",
    "ratio", "ratio_lo", "ratio_hi", "certified", "temperature", "accepted", "current",
    "best", "error",
]  # fmt: skip


@dataclass(frozen=True)
class SearchSpace:
    """Generator parameters the ``evolve`` method searches (a slice's ``search_space``).

    Attributes
    ----------
    params
        Name -> ``(lo, hi, kind)``; kind ``"int"``, ``"float"`` or ``"log"``
        (a float searched on a log scale).
    build
        ``build(params, **size) -> instance``: the slice's generator called
        with these parameters; raises ``InvalidInstanceError`` for a
        combination it rejects.
    """

    params: Mapping[str, tuple[float, float, str]]
    build: Callable[..., Any]

    def distributions(self) -> dict[str, Any]:
        """optuna distributions of :attr:`params`."""
        from optuna.distributions import FloatDistribution, IntDistribution

        out: dict[str, Any] = {}
        for name, (lo, hi, kind) in self.params.items():
            if kind == "int":
                out[name] = IntDistribution(int(lo), int(hi))
            elif kind in ("float", "log"):
                out[name] = FloatDistribution(float(lo), float(hi), log=kind == "log")
            else:
                raise ValueError(
                    f"search_space[{name!r}]: kind int/float/log, got {kind!r}"
                )
        return out


@dataclass(frozen=True, eq=False)
class WorstCaseResult:
    """The outcome of :func:`worst_case`.

    Attributes
    ----------
    paper, algorithm, method, seed, size
        What was searched.
    instance
        The instance with the largest certified ratio found.
    ratio
        Its certified ratio (a lower bound on the algorithm's worst-case
        ratio, module docstring).
    status, kind
        The offline solve's status on that instance and the row kind
        (``proven``, ``interval``, ``alg_zero``).
    proven_bound
        The paper's proven competitive bound for the algorithm, as text
        (``Paper.proven_bound``), or None where the paper proves none.
    trace
        One row per evaluation (:data:`TRACE_COLUMNS`).
    failures
        ``(error, instance)`` of every candidate on which the algorithm
        raised (trace kind ``alg_error``): bugs or unhandled cases found by
        the search.
    """

    paper: str
    algorithm: str
    method: str
    seed: int
    size: dict[str, Any]
    instance: Any
    ratio: float
    status: str
    kind: str
    proven_bound: str | None
    trace: pd.DataFrame = field(repr=False)
    failures: list[tuple[str, Any]] = field(default_factory=list, repr=False)

    @property
    def n_evals(self) -> int:
        """Evaluations made."""
        return len(self.trace)


def sha(inst: Any) -> str:
    """Short content hash of an instance (its JSON)."""
    return hashlib.sha256(inst.to_json().encode()).hexdigest()[:12]


def certified_ratio(row: dict[str, Any]) -> float:
    """The search objective of an evaluated row (module docstring)."""
    kind = row["kind"]
    if kind == "proven":
        return float(row["ratio"])
    if kind == "interval":
        return float(row["ratio_lo"])
    if kind in ("alg_zero", "opt_zero"):
        return math.inf
    return math.nan


#: Row of a parameter vector the generator rejected (``evolve``).
_INVALID: dict[str, Any] = {"instance_sha": "", "kind": "invalid", "opt_status": "",
            "alg_objective": math.nan, "opt_objective": math.nan, "opt_bound": math.nan,
            "bound_kind": "none",
            "ratio": math.nan, "ratio_lo": math.nan, "ratio_hi": math.nan,
            "certified": math.nan, "error": ""}  # fmt: skip


def evaluate(
    paper: Paper | str, algorithm: str, inst: Any, *, time_limit: float | None
) -> dict[str, Any]:
    """Run, check and solve one instance: the ratio columns and the certified ratio.

    The horizon rule (:mod:`optsched.core.horizon`) applies: a run past the
    instance's ``T`` is checked, and the optimum solved, on ``inst`` with
    ``T`` extended to the run's makespan; the row's ``horizon_extended`` and
    ``n_slots_used`` say so (they are not columns of the search trace,
    :data:`TRACE_COLUMNS`; re-evaluating the instance reproduces them).
    A schedule the checker rejects raises (a bug), unless the algorithm
    declared the violation (:func:`optsched.core.ratio.declared_violation`):
    then ``kind == "alg_infeasible"`` and the certified ratio is NaN.  An
    algorithm that raises on the instance gives ``kind == "alg_error"``
    with the exception in ``error`` (the search records such instances in
    :attr:`WorstCaseResult.failures` instead of stopping).
    """
    p = paper if isinstance(paper, Paper) else get_paper(paper)
    try:
        sched = p.run(algorithm, inst)
    except Exception as exc:  # an instance that crashes the algorithm is a finding
        opt = p.solve_offline(
            inst, time_limit=time_limit, threads=1, start=best_start(p, inst)
        )
        return {**_INVALID, "instance_sha": sha(inst), "kind": "alg_error",
                "opt_status": opt.status, "opt_objective": float(opt.objective),
                "opt_bound": float(opt.bound), "bound_kind": opt.bound_kind,
                "horizon_extended": False,
                "n_slots_used": horizon.n_slots(inst),
                "error": f"{type(exc).__name__}: {exc}"}  # fmt: skip
    fitted, extended = horizon.fit(inst, sched)
    opt = p.solve_offline(
        fitted, time_limit=time_limit, threads=1, start=best_start(p, fitted)
    )
    declared = declared_violation(sched)
    try:
        alg = float(p.check(fitted, sched).objective)
    except InfeasibleScheduleError:
        if declared is None:
            raise
        cols = {"ratio": math.nan, "ratio_lo": math.nan, "ratio_hi": math.nan,
                "kind": "alg_infeasible"}  # fmt: skip
        alg = math.nan
    else:
        if declared is not None:
            raise OptschedError(
                f"{p.key}: algorithm {algorithm!r} declares {declared} but the checker "
                "accepts its schedule"
            )
        cols = ratio_columns(
            p.sense, alg, opt.objective, opt.bound, opt.status,
            instance=f"{p.key} {sha(inst)}", algorithm=algorithm,
        )  # fmt: skip
    row = {
        "error": "",
        "instance_sha": sha(inst),
        "opt_status": opt.status,
        "alg_objective": alg,
        "opt_objective": float(opt.objective),
        "opt_bound": float(opt.bound),
        "bound_kind": opt.bound_kind,
        **cols,
        "horizon_extended": extended,
        "n_slots_used": horizon.n_slots(fitted),
    }
    row["certified"] = certified_ratio(row)
    return row


def _evaluate_task(task: tuple[str, str, str, float | None]) -> dict[str, Any]:
    key, algorithm, text, time_limit = task
    p = get_paper(key)
    return evaluate(
        p, algorithm, p.instance_type.from_json(text), time_limit=time_limit
    )


def _score(r: float) -> float:
    """``log r`` for comparisons; NaN (no certified ratio) is the worst."""
    if math.isnan(r):
        return -math.inf
    return math.log(max(r, 1e-300))


def _accept(cur: float, new: float, temperature: float, u: float) -> bool:
    """Metropolis rule on log ratios (maximisation); ``u`` is the pre-drawn uniform."""
    sc, sn = _score(cur), _score(new)
    if sn >= sc:
        return sn > -math.inf
    if sc == math.inf or temperature <= 0:
        return False
    return u < math.exp((sn - sc) / temperature)


def worst_case(
    paper: Paper | str,
    algorithm: str,
    *,
    n_evals: int = 200,
    seed: int = 0,
    time_limit: float | None = 30.0,
    method: str = "anneal",
    batch: int = 4,
    t_start: float = 0.1,
    t_end: float = 0.001,
    start: Any = None,
    starts: int = 1,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    **size: Any,
) -> WorstCaseResult:
    """Search for the instance maximising ``algorithm``'s certified ratio.

    Parameters
    ----------
    paper
        Registry key or :class:`~optsched.core.registry.Paper` (needs
        ``mutate`` for ``anneal``, ``search_space`` for ``evolve``).
    algorithm
        One of the paper's algorithms.
    n_evals
        Instances evaluated in total (the start included).
    seed
        Seeds the start instance (``generate(seed=seed, **size)``) and every
        random draw of the search (``evolve``: the sampler).
    time_limit
        Per offline solve (seconds); unproven solves count with the lower
        end of their ratio interval.
    method
        ``"anneal"`` or ``"evolve"`` (module docstring).
    batch
        Candidates evaluated per step (in parallel).  Part of the search's
        definition: it does not follow ``workers``.
    t_start, t_end
        Annealing temperatures (``log ratio`` units), geometric in between.
    start
        ``anneal``: start instance instead of ``generate(seed=seed, **size)``.
    starts
        ``anneal``: evaluate the generated instances of seeds ``seed ..
        seed + starts - 1`` first and start from the worst (a plateau at
        ratio 1 -- every neighbour also 1 -- otherwise never moves).
    workers, scheduler, progress
        Passed to :func:`optsched.core.sweep.map`.
    **size
        Size keywords of the paper's ``generate``, ``mutate`` and
        ``search_space.build``.

    Returns
    -------
    WorstCaseResult
    """
    p = paper if isinstance(paper, Paper) else get_paper(paper)
    if algorithm not in p.algorithms:
        raise KeyError(
            f"{p.key}: unknown algorithm {algorithm!r} (known: {', '.join(p.algorithms)})"
        )
    if method not in METHODS:
        raise ValueError(f"method: one of {METHODS}, got {method!r}")
    if method == "anneal" and p.mutate is None:
        raise ValueError(
            f"{p.key}: the slice provides no mutate(); no annealing search"
        )
    if method == "evolve" and p.search_space is None:
        raise ValueError(
            f"{p.key}: the slice provides no search_space; no evolve search"
        )
    if n_evals < 1 or batch < 1 or starts < 1:
        raise ValueError(
            f"n_evals, batch and starts must be >= 1, got {n_evals}, {batch}, {starts}"
        )

    failures: list[tuple[str, Any]] = []
    # one pool for the whole search (a pool per batch re-imports each time),
    # sized for the largest batch; a Dask scheduler brings its own workers
    pool_ctx = (
        contextlib.nullcontext()
        if scheduler is not None
        else sweep.local_pool(workers, min(n_evals, max(batch, starts)))
    )

    def run(insts: list[Any]) -> list[dict[str, Any]]:
        tasks = [(p.key, algorithm, i.to_json(), time_limit) for i in insts]
        out = sweep.map(_evaluate_task, tasks, workers=workers, scheduler=scheduler,
                        progress=False, desc="worst case", pool=pool)  # fmt: skip
        failures.extend(
            (r["error"], i) for i, r in zip(insts, out, strict=True) if r["error"]
        )
        return out

    bar = sweep._bar(n_evals, progress, f"{p.key} {algorithm} worst case")
    with pool_ctx as pool:
        if method == "evolve":
            rows, best_inst, best_row = _evolve(p, run, n_evals, seed, batch, bar, size)
        else:
            rows, best_inst, best_row = _anneal(
                p, run, n_evals, seed, batch, (t_start, t_end), start, bar, size, starts
            )
    bar.close()
    return WorstCaseResult(
        paper=p.key,
        algorithm=algorithm,
        method=method,
        seed=seed,
        size=dict(size),
        instance=best_inst,
        ratio=float(best_row["certified"]),
        status=best_row["opt_status"],
        kind=best_row["kind"],
        proven_bound=p.proven_bound.get(algorithm),
        trace=pd.DataFrame(rows, columns=TRACE_COLUMNS),
        failures=failures,
    )


def _anneal(p, run, n_evals, seed, batch, temps, start, bar, size, starts=1):
    """Simulated annealing on ``p.mutate``: ``(rows, best instance, its row)``.

    With ``starts > 1`` the first ``starts`` evaluations are the generated
    instances of seeds ``seed .. seed + starts - 1`` and the search starts
    from the worst of them (first on ties).
    """
    t_start, t_end = temps
    rng = np.random.default_rng(seed)
    if start is not None:
        first_insts = [start]
    else:
        n0 = max(1, min(int(starts), n_evals))
        first_insts = [p.generate(seed=seed + j, **size) for j in range(n0)]
    firsts = run(first_insts)
    j0 = max(range(len(firsts)), key=lambda m: (_score(firsts[m]["certified"]), -m))
    cur_inst, first = first_insts[j0], firsts[j0]
    cur, cur_eval = first["certified"], j0
    best, best_inst, best_row = cur, cur_inst, first
    rows = []
    run_best = math.nan
    for m, res in enumerate(firsts):
        better = m == 0 or _score(res["certified"]) > _score(run_best)
        if better:
            run_best = res["certified"]
        mutation = "start" if len(firsts) == 1 else f"start seed {seed + m}"
        rows.append({**res, "eval": m, "step": 0, "method": "anneal", "parent": -1,
                     "mutation": mutation, "temperature": t_start, "accepted": better,
                     "current": run_best, "best": run_best})  # fmt: skip
    bar.update(len(firsts))
    n_steps = max(1, math.ceil((n_evals - len(firsts)) / batch))
    step = 0
    while len(rows) < n_evals:
        step += 1
        temp = t_start * (t_end / t_start) ** min(1.0, (step - 1) / max(1, n_steps - 1))
        k = min(batch, n_evals - len(rows))
        cands = [p.mutate(cur_inst, rng, **size) for _ in range(k)]
        u = float(rng.random())
        results = run(cands)
        j = max(range(k), key=lambda m: (_score(results[m]["certified"]), -m))
        take = _accept(cur, results[j]["certified"], temp, u)
        parent = cur_eval
        for m, (inst, res) in enumerate(zip(cands, results, strict=True)):
            e = len(rows)
            accepted = take and m == j
            if accepted:
                cur, cur_inst, cur_eval = res["certified"], inst, e
            if _score(res["certified"]) > _score(best):
                best, best_inst, best_row = res["certified"], inst, res
            rows.append({**res, "eval": e, "step": step, "method": "anneal",
                         "parent": parent, "mutation": inst.meta.get("mutation", ""),
                         "temperature": temp, "accepted": accepted, "current": cur,
                         "best": best})  # fmt: skip
        bar.update(k)
    return rows, best_inst, best_row


def _evolve(p, run, n_evals, seed, batch, bar, size):
    """Genetic search over ``p.search_space`` with optuna: ``(rows, best instance, its row)``."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = p.search_space
    dists = space.distributions()
    sampler = optuna.samplers.NSGAIISampler(population_size=max(4, batch), seed=seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    rows: list[dict[str, Any]] = []
    best, best_inst, best_row = math.nan, None, None
    step = 0
    while len(rows) < n_evals:
        k = min(batch, n_evals - len(rows))
        trials = [study.ask(dists) for _ in range(k)]
        insts: list[Any] = []
        for t in trials:
            try:
                insts.append(space.build(dict(t.params), **size))
            except InvalidInstanceError:
                insts.append(None)
        results = iter(run([i for i in insts if i is not None]))
        for t, inst in zip(trials, insts, strict=True):
            if inst is None:
                res = dict(_INVALID)
                study.tell(t, state=optuna.trial.TrialState.FAIL)
            else:
                res = next(results)
                score = _score(res["certified"])
                study.tell(t, -1.0 if score == -math.inf else min(score, 1e6))
                if best_row is None or score > _score(best):
                    best, best_inst, best_row = res["certified"], inst, res
            rows.append({**res, "eval": len(rows), "step": step, "method": "evolve",
                         "parent": -1, "mutation": json.dumps(t.params, sort_keys=True),
                         "temperature": math.nan, "accepted": inst is not None,
                         "current": res["certified"], "best": best})  # fmt: skip
        step += 1
        bar.update(k)
    if best_row is None:
        raise OptschedError(
            f"{p.key}: no valid instance in {n_evals} evolve evaluations"
        )
    return rows, best_inst, best_row


def result_summary(res: WorstCaseResult) -> dict[str, Any]:
    """A JSON-able summary (what the CLI prints and writes beside the instance)."""
    return {
        "paper": res.paper,
        "algorithm": res.algorithm,
        "method": res.method,
        "seed": res.seed,
        "size": res.size,
        "n_evals": res.n_evals,
        "worst_certified_ratio": res.ratio,
        "status": res.status,
        "kind": res.kind,
        "instance_sha": sha(res.instance),
        "paper_proven_bound": res.proven_bound,
        "start_ratio": float(res.trace["certified"].iloc[0]),
    }


def dumps_summary(res: WorstCaseResult) -> str:
    """:func:`result_summary` as indented JSON (``inf`` written as a string)."""
    d = result_summary(res)
    for k, v in d.items():
        if isinstance(v, float) and not math.isfinite(v):
            d[k] = str(v)
    return json.dumps(d, indent=1)


def trace_rows(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Experiment-layer task: the trace of one search, one row per evaluation.

    Task keys: ``paper``, ``algorithm``, ``method``, ``seed``, ``n_evals``,
    ``time_limit``, ``batch`` and ``size`` (a dict of the paper's size
    keywords).  Evaluations run in this process (the experiment layer
    already spreads tasks over processes).
    """
    res = worst_case(
        task["paper"],
        task["algorithm"],
        n_evals=int(task["n_evals"]),
        seed=int(task["seed"]),
        time_limit=task["time_limit"],
        method=task["method"],
        batch=int(task.get("batch", 4)),
        starts=int(task.get("starts", 1)),
        workers=1,
        progress=False,
        **dict(task["size"]),
    )
    return task_rows(res.trace, res.paper, res.algorithm, res.seed)


def task_rows(
    trace: pd.DataFrame, paper: str, algorithm: str, seed: int
) -> list[dict[str, Any]]:
    """The rows :func:`trace_rows` makes of a search's trace."""
    base = {"paper": paper, "algorithm": algorithm, "seed": seed}
    records = cast(list[dict[str, Any]], trace.to_dict("records"))
    return [{**base, **r} for r in records]


#: Text columns of a trace (read back as strings, empty for none).
TRACE_TEXT = (
    "method", "mutation", "instance_sha", "kind", "opt_status", "bound_kind", "error",
)  # fmt: skip


def read_trace(path: str | Path) -> pd.DataFrame:
    """A trace saved with ``trace.to_csv(path, index=False)`` (any compression
    pandas infers from the name), with the dtypes :func:`worst_case` gives.

    A trace written before the ``bound_kind`` column existed reads with
    ``bound_kind`` empty."""
    df = pd.read_csv(path, dtype=dict.fromkeys(TRACE_TEXT, str))
    if "bound_kind" not in df:
        df["bound_kind"] = ""
    for c in TRACE_TEXT:
        df[c] = df[c].fillna("")
    return df[TRACE_COLUMNS]
