"""``optsched solve --formulation / --start / --threads``: what reaches the model, and the errors."""

from __future__ import annotations

import importlib

import pytest
from optsched.models import okita as okita_model

import optsched
from optsched import cli
from optsched.cli import main
from optsched.core.registry import PAPERS

P = optsched.get_paper("okita")


@pytest.fixture()
def files(tmp_path):
    """An okita instance, its okita schedule, and another instance's schedule (JSON files)."""
    inst, other = P.generate(1, **P.demo_size), P.generate(2, **P.demo_size)
    (tmp_path / "i.json").write_text(inst.to_json())
    (tmp_path / "s.json").write_text(P.run("okita", inst).to_json())
    (tmp_path / "t.json").write_text(P.run("okita", other).to_json())
    return inst, tmp_path


@pytest.fixture()
def spy(monkeypatch):
    """Record the keywords the CLI hands to okita's ``solve_offline`` (then solve)."""
    seen: dict = {}
    real = okita_model.solve_offline

    def recording(inst, **kwargs):
        seen.update(kwargs)
        return real(inst, **kwargs)

    monkeypatch.setattr(okita_model, "solve_offline", recording)
    return seen


def test_formulation_start_and_threads_reach_the_model(files, spy, capsys):
    """v3 from the given start on one thread proves the optimum that v1 proves
    without a start (two formulations, one optimum), and gets exactly that start."""
    inst, tmp = files
    argv = ["solve", "okita", str(tmp / "i.json"), "--formulation", "v3"]
    argv += ["--start", str(tmp / "s.json"), "--threads", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert spy["formulation"] == "v3" and spy["threads"] == 1
    assert spy["start"].to_json() == (tmp / "s.json").read_text()
    ref = okita_model.solve_offline(inst, formulation="v1", threads=1)
    assert ref.status == "optimal"
    assert out.startswith(f"okita: optimal objective={ref.objective:.6g} ")


def test_without_the_options_the_paper_start_rule_and_default_formulation(
    files, spy, capsys
):
    """No option: no formulation or thread keyword, and the paper's start rule's schedule."""
    inst, tmp = files
    assert main(["solve", "okita", str(tmp / "i.json")]) == 0
    assert "formulation" not in spy and "threads" not in spy
    from optsched.core.ratio import best_start

    assert spy["start"].to_json() == best_start(P, inst).to_json()


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--formulation", "v9"], ["--formulation", "'v9'", "v1, v2, v3"]),
        (["--start", "t.json"], ["--start", "t.json", "not a feasible schedule"]),
        (["--start", "none.json"], ["schedule file", "none.json"]),
    ],
)
def test_bad_options_are_one_line_and_exit_2_before_any_solve(
    files, monkeypatch, capsys, extra, needles
):
    """A formulation the paper lacks, another instance's schedule, a missing file:
    one error line naming the option or file, exit 2, no solve, no output
    (``--threads 0`` is a usage error, tests/test_cli_edges.py)."""
    _, tmp = files
    monkeypatch.chdir(tmp)
    monkeypatch.setattr(okita_model, "solve_offline", _no_solve)
    assert main(["solve", "okita", "i.json", "-o", "out.json", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("optsched: error: "), err
    for needle in needles:
        assert needle in err, (needle, err)
    assert not (tmp / "out.json").exists()


def test_a_paper_with_one_formulation_refuses_the_option(files, capsys):
    """``--formulation`` on oasis (one model) names the paper and exits 2."""
    _, tmp = files
    inst = optsched.get_paper("oasis").generate(0)
    (tmp / "o.json").write_text(inst.to_json())
    assert main(["solve", "oasis", str(tmp / "o.json"), "--formulation", "v3"]) == 2
    assert "--formulation: paper 'oasis' has one formulation" in capsys.readouterr().err


def test_the_help_names_exactly_the_papers_with_formulations():
    """``SOLVE_FORMULATIONS`` (the help text's list) is the papers whose model module has FORMULATIONS."""
    have = tuple(
        key
        for key in PAPERS
        if getattr(
            importlib.import_module(f"optsched.models.{key}"), "FORMULATIONS", None
        )
    )
    assert sorted(cli.SOLVE_FORMULATIONS) == sorted(have)


def _no_solve(*args, **kwargs):
    raise AssertionError("the solve started before the user error was found")
