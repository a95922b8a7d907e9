"""A second opinion from SCIP: ``solve_offline(..., confirm="scip")`` (issue 26 item 5).

SCIP re-solves the very Pyomo model HiGHS proved optimal
(:mod:`optsched.core.confirm`); a different proven optimum is a
:class:`~optsched.core.errors.SolverError`.  Every paper on its demo size
(proven by HiGHS in under 2 s), one wrong comparison planted, a bad value of
``confirm``, the CLI, and SCIP's optimum against an independent brute force.
"""

from __future__ import annotations

import math

import pytest

import optsched
import optsched.core.confirm as confirm_mod
from optsched.cli import main
from optsched.core.errors import SolverError
from optsched.core.ratio import best_start

pytest.importorskip("pyscipopt")


def _spy(monkeypatch: pytest.MonkeyPatch, shift: float = 0.0) -> list:
    """Record every ``scip_value`` result (shifted by ``shift`` when proven)."""
    seen: list[tuple[str, float]] = []
    real = confirm_mod.scip_value

    def spy(model, **kw):
        status, value = real(model, **kw)
        seen.append((status, value))
        return status, value + shift

    monkeypatch.setattr(confirm_mod, "scip_value", spy)
    return seen


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_confirm_keeps_the_highs_optimum(key, monkeypatch):
    """With ``confirm="scip"``: SCIP runs, proves an optimum, and the result is unchanged."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **p.demo_size)
    start = best_start(p, inst)
    plain = p.solve_offline(inst, time_limit=60, start=start, threads=1)
    seen = _spy(monkeypatch)
    res = p.solve_offline(inst, time_limit=60, start=start, threads=1, confirm="scip")
    assert plain.status == res.status == "optimal"
    assert res.objective == plain.objective
    assert res.bound == plain.bound
    assert p.check(inst, res.schedule).objective == pytest.approx(res.objective)
    assert len(seen) == 1 and seen[0][0] == "optimal"  # SCIP ran and proved it


@pytest.mark.parametrize("key", ["oasis", "hetero"])
def test_a_different_scip_optimum_is_a_solver_error(key, monkeypatch):
    """SCIP's optimum planted 1 away from HiGHS's: SolverError naming both values."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **p.demo_size)
    seen = _spy(monkeypatch, shift=1.0)
    with pytest.raises(SolverError, match="SCIP's optimum .* differs from HiGHS's"):
        p.solve_offline(inst, time_limit=60, start=best_start(p, inst), confirm="scip")
    assert seen and seen[0][0] == "optimal"


def test_hetero_confirms_the_last_outer_approximation_milp(monkeypatch):
    """SCIP gets the MILP of the last round, without the tangents added after it.

    With ``rel_gap=0.05`` and 2 tangents per job the loop stops in a round
    that still adds tangents; those raise the MILP optimum by about 0.6 %
    (measured), so SCIP would disagree with HiGHS if they stayed active.
    """
    from optsched.models.hetero import solve_exact

    p = optsched.get_paper("hetero")
    inst = p.generate(seed=0, **p.demo_size)
    seen = _spy(monkeypatch)
    res = solve_exact(inst, time_limit=60, rel_gap=0.05, cuts=2, confirm="scip")
    assert res.status == "optimal"
    assert res.schedule.meta["history"][-1]["cuts_added"] > 0
    assert [s for s, _ in seen] == ["optimal"]


