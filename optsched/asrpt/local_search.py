"""Local search for A-SRPT's problem (8) (minimise total completion): a better MIP start.

The search moves over *priority lists* decoded by a list-scheduling rule
(:func:`decode`); every decoded schedule goes through :func:`~.check.check`
inside :func:`optsched.core.local_search.iterated` (the default,
``method="ils"``: first-improvement descent, then random kicks) or
:func:`optsched.core.local_search.improve` (``method="descent"``), so a
candidate the checker rejects is discarded and the result is always a
checked schedule no worse than the start.

Decoder.  A :class:`Priority` is a job order and, per job, an option
*shape*.  A job's options are :func:`optsched.models.asrpt.options` (per
usage vector ``u``, GPUs per server, the placement of least ``alpha``: the
options the exact MILP chooses from); a shape groups the options with the
same GPU counts up to the server order and the same ``alpha`` (the servers
are identical).  Jobs are placed one after the other and a placed job
never moves: job ``i`` starts at the earliest whole slot ``t >= r_i`` at
which the GPUs ``u[m]`` of some option of its shape fit on every server
``m`` throughout ``[t, t + d_i)`` beside the jobs already placed (``d_i =
n_i alpha_i / (1000 slot)``, GPUs held on half-open intervals as the
checker reads (3)); the earliest such option wins (the first on ties).  Only ``r_i``
and the first whole slots after the placed jobs' completions can be that
earliest slot (usage falls only at completions), and within ``[t, t +
d_i)`` the usage is largest at ``t`` or at a placed job's start, so the
decoder tests just those points.

Moves: swap two adjacent jobs, move one job to another position at most
:data:`WINDOW` away, give a job another shape; a kick makes :data:`KICK`
random swaps of any two jobs or shape changes.  The start (an online
algorithm's schedule) has no priority list; it is read as one (jobs by
start slot, each with the option of its placement's usage vector, whose
``alpha`` is never larger), and the decoding of that list and of the
shortest-job-first list are its first candidates.  Every random choice
comes from the seeded generator: with ``time_limit=None`` the result
depends only on the seed and the evaluation budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from optsched.core.local_search import SearchTrace, iterated
from optsched.core.local_search import improve as _improve

from .check import check
from .instance import AsrptInstance
from .schedule import AsrptSchedule

__all__ = [
    "KICK",
    "META_KEY",
    "PATIENCE",
    "WINDOW",
    "Priority",
    "decode",
    "improve",
    "job_options",
    "kick",
    "neighbours",
    "read_priority",
    "searchable",
]

#: Largest distance of an insertion move.
WINDOW = 6
#: Random operations per kick of the iterated search (:func:`kick`).
KICK = 3
#: Kicks in a row without a new best after which the iterated search stops.
PATIENCE = 50
#: ``meta`` key holding the :class:`Priority` a decoded schedule came from.
META_KEY = "priority"
#: ``meta`` key holding the options of every job (computed once per search).
OPTIONS_KEY = "options"


@dataclass(frozen=True)
class Priority:
    """Input of :func:`decode`.

    Attributes
    ----------
    order
        Job indices, placed first to last (a permutation of ``range(n)``).
    option
        Per job (indexed by job): index into its options.
    """

    order: tuple[int, ...]
    option: tuple[int, ...]


def job_options(inst: AsrptInstance) -> list[list[tuple[Any, np.ndarray, float]]]:
    """Per job, :func:`optsched.models.asrpt.options` (imported here: no pyomo at import)."""
    from optsched.models.asrpt import options

    return [options(job.stages, inst.cluster) for job in inst.jobs]


def searchable(inst: AsrptInstance) -> bool:
    """Whether the jobs' options are few enough to enumerate
    (:func:`optsched.models.asrpt.modelled`, the MILP's own limit)."""
    from optsched.models.asrpt import modelled

    return modelled(inst)


def _fits(
    placed: Sequence[tuple[float, float, tuple[int, ...]]],
    t: float,
    end: float,
    u: tuple[int, ...],
    gpus: int,
) -> bool:
    """Whether usage ``u`` fits on ``[t, end)`` beside ``placed`` (start, end, u)."""
    points = [t] + [s for s, _, _ in placed if t < s < end]
    for m, need in enumerate(u):
        if not need:
            continue
        for tau in points:
            used = sum(v[m] for s, e, v in placed if s <= tau < e)
            if used + need > gpus:
                return False
    return True


def _groups(opts: Sequence[Sequence[Any]]) -> list[list[list[int]]]:
    """Per job, its options grouped by shape: same GPU counts up to the server
    order and same ``alpha`` (the servers are identical, so one shape on
    other servers); groups in order of first option."""
    out = []
    for job_opts in opts:
        by: dict[tuple[Any, ...], list[int]] = {}
        for o, (u, _, alpha) in enumerate(job_opts):
            key = (tuple(sorted(u, reverse=True)), round(float(alpha), 9))
            by.setdefault(key, []).append(o)
        out.append(list(by.values()))
    return out


def decode(
    inst: AsrptInstance, prio: Priority, opts: Sequence[Sequence[Any]]
) -> AsrptSchedule:
    """The schedule of ``prio`` (module docstring), ``meta`` holding it and ``opts``."""
    n, g = inst.n_jobs, inst.cluster.gpus
    start = [0] * n
    servers: list[tuple[int, ...]] = [()] * n
    xs: list[np.ndarray] = [np.zeros((0, 0), dtype=np.int64)] * n
    placed: list[tuple[float, float, tuple[int, ...]]] = []
    groups = _groups(opts)
    for i in prio.order:
        job = inst.jobs[i]
        r = int(job.arrival)
        cands = sorted({r} | {math.ceil(e) for _, e, _ in placed if math.ceil(e) > r})
        best: tuple[int, Any, Any, float] | None = None
        for o in groups[i][prio.option[i]]:
            u, x, alpha = opts[i][o]
            d = float(inst.slots(job.iterations, alpha))
            t = cands[-1]
            for cand in cands:
                if best is not None and cand >= best[0]:
                    break
                if _fits(placed, cand, cand + d, u, g):
                    t = cand
                    break
            if best is None or t < best[0]:
                best = (t, u, x, d)
        assert best is not None
        t, u, x, d = best
        placed.append((float(t), t + d, tuple(u)))
        used = [m for m in range(len(u)) if u[m]]
        start[i], servers[i], xs[i] = t, tuple(used), x[:, used]
    return AsrptSchedule(
        tuple(start), tuple(servers), tuple(xs),
        {"algorithm": "ls", META_KEY: prio, OPTIONS_KEY: opts},
    )  # fmt: skip


def read_priority(
    sched: AsrptSchedule, opts: Sequence[Sequence[Any]]
) -> Priority | None:
    """``sched`` as a priority list (module docstring), None if an option is missing."""
    groups = _groups(opts)
    option = []
    for i, (servers, x) in enumerate(zip(sched.servers, sched.x, strict=True)):
        u = [0] * len(opts[i][0][0])
        for j, m in enumerate(servers):
            u[m] += int(np.asarray(x)[:, j].sum())
        found = [o for o, (uo, _, _) in enumerate(opts[i]) if list(uo) == u]
        if not found:
            return None
        option.append(next(k for k, grp in enumerate(groups[i]) if found[0] in grp))
    order = sorted(range(len(sched.start)), key=lambda i: (int(sched.start[i]), i))
    return Priority(tuple(order), tuple(option))


def neighbours(
    inst: AsrptInstance, sched: AsrptSchedule, rng: np.random.Generator
) -> Iterator[tuple[str, AsrptSchedule]]:
    """Candidates around ``sched`` (module docstring), shuffled by ``rng``."""
    opts = sched.meta.get(OPTIONS_KEY) or job_options(inst)
    groups = _groups(opts)
    prio = sched.meta.get(META_KEY)
    if prio is None:
        prio = read_priority(sched, opts)
        if prio is None:
            return
        yield "read", decode(inst, prio, opts)
        dmin = [
            min(float(inst.slots(j.iterations, a)) for _, _, a in opts[i])
            for i, j in enumerate(inst.jobs)
        ]
        fastest = [
            int(np.argmin([float(inst.slots(j.iterations, a)) for _, _, a in opts[i]]))
            for i, j in enumerate(inst.jobs)
        ]
        best = tuple(
            next(k for k, grp in enumerate(groups[i]) if fastest[i] in grp)
            for i in range(inst.n_jobs)
        )
        order = sorted(
            range(inst.n_jobs), key=lambda i: (inst.jobs[i].arrival + dmin[i], i)
        )
        yield "sjf", decode(inst, Priority(tuple(order), best), opts)
    n = len(prio.order)
    moves: list[tuple[str, int, int]] = []
    for p in range(n - 1):
        moves.append(("swap", p, p + 1))
    for p in range(n):
        for q in range(max(0, p - WINDOW), min(n, p + WINDOW + 1)):
            if abs(q - p) > 1:
                moves.append(("move", p, q))
    for i in range(n):
        for o in range(len(groups[i])):
            if o != prio.option[i]:
                moves.append(("option", i, o))
    for k in rng.permutation(len(moves)):
        kind, a, b = moves[int(k)]
        order, option = list(prio.order), list(prio.option)
        if kind == "swap":
            order[a], order[b] = order[b], order[a]
        elif kind == "move":
            order.insert(b, order.pop(a))
        else:
            option[a] = b
        yield (
            f"{kind} {a} {b}",
            decode(inst, Priority(tuple(order), tuple(option)), opts),
        )


def kick(
    inst: AsrptInstance, sched: AsrptSchedule, rng: np.random.Generator
) -> tuple[str, AsrptSchedule]:
    """:data:`KICK` random operations (swap any two jobs, a random option) on ``sched``'s list."""
    opts = sched.meta.get(OPTIONS_KEY) or job_options(inst)
    prio = sched.meta.get(META_KEY) or read_priority(sched, opts)
    if prio is None:
        return "none", sched
    groups = _groups(opts)
    order, option = list(prio.order), list(prio.option)
    n = len(order)
    done = []
    for _ in range(KICK):
        if n > 1 and rng.random() < 0.5:
            a, b = (int(v) for v in rng.choice(n, size=2, replace=False))
            order[a], order[b] = order[b], order[a]
            done.append(f"swap {a} {b}")
        else:
            i = int(rng.integers(n))
            option[i] = int(rng.integers(len(groups[i])))
            done.append(f"option {i} {option[i]}")
    return ", ".join(done), decode(inst, Priority(tuple(order), tuple(option)), opts)


def improve(
    inst: AsrptInstance,
    sched: AsrptSchedule,
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    max_evaluations: int | None = None,
    method: str = "ils",
) -> tuple[AsrptSchedule, SearchTrace]:
    """``sched`` improved by the checked local search (module docstring).

    ``method``: ``"ils"`` (iterated, stops after :data:`PATIENCE` kicks
    without a new best or at the budget) or ``"descent"``.  Returns the
    best checked schedule (``sched`` itself when nothing improved; an
    improved one is named ``<algorithm>+ls`` in ``meta``) and the search
    trace.  Raises what the checker raises for ``sched``, and ValueError
    naming ``method`` for another value.
    """
    if method not in ("ils", "descent"):
        raise ValueError(f"method: must be 'ils' or 'descent', got {method!r}")
    if method == "ils":
        best, trace = iterated(
            inst, sched, neighbours=neighbours, perturb=kick, evaluate=check,
            sense="min", time_limit=time_limit, seed=seed, strategy="first",
            max_evaluations=max_evaluations, patience=PATIENCE,
        )  # fmt: skip
    else:
        best, trace = _improve(
            inst, sched, neighbours=neighbours, evaluate=check, sense="min",
            time_limit=time_limit, seed=seed, strategy="first",
            max_evaluations=max_evaluations,
        )  # fmt: skip
    if best is sched:
        return sched, trace
    name = f"{sched.meta.get('algorithm', 'start')}+ls"
    meta = {"algorithm": name, "local_search": trace.accepted}
    return AsrptSchedule(best.start, best.servers, best.x, meta), trace
