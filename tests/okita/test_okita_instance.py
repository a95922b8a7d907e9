"""Okita instances: validation, latency costs, JSON round trip, generator."""

import dataclasses
import json
import math

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.okita import (
    Job,
    LatencyCost,
    OkitaInstance,
    Site,
    check,
    generate,
    local_first,
)
from optsched.okita.instance import EC2_SITES, SITE_DISK_GB
from tests.okita.instances import hand_instance


def test_latency_cost_kinds_vectorised():
    """Each kind evaluates the Sec. V-B formula on scalars and arrays alike."""
    d = np.array([0, 1, 2, 3, 4])
    e = LatencyCost.exp(20.0)
    assert np.allclose(e.value(d), 20.0 * np.exp(0.25 * d))
    assert e.value(2) == pytest.approx(20.0 * math.exp(0.5))
    assert isinstance(e.value(2), float)
    lin = LatencyCost.linear(10.0, 50.0)
    assert np.allclose(lin(d), 10.0 * d + 50.0)
    pw = LatencyCost.piecewise(20.0, 300.0, 3.0)
    assert pw(d).tolist() == [20.0, 20.0, 20.0, 300.0, 300.0]
    assert pw.tau == 20.0 and lin.tau == 10.0


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("quadratic", (1.0,), "cost.kind"),
        ("exp", (1.0,), "cost.params"),
        ("linear", (-1.0, 5.0), "cost.tau"),
        ("piecewise", (300.0, 20.0, 3.0), "cost.tau2"),
        ("exp", (float("nan"), 0.25), "cost.tau"),
    ],
)
def test_latency_cost_validation(kind, params, field):
    """A bad latency cost names the field and the value."""
    with pytest.raises(InvalidInstanceError, match=field):
        LatencyCost(kind, params)


def _replace_job(inst, i=0, **kw):
    jobs = list(inst.jobs)
    jobs[i] = dataclasses.replace(jobs[i], **kw)
    return jobs


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        ({"n_slots": 0}, "n_slots", "0"),
        ({"sites": ()}, "sites", "()"),
        ({"resources": ("gpu", "gpu")}, "resources", "gpu"),
        ({"bandwidth_cost": ((0.0, 0.05),)}, "bandwidth_cost", "1"),
        ({"bandwidth_cost": ((0.1, 0.05), (0.05, 0.0))}, r"\[0\]\[0\]", "0.1"),
        ({"bandwidth_cost": ((0.0, -0.05), (0.05, 0.0))}, r"\[0\]\[1\]", "-0.05"),
        ({"sites": (Site((2.0, -1.0)), Site((2.0, 6.0)))}, "capacity", "-1.0"),
        ({"sites": (Site((2.0,)), Site((2.0, 6.0)))}, "capacity", "1"),
    ],
)
def test_instance_validation_names_field(change, field, value):
    """Instance-level errors name the field and the offending value."""
    inst = hand_instance()
    with pytest.raises(InvalidInstanceError, match=field) as exc:
        dataclasses.replace(inst, **change)
    assert value in str(exc.value)


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        ({"arrival": 0}, r"jobs\[0\].arrival \(a_i\)", "0"),
        ({"arrival": 9}, r"jobs\[0\].arrival \(a_i\)", "9"),
        ({"data": (1,)}, r"jobs\[0\].data \(D_i\^r\)", "1"),
        ({"data": (0, 0)}, r"jobs\[0\].data \(D_i\^r\)", "[0, 0]"),
        ({"data": (1, -2)}, r"jobs\[0\].data \(D_i\^r\)\[1\]", "-2"),
        ({"epochs": 0}, r"jobs\[0\].epochs \(E_i\)", "0"),
        ({"rho": 0.0}, r"jobs\[0\].rho \(rho_i\)", "0.0"),
        ({"worker_demand": (0.0, 0.0)}, r"worker_demand \(m_i\^k\)", "[0.0, 0.0]"),
        ({"ps_demand": (0.0, -1.0)}, r"ps_demand \(n_i\^k\)\[1\]", "-1.0"),
        ({"chunk_mb": -1.0}, r"chunk_mb \(delta_i\)", "-1.0"),
        ({"param_mb": "x"}, r"param_mb \(pi_i\)", "'x'"),
        ({"cost": 3}, r"jobs\[0\].cost", "3"),
    ],
)
def test_job_validation_names_field(change, field, value):
    """Job-level errors name ``jobs[i].<field>`` and the offending value."""
    inst = hand_instance()
    with pytest.raises(InvalidInstanceError, match=field) as exc:
        dataclasses.replace(inst, jobs=tuple(_replace_job(inst, 0, **change)))
    assert value in str(exc.value)


