"""Parallel map over independent tasks: local processes, or a Dask cluster.

Results are returned in task order either way, so a table computed locally
and on a Dask ``LocalCluster`` (or a remote scheduler) is identical.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from tqdm.auto import tqdm


def _bar(total: int, progress: bool, desc: str):
    return tqdm(total=total, disable=not (progress and sys.stderr.isatty()), desc=desc)


def map(  # noqa: A001 - the module is used as ``sweep.map``
    fn: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    desc: str = "tasks",
    pool: Executor | None = None,
) -> list[Any]:
    """Apply ``fn`` to every task and return the results in task order.

    Parameters
    ----------
    fn
        A picklable (module-level) function of one argument.
    tasks
        The arguments.
    workers
        Local worker processes; ``None`` = ``min(os.cpu_count(), len(tasks))``,
        ``1`` runs in this process (no pool).
    scheduler
        A Dask ``distributed.Client``, or a scheduler address such as
        ``"tcp://10.0.0.5:8786"``: run the tasks on that cluster instead
        (needs the ``dask`` extra).
    progress
        Show a tqdm bar (only when stderr is a terminal).
    pool
        An open executor from :func:`local_pool` to run the tasks on (its
        processes are reused across calls; ``workers`` is then ignored).
    """
    tasks = list(tasks)
    if scheduler is not None:
        return _dask_map(fn, tasks, scheduler, progress, desc)
    out: list[Any] = []
    with contextlib.ExitStack() as stack, _bar(len(tasks), progress, desc) as bar:
        if pool is None:  # this call's own pool (None: run here)
            pool = stack.enter_context(local_pool(workers, len(tasks)))
        for r in (fn(t) for t in tasks) if pool is None else pool.map(fn, tasks):
            out.append(r)
            bar.update()
    return out


@contextlib.contextmanager
def local_pool(
    workers: int | None, tasks: int | None = None
) -> Iterator[Executor | None]:
    """One pool of spawned processes for many :func:`map` calls.

    ``workers`` processes (``None``: one per CPU), no more than ``tasks``
    (the largest number of tasks one call will map) when given.  A search
    maps small batches (e.g. 4 evaluations) thousands of times; a new pool
    per call re-imports the package in every process each time.  Yields
    ``None`` when that is one process (run in this process).  Results are
    the same as with a pool per call (tasks are independent and returned in
    order).
    """
    n = workers or os.cpu_count() or 1
    if tasks is not None:
        n = min(n, max(1, tasks))
    if n <= 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("spawn")) as p:
        yield p


def _dask_map(fn, tasks, scheduler, progress, desc):
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on extras
        raise ImportError(
            "a Dask scheduler needs: pip install 'optsched[dask]'"
        ) from exc
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = client.map(fn, tasks, pure=False)
        with _bar(len(tasks), progress, desc) as bar:
            for _ in as_completed(futures):
                bar.update()
        return client.gather(futures)
    finally:
        if own:
            client.close()
