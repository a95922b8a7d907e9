r"""Offline models of Luo et al. (A-SRPT): exact placement and scheduling MILPs.

Placement (Table II's "ILP")
----------------------------
The exact placement MILP of one job (the per-iteration time ``alpha`` of
Eq. (7), linear under reading 2) lives in
:mod:`optsched.models.asrpt_placement`, whose docstring states the model;
its functions are re-exported here.

Scheduling (problem (8) with (1)-(3), tiny instances)
------------------------------------------------------
:func:`build_schedule` is exact for (8) as stated -- whole-slot starts
``t_i`` (``t_i in [T]``), real completions ``t_i + n_i alpha_i``, GPUs held
on ``[t_i, C_i)`` (the checker's reading of (3)).  Two facts make it a
time-indexed MILP:

* only the GPUs per server ``u[m] = sum_s x_s^m`` of a placement matter to
  the other jobs, so for every usage vector ``u`` the job keeps the
  placement of least ``alpha`` (:func:`options`, by enumeration; a larger
  ``alpha`` with the same ``u`` only lengthens the job);
* loads only rise at starts, which are whole slots, so (3) at whole slots
  ``tau`` (jobs with ``t <= tau < t + d``) is (3) at every instant.

Variables ``y[i, o, t] = 1`` when job ``i`` starts at slot ``t`` with option
``o`` (duration ``d_io = n_i alpha_io / (1000 slot)``)::

    min  sum y[i, o, t] (t + d_io)
    s.t. sum_{o, t} y[i, o, t] = 1                               each job
         sum_{i, o, t: t <= tau < t + d_io} u_o[m] y[i, o, t] <= g  (3)

In formulas, with :math:`u_o^m` the GPUs option :math:`o` takes on
server :math:`m`:

.. math::

   \min \sum_{i,o,t} (t + d_{io}) \, y_{i,o,t}
   \quad \text{s.t.} \quad \sum_{o,t} y_{i,o,t} = 1 \ \ \forall i, \qquad
   \sum_{i,o,t :\, t \le \tau < t + d_{io}} u_o^m \, y_{i,o,t} \le g
   \ \ \forall m, \tau,

with ``t`` from ``r_i`` (1) to ``last_i = floor(UB - sum_{j != i} (r_j +
dmin_j) - dmin_i)``: every schedule of total at most ``UB`` (a checked
schedule's value) starts job ``i`` by then, so no optimal schedule is cut
off.  The optimum is the optimum of (8): reported ``optimal`` only when
HiGHS proves it.

Formulation v2 (``build_schedule(..., formulation="v2")``)
writes the same rows (3) with running sums ``S[i, o, t] = sum_{t' <= t}
y[i, o, t']`` (continuous, one equality row per start variable): option
``o`` of job ``i`` covers slot ``tau`` iff it starts in ``(tau - D_io,
tau]``, ``D_io = ceil(d_io)``, so its term is
``S[i, o, min(tau, last_i)] - S[i, o, tau - D_io]`` (0 before ``r_i``): two terms per job option
instead of ``D_io`` (v1, the rows above).  ``S`` is a linear function of
``y``, so both formulations have the same feasible set in ``y`` and the
same LP relaxation; v2's rows are written only where the jobs that can
run in ``tau`` could use more than ``g`` GPUs of the server (a skipped row
holds for every LP point too: job ``i`` uses at most ``max_o u_o[m]``
times its one unit of start weight).

Formulation v3 (the default) is v2 with the servers' symmetry fixed on job 0: the
servers are identical, so renumbering them maps every schedule to one of
the same value (:func:`relabel_servers`); v3 keeps only job 0's options
whose GPUs per server do not increase (every schedule has a renumbering
with that property), and :func:`solve_offline` renumbers the start so.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pyomo.environ as pyo
from optsched.models.asrpt_placement import build_placement, solve_placement
from pyomo.common.collections import ComponentMap

from optsched.asrpt.bounds import lower_bound
from optsched.asrpt.check import check
from optsched.asrpt.instance import AsrptInstance
from optsched.asrpt.schedule import AsrptSchedule
from optsched.asrpt.timing import Cluster, Stage, stage_times
from optsched.core.base import (
    OfflineResult,
    best_bound,
    certified_solve,
    start_objective,
)
from optsched.core.confirm import check_confirm
from optsched.core.solver import Deadline, DeadlineExceeded, timed_out

__all__ = [
    "build_placement",
    "DEFAULT_FORMULATION",
    "FORMULATIONS",
    "FORMULATION_NAMES",
    "build_schedule",
    "modelled",
    "options",
    "placements",
    "serial_schedule",
    "solve_offline",
    "solve_placement",
    "relabel_servers",
    "start_values",
]


# ------------------------------------------------------------------ scheduling
def placements(stages: Sequence[Stage], free: Sequence[int]):
    """Every placement ``x[s, m]`` of the stages within ``free[m]`` GPUs (enumeration)."""
    M = len(free)

    def splits(k: int):
        for c in itertools.product(range(k + 1), repeat=M):
            if sum(c) == k:
                yield c

    cap = np.asarray(free)
    for rows in itertools.product(*(list(splits(st.k)) for st in stages)):
        x = np.array(rows, dtype=np.int64).reshape(len(stages), M)
        if (x.sum(axis=0) <= cap).all():
            yield x


def options(
    stages: Sequence[Stage], cluster: Cluster
) -> list[tuple[tuple[int, ...], np.ndarray, float]]:
    """``(u, x, alpha)`` per usage vector ``u``: the least-``alpha`` placement using ``u``."""
    best: dict[tuple[int, ...], tuple[np.ndarray, float]] = {}
    for x in placements(stages, [cluster.gpus] * cluster.n_servers):
        u = tuple(int(v) for v in x.sum(axis=0))
        a = float(stage_times(tuple(stages), x, cluster).max())
        if u not in best or a < best[u][1] - 1e-12:
            best[u] = (x, a)
    return [(u, x, a) for u, (x, a) in sorted(best.items())]


def build_schedule(
    inst: AsrptInstance,
    upper: float,
    *,
    max_variables: int | None = None,
    max_nonzeros: int | None = None,
    deadline: Deadline | None = None,
    formulation: str | None = None,
) -> tuple[pyo.ConcreteModel | None, list]:
    """Time-indexed MILP of (8) (module docstring); ``upper`` a schedule's value.

    Returns the model and, per job, its options ``(u, x, alpha)``; the model
    is None when it would have more than ``max_variables`` start variables
    or more than ``max_nonzeros`` terms in its capacity rows (3).
    ``formulation`` (:data:`FORMULATION_NAMES`) says how (3) is written:
    ``"v1"`` sums the start variables of every start that covers the slot
    (one term per start variable, slot it covers and server it uses: long
    jobs make many); ``"v2"`` writes the same rows with the
    running sums ``S`` of the module docstring, two terms per job option.
    Both have the same feasible set and LP relaxation (``S`` is a linear
    function of ``y``).  ``"v3"`` is v2 with job 0's options restricted to
    non-increasing GPUs per server (server symmetry fixed; a start must be
    renumbered by :func:`relabel_servers` to map onto it).  None:
    :data:`DEFAULT_FORMULATION`.

    Raises
    ------
    DeadlineExceeded
        When ``deadline`` runs out while building (checked per job, per start
        variable and every 4,096 covered slots).
    """
    formulation = _formulation_name(formulation)
    dl = Deadline(None) if deadline is None else deadline
    c = inst.cluster
    opts = []
    for job in inst.jobs:
        dl.check("enumerating placements")
        opts.append(options(job.stages, c))
    if formulation == "v3" and opts:
        opts[0] = [o for o in opts[0] if _descending(o[0])]
    dur = [[float(inst.slots(job.iterations, a)) for _, _, a in o]
           for job, o in zip(inst.jobs, opts, strict=True)]  # fmt: skip
    dmin = [min(d) for d in dur]
    base = sum(j.arrival + d for j, d in zip(inst.jobs, dmin, strict=True))
    last = [
        max(
            j.arrival, math.floor(upper - (base - j.arrival - dmin[i]) - dmin[i] + 1e-9)
        )
        for i, j in enumerate(inst.jobs)
    ]
    count = sum(
        len(opts[i]) * (last[i] - j.arrival + 1) for i, j in enumerate(inst.jobs)
    )
    if max_variables is not None and count > max_variables:
        return None, opts
    if max_nonzeros is not None:
        per_start = 2 if formulation != "v1" else None
        nonzeros = sum(
            (last[i] - j.arrival + 1)
            * (per_start or math.ceil(d - 1e-12))
            * sum(1 for v in u if v)
            for i, j in enumerate(inst.jobs)
            for (u, _, _), d in zip(opts[i], dur[i], strict=True)
        )
        if nonzeros > max_nonzeros:
            return None, opts
    keys = [
        (i, o, t)
        for i, j in enumerate(inst.jobs)
        for o in range(len(opts[i]))
        for t in range(j.arrival, last[i] + 1)
    ]
    mod = pyo.ConcreteModel(name="asrpt_schedule_8")
    mod.K = pyo.Set(initialize=keys, dimen=3)
    mod.y = pyo.Var(mod.K, domain=pyo.Binary)
    by_job: dict[int, list] = {}
    for key in keys:
        by_job.setdefault(key[0], []).append(key)
    mod.once = pyo.Constraint(
        list(by_job), rule=lambda _, i: sum(mod.y[k] for k in by_job[i]) == 1
    )
    if formulation != "v1":
        _running_sum_rows(mod, inst, opts, dur, last, keys, dl)
    else:
        _window_rows(mod, inst, opts, dur, keys, dl)
    mod.obj = pyo.Objective(
        expr=sum(
            (t + dur[i][o]) * mod.y[i, o, t]
            for i, o, t in dl.iterate(keys, "building the objective (8)")
        )
    )
    return mod, opts


def _window_rows(
    mod: pyo.ConcreteModel,
    inst: AsrptInstance,
    opts: list,
    dur: list[list[float]],
    keys: list,
    dl: Deadline,
) -> None:
    """Formulation v1 of (3): per server and slot, the starts that cover it."""
    c = inst.cluster
    active: dict[tuple[int, int], list] = {}
    for i, o, t in dl.iterate(keys, "building the capacity rows (3)", every=1):
        u = opts[i][o][0]
        used = [m for m in range(c.n_servers) if u[m]]
        taus = range(t, math.ceil(t + dur[i][o] - 1e-12))
        for tau in dl.iterate(taus, "building the capacity rows (3)", every=4096):
            for m in used:
                active.setdefault((m, tau), []).append(((i, o, t), u[m]))
    rows = [mt for mt, terms in active.items() if sum(v for _, v in terms) > c.gpus]
    mod.cap = pyo.Constraint(
        rows,
        rule=dl.rule(
            lambda _, m, tau: sum(v * mod.y[k] for k, v in active[m, tau]) <= c.gpus
        ),
    )
    dl.check("building the capacity rows (3)")


def _running_sum_rows(
    mod: pyo.ConcreteModel,
    inst: AsrptInstance,
    opts: list,
    dur: list[list[float]],
    last: list[int],
    keys: list,
    dl: Deadline,
) -> None:
    """Formulation v2 of (3): running sums ``S`` of the starts (module docstring).

    ``S[i, o, t] = sum_{t' <= t} y[i, o, t']`` (continuous; a row per key),
    and option ``o`` of job ``i`` runs in slot ``tau`` iff it started in
    ``(tau - D_io, tau]``, ``D_io = ceil(d_io)`` slots:
    ``S[i, o, min(tau, last_i)] - S[i, o, tau - D_io]`` (0 below ``r_i``).
    A row is written only where the jobs that can run in ``tau`` could use
    more than ``g`` GPUs of the server (each job runs one option).
    """
    c = inst.cluster
    jobs = inst.jobs
    mod.S = pyo.Var(mod.K, bounds=(0.0, 1.0))

    def link(_, i, o, t):
        before = mod.S[i, o, t - 1] if t > jobs[i].arrival else 0.0
        return mod.S[i, o, t] == before + mod.y[i, o, t]

    mod.running = pyo.Constraint(mod.K, rule=dl.rule(link))
    span = [
        [math.ceil(d - 1e-12) for d in dur[i]] for i in range(inst.n_jobs)
    ]  # fmt: skip

    def S_at(i: int, o: int, tau: int):
        if tau < jobs[i].arrival:
            return 0.0
        return mod.S[i, o, min(tau, last[i])]

    # (m, tau) -> [(i, o, u_o[m])] of the options that can run in tau on m
    terms: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for i, j in enumerate(jobs):
        dl.check("building the capacity rows (3)")
        for o, (u, _, _) in enumerate(opts[i]):
            for tau in range(j.arrival, last[i] + span[i][o]):
                for m in range(c.n_servers):
                    if u[m]:
                        terms.setdefault((m, tau), []).append((i, o, u[m]))
    rows = []
    for (m, tau), got in terms.items():
        most: dict[int, int] = {}
        for i, _, v in got:
            most[i] = max(most.get(i, 0), v)
        if sum(most.values()) > c.gpus:
            rows.append((m, tau))

    def cap(_, m, tau):
        return (
            sum(
                v * (S_at(i, o, tau) - S_at(i, o, tau - span[i][o]))
                for i, o, v in terms[m, tau]
            )
            <= c.gpus
        )

    mod.cap = pyo.Constraint(rows, rule=dl.rule(cap))
    dl.check("building the capacity rows (3)")


#: The formulations of (3) in :func:`build_schedule` (module docstring).
FORMULATION_NAMES: tuple[str, ...] = ("v1", "v2", "v3")
#: The one :func:`solve_offline` uses unless told otherwise.
DEFAULT_FORMULATION = "v3"


def _descending(u: Sequence[int]) -> bool:
    """Whether the usage vector ``u`` is non-increasing over the servers."""
    return all(a >= b for a, b in zip(u, u[1:], strict=False))


def relabel_servers(sched: AsrptSchedule) -> AsrptSchedule:
    """``sched`` with the servers renumbered so job 0's GPUs per server do not increase.

    The servers are identical (one ``g``, one ``b_inter``, one ``b_intra``)
    and Eqs. (4)-(7) depend on a placement only through its per-server
    columns, so a renumbering keeps every constraint and every ``alpha``:
    the value is the same (formulation v3 of :func:`build_schedule`).
    """
    if not sched.start:
        return sched
    used: dict[int, int] = {}
    for j, m in enumerate(sched.servers[0]):
        used[m] = int(np.asarray(sched.x[0])[:, j].sum())
    M = 1 + max([m for srv in sched.servers for m in srv], default=0)
    order = sorted(range(M), key=lambda m: (-used.get(m, 0), m))
    new = {old: k for k, old in enumerate(order)}
    servers, xs = [], []
    for srv, x in zip(sched.servers, sched.x, strict=True):
        cols = sorted(range(len(srv)), key=lambda j: new[srv[j]])
        servers.append(tuple(new[srv[j]] for j in cols))
        xs.append(np.asarray(x)[:, cols])
    return AsrptSchedule(sched.start, tuple(servers), tuple(xs), dict(sched.meta))


def _formulation_name(name: str | None) -> str:
    """``name`` (None: :data:`DEFAULT_FORMULATION`); ValueError naming the field if unknown."""
    form = DEFAULT_FORMULATION if name is None else name
    if form not in FORMULATION_NAMES:
        raise ValueError(
            f"formulation: must be one of {FORMULATION_NAMES}, got {form!r}"
        )
    return form


#: Largest model :func:`solve_offline` builds: placements enumerated over all
#: jobs, start-option variables of the time-indexed MILP, and terms of its
#: capacity rows (3) (a job of ``d`` slots puts ``d`` terms per server it
#: uses into every one of its start variables; 10**7 iterations of the demo
#: instance would need about 10**8).
MAX_PLACEMENTS = 20_000
MAX_VARIABLES = 200_000
MAX_NONZEROS = 2_000_000


def _n_placements(stages: Sequence[Stage], M: int) -> int:
    return math.prod(math.comb(st.k + M - 1, M - 1) for st in stages)


def modelled(inst: AsrptInstance) -> bool:
    """Whether :func:`options` of every job is within :data:`MAX_PLACEMENTS`
    placements in all (else :func:`solve_offline` does not enumerate them)."""
    M = inst.cluster.n_servers
    return sum(_n_placements(j.stages, M) for j in inst.jobs) <= MAX_PLACEMENTS


def serial_schedule(
    inst: AsrptInstance, opts: Sequence[list] | None = None
) -> AsrptSchedule:
    """A feasible schedule without an algorithm: one job at a time.

    Jobs in arrival order (ties: index) each take their least-``alpha``
    placement (:func:`options`; the first on ties) on the otherwise empty
    cluster, starting at the first whole slot at or after both their
    arrival and the previous job's completion.  Only one job runs at any
    instant, so (3) holds; the value bounds the horizon of
    :func:`build_schedule` when the caller gives no start.
    """
    opts = (
        [options(j.stages, inst.cluster) for j in inst.jobs] if opts is None else opts
    )
    n = inst.n_jobs
    servers: list[tuple[int, ...]]
    start, servers, xs = [0] * n, [()] * n, [np.zeros((0, 0))] * n
    free_at = 0.0
    for i in sorted(range(n), key=lambda i: (int(inst.jobs[i].arrival), i)):
        job = inst.jobs[i]
        dur = [float(inst.slots(job.iterations, a)) for _, _, a in opts[i]]
        u, x, _ = opts[i][int(np.argmin(dur))]
        used = [m for m in range(len(u)) if u[m]]
        start[i] = max(int(job.arrival), math.ceil(free_at))
        servers[i], xs[i] = tuple(used), x[:, used]
        free_at = start[i] + min(dur)
    return AsrptSchedule(
        tuple(start), tuple(servers), tuple(xs), {"algorithm": "serial"}
    )


def solve_offline(
    inst: AsrptInstance,
    *,
    time_limit: float | None = 60.0,
    start: AsrptSchedule | None = None,
    threads: int | None = 1,
    verbose: bool = False,
    confirm: str | None = None,
    formulation: str | None = None,
) -> OfflineResult:
    """Exact offline optimum of (8) for small instances (:func:`build_schedule`).

    The steps are :func:`optsched.core.base.certified_solve`'s.  ``start``
    is a checked schedule of ``inst`` (the harness passes the best of the
    registered online algorithms, :func:`optsched.asrpt.paper.default_start`);
    its value bounds the horizon of the model, HiGHS gets it as MIP start
    (:func:`start_values`) and it is the incumbent when HiGHS stops without
    a better one.  Without
    ``start`` the :func:`serial_schedule` plays that part.  The reported
    ``bound`` of an unproven solve is the larger (``bound_kind`` ``milp``
    or ``combinatorial``) of HiGHS's bound and
    :func:`optsched.asrpt.bounds.lower_bound` (valid for (8) as modelled,
    as that module's docstring argues).

    ``time_limit`` covers everything from the call on: the serial schedule,
    the placement enumeration, the model building and HiGHS (which gets
    what is left).  When it runs out, or HiGHS stops without a better
    incumbent, the result is ``status="time_limit"`` with the start as
    incumbent (when there is one) and the certified lower bound.

    Larger instances (more than :data:`MAX_PLACEMENTS` placements to
    enumerate, :data:`MAX_VARIABLES` start variables or
    :data:`MAX_NONZEROS` capacity-row terms) are not modelled: the result is
    then ``status="time_limit"`` (not proven) with ``start`` as incumbent
    (None without one) and the certified lower bound as ``bound``, so the
    ratio harness reports the interval ``[ALG / start, ALG / lower_bound]``.

    An instance without jobs has the empty schedule, optimal with value 0.

    Parameters
    ----------
    inst, time_limit, start
        The instance, the budget in seconds (None = none), the start (above).
    threads, verbose
        HiGHS threads (default 1); show the HiGHS log.
    confirm
        None, or ``"scip"``: SCIP re-solves the model HiGHS proved optimal
        and a different proven optimum is a
        :class:`~optsched.core.errors.SolverError` (unchanged result when
        SCIP proves nothing in time; ``pip install optsched[scip]``).
    formulation
        How :func:`build_schedule` writes (3): ``"v1"``, ``"v2"`` or ``"v3"`` (None:
        :data:`DEFAULT_FORMULATION`).

    Raises
    ------
    optsched.InfeasibleScheduleError
        If ``start`` fails the checker (``"start: ..."``).
    ValueError
        If ``confirm`` is neither None nor ``"scip"``, or ``formulation`` is
        not one of :data:`FORMULATION_NAMES`.
    """
    check_confirm(confirm)
    form = _formulation_name(formulation)
    deadline = Deadline(time_limit)
    ub = start_objective(inst, start, check)
    if inst.n_jobs == 0:
        empty = AsrptSchedule((), (), (), {"algorithm": "milp"})
        value = check(inst, empty).objective
        return OfflineResult(value, value, "optimal", deadline.elapsed(), empty)
    if not modelled(inst):
        return _not_modelled(inst, start, ub, deadline)
    got = _model_start(inst, start, deadline, form)
    if isinstance(got, OfflineResult):
        return got
    start, ub = got
    opts: list = []

    def build(dl: Deadline) -> pyo.ConcreteModel | OfflineResult:
        mod, found = build_schedule(
            inst, ub, max_variables=MAX_VARIABLES, max_nonzeros=MAX_NONZEROS,
            deadline=dl, formulation=form,
        )  # fmt: skip
        if mod is None:
            return _not_modelled(inst, start, ub, dl)
        opts[:] = found
        return mod

    def extract(mod: pyo.ConcreteModel) -> AsrptSchedule:
        n = inst.n_jobs
        servers: list[tuple[int, ...]]
        begin, servers, xs = [0] * n, [()] * n, [np.zeros((0, 0))] * n
        for i, o, t in mod.K:
            if pyo.value(mod.y[i, o, t]) > 0.5:
                u, x, _ = opts[i][o]
                used = [m for m in range(len(u)) if u[m]]
                begin[i], servers[i], xs[i] = t, tuple(used), x[:, used]
        return AsrptSchedule(tuple(begin), tuple(servers), tuple(xs),
                             {"algorithm": "milp"})  # fmt: skip

    out = certified_solve(
        inst,
        build=build,
        extract=extract,
        check=check,
        sense="min",
        time_limit=time_limit,
        start=start,
        start_values=lambda mod, sched: start_values(mod, opts, sched),
        bound=lambda: lower_bound(inst)["lower_bound"],
        deadline=deadline,
        threads=threads,
        verbose=verbose,
        confirm=confirm,
    )
    return _error_bound(inst, out) if out.status == "error" else out


def start_values(
    mod: pyo.ConcreteModel, opts: Sequence[list], sched: AsrptSchedule
) -> ComponentMap:
    """The MIP start of :func:`build_schedule`'s model from a checked schedule.

    Job ``i`` keeps its start slot and takes the option with its usage
    vector ``u`` (GPUs per server of its placement): that option's ``alpha``
    is at most the placement's (:func:`options` keeps the least), so the job
    ends no later and (3) still holds; the value is at most the schedule's,
    so every start lies in the model's horizon.  Every variable gets a value
    (``S`` of formulation v2 too).  None when a job's start or option is not
    in the model (a schedule not of this instance; the solve goes on without
    a start).
    """
    chosen: dict[int, tuple[int, int]] = {}
    for i, (start, servers, x) in enumerate(
        zip(sched.start, sched.servers, sched.x, strict=True)
    ):
        u = [0] * len(opts[i][0][0]) if opts[i] else []
        for j, m in enumerate(servers):
            u[m] += int(np.asarray(x)[:, j].sum())
        found = [o for o, (uo, _, _) in enumerate(opts[i]) if list(uo) == u]
        if not found or (i, found[0], int(start)) not in mod.y:
            return None
        chosen[i] = (found[0], int(start))
    values = ComponentMap()
    for (i, o, t), var in mod.y.items():
        values[var] = float(chosen[i] == (o, t))
    if hasattr(mod, "S"):
        for (i, o, t), var in mod.S.items():
            values[var] = float(chosen[i][0] == o and t >= chosen[i][1])
    return values


#: Name -> ``solve_offline``-like callable, one per formulation of (3)
#: (``benchmarks/frontier.py`` compares them).
FORMULATIONS: dict[str, Callable[..., OfflineResult]] = {
    name: functools.partial(solve_offline, formulation=name)
    for name in FORMULATION_NAMES
}


def _model_start(
    inst: AsrptInstance, start: AsrptSchedule | None, deadline: Deadline, form: str
) -> tuple[AsrptSchedule, float] | OfflineResult:
    """The start :func:`solve_offline` models with, and its value.

    ``start``, or without one :func:`serial_schedule` (the timed-out result
    when the budget ends first); renumbered by :func:`relabel_servers` for
    formulation v3 (same value).
    """
    if start is None:
        try:
            deadline.check("building the serial schedule")
            start = serial_schedule(inst)
        except DeadlineExceeded:
            lb = lower_bound(inst)["lower_bound"]
            return replace(timed_out(deadline, lb), bound_kind="combinatorial")
    if form == "v3":  # the start on servers numbered as v3's job 0 needs
        start = relabel_servers(start)
    return start, start_objective(inst, start, check)


def _error_bound(inst: AsrptInstance, out: OfflineResult) -> OfflineResult:
    """``out`` (status ``error``) with the larger of its bound and ``lower_bound``.

    (:func:`~optsched.core.base.certified_solve` does this for ``time_limit``.)
    """
    lb = lower_bound(inst)["lower_bound"]
    cands: dict[str, float] = {}
    if out.bound_kind != "none":
        cands[out.bound_kind] = out.bound
    value, kind = best_bound("min", {**cands, "combinatorial": lb})
    return replace(out, bound=value, bound_kind=kind)


def _not_modelled(
    inst: AsrptInstance, start: AsrptSchedule | None, ub: float, deadline: Deadline
) -> OfflineResult:
    """The unproven result of an instance too large to model (see :func:`solve_offline`)."""
    lb = lower_bound(inst)["lower_bound"]
    return OfflineResult(
        ub, lb, "time_limit", deadline.elapsed(), start, "combinatorial"
    )
