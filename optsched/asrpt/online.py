"""A-SRPT (Luo et al., Alg. 1) and A-SRPT-Perfect.

Line by line (event-driven: :mod:`optsched.asrpt.sim`):

* **Virtual instance A~_1** (Sec. IV-C-1): one machine; job ``i`` arrives at
  ``r_i`` with processing ``(g_i / G) n~_i alpha~_i^min`` (slots) and is
  run by preemptive SRPT.  Its schedule depends on arrivals and
  predictions only, so its completion times ``C~_i`` are computed once
  (each is known online at ``C~_i``: it depends on jobs released before).
  Line 2: at slot ``t`` every job with ``C~_i <= t`` is appended to
  ``pending_queue`` in order of ``C~_i`` (ties: lower index).  An unseen
  job (``n~_i = 0``) completes at its arrival (Sec. IV-C-3).
* Lines 3-7: the head ``i`` is taken while ``g_i`` does not exceed the free
  GPUs of the whole cluster; otherwise the clock moves on (line 25).
* Lines 8-20, **communication-heavy** (``alpha_i^max / alpha~_i^min >=
  COMM_HEAVY``): GPUs from the servers with the most available GPUs,
  Heavy-Edge, ``alpha_i`` by (7); start now if ``alpha_i / alpha~_i^min <=
  COMM_HEAVY``; else ``kappa = alpha_i`` and for ``t' = t+1 .. t + tau
  (g_i / G) n~_i alpha~_i^min`` (whole slots) the placement is recomputed
  with the availability at ``t'``; the job starts at the first ``t'`` with
  ``alpha_i < kappa``, else at the window's last slot with the placement
  computed there (line 20).  Reading of the loop variable (docs/asrpt.md):
  the ``for t`` of line 16 *is* the scheduler's clock, so the window holds
  up the queue behind ``i`` (the same delay Lemma 2's proof charges to
  every later job); GPUs freed meanwhile are not given to other jobs.
* Lines 21-23, otherwise: GPUs from the servers with the *least* available
  GPUs (fragmentation-aware), Heavy-Edge, start now.

``tau`` is not printed for the simulations (the testbed uses 0); default 1
(docs/errata.md).  ``asrpt_perfect`` runs the same with ``n~_i = n_i``.

Named variant ``asrpt_eager`` (not the paper's pseudo-code): Sec. IV-C-1's
prose -- "order jobs according to their completion time in A~_1. We then
perform job scheduling on the actual cluster following the order" -- read
as an *order only*: a job joins the pending queue at its arrival, placed by
its A~_1 completion time.  Among arrived jobs that order is already fixed
(SRPT never reorders two released jobs: the one with less remaining work
finishes first), so the queue is the arrived, unplaced jobs sorted by
``C~_i``; the literal algorithm is the same queue with each job held back
until ``C~_i``.  Everything else (lines 3-25) is unchanged.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

import numpy as np

from optsched.core.params import resolve

from .instance import AsrptInstance
from .schedule import AsrptSchedule
from .sim import ClusterState, srpt

COMM_HEAVY = 1.5
TAU = 1.0


def virtual_durations(inst: AsrptInstance, iterations: np.ndarray) -> np.ndarray:
    """``(g_i / G) n_i alpha~_i^min`` in slots (instance A_1, or A~_1 with ``n~``)."""
    return inst.gpus / inst.total_gpus * inst.slots(iterations, inst.alpha_min_est)


@dataclass(frozen=True)
class AsrptParams:
    """Parameters of :func:`asrpt`, :func:`asrpt_perfect` and :func:`asrpt_eager`.

    Attributes
    ----------
    tau
        Window of lines 15-20 in units of the job's virtual duration
        (default 1; docs/errata.md).
    comm_heavy
        Threshold of lines 8 and 12 (default 1.5).
    predicted
        Iteration predictions ``n~_i`` to use instead of the instance's
        (None: ``inst.predicted``; ``asrpt_perfect`` uses the true ones).
    eager
        The named variant ``asrpt_eager`` (module docstring).
    """

    tau: float = TAU
    comm_heavy: float = COMM_HEAVY
    predicted: Sequence[float] | None = None
    eager: bool = False


def asrpt(
    inst: AsrptInstance, /, *, seed: int = 0, params: AsrptParams | None = None
) -> AsrptSchedule:
    """Alg. 1 with the instance's predictions ``n~_i`` (or ``params.predicted``).

    ``seed`` seeds Heavy-Edge (:class:`~optsched.asrpt.sim.ClusterState`);
    ``params``: :class:`AsrptParams` (``eager=True`` is the named variant
    ``asrpt_eager``).
    """
    p = resolve(params, AsrptParams, "asrpt")
    tau, comm_heavy, predicted, eager = p.tau, p.comm_heavy, p.predicted, p.eager
    n = inst.n_jobs
    pred = inst.predicted if predicted is None else np.asarray(predicted, float)
    size = virtual_durations(inst, pred)
    vdone = srpt(inst.arrival.astype(float), size)
    if eager:  # joins at arrival (jobs are sorted by arrival)
        order = np.arange(n)
        enter = inst.arrival.astype(np.int64)
    else:  # joins when A~_1 completes it, in completion order; ties: index
        order = np.lexsort((np.arange(n), vdone))
        enter = np.ceil(vdone[order]).astype(np.int64)
    heavy = inst.alpha_max / inst.alpha_min_est >= comm_heavy
    cl = ClusterState(inst, seed)
    pending: list[tuple[float, int]] = []  # heap by (C~_i, i): A~_1's order
    k, t, placed, delays = 0, 0, 0, 0
    while placed < n:
        cl.release(t)
        while k < n and enter[k] <= t:  # line 2
            j = int(order[k])
            heapq.heappush(pending, (float(vdone[j]), j))
            k += 1
        while pending:  # line 3
            i = pending[0][1]
            if inst.jobs[i].gpus > cl.n_free:  # line 5 fails: line 25
                break
            heapq.heappop(pending)  # line 7
            a_min = inst.alpha_min_est[i]
            if heavy[i]:  # line 8
                servers, x, a = cl.plan(i, most=True)  # lines 9-11
                if a / a_min > comm_heavy:  # line 12 fails: lines 15-20
                    kappa, last = a, t + math.floor(tau * size[i] + 1e-9)
                    while t < last:
                        t = int(min(cl.next_release(), last))
                        if t <= last:
                            cl.release(t)
                        servers, x, a = cl.plan(i, most=True)  # line 17
                        if a < kappa:  # lines 18-19
                            break
                    delays += 1
            else:  # lines 21-23
                servers, x, a = cl.plan(i, most=False)
            cl.begin(i, t, servers, x, a)
            placed += 1
        if placed == n:
            break
        if pending:  # the head waits for GPUs: next release (line 25)
            t = int(cl.next_release())
        elif enter[k] > t:  # nothing to do before the next event
            t = int(min(cl.next_release(), enter[k]))
        # else: jobs joined A~_1's order during a delay window; same slot
    return cl.schedule(
        algorithm="asrpt_eager" if eager else "asrpt",
        tau=tau,
        comm_heavy_delays=delays,
    )


def asrpt_perfect(
    inst: AsrptInstance, /, *, seed: int = 0, params: AsrptParams | None = None
) -> AsrptSchedule:
    """A-SRPT-Perfect: Alg. 1 with the true iterations as predictions (Fig. 5, 9).

    ``params.predicted`` must be None (the true iterations replace it).
    """
    p = resolve(params, AsrptParams, "asrpt_perfect")
    if p.predicted is not None:
        raise ValueError(
            "asrpt_perfect: params.predicted must be None (it uses the true "
            f"iterations), got {p.predicted!r}"
        )
    sched = asrpt(
        inst,
        seed=seed,
        params=replace(p, predicted=cast(Sequence[float], inst.iterations)),
    )
    sched.meta["algorithm"] = "asrpt_perfect"
    return sched


def asrpt_eager(
    inst: AsrptInstance, /, *, seed: int = 0, params: AsrptParams | None = None
) -> AsrptSchedule:
    """Named variant: A-SRPT whose pending queue takes jobs at arrival (module doc).

    ``params.eager`` is set (the other fields as given).
    """
    p = resolve(params, AsrptParams, "asrpt_eager")
    return asrpt(inst, seed=seed, params=replace(p, eager=True))
