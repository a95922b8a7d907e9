"""The optsched command line: happy paths, exit code 2, no partial output."""

import json

import pytest

import optsched
from optsched.cli import main


def test_list(capsys):
    """`optsched list` names the oasis paper and its algorithms."""
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "oasis" in out and "dorm" in out


def test_generate_then_run(tmp_path, capsys):
    """generate writes a valid instance; run prints the checked objective."""
    path = tmp_path / "inst.json"
    assert (
        main(["generate", "oasis", "--seed", "2", "--n-jobs", "4", "-o", str(path)])
        == 0
    )
    assert json.loads(path.read_text())["format"] == "optsched.oasis/1"
    assert main(["run", "oasis", "oasis", str(path)]) == 0
    assert "objective=" in capsys.readouterr().out


def test_malformed_instance_exit_2(tmp_path, capsys):
    """A malformed instance gives one error line naming the field and exit 2."""
    bad = tmp_path / "bad.json"
    d = json.loads(optsched.get_paper("oasis").generate(seed=0).to_json())
    d["jobs"][0]["epochs"] = -1
    bad.write_text(json.dumps(d))
    out = tmp_path / "sched.json"
    assert main(["run", "oasis", "oasis", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jobs[0].epochs" in err
    assert not out.exists()


def test_bad_size_no_partial_file(tmp_path, capsys):
    """An invalid size option exits 2 and writes no output file."""
    out = tmp_path / "inst.json"
    assert main(["generate", "oasis", "--n-jobs", "-1", "-o", str(out)]) == 2
    assert "n_jobs" in capsys.readouterr().err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_unknown_paper_and_algorithm(tmp_path, capsys):
    """Unknown paper or algorithm names exit 2 with the known names."""
    assert main(["ratio", "nosuch", "-n", "1"]) == 2
    assert "known: oasis" in capsys.readouterr().err
    path = tmp_path / "i.json"
    main(["generate", "oasis", "-o", str(path)])
    assert main(["run", "oasis", "magic", str(path)]) == 2


def test_missing_file(capsys):
    """A missing instance file exits 2."""
    assert main(["run", "oasis", "oasis", "/nonexistent/x.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_argparse_errors_exit_2():
    """Usage errors exit 2 (argparse convention)."""
    with pytest.raises(SystemExit) as info:
        main(["generate"])
    assert info.value.code == 2


def test_ratio_hetero_prints_paper_value_per_algorithm(capsys) -> None:
    """`optsched ratio hetero` shows the paper's ratio beside HAS (Fig. 9: 1.0) and '-' elsewhere."""
    argv = ["ratio", "hetero", "-n", "1", "--n-jobs", "2", "--n-workers", "4"]
    assert main([*argv, "--algorithms", "has,optimus", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    summary = out[out.index("paper_reports") :].splitlines()
    has_row = next(line for line in summary if " has " in f" {line} ")
    opt_row = next(line for line in summary if " optimus " in f" {line} ")
    assert has_row.rstrip().endswith("1.0-1.0")
    assert opt_row.rstrip().endswith("-")


def test_figure_list_states_and_run_stale(tmp_path, monkeypatch, capsys) -> None:
    """`figure list` shows each record's state; `figure run stale` runs exactly the non-fresh ones."""
    from optsched import cli
    from optsched.core import experiment

    monkeypatch.setattr(cli, "FIGURES_CLAIMS", tmp_path / "claims")  # nothing recorded
    assert main(["figure", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(experiment.specs())
    assert all(line.endswith("; not recorded)") for line in lines)

    monkeypatch.setattr(cli, "_record_state", lambda spec: "fresh")
    assert main(["figure", "run", "stale", "--quick"]) == 0
    assert "nothing to run" in capsys.readouterr().out

    one = "fig4_prediction_error_share"
    monkeypatch.setattr(
        cli, "_record_state", lambda s: "stale" if s.name == one else "fresh"
    )
    out = tmp_path / "out"
    args = ["figure", "run", "stale", "--quick", "--out", str(out), "--no-progress"]
    assert main([*args, "--workers", "1"]) == 0
    assert f"1 figures without a fresh record: {one}" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} == {
        f"{one}.csv",
        f"{one}.png",
        f"{one}.claims.csv",
    }
