"""The optsched command line at its edges (issue 23, sections 2 and 5).

User errors give one line naming the option and exit 2 before any work;
Ctrl-C gives one line and exit 130; a closed pipe ends quietly; internal
errors give one line and exit 1; ``check``, ``--version``, help texts and
figure-name prefixes.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import optsched
from optsched import cli
from optsched.cli import main
from optsched.core import adversary, experiment
from optsched.core import ratio as ratio_mod

PY = [sys.executable, "-m", "optsched.cli"]


def _one_error_line(err: str, *needles: str) -> None:
    """``err`` is exactly one ``optsched: error:`` line containing ``needles``."""
    assert err.count("\n") == 1 and err.startswith("optsched: error: "), err
    for needle in needles:
        assert needle in err, (needle, err)


def _boom(*args, **kwargs):
    raise AssertionError("computation started before the user error was found")


@pytest.fixture()
def no_work(monkeypatch):
    """Make every long computation of the CLI fail loudly if it is reached."""
    monkeypatch.setattr(ratio_mod, "ratios", _boom)
    monkeypatch.setattr(adversary, "worst_case", _boom)
    monkeypatch.setattr(experiment, "run", _boom)


# ------------------------------------------------------------ output paths
def _output_cases(tmp: Path) -> list[tuple[list[str], str, str]]:
    """(argv, option, path) with an output path that cannot be written."""
    afile = tmp / "afile"
    afile.write_text("x")
    missing = str(tmp / "missing.json")  # never read: the path check comes first
    under = str(afile / "sub" / "x.json")  # parent is a regular file
    return [
        (["generate", "oasis", "-o", under], "-o", under),
        (["run", "oasis", "oasis", missing, "-o", under], "-o", under),
        (["solve", "oasis", missing, "-o", str(tmp)], "-o", str(tmp)),
        (["ratio", "oasis", "-n", "1", "-o", under], "-o", under),
        (["figure", "run", "fig5", "--quick", "--out", str(afile)], "--out", "afile"),
        (["worst-case", "oasis", "oasis", "--out", str(afile)], "--out", "afile"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_unwritable_output_path_found_before_work(case, tmp_path, capsys, no_work):
    """An output path under a file, or that is a directory, is one line naming the option, exit 2, before any work."""
    argv, option, path = _output_cases(tmp_path)[case]
    assert main(argv) == 2
    _one_error_line(capsys.readouterr().err, f"{option}: ", path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores permission bits",
)
def test_read_only_output_folder(tmp_path, capsys):
    """A read-only output folder is reported naming -o, exit 2."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        assert main(["generate", "oasis", "-o", str(ro / "i.json")]) == 2
        _one_error_line(capsys.readouterr().err, "-o: ", "permission")
    finally:
        ro.chmod(0o755)


# ------------------------------------------------------------------ options
@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["solve", "oasis", "i.json", "--time-limit", "-1"], "--time-limit"),
        (["solve", "oasis", "i.json", "--time-limit", "nan"], "--time-limit"),
        (["solve", "oasis", "i.json", "--time-limit", "inf"], "--time-limit"),
        (["solve", "oasis", "i.json", "--threads", "0"], "--threads"),
        (["ratio", "oasis", "--time-limit", "0"], "--time-limit"),
        (["ratio", "oasis", "-n", "0"], "-n"),
        (["ratio", "oasis", "--workers", "0"], "--workers"),
        (["generate", "oasis", "--seed", "-1"], "--seed"),
        (["worst-case", "oasis", "oasis", "--evals", "0"], "--evals"),
        (["worst-case", "oasis", "oasis", "--batch", "0"], "--batch"),
        (["figure", "run", "fig5", "--workers", "-2"], "--workers"),
        (["demo", "-n", "-3"], "-n"),
    ],
)
def test_bad_option_values_one_line(argv, option, capsys, no_work):
    """Out-of-range option values exit 2 with one line naming the option and value."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    _one_error_line(capsys.readouterr().err, f"optsched: error: {option}: must be")


def test_seed_message_format(capsys):
    """The option error has the documented format: option, rule, value."""
    with pytest.raises(SystemExit):
        main(["generate", "oasis", "--seed", "-1"])
    err = capsys.readouterr().err
    assert err == "optsched: error: --seed: must be an integer >= 0, got -1\n"


@pytest.mark.parametrize("command", ["generate", "ratio"])
def test_other_papers_size_option_rejected(command, capsys, no_work):
    """A size option of another paper is rejected, naming it and this paper's options."""
    assert main([command, "oasis", "--n-sites", "3"]) == 2
    _one_error_line(
        capsys.readouterr().err, "--n-sites", "oasis", "--n-jobs", "--n-slots"
    )


