"""Reset events: the time simulator against hand-computed completion times (Fig. 17 setting)."""

import numpy as np
import pytest

from optsched.hetero.check import check
from optsched.hetero.instance import HeteroInstance, Job, Worker, example, generate
from optsched.hetero.online import has
from optsched.hetero.paper import PAPER
from optsched.hetero.simulate import remaining_instance, simulate

PLACEMENT_POLICIES = [
    "has",
    "jps",
    "optimus",
    "optimus_lb",
    "exhaustive",
    "gavel",
    "las",
]


def _one_job(communication=False):
    """1,000 samples, 10 epochs, D = 100 MB on two V100 (300/s, node 0) and one T4 (100/s, node 1)."""
    return HeteroInstance(
        jobs=(Job("a", 1_000, 10, 100.0),),
        workers=(Worker("V100", 0), Worker("V100", 0), Worker("T4", 1)),
        throughput=((300.0, 300.0, 100.0),),
        communication=communication,
    )


# epochs * samples / throughput: proportional split 300+300+100 = 700/s,
# equal split 3 * min = 300/s (Optimus, Gavel's static placement)
HAND = {
    "has": 10 * 1_000 / 700,
    "jps": 10 * 1_000 / 700,
    "optimus": 10 * 1_000 / 300,
    "optimus_lb": 10 * 1_000 / 700,
    "exhaustive": 10 * 1_000 / 700,
    "gavel": 10 * 1_000 / 300,
    "las": 10 * 1_000 / 700,
}


@pytest.mark.parametrize("name", PLACEMENT_POLICIES)
def test_single_job_jct_by_hand(name):
    """One job on all workers finishes at epochs * samples / throughput, static or dynamic."""
    inst = _one_job()
    for dynamic in (False, True):
        # the callable, so that "gavel" is its static placement, not its rounds
        r = simulate(inst, PAPER.algorithms[name], dynamic=dynamic)
        assert r.completion.tolist() == pytest.approx([HAND[name]], rel=1e-12)
        assert r.avg_jct == r.makespan
        assert r.decisions == 1


def test_single_job_with_communication_by_hand():
    """Ring over two nodes: + 2 (3-1) (8*100/1000 Gb) / (10 Gbps * 3) = 0.10667 s per epoch."""
    inst = _one_job(communication=True)
    r = simulate(inst, "has")
    per_epoch = 1_000 / 700 + 2 * 2 * 0.8 / (10 * 3)
    assert r.completion[0] == pytest.approx(10 * per_epoch, rel=1e-12)


def test_single_job_gavel_rounds_by_hand():
    """Gavel's rounds: scale 1 runs on one V100 (10*1000/300 s), scale 2 on both (10*1000/600 s)."""
    inst = _one_job()
    assert simulate(inst, "gavel").completion[0] == pytest.approx(10 * 1_000 / 300)
    r = simulate(inst, "gavel", params={"scale_factor": 2})
    assert r.completion[0] == pytest.approx(10 * 1_000 / 600)
    short = simulate(inst, "gavel", params={"scale_factor": 2}, round_s=1.0)
    assert short.completion[0] == pytest.approx(10 * 1_000 / 600, rel=1e-9)


@pytest.mark.parametrize(
    "name", ["has", "jps", "optimus", "optimus_lb", "gavel", PAPER.algorithms["gavel"]]
)
def test_dynamic_equals_static_for_one_job(name):
    """With a single job there is no reset event: dynamic and static average JCT coincide."""
    inst = generate(5, n_jobs=1, n_workers=6)
    assert simulate(inst, name, dynamic=True).avg_jct == pytest.approx(
        simulate(inst, name, dynamic=False).avg_jct, rel=1e-12
    )


