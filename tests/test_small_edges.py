"""Small edges of issue 23: demo hint, notebook outputs, volatile columns,
claims recording, and user-facing texts free of issue numbers."""

from __future__ import annotations

import json
import os
import re
import time
import types
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import optsched
from optsched.core import experiment
from optsched.core.ratio import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ISSUE = re.compile(r"\bissues? ?#?\d+", re.I)


# ------------------------------------------------------------------ make demo
def _recipe(makefile: str, target: str) -> str:
    """The recipe lines (tab-indented) of ``target`` in a Makefile text."""
    m = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)*)", makefile, re.M)
    assert m, f"no target {target!r}"
    return m.group(1)


def test_make_demo_ends_with_the_path_hint() -> None:
    """``make demo`` tells how to get ``optsched`` on the PATH (activate .venv)."""
    recipe = _recipe((ROOT / "Makefile").read_text(), "demo")
    recipe = recipe.replace("$(BIN)", ".venv/bin").replace("$(VENV)", ".venv")
    assert ".venv/bin/optsched demo" in recipe
    last = recipe[recipe.index("optsched demo") + len("optsched demo") :]
    assert "source .venv/bin/activate" in last and ".venv/bin/optsched" in last
    assert "PATH" in last


def test_readme_quick_start_says_how_to_get_optsched_on_the_path() -> None:
    """The Quick start names ``source .venv/bin/activate`` and the root for benchmarks."""
    text = (ROOT / "README.md").read_text()
    quick = text[text.index("## Quick start") : text.index("## Papers")]
    assert "source .venv/bin/activate" in quick
    assert ".venv/bin/optsched" in quick
    assert "python -m benchmarks." in quick and "repository root" in quick


