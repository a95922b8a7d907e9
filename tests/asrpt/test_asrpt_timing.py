"""Per-iteration time of Eqs. (4)-(7) (``optsched.asrpt.timing``), by hand.

Cluster: 2 servers of g = 4 GPUs, B_inter = 10, B_intra = 100 (one unit of
data per unit of time); a replica's NIC share is B_inter / g = 2.5.
"""

from __future__ import annotations

import numpy as np
import pytest

from optsched.asrpt import Cluster, Stage, alpha, stage_times
from optsched.core.errors import InvalidInstanceError

C = Cluster(n_servers=2, gpus=4, b_inter=10.0, b_intra=100.0)


def test_one_replica_is_pure_computation():
    """k = 1: no inter-stage traffic, AllReduce volume 2 (k - 1) h / k = 0."""
    assert alpha((Stage(k=1, pf=2.0, pb=3.0, h=50.0),), [[1, 0]], C) == 5.0


def test_allreduce_intra_vs_across_servers():
    """k = 2, h = 50: volume 2 * 1 * 50 / 2 = 50 per replica; on one server over
    B_intra: 0.5; split over two servers over the NIC share 2.5: 20."""
    st = (Stage(k=2, pf=2.0, pb=3.0, h=50.0),)
    assert alpha(st, [[2, 0]], C) == pytest.approx(5.5)
    beta = stage_times(st, [[1, 1]], C)
    np.testing.assert_allclose(beta, [[25.0, 25.0]])


def test_inter_stage_traffic_over_nic_share_or_intra():
    """Two stages of one replica, activations 8: per iteration 2 * 8 = 16 each
    way.  Co-located: 16 / 100 = 0.16 per stage; apart: 16 / 2.5 = 6.4."""
    st = (Stage(k=1, pf=1.0, pb=1.0, d_out=8.0), Stage(k=1, pf=1.0, pb=1.0, d_in=8.0))
    assert alpha(st, [[1, 0], [1, 0]], C) == pytest.approx(2.16)
    beta = stage_times(st, [[1, 0], [0, 1]], C)
    np.testing.assert_allclose(beta, [[8.4, 0.0], [0.0, 8.4]])


def test_replicated_neighbour_splits_traffic():
    """Stage 0: 1 replica on server 0, d_out = 8; stage 1: k = 2, one per server.
    Stage 0 sends 2 * 8 / 2 = 8 to each stage-1 replica: 8 intra (0.08) and 8
    inter over its share 2.5 (3.2): beta = 2 + 3.28.  Stage 1 on server 1
    receives 2 * 8 / 1 = 16 from the remote replica: 16 / 2.5 = 6.4, plus its
    AllReduce (k = 2, h = 0): beta = 2 + 6.4."""
    st = (
        Stage(k=1, pf=1.0, pb=1.0, d_out=8.0),
        Stage(k=2, pf=1.0, pb=1.0, d_in=8.0),
    )
    beta = stage_times(st, [[1, 0], [1, 1]], C)
    assert beta[0, 0] == pytest.approx(2 + 0.08 + 3.2)
    assert beta[1, 0] == pytest.approx(2 + 16 / 100)
    assert beta[1, 1] == pytest.approx(2 + 6.4)
    assert alpha(st, [[1, 0], [1, 1]], C) == pytest.approx(8.4)


def test_placement_errors_name_the_constraint():
    st = (Stage(k=2, pf=1.0, pb=1.0),)
    with pytest.raises(InvalidInstanceError, match=r"k = 2 \(2\)"):
        alpha(st, [[1, 0]], C)
    with pytest.raises(InvalidInstanceError, match=r"capacity 4 \(3\)"):
        alpha((Stage(k=5, pf=1.0, pb=1.0),), [[5, 0]], C)
    with pytest.raises(InvalidInstanceError, match="shape"):
        alpha(st, np.zeros((2, 2)), C)
    with pytest.raises(InvalidInstanceError, match="k"):
        Stage(k=0, pf=1.0, pb=1.0)
    with pytest.raises(InvalidInstanceError, match="b_inter"):
        Cluster(n_servers=1, gpus=8, b_inter=0.0, b_intra=1.0)
