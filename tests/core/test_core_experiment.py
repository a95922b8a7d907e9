"""The experiment layer: grids, runner, atomic outputs, claims, report, optima, CLI."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

import optsched
from optsched.cli import main
from optsched.core import experiment as E
from optsched.core import optima, plots


def toy_task(task: dict) -> list[dict]:
    """Module-level task: one row per algorithm with a deterministic value."""
    return [
        {
            "n": task["n"],
            "seed": task["seed"],
            "alg": alg,
            "value": task["n"] * (k + 1) + task["seed"],
            "alg_runtime_s": 0.1 * k,
        }
        for k, alg in enumerate(("a", "b"))
    ]


TOY = E.Experiment(
    name="toy_figure",
    paper="oasis",
    ref="Fig. 0",
    doc="A toy spec.",
    task=toy_task,
    grid={"n": [1, 2, 3], "seed": [0, 1]},
    quick={"n": [1, 2], "seed": [0]},
    plot=plots.Line(x="n", y="value", hue="alg"),
    sort=["alg", "n", "seed"],
    claims=[
        E.Claim(
            "b doubles a",
            2.0,
            lambda df: df[df.alg == "b"].value.sum() / df[df.alg == "a"].value.sum(),
            holds=E.near(2.0),
            tolerance="+-10%",
        ),
        E.Claim("text claim", "-", lambda df: f"{len(df)} rows"),
        E.Claim("broken claim", 1, lambda df: df["missing"].sum(), holds=bool),
        E.Claim(
            "b triples a",
            3.0,
            lambda df: df[df.alg == "b"].value.sum() / df[df.alg == "a"].value.sum(),
            holds=E.near(3.0),
            trend=lambda v: v > 1,
        ),
        E.Claim(
            "b is a quarter of a",
            0.25,
            lambda df: df[df.alg == "b"].value.sum() / df[df.alg == "a"].value.sum(),
            holds=E.near(0.25),
            trend=lambda v: v < 1,
        ),
        E.Claim("machine time", "3 ms", lambda df: 1.0, not_comparable="other CPU"),
        E.Claim("under reading R", 2.0, lambda df: 2.0, holds=E.near(2.0), reading="R"),
    ],
)


def test_expand_order_and_fixed_values():
    """Lists are swept (last key fastest), tuples and scalars fixed, a list of grids concatenates."""
    got = E.expand({"a": [1, 2], "b": (0, 1), "c": ["x", "y"]})
    assert got == [
        {"a": 1, "b": (0, 1), "c": "x"},
        {"a": 1, "b": (0, 1), "c": "y"},
        {"a": 2, "b": (0, 1), "c": "x"},
        {"a": 2, "b": (0, 1), "c": "y"},
    ]
    assert E.expand([{"a": [1]}, {"a": 2, "b": [3, 4]}]) == [
        {"a": 1},
        {"a": 2, "b": 3},
        {"a": 2, "b": 4},
    ]


def test_run_writes_three_files_and_evaluates_claims(tmp_path: Path):
    """A run writes CSV, PNG and claims; every status of the vocabulary is reached."""
    res = E.run(TOY, quick=True, out=tmp_path, workers=1, progress=False, echo=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "toy_figure.claims.csv",
        "toy_figure.csv",
        "toy_figure.png",
    ]
    df = pd.read_csv(tmp_path / "toy_figure.csv")
    assert list(df["alg"]) == ["a", "a", "b", "b"] and list(df["value"]) == [1, 2, 2, 4]
    claims = pd.read_csv(tmp_path / "toy_figure.claims.csv")
    assert list(claims.columns) == E.CLAIM_COLUMNS
    assert list(claims["status"]) == [
        "reproduced",
        "no claim",
        "error",
        "trend only",
        "not reproduced",
        "not comparable",
        "reading",
    ]
    assert list(claims["note"].fillna("")) == [
        "tolerance: +-10%",
        "",
        "",
        "",
        "",
        "other CPU",
        "reading: R",
    ]
    assert claims["ours"][0] == "2" and claims["ours"][1] == "4 rows"
    assert (
        set(claims["mode"]) == {"quick"}
        and claims["command"][0] == "optsched figure run toy_figure --quick"
    )
    assert isinstance(res.figure, Figure)
    # outputs get the mode a plain open() gives (mkstemp's 0o600 would hide them)
    old_mask = os.umask(0o022)
    try:
        E.run(TOY, quick=True, out=tmp_path, workers=1, progress=False, echo=False)
    finally:
        os.umask(old_mask)
    assert {p.stat().st_mode & 0o777 for p in tmp_path.iterdir()} == {0o644}


def test_same_seed_same_csv_serial_and_pool(tmp_path: Path):
    """The full grid gives byte-identical CSVs serially and on 2 processes (no wall-time column differs here)."""
    E.run(TOY, out=tmp_path / "a", workers=1, progress=False, echo=False)
    E.run(TOY, out=tmp_path / "b", workers=2, progress=False, echo=False)
    assert (tmp_path / "a/toy_figure.csv").read_bytes() == (
        tmp_path / "b/toy_figure.csv"
    ).read_bytes()


def test_failed_plot_leaves_no_file(tmp_path: Path):
    """When a step fails, nothing (not even a temp file) is written."""

    def bad_plot(df):
        raise RuntimeError("plot failed")

    spec = E.Experiment(**{**TOY.__dict__, "plot": bad_plot})
    with pytest.raises(RuntimeError):
        E.run(spec, quick=True, out=tmp_path, workers=1, progress=False, echo=False)
    assert list(tmp_path.iterdir()) == []

    def bad_writer(path):
        raise OSError("disk full")

    with pytest.raises(OSError):
        E.write_atomic(
            tmp_path, {"a.csv": lambda p: Path(p).write_text("x"), "b.csv": bad_writer}
        )
    assert list(tmp_path.iterdir()) == []


def test_stable_columns_drop_wall_times():
    """Wall-time columns and a spec's volatile list are excluded from determinism checks."""
    df = pd.DataFrame(
        columns=["a", "alg_runtime_s", "decision_time_s", "load_avg_1m", "seconds"]
    )
    assert E.stable_columns(df) == ["a", "load_avg_1m", "seconds"]
    assert E.stable_columns(df, ("load_avg_1m",)) == ["a", "seconds"]


