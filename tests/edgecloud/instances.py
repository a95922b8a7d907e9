"""Instance families shared by the edge-cloud model tests."""

from __future__ import annotations

from optsched.edgecloud.instance import EdgeCloudInstance, Job, Server, generate


def small(seed: int) -> EdgeCloudInstance:
    """2-3 jobs, 1-2 edge servers, 24-30 slots (sizes the exact MILP proves fast)."""
    return generate(
        seed,
        n_jobs=2 + seed % 2,
        n_servers=1 + (seed // 2) % 2,
        n_slots=24 + 2 * (seed % 4),
        max_chunks=2,
        slot_hours=24,
        n_worker_types=2,
        n_ps_types=2,
    )


def small_storage(seed: int) -> EdgeCloudInstance:
    """As :func:`small` with storage (Sec. VI): ``U_s`` in [60, 200] MB, so (7b) binds.

    ``u_j`` is 51-82 MB (dataset / ``D_j`` with ``D_j = 2``), so an edge
    server stores one to three chunks at a time.
    """
    return generate(
        seed,
        n_jobs=2 + seed % 2,
        n_servers=1 + (seed // 2) % 2,
        n_slots=24 + 2 * (seed % 4),
        max_chunks=2,
        slot_hours=24,
        n_worker_types=2,
        n_ps_types=2,
        storage=True,
        storage_range=(60.0, 200.0),
    )


def one_server(chunks: int, ps: int) -> EdgeCloudInstance:
    """One job of ``chunks`` two-slot chunks on one edge server with two
    identical workers and ``ps`` identical PSs, ``T = 8``.

    ``r = 1``, two slots per chunk on the edge (``E B = 4`` mini-batches at
    ``n_j = 2``), edge delay 0 (ready in slot 1), cloud delay 10 (ready in
    slot 11 > T: no cloud).
    """
    job = Job(
        arrival=1, chunks=chunks, minibatches=4, epochs=1, delay=(0, 10),
        minibatch_hours=0.25, update_ms=0.0, model_mb=450.0, bandwidth_mbps=8.0,
        worker_type=0, ps_type=0,
    )  # fmt: skip
    return EdgeCloudInstance(8, 2, 2, (Server(workers=(2, 0), ps=(ps, 0)),), (job,))
