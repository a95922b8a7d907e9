"""Edge storage bookkeeping for the storage extension (Wang et al., Sec. VI).

The checker (:mod:`optsched.edgecloud.check`) reads (7a)-(7d) as: a chunk
dispatched to an edge server ``s`` occupies ``u_j`` MB there in every slot
of ``[r_j, c_j]``, ``c_j`` the completion of its *job* ((2j)), and (7b)
caps the sum at ``U_s`` (the cloud's storage is unlimited).  The occupancy
starts at the arrival ``r_j`` whatever slot the server is chosen in, so a
scheduler that binds a job to a server only at slot ``tau > r_j`` (the
gang baselines) adds ``u_j`` to the slots ``r_j..tau`` after the fact.

:class:`StorageLedger` keeps, per capped edge server, the occupancy of every
slot up to the current one and the storage held by jobs that are not yet
complete.  A placement at slot ``tau`` is admissible when the server has
room in every slot of ``[r_j, tau]`` (:meth:`StorageLedger.room`); slots
after ``tau`` need no look-ahead: jobs already placed only ever leave
(a job's occupancy ends with its completion), and every later placement
checks the slots it adds to.  So if each placement is admissible, every
slot satisfies (7b).  For A_online (dispatch on arrival, ``tau = r_j``)
this is the paper's rule "check if the server's storage capacity is enough
to store the data chunk" against the current remaining capacity.
"""

from __future__ import annotations

import numpy as np

from optsched.core.base import TOL  # relative, as the checker's (7b)

from .instance import EdgeCloudInstance


class StorageLedger:
    """Occupancy of the capped edge servers, slot by slot (mutable state).

    Call :meth:`start_slot` once at the beginning of every slot, before any
    placement in it; :meth:`place` a job's chunks on a server when they are
    bound to it; :meth:`release` the job after its last slot (its
    completion ``c_j``) has been executed.

    Parameters
    ----------
    inst
        The instance; servers with ``storage_mb`` None (and the cloud) have
        unlimited storage.
    """

    def __init__(self, inst: EdgeCloudInstance) -> None:
        self.n_edge = len(inst.servers)
        self.cap = np.array(
            [np.inf if s.storage_mb is None else s.storage_mb for s in inst.servers],
            dtype=float,
        )
        self.slack = TOL * np.maximum(1.0, np.where(np.isinf(self.cap), 1, self.cap))
        self.chunk_mb = np.array([job.chunk_mb for job in inst.jobs], dtype=float)
        self.arrival = inst.arrival
        self.hist = np.zeros((self.n_edge, max(inst.n_slots, 1) + 1))
        self.live = np.zeros(self.n_edge)  # MB held by placed, incomplete jobs
        self.held: dict[int, np.ndarray] = {}  # job -> MB per edge server
        self.now = 0

    def start_slot(self, t: int) -> None:
        """Enter slot ``t``: every slot up to ``t`` holds the live occupancy."""
        if t >= self.hist.shape[1]:
            grow = np.zeros((self.n_edge, max(t + 1, 2 * self.hist.shape[1])))
            grow[:, : self.hist.shape[1]] = self.hist
            self.hist = grow
        for tt in range(self.now + 1, t + 1):
            self.hist[:, tt] = self.live
        self.now = t

    def room(self, j: int) -> np.ndarray:
        """Free MB per edge server in every slot of ``[r_j, now]`` (inf if uncapped)."""
        r = int(self.arrival[j])
        if r > self.now:
            raise ValueError(f"job {j} arrives in slot {r} after slot {self.now}")
        return self.cap - self.hist[:, r : self.now + 1].max(axis=1)

    def fits(self, room: np.ndarray, s: int, mb: float) -> bool:
        """Whether ``mb`` more MB fit on edge server ``s`` given ``room``."""
        return bool(mb <= room[s] + self.slack[s])

    def place(self, j: int, s: int, n_chunks: int = 1) -> None:
        """Bind ``n_chunks`` chunks of job ``j`` to edge server ``s`` (from ``r_j``)."""
        mb = n_chunks * float(self.chunk_mb[j])
        if mb == 0.0:
            return
        r = int(self.arrival[j])
        self.hist[s, r : self.now + 1] += mb
        self.live[s] += mb
        self.held.setdefault(j, np.zeros(self.n_edge))[s] += mb

    def release(self, j: int) -> None:
        """Job ``j`` is complete: its chunks leave every server after this slot."""
        mb = self.held.pop(j, None)
        if mb is not None:
            self.live -= mb
            self.live[np.abs(self.live) < 1e-12] = 0.0
