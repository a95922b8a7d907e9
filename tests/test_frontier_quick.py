"""``benchmarks/frontier.py``: the quick path on oasis and okita (timings not asserted)."""

import json
import math

import pandas as pd
import pytest

import optsched
from benchmarks import frontier as bench


def test_ladders_use_the_generators_keywords():
    """Every ladder size generates (the keywords exist), smallest first by count."""
    for key, ladder in bench.LADDERS.items():
        assert ladder, key
        for size in ladder:
            assert bench.size_label(key, size)
            optsched.get_paper(key).generate(0, **size)
        counts = [
            math.prod(v for v in s.values() if isinstance(v, int)) for s in ladder
        ]
        assert counts == sorted(counts), key
        assert all(callable(f) for f in bench.formulations(key).values())


def test_frontier_quick(tmp_path, capsys):
    csv, png = tmp_path / "f.csv", tmp_path / "f.png"
    argv = ["--quick", "--papers", "oasis", "okita", "--steps", "1", "--seeds", "0"]
    argv += ["--out", str(csv), "--plot", str(png)]
    df = bench.main(argv)
    assert csv.exists() and png.stat().st_size > 0
    assert "QUICK" in capsys.readouterr().out
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    n_okita = len(bench.formulations("okita"))  # one row per formulation
    assert list(df["paper"]) == ["oasis"] + ["okita"] * n_okita
    assert set(df["seed"]) == {0}
    assert (df["time_limit_s"] == bench.QUICK["time_limit"]).all()
    for _, r in df.iterrows():
        sense = optsched.get_paper(r["paper"]).sense
        assert r["proven"] == (r["status"] == "optimal")
        if r["proven"]:
            assert r["gap"] <= 1e-9
        else:
            assert math.isfinite(r["objective"]) and math.isfinite(r["bound"])
        # the incumbent never beats the bound (min: objective >= bound)
        slack = 1e-9 * max(1.0, abs(r["objective"]))
        if sense == "min":
            assert r["objective"] >= r["bound"] - slack
        else:
            assert r["objective"] <= r["bound"] + slack
        # the solve never ends worse than its (checked) start
        if math.isfinite(r["start_objective"]):
            slack = 1e-9 * max(1.0, abs(r["start_objective"]))
            if sense == "min":
                assert r["objective"] <= r["start_objective"] + slack
            else:
                assert r["objective"] >= r["start_objective"] - slack
        assert json.loads(r["size_json"]) == bench.LADDERS[r["paper"]][0]
    back = pd.read_csv(csv)
    assert list(back.columns) == bench.COLUMNS
    pd.testing.assert_frame_equal(back, df, check_dtype=False)
    summary = bench.summary(back)
    assert list(summary["proven"]) == [f"{int(p)}/1" for p in df["proven"]]
    again = bench.main([*argv, "--resume"])
    assert len(again) == len(df) and len(pd.read_csv(csv)) == len(df)


def test_formulations_are_read_from_the_model_module(monkeypatch):
    import optsched.models.oasis as none
    import optsched.models.okita as mod

    # a model without FORMULATIONS has one, "current"; okita registers v1 and v2
    assert not hasattr(none, "FORMULATIONS")
    assert list(bench.formulations("oasis")) == ["current"]
    assert list(bench.formulations("okita")) == list(mod.FORMULATIONS)
    fake = {"old": mod.solve_offline, "new": mod.solve_offline}
    monkeypatch.setattr(mod, "FORMULATIONS", fake, raising=False)
    assert bench.formulations("okita") == fake


def test_two_formulations_must_agree_on_a_proven_optimum():
    row = {"paper": "okita", "size": "s", "size_json": "{}", "seed": 0}
    old = {**row, "formulation": "old", "proven": True, "objective": 10.0}
    bench._agree([old], {**old, "formulation": "new", "objective": 10.0 + 1e-9})
    bench._agree(
        [old], {**old, "formulation": "new", "objective": 9.0, "proven": False}
    )
    with pytest.raises(RuntimeError, match="proven optima differ"):
        bench._agree([old], {**old, "formulation": "new", "objective": 9.0})


@pytest.mark.parametrize("key", ["edgecloud", "asrpt"])
def test_a_guarded_solve_gives_the_unguarded_row(key):
    """``--hard-limit``: a solve that ends in time gives the same status and
    objective in a child process as here (its formulation pickles), and one
    killed at its hard limit gives a ``killed`` row with the checked start
    as objective and no bound."""
    name, solve = next(iter(bench.formulations(key).items()))
    here = bench.solve_row(key, 0, 0, name, solve, 30.0, 1)
    child = bench.solve_row(key, 0, 0, name, solve, 30.0, 1, hard_limit=300.0)
    assert here["proven"] and child["proven"]
    assert child["objective"] == pytest.approx(here["objective"], rel=1e-9)
    killed = bench.solve_row(key, 0, 0, name, solve, 30.0, 1, hard_limit=0.01)
    assert killed["status"] == "killed" and not killed["proven"]
    assert killed["objective"] == here["start_objective"]
    assert math.isnan(killed["bound"]) and math.isnan(killed["gap"])
