"""The asrpt checker on hand schedules: (1)-(3) and objective (8) by hand."""

from __future__ import annotations

import numpy as np
import pytest

from optsched.asrpt import AsrptInstance, AsrptSchedule, Job, Stage, check
from optsched.asrpt.timing import Cluster
from optsched.core.errors import InfeasibleScheduleError

C = Cluster(2, 2, 1.25, 300.0)
ONE = (Stage(k=1, pf=400.0, pb=600.0),)  # alpha = 1000 ms = 1 slot
# two replicas, h = 150 MB: one server 500 + 150/300 = 500.5 ms; split over
# two servers the AllReduce goes over B_inter / g: 500 + 150 * 2 / 1.25 = 740
TWO = (Stage(k=2, pf=200.0, pb=300.0, h=150.0),)
INST = AsrptInstance(C, (Job(0, 3, 3.0, ONE), Job(0, 2, 2.0, TWO), Job(1, 2, 2.0, ONE)))


def sched(start, servers, x):
    return AsrptSchedule(tuple(start), tuple(servers), tuple(np.array(a) for a in x))


GOOD = sched([0, 3, 1], [(0,), (0,), (0,)], [[[1]], [[2]], [[1]]])


def test_hand_schedule():
    ev = check(INST, GOOD)
    # A [0, 3), C [1, 3) share server 0; B starts at 3 when both end
    assert ev.completion.tolist() == pytest.approx([3.0, 3 + 2 * 0.5005, 3.0])
    assert ev.objective == pytest.approx(3 + 4.001 + 3)
    assert ev.flow_time == pytest.approx(10.001 - 1)
    assert ev.makespan == pytest.approx(4.001)
    assert ev.alpha.tolist() == pytest.approx([1000, 500.5, 1000])


def test_alpha_is_recomputed_from_the_placement():
    split = sched([0, 0, 1], [(0,), (1, 0), (0,)], [[[1]], [[1, 1]], [[1]]])
    with pytest.raises(InfeasibleScheduleError, match=r"\(3\): server 0"):
        check(INST, split)  # server 0: A, B's replica and C at time 1
    split = sched([0, 0, 3], [(0,), (1, 0), (1,)], [[[1]], [[1, 1]], [[1]]])
    ev = check(INST, split)
    assert ev.alpha[1] == pytest.approx(740.0)
    assert ev.completion[1] == pytest.approx(1.48)


@pytest.mark.parametrize(
    ("start", "servers", "x", "match"),
    [
        ([0, 3, 0], [(0,), (0,), (1,)], [[[1]], [[2]], [[1]]], r"\(1\)"),
        ([0, 2, 1], [(0,), (0,), (0,)], [[[1]], [[2]], [[1]]], r"\(3\)"),
        ([0, 3, 1], [(0,), (0,), (0,)], [[[1]], [[1]], [[1]]], r"\(2\)"),
        ([0, 3.5, 1], [(0,), (0,), (0,)], [[[1]], [[2]], [[1]]], r"\(8\)"),
        ([0, 3, 1], [(0,), (0, 0), (0,)], [[[1]], [[1, 1]], [[1]]], "domain"),
        ([0, 3, 1], [(0,), (2,), (0,)], [[[1]], [[2]], [[1]]], "domain"),
        ([0, 3, 1], [(0,), (0,), (0,)], [[[1]], [[2.5]], [[1]]], "domain"),
        ([0, 3], [(0,), (0,)], [[[1]], [[2]]], "domain"),
    ],
)
def test_violations_name_the_equation(start, servers, x, match):
    with pytest.raises(InfeasibleScheduleError, match=match):
        check(INST, sched(start, servers, x))


def test_schedule_json_round_trip():
    again = AsrptSchedule.from_json(GOOD.to_json())
    assert check(INST, again).objective == check(INST, GOOD).objective
