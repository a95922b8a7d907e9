"""The edgecloud registry record: the ratio harness and the CLI work end to end."""

from __future__ import annotations

import json

import numpy as np

import optsched
from optsched.cli import main


def test_registered_with_its_algorithms_and_sense() -> None:
    p = optsched.get_paper("edgecloud")
    assert "edgecloud" in optsched.PAPERS
    assert p.sense == "min"
    assert list(p.algorithms)[:2] == ["a_online", "a_online_e"]


def test_ratios_on_demo_instances_are_certified_and_at_least_one() -> None:
    """Every row is a proven optimum of the exact MILP and a checked algorithm schedule."""
    p = optsched.get_paper("edgecloud")
    df = optsched.ratios(
        "edgecloud", n_instances=4, seed=0, workers=1, progress=False, **p.demo_size
    )
    assert len(df) == 4 * len(p.algorithms)
    assert (df["opt_status"] == "optimal").all()
    assert (df["ratio"] >= 1.0 - 1e-9).all() and np.isfinite(df["ratio"]).all()
    # ALG is the checker's total JCT of the algorithm's own schedule
    for row in df[df["algorithm"] == "a_online"].itertuples():
        inst = p.generate(seed=int(row.seed), **p.demo_size)
        assert p.check(inst, p.run("a_online", inst)).objective == row.alg_objective


def test_cli_generate_run_round_trip(tmp_path, capsys) -> None:
    path = tmp_path / "inst.json"
    assert main(["generate", "edgecloud", "--seed", "3", "-o", str(path)]) == 0
    inst = optsched.get_paper("edgecloud").instance_type.from_json(path.read_text())
    assert inst.n_jobs == optsched.get_paper("edgecloud").size_options["n_jobs"][1]
    assert main(["run", "edgecloud", "a_online", str(path)]) == 0
    assert json.loads(path.read_text())  # still valid JSON, untouched
    assert capsys.readouterr().out.strip()
