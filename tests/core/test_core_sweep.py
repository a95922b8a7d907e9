"""Tests of the parallel map (local processes and Dask)."""

import pytest

from optsched.core import sweep


def square_plus(x):
    """Module-level task function (picklable)."""
    return x * x + 1


def test_serial_and_process_pool_agree_in_order():
    """Serial and 2-process runs return the same results in task order."""
    tasks = list(range(7, 0, -1))
    serial = sweep.map(square_plus, tasks, workers=1, progress=False)
    pooled = sweep.map(square_plus, tasks, workers=2, progress=False)
    assert serial == [x * x + 1 for x in tasks]
    assert pooled == serial


def worker_pid(_):
    import os

    return os.getpid()


def test_local_pool_is_reused_across_calls_with_the_same_results():
    tasks = list(range(9))
    with sweep.local_pool(2) as pool:
        a = sweep.map(square_plus, tasks, pool=pool, progress=False)
        b = sweep.map(square_plus, tasks[::-1], pool=pool, progress=False)
        pids = set(sweep.map(worker_pid, range(20), pool=pool, progress=False))
        pids |= set(sweep.map(worker_pid, range(20), pool=pool, progress=False))
    assert a == [x * x + 1 for x in tasks] and b == a[::-1]
    assert 1 <= len(pids) <= 2  # the same (at most 2) processes served every call
    with sweep.local_pool(1) as none:
        assert none is None
    with sweep.local_pool(4, tasks=1) as none:  # never more processes than tasks
        assert none is None


def test_dask_local_cluster_matches_local():
    """A Dask LocalCluster returns exactly the local results, ordered."""
    distributed = pytest.importorskip("dask.distributed")
    tasks = [5, 3, 9, 1]
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        by_client = sweep.map(square_plus, tasks, scheduler=client, progress=False)
        by_address = sweep.map(
            square_plus, tasks, scheduler=cluster.scheduler_address, progress=False
        )
    local = sweep.map(square_plus, tasks, workers=1, progress=False)
    assert by_client == local
    assert by_address == local
