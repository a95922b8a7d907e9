"""Dual certificate of A_online (Wang et al., Sec. IV-E, App. C-D).

:func:`certificate` rebuilds, from the trace of an :func:`a_online` run
(``sched.meta["trace"]``), the dual point the paper's analysis uses:

* ``alpha_jd = min_{s,w} Q_jdsw`` (Alg. 2 lines 13/24), the trace column
  ``alpha``;
* ``beta_sw(t) = sum of 1/D_j over the chunks on (s, w) that have arrived
  and are not completed at t`` (Sec. IV-C, Alg. 4 line 8, Lemma 4's
  "average weight of uncompleted data chunks"),

scaled as Lemma 5 says for ``(1 + eps)``-speed workers (dual (11):
``alpha' = alpha``, ``beta' = beta / (1 + eps)``), and evaluates it against
every row (6a) / (11a) of :func:`optsched.models.edgecloud_relax.build_dual6`
/ :func:`~optsched.models.edgecloud_relax.build_dual11` (same index sets,
evaluated directly with numpy; a test cross-checks against the Pyomo rows).

Readings
--------
1. **The instance of (6).**  The algorithm runs on ``fast = sped_up(inst,
   1 + eps)``; the dual point is one of (6) for ``fast`` (``rate="slots"``:
   ``n_jsw = E_j B_j / p_jsw`` with ``p_jsw = fast.chunk_slots``, the ``p``
   of Eq. (5)), and of (11) = ``build_dual11(fast, eps)`` after Lemma 5's
   scaling.  ``T`` is raised to the makespan (the paper's "T large enough"),
   so every slot where some ``beta`` is positive has its rows.
2. **Counting.**  ``alpha`` counts ``c_jd + 1 - r_j`` slots (Eq. (5):
   ``D_j Q = Delta + wait + p = t* + p - r_j``), so ``beta`` sums a chunk's
   weight over the *inclusive* slot range ``[r_j, c_jd]`` (Alg. 4 line 8 with
   ``t* + p - 1`` as the last slot of the chunk).  ``beta_mode="final"``
   (default) uses the chunk's actual completion (Lemma 4's proof, after all
   postponements); ``"dispatch"`` the planned completion at dispatch (Alg. 4
   line 8 literally: later postponements of ``A_2`` chunks do not extend
   their ``beta``).
3. **Cloud.**  As in ``build_dual6`` every chunk has its own virtual cloud
   worker (index ``sum_{j' < j} D_j' + d``; the trace's fresh cloud worker
   indices are remapped); a cloud chunk puts ``1/D_j`` on its own worker on
   ``[r_j, c_jd]``.  Cloud columns use the cloud's best rate ``n_j1``
   (``ps=False`` reading of the relax module).
4. **Edge workers** carry the weights of their chunks as in 2.

What fails, and why (measured by the tests)
-------------------------------------------
* **Lemma 2 on cloud columns.**  A chunk that A_greedy keeps on the edge has
  ``beta = 0`` on its unused cloud worker, so (6a) at ``t = r_j +
  Delta_jc`` demands ``alpha_jd <= Delta_jc / D_j``; but ``alpha_jd`` is only
  bounded by the cloud's ``Q = (Delta_jc + p_j1) / D_j``.  Violated on almost
  every instance with a cloud, by up to ``a_j1 p_jz / D_j``.  The proof (App.
  C) skips this case ("allocating to the cloud is obviously feasible"), which
  is true only of the cloud worker that receives the chunk.  Treating the
  cloud as one worker whose ``beta`` sums all live cloud chunks does not
  help when no cloud chunk is live (and is no longer the dual of the LP with
  per-chunk cloud workers).  A split job's ``zeta_j = 0`` cloud chunk also
  violates its own cloud column: ``alpha = (Delta + p_j0)/D_j`` against
  ``(Delta + p_j1)/D_j``.  Neither is a bug of the certificate: the paper's
  point is not dual feasible there.  ``kind`` in :attr:`Certificate.violations`
  separates ``"cloud"`` from ``"edge"`` rows.
* **Lemma 2 on edge columns of other workers.**  App. C fixes the worker
  ``(s, w)`` that receives ``d`` and ends every case with ``beta_sw(t') =
  1/D_j + sum_{l >= k} 1/D_{j_l}``, counting ``d`` itself; on a worker that
  did *not* receive ``d`` that ``1/D_j`` is missing, and ``alpha_jd <=
  Q_jdsw`` no longer implies the row (violation up to ``1/D_j`` in (6a)).
  This is the most frequent violation on the generated instances.
* **Lemma 2 on the chunk's own worker** needs the worker busy from ``t0``
  on (Cases 1-3 write ``t' - r_j`` as a sum of processing times); idle
  gaps or a PS shortage (reading 8 of :mod:`optsched.edgecloud.online`)
  break it, and so does any slot after the worker has emptied
  (``beta = 0``: no case applies, but
  ``alpha`` still contains the postponement term ``p sum_{A_2} 1/D_j'``).
* **Lemma 4** (``sum alpha = sum beta``) needs every chunk's realised
  completion to equal its ``Q`` plus the postponements charged to later
  chunks' last terms: workers busy from ``t0``, no PS shortage, and chunks
  released on each worker in dispatch order (``fifo_release``; a chunk
  dispatched earlier but released later, e.g. with a longer upload delay,
  is in neither ``A(t0)`` of the other, so a preemption between them is
  charged to nobody).  Measured: exact on every generated instance with all
  three, ``sum alpha < sum beta`` otherwise (``lemma4_gap``).

When the paper's point is infeasible, ``repair_cost`` is the least extra
``beta`` (per row key, the largest shortfall) that makes it feasible;
``repaired_objective = dual_objective - repair_cost`` is then a valid lower
bound on the LP (weak duality).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from optsched.core.base import TOL
from optsched.models.edgecloud_relax import _columns, chunk_share

from .check import check
from .instance import EdgeCloudInstance
from .online import sped_up
from .schedule import EdgeCloudSchedule

__all__ = ["Certificate", "certificate", "dual_point_model"]


@dataclass(frozen=True, eq=False)
class Certificate:
    """The dual point of A_online and what it proves (see module docstring).

    ``alpha`` and ``beta`` are the point of (6) (``eps = 0``) or (11)
    (``beta`` already divided by ``1 + eps``).  ``sum_beta`` is the
    *unscaled* total of Lemma 4.  ``dual_objective`` is the paper's
    ``D_I = sum alpha - sum beta / (1 + eps)`` over *all* of ``beta``; slots
    ``[r_j, r_j + Delta_js)`` may carry ``beta`` that no row of (6a) uses
    (not in the model's index set), so the model's ``obj`` at the point
    (:func:`dual_point_model`) can be larger -- both are valid lower bounds
    when the point is feasible.
    """

    eps: float
    alpha: dict[tuple[int, int], float]
    beta: dict[tuple[int, int, int], float]
    sum_alpha: float
    sum_beta: float
    lemma4_gap: float  # sum_alpha - sum_beta
    dual_objective: float  # of (6) / (11) at the point
    max_violation: float  # max over rows (6a)/(11a) of lhs - rhs, >= 0
    n_rows: int
    n_violated: int
    violations: pd.DataFrame  # violated rows: j, d, s, w, t, z, excess, kind
    repair_cost: float
    repaired_objective: float
    primal_jct: float  # checker's total JCT of sched, objective (2)
    primal_ilp4: float  # f(y) of (3) for sched's runs, objective of (4)
    busy_from_t0: bool  # every edge worker busy from each chunk's t0 to c_jd
    fifo_release: bool  # on every edge worker, t0 nondecreasing in dispatch order
    ps_shortage: bool  # A_ps blocked some job (reading 8 of .online)
    bound_ilp4: float  # Theorem 3: 1 + 1/eps
    bound_minlp: float  # Theorem 3: D_max (1 + 1/eps)
    horizon: int
    meta: dict = field(default_factory=dict)

    @property
    def lemma2(self) -> bool:
        """The point is feasible for (6) / (11) (tolerance 1e-9)."""
        return self.max_violation <= 1e-9

    @property
    def lemma4(self) -> bool:
        """``sum alpha == sum beta`` (relative tolerance 1e-9)."""
        return abs(self.lemma4_gap) <= 1e-9 * max(1.0, self.sum_alpha)

    @property
    def own_violation(self) -> float:
        """Largest violation on rows of the worker the chunk was dispatched to."""
        v = self.violations
        return float(v.excess[v.own].max()) if v.own.any() else 0.0

    @property
    def edge_violation(self) -> float:
        """Largest violation on edge-worker rows (0 if none)."""
        v = self.violations
        return (
            float(v.excess[v.kind == "edge"].max()) if (v.kind == "edge").any() else 0.0
        )


def _dual_instance(inst: EdgeCloudInstance, sched: EdgeCloudSchedule, speed: float):
    fast = sped_up(inst, speed)
    T = max(fast.n_slots, int(sched.meta["makespan"]))
    return dataclasses.replace(fast, n_slots=T) if T > fast.n_slots else fast


def _busy_from_t0(tr: pd.DataFrame, runs: np.ndarray, cloud: int) -> bool:
    """Every edge worker trains in every slot of ``[t0, c_jd]`` of its chunks."""
    busy = {(s, w, t) for _, _, t, s, w in runs.tolist() if s != cloud}
    for row in cast(Iterable[Any], tr.itertuples()):
        if row.server == cloud:
            continue
        for t in range(int(row.release), int(row.completion) + 1):
            if (row.server, row.worker, t) not in busy:
                return False
    return True


def _fifo_release(tr: pd.DataFrame, cloud: int) -> bool:
    """On every edge worker, chunks are released in dispatch order."""
    edge = tr[tr.server != cloud]
    return bool(
        edge.groupby(["server", "worker"])
        .release.apply(lambda x: x.is_monotonic_increasing)
        .all()
    )


def _paper_point(
    tr: pd.DataFrame, dinst: EdgeCloudInstance, beta_mode: str
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int, int], float]]:
    """The paper's dual point from A_online's trace (unscaled, ``eps = 0`` form).

    ``alpha[j, d]`` per chunk; ``beta[s, w, t]`` sums the weights of the
    chunks on worker ``(s, w)`` from their arrival to their completion
    (``beta_mode``), cloud workers remapped to the chunk's virtual worker
    (reading 3).
    """
    c = dinst.cloud
    off = np.concatenate(([0], np.cumsum(dinst.D))).astype(int)
    alpha = {
        (int(j), int(d)): float(a)
        for j, d, a in zip(tr.job, tr.chunk, tr.alpha, strict=True)
    }
    last = tr.completion if beta_mode == "final" else tr.planned_completion
    beta: dict[tuple[int, int, int], float] = {}
    for j, d, s, w, a0, c_jd, wt in zip(
        tr.job, tr.chunk, tr.server, tr.worker, tr.arrival, last, tr.weight, strict=True
    ):
        ww = int(off[j] + d) if s == c else int(w)  # reading 3: remap cloud workers
        for t in range(int(a0), int(c_jd) + 1):
            key = (int(s), ww, t)
            beta[key] = beta.get(key, 0.0) + float(wt)
    return alpha, beta


def _rows_6a(
    tr: pd.DataFrame,
    dinst: EdgeCloudInstance,
    alpha: dict[tuple[int, int], float],
    beta: dict[tuple[int, int, int], float],
    speed: float,
) -> tuple[int, np.ndarray, pd.DataFrame]:
    """Rows (6a) of ``build_dual6(dinst)`` (== (11a) times ``1 + eps``) at the point.

    Returns the number of rows, every row's excess (left side minus right
    side, divided by ``speed``: the rows of (11a)) and the violated rows,
    most violated first.
    """
    c = dinst.cloud
    off = np.concatenate(([0], np.cumsum(dinst.D))).astype(int)
    r, D = dinst.arrival.astype(float), dinst.D.astype(float)
    cols = np.array(_columns(dinst, ps=False, zeta_one=False, window="delay"))
    a = chunk_share(dinst, "slots")
    j, d, s, w, t, z = cols.T
    al = np.array(
        [alpha[jj, dd] for jj, dd in zip(j.tolist(), d.tolist(), strict=True)]
    )
    be = np.array(
        [beta.get(k, 0.0) for k in zip(s.tolist(), w.tolist(), t.tolist(), strict=True)]
    )
    share = a[j, z]
    excess6 = share * al - share / D[j] * (t - r[j]) - be
    excess = excess6 / speed  # rows of (11a): (6a) divided by 1 + eps
    bad = excess > TOL
    own_w = {
        (int(jj), int(dd)): (int(ss), int(off[jj] + dd) if ss == c else int(ww))
        for jj, dd, ss, ww in zip(tr.job, tr.chunk, tr.server, tr.worker, strict=True)
    }
    own = np.array(
        [
            own_w[jj, dd] == (ss, ww)
            for jj, dd, ss, ww in zip(j[bad], d[bad], s[bad], w[bad], strict=True)
        ],
        dtype=bool,
    )
    violations = pd.DataFrame(
        {
            "job": j[bad],
            "chunk": d[bad],
            "server": s[bad],
            "worker": w[bad],
            "slot": t[bad],
            "z": z[bad],
            "excess": excess[bad],
            "kind": np.where(s[bad] == c, "cloud", "edge"),
            "own": own,  # the row's worker is the one the chunk was given
        }
    ).sort_values("excess", ascending=False, ignore_index=True)
    return len(cols), excess, violations


def certificate(
    inst: EdgeCloudInstance,
    sched: EdgeCloudSchedule,
    *,
    eps: float = 0.0,
    beta_mode: str = "final",
) -> Certificate:
    """The dual point (alpha, beta) of A_online's run ``sched`` on ``inst``.

    Parameters
    ----------
    inst
        The instance at speed 1 (as passed to :func:`a_online`).
    sched
        ``a_online(inst, speed=1 + eps)`` (its ``meta["trace"]`` is read).
    eps
        Speed augmentation; must match ``sched.meta["speed"] = 1 + eps``.
        ``eps = 0`` evaluates dual (6), ``eps > 0`` dual (11).
    beta_mode
        ``"final"`` (completion after all postponements, Lemma 4) or
        ``"dispatch"`` (planned completion at dispatch, Alg. 4 line 8).
    """
    if not eps >= 0:
        raise ValueError(f"eps: must be >= 0, got {eps!r}")
    speed = 1.0 + float(eps)
    if not np.isclose(float(sched.meta.get("speed", 1.0)), speed):
        raise ValueError(
            f"sched was run at speed {sched.meta.get('speed')}, expected {speed}"
        )
    if beta_mode not in ("final", "dispatch"):
        raise ValueError(f"beta_mode: 'final' or 'dispatch', got {beta_mode!r}")
    tr: pd.DataFrame = sched.meta["trace"]
    dinst = _dual_instance(inst, sched, speed)
    c = dinst.cloud
    alpha, beta = _paper_point(tr, dinst, beta_mode)
    sum_alpha = float(sum(alpha.values()))
    sum_beta = float(sum(beta.values()))
    n_rows, excess, violations = _rows_6a(tr, dinst, alpha, beta, speed)
    # least extra beta' per row key that makes every row feasible
    repair = (
        violations.groupby(["server", "worker", "slot"]).excess.max().sum()
        if len(violations)
        else 0.0
    )
    dual_obj = sum_alpha - sum_beta / speed

    # ---- primal values
    fast = sped_up(inst, speed)
    ev = check(dinst, sched)
    share_run = chunk_share(fast, "slots")
    zeta = np.asarray(sched.zeta, dtype=int)
    f = sum(
        share_run[jj, zeta[jj]] / fast.D[jj] * (tt - fast.arrival[jj])
        for jj, _, tt, _, _ in sched.runs.tolist()
    )
    d_max = int(inst.D.max())
    bound = np.inf if eps == 0 else 1.0 + 1.0 / eps
    return Certificate(
        eps=float(eps),
        alpha=alpha,
        beta={k: v / speed for k, v in beta.items()},
        sum_alpha=sum_alpha,
        sum_beta=sum_beta,
        lemma4_gap=sum_alpha - sum_beta,
        dual_objective=float(dual_obj),
        max_violation=float(max(excess.max(initial=0.0), 0.0)),
        n_rows=n_rows,
        n_violated=len(violations),
        violations=violations,
        repair_cost=float(repair),
        repaired_objective=float(dual_obj - repair),
        primal_jct=float(ev.objective),
        primal_ilp4=float(f),
        busy_from_t0=_busy_from_t0(tr, sched.runs, c),
        fifo_release=_fifo_release(tr, c),
        ps_shortage=bool(sched.meta.get("ps_blocked")),
        bound_ilp4=bound,
        bound_minlp=d_max * bound,
        horizon=int(dinst.n_slots),
        meta={"beta_mode": beta_mode, "dual_instance": dinst},
    )


def dual_point_model(cert: Certificate):
    """``build_dual6`` / ``build_dual11`` on the certificate's instance, at the point.

    Variables are fixed to ``cert.alpha`` / ``cert.beta`` (``beta`` keys
    outside the model's index set are ignored: no row uses them); rows
    ``c6a`` can be evaluated with ``pyo.value``.
    """
    from optsched.models.edgecloud_relax import build_dual11

    m = build_dual11(cert.meta["dual_instance"], cert.eps)
    for k in m.alpha:
        m.alpha[k].set_value(cert.alpha[k])
    for k in m.beta:
        m.beta[k].set_value(cert.beta.get(k, 0.0))
    return m
