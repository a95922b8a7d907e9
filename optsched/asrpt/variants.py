"""Named variants of A-SRPT and of its baselines, for the ablation of docs/asrpt.md.

None of these is the paper's default algorithm (:func:`optsched.asrpt.asrpt`
follows Alg. 1 literally and is unchanged).  Each switches one component of
Alg. 1 or of the baselines so that its cost can be measured
(``benchmarks/asrpt_ablation.py``; docs/asrpt.md, "Diagnosis: A-SRPT vs the
baselines at the paper's scale").

:func:`asrpt_ablation` is Alg. 1 with every component a parameter
(:class:`AblationParams`); with the defaults it gives the same schedule as
:func:`optsched.asrpt.asrpt` (tested), and with ``gate="arrival"`` the same
as :func:`optsched.asrpt.asrpt_eager`.  The components:

``gate``
    ``"virtual"``: a job joins ``pending_queue`` at the slot its A~_1 SRPT
    completion is reached (Alg. 1 line 2); ``"arrival"``: at its arrival.
``order``
    the key of ``pending_queue``: ``"virtual"`` = A~_1's completion time
    ``C~_i`` (Sec. IV-C-1); ``"arrival"`` = arrival order (FIFO);
    ``"workload"`` = the virtual size ``(g_i / G) n~_i alpha~_i^min``, i.e.
    SPWF's key (the order SRPT gives when every job is released at once).
``wait``
    the communication-heavy rule of lines 12-20: ``"block"`` = as printed,
    the window of ``floor(tau (g_i / G) n~_i alpha~_i^min)`` slots holds up
    the queue (ours); ``"none"`` = a communication-heavy job starts at once
    on the servers its rule picks (lines 15-20 removed).
``servers``
    which servers a job's GPUs come from: ``"paper"`` = most available for
    communication-heavy jobs, least available for the others (lines 9 and
    22); ``"most"``, ``"least"`` = that rule for every job; ``"fewest"`` =
    :func:`select_fewest` for every job (Sec. IV-B's "allocated to the
    fewest servers possible", best fit).
``backfill``
    ``False``: head-of-line blocking (a head that does not fit stops the
    queue, line 25); ``True``: the first job in queue order that fits
    starts (work-conserving, as the WCS baselines).

:func:`baseline_variant` runs the baselines of Sec. V-A-1-d with a chosen
server rule (:class:`BaselineParams`); ``servers="most"`` is
:mod:`optsched.asrpt.baselines` (tested), ``servers="fewest"`` the reading
"fewest servers possible" of the baselines' GPU choice.

The named variants registered here (one function each, paper reading in the
docstring, rows in docs/errata.md):

* :func:`asrpt_consolidate` -- A-SRPT with Sec. IV-B's consolidation for
  every job and no queue-blocking window (the reading of Sec. IV-C that the
  ablation found the text to support best; its docstring);
* :func:`spwf_fewest`, :func:`spjf_fewest`, :func:`wcs_duration_fewest`,
  :func:`wcs_workload_fewest`, :func:`wcs_subtime_fewest` -- the baselines
  on the fewest servers possible.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

import numpy as np

from optsched.core.params import NoParams, resolve

from .baselines import _run
from .heavy_edge import heavy_edge
from .instance import AsrptInstance
from .online import COMM_HEAVY, TAU, virtual_durations
from .schedule import AsrptSchedule
from .sim import ClusterState, select, srpt
from .timing import Cluster, alpha

GATES = ("virtual", "arrival")
ORDERS = ("virtual", "arrival", "workload")
WAITS = ("block", "none")
SERVER_RULES = ("paper", "most", "least", "fewest")
PRIORITIES = ("duration", "workload", "subtime")


def select_fewest(free: np.ndarray, need: int) -> list[tuple[int, int]]:
    """``need`` GPUs on the fewest servers possible, the last one by best fit.

    The fewest servers that hold ``need`` GPUs are the ``k`` with the most
    free GPUs, ``k`` least; the first ``k - 1`` of them (most free first,
    ties: index) give all their free GPUs, and the rest ``r`` comes from the
    server, among the others, with the fewest free GPUs that still hold
    ``r`` (ties: index).  A 1-GPU job thus goes to the fullest server with a
    free GPU, which keeps empty servers whole for multi-GPU jobs.
    """
    cand = np.flatnonzero(free > 0)
    desc = cand[np.lexsort((cand, -free[cand]))]
    out: list[tuple[int, int]] = []
    left = need
    for pos, m in enumerate(desc):
        if int(free[m]) >= left:  # the remainder fits on one server
            rest = desc[pos:]
            fits = rest[free[rest] >= left]
            best = fits[np.lexsort((fits, free[fits]))][0]
            out.append((int(best), left))
            return out
        out.append((int(m), int(free[m])))
        left -= int(free[m])
    raise AssertionError("select_fewest: not enough free GPUs")


class _State(ClusterState):
    """:class:`~optsched.asrpt.sim.ClusterState` with the server rules above."""

    def plan_rule(self, i: int, rule: str) -> tuple[list[int], np.ndarray, float]:
        """Heavy-Edge placement of job ``i`` on the servers ``rule`` picks."""
        if rule in ("most", "least"):
            return self.plan(i, most=rule == "most")
        job = self.inst.jobs[i]
        picked = select_fewest(self.free, job.gpus)
        servers = [m for m, _ in picked]
        x = heavy_edge(job.stages, [u for _, u in picked], seed=self.seed + i)
        c = self.inst.cluster
        sub = Cluster(len(servers), c.gpus, c.b_inter, c.b_intra)
        return servers, x, alpha(job.stages, x, sub)


class _Queue:
    """Waiting jobs keyed by ``(key, index)``, one heap per GPU count.

    ``head(None)`` is the least key overall; ``head(free)`` the least key
    among jobs with at most ``free`` GPUs (backfilling).
    """

    def __init__(self) -> None:
        self.buckets: dict[int, list[tuple[float, int]]] = {}
        self.size = 0

    def push(self, g: int, key: float, i: int) -> None:
        heapq.heappush(self.buckets.setdefault(g, []), (key, i))
        self.size += 1

    def head(self, free: int | None) -> tuple[int, int] | None:
        best: tuple[tuple[float, int], int] | None = None
        for g, h in self.buckets.items():
            if h and (free is None or g <= free) and (best is None or h[0] < best[0]):
                best = (h[0], g)
        return None if best is None else (best[0][1], best[1])

    def pop(self, g: int) -> None:
        heapq.heappop(self.buckets[g])
        self.size -= 1


@dataclass(frozen=True)
class AblationParams:
    """Parameters of :func:`asrpt_ablation` (module docstring: the components).

    The defaults are Alg. 1 as :func:`optsched.asrpt.asrpt` reads it.
    """

    tau: float = TAU
    comm_heavy: float = COMM_HEAVY
    predicted: Sequence[float] | None = None
    gate: str = "virtual"
    order: str = "virtual"
    wait: str = "block"
    servers: str = "paper"
    backfill: bool = False

    def __post_init__(self) -> None:
        for name, allowed in (
            ("gate", GATES),
            ("order", ORDERS),
            ("wait", WAITS),
            ("servers", SERVER_RULES),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"AblationParams.{name}: one of {allowed}, "
                    f"got {getattr(self, name)!r}"
                )


def _keys(
    inst: AsrptInstance, p: AblationParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Virtual sizes, entry slots and queue keys of every job."""
    n = inst.n_jobs
    pred = inst.predicted if p.predicted is None else np.asarray(p.predicted, float)
    size = virtual_durations(inst, pred)
    vdone = srpt(inst.arrival.astype(float), size)
    if p.gate == "virtual":
        enter = np.ceil(vdone).astype(np.int64)
    else:
        enter = inst.arrival.astype(np.int64)
    key = {
        "virtual": vdone,
        "arrival": np.arange(n, dtype=float),
        "workload": size,
    }[p.order]
    return size, enter, key


