"""Recorded runs: rows + provenance beside the claims, re-derivation, staleness, counts."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from test_core_experiment import TOY

from optsched.core import experiment as E
from optsched.core import record as R
from optsched.core.report import _with_freshness, status_counts

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "paper_figures" / "claims"


def test_record_run_keeps_rows_provenance_and_claims(tmp_path: Path) -> None:
    """--record writes claims, gzip rows (same bytes for the same rows) and a record naming the code."""
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    rec = R.record_run(TOY, res.rows, res.claims, tmp_path, n_tasks=6)
    names = sorted(p.name for p in tmp_path.iterdir() if p.is_file())
    assert names == [
        "toy_figure.claims.csv",
        "toy_figure.record.json",
        "toy_figure.rows.csv.gz",
    ]
    blob = (tmp_path / "toy_figure.rows.csv.gz").read_bytes()
    assert gzip.decompress(blob).decode() == res.rows.to_csv(index=False)
    assert rec["rows"] == len(res.rows) == 12 and rec["rows_bytes"] == len(blob)
    assert rec["code"] == R.code_digest(TOY) and rec["tasks"] == 6
    assert len(rec["load_1_5_15"]) == 3 and rec["date"].endswith("Z")
    assert json.loads((tmp_path / "toy_figure.record.json").read_text()) == rec
    R.record_run(TOY, res.rows, res.claims, tmp_path, n_tasks=6)
    assert (tmp_path / "toy_figure.rows.csv.gz").read_bytes() == blob
    assert not R.is_stale(TOY, R.read_record(tmp_path, "toy_figure"))
    assert R.is_stale(TOY, None)
    assert R.is_stale(TOY, {**rec, "code": "0" * 16})


def test_rederive_gives_the_recorded_claims(tmp_path: Path) -> None:
    """The claims re-derived from the recorded rows alone equal the run's claims."""
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    R.record_run(TOY, res.rows, res.claims, tmp_path)
    again = R.rederive(TOY, tmp_path)
    for col in ("claim", "ours", "status", "note"):
        assert again[col].tolist() == res.claims[col].fillna("").tolist(), col


def test_digest_ignores_docstrings_and_comments_not_code(tmp_path: Path) -> None:
    """Docstring, comment and layout edits keep the syntax-tree text; a code edit changes it."""
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text('"""Doc."""\n\ndef f(x):\n    """One."""\n    return x + 1  # note\n')
    b.write_text('"""Other doc."""\ndef f(x):\n    """Two."""\n    return (x + 1)\n')
    c.write_text('"""Doc."""\n\ndef f(x):\n    """One."""\n    return x + 2\n')
    assert R._tree_text(a) == R._tree_text(b) != R._tree_text(c)


def test_report_marks_unrecorded_and_changed_claims_stale(tmp_path: Path) -> None:
    """A claims file without a record, or with another code digest, is stale and shows its recorded status."""
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    folder = tmp_path / "claims"
    R.record_run(TOY, res.rows, res.claims, folder)
    fresh = _with_freshness(folder / "toy_figure.claims.csv", {"toy_figure": TOY})
    assert fresh["status"].tolist() == res.claims["status"].tolist()
    rec = json.loads((folder / "toy_figure.record.json").read_text())
    (folder / "toy_figure.record.json").write_text(json.dumps({**rec, "code": "x"}))
    stale = _with_freshness(folder / "toy_figure.claims.csv", {"toy_figure": TOY})
    assert set(stale["status"]) == {"stale"}
    assert stale["recorded"].tolist() == res.claims["status"].tolist()
    (folder / "toy_figure.record.json").unlink()
    assert set(
        _with_freshness(folder / "toy_figure.claims.csv", {"toy_figure": TOY})["status"]
    ) == {"stale"}


