"""Edges of ``solve_offline`` (issue 23 section 3): time limits that include
model building, and instances without jobs, in every paper."""

from __future__ import annotations

import json
import math
import signal
import time
from contextlib import contextmanager

import pytest

import optsched
from optsched.core.ratio import best_start, ratio_columns
from optsched.core.solver import Deadline, DeadlineExceeded

#: Wall-clock slack over a time limit: HiGHS and Pyomo's hand-over of a
#: model may overshoot; a hang (the bug) takes minutes.
SLACK = 20.0


@contextmanager
def no_hang(seconds: int = 90):
    """Fail (instead of hanging the suite) when the block runs over ``seconds``."""

    def boom(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _empty(key: str):
    """A generated instance of ``key`` with its job list (and job rows) emptied."""
    p = optsched.get_paper(key)
    data = json.loads(p.generate(seed=0, **p.demo_size).to_json())
    data["jobs"] = []
    if key == "hetero":  # one throughput row per job
        data["throughput"] = []
        data["predicted"] = None
    return p, p.instance_type.from_json(json.dumps(data))


# ---------------------------------------------------------------- empty jobs
@pytest.mark.parametrize("key", optsched.PAPERS)
def test_empty_job_list_is_accepted_with_objective_zero(key):
    """Without jobs every algorithm, the checker, the optimum and the ratio agree on 0."""
    p, inst = _empty(key)
    assert inst.n_jobs == 0
    assert p.instance_type.from_json(inst.to_json()) == inst
    for name in p.algorithms:
        sched = p.run(name, inst)
        assert p.check(inst, sched).objective == 0.0, name
        again = p.schedule_type.from_json(sched.to_json())
        assert p.check(inst, again).objective == 0.0, name
    res = p.solve_offline(inst, time_limit=5)
    assert (res.status, res.objective, res.bound) == ("optimal", 0.0, 0.0)
    assert res.schedule is not None
    assert p.check(inst, res.schedule).objective == 0.0
    row = ratio_columns(p.sense, 0.0, res.objective, res.bound, res.status)
    assert (row["ratio"], row["ratio_lo"], row["ratio_hi"]) == (1.0, 1.0, 1.0)


# ---------------------------------------------------------------- deadlines
def test_deadline_helper():
    """A Deadline without limit never expires; a used-up one raises; bad limits are named."""
    assert Deadline(None).remaining() is None
    Deadline(None).check("x")
    d = Deadline(0.0)
    assert d.remaining() == 0.0
    with pytest.raises(DeadlineExceeded, match="building y"):
        d.check("building y")
    with pytest.raises(ValueError, match="time_limit"):
        Deadline(-1.0)
    with pytest.raises(ValueError, match="time_limit"):
        Deadline(float("nan"))


def _asrpt_long_jobs(iterations: int):
    p = optsched.get_paper("asrpt")
    data = json.loads(p.generate(seed=0, **p.demo_size).to_json())
    for job in data["jobs"]:
        job["iterations"] = iterations
    return p, p.instance_type.from_json(json.dumps(data))


@pytest.mark.parametrize("size_guard", [True, False])
def test_asrpt_huge_iterations_honour_time_limit(monkeypatch, size_guard):
    """10**7 iterations per job: solve returns near its 2 s limit with the online incumbent."""
    import optsched.models.asrpt as model

    if not size_guard:  # build the model anyway: the deadline must stop it
        monkeypatch.setattr(model, "MAX_NONZEROS", 10**15)
    p, inst = _asrpt_long_jobs(10**7)
    start = best_start(p, inst)  # the caller's MIP start: the best online schedule
    began = time.perf_counter()
    with no_hang():
        res = p.solve_offline(inst, time_limit=2, start=start)
    assert time.perf_counter() - began < 2 + SLACK
    assert res.status == "time_limit"
    assert res.runtime < 2 + SLACK
    assert res.schedule is not None
    assert res.objective == p.check(inst, res.schedule).objective
    best = min(p.check(inst, p.run(a, inst)).objective for a in p.algorithms)
    assert res.objective == best
    assert res.bound <= res.objective


#: Instances whose model building alone took 8-60 s before the fix.
HEAVY = {
    "oasis": {"n_jobs": 40, "n_slots": 300},
    "edgecloud": {"n_jobs": 30, "n_servers": 3, "n_slots": 400},
    "okita": {"n_jobs": 20, "n_sites": 5, "n_slots": 300},
    "asrpt": {"n_jobs": 8, "n_servers": 2, "gpus_per_server": 2},
    "hetero": {"n_jobs": 8, "n_workers": 40},
}


@pytest.mark.parametrize("key", sorted(HEAVY))
def test_tiny_time_limit_is_honoured(key):
    """A 0.01 s limit on a large instance ends at once with a valid bound, never a hang."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **HEAVY[key])
    began = time.perf_counter()
    with no_hang():
        res = p.solve_offline(inst, time_limit=0.01)
    assert time.perf_counter() - began < 0.01 + SLACK
    assert res.status in ("time_limit", "optimal")
    assert not math.isnan(res.bound)
    if res.schedule is not None:
        assert res.objective == pytest.approx(p.check(inst, res.schedule).objective)
        if p.sense == "min":
            assert res.bound <= res.objective + 1e-6 * abs(res.objective)
        else:
            assert res.bound >= res.objective - 1e-6 * abs(res.objective)


def test_oasis_deadline_during_model_building():
    """A 1 s limit stops OASiS's model building (8 s alone here) near the limit."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=0, **HEAVY["oasis"])
    began = time.perf_counter()
    with no_hang():
        res = p.solve_offline(inst, time_limit=1.0)
    assert time.perf_counter() - began < 1.0 + SLACK
    assert res.status == "time_limit"
    assert res.bound >= 0.0  # valid: utilities are > 0
