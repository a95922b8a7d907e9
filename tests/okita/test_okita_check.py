"""The independent checker: hand-computed costs and one rejection per constraint."""

import dataclasses

import numpy as np
import pytest

from optsched.core.errors import InfeasibleScheduleError
from optsched.okita import OkitaSchedule, check, generate, local_first
from tests.okita.instances import DATA, PS, WORKERS, hand_instance, hand_schedule


def test_hand_costs():
    """Latency, transfer, exchange and total match the hand computation."""
    ev = check(hand_instance(), hand_schedule())
    assert ev.completion.tolist() == [2, 3]
    assert ev.duration.tolist() == [1, 1]
    assert ev.latency.tolist() == pytest.approx([60.0, 20.0])
    assert ev.transfer.tolist() == pytest.approx([0.0, 2.0])
    assert ev.exchange.tolist() == pytest.approx([5.0, 2.5])
    assert ev.bandwidth.tolist() == pytest.approx([5.0, 4.5])
    assert ev.latency_cost == pytest.approx(80.0)
    assert ev.bandwidth_cost == pytest.approx(9.5)
    assert ev.transfer_cost == pytest.approx(2.0)
    assert ev.exchange_cost == pytest.approx(7.5)
    assert ev.objective == pytest.approx(89.5)


def test_duration_zero_when_done_in_arrival_slot():
    """A job trained only in its arrival slot has t_i - a_i = 0 (f = f(0))."""
    inst = hand_instance()
    # job 0 trains all 3 chunks in slot 1: 2 locally on site 0, 1 on site 1
    w = [(0, 1, 0, 1), (0, 1, 1, 1)] + WORKERS[2:]
    d = [(0, 1, 0, 0, 2), (0, 1, 1, 1, 1)] + DATA[2:]
    ev = check(inst, hand_schedule(workers=w, ps=[(0, 1, 0)] + PS[2:], data=d))
    assert ev.completion[0] == 1 and ev.duration[0] == 0
    assert ev.latency[0] == pytest.approx(50.0)


def _raises(eq, sched, inst=None, **kw):
    with pytest.raises(InfeasibleScheduleError, match=rf"constraint \({eq}\)") as e:
        check(hand_instance() if inst is None else inst, sched, **kw)
    assert e.value.constraint == f"({eq})"
    return str(e.value)


def test_2a_data_conservation():
    """A chunk never trained (or trained twice) violates (2a) per source site."""
    msg = _raises("2a", hand_schedule(data=DATA[:-1]))
    assert "job 1, site 1" in msg and "D_i^r = 2" in msg
    moved = DATA[:3] + [(1, 3, 0, 0, 1)]  # right total, wrong source site
    _raises("2a", hand_schedule(data=moved))


def test_2b_workers_cover_epochs():
    """Too few workers for the chunks received at a site violates (2b)."""
    w = [(0, 1, 0, 0)] + WORKERS[1:]
    msg = _raises("2b", hand_schedule(workers=w))
    assert "job 0, site 0, slot 1" in msg
    d = DATA[:2] + [(1, 2, 1, 1, 2)]  # job 1 trains both chunks with 1 worker
    _raises("2b", hand_schedule(data=d))


def test_2c_one_ps_in_window():
    """Missing, doubled or out-of-window PSs violate (2c)."""
    assert "no PS" in _raises("2c", hand_schedule(ps=PS[1:]))
    assert "two PSs" in _raises("2c", hand_schedule(ps=PS + [(0, 1, 1)]))
    msg = _raises("2c", hand_schedule(ps=PS + [(0, 3, 0)]))
    assert "outside its window" in msg


def test_2c_window_slot_without_ps_is_a_reading():
    """A window slot without workers needs a PS unless ps_every_slot=False."""
    inst = hand_instance()
    # job 0 waits in slot 2 (no workers, no PS) and trains its site-1 chunk in 3
    w = [(0, 1, 0, 1), (0, 3, 1, 1)] + WORKERS[2:]
    ps = [(0, 1, 0), (0, 3, 0)] + PS[2:]
    d = [(0, 1, 0, 0, 2), (0, 3, 1, 1, 1)] + DATA[2:]
    sched = hand_schedule(workers=w, ps=ps, data=d)
    assert "slot 2" in _raises("2c", sched)
    ev = check(inst, sched, ps_every_slot=False)
    assert ev.completion[0] == 3