def asrpt_ablation(
    inst: AsrptInstance, /, *, seed: int = 0, params: AblationParams | None = None
) -> AsrptSchedule:
    """Alg. 1 with every component switchable (module docstring).

    Not a reading of the paper by itself: an instrument.  With the default
    :class:`AblationParams` it is :func:`optsched.asrpt.asrpt` (same
    schedule); every other setting names the component it changes.
    """
    p = resolve(params, AblationParams, "asrpt_ablation")
    n = inst.n_jobs
    size, enter, key = _keys(inst, p)
    by_entry = np.lexsort((np.arange(n), enter))
    heavy = inst.alpha_max / inst.alpha_min_est >= p.comm_heavy
    gpus = inst.gpus
    cl = _State(inst, seed)
    queue = _Queue()
    k, t, placed, delays = 0, 0, 0, 0
    while placed < n:
        cl.release(t)
        while k < n and enter[by_entry[k]] <= t:  # line 2
            j = int(by_entry[k])
            queue.push(int(gpus[j]), float(key[j]), j)
            k += 1
        while queue.size:  # line 3
            got = queue.head(cl.n_free if p.backfill else None)
            if got is None or got[1] > cl.n_free:  # line 5 fails: line 25
                break
            i, g = got
            queue.pop(g)  # line 7
            rule = p.servers
            if rule == "paper":
                rule = "most" if heavy[i] else "least"
            servers, x, a = cl.plan_rule(i, rule)
            a_min = inst.alpha_min_est[i]
            if heavy[i] and p.wait == "block" and a / a_min > p.comm_heavy:
                kappa, last = a, t + math.floor(p.tau * size[i] + 1e-9)
                while t < last:  # lines 15-20
                    t = int(min(cl.next_release(), last))
                    cl.release(t)
                    servers, x, a = cl.plan_rule(i, rule)
                    if a < kappa:
                        break
                delays += 1
            cl.begin(i, t, servers, x, a)
            placed += 1
        if placed == n:
            break
        if queue.size:  # the head waits for GPUs (line 25)
            nxt = cl.next_release()
            if p.backfill and k < n:  # a job that joins may fit
                nxt = min(nxt, enter[by_entry[k]])
            t = int(nxt)
        elif enter[by_entry[k]] > t:
            t = int(min(cl.next_release(), enter[by_entry[k]]))
    return cl.schedule(
        algorithm="asrpt_ablation",
        comm_heavy_delays=delays,
        **{f: getattr(p, f) for f in ("tau", "gate", "order", "wait", "servers")},
        backfill=p.backfill,
    )


