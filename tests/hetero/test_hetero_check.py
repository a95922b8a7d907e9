"""The independent checker: each of (8a)-(8d) rejected, objective (8) recomputed by hand."""

import dataclasses

import numpy as np
import pytest

from optsched.core.errors import InfeasibleScheduleError
from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example
from optsched.hetero.schedule import HeteroPlacement


def _las_placement():
    """Sec. IV-A's LAS placement: ResNet-18 on {T4, V100}, VGG-19 on {T4, V100}."""
    return HeteroPlacement.from_assignment(example(), [0, 1, 0, 1])


def _expect(inst, placement, eq):
    with pytest.raises(InfeasibleScheduleError) as info:
        check(inst, placement)
    assert info.value.constraint == eq
    assert str(info.value).startswith(f"constraint {eq}: ")


def test_objective_by_hand_proportional():
    """Proportional split: ResNet 200*1e5/(275+644), VGG 200*5e4/(884+1754), averaged."""
    ev = check(example(), _las_placement())
    r18 = 200 * 100_000 / (275 + 644)
    vgg = 200 * 50_000 / (884 + 1754)
    assert ev.jct == pytest.approx([r18, vgg])
    assert ev.objective == pytest.approx((r18 + vgg) / 2)
    assert ev.throughput == pytest.approx([919, 2638])
    assert ev.comm_latency.tolist() == [0.0, 0.0]
    assert ev.n_workers.tolist() == [2, 2]


def test_non_proportional_split_pays_the_straggler():
    """An equal split is charged max_k pi_k / rho_k (3), not the proportional latency (11)."""
    inst = example()
    p = _las_placement()
    pi = p.workload.copy()
    pi[0, 0], pi[0, 2] = 50_000.0, 50_000.0  # ResNet-18 split equally on T4 and V100
    ev = check(inst, dataclasses.replace(p, workload=pi))
    assert ev.compute_latency[0] == pytest.approx(50_000 / 275)
    assert ev.jct[0] == pytest.approx(200 * 50_000 / 275)


def _comm_instance(same_node: bool, communication: bool = True) -> HeteroInstance:
    """One job (D = 100 MB, 10 epochs, 1000 samples) on two workers of 100 samples/s."""
    return HeteroInstance(
        jobs=(Job("j", 1000, 10, 100.0),),
        workers=(Worker("T4", 0), Worker("T4", 0 if same_node else 1)),
        throughput=((100.0, 100.0),),
        communication=communication,
    )


@pytest.mark.parametrize(
    ("same_node", "rate"),
    [(False, 10.0), (True, 300.0)],
)
def test_communication_latency_units(same_node, rate):
    """(6): 2 (K_i - 1) (8 D_i / 1000 Gb) / (r K_i) = 2 * 1 * 0.8 / (r * 2) s per epoch."""
    inst = _comm_instance(same_node)
    ev = check(inst, HeteroPlacement.from_assignment(inst, [0, 0]))
    l_c = 2 * 1 * 0.8 / (rate * 2)
    assert ev.comm_latency[0] == pytest.approx(l_c)
    assert ev.jct[0] == pytest.approx(10 * (1000 / 200 + l_c))


def test_communication_switch_and_single_worker():
    """No communication term when the instance ignores it or K_i = 1."""
    inst = _comm_instance(False, communication=False)
    ev = check(inst, HeteroPlacement.from_assignment(inst, [0, 0]))
    assert ev.comm_latency[0] == 0.0
    two = HeteroInstance(
        jobs=(Job("a", 100, 1, 500.0), Job("b", 100, 1, 500.0)),
        workers=(Worker("T4", 0), Worker("T4", 1)),
        throughput=((10.0, 10.0), (10.0, 10.0)),
    )
    ev = check(two, HeteroPlacement.from_assignment(two, [0, 1]))
    assert ev.comm_latency.tolist() == [0.0, 0.0]
    assert ev.objective == pytest.approx(10.0)


def test_evaluates_on_true_throughput():
    """A split decided on a wrong prediction is charged on rho* (Fig. 15)."""
    inst = HeteroInstance(
        jobs=(Job("j", 300, 1, 0.0),),
        workers=(Worker("T4", 0), Worker("V100", 0)),
        throughput=((100.0, 200.0),),
        predicted=((200.0, 100.0),),
        communication=False,
    )
    p = HeteroPlacement.from_assignment(inst, [0, 0])  # 200 / 100 split by prediction
    assert p.workload.tolist() == [[200.0, 100.0]]
    assert check(inst, p).objective == pytest.approx(max(200 / 100, 100 / 200))


def test_placement_json_round_trip():
    """A placement survives to_json / from_json with the same evaluation."""
    p = dataclasses.replace(
        _las_placement(), category=(2, 2), prices=np.array([0, 1, 2, 3.5])
    )
    q = HeteroPlacement.from_json(p.to_json())
    assert np.array_equal(q.sigma, p.sigma) and np.array_equal(q.workload, p.workload)
    assert q.category == (2, 2) and q.prices.tolist() == [0, 1, 2, 3.5]
    assert check(example(), q).objective == check(example(), p).objective


def test_violation_8b_not_binary():
    """sigma = 2 violates (8b)."""
    p = _las_placement()
    s = p.sigma.copy()
    s[0, 0] = 2
    _expect(example(), dataclasses.replace(p, sigma=s), "(8b)")


def test_violation_8b_shape():
    """A sigma of the wrong shape is reported under (8b)."""
    p = _las_placement()
    _expect(example(), dataclasses.replace(p, sigma=p.sigma[:, :3]), "(8b)")


def test_violation_8d_worker_twice():
    """A worker in two jobs violates (8d)."""
    p = _las_placement()
    s = p.sigma.copy()
    s[1, 0] = 1  # worker 0 also in VGG-19
    _expect(example(), dataclasses.replace(p, sigma=s), "(8d)")


def test_violation_8b_job_without_worker():
    """A job with no worker violates (8b)."""
    inst = example()
    s = np.array([[1, 1, 1, 1], [0, 0, 0, 0]])
    pi = np.array([[25_000.0] * 4, [0.0] * 4])
    _expect(inst, HeteroPlacement(s, pi), "(8b)")


def test_violation_8c_idle_worker():
    """An idle worker violates (8c)."""
    inst = example()
    s = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    pi = np.array([[100_000.0, 0, 0, 0], [0, 50_000.0, 0, 0]])
    _expect(inst, HeteroPlacement(s, pi), "(8c)")


def test_violation_8a_sum():
    """Workloads not summing to |Pi_i| violate (8a)."""
    p = _las_placement()
    pi = p.workload.copy()
    pi[1, 1] -= 1.0
    _expect(example(), dataclasses.replace(p, workload=pi), "(8a)")


def test_violation_8a_foreign_worker():
    """Workload of a job on another job's worker violates (8a)."""
    p = _las_placement()
    pi = p.workload.copy()
    pi[0, 0] -= 10.0
    pi[0, 1] += 10.0  # worker 1 belongs to VGG-19
    _expect(example(), dataclasses.replace(p, workload=pi), "(8a)")


def test_violation_8a_negative():
    """A negative workload violates (8a)."""
    p = _las_placement()
    pi = p.workload.copy()
    pi[1, 3] += pi[1, 1] + 5.0  # sum unchanged, worker 1 gets -5
    pi[1, 1] = -5.0
    _expect(example(), dataclasses.replace(p, workload=pi), "(8a)")
