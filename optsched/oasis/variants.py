"""Named variants of OASiS: other readings of the price parameters (23)-(26).

``oasis`` (:func:`optsched.oasis.online.oasis`) follows (23)-(26) literally.
With sigmoid utilities ``L`` is a minimum over ``f_i(T - a_i)``, which for a
time-critical job is ``~ gamma1 exp(-5 (T - a_i - gamma3))``: ``ln(U/L)`` is
about 30 at ``T = 10`` and 1,400 at ``T = 300``, prices stay near 0 until a
resource is nearly full, and jobs of tiny utility are admitted
(docs/oasis.md, "Findings").  Each variant below changes only how ``U``, ``L``
or ``eta`` are computed; Alg. 1 and Alg. 2 are unchanged
(:func:`optsched.oasis.online.primal_dual`).  None replaces ``oasis``:
docs/oasis.md ("Variants") compares them on Figs. 3 and 5 and says which
reproduces the paper.

``oasis_lfloor``
    ``L = max(L, min(F / (4 T sum_h sum_r c_h^r), min_r U^r))`` per side, with
    ``F`` the largest utility a single job earns alone on the empty cluster
    (Alg. 2 at zero prices: a feasible schedule, so ``F <= OPT``).  Rationale:
    the proof of Theorem 4 uses ``L`` only through (33)-(35), ``D_0 = T sum L
    c <= OPT / 2``, and this ``L`` keeps that inequality (each side
    contributes ``<= F / 4``); Lemma 3 holds for any ``L <= U``.  So the
    ``2 alpha`` guarantee holds with the *smaller* ``alpha = ln(U/L)``.  What is
    lost is Appendix A's property (i): a job whose utility per unit of
    resource is below ``L`` may be rejected on an empty cluster.

``oasis_eta_one``
    ``eta_1 = eta_2 = 1``: the bound ``1/eta <= 1`` that Appendix A states,
    without the per-job condition ``1/eta <= X_i`` printed under (26) (which
    on our instances makes ``eta`` 10^2-10^4 and ``L`` as many times
    smaller).  Theorem 4 is not claimed: (34) needs the per-job condition.

``oasis_per_class``
    ``U``, ``L`` and ``eta`` of (23)-(26) computed per job class
    (time-insensitive ``gamma2 = 0``, time-sensitive ``0 < gamma2 < 2``,
    time-critical ``gamma2 >= 2``; the generator draws 0, [0.01, 1] and
    [4, 6], Sec. V-A) and each job charged its class's price functions on
    the shared allocations.  Rationale: ``L`` then collapses only for
    time-critical jobs instead of for everyone.  Theorem 4 is not claimed:
    the classes' prices are not one dual solution of (19)-(20).
"""

from __future__ import annotations

import numpy as np

from optsched.core.params import NoParams, resolve

from .instance import OasisInstance
from .online import PriceParams, best_schedule, oasis, price_params, primal_dual
from .schedule import OasisSchedule

#: Job classes of ``oasis_per_class`` (index = class id).
CLASSES = ("insensitive", "sensitive", "critical")
#: ``gamma2`` at or above which a job is time-critical (any value in (1, 4)
#: gives the generator's classes).
CRITICAL_GAMMA2 = 2.0
#: The variants and whether Theorem 4's ``2 alpha`` is claimed for them.
CLAIMS_THEOREM4 = {
    "oasis": True,
    "oasis_lfloor": True,
    "oasis_eta_one": False,
    "oasis_per_class": False,
}


def job_classes(inst: OasisInstance) -> np.ndarray:
    """Class id per job (:data:`CLASSES`) from ``gamma2``."""
    g2 = np.array([j.gamma2 for j in inst.jobs], dtype=float)
    return np.where(g2 == 0.0, 0, np.where(g2 < CRITICAL_GAMMA2, 1, 2)).astype(np.int64)


def best_single_job_utility(inst: OasisInstance) -> float:
    """``F = max_i`` utility of job ``i`` alone on the empty cluster.

    Alg. 2 at zero prices on the empty cluster: its schedule is feasible, so
    ``F`` is a certified lower bound on OPT (0 when no job can finish).
    """
    H, K, R, T = (
        inst.n_worker_servers,
        inst.n_ps_servers,
        inst.n_resources,
        inst.n_slots,
    )
    zw, zp = np.zeros((H, R, T)), np.zeros((K, R, T))
    return max(
        (best_schedule(inst, i, zw, zp, zw, zp).payoff for i in range(inst.n_jobs)),
        default=0.0,
    )


def lfloor_params(inst: OasisInstance) -> PriceParams:
    """Price parameters of ``oasis_lfloor`` (module docstring)."""
    return price_params(inst, floor=best_single_job_utility(inst))


def oasis_lfloor(
    inst: OasisInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> OasisSchedule:
    """OASiS with ``L`` floored at ``F / (4 T sum c)`` (module docstring).

    Deterministic (``seed`` unused); no parameters.
    """
    resolve(params, NoParams, "oasis_lfloor")
    return _single(inst, lfloor_params(inst), "oasis_lfloor")


def oasis_eta_one(
    inst: OasisInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> OasisSchedule:
    """OASiS with ``eta_1 = eta_2 = 1`` (module docstring).

    Deterministic (``seed`` unused); no parameters.
    """
    resolve(params, NoParams, "oasis_eta_one")
    return _single(inst, price_params(inst, eta="one"), "oasis_eta_one")


def per_class_params(inst: OasisInstance) -> tuple[list[PriceParams], np.ndarray]:
    """``(sets, which)``: one parameter set per class present, each job's set."""
    cls = job_classes(inst)
    present = np.unique(cls)
    sets = [price_params(inst, jobs=np.flatnonzero(cls == c)) for c in present]
    which = np.searchsorted(present, cls)
    return sets, which


def oasis_per_class(
    inst: OasisInstance, /, *, seed: int = 0, params: NoParams | None = None
) -> OasisSchedule:
    """OASiS with ``U``, ``L``, ``eta`` per job class (module docstring).

    Deterministic (``seed`` unused); no parameters.
    """
    resolve(params, NoParams, "oasis_per_class")
    if inst.n_jobs == 0:
        return _single(inst, price_params(inst), "oasis_per_class")
    sets, which = per_class_params(inst)
    return primal_dual(inst, sets, which, "oasis_per_class")


def _single(inst: OasisInstance, pp: PriceParams, name: str) -> OasisSchedule:
    return primal_dual(inst, [pp], np.zeros(inst.n_jobs, dtype=np.int64), name)


#: Every variant, the literal reading first.
VARIANTS = {
    "oasis": oasis,
    "oasis_lfloor": oasis_lfloor,
    "oasis_eta_one": oasis_eta_one,
    "oasis_per_class": oasis_per_class,
}