def test_invalid_size_found_before_the_pool(capsys, no_work):
    """An invalid size value in `ratio` is reported (naming it) before any solve starts."""
    assert main(["ratio", "oasis", "--n-jobs", "-1"]) == 2
    _one_error_line(capsys.readouterr().err, "n_jobs")


def test_cli_is_parallel_by_default(monkeypatch, capsys):
    """Without --workers the CLI asks for one process per CPU, whatever the library default."""
    seen = {}

    def fake(*args, **kwargs):
        seen.update(kwargs)
        raise ValueError("stop here")

    monkeypatch.setattr(ratio_mod, "ratios", fake)
    assert main(["ratio", "oasis", "-n", "1"]) == 2
    assert seen["workers"] == (os.cpu_count() or 1)


# --------------------------------------------------------------------- dask
def test_unreachable_dask_scheduler_fails_fast():
    """An unreachable Dask scheduler gives one line naming the address within seconds, exit 2."""
    t0 = time.monotonic()
    argv = ["ratio", "oasis", "-n", "1", "--n-jobs", "2", "--n-slots", "3"]
    proc = subprocess.run(
        [*PY, *argv, "--dask", "tcp://127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert time.monotonic() - t0 < 15
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    _one_error_line(proc.stderr, "tcp://127.0.0.1:1")


# ------------------------------------------------------------------- ctrl-c
def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def _live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not zombies (Linux /proc)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(stat.parent.name))
    return live


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_during_ratio(tmp_path):
    """SIGINT to the process group during `ratio` gives one line, exit 130, no worker traceback, no file."""
    out = tmp_path / "r.csv"
    size = ["--n-jobs", "25", "--n-slots", "25"]  # each solve takes > 20 s
    proc = subprocess.Popen(
        [*PY, "ratio", "oasis", "-n", "2", *size, "--workers", "2", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, like a terminal's foreground job
        # a shell's background job (CI runners, `cmd &`) starts with SIGINT
        # ignored, and Python then keeps it ignored: restore the default, as a
        # terminal's foreground job has it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    t0 = time.monotonic()
    while len(_children(proc.pid)) < 2 and time.monotonic() - t0 < 30:
        time.sleep(0.1)  # wait for the worker processes: the solves have begun
    assert proc.poll() is None, proc.communicate()
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err == "optsched: interrupted; nothing written\n"
    assert not out.exists() and list(tmp_path.iterdir()) == []
    t1 = time.monotonic()
    while _live_members(proc.pid) and time.monotonic() - t1 < 5:
        time.sleep(0.1)
    assert _live_members(proc.pid) == []  # the workers were stopped too


@pytest.mark.parametrize(
    ("target", "argv"),
    [
        ((ratio_mod, "ratios"), ["ratio", "oasis", "-n", "1"]),
        ((experiment, "run"), ["figure", "run", "fig5", "--quick"]),
        ((adversary, "worst_case"), ["worst-case", "oasis", "oasis"]),
    ],
)
def test_keyboard_interrupt_one_line(target, argv, tmp_path, capsys, monkeypatch):
    """KeyboardInterrupt in ratio, figure run or worst-case: one line, exit 130."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(*target, interrupted)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 130
    assert capsys.readouterr().err == "optsched: interrupted; nothing written\n"
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------- broken pipe
def test_broken_pipe_quiet_exit():
    """`optsched generate ... | head -1`: the closed pipe ends the command quietly, exit 0."""
    argv = ["generate", "oasis", "--n-jobs", "300", "--n-slots", "40"]  # > 64 KiB
    proc = subprocess.Popen(
        [*PY, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "{\n"
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert err == ""


# ------------------------------------------------------------ figure report
def test_figure_report_without_claims_folder(tmp_path, capsys, monkeypatch):
    """`figure report` outside the repository or with a wrong --claims exits 2 and leaves the README as it was."""
    readme = tmp_path / "paper_figures" / "README.md"
    readme.parent.mkdir()
    readme.write_bytes(b"# figures\n\nhand-written\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(tmp_path)  # no paper_figures/claims here
    assert main(["figure", "report"]) == 2
    _one_error_line(capsys.readouterr().err, "paper_figures/claims", "claims folder")
    wrong = str(tmp_path / "nope")
    assert main(["figure", "report", "--claims", wrong, "--readme", str(readme)]) == 2
    _one_error_line(capsys.readouterr().err, wrong)
    assert main(["figure", "report", "--claims", str(empty)]) == 2
    _one_error_line(capsys.readouterr().err, str(empty))
    assert readme.read_bytes() == b"# figures\n\nhand-written\n"


# ---------------------------------------------------------------- catch-all
@pytest.mark.parametrize(
    ("exc", "code", "prefix"),
    [
        (MemoryError(), 1, "optsched: internal error: MemoryError"),
        (OverflowError("int too large"), 1, "optsched: internal error: Overflow"),
        (RuntimeError("bug\nsecond line"), 1, "optsched: internal error: Runtime"),
        (PermissionError(13, "Permission denied", "/x"), 2, "optsched: error: /x"),
    ],
)
def test_catch_all_one_line(exc, code, prefix, monkeypatch, capsys):
    """Unexpected exceptions give one line and exit 1; OSError is a user error, exit 2."""

    def raising(args: argparse.Namespace) -> int:
        raise exc

    monkeypatch.setattr(cli, "cmd_list", raising)
    monkeypatch.delenv(cli.DEBUG_ENV, raising=False)
    assert main(["list"]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(prefix), err
    if code == 1:
        assert "OPTSCHED_DEBUG=1" in err


def test_debug_env_shows_the_traceback(monkeypatch):
    """With OPTSCHED_DEBUG=1 an internal error propagates (traceback shown)."""

    def raising(args: argparse.Namespace) -> int:
        raise OverflowError("x")

    monkeypatch.setattr(cli, "cmd_list", raising)
    monkeypatch.setenv(cli.DEBUG_ENV, "1")
    with pytest.raises(OverflowError):
        main(["list"])


# -------------------------------------------------------------------- check
def test_check_command(tmp_path, capsys):
    """`check` accepts a schedule written by `run -o` (exit 0) and names the equation of a tampered one (exit 1)."""
    inst_path, sched_path = tmp_path / "i.json", tmp_path / "s.json"
    assert main(["generate", "oasis", "--seed", "3", "-o", str(inst_path)]) == 0
    assert main(["run", "oasis", "oasis", str(inst_path), "-o", str(sched_path)]) == 0
    capsys.readouterr()
    p = optsched.get_paper("oasis")
    inst = p.instance_type.from_json(inst_path.read_text())
    sched = p.schedule_type.from_json(sched_path.read_text())
    expected = p.check(inst, sched).objective
    assert main(["check", "oasis", str(inst_path), str(sched_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("oasis: feasible objective=")
    assert float(out.split("objective=")[1].split()[0]) == pytest.approx(
        expected, rel=1e-5
    )
    # tamper: job 0 gets 10**4 workers on server 0 in every slot
    workers = np.array(sched.workers, copy=True)
    workers[0, :, 0] = 10**4
    bad = tmp_path / "bad.json"
    bad.write_text(dataclasses.replace(sched, workers=workers).to_json())
    assert main(["check", "oasis", str(inst_path), str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("oasis: infeasible: constraint (")
    # a file that is not a schedule: input error, exit 2
    assert main(["check", "oasis", str(inst_path), str(inst_path)]) == 2
    assert capsys.readouterr().err.startswith("optsched: error: ")


# --------------------------------------------------------------- help, version
def test_version(capsys):
    """`optsched --version` prints the installed distribution's version."""
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    expected = importlib.metadata.version("optsched")
    assert capsys.readouterr().out.strip() == f"optsched {expected}"


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def test_every_option_has_help():
    """Every argument of every command has help text; --time-limit gives its unit; no reST markup."""
    parser = cli.build_parser()
    assert "``" not in (parser.description or "")
    commands = dict(_subparsers(parser))
    assert {"check", "ratio", "figure", "worst-case"} <= set(commands)
    for name, sub in [("optsched", parser), *commands.items()]:
        assert sub.description and "``" not in sub.description, name
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help and action.help.strip(), (name, action.dest)
            if "--time-limit" in action.option_strings:
                assert "second" in action.help, name


# -------------------------------------------------------------- figure names
def test_figure_name_prefixes(capsys, no_work):
    """Any unique prefix selects a figure; a shared prefix is 'ambiguous' with candidates; a typo suggests close names."""
    assert experiment.get_spec("fig5_perf").name == "fig5_performance_ratio"
    assert experiment.get_spec("oasis_variants_fig5").name == "oasis_variants_fig5"
    assert experiment.get_spec("hetero/fig18").name == "fig18_gavel_scale"
    assert main(["figure", "run", "hetero/fig1", "--quick"]) == 2
    _one_error_line(capsys.readouterr().err, "ambiguous", "fig10_fairness", "fig18_")
    assert main(["figure", "run", "fig5_perfromance", "--quick"]) == 2
    _one_error_line(capsys.readouterr().err, "unknown", "fig5_performance_ratio")