def test_jobs_must_be_in_arrival_order():
    """Jobs out of arrival order are rejected with the arrivals listed."""
    inst = hand_instance()
    with pytest.raises(InvalidInstanceError, match=r"jobs: .*\[2, 1\]"):
        dataclasses.replace(inst, jobs=inst.jobs[::-1])


@pytest.mark.parametrize("cost", ["exp", "linear", "piecewise"])
def test_json_round_trip_exact(cost):
    """to_json/from_json restores an equal instance, and the JSON is stable."""
    inst = generate(seed=3, n_sites=4, n_jobs=6, n_slots=60, cost=cost)
    text = inst.to_json()
    back = OkitaInstance.from_json(text)
    assert back == inst
    assert back.to_json() == text
    hand = hand_instance()
    assert OkitaInstance.from_json(hand.to_json(indent=2)) == hand


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d.pop("jobs"), "jobs: missing"),
        (lambda d: d["jobs"][0].pop("rho"), r"jobs\[0\].rho: missing"),
        (lambda d: d["jobs"][0]["cost"].update(kind="cubic"), r"jobs\[0\].cost.kind"),
        (lambda d: d["jobs"][1]["cost"].pop("c"), r"jobs\[1\].cost.c: missing"),
        (lambda d: d["sites"][1].update(capacity=5), r"sites\[1\].capacity"),
        (lambda d: d["bandwidth_cost"][1].append(0.0), r"bandwidth_cost.*\[1\]"),
    ],
)
def test_from_json_errors_name_field(mutate, field):
    """Malformed JSON raises InvalidInstanceError naming the field."""
    d = json.loads(hand_instance().to_json())
    mutate(d)
    with pytest.raises(InvalidInstanceError, match=field):
        OkitaInstance.from_json(json.dumps(d))
    with pytest.raises(InvalidInstanceError, match="<json>"):
        OkitaInstance.from_json("{")


@pytest.mark.parametrize("cost", ["exp", "linear", "piecewise"])
def test_generator_ranges(cost):
    """Generated values lie in the ranges of Sec. V-B."""
    inst = generate(seed=1, n_sites=8, n_jobs=20, n_slots=150, cost=cost)
    assert inst.n_sites == 8 and inst.n_jobs == 20 and inst.n_slots == 150
    caps = {(*v, SITE_DISK_GB) for v in EC2_SITES.values()}
    assert all(tuple(s.capacity) in caps for s in inst.sites)
    q = inst.q
    assert np.all(np.diag(q) == 0) and np.allclose(q, q.T)
    off = q[~np.eye(8, dtype=bool)] * 100
    assert off.min() >= 2 and off.max() <= 8
    assert inst.D.min() >= 10 and inst.D.max() <= 20
    k = inst.rho / inst.epochs
    assert np.all((k >= 5) & (k <= 15) & (k == np.round(k)))
    assert np.all((inst.delta >= 20) & (inst.delta <= 60))
    assert np.all((inst.pi >= 30) & (inst.pi <= 575))
    lo, hi = np.array([0, 1, 2, 5]), np.array([4, 10, 32, 10])
    assert np.all((inst.m >= lo) & (inst.m <= hi))
    assert np.all(inst.n[:, 0] == 0)
    assert np.all((inst.n[:, 1:] >= lo[1:]) & (inst.n[:, 1:] <= hi[1:]))
    for job in inst.jobs:
        assert job.cost.kind == cost
        p = dict(zip(("a", "b", "c"), job.cost.params, strict=False))
        assert 20 <= p["a"] <= 100
        if cost == "exp":
            assert p["b"] == 0.25
        elif cost == "linear":
            assert 50 <= p["b"] <= 200
        else:
            assert 300 <= p["b"] <= 400 and p["c"] in (3.0, 4.0, 5.0)


def test_generator_deterministic():
    """Same seed, same instance; another seed, another instance."""
    a = generate(seed=5, n_sites=5, n_jobs=8)
    assert a == generate(seed=5, n_sites=5, n_jobs=8)
    assert a != generate(seed=6, n_sites=5, n_jobs=8)


@pytest.mark.parametrize("cost", ["exp", "linear", "piecewise"])
def test_witness_feasible_on_many_seeds(cost):
    """The calibration witness local_first passes the checker on every seed."""
    for seed in range(15):
        inst = generate(seed=seed, n_sites=5, n_jobs=12, n_slots=60, cost=cost)
        ev = check(inst, local_first(inst))
        assert ev.completion.max() <= inst.n_slots
        assert np.all(ev.completion >= inst.arrival)


