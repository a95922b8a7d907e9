"""A-SRPT local search: checked, never worse than the start, never below a proven optimum."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optsched.models.asrpt import solve_offline

import optsched
from optsched.asrpt import AsrptInstance, Job, Stage, check, generate
from optsched.asrpt.local_search import (
    META_KEY,
    Priority,
    decode,
    improve,
    job_options,
    kick,
    read_priority,
)
from optsched.asrpt.paper import default_start
from optsched.asrpt.schedule import AsrptSchedule
from optsched.asrpt.timing import Cluster

ONE = (Stage(k=1, pf=400.0, pb=600.0),)
TWO = (Stage(k=2, pf=200.0, pb=300.0, h=300.0),)


def _one_server() -> AsrptInstance:
    """One server of 2 GPUs: A (1 GPU, 3 slots) and B (2 GPUs, 2 x 0.501 slots)."""
    return AsrptInstance(Cluster(1, 2, 1.25, 300.0),
                         (Job(0, 3, 3.0, ONE), Job(0, 2, 2.0, TWO)))  # fmt: skip


def test_finds_the_short_job_first_by_hand():
    # A first: A runs [0, 3), B needs both GPUs so starts at 3: 3 + 4.002.
    # B first: B runs [0, 1.002), A starts at the next whole slot 2: 1.002 + 5,
    # the optimum (tests/asrpt/test_asrpt_offline.py proves it by brute force).
    inst = _one_server()
    opts = job_options(inst)
    a_first = decode(inst, Priority((0, 1), (0, 0)), opts)
    assert a_first.start == (0, 3)
    assert check(inst, a_first).objective == pytest.approx(3 + 4.002)
    plain = AsrptSchedule(a_first.start, a_first.servers, a_first.x, {"algorithm": "x"})
    best, trace = improve(inst, plain, time_limit=None, method="descent")
    assert best.start == (2, 0)
    assert check(inst, best).objective == pytest.approx(1.002 + 5)
    assert trace.start == pytest.approx(7.002) and trace.objective < trace.start
    assert best.meta["algorithm"] == "x+ls"


def test_decoder_places_at_the_earliest_fitting_slot_after_a_completion():
    # two 1-GPU jobs on one 1-GPU server, both arrive at 0, 3 slots each:
    # the second starts at 3 (the first whole slot after the first ends)
    c = Cluster(1, 1, 1.25, 300.0)
    inst = AsrptInstance(c, (Job(0, 3, 3.0, ONE), Job(0, 3, 3.0, ONE)))
    got = decode(inst, Priority((1, 0), (0, 0)), job_options(inst))
    assert got.start == (3, 0)
    assert check(inst, got).objective == pytest.approx(3 + 6)


@pytest.mark.parametrize("seed", range(4))
def test_decoder_reproduces_the_milp_optimum(seed):
    """The optimum read as a priority list decodes to a schedule of the same value."""
    inst = generate(seed, n_jobs=8, n_servers=2, gpus_per_server=2)
    res = solve_offline(inst, start=default_start(inst))
    assert res.status == "optimal"
    opts = job_options(inst)
    prio = read_priority(res.schedule, opts)
    assert prio is not None
    again = decode(inst, prio, opts)
    assert check(inst, again).objective <= res.objective + 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_never_below_the_proven_optimum_and_never_above_the_start(seed):
    p = optsched.get_paper("asrpt")
    inst = generate(seed, n_jobs=7, n_servers=2, gpus_per_server=2)
    online = min(
        (p.run(a, inst) for a in p.algorithms), key=lambda s: check(inst, s).objective
    )
    start = default_start(inst)
    assert check(inst, start).objective <= check(inst, online).objective + 1e-9
    res = solve_offline(inst, start=online)
    assert res.status == "optimal"
    assert check(inst, start).objective >= res.objective - 1e-9


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(seed=st.integers(0, 10**6), n=st.integers(1, 9), servers=st.integers(1, 3))
def test_random_instances_checked_and_not_worse(seed, n, servers):
    inst = generate(seed, n_jobs=n, n_servers=servers, gpus_per_server=2)
    p = optsched.get_paper("asrpt")
    start = p.run("spjf", inst)
    best, trace = improve(inst, start, time_limit=None, max_evaluations=150)
    ev = check(inst, best)  # raises if the result were infeasible
    assert ev.objective <= check(inst, start).objective + 1e-9
    assert ev.objective == pytest.approx(trace.objective)
    assert trace.n_candidates <= 150


def test_same_seed_same_schedule_and_kick_is_checked():
    import numpy as np

    inst = generate(3, n_jobs=10, n_servers=2, gpus_per_server=2)
    start = optsched.get_paper("asrpt").run("spwf", inst)
    one = improve(inst, start, time_limit=None, seed=4, max_evaluations=300)[0]
    two = improve(inst, start, time_limit=None, seed=4, max_evaluations=300)[0]
    assert one.start == two.start and one.servers == two.servers
    label, kicked = kick(inst, start, np.random.default_rng(0))
    assert label and isinstance(kicked.meta[META_KEY], Priority)
    check(inst, kicked)


@pytest.mark.parametrize("seed", [0, 1])
def test_default_start_is_deterministic_and_named(seed):
    p = optsched.get_paper("asrpt")
    inst = generate(seed, n_jobs=10, n_servers=2, gpus_per_server=2)
    a, b = default_start(inst), default_start(inst)
    assert a.start == b.start and a.servers == b.servers
    name = a.meta["algorithm"]
    assert name.removesuffix("+ls") in p.algorithms
    online = {n: check(inst, p.run(n, inst)).objective for n in p.algorithms}
    value = check(inst, a).objective
    if name.endswith("+ls"):  # improved: strictly below every algorithm's
        assert value < min(online.values()) - 1e-9
    else:  # not improved: the best algorithm's own schedule
        assert value == min(online.values())


def test_small_instances_keep_the_online_start():
    """Below START_MIN_JOBS the start is the best registered algorithm's own schedule."""
    from optsched.asrpt.paper import START_MIN_JOBS

    p = optsched.get_paper("asrpt")
    inst = generate(0, n_jobs=START_MIN_JOBS - 1, n_servers=2, gpus_per_server=2)
    got = default_start(inst)
    assert not got.meta["algorithm"].endswith("+ls")
    assert check(inst, got).objective == min(
        check(inst, p.run(n, inst)).objective for n in p.algorithms
    )


def test_unknown_method_is_refused_by_name():
    inst = _one_server()
    start = optsched.get_paper("asrpt").run("spjf", inst)
    with pytest.raises(ValueError, match="method: must be"):
        improve(inst, start, method="tabu")