def test_status_counts_table() -> None:
    """The counts table has one row per paper and a total, in the vocabulary's order."""
    claims = pd.DataFrame(
        {"paper_key": ["a", "a", "b", "b", "b"],
         "status": ["reproduced", "stale", "trend only", "reproduced", "not run"]}
    )  # fmt: skip
    lines = status_counts(claims)
    head = "| paper | reproduced | trend only | not run | stale | total |"
    assert lines[2] == head + " rest on unproven optima |"
    assert lines[4] == "| `a` | 1 | 0 | 0 | 1 | 2 | 0 |"
    assert lines[5] == "| `b` | 1 | 1 | 1 | 0 | 3 | 0 |"
    assert lines[6] == "| all | 2 | 1 | 1 | 1 | 5 | 0 |"
    flagged = claims.assign(optima=["", "", "", "rests on unproven optima: x", ""])
    assert status_counts(flagged)[5] == "| `b` | 1 | 1 | 1 | 0 | 3 | 1 |"
    assert status_counts(flagged)[6] == "| all | 2 | 1 | 1 | 1 | 5 | 1 |"


def _interval_rows() -> pd.DataFrame:
    """Three rows of a min problem: a proven optimum, an unproven one, no optimum.

    Row 2: ALG = 12, incumbent 10, bound 6 -> OPT in [6, 10], ratio in [1.2, 2.0].
    """
    return pd.DataFrame(
        {"alg": [10.0, 12.0, 9.0],
         "opt_status": ["optimal", "time_limit", "error"],
         "opt_objective": [10.0, 10.0, float("nan")],
         "opt_bound": [10.0, 6.0, float("nan")],
         "ratio": [1.0, float("nan"), float("nan")],
         "ratio_lo": [1.0, 1.2, float("nan")],
         "ratio_hi": [1.0, 2.0, float("nan")]}
    )  # fmt: skip


def test_interval_ends_move_only_the_unproven_optima() -> None:
    """Each end sets the unproven row's ratios (and, at the bound, its optimum); nothing else moves."""
    rows = _interval_rows()
    ends = R.interval_ends(rows)
    assert ends is not None
    inc, bnd = ends["incumbent"], ends["bound"]
    for c in ("ratio", "ratio_lo", "ratio_hi"):
        assert inc[c].iloc[1] == 1.2 and bnd[c].iloc[1] == 2.0
    assert inc["opt_objective"].iloc[1] == 10.0 and bnd["opt_objective"].iloc[1] == 6.0
    for end in (inc, bnd):
        pd.testing.assert_frame_equal(end.iloc[[0, 2]], rows.iloc[[0, 2]])
        assert end["opt_status"].tolist() == rows["opt_status"].tolist()
    assert R.interval_ends(rows.iloc[[0, 2]]) is None  # every optimum proven
    assert R.interval_ends(rows.drop(columns="opt_status")) is None


def test_interval_verdicts_flag_a_verdict_that_rests_on_an_unproven_optimum(
    tmp_path: Path,
) -> None:
    """'largest ratio below 1.5' holds only if the incumbent is optimal; the ALG claim never moves."""
    from types import SimpleNamespace

    from optsched.core.report import _shown

    spec = SimpleNamespace(
        name="iv",
        claims=[
            E.Claim("largest upper ratio below 1.5", "< 1.5",
                    lambda d: float(d["ratio_hi"].max()), holds=lambda v: v < 1.5),
            E.Claim("largest ALG below 20", "< 20",
                    lambda d: float(d["alg"].max()), holds=lambda v: v < 20),
        ],
    )  # fmt: skip
    assert R.interval_verdicts(spec, tmp_path) is None  # no rows file
    _interval_rows().to_csv(tmp_path / "iv.rows.csv.gz", index=False)
    iv = R.interval_verdicts(spec, tmp_path)
    assert iv is not None
    assert iv["status"].tolist() == ["not reproduced", "reproduced"]
    assert iv["at_incumbent"].tolist() == ["reproduced", "reproduced"]
    assert iv["at_bound"].tolist() == ["not reproduced", "reproduced"]
    assert iv["rests"].tolist() == [True, False]
    assert _shown("not reproduced", "not reproduced", "rests on x") == (
        "not reproduced (rests on x)"
    )
    assert _shown("stale", "reproduced", "rests on x") == "stale (recorded: reproduced)"