def test_2d_capacity():
    """Workers and PSs beyond C_r^k violate (2d), naming site, slot, resource."""
    w = WORKERS[:2] + [(1, 2, 1, 2)] + WORKERS[3:]
    msg = _raises("2d", hand_schedule(workers=w))
    assert "site 1, slot 2, gpu: used 3 > C_r^k = 2" in msg


def test_2f_2g_domains_and_horizon():
    """Negative counts, rows outside [I], [T], [R] and repeated rows are rejected."""
    assert "{0, 1, 2, ...}" in _raises(
        "2f", hand_schedule(workers=WORKERS + [(1, 3, 1, -1)])
    )
    assert "outside" in _raises("2f", hand_schedule(data=DATA + [(1, 5, 1, 1, 0)]))
    _raises("2f", hand_schedule(workers=WORKERS + [(1, 3, 2, 1)]))
    _raises("2f", hand_schedule(data=DATA + [(2, 3, 1, 1, 0)]))
    assert "given twice" in _raises("2g", hand_schedule(ps=PS + [(0, 1, 0)]))
    _raises("2f", hand_schedule(workers=WORKERS + [(0, 1, 0, 1)]))


def test_nothing_before_arrival():
    """Any row of a job before a_i is rejected (Sec. III-A)."""
    with pytest.raises(InfeasibleScheduleError, match="Sec. III-A") as e:
        check(hand_instance(), hand_schedule(ps=PS + [(1, 1, 1)]))
    assert "before its arrival a_i = 2" in str(e.value)


def test_2e_completion_is_last_worker_slot():
    """t_i is the last slot with workers, not the last data or PS row."""
    sched = hand_schedule()
    assert sched.completion(2).tolist() == [2, 3]
    # a zero-count worker row later does not move t_i
    padded = hand_schedule(workers=WORKERS + [(0, 4, 0, 0)])
    assert padded.completion(2).tolist() == [2, 3]


def test_schedule_json_round_trip():
    """A schedule survives to_json/from_json and checks to the same costs."""
    inst = generate(seed=2, n_sites=4, n_jobs=6, n_slots=60)
    sched = local_first(inst)
    back = OkitaSchedule.from_json(sched.to_json())
    for name in ("workers", "ps", "data"):
        assert np.array_equal(getattr(back, name), getattr(sched, name))
    assert check(inst, back).objective == check(inst, sched).objective


def test_checker_recomputes_bandwidth_independently():
    """Eq. (1) recomputed by dense loops equals the checker's bandwidth cost."""
    inst = generate(seed=4, n_sites=4, n_jobs=6, n_slots=60, cost="linear")
    sched = local_first(inst)
    ev = check(inst, sched)
    T, R = inst.n_slots, inst.n_sites
    y = np.zeros((inst.n_jobs, T + 1, R))
    s = np.zeros((inst.n_jobs, T + 1, R))
    g = np.zeros((inst.n_jobs, T + 1, R, R))
    for i, t, r, c in sched.workers:
        y[i, t, r] = c
    for i, t, r in sched.ps:
        s[i, t, r] = 1
    for i, t, r, r2, c in sched.data:
        g[i, t, r, r2] = c
    B = np.einsum("rs,itrs->i", inst.q, g) * inst.delta + inst.pi * np.einsum(
        "rs,itr,its->i", inst.q, y, s
    )
    assert ev.bandwidth == pytest.approx(B)
    lat = [j.cost(ev.completion[i] - j.arrival) for i, j in enumerate(inst.jobs)]
    assert ev.latency_cost == pytest.approx(sum(lat))


def test_2f_fractional_chunks_rejected():
    """A fractional g_i^rr'(t) is not truncated but rejected under (2f)."""
    d = [(0, 1, 0, 0, 1.5), (0, 1, 0, 0, 0.5)]
    assert "integer" in _raises("2f", hand_schedule(data=d + DATA[1:]))


def test_witness_past_horizon_rejected():
    """The witness keeps rows beyond T, so a too-short horizon fails (2f)."""
    inst = generate(seed=0, n_sites=4, n_jobs=6, n_slots=60)
    last = int(check(inst, local_first(inst)).completion.max())
    short = dataclasses.replace(inst, n_slots=last - 1)
    assert "outside" in _raises("2f", local_first(short))