def test_witness_feasible_at_paper_size():
    """At the paper's size (R = 50, I = 100, T = 150) no job is redrawn."""
    inst = generate(seed=0, n_sites=50, n_jobs=100, n_slots=150)
    assert inst.meta["redraws"] == 0
    ev = check(inst, local_first(inst))
    assert ev.objective == pytest.approx(ev.latency_cost + ev.bandwidth_cost)


def test_generator_rejects_too_short_horizon():
    """A horizon no job can meet raises InvalidInstanceError naming n_slots."""
    with pytest.raises(InvalidInstanceError, match="n_slots"):
        generate(seed=0, n_sites=50, n_jobs=100, n_slots=20, max_redraws=3)
    with pytest.raises(InvalidInstanceError, match="cost"):
        generate(seed=0, cost="cubic")


def test_job_is_frozen():
    """Jobs are immutable."""
    job = hand_instance().jobs[0]
    assert isinstance(job, Job)
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.rho = 3.0


# ------------------------------------------- the saturating sigmoid reading
def test_sigmoid_cost_by_hand():
    """``tau / (1 + e^{-rate (d - t0)})``: half of ``tau`` at ``t0``, saturates at ``tau``."""
    f = LatencyCost.sigmoid(20.0)  # rate 0.25, t0 4 (the generator's constants)
    assert f.params == (20.0, 0.25, 4.0) and f.tau == 20.0
    assert f(4) == pytest.approx(10.0)
    assert f(0) == pytest.approx(20.0 / (1.0 + math.e))  # e^{-0.25 (0 - 4)} = e
    assert f(8) == pytest.approx(20.0 / (1.0 + 1.0 / math.e))
    assert f(4 + 4 * math.log(3.0)) == pytest.approx(15.0)  # e^{-ln 3} = 1/3
    d = np.arange(0, 200)
    v = f(d)
    assert np.all(np.diff(v) >= 0) and np.all(v <= 20.0)
    assert v[-1] == pytest.approx(20.0)
    with np.errstate(all="raise"):  # no overflow warning far below t0
        assert f(-1e6) == 0.0
    g = LatencyCost.sigmoid(50.0, 1.0, 2.0)
    assert g(np.array([1.0, 2.0, 3.0])) == pytest.approx(
        [50.0 / (1.0 + math.e), 25.0, 50.0 / (1.0 + 1.0 / math.e)]
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [((10.0, 0.25), "cost.params"), ((10.0, -0.25, 4.0), "cost.rate"),
     ((10.0, 0.25, -1.0), "cost.t0"), ((-1.0, 0.25, 4.0), "cost.tau")],
)  # fmt: skip
def test_sigmoid_cost_validation(params, field):
    """Negative parameters would make ``f`` decreasing or negative: refused by name."""
    with pytest.raises(InvalidInstanceError, match=field):
        LatencyCost("sigmoid", params)


def test_sigmoid_json_round_trip_and_strict_fields():
    """The sigmoid kind round-trips; its JSON has exactly tau, rate, t0."""
    inst = generate(seed=3, n_sites=4, n_jobs=6, n_slots=60, cost="sigmoid")
    text = inst.to_json()
    assert OkitaInstance.from_json(text) == inst
    d = json.loads(text)
    assert set(d["jobs"][0]["cost"]) == {"kind", "tau", "rate", "t0"}
    d["jobs"][0]["cost"]["b"] = 1.0
    with pytest.raises(InvalidInstanceError, match=r"jobs\[0\].cost.*'b'"):
        OkitaInstance.from_dict(d)


@pytest.mark.parametrize("seed", range(6))
def test_sigmoid_instance_is_the_exp_instance_but_for_f(seed):
    """Same draws as ``exp`` (tau, then everything else): only ``f`` differs, so
    an exp-vs-sigmoid comparison changes one component.  Existing kinds keep
    their draws (the regression hashes in tests/okita/data)."""
    size = {"n_sites": 5, "n_jobs": 12, "n_slots": 60}
    e = generate(seed, cost="exp", **size)
    s = generate(seed, cost="sigmoid", **size)
    assert s.meta["redraws"] == e.meta["redraws"]
    assert s.sites == e.sites and s.bandwidth_cost == e.bandwidth_cost
    for je, js in zip(e.jobs, s.jobs, strict=True):
        assert dataclasses.replace(js, cost=je.cost) == je
        assert js.cost == LatencyCost.sigmoid(je.cost.tau, 0.25, 4.0)
        assert 20.0 <= js.cost.tau <= 100.0
