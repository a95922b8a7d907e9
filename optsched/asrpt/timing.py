"""Per-iteration training time ``alpha_i`` of a placed job (Luo et al., Sec. III-B).

A job has stages ``s = 1 .. S`` (pipeline parallelism), stage ``s`` with
``k_s`` replicas (data parallelism), forward / backward times ``p^f_s``,
``p^b_s`` per mini-batch on one GPU, activation / gradient sizes
``d^in_s``, ``d^out_s`` per iteration and replica, and ``h_s`` parameters.
A placement ``x[s, m]`` puts ``x_s^m`` replicas of stage ``s`` on server
``m``; every server has ``g`` GPUs, NIC bandwidth ``B_inter`` (shared in
proportion to the GPUs a stage uses there) and intra-server bandwidth
``B_intra``.  Under asynchronous pipelining the iteration time is the
bottleneck stage-server pair (Eq. (7))::

    alpha = max_{s, m: x_s^m > 0} beta_s^m,
    beta_s^m = comp_s^m + comm_s^m + AllReduce_s^m.

Readings (the extraction flattened the fractions of (5)-(6); seeds/INDEX.md
and ``docs/errata.md``):

1. **(4)** ``comp = p^f_s + p^b_s`` where the stage has a replica.
2. **(5)** A replica of ``s`` exchanges ``2 d^in_s / k_{s-1}`` with each
   replica of ``s - 1`` and ``2 d^out_s / k_{s+1}`` with each of ``s + 1``
   (the paper's "evenly distribute ... across inter-stage links").  The
   ``x_s^m`` replicas on ``m`` send their inter-server part -- to the
   ``k_{s-1} - x_{s-1}^m`` and ``k_{s+1} - x_{s+1}^m`` replicas elsewhere --
   through their reserved NIC share ``(x_s^m / g) B_inter``, and each its
   intra-server part over ``B_intra``::

       comm = x (2 d_in (k_prev - x_prev)/k_prev + 2 d_out (k_next - x_next)/k_next)
                / ((x / g) B_inter)
            + (2 d_in x_prev / k_prev + 2 d_out x_next / k_next) / B_intra

   The first stage has no ``d^in`` term, the last no ``d^out`` term.
3. **(6)** AllReduce moves ``2 (k_s - 1) h_s / k_s`` per replica: over
   ``B_intra`` when all ``k_s`` replicas share server ``m`` (the printed
   second case), else over the replica's NIC share ``B_inter / g`` (the
   ``x`` replicas on ``m`` share ``(x / g) B_inter``), i.e.
   ``2 (k - 1) h g / (k B_inter)``.  ``k_s = 1``: 0.

Units are the caller's (e.g. ms, MB and MB/ms); nothing is converted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.validate import as_float, as_int


@dataclass(frozen=True)
class Stage:
    """One pipeline stage: replicas ``k``, times ``pf``, ``pb``, sizes ``d_in``, ``d_out``, ``h``."""

    k: int
    pf: float
    pb: float
    d_in: float = 0.0
    d_out: float = 0.0
    h: float = 0.0

    def __post_init__(self) -> None:
        as_int(self.k, "k", lo=1)
        for name in ("pf", "pb", "d_in", "d_out", "h"):
            as_float(getattr(self, name), name, lo=0.0)


@dataclass(frozen=True)
class Cluster:
    """``M`` servers of ``g`` GPUs, NIC bandwidth ``b_inter``, intra-server ``b_intra``."""

    n_servers: int
    gpus: int
    b_inter: float
    b_intra: float

    def __post_init__(self) -> None:
        as_int(self.n_servers, "n_servers", lo=1)
        as_int(self.gpus, "gpus", lo=1)
        as_float(self.b_inter, "b_inter", lo=0.0, lo_open=True)
        as_float(self.b_intra, "b_intra", lo=0.0, lo_open=True)


def check_placement(
    stages: tuple[Stage, ...], x: np.ndarray, cluster: Cluster
) -> np.ndarray:
    """``x`` as an (S, M) int array meeting (2) and one job's share of (3)."""
    x = np.asarray(x)
    if x.shape != (len(stages), cluster.n_servers):
        raise InvalidInstanceError(
            f"x: shape must be ({len(stages)}, {cluster.n_servers}), got {x.shape}"
        )
    if not np.array_equal(x, np.round(x)) or (x < 0).any():
        raise InvalidInstanceError("x: replica counts must be integers >= 0")
    x = x.astype(np.int64)
    for s, st in enumerate(stages):
        if x[s].sum() != st.k:
            raise InvalidInstanceError(
                f"x[{s}]: places {int(x[s].sum())} replicas, stage has k = {st.k} (2)"
            )
    used = x.sum(axis=0)
    if (used > cluster.gpus).any():
        m = int(np.argmax(used > cluster.gpus))
        raise InvalidInstanceError(
            f"x: server {m} hosts {int(used[m])} GPUs, capacity {cluster.gpus} (3)"
        )
    return x


def stage_times(
    stages: tuple[Stage, ...], x: np.ndarray, cluster: Cluster
) -> np.ndarray:
    """``beta[s, m]`` of Eq. (7) (0 where ``x_s^m = 0``), readings 1-3."""
    x = check_placement(stages, x, cluster)
    S, M = x.shape
    g, bi, bb = cluster.gpus, cluster.b_inter, cluster.b_intra
    beta = np.zeros((S, M))
    for s, st in enumerate(stages):
        for m in range(M):
            n = int(x[s, m])
            if n == 0:
                continue
            inter = intra = 0.0
            if s > 0:
                kp, xp = stages[s - 1].k, int(x[s - 1, m])
                inter += 2 * st.d_in * (kp - xp) / kp
                intra += 2 * st.d_in * xp / kp
            if s < S - 1:
                kn, xn = stages[s + 1].k, int(x[s + 1, m])
                inter += 2 * st.d_out * (kn - xn) / kn
                intra += 2 * st.d_out * xn / kn
            comm = n * inter / ((n / g) * bi) + intra / bb
            vol = 2 * (st.k - 1) * st.h / st.k
            allreduce = vol / bb if n == st.k else vol * g / bi
            beta[s, m] = st.pf + st.pb + comm + allreduce
    return beta


def alpha(stages: tuple[Stage, ...], x: np.ndarray, cluster: Cluster) -> float:
    """Per-iteration training time ``alpha_i`` (Eq. (7)) of placement ``x``."""
    return float(stage_times(stages, x, cluster).max())
