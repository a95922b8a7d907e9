"""Heavy-Edge GPU mapping (Luo et al., Sec. IV-B).

The job is a graph: one vertex per stage replica ``(s, j)``; every replica
pair of adjacent stages ``s - 1, s`` is joined by an edge of weight
``2 d^out_{s-1} / k_s`` (``= 2 d^in_s / k_{s-1}``), and the replicas of a
stage form a ring (ring AllReduce, RAR) with edges of weight ``2 (k_s - 1)
h_s / k_s``.  Given the GPUs a job gets on each server, Heavy-Edge fills
the servers in decreasing order of available GPUs (ties: server index):

1. if the unassigned vertices exactly fill the server, all go there;
2. a single-GPU server gets the unassigned vertex of least total edge
   weight (over all its edges; ties: vertex order);
3. otherwise the server's ``node_set`` grows by the heaviest edge between
   it and an unassigned vertex; an empty ``node_set`` starts with the
   heaviest edge among unassigned vertices (both ends, the paper's Fig. 2
   example); with no such edge a random unassigned vertex is taken
   (``numpy.random.default_rng(seed)``); until the server is full.

Readings (docs/asrpt.md): ties of equal weight go to the edge listed first
(vertex order ``(s, j)``, stages then replicas); when the heaviest
unassigned edge needs two GPUs and one is left, rule 3 continues with the
single-vertex rule of the edge's heavier end.  Tree AllReduce (TAR) edges
are not built (the paper's evaluation does not say which it uses); RAR is
the model of Eq. (6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from optsched.core.errors import InvalidInstanceError

from .timing import Stage

Vertex = tuple[int, int]


def job_graph(stages: Sequence[Stage]) -> dict[tuple[Vertex, Vertex], float]:
    """Edges ``{(u, v): weight}`` (``u < v`` in vertex order) of the job graph."""
    edges: dict[tuple[Vertex, Vertex], float] = {}

    def add(u: Vertex, v: Vertex, w: float) -> None:
        if u == v or w <= 0:
            return
        key = (min(u, v), max(u, v))
        edges[key] = edges.get(key, 0.0) + w

    for s, st in enumerate(stages):
        if st.k > 1:
            w = 2 * (st.k - 1) * st.h / st.k
            ring = [(j, (j + 1) % st.k) for j in range(st.k)] if st.k > 2 else [(0, 1)]
            for a, b in ring:
                add((s, a), (s, b), w)
        if s > 0:
            w = 2 * stages[s - 1].d_out / st.k
            for a in range(stages[s - 1].k):
                for b in range(st.k):
                    add((s - 1, a), (s, b), w)
    return edges


def heavy_edge(
    stages: Sequence[Stage], free: Sequence[int], *, seed: int = 0
) -> np.ndarray:
    """Map the job's replicas to servers with ``free[m]`` GPUs for it; ``x[s, m]``.

    ``free`` must add up to the job's GPUs ``sum_s k_s`` (the servers
    ``M_i`` chosen by the caller, Alg. 1); servers with 0 are skipped.
    """
    free = [int(f) for f in free]
    need = sum(st.k for st in stages)
    if any(f < 0 for f in free) or sum(free) != need:
        raise InvalidInstanceError(
            f"free: GPUs {free} must be >= 0 and add up to the job's {need} replicas"
        )
    rng = np.random.default_rng(seed)
    edges = job_graph(stages)
    verts: list[Vertex] = [(s, j) for s, st in enumerate(stages) for j in range(st.k)]
    degree = {v: 0.0 for v in verts}
    for (u, v), w in edges.items():
        degree[u] += w
        degree[v] += w
    unassigned = list(verts)
    x = np.zeros((len(stages), len(free)), dtype=np.int64)
    for m in sorted(range(len(free)), key=lambda m: (-free[m], m)):
        cap = free[m]
        if cap == 0:
            continue
        if len(unassigned) == cap:  # rule 1
            chosen = list(unassigned)
        elif cap == 1:  # rule 2
            chosen = [min(unassigned, key=lambda v: (degree[v], v))]
        else:  # rule 3
            chosen = []
            while len(chosen) < cap:
                left = [v for v in unassigned if v not in chosen]
                if chosen:
                    best = max(
                        (
                            (w, (u, v))
                            for (u, v), w in edges.items()
                            if (u in chosen) != (v in chosen)
                            and (u in left or v in left)
                        ),
                        default=None,
                        key=lambda e: (e[0], [-c for vv in e[1] for c in vv]),
                    )
                    if best is None:
                        chosen.append(left[int(rng.integers(len(left)))])
                    else:
                        u, v = best[1]
                        chosen.append(v if u in chosen else u)
                else:
                    inner = [
                        (w, e)
                        for e, w in edges.items()
                        if e[0] in left and e[1] in left
                    ]
                    if not inner:
                        chosen.append(left[int(rng.integers(len(left)))])
                        continue
                    w, (u, v) = max(
                        inner, key=lambda e: (e[0], [-c for vv in e[1] for c in vv])
                    )
                    if cap - len(chosen) >= 2:
                        chosen += [u, v]
                    else:
                        chosen.append(u if degree[u] >= degree[v] else v)
        for v in chosen:
            unassigned.remove(v)
            x[v[0], m] += 1
    return x