def asrpt_consolidate(
    inst: AsrptInstance, /, *, seed: int = 0, params: AblationParams | None = None
) -> AsrptSchedule:
    """Named variant: A-SRPT placing every job on the fewest servers possible.

    Paper reading (Sec. IV-B and IV-C-1, not Alg. 1's lines 9 and 22):
    Sec. IV-B says "to minimize per-iteration time, each job is allocated to
    the fewest servers possible", and Sec. IV-C-1 that communication-heavy
    jobs "are delayed until sufficient server resources are available"
    while "we prioritize server consolidation".  Read together: every job's
    GPUs come from the fewest servers that hold them (:func:`select_fewest`,
    best fit for the last server), and a job never holds up the queue
    (``wait="none"``: at the paper's scale the window ``tau (g_i / G) n~_i
    alpha~^min`` is under one slot anyway).  The queue order and the gate
    stay Alg. 1's (A~_1's completion order, joined at the virtual
    completion).  ``params`` (:class:`AblationParams`) may change the
    other fields; ``servers`` and ``wait`` are set.
    """
    p = resolve(params, AblationParams, "asrpt_consolidate")
    sched = asrpt_ablation(
        inst, seed=seed, params=replace(p, servers="fewest", wait="none")
    )
    sched.meta["algorithm"] = "asrpt_consolidate"
    return sched