def test_static_policy_completes_at_checker_jct():
    """Static HAS on Sec. IV-A: Table II's {3, 1}, 200*1e5/1194 and 200*5e4/1754 seconds."""
    inst = example()
    r = simulate(inst, "has", dynamic=False)
    assert r.completion == pytest.approx(
        [200 * 1e5 / 1194, 200 * 5e4 / 1754], rel=1e-12
    )
    assert r.completion == pytest.approx(check(inst, has(inst)).jct, rel=1e-12)
    assert r.avg_jct == pytest.approx(11_225.8, abs=0.05)


def test_dynamic_has_sec_iv_a_by_hand():
    """After VGG-19 ends (5,701.3 s) ResNet-18 gets all workers (1,838/s) for its remaining epochs."""
    inst = example()
    r = simulate(inst, "has", dynamic=True)
    t1 = 200 * 5e4 / 1754
    left = 200 - t1 * 1194 / 1e5  # epochs of ResNet-18 done at 1,194 samples/s
    assert r.completion[1] == pytest.approx(t1, rel=1e-12)
    assert r.completion[0] == pytest.approx(t1 + left * 1e5 / 1838, rel=1e-9)
    assert r.makespan == pytest.approx(r.completion[0])
    assert r.decisions == 2
    assert [s.active for s in r.segments] == [(0, 1), (0,)]
    assert r.segments[1].assignment.tolist() == [0, 0, 0, 0]
    assert r.segments[1].remaining[0] == pytest.approx(left)


def test_gavel_rounds_alternate_by_hand():
    """Two 1,000 s jobs sharing one 2-GPU type (scale 2) alternate 360 s rounds: A at 1,720 s, B at 2,080 s."""
    # Rounds: A, B, A (tie), B, then A runs 280 s and ends at 1,440 + 280; B's
    # round starts at the next boundary 1,800 and needs 280 s more.
    inst = HeteroInstance(
        jobs=(Job("A", 10_000, 10, 0.0), Job("B", 10_000, 10, 0.0)),
        workers=(Worker("V100", 0), Worker("V100", 0)),
        throughput=((50.0, 50.0), (50.0, 50.0)),
        communication=False,
    )
    r = simulate(inst, "gavel", params={"scale_factor": 2}, round_s=360.0)
    assert r.completion.tolist() == pytest.approx([1_720.0, 2_080.0])
    assert r.avg_jct == pytest.approx(1_900.0)
    runs = [int(s.assignment[0]) for s in r.segments]
    assert runs == [0, 1, 0, 1, 0, 1]


def test_remaining_instance_preserves_decisions():
    """Remaining work in units of max/1e9 epochs: proportional epochs, same HAS choice."""
    inst = generate(3, n_jobs=3, n_workers=7)
    sub = remaining_instance(inst, [0, 1, 2], inst.epochs)
    big = int(np.argmax(inst.epochs))
    assert sub.jobs[big].epochs == 10**9
    assert np.allclose(sub.epochs / sub.epochs.max(), inst.epochs / inst.epochs.max())
    assert has(sub).category == has(inst).category
    part = remaining_instance(inst, [2, 0], [0.5, 2.0])
    assert [j.name for j in part.jobs] == [inst.jobs[2].name, inst.jobs[0].name]
    assert [j.epochs for j in part.jobs] == [250_000_000, 10**9]
    assert part.rho.tolist() == inst.rho[[2, 0]].tolist()


def test_dynamic_never_leaves_workers_idle_and_completes_all():
    """Dynamic runs use every worker in every segment; all jobs finish; static JCTs match the checker."""
    inst = generate(2, n_jobs=3, n_workers=7)
    for name in ("optimus", "optimus_lb", "jps"):
        dyn = simulate(inst, name, dynamic=True)
        assert np.isfinite(dyn.completion).all()
        assert all((s.assignment >= 0).all() for s in dyn.segments)
        assert dyn.decisions == len(dyn.segments) == 3
        st = simulate(inst, name, dynamic=False)
        assert st.completion == pytest.approx(
            check(inst, PAPER.run(name, inst)).jct, rel=1e-12
        )


def test_unknown_policy():
    """An unknown policy name lists the known ones."""
    with pytest.raises(KeyError, match="known"):
        simulate(example(), "srtf")