# ------------------------------------------------------------------ notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_outputs_carry_no_local_paths_or_warnings(path: Path) -> None:
    """Committed outputs name no local path, venv or package folder, and hold no
    warning on stderr and no traceback."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                text = out.get("text", "")
                if out.get("name") == "stderr":
                    assert "Warning" not in text, f"code cell {i}: {text[:200]}"
            else:
                text = "".join(
                    v if isinstance(v, str) else "".join(v)
                    for k, v in out.get("data", {}).items()
                    if k.startswith("text/")
                ) + "".join(out.get("traceback", []))
            for bad in ("/work/", ".venv", "site-packages", "Traceback"):
                assert bad not in text, f"code cell {i}: {bad!r} in {text[:200]}"


def test_strip_volatile_joins_consecutive_pieces_of_one_stream() -> None:
    """Stream output split at arbitrary flushes is stored as one output per run."""
    from tools.run_notebooks import strip_volatile

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(1); print(2)")
    out = nbformat.v4.new_output
    cell.outputs = [
        out("stream", name="stdout", text="a\n"),
        out("stream", name="stdout", text="b\n"),
        out("stream", name="stderr", text="c\n"),
        out("stream", name="stdout", text="d\n"),
        out("stream", name="stdout", text="e\n"),
    ]
    nb.cells = [cell]
    got = [(o["name"], o["text"]) for o in strip_volatile(nb).cells[0].outputs]
    assert got == [("stdout", "a\nb\n"), ("stderr", "c\n"), ("stdout", "d\ne\n")]


def test_sweep_does_not_import_tqdm_auto() -> None:
    """The progress bar is tqdm's console bar: ``tqdm.auto`` warns on import in
    a Jupyter kernel without ipywidgets (the notebooks' TqdmWarning)."""
    src = (ROOT / "optsched" / "core" / "sweep.py").read_text()
    assert "tqdm.auto" not in src.replace("``tqdm.auto``", "")
    assert "tqdm.autonotebook" not in src


# ------------------------------------------------------- volatile ratio columns
def test_volatile_matches_exactly_the_ratio_tables_timing_columns() -> None:
    """Of the ratio table's columns, VOLATILE matches the two wall-clock ones only."""
    hits = {c for c in COLUMNS if experiment.VOLATILE.search(c)}
    assert hits == {"alg_runtime_s", "opt_runtime_s"}


def test_same_seed_same_bytes_without_the_volatile_columns() -> None:
    """Two ratio tables of the same seed are byte-identical CSVs once the
    VOLATILE columns are dropped."""

    def csv() -> str:
        df = optsched.ratios(
            "oasis", n_instances=2, n_jobs=3, n_slots=5, time_limit=10, progress=False
        )
        return df[experiment.stable_columns(df)].to_csv(index=False)

    a, b = csv(), csv()
    assert a == b
    assert "alg_runtime_s" not in a and "opt_runtime_s" not in a


def test_docs_and_docstring_name_the_columns_that_vary() -> None:
    """The ratios page and ``ratios``' docstring say which columns vary between runs."""
    readme = (ROOT / "docs" / "ratios.md").read_text()
    doc = optsched.ratios.__doc__ or ""
    for text in (readme, doc):
        flat = " ".join(text.split())
        assert "alg_runtime_s" in flat and "opt_runtime_s" in flat
        assert "only" in flat and "vary between runs" in flat


# ------------------------------------------------------------ claims recording
def _claims(ours: str, date: str) -> pd.DataFrame:
    """A two-claim table in the recorded layout, with the given value and date."""
    rows = [
        {
            "figure": "figx",
            "paper_key": "oasis",
            "ref": "Fig. 5, Sec. V-A",
            "claim": text,
            "paper": "1.1-1.5",
            "ours": value,
            "status": "trend only",
            "note": "tolerance: +-10% of the paper's value",
            "mode": "full",
            "command": "optsched figure run figx",
            "date": date,
        }
        for text, value in (("median ratio", ours), ("count, proven", "3/4"))
    ]
    return pd.DataFrame(rows, columns=experiment.CLAIM_COLUMNS)


def test_record_claims_leaves_a_file_whose_only_change_is_the_date(
    tmp_path: Path,
) -> None:
    """Recording the same claims on another date keeps bytes and mtime; a changed
    value rewrites the file."""
    f = tmp_path / "figx.claims.csv"
    assert experiment.record_claims(_claims("1.25", "2026-01-01"), tmp_path, "figx")
    before = f.read_bytes()
    old = time.time() - 1000
    os.utime(f, (old, old))
    mtime = f.stat().st_mtime_ns
    assert not experiment.record_claims(_claims("1.25", "2026-02-02"), tmp_path, "figx")
    assert f.read_bytes() == before and f.stat().st_mtime_ns == mtime
    assert experiment.record_claims(_claims("1.30", "2026-02-02"), tmp_path, "figx")
    after = pd.read_csv(f, dtype=str)
    assert after["ours"].tolist() == ["1.30", "3/4"]
    assert after["date"].tolist() == ["2026-02-02"] * 2
    # an unreadable file is rewritten, not trusted
    f.write_text("")
    assert experiment.record_claims(_claims("1.30", "2026-02-02"), tmp_path, "figx")
    assert pd.read_csv(f, dtype=str)["ours"].tolist() == ["1.30", "3/4"]


def test_worst_case_bench_record_keeps_unchanged_claims(tmp_path: Path, monkeypatch):
    """``worst_case_bench --figures --record`` twice with the same claims on two
    dates writes the claims file once."""
    import optsched.cli
    from benchmarks import worst_case_bench as bench

    claims_dir = tmp_path / "claims"
    monkeypatch.setattr(optsched.cli, "FIGURES_CLAIMS", claims_dir)
    import dataclasses

    # the real spec with an empty grid: no saved search is needed
    spec = dataclasses.replace(experiment.get_spec("worst_case_edgecloud"), grid=[])
    monkeypatch.setattr(experiment, "get_spec", lambda name: spec)
    dates = iter(["2026-01-01", "2026-03-03"])
    rows = pd.DataFrame({"eval": [0, 1], "best": [1.0, 1.5]})
    monkeypatch.setattr(
        experiment,
        "run",
        lambda *a, **k: types.SimpleNamespace(
            claims=_claims("1.5", next(dates)), rows=rows
        ),
    )
    (tmp_path / "worst" / "runs").mkdir(parents=True)
    bench.figures(tmp_path / "worst", ("edgecloud",), tmp_path / "out", True)
    f = claims_dir / "edgecloud" / "worst_case_edgecloud.claims.csv"
    before = f.read_bytes()
    old = time.time() - 1000
    os.utime(f, (old, old))
    mtime = f.stat().st_mtime_ns
    bench.figures(tmp_path / "worst", ("edgecloud",), tmp_path / "out", True)
    assert f.read_bytes() == before and f.stat().st_mtime_ns == mtime
    assert "2026-01-01" in before.decode()
    # the rows and their provenance are kept beside the claims
    kept = claims_dir / "edgecloud" / "worst_case_edgecloud.rows.csv.gz"
    assert pd.read_csv(kept).equals(rows)
    assert (claims_dir / "edgecloud" / "worst_case_edgecloud.record.json").is_file()


def test_worst_case_bench_records_only_searches_of_the_current_checkout(
    tmp_path: Path, monkeypatch
):
    """``foreign_searches`` names every saved search not run on the current clean
    checkout, and ``figures(..., record=True)`` then draws without recording."""
    import dataclasses

    import optsched.cli
    from benchmarks import worst_case_bench as bench

    assert bench.foreign_searches([], "abc1234") == []
    rows = [{"commit": "abc1234"}, {"commit": "abc1234"}]
    assert bench.foreign_searches(rows, "abc1234") == []
    assert bench.foreign_searches(rows, "def5678") == ["abc1234"]
    assert bench.foreign_searches(rows, "abc1234+dirty") == ["abc1234"]
    assert bench.foreign_searches([*rows, {"commit": ""}, {}], "abc1234") == [""]
    # one saved search for the one task of a reduced grid, from another commit
    spec = experiment.get_spec("worst_case_edgecloud")
    spec = dataclasses.replace(spec, grid={**spec.quick, "n_evals": 3, "starts": 1})
    (task,) = spec.tasks()
    runs = tmp_path / "worst" / "runs"
    runs.mkdir(parents=True)
    stem = f"{task['paper']}_{task['algorithm']}_{task['method']}"
    saved = {k: task[k] for k in ("paper", "algorithm", "method", "n_evals", "seed",
                                  "time_limit", "batch")}  # fmt: skip
    saved.update(size=json.dumps(dict(task["size"]), sort_keys=True), starts=1,
                 commit="0000000")  # fmt: skip
    (runs / f"{stem}.row.json").write_text(json.dumps(saved))
    from optsched.core.adversary import TRACE_COLUMNS

    trace = pd.DataFrame([{c: "" for c in TRACE_COLUMNS}])
    trace.to_csv(runs / f"{stem}.trace.csv.gz", index=False)
    monkeypatch.setattr(experiment, "get_spec", lambda name: spec)
    monkeypatch.setattr(
        experiment, "run",
        lambda *a, **k: types.SimpleNamespace(claims=_claims("1.5", "2026-01-01"),
                                              rows=pd.DataFrame({"eval": [0]})),
    )  # fmt: skip
    monkeypatch.setattr(optsched.cli, "FIGURES_CLAIMS", tmp_path / "claims")
    done = bench.figures(tmp_path / "worst", ("edgecloud",), tmp_path / "out", True)
    assert len(done) == 1  # drawn
    assert not (tmp_path / "claims").exists()  # not recorded
    monkeypatch.setattr(bench, "current_commit", lambda: "0000000")  # ran here
    bench.figures(tmp_path / "worst", ("edgecloud",), tmp_path / "out", True)
    assert (tmp_path / "claims" / "edgecloud" / f"{spec.name}.record.json").is_file()


# ------------------------------------------------------- no issue numbers
def test_no_spec_text_names_an_issue_number() -> None:
    """No figure spec's ref, notes or claim text speaks of an issue number."""
    found = []
    for name, spec in experiment.specs().items():
        texts = [spec.ref, spec.doc or "", *(c.text for c in spec.claims)]
        found += [f"{name}: {m.group()}" for t in texts for m in ISSUE.finditer(t)]
    assert found == []


def test_recorded_claims_and_findings_table_name_no_issue_number() -> None:
    """The recorded claims and the findings table generated from them name no
    issue number, and every recorded ref is its spec's ref."""
    specs = experiment.specs()
    for f in sorted((ROOT / "paper_figures" / "claims").rglob("*.claims.csv")):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        assert not ISSUE.search(f.read_text()), f
        assert set(df["ref"]) == {specs[df["figure"].iloc[0]].ref}, f
    assert not ISSUE.search((ROOT / "paper_figures" / "README.md").read_text())