def test_scip_without_a_proof_leaves_the_result_unchanged(monkeypatch):
    """SCIP stopped at its limit: no error, the HiGHS result, an UnconfirmedWarning."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=0, **p.demo_size)
    monkeypatch.setattr(
        confirm_mod, "scip_value", lambda model, **kw: ("timelimit", math.nan)
    )
    plain = p.solve_offline(inst, time_limit=60)
    with pytest.warns(confirm_mod.UnconfirmedWarning, match="status timelimit"):
        res = p.solve_offline(inst, time_limit=60, confirm="scip")
    assert (res.status, res.objective) == ("optimal", plain.objective)


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_unknown_confirm_value_is_refused(key):
    """``confirm="gurobi"`` is a ValueError naming the field and the value."""
    p = optsched.get_paper(key)
    inst = p.generate(seed=0, **p.demo_size)
    with pytest.raises(
        ValueError, match="confirm: expected None or 'scip', got 'gurobi'"
    ):
        p.solve_offline(inst, time_limit=5, confirm="gurobi")


def test_cli_solve_confirm_scip(tmp_path, capsys):
    """``optsched solve PAPER FILE --confirm scip`` exits 0 and says SCIP confirmed it."""
    p = optsched.get_paper("oasis")
    path = tmp_path / "inst.json"
    path.write_text(p.generate(seed=0, **p.demo_size).to_json())
    assert main(["solve", "oasis", str(path), "--confirm", "scip"]) == 0
    out = capsys.readouterr().out
    assert "optimal" in out and "(confirmed by SCIP)" in out


def test_cli_solve_confirm_mismatch_exits_2(tmp_path, capsys, monkeypatch):
    """A planted disagreement: exit 2 with one error line naming both solvers."""
    p = optsched.get_paper("oasis")
    path = tmp_path / "inst.json"
    path.write_text(p.generate(seed=0, **p.demo_size).to_json())
    _spy(monkeypatch, shift=1.0)
    assert main(["solve", "oasis", str(path), "--confirm", "scip"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SCIP's optimum" in err and "HiGHS's" in err


def test_cli_refuses_another_confirm_solver(tmp_path, capsys):
    """``--confirm gurobi`` is refused by argparse (exit 2, the allowed choice named)."""
    with pytest.raises(SystemExit) as exc:
        main(["solve", "oasis", str(tmp_path / "i.json"), "--confirm", "gurobi"])
    assert exc.value.code == 2
    assert "'scip'" in capsys.readouterr().err


def test_scip_optimum_equals_brute_force_asrpt(monkeypatch):
    """SCIP's optimum of the A-SRPT schedule MILP == the brute force of the asrpt tests.

    The brute force (``tests/asrpt/test_asrpt_offline.py``) enumerates starts
    and placements without any model; the MILP objective (8) is the sum of
    completion times it minimises.
    """
    from optsched.models.asrpt import solve_offline

    from optsched.asrpt import generate
    from tests.asrpt.test_asrpt_offline import _brute

    for seed in range(3):
        inst = generate(seed, n_jobs=2 + seed % 3, gpus_per_server=2, predictor="mean")
        seen = _spy(monkeypatch)
        res = solve_offline(inst, confirm="scip")
        assert res.status == "optimal"
        assert [s for s, _ in seen] == ["optimal"]
        assert seen[0][1] == pytest.approx(_brute(inst), rel=1e-9), seed


def test_a_model_in_rounds_without_final_model_is_refused():
    """``solve_step`` without ``final_model``: confirm is a ValueError naming the model."""
    import pyomo.environ as pyo

    from optsched.core.base import certified_solve

    def build(_):
        m = pyo.ConcreteModel(name="toy_rounds")
        m.x = pyo.Var(bounds=(0, 1))
        m.obj = pyo.Objective(expr=m.x)
        return m

    def never(*_a):
        raise AssertionError("solved although confirm is refused")

    with pytest.raises(ValueError, match="not available for toy_rounds .*in rounds"):
        certified_solve(
            None, build=build, extract=never, check=never, sense="min",
            time_limit=5, solve_step=never, confirm="scip",
        )  # fmt: skip


def test_without_pyscipopt_the_cli_says_how_to_install(tmp_path, capsys, monkeypatch):
    """pyscipopt missing: exit 2 before any solve, naming ``pip install optsched[scip]``."""

    def missing():
        raise ImportError(confirm_mod._INSTALL)

    monkeypatch.setattr(confirm_mod, "_pyscipopt", missing)
    with pytest.raises(ImportError, match=r"pip install optsched\[scip\]"):
        confirm_mod.check_confirm("scip")
    assert (
        main(["solve", "oasis", str(tmp_path / "none.json"), "--confirm", "scip"]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install optsched[scip]" in err
