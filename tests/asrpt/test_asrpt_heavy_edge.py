"""Heavy-Edge GPU mapping (``optsched.asrpt.heavy_edge``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optsched.asrpt.heavy_edge import heavy_edge, job_graph
from optsched.asrpt.timing import Stage
from optsched.core.errors import InvalidInstanceError


def fig2_job():
    """The paper's Fig. 2: three stages of two replicas; stage 1's AllReduce edge
    weighs 20 (h = 20: 2 (2 - 1) 20 / 2), stage 1 -> 2 edges 1 (d_out = 1:
    2 * 1 / 2), the rest lighter (0.5)."""
    return (
        Stage(k=2, pf=1.0, pb=1.0, d_out=1.0, h=20.0),
        Stage(k=2, pf=1.0, pb=1.0, d_in=1.0, d_out=0.5, h=0.5),
        Stage(k=2, pf=1.0, pb=1.0, d_in=0.5, h=0.5),
    )


def test_job_graph_weights_by_hand():
    e = job_graph(fig2_job())
    assert e[((0, 0), (0, 1))] == 20.0
    assert e[((0, 0), (1, 0))] == e[((0, 1), (1, 1))] == 1.0
    assert e[((1, 0), (2, 1))] == 0.5
    assert len(e) == 3 + 4 + 4  # one ring edge per stage, 2 x 2 pairs per link


def test_fig2_example():
    """Servers with 4, 1, 1 GPUs: the first takes S1 (the 20 MB edge) and S2
    (its 1 MB edges), the single-GPU servers one S3 replica each."""
    x = heavy_edge(fig2_job(), [4, 1, 1])
    assert x.tolist() == [[2, 0, 0], [2, 0, 0], [0, 1, 1]]
    # the server order is by free GPUs, not by index
    assert heavy_edge(fig2_job(), [1, 4, 1]).tolist() == [
        [0, 2, 0],
        [0, 2, 0],
        [1, 0, 1],
    ]


def test_ring_ties_go_to_the_first_edge():
    """One stage of four replicas on 2 + 2 GPUs: equal ring edges, the first
    (replicas 0, 1) starts server 0; the rest fill server 1."""
    x = heavy_edge((Stage(k=4, pf=1.0, pb=1.0, h=3.0),), [2, 2])
    assert x.tolist() == [[2, 2]]


@pytest.mark.parametrize("seed", range(20))
def test_every_mapping_places_every_replica_within_free(seed):
    rng = np.random.default_rng(seed)
    S = int(rng.integers(1, 4))
    stages = tuple(
        Stage(k=int(rng.integers(1, 4)), pf=1.0, pb=1.0,
              d_in=float(rng.uniform(0, 5)), d_out=float(rng.uniform(0, 5)),
              h=float(rng.uniform(0, 5)))
        for _ in range(S)
    )  # fmt: skip
    need = sum(st.k for st in stages)
    cuts = sorted(rng.integers(0, need + 1, size=2))
    free = [cuts[0], cuts[1] - cuts[0], need - cuts[1]]
    x = heavy_edge(stages, free, seed=seed)
    assert x.sum(axis=1).tolist() == [st.k for st in stages]
    assert x.sum(axis=0).tolist() == free


def test_heavy_edge_keeps_the_heaviest_pair_together_when_a_cut_is_forced():
    """Two stages of one replica each plus a third: 2 + 1 GPUs.  The 0-1 edge
    (weight 10) stays on the 2-GPU server, the light stage goes alone."""
    st = (
        Stage(k=1, pf=1.0, pb=1.0, d_out=5.0),
        Stage(k=1, pf=1.0, pb=1.0, d_in=5.0, d_out=0.5),
        Stage(k=1, pf=1.0, pb=1.0, d_in=0.5),
    )
    x = heavy_edge(st, [1, 2])
    assert x.tolist() == [[0, 1], [0, 1], [1, 0]]
    # the cut of every other split is heavier: brute force over the 3 choices
    weights = job_graph(st)
    cut = {
        alone: sum(w for (u, v), w in weights.items() if (u == alone) != (v == alone))
        for alone in [(0, 0), (1, 0), (2, 0)]
    }
    assert min(cut, key=cut.get) == (2, 0)
    assert list(itertools.islice(cut.values(), 3)) == [10.0, 11.0, 1.0]


def test_free_must_match_the_job():
    with pytest.raises(InvalidInstanceError, match="add up"):
        heavy_edge(fig2_job(), [4, 1])