def _recorded() -> list[tuple[str, Path]]:
    return sorted(
        (p.name.removesuffix(".rows.csv.gz"), p.parent)
        for p in CLAIMS.rglob("*.rows.csv.gz")
    )


@pytest.mark.parametrize(
    ("name", "folder"), _recorded(), ids=[n for n, _ in _recorded()]
)
def test_every_recorded_claim_follows_from_its_recorded_rows(
    name: str, folder: Path
) -> None:
    """Each fresh recorded claims file equals its claims re-derived from the recorded rows."""
    spec = E.get_spec(name)
    record = R.read_record(folder, name)
    assert record is not None, f"{name}: rows without a record"
    blob = (folder / f"{name}.rows.csv.gz").read_bytes()
    assert record["rows_bytes"] == len(blob)
    assert record["rows"] == len(pd.read_csv(io.BytesIO(gzip.decompress(blob))))
    if R.is_stale(spec, record):
        pytest.skip(f"{name}: recorded before the current code (stale in the report)")
    kept = pd.read_csv(folder / f"{name}.claims.csv", dtype=str, keep_default_na=False)
    again = R.rederive(spec, folder)
    assert again["claim"].tolist() == kept["claim"].tolist()
    assert again["ours"].tolist() == kept["ours"].tolist()
    assert again["status"].tolist() == kept["status"].tolist()


def test_report_puts_the_status_counts_at_the_top(tmp_path: Path) -> None:
    """The findings file gets one counts block below its first paragraph, kept on re-runs."""
    from optsched.core.report import COUNTS_BEGIN, REPORT_BEGIN, report

    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    R.record_run(TOY, res.rows, res.claims, tmp_path / "claims" / "oasis")
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n\nIntro.\n\nMore prose.\n")
    report(tmp_path / "claims", readme)
    report(tmp_path / "claims", readme)
    text = readme.read_text()
    assert text.count(COUNTS_BEGIN) == 1 and text.count(REPORT_BEGIN) == 1
    assert text.index("Intro.") < text.index(COUNTS_BEGIN) < text.index("More prose.")
    assert text.index(COUNTS_BEGIN) < text.index(REPORT_BEGIN)
    assert "| paper |" in text.split(COUNTS_BEGIN, 1)[1].split(REPORT_BEGIN, 1)[0]


def test_report_states_how_many_optima_were_proven(tmp_path: Path) -> None:
    """A recorded run whose rows carry opt_status shows the proven count; others show nothing."""
    from optsched.core.report import proven_text

    rows = pd.DataFrame({"opt_status": ["optimal", "time_limit", "optimal", None]})
    rows.to_csv(tmp_path / "a.rows.csv.gz", index=False)
    assert proven_text(tmp_path / "a.rows.csv.gz") == "optimum proven in 2 / 3 rows"
    pd.DataFrame({"x": [1]}).to_csv(tmp_path / "b.rows.csv.gz", index=False)
    assert proven_text(tmp_path / "b.rows.csv.gz") == ""
    assert proven_text(tmp_path / "missing.rows.csv.gz") == ""


def test_digest_covers_the_figure_modules_a_spec_builds_on() -> None:
    """A variant figure built on its base figure's spec is stale when the base changes."""
    files = R._code_files(E.get_spec("oasis_variants_fig3"))
    assert files["spec/oasis.fig3_total_utility.py"].name == "fig3_total_utility.py"
    alone = R._code_files(E.get_spec("fig3_total_utility"))
    assert not any(k.startswith("spec/oasis.") for k in alone)


def test_a_run_whose_code_changed_meanwhile_is_recorded_stale(tmp_path: Path) -> None:
    """The digest taken at the run's start is kept; a different one now warns and reads stale."""
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    same = R.record_run(TOY, res.rows, res.claims, tmp_path, code=R.code_digest(TOY))
    assert not R.is_stale(TOY, same)
    with pytest.warns(UserWarning, match="code changed during the run"):
        rec = R.record_run(TOY, res.rows, res.claims, tmp_path, code="0" * 16)
    assert rec["code"] == "0" * 16 and R.is_stale(
        TOY, R.read_record(tmp_path, TOY.name)
    )


