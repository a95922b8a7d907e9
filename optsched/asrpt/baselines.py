"""The baselines of Luo et al., Sec. V-A-1-d, all with Heavy-Edge GPU mapping.

A job's *predicted duration* is ``n~_i alpha~_i^min`` and its *predicted
workload* ``g_i n~_i alpha~_i^min`` (the paper: "product of predicted
durations and the number of required GPUs").  Two families:

* **strict priority** -- ``spjf`` (Shortest Predicted Job First, MLaaS) and
  ``spwf`` (Shortest Predicted Workload First, Tiresias): at every slot the
  waiting jobs are started in priority order while the first of them fits
  the free GPUs; a job that does not fit blocks the ones behind it;
* **work-conserving** (WCS) -- ``wcs_duration``, ``wcs_workload``,
  ``wcs_subtime``: "continuously schedules jobs to use available GPUs ...
  following the order": every waiting job that fits is started, in
  priority order (by predicted duration, workload, or submission time).

Readings (docs/asrpt.md): the strict / work-conserving split is how the
paper contrasts SPJF/SPWF with WCS; ties go to the earlier arrival, then the
lower index; every baseline takes the GPUs of the servers with the most
available GPUs (the paper names no server choice for its baselines;
consolidation is what Heavy-Edge's minimum ``alpha~^min`` assumes).  An
unseen job (``n~ = 0``) has priority 0, as in A-SRPT.  The baselines have
no parameters (``params``: :class:`~optsched.core.params.NoParams`);
``seed`` seeds Heavy-Edge as in A-SRPT.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from optsched.core.params import NoParams, resolve

from .instance import AsrptInstance
from .schedule import AsrptSchedule
from .sim import ClusterState

Placement = Callable[[ClusterState, int], tuple[list[int], np.ndarray, float]]


def _most(cl: ClusterState, i: int) -> tuple[list[int], np.ndarray, float]:
    return cl.plan(i, most=True)


def _run(
    inst: AsrptInstance,
    key: np.ndarray,
    *,
    strict: bool,
    name: str,
    seed: int,
    cluster: ClusterState | None = None,
    place: Placement = _most,
) -> AsrptSchedule:
    """The baselines' loop: start waiting jobs in ``key`` order (ties: arrival,
    then index); ``strict``: the first waiting job that does not fit blocks
    the ones behind it, else every job that fits starts (work-conserving).

    ``place(cluster, i)`` gives job ``i``'s servers, GPU mapping and ``alpha``
    (default: the servers with the most available GPUs, Heavy-Edge mapping);
    :mod:`optsched.asrpt.variants` passes its own rule and cluster state.
    """
    n = inst.n_jobs
    gpus = inst.gpus
    buckets: dict[int, list[tuple[float, int, int]]] = {}  # g -> heap
    cl = ClusterState(inst, seed) if cluster is None else cluster
    k, t, placed = 0, 0, 0
    while placed < n:
        cl.release(t)
        while k < n and inst.jobs[k].arrival <= t:
            heapq.heappush(
                buckets.setdefault(int(gpus[k]), []),
                (float(key[k]), inst.jobs[k].arrival, k),
            )
            k += 1
        while True:
            heads = [(h[0], g) for g, h in buckets.items() if h]
            if not heads:
                break
            if strict:
                (_, _, i), g = min(heads)
                if g > cl.n_free:
                    break
            else:
                fits = [hg for hg in heads if hg[1] <= cl.n_free]
                if not fits:
                    break
                (_, _, i), g = min(fits)
            heapq.heappop(buckets[g])
            servers, x, a = place(cl, i)
            cl.begin(i, t, servers, x, a)
            placed += 1
        if placed == n:
            break
        nxt = cl.next_release()
        if k < n:
            nxt = min(nxt, inst.jobs[k].arrival)
        t = int(nxt)
    return cl.schedule(algorithm=name)


def _duration(inst: AsrptInstance) -> np.ndarray:
    return inst.predicted * inst.alpha_min_est


def spjf(
    inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> AsrptSchedule:
    """Shortest Predicted Job First (strict order by ``n~ alpha~^min``)."""
    resolve(params, NoParams, "spjf")
    return _run(inst, _duration(inst), strict=True, name="spjf", seed=seed)


def spwf(
    inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> AsrptSchedule:
    """Shortest Predicted Workload First (strict order by ``g n~ alpha~^min``)."""
    resolve(params, NoParams, "spwf")
    key = inst.gpus * _duration(inst)
    return _run(inst, key, strict=True, name="spwf", seed=seed)


def wcs_duration(
    inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> AsrptSchedule:
    """Work-conserving, by predicted duration."""
    resolve(params, NoParams, "wcs_duration")
    return _run(inst, _duration(inst), strict=False, name="wcs_duration", seed=seed)


def wcs_workload(
    inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> AsrptSchedule:
    """Work-conserving, by predicted workload."""
    resolve(params, NoParams, "wcs_workload")
    key = inst.gpus * _duration(inst)
    return _run(inst, key, strict=False, name="wcs_workload", seed=seed)


def wcs_subtime(
    inst: AsrptInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> AsrptSchedule:
    """Work-conserving, by submission time."""
    resolve(params, NoParams, "wcs_subtime")
    key = inst.arrival.astype(float)
    return _run(inst, key, strict=False, name="wcs_subtime", seed=seed)