@pytest.mark.parametrize(
    "kind",
    [
        plots.Line(x="n", y="value", hue="alg", facet="seed"),
        plots.Bars(x="n", y="value", hue="alg", paper="paper"),
        plots.Cdf(x="value", hue="alg", where="n > 1"),
        plots.Scatter(
            x="n", y="value", hue="alg", diagonal=True, logy=True, hlines={"ref": 2.0}
        ),
    ],
)
def test_plot_kinds_draw_every_hue(kind):
    """Each standard kind returns a Figure with one legend entry per hue value."""
    df = pd.DataFrame(
        toy_task({"n": 1, "seed": 0}) + toy_task({"n": 2, "seed": 1})
    ).assign(paper=1.5)
    fig = kind(df)
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert {"a", "b"} <= set(labels)


def test_optimum_is_solved_once_per_instance(monkeypatch):
    """optimum() memoises by instance content: a second call does not solve again."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed=3, n_jobs=3, n_slots=5, n_worker_servers=1, n_ps_servers=1)
    calls = []
    real = p.solve_offline

    def counting(inst, **kw):
        calls.append(1)
        return real(inst, **kw)

    import dataclasses

    fake = dataclasses.replace(p, solve_offline=counting)
    monkeypatch.setattr(optima, "get_paper", lambda key: fake)
    monkeypatch.setattr(optima, "_OPTIMA", {})
    a = E.optimum("oasis", inst, time_limit=30)
    b = E.optimum("oasis", type(inst).from_json(inst.to_json()), time_limit=30)
    assert a is b and len(calls) == 1 and a.status == "optimal"
    cols = E.optimum_columns(a, "max", a.objective)
    assert cols["ratio"] == pytest.approx(1.0) and cols["kind"] == "proven"
    with pytest.raises(optsched.SolverError):
        E.optimum_columns(
            a, "max", a.objective * 1.01 + 1, instance="toy", algorithm="x"
        )


def test_report_rewrites_only_the_generated_block(tmp_path: Path):
    """report() replaces the block between the markers and keeps the prose around it."""
    claims = tmp_path / "claims" / "oasis"
    claims.mkdir(parents=True)
    E.evaluate_claims(
        TOY, pd.DataFrame(toy_task({"n": 1, "seed": 0})), quick=False
    ).to_csv(claims / "toy_figure.claims.csv", index=False)
    readme = tmp_path / "README.md"
    readme.write_text(
        f"# Title\n\nprose before\n\n{E.REPORT_BEGIN}\nold | 1.23\n{E.REPORT_END}\n\nprose after\n"
    )
    E.report(tmp_path / "claims", readme)
    text = readme.read_text()
    assert "prose before" in text and "prose after" in text and "old | 1.23" not in text
    # no record beside the claims file (and no installed spec): stale
    assert (
        "| toy_figure (Fig. 0) | b doubles a | 2.0 | 2 | stale (recorded: reproduced) "
        "| tolerance: +-10% | full," in text
    )
    assert "Claims per status" in text and "| `oasis` |" in text
    assert text.count(E.REPORT_BEGIN) == 1


def test_every_spec_discovered_and_lookup_errors():
    """specs() finds the installed specs; get_spec accepts unique prefixes and rejects unknown names."""
    specs = E.specs()
    assert "fig5_performance_ratio" in specs
    assert E.get_spec("oasis/fig5_performance_ratio") is specs["fig5_performance_ratio"]
    with pytest.raises(KeyError, match="unknown"):
        E.get_spec("fig99")
    # two papers have a Fig. 9: the bare prefix is ambiguous, key/prefix is not
    with pytest.raises(KeyError, match="ambiguous"):
        E.get_spec("fig9")
    assert E.get_spec("edgecloud/fig9").paper == "edgecloud"
    assert E.get_spec("hetero/fig9").paper == "hetero"


def test_cli_figure_list_run_report(tmp_path: Path, capsys, monkeypatch):
    """`figure list` names specs, `figure run` writes outputs, a bad name exits 2, `report` rewrites a README."""
    assert main(["figure", "list"]) == 0
    assert "oasis/fig5_performance_ratio" in capsys.readouterr().out
    assert main(["figure", "run", "no_such_figure", "--quick"]) == 2
    assert "unknown" in capsys.readouterr().err
    assert main(["figure", "run", "fig5", "--quick", "--record"]) == 2
    out = tmp_path / "out"
    assert (
        main(
            [
                "figure",
                "run",
                "fig5",
                "--quick",
                "--workers",
                "1",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert (out / "fig5_performance_ratio.claims.csv").is_file()
    assert "OPT / OASiS around 1.1-1.5" in capsys.readouterr().out
    readme = tmp_path / "README.md"
    readme.write_text("intro\n")
    assert (
        main(["figure", "report", "--claims", str(out), "--readme", str(readme)]) == 0
    )
    assert "fig5_performance_ratio (Fig. 5, Sec. V-A)" in readme.read_text()


def test_claim_with_a_paper_value_needs_a_verdict():
    """A claim stating a paper value without holds or not_comparable is refused ("see notes" is gone)."""
    with pytest.raises(ValueError, match="no verdict"):
        E.Claim("x", 1.5, lambda df: 1.0)
    with pytest.raises(ValueError, match="trend test needs"):
        E.Claim("x", "-", lambda df: 1.0, trend=bool)
    with pytest.raises(ValueError, match="both a reading and not_comparable"):
        E.Claim("x", 1, lambda df: 1.0, holds=bool, reading="R", not_comparable="y")
    assert set(E.STATUSES) >= {"reproduced", "trend only", "not reproduced", "reading",
                               "not comparable", "not run", "stale"}  # fmt: skip
    assert E.near(100.0)(109.9) and not E.near(100.0)(110.1) and not E.near(1.0)("x")
