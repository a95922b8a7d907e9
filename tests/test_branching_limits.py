"""benchmarks.branching_limits: the verdict rule, the certificates it reads, its docs table,
and the limit itself on a tiny instance (branching on the completion slots alone ends at
the relaxation that keeps only them integral)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pandas as pd
import pyomo.environ as pyo
import pytest

import optsched
from benchmarks import branching_limits as bl
from benchmarks.integrality import SETTINGS, relax_except
from optsched.core.solver import solve

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("sense", "relax", "opt", "want"),
    [
        ("min", (10.0, 11.0), (12.0, 14.0), "cannot"),  # opt(P_F) <= 11 < 12 <= OPT
        ("min", (10.0, 12.0), (12.0, 14.0), "open"),  # opt(P_F) may be 12 = OPT
        ("min", (14.0, 15.0), (12.0, 14.0), "suffices"),  # 14 <= opt(P_F) <= OPT <= 14
        ("min", (13.0, 15.0), (12.0, 14.0), "open"),
        ("min", (10.0, 11.0), (-math.inf, math.inf), "open"),  # nothing certified
        ("max", (15.0, 16.0), (12.0, 14.0), "cannot"),  # opt(P_F) >= 15 > 14 >= OPT
        ("max", (14.0, 16.0), (12.0, 14.0), "open"),
        ("max", (11.0, 12.0), (12.0, 14.0), "suffices"),
        ("max", (11.0, 13.0), (12.0, 14.0), "open"),
    ],
)
def test_verdict_rule(sense, relax, opt, want) -> None:
    """Each verdict follows from the two intervals exactly as the module docstring says."""
    assert bl.verdict(sense, relax, opt) == want


def test_verdict_tolerance_and_bad_sense() -> None:
    """A relaxation equal to a bound within 1e-6 relative is never 'cannot'; a typo raises."""
    assert bl.verdict("min", (90.0, 90.0 - 1e-9), (90.0, 91.0)) == "open"
    assert bl.verdict("max", (90.0 + 1e-9, 91.0), (89.0, 90.0)) == "open"
    with pytest.raises(ValueError, match="sense"):
        bl.verdict("minimise", (0.0, 1.0), (0.0, 1.0))


def _okita_csvs(tmp_path: Path) -> Path:
    size = json.dumps(SETTINGS["okita"].size, sort_keys=True)
    other = json.dumps({"n_sites": 3, "n_jobs": 5, "n_slots": 20}, sort_keys=True)
    pd.DataFrame(
        [
            {"paper": "okita", "size_json": size, "seed": 0, "formulation": "v1",
             "objective": 120.0, "bound": 90.0},
            {"paper": "okita", "size_json": size, "seed": 0, "formulation": "v3",
             "objective": 110.0, "bound": 95.0},
            {"paper": "okita", "size_json": other, "seed": 0, "formulation": "v3",
             "objective": 50.0, "bound": 49.0},  # another size: ignored
            {"paper": "okita", "size_json": size, "seed": 1, "formulation": "v3",
             "objective": 40.0, "bound": 39.0},  # another seed: ignored
        ]
    ).to_csv(tmp_path / "frontier.csv", index=False)  # fmt: skip
    pd.DataFrame(
        [
            {"paper": "okita", "size_json": size, "seed": 0, "keep": "u",
             "status": "optimal", "objective": 80.0, "bound": 80.0},
            {"paper": "okita", "size_json": size, "seed": 0, "keep": "y",
             "status": "time_limit", "objective": 140.0, "bound": 97.0},
        ]
    ).to_csv(tmp_path / "integrality.csv", index=False)  # fmt: skip
    pd.DataFrame(
        [
            {"n_sites": 5, "n_jobs": 10, "n_slots": 20, "seed": 0, "lagr_best": 96.0},
            {
                "n_sites": 5,
                "n_jobs": 10,
                "n_slots": 20,
                "seed": 0,
                "lagr_best": math.nan,
            },
        ]
    ).to_csv(tmp_path / "okita_colgen.csv", index=False)
    pd.DataFrame(
        [
            {"size_json": size, "seed": 0, "call": 0, "objective": 108.0},
            {"size_json": size, "seed": 0, "call": 1, "objective": 105.0},
            {"size_json": other, "seed": 0, "call": 0, "objective": 10.0},  # ignored
        ]
    ).to_csv(tmp_path / "okita_wide_lns.csv", index=False)  # fmt: skip
    pd.DataFrame(
        [
            {"size_json": size, "seed": 0, "start_from": "search",
             "objective": 105.0, "bound": 98.0},
            {"size_json": size, "seed": 0, "start_from": "harness",
             "objective": 106.0, "bound": 96.5},
        ]
    ).to_csv(tmp_path / "okita_wide_lns_highs.csv", index=False)  # fmt: skip
    return tmp_path


def test_known_interval_takes_the_best_certificate_of_each_side(tmp_path) -> None:
    """Minimisation: the largest valid bound (the ablation's own bounds count) and the
    smallest checked schedule of the same instance; NaN, other sizes and seeds ignored."""
    data = _okita_csvs(tmp_path)
    got = bl.known_interval("okita", 0, data)
    assert got == {
        "opt_lo": 98.0, "opt_lo_source": "HiGHS (wide_lns --prove)",
        "opt_hi": 105.0, "opt_hi_source": "wide neighbourhood search (wide_lns)",
    }  # fmt: skip
    df = bl.table(data)
    by_keep = dict(zip(df["keep"], df["verdict"], strict=True))
    # u: opt(P_u) = 80 < 98 <= OPT; y: opt(P_y) in [97, 140], OPT in [98, 105]
    assert by_keep == {"u": "cannot", "y": "open"}
    assert bl.markdown(df).count("\n| okita |") == 2


def test_docs_table_is_the_committed_data() -> None:
    """docs/ratios.md's generated block equals what the script makes of benchmarks/data."""
    text = (ROOT / "docs" / "ratios.md").read_text()
    block = text.split(bl.TABLE_BEGIN, 1)[1].split(bl.TABLE_END, 1)[0]
    made = bl.markdown(bl.table(ROOT / "benchmarks" / "data"))
    assert bl.TABLE_BEGIN + block + bl.TABLE_END == made


def _lp_value(model: pyo.ConcreteModel) -> float:
    res = solve(model, threads=1)
    return res.objective if res.status == "optimal" else math.inf


@pytest.mark.parametrize(("seed", "want"), [(3, "cannot"), (5, "suffices")])
def test_branching_on_the_completion_slots_alone_ends_at_their_relaxation(
    seed, want
) -> None:
    """The limit the table applies, computed two ways on tiny okita instances.

    A tree that branches only on the completion slots ``u`` has one leaf per
    completion slot of every job; the least leaf LP (every other family
    continuous) is the relaxation keeping only ``u`` integral, which HiGHS
    solves directly.  Enumerating the leaves gives the same value.  On
    seed 3 it lies strictly between the LP and the proven optimum (so such a
    tree could not prove it), on seed 5 above the LP and at the optimum.
    """
    p = optsched.get_paper("okita")
    inst = p.generate(seed, n_sites=2, n_jobs=2, n_slots=6)
    families = SETTINGS["okita"].families
    relaxed_u = SETTINGS["okita"].build(inst)
    relax_except(relaxed_u, ("u",), families)
    direct = solve(relaxed_u, threads=1)
    assert direct.status == "optimal"

    model = SETTINGS["okita"].build(inst)
    relax_except(model, (), families)
    slots: dict[int, list] = {}
    for i, t in model.u.index_set():
        slots.setdefault(i, []).append(t)
    leaves = []
    for choice in itertools.product(*(slots[i] for i in sorted(slots))):
        for i, t_i in zip(sorted(slots), choice, strict=True):
            for t in slots[i]:
                model.u[i, t].fix(1.0 if t == t_i else 0.0)
        leaves.append(_lp_value(model))
    assert len(leaves) > 4
    assert min(leaves) == pytest.approx(direct.objective, rel=1e-7)
    relax_except(model, (), families)
    model.u.unfix()
    assert _lp_value(model) < direct.objective - 1e-6  # u's integrality moves the bound

    opt = p.solve_offline(inst, time_limit=60.0, threads=1, formulation="v3")
    assert opt.status == "optimal"
    got = bl.verdict(
        "min", (direct.bound, direct.objective), (opt.bound, opt.objective)
    )
    assert got == want