# ------------------------------------------------------------------ baselines
@dataclass(frozen=True)
class BaselineParams:
    """Parameters of :func:`baseline_variant`.

    Attributes
    ----------
    priority
        ``"duration"`` (``n~ alpha~^min``), ``"workload"`` (``g n~
        alpha~^min``) or ``"subtime"`` (arrival).
    strict
        True: SPJF / SPWF (the head blocks); False: WCS (work-conserving).
    servers
        ``"most"`` (:mod:`optsched.asrpt.baselines`), ``"least"`` or
        ``"fewest"`` (:func:`select_fewest`).
    """

    priority: str = "workload"
    strict: bool = True
    servers: str = "fewest"

    def __post_init__(self) -> None:
        if self.priority not in PRIORITIES:
            raise ValueError(
                f"BaselineParams.priority: one of {PRIORITIES}, got {self.priority!r}"
            )
        if self.servers not in ("most", "least", "fewest"):
            raise ValueError(
                "BaselineParams.servers: one of ('most', 'least', 'fewest'), "
                f"got {self.servers!r}"
            )


def baseline_variant(
    inst: AsrptInstance, /, *, seed: int = 0, params: BaselineParams | None = None
) -> AsrptSchedule:
    """A baseline of Sec. V-A-1-d with the server rule of ``params``.

    The loop is :func:`optsched.asrpt.baselines._run` (ties: arrival, then
    index) with the server rule passed in; only the servers a job's GPUs come
    from change.
    """
    p = resolve(params, BaselineParams, "baseline_variant")
    dur = inst.predicted * inst.alpha_min_est
    key = {
        "duration": dur,
        "workload": inst.gpus * dur,
        "subtime": inst.arrival.astype(float),
    }[p.priority]
    name = {
        ("duration", True): "spjf",
        ("workload", True): "spwf",
        ("duration", False): "wcs_duration",
        ("workload", False): "wcs_workload",
        ("subtime", False): "wcs_subtime",
        ("subtime", True): "fifo",
    }[(p.priority, p.strict)]
    return _run(
        inst,
        key,
        strict=p.strict,
        name=f"{name}_{p.servers}",
        seed=seed,
        cluster=_State(inst, seed),
        place=lambda cl, i: cast(_State, cl).plan_rule(i, p.servers),
    )


def _named(priority: str, strict: bool, name: str, doc: str):
    def run(
        inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
    ) -> AsrptSchedule:
        resolve(params, NoParams, name)
        return baseline_variant(
            inst, seed=seed, params=BaselineParams(priority, strict, "fewest")
        )

    run.__name__ = run.__qualname__ = name
    run.__doc__ = (
        f"Named variant: {doc} on the fewest servers possible (best fit).\n\n"
        'Paper reading: Sec. V-A-1-d says only that "all baselines adopt the '
        'Heavy-Edge algorithm for GPU mapping"; Sec. IV-B that "each job is '
        'allocated to the fewest servers possible".  The default baselines '
        "take the servers with the most free GPUs (docs/errata.md); this one "
        "takes :func:`select_fewest`."
    )
    return run


spjf_fewest = _named("duration", True, "spjf_fewest", "SPJF")
spwf_fewest = _named("workload", True, "spwf_fewest", "SPWF")
wcs_duration_fewest = _named("duration", False, "wcs_duration_fewest", "WCS-Duration")
wcs_workload_fewest = _named("workload", False, "wcs_workload_fewest", "WCS-Workload")
wcs_subtime_fewest = _named("subtime", False, "wcs_subtime_fewest", "WCS-SubTime")

#: The named variants of this module, name -> algorithm.
VARIANTS = {
    "asrpt_consolidate": asrpt_consolidate,
    "spjf_fewest": spjf_fewest,
    "spwf_fewest": spwf_fewest,
    "wcs_duration_fewest": wcs_duration_fewest,
    "wcs_workload_fewest": wcs_workload_fewest,
    "wcs_subtime_fewest": wcs_subtime_fewest,
}

__all__ = [
    "VARIANTS",
    "AblationParams",
    "BaselineParams",
    "asrpt_ablation",
    "asrpt_consolidate",
    "baseline_variant",
    "select",
    "select_fewest",
    "spjf_fewest",
    "spwf_fewest",
    "wcs_duration_fewest",
    "wcs_subtime_fewest",
    "wcs_workload_fewest",
]
