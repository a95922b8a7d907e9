"""Numerical check of Theorem 4's primal-dual argument on one OASiS run.

The proof (Appendix B) builds a dual solution of (19)-(20) from the run: the
final prices ``p, q`` and the payoffs ``mu_i`` of Alg. 1, and argues

* dual feasibility: ``mu_i >= f_i(t_il - a_i) - cost_l(p, q)`` for every job
  ``i`` and schedule ``l`` (so ``D_I >= OPT`` by weak duality);
* Lemmas 1-2: ``P_I >= (D_I - D_0) / alpha``;
* (33)-(35): ``D_0 <= OPT / 2``; together ``OPT <= 2 alpha P_I``.

:func:`certificate` evaluates each link for a schedule returned by
:func:`optsched.oasis.online.primal_dual` (``oasis`` or a variant of
:mod:`optsched.oasis.variants`).  Feasibility is tested against the exact
pricing oracle :func:`optsched.models.oasis.best_column` (every schedule
of ``L_i``), so a violation is a real one; two reasons it can fail are
documented in docs/errata.md: Alg. 2 prices chunk-granular schedules only,
and an exhausted resource costs ``U`` per unit, which blocks a job only
when ``w << c``.  ``D_exact`` re-prices every job at the final prices with
the exact oracle: a valid upper bound on OPT whatever the run did.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .check import check
from .instance import OasisInstance
from .schedule import OasisSchedule


@dataclass(frozen=True)
class Certificate:
    """The links of Theorem 4's proof evaluated on one run.

    Attributes
    ----------
    primal
        ``P_I``: the checker's total utility of the schedule.
    alpha
        ``max_r(1, ln U/L)`` of the run's price parameters (the largest
        over the parameter sets of a per-class run).
    d0
        ``D_0 = sum_t (sum_{h,r} p_h^r(0) c_h^r + sum_{k,r} q_k^r(0) c_k^r)``
        (33), at the initial (empty-cluster) prices; per-class runs use the
        elementwise maximum over the classes' initial prices.
    d_run
        ``D_I = sum_i mu_i + sum p c + sum q c`` with Alg. 1's payoffs and
        the final prices.
    d_exact
        ``sum_i max(0, max_l profit_l) + sum p c + sum q c``: the dual with
        exact ``mu`` at the final prices (always feasible, ``>= OPT``).
    n_violations
        Jobs with ``mu_i < max_l profit_l - tol`` at the final prices.
    max_violation
        Largest ``max_l profit_l - mu_i`` (0 when feasible).
    """

    primal: float
    alpha: float
    d0: float
    d_run: float
    d_exact: float
    n_violations: int
    max_violation: float

    @property
    def dual_feasible(self) -> bool:
        """The run's ``(mu, p, q)`` is feasible for (20)."""
        return self.n_violations == 0

    @property
    def lemma2_holds(self) -> bool:
        """``P_I >= (D_I - D_0) / alpha`` (Lemmas 1-2 summed over jobs)."""
        return self.primal >= (self.d_run - self.d0) / self.alpha - 1e-6 * max(
            1.0, abs(self.d_run)
        )

    def bounds_opt(self, opt: float) -> bool:
        """``OPT <= D_exact`` (weak duality; must always hold)."""
        return opt <= self.d_exact + 1e-6 * max(1.0, abs(self.d_exact))


def _capacity_value(inst: OasisInstance, p: np.ndarray, q: np.ndarray) -> float:
    return float(
        (p * inst.c_worker[:, :, None]).sum() + (q * inst.c_ps[:, :, None]).sum()
    )


def certificate(
    inst: OasisInstance, sched: OasisSchedule, *, tol: float = 1e-6
) -> Certificate:
    """Evaluate Theorem 4's argument on ``sched`` (a primal-dual run).

    Raises
    ------
    ValueError
        If ``sched`` carries no payoffs / prices (not a primal-dual run).
    """
    from optsched.models.oasis import best_column

    if sched.payoff is None or sched.worker_prices is None or sched.ps_prices is None:
        raise ValueError(
            f"sched: algorithm {sched.algorithm!r} has no payoffs/prices "
            "(certificate needs an OASiS primal-dual run)"
        )
    sets = sched.meta.get("param_sets") or [sched.meta["params"]]
    H, K, R = inst.n_worker_servers, inst.n_ps_servers, inst.n_resources
    p0 = np.maximum.reduce(
        [pp.worker_price(np.zeros((H, R)), inst.c_worker) for pp in sets]
    )
    q0 = np.maximum.reduce([pp.ps_price(np.zeros((K, R)), inst.c_ps) for pp in sets])
    d0 = inst.n_slots * float((p0 * inst.c_worker).sum() + (q0 * inst.c_ps).sum())
    p, q = sched.worker_prices, sched.ps_prices
    cap_value = _capacity_value(inst, p, q)
    mu = np.asarray(sched.payoff, dtype=float)
    exact = np.array(
        [max(0.0, best_column(inst, i, p, q).profit) for i in range(inst.n_jobs)]
    )
    gap = exact - mu
    viol = gap > tol * np.maximum(1.0, np.abs(exact))
    return Certificate(
        primal=float(check(inst, sched).objective),
        alpha=float(sched.meta["alpha"]),
        d0=d0,
        d_run=float(mu.sum()) + cap_value,
        d_exact=float(exact.sum()) + cap_value,
        n_violations=int(viol.sum()),
        max_violation=float(max(0.0, gap.max())) if len(gap) else 0.0,
    )
