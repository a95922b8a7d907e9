"""``benchmarks/edgecloud_diagnosis.py --quick`` and its instruments by hand.

The known answers below are computed by hand from the instance (one edge
worker, rates of one mini-batch per slot), not copied from a run.
"""

import pandas as pd
import pytest

import optsched
from benchmarks import edgecloud_diagnosis as diag
from optsched.core import horizon
from optsched.edgecloud.instance import EdgeCloudInstance


def test_quick_run_writes_checked_rows(tmp_path):
    out = tmp_path / "edgecloud_diagnosis.csv"
    df = diag.main(out, quick=True)
    back = pd.read_csv(out)
    assert list(back.columns) == diag.COLUMNS and len(back) == len(df)
    assert back["checked"].all() and (back["total_jct"] > 0).all()
    assert set(back["section"]) == {"category", "window", "delays", "servers"}
    cat = back[back["section"] == "category"]
    assert set(cat["value"]) == set(diag.CATEGORY)
    assert set(cat["scheme"]) == {"a_online", *diag.INSTRUMENTS, "srtf", "tiresias_l"}
    facts = diag.summary(back)
    assert {"red_srtf", "red_tiresias", "makespan_srtf", "tiresias_rate"} <= set(
        facts.columns
    )
    # every configuration has A_online, an SRTF and a Tiresias-L row per seed
    for _key, g in back.groupby(["section", "knob", "value", "n_jobs", "n_servers"]):
        assert set(g["role"]) >= {"a_online", "srtf", "tiresias_l"}


def _inst(cloud_delay_b: int) -> EdgeCloudInstance:
    """One edge server with one worker and one PS, two one-chunk jobs.

    ``m_j`` = 1 h, ``G_j`` = 0, ``q_j`` = 0: one mini-batch per slot at
    either ``zeta``, ``B_j`` = 1, so a chunk needs ``E_j`` slots.  A: ``r``
    = 1, 10 slots, delays (edge 1, cloud 3); B: ``r`` = 2, 20 slots, delays
    (1, ``cloud_delay_b``).
    """

    def job(r, e, dc):
        return {
            "arrival": r, "chunks": 1, "minibatches": 1, "epochs": e,
            "minibatch_hours": 1.0, "update_ms": 0.0, "model_mb": 0.0,
            "bandwidth_mbps": 100.0, "worker_type": 0, "ps_type": 0,
            "delay": [1, dc],
        }  # fmt: skip

    return EdgeCloudInstance.from_dict(
        {
            "format": "optsched.edgecloud/1",
            "n_slots": 40,
            "slot_hours": 1.0,
            "n_worker_types": 1,
            "n_ps_types": 1,
            "servers": [{"workers": [1], "ps": [1]}],
            "jobs": [job(1, 10, 3), job(2, 20, cloud_delay_b)],
        }
    )


def _jct(inst, sched) -> float:
    p = optsched.get_paper("edgecloud")
    return p.check(horizon.fit(inst, sched)[0], sched).objective


def test_instruments_by_hand():
    p = optsched.get_paper("edgecloud")
    inst = _inst(3)
    # literal SRTF: A on the edge in slots 2-11 (JCT 10); B (20 > 9 slots
    # left) waits and runs 12-31 (JCT 29): 39.  Tiresias-L: A (earlier, same
    # queue until it finishes) first, the same 39.
    assert _jct(inst, p.run("srtf", inst)) == 39
    assert _jct(inst, p.run("tiresias_l", inst)) == 39
    # overflow: B has not started by r + Delta_c = 5, so it runs in the cloud
    # in slots 5-24 (JCT 22): 32, for both orders
    assert _jct(inst, diag.srtf_cloud_overflow(inst)) == 32
    assert _jct(inst, diag.tiresias_l_cloud_overflow(inst)) == 32
    # earliest: A edge 1 + 10 < cloud 3 + 10, B edge 1 + 20 < cloud 3 + 20:
    # both on the edge, as the literal reading
    assert _jct(inst, diag.srtf_cloud_earliest(inst)) == 39
    # with B's cloud delay 1, the cloud (1 + 20) ties the edge: B to the cloud
    # from slot 3 to 22 (JCT 20), A alone on the edge: 30
    inst1 = _inst(1)
    assert _jct(inst1, diag.srtf_cloud_earliest(inst1)) == 30
    assert _jct(inst1, diag.tiresias_l_cloud_earliest(inst1)) == 30


def test_coarsen_by_hand():
    inst = _inst(15)
    slots, hours = diag.coarsen(inst, 8, "slots"), diag.coarsen(inst, 8, "hours")
    for c in (slots, hours):
        assert c.n_slots == 5 and c.slot_hours == 8.0
        assert [j.arrival for j in c.jobs] == [1, 1]  # ceil(1/8), ceil(2/8)
        # 10 and 20 one-hour mini-batches at 8 per slot: 2 and 3 slots
        assert c.chunk_slots[:, 0].tolist() == [2, 3]
    assert [j.delay for j in slots.jobs] == [(1, 3), (1, 15)]
    assert [j.delay for j in hours.jobs] == [(1, 1), (1, 2)]  # ceil(x / 8)
    with pytest.raises(ValueError, match="delays"):
        diag.coarsen(inst, 8, "days")


def test_window_size_never_redraws():
    kw = diag.window_size(1800)
    assert kw["n_slots"] == 2000  # the figures' T for the figures' window
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed=0, n_jobs=50, n_servers=3, **diag.window_size(300))
    assert inst.meta["redraws"] == 0 and max(inst.arrival) <= 300
