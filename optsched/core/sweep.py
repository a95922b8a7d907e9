"""Parallel map over independent tasks: local processes, or a Dask cluster.

Results are returned in task order either way, so a table computed locally
and on a Dask ``LocalCluster`` (or a remote scheduler) is identical.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

# not ``tqdm.auto``: in a Jupyter kernel without ipywidgets it warns on import
# (a TqdmWarning with the venv's path in every notebook's output), and the bar
# is drawn only when stderr is a terminal, which a notebook's never is.
from tqdm import tqdm

from .errors import OptschedError


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
        if pool is None:
            results: Iterable[Any] = (fn(t) for t in tasks)
        else:
            with _sigint_blocked():  # the workers spawned here start deaf to Ctrl-C
                results = pool.map(fn, tasks)
        for r in results:
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

    The workers ignore SIGINT (a terminal's Ctrl-C reaches the whole process
    group): only this process sees ``KeyboardInterrupt``; the pool is then
    stopped at once (queued tasks dropped, running ones terminated) instead
    of waiting for the running tasks.
    """
    n = workers or os.cpu_count() or 1
    if tasks is not None:
        n = min(n, max(1, tasks))
    if n <= 1:
        yield None
        return
    pool = ProcessPoolExecutor(
        max_workers=n, mp_context=mp.get_context("spawn"), initializer=_ignore_sigint
    )
    try:
        yield pool
    except KeyboardInterrupt:
        _terminate(pool)
        raise
    finally:
        pool.shutdown(wait=True)


def _ignore_sigint() -> None:
    """Pool initializer: a worker ignores Ctrl-C (its parent handles it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread while pool workers are spawned.

    A spawned worker inherits the blocked mask, so a Ctrl-C while it imports
    (before :func:`_ignore_sigint` runs) cannot print a traceback from it; a
    SIGINT that arrives meanwhile is delivered here on unblocking.
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: drop the queued tasks, terminate the running ones."""
    # the worker processes: no public API before Python 3.14 (terminate_workers)
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


#: Seconds to wait for a Dask scheduler given by address before giving up.
DASK_CONNECT_TIMEOUT = 5.0


def _dask_map(fn, tasks, scheduler, progress, desc):
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on extras
        raise ImportError(
            "a Dask scheduler needs: pip install 'optsched[dask]'"
        ) from exc
    own = not isinstance(scheduler, Client)
    if own:
        try:
            client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise OptschedError(
                f"Dask scheduler {scheduler!r}: cannot connect within "
                f"{DASK_CONNECT_TIMEOUT:g} s ({exc})"
            ) from exc
    else:
        client = scheduler
    try:
        futures = client.map(fn, tasks, pure=False)
        with _bar(len(tasks), progress, desc) as bar:
            for _ in as_completed(futures):
                bar.update()
        return client.gather(futures)
    finally:
        if own:
            client.close()
