"""The exact placement MILP (``optsched.models.asrpt``) against enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from optsched.models.asrpt import solve_placement

from optsched.asrpt import Cluster, Stage, alpha, heavy_edge


def _splits(k: int, M: int):
    """Every way to put k replicas on M servers."""
    for c in itertools.product(range(k + 1), repeat=M):
        if sum(c) == k:
            yield c


def _brute(stages, cluster, free):
    best = None
    for rows in itertools.product(*(list(_splits(st.k, len(free))) for st in stages)):
        x = np.array(rows)
        if (x.sum(axis=0) > np.array(free)).any():
            continue
        a = alpha(stages, x, cluster)
        best = a if best is None else min(best, a)
    return best


def _case(rng):
    S = int(rng.integers(1, 4))
    stages = tuple(
        Stage(k=int(rng.integers(1, 3)), pf=float(rng.uniform(1, 5)),
              pb=float(rng.uniform(1, 5)), d_in=float(rng.uniform(0, 20)),
              d_out=float(rng.uniform(0, 20)), h=float(rng.uniform(0, 40)))
        for _ in range(S)
    )  # fmt: skip
    M = int(rng.integers(1, 4))
    cluster = Cluster(n_servers=M, gpus=8, b_inter=10.0, b_intra=100.0)
    need = sum(st.k for st in stages)  # at most 6 <= 8 M
    free = rng.integers(0, 9, size=M)
    while free.sum() < need:
        m = int(np.argmin(free))
        free[m] += 1
    return stages, cluster, [int(f) for f in free]


def test_milp_equals_enumeration():
    rng = np.random.default_rng(11)
    for _ in range(30):
        stages, cluster, free = _case(rng)
        a, x, status, _ = solve_placement(stages, cluster, free)
        assert status == "optimal"
        assert a == pytest.approx(_brute(stages, cluster, free), rel=1e-7)
        assert (x.sum(axis=0) <= np.array(free)).all()


def test_heavy_edge_never_beats_the_milp():
    rng = np.random.default_rng(12)
    for _ in range(30):
        stages, cluster, free = _case(rng)
        need = sum(st.k for st in stages)
        # Heavy-Edge needs exactly the job's GPUs: take them server by server
        take, left = [], need
        for f in free:
            take.append(min(f, left))
            left -= take[-1]
        opt, _, status, _ = solve_placement(stages, cluster, take)
        he = alpha(stages, heavy_edge(stages, take), cluster)
        assert status == "optimal" and he >= opt - 1e-9 * max(1.0, opt)