def test_every_core_module_is_digested_or_declared_inert() -> None:
    """A new core module must be put in CORE_MODULES or NOT_DIGESTED (a choice, not a default)."""
    names = {p.stem for p in (ROOT / "optsched" / "core").glob("*.py")}
    assert not set(R.CORE_MODULES) & set(R.NOT_DIGESTED)
    assert names == set(R.CORE_MODULES) | set(R.NOT_DIGESTED)
    files = R._code_files(E.get_spec("fig5_performance_ratio"))
    assert files["core/local_search.py"].is_file()


def test_a_stale_record_names_the_files_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-file hashes: a code edit in one covered file names that file; a docstring edit none."""
    extra = tmp_path / "mod.py"
    extra.write_text('"""Doc."""\n\ndef f(x):\n    return x + 1\n')
    covered = R._code_files

    def with_extra(spec):  # one more covered file, under the test's control
        return {**covered(spec), "slice/mod.py": extra}

    monkeypatch.setattr(R, "_code_files", with_extra)
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    rec = R.record_run(TOY, res.rows, res.claims, tmp_path / "rec")
    assert set(rec["code_files"]) == set(with_extra(TOY))
    assert R.stale_files(TOY, rec) == [] and not R.is_stale(TOY, rec)
    extra.write_text('"""Other doc."""\n\ndef f(x):\n    return x + 1  # note\n')
    assert R.stale_files(TOY, rec) == [] and not R.is_stale(TOY, rec)
    extra.write_text('"""Doc."""\n\ndef f(x):\n    return x + 2\n')
    assert R.stale_files(TOY, rec) == ["slice/mod.py"] and R.is_stale(TOY, rec)
    monkeypatch.setattr(R, "_code_files", covered)  # the file is no longer covered
    assert R.stale_files(TOY, rec) == ["slice/mod.py"] and R.is_stale(TOY, rec)
    old = {k: v for k, v in rec.items() if k != "code_files"}
    assert R.stale_files(TOY, old) is None  # a record from before per-file hashes


def test_figure_list_says_which_files_staled_a_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``optsched figure list`` prints ``stale: <file> changed`` for a record with per-file hashes."""
    from optsched import cli

    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    files = R.code_hashes(TOY)
    label = sorted(files)[0]
    with pytest.warns(UserWarning, match="code changed during the run"):
        R.record_run(
            TOY, res.rows, res.claims, tmp_path / TOY.paper,
            code="0" * 16, files={**files, label: "0" * 16},
        )  # fmt: skip
    monkeypatch.setattr(cli, "FIGURES_CLAIMS", tmp_path)
    assert cli._record_state(TOY, why=True) == f"stale: {label} changed"
    assert cli._record_state(TOY) == "stale"
    R.record_run(TOY, res.rows, res.claims, tmp_path / TOY.paper)
    assert cli._record_state(TOY, why=True) == "fresh"


def test_a_digest_without_its_hashes_keeps_no_hashes(tmp_path: Path) -> None:
    """``code=`` alone: hashes taken now could disagree with that digest, so none are kept."""
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    with pytest.warns(UserWarning, match="code changed during the run"):
        rec = R.record_run(TOY, res.rows, res.claims, tmp_path, code="0" * 16)
    assert rec["code_files"] is None and R.stale_files(TOY, rec) is None
    assert R.is_stale(TOY, rec)
    same = R.record_run(TOY, res.rows, res.claims, tmp_path, code=R.code_digest(TOY))
    assert same["code_files"] is None and not R.is_stale(TOY, same)


