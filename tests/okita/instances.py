"""A tiny hand-built Okita instance and schedule whose costs are computed by hand.

Two sites, resources ``(gpu, vcpu)``, ``T = 4``; capacities site 0 = (2, 4),
site 1 = (2, 6); ``q^{01} = q^{10} = 0.05`` per MB (5 per 100 MB).

* job 0: ``a = 1``, ``D = (2, 1)``, ``E = 1``, ``rho = 2`` (one worker
  trains 2 chunks per slot), ``m = (1, 1)``, ``n = (0, 1)``, ``delta = 20``
  MB, ``pi = 100`` MB, linear cost ``f(d) = 10 d + 50``.
* job 1: ``a = 2``, ``D = (0, 2)``, ``E = 2``, ``rho = 2`` (one chunk per
  worker and slot), ``m = (1, 2)``, ``n = (0, 2)``, ``delta = 40`` MB,
  ``pi = 50`` MB, piecewise cost ``f(d) = 20 if d < 2 else 300``.

Schedule (:func:`hand_schedule`):

* job 0, PS on site 0 in slots 1 and 2.  Slot 1: ``g^{00} = 2``, ``y^0 = 1``
  (``rho y = 2 >= E g = 2``).  Slot 2: ``g^{11} = 1``, ``y^1 = 1``.
  ``t_0 = 2``, duration 1, latency ``10 + 50 = 60``; transfer 0; exchange
  ``pi y^1 q^{10} = 100 * 1 * 0.05 = 5``.
* job 1, PS on site 1 in slots 2 and 3.  Slot 2: ``g^{11} = 1``, ``y^1 = 1``.
  Slot 3: ``g^{10} = 1`` (moved to site 0), ``y^0 = 1``.  ``t_1 = 3``,
  duration 1 < 2, latency 20; transfer ``delta g^{10} q^{10} = 40 * 0.05 =
  2``; exchange ``pi y^0 q^{01} = 50 * 0.05 = 2.5``.

Totals: latency 80, bandwidth ``5 + 2 + 2.5 = 9.5``, objective 89.5.  Busiest
cell: site 1, slot 2 uses job 0's worker (1, 1), job 1's worker (1, 2) and PS
(0, 2): (2, 5) <= (2, 6).
"""

from optsched.okita import Job, LatencyCost, OkitaInstance, OkitaSchedule, Site


def hand_instance() -> OkitaInstance:
    """The two-site, two-job instance of the module docstring."""
    return OkitaInstance(
        n_slots=4,
        sites=(Site((2.0, 4.0), "a"), Site((2.0, 6.0), "b")),
        bandwidth_cost=((0.0, 0.05), (0.05, 0.0)),
        resources=("gpu", "vcpu"),
        jobs=(
            Job(
                arrival=1,
                data=(2, 1),
                epochs=1,
                rho=2.0,
                worker_demand=(1.0, 1.0),
                ps_demand=(0.0, 1.0),
                chunk_mb=20.0,
                param_mb=100.0,
                cost=LatencyCost.linear(10.0, 50.0),
            ),
            Job(
                arrival=2,
                data=(0, 2),
                epochs=2,
                rho=2.0,
                worker_demand=(1.0, 2.0),
                ps_demand=(0.0, 2.0),
                chunk_mb=40.0,
                param_mb=50.0,
                cost=LatencyCost.piecewise(20.0, 300.0, 2.0),
            ),
        ),
    )


WORKERS = [(0, 1, 0, 1), (0, 2, 1, 1), (1, 2, 1, 1), (1, 3, 0, 1)]
PS = [(0, 1, 0), (0, 2, 0), (1, 2, 1), (1, 3, 1)]
DATA = [(0, 1, 0, 0, 2), (0, 2, 1, 1, 1), (1, 2, 1, 1, 1), (1, 3, 1, 0, 1)]


def hand_schedule(workers=None, ps=None, data=None) -> OkitaSchedule:
    """The schedule of the module docstring, with any row list replaced."""
    return OkitaSchedule.build(
        WORKERS if workers is None else workers,
        PS if ps is None else ps,
        DATA if data is None else data,
        algorithm="hand",
    )
