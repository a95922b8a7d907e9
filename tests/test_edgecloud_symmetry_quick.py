"""``benchmarks/edgecloud_symmetry.py``: v3 plus rows on identical workers and PSs (timings not asserted)."""

import math

import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from optsched.models import edgecloud as M

import optsched
from benchmarks import edgecloud_symmetry as S
from benchmarks.frontier import LADDERS
from optsched.core.ratio import best_start
from optsched.edgecloud.check import check
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule
from tests.edgecloud.instances import one_server, small, small_storage


def violated(inst: EdgeCloudInstance, sched: EdgeCloudSchedule) -> list[str]:
    """Names of the rows of v3 + symmetry rows that ``sched``'s point violates."""
    model = M.build_model(inst, formulation="v3")
    S.add_symmetry_rows(model, inst)
    for var, value in M.start_values(model, inst, sched).items():
        var.set_value(value, skip_validation=True)
    bad = set()
    for con in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(con.body)
        if (con.lower is not None and body < pyo.value(con.lower) - 1e-9) or (
            con.upper is not None and body > pyo.value(con.upper) + 1e-9
        ):
            bad.add(con.parent_component().name)
    return sorted(bad)


def test_rows_cut_a_copy_and_keep_the_canonical_one_on_a_hand_instance():
    """The chunk on the second of two identical workers and the PS second of two violate
    the rows; the canonical copy (first worker, first PS) has the same JCT and meets them."""
    inst = one_server(chunks=1, ps=2)  # one chunk, two identical workers and PSs
    assert inst.chunk_slots[0, 0] == 2  # the hand schedule's premise
    runs = [(0, 0, 1, 0, 1), (0, 0, 2, 0, 1)]
    ps = [(0, 1, 0, 1), (0, 2, 0, 1)]
    sched = EdgeCloudSchedule.build(inst, runs, ps)
    assert check(inst, sched).objective == pytest.approx(1.0)  # r = 1, c = 2
    assert violated(inst, sched) == ["sym_ps_order", "sym_worker_order"]
    canon = S.canonical(inst, sched)
    assert np.asarray(canon.runs)[:, 4].tolist() == [0, 0]
    assert np.asarray(canon.ps)[:, 3].tolist() == [0, 0]
    assert check(inst, canon).objective == pytest.approx(1.0)
    assert violated(inst, canon) == []


@pytest.mark.parametrize("family", [small, small_storage])
def test_canonical_schedules_keep_their_jct_and_meet_every_row(family):
    """Every algorithm's schedule of small instances, made canonical, checks at
    the same JCT and is a point of v3 with the symmetry rows."""
    p = optsched.get_paper("edgecloud")
    for seed in range(4):
        inst = family(seed)
        for alg in p.algorithms:
            sched = p.run(alg, inst)
            value = check(inst, sched).objective
            canon = S.canonical(inst, sched)
            assert check(inst, canon).objective == pytest.approx(value)
            assert violated(inst, canon) == []


def test_same_proven_optimum_as_v3_on_instances_with_pools():
    """v3 with the symmetry rows proves v3's optimum (a checked schedule) on small
    generated instances that have pools of identical workers and PSs."""
    p = optsched.get_paper("edgecloud")
    pooled = 0
    for seed in range(5):
        inst = p.generate(seed, n_jobs=5, n_servers=2, n_slots=30, max_chunks=2,
                          slot_hours=24.0, n_worker_types=2, n_ps_types=2)  # fmt: skip
        pooled += any(S.pools(inst.worker_types[s]) for s in range(inst.cloud))
        ref = M.solve_offline(inst, threads=1, formulation="v3")
        sym = S.solve_sym(inst, threads=1, start=best_start(p, inst))
        assert ref.status == sym.status == "optimal"
        assert sym.objective == pytest.approx(ref.objective)
        assert check(inst, sym.schedule).objective == pytest.approx(sym.objective)
    assert pooled == 5


def test_edgecloud_symmetry_quick(tmp_path):
    """The quick run (5 x 2, seed 0) writes both formulations' checked rows with the same optimum."""
    df = S.main(tmp_path, quick=True, steps=(0,))
    back = pd.read_csv(tmp_path / "edgecloud_symmetry_quick.csv")
    assert list(back.columns) == S.COLUMNS and len(back) == len(df) == 2
    assert set(back["status"]) == {"optimal"}
    assert back["objective"].nunique() == 1
    sym = back[back["formulation"] == "v3_sym"].iloc[0]
    assert sym["worker_rows"] > 0 and sym["ps_rows"] > 0
    assert (
        not math.isnan(sym["start_objective"])
        and sym["objective"] <= sym["start_objective"]
    )


def test_committed_rows_agree_with_one_another():
    """In the committed CSV every proof of an instance gives the same optimum, and
    every row's bound and incumbent enclose it; the three optima the docs name
    as new (69, 85, 96) are each proven by both formulations, independently;
    the 10 x 2 rows' row counts are those of :func:`add_symmetry_rows` now."""
    df = pd.read_csv("benchmarks/data/edgecloud_symmetry.csv")
    assert list(df.columns) == S.COLUMNS and not df.duplicated(S.KEY).any()
    optima = {}
    for (j, s, seed), rows in df.groupby(["n_jobs", "n_servers", "seed"]):
        proven = rows.loc[rows["status"] == "optimal", "objective"]
        if proven.empty:
            continue
        assert proven.max() - proven.min() < 1e-6
        optima[j, s, seed] = opt = proven.iloc[0]
        assert (rows["bound"] <= opt + 1e-6).all()
        assert (rows["objective"] >= opt - 1e-6).all()
    assert {k: optima[k] for k in [(10, 2, 3), (15, 3, 0), (15, 3, 4)]} == {
        (10, 2, 3): 69.0,
        (15, 3, 0): 85.0,
        (15, 3, 4): 96.0,
    }
    for j, s, seed in [(10, 2, 3), (15, 3, 0), (15, 3, 4)]:
        mine = df[(df["n_jobs"] == j) & (df["n_servers"] == s) & (df["seed"] == seed)]
        assert set(mine.loc[mine["status"] == "optimal", "formulation"]) == {
            "v3",
            "v3_sym",
        }
    p = optsched.get_paper("edgecloud")
    sym = df[(df["formulation"] == "v3_sym") & (df["n_jobs"] == 10)]
    for seed, rows in sym.groupby("seed"):
        inst = p.generate(int(seed), **LADDERS["edgecloud"][1])
        counts = S.add_symmetry_rows(M.build_model(inst, formulation="v3"), inst)
        assert (rows["worker_rows"] == counts["worker_rows"]).all()
        assert (rows["ps_rows"] == counts["ps_rows"]).all()