def test_a_record_keeps_its_wall_time_and_figure_list_prints_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wall_s`` is stored rounded and ``optsched figure list`` shows it; None shows nothing."""
    from optsched import cli

    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    monkeypatch.setattr(cli, "FIGURES_CLAIMS", tmp_path)
    rec = R.record_run(TOY, res.rows, res.claims, tmp_path / TOY.paper, wall_s=2712.34)
    assert rec["wall_s"] == 2712.3
    assert R.read_record(tmp_path / TOY.paper, TOY.name)["wall_s"] == 2712.3
    assert cli._record_wall(TOY) == ", run 45 min"
    R.record_run(TOY, res.rows, res.claims, tmp_path / TOY.paper, wall_s=7.0)
    assert cli._record_wall(TOY) == ", run 7 s"
    R.record_run(TOY, res.rows, res.claims, tmp_path / TOY.paper)
    assert cli._record_wall(TOY) == ""


def test_figure_run_record_keeps_digest_hashes_and_wall_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``optsched figure run NAME --record`` writes a fresh record with per-file hashes and ``wall_s``."""
    from optsched import cli

    monkeypatch.setattr(E, "get_spec", lambda name: TOY)
    monkeypatch.setattr(cli, "FIGURES_CLAIMS", tmp_path / "claims")
    argv = ["figure", "run", TOY.name, "--record", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert cli.main(argv) == 0
    rec = R.read_record(tmp_path / "claims" / TOY.paper, TOY.name)
    assert rec is not None and rec["code_files"] == R.code_hashes(TOY)
    assert isinstance(rec["wall_s"], float) and rec["wall_s"] >= 0
    assert rec["commit"] == R.current_commit()  # taken at the start; none made since
    assert cli._record_state(TOY) == "fresh"
    res = E.run(TOY, out=tmp_path / "out2", workers=1, progress=False, echo=False)
    given = R.record_run(TOY, res.rows, res.claims, tmp_path / "r", commit="abc1234")
    assert given["commit"] == "abc1234"


def test_run_time_text() -> None:
    """``run_time``: seconds below two minutes, whole minutes above, empty when not kept."""
    assert R.run_time({"wall_s": 7.04}) == "7 s"
    assert R.run_time({"wall_s": 119.4}) == "119 s"
    assert R.run_time({"wall_s": 2712.3}) == "45 min"
    assert R.run_time({"wall_s": None}) == "" and R.run_time({}) == ""
    assert R.run_time({"wall_s": True}) == ""


def test_uncommitted_covered_files_are_named_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``uncommitted_files``: [] for committed code, the label of a modified or
    untracked covered file, None outside git; ``record_run`` keeps and warns."""
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    mod = repo / "mod.py"
    mod.write_text("def f(x):\n    return x\n")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                        "user.email=t@t", *args], check=True, capture_output=True)  # fmt: skip

    git("init", "-q")
    git("add", "mod.py")
    git("commit", "-q", "-m", "one")
    covered = {"slice/mod.py": mod, "slice/new.py": repo / "new.py"}
    monkeypatch.setattr(R, "_code_files", lambda spec: covered)
    assert R.uncommitted_files(TOY) == []
    (repo / "new.py").write_text("x = 1\n")  # untracked
    assert R.uncommitted_files(TOY) == ["slice/new.py"]
    mod.write_text("def f(x):\n    return x + 1\n")  # modified
    assert R.uncommitted_files(TOY) == ["slice/mod.py", "slice/new.py"]
    res = E.run(TOY, out=tmp_path / "out", workers=1, progress=False, echo=False)
    with pytest.warns(UserWarning, match="uncommitted code"):
        rec = R.record_run(TOY, res.rows, res.claims, tmp_path / "rec")
    assert rec["uncommitted"] == ["slice/mod.py", "slice/new.py"]
    git("add", "mod.py", "new.py")
    git("commit", "-q", "-m", "two")
    assert (
        R.record_run(TOY, res.rows, res.claims, tmp_path / "rec")["uncommitted"] == []
    )
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "m.py").write_text("y = 2\n")
    monkeypatch.setattr(R, "_code_files", lambda spec: {"slice/m.py": outside / "m.py"})
    assert R.uncommitted_files(TOY) is None
