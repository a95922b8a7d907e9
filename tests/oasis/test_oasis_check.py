"""The independent checker rejects hand-built violations of each of (2)-(13)."""

import dataclasses

import numpy as np
import pytest

from optsched.core.errors import InfeasibleScheduleError
from optsched.oasis.check import check


def _mut(sched, **arrays):
    return dataclasses.replace(sched, **{k: v for k, v in arrays.items()})


def test_feasible_schedule_objective_by_hand(hand):
    """A's utility 10/(1+e^0) = 5 and B's 20/(1+e^0) = 10 give objective 15."""
    inst, sched = hand
    ev = check(inst, sched)
    assert ev.objective == pytest.approx(15.0)
    assert list(ev.completion) == [2, 3]
    assert ev.lateness[0] == pytest.approx(2 - 1 - 1.0)  # t_hat - a - gamma3


def _expect(inst, sched, eq):
    with pytest.raises(InfeasibleScheduleError) as info:
        check(inst, sched)
    assert info.value.constraint == eq
    assert str(info.value).startswith(f"constraint {eq}")


def test_violation_2_workload(hand):
    """Too few worker-slots for an admitted job violates (2)."""
    inst, s = hand
    y = s.workers.copy()
    y[0, 0, 1] = 1  # A gets 3 < 4 worker-slots
    _expect(inst, _mut(s, workers=y), "(2)")


def test_violation_3_max_workers(hand):
    """More than N_i concurrent workers violates (3)."""
    inst, s = hand
    y = s.workers.copy()
    y[0, 0, 0] = 3  # N_A = 2 (cpu 9 > 8 would be (4), so keep slot 1 only: 9>8)
    y[1, 0, 2] = 0
    z = s.ps.copy()
    z[1, 0, 2] = 0
    adm = np.array([True, False])
    # 3 workers x 3 cpu = 9 > 8 also breaks (4); (3) is checked first
    _expect(inst, _mut(s, workers=y, ps=z, admitted=adm), "(3)")


def test_violation_3_rejected_job_has_workers(hand):
    """Workers for a job with x_i = 0 violate (3) (N_i x_i = 0)."""
    inst, s = hand
    _expect(inst, _mut(s, admitted=np.array([True, False])), "(3)")


def test_violation_4_worker_capacity(hand):
    """Two jobs' workers exceeding a worker server's cpu violate (4)."""
    inst, s = hand
    y = s.workers.copy()
    y[1, 0, 1] = 1  # slot 2: A 2x3 + B 1x3 = 9 > 8 cpu
    z = s.ps.copy()
    z[1, 0, 1] = 0
    _expect(inst, _mut(s, workers=y, ps=z), "(4)")


def test_violation_5_ps_capacity(hand):
    """Two parameter servers on a 1-cpu PS server violate (5)."""
    inst, s = hand
    y, z = s.workers.copy(), s.ps.copy()
    y[0, 0, 2] = 1
    z[0, 0, 2] = 1  # slot 3: A's PS + B's PS = 2 cpu > 1
    _expect(inst, _mut(s, workers=y, ps=z), "(5)")


def test_violation_6_ps_bandwidth(hand):
    """Workers without enough PS bandwidth violate (6)."""
    inst, s = hand
    z = s.ps.copy()
    z[0, 0, 0] = 0
    _expect(inst, _mut(s, ps=z), "(6)")


def test_violation_7_ps_count(hand):
    """More parameter servers than workers violate (7)."""
    inst, s = hand
    z = s.ps.copy()
    z[0, 0, 3] = 1  # a PS in slot 4 where A has no workers
    _expect(inst, _mut(s, ps=z), "(7)")


def test_8_completion_is_last_worker_slot(hand):
    """Moving B's worker to slot 4 moves t_hat to 4 and lowers B's utility (8)."""
    inst, s = hand
    y, z = s.workers.copy(), s.ps.copy()
    y[1, 0, 2], z[1, 0, 2] = 0, 0
    y[1, 0, 3], z[1, 0, 3] = 1, 1
    ev = check(inst, _mut(s, workers=y, ps=z))
    assert ev.completion[1] == 4
    assert ev.utility[1] == pytest.approx(20.0 / (1.0 + np.exp(1.0)))


def test_violation_9_workers_before_arrival(hand):
    """A worker before a_i violates (9)."""
    inst, s = hand
    y = s.workers.copy()
    y[1, 0, 0] = 1  # B arrives in slot 2
    _expect(inst, _mut(s, workers=y), "(9)")


def test_violation_10_ps_before_arrival(hand):
    """A parameter server before a_i violates (10)."""
    inst, s = hand
    z = s.ps.copy()
    z[1, 0, 0] = 1
    _expect(inst, _mut(s, ps=z), "(10)")


def test_violation_11_binary_admission(hand):
    """x_i outside {0, 1} violates (11)."""
    inst, s = hand
    _expect(inst, _mut(s, admitted=np.array([2, 1])), "(11)")


def test_violation_12_integral_workers(hand):
    """Fractional or negative worker counts violate (12)."""
    inst, s = hand
    y = s.workers.astype(float)
    y[0, 0, 2] = 0.5
    _expect(inst, _mut(s, workers=y), "(12)")
    y = s.workers.copy()
    y[0, 0, 3] = -1
    _expect(inst, _mut(s, workers=y), "(12)")


def test_violation_13_integral_ps(hand):
    """Negative parameter-server counts violate (13)."""
    inst, s = hand
    z = s.ps.copy()
    z[0, 0, 3] = -1
    _expect(inst, _mut(s, ps=z), "(13)")
