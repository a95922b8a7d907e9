"""Shared fixtures for the OASiS slice tests."""

import numpy as np
import pytest

from optsched.oasis.instance import Job, OasisInstance
from optsched.oasis.schedule import OasisSchedule


def hand_instance() -> OasisInstance:
    """Two jobs, one worker server, one PS server, T = 4 (numbers chosen by hand).

    Job A: a=1, E=2, N=2, M=1, tau=1 slot, e=0 -> chunk time 1, work 4.
    Job B: a=2, E=1, N=2, M=1, tau=0.5, e=0 -> chunk time 0.5, work 1.
    Worker: 3 cpu, 1 Gbps; PS: 1 cpu, 2 Gbps.  Worker server 8 cpu / 10 Gbps,
    PS server 1 cpu / 20 Gbps.
    """
    A = Job(1, 2, 2, 1, 1.0, 0.0, (3.0, 1.0), (1.0, 2.0), 10.0, 0.0, 1.0, "insensitive")
    B = Job(2, 1, 2, 1, 0.5, 0.0, (3.0, 1.0), (1.0, 2.0), 20.0, 1.0, 1.0, "sensitive")
    return OasisInstance(
        n_slots=4,
        resources=("cpu", "bandwidth"),
        worker_servers=((8.0, 10.0),),
        ps_servers=((1.0, 20.0),),
        jobs=(A, B),
    )


def hand_schedule() -> OasisSchedule:
    """A feasible schedule: A runs 2 workers + 1 PS in slots 1-2, B 1+1 in slot 3."""
    y = np.zeros((2, 1, 4), dtype=np.int64)
    z = np.zeros((2, 1, 4), dtype=np.int64)
    y[0, 0, 0:2] = 2
    z[0, 0, 0:2] = 1
    y[1, 0, 2] = 1
    z[1, 0, 2] = 1
    return OasisSchedule(np.array([True, True]), y, z, "hand")


@pytest.fixture
def hand():
    """The hand-built instance and its feasible schedule."""
    return hand_instance(), hand_schedule()
