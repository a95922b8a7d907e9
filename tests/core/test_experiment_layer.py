"""Issue 24 item 4: the experiment layer split by concern, specs from factories, shared rows."""

from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd

import optsched
from optsched.core import (
    adversary,
    discovery,
    experiment,
    optima,
    plots,
    report,
    runner,
    search_plots,
    spec,
    worst_case_spec,
)
from optsched.core import base as core_base
from optsched.edgecloud import experiments as ec
from optsched.okita import experiments as ok

CALLS: list[tuple[int, int]] = []


def counted_task(task: dict) -> list[dict]:
    """Module-level toy task that records each call (``workers=1`` runs it here)."""
    CALLS.append((task["n"], task["seed"]))
    return [
        {"n": task["n"], "seed": task["seed"], "value": 10 * task["n"] + task["seed"]}
    ]


def _toy(name: str, grid: dict) -> spec.Experiment:
    return spec.Experiment(
        name=name, paper="oasis", ref="Fig. 0", task=counted_task, grid=grid,
        quick=grid, plot=plots.Line(x="n", y="value"), columns=["n", "seed", "value"],
        sort=["n", "seed"],
    )  # fmt: skip


def test_facade_reexports_each_concern_module():
    """Every public name of ``experiment`` is the object of the module owning its concern."""
    owners = {
        spec: ("Claim", "Span", "Cells", "Experiment", "ExperimentResult", "expand",
               "stable_columns", "VOLATILE", "CLAIM_COLUMNS"),
        runner: ("run", "table", "command", "evaluate_claims", "TaskCache"),
        optima: ("optimum", "optimum_columns"),
        discovery: ("specs", "get_spec", "SPECS_PACKAGE"),
        report: ("record_claims", "report", "replace_block", "REPORT_BEGIN",
                 "REPORT_END"),
        core_base: ("write_atomic", "default_file_mode"),
    }  # fmt: skip
    for module, names in owners.items():
        for name in names:
            assert getattr(experiment, name) is getattr(module, name), name
    assert set(experiment.__all__) >= {n for ns in owners.values() for n in ns}


def test_until_done_is_the_horizon_alias():
    """``until_done`` keeps an instance whose T suffices and extends T to the makespan otherwise."""
    p = optsched.get_paper("edgecloud")
    inst = p.generate(seed=0, n_jobs=3, n_servers=2)
    assert experiment.until_done(inst, inst.n_slots) is inst
    assert experiment.until_done(inst, inst.n_slots + 7).n_slots == inst.n_slots + 7


def test_task_cache_runs_a_shared_task_once(tmp_path: Path):
    """Two specs sharing tasks (in another key order) compute them once and write the CSVs of separate runs."""
    a = _toy("toy_a", {"n": [1, 2], "seed": [0, 1]})
    b = _toy("toy_b", {"seed": [1], "n": [2, 3]})  # (2, 1) is also a's task
    kw = {"quick": False, "workers": 1, "progress": False, "echo": False}
    CALLS.clear()
    experiment.run(a, out=tmp_path / "alone", **kw)
    experiment.run(b, out=tmp_path / "alone", **kw)
    assert len(CALLS) == 4 + 2
    CALLS.clear()
    cache = experiment.TaskCache()
    experiment.run(a, out=tmp_path / "shared", shared=cache, **kw)
    experiment.run(b, out=tmp_path / "shared", shared=cache, **kw)
    assert sorted(CALLS) == [(1, 0), (1, 1), (2, 0), (2, 1), (3, 1)]
    assert (cache.computed, cache.reused, len(cache)) == (5, 1, 5)
    for name in ("toy_a.csv", "toy_b.csv"):
        assert (tmp_path / "alone" / name).read_bytes() == (
            tmp_path / "shared" / name
        ).read_bytes()
    assert pd.read_csv(tmp_path / "shared" / "toy_b.csv")["value"].tolist() == [21, 31]


def test_edgecloud_fig9_reuses_fig7_rows(tmp_path: Path):
    """Figs. 7 and 9 run the same tasks: with one cache Fig. 9 runs none and its CSV is unchanged."""
    specs = experiment.specs()
    kw = {"quick": True, "workers": 1, "progress": False, "echo": False}
    cache = experiment.TaskCache()
    experiment.run(specs["fig7_jct_rate_jobs"], out=tmp_path / "s", shared=cache, **kw)
    fig9 = specs["fig9_preemptions_jobs"]
    shared = experiment.run(fig9, out=tmp_path / "s", shared=cache, **kw)
    assert cache.reused == len(fig9.tasks(quick=True)) == 2
    alone = experiment.run(fig9, out=tmp_path / "a", **kw)
    cols = experiment.stable_columns(alone.rows, fig9.volatile)
    pd.testing.assert_frame_equal(shared.rows[cols], alone.rows[cols])


def test_adversary_keeps_the_search_only():
    """Spec building left ``adversary``: no spec types there; its plots are re-exported."""
    source = inspect.getsource(adversary)
    assert not hasattr(adversary, "search_spec")
    for needle in ("from .experiment", "from .spec", "Experiment(", "Claim("):
        assert needle not in source, needle
    assert adversary.plot_traces is search_plots.plot_traces
    assert adversary.worst_found is search_plots.worst_found
    built = worst_case_spec.search_spec("hetero", ("has", "jps"), doc="d")
    installed = experiment.get_spec("worst_case_hetero")
    assert (built.grid, built.quick, built.columns) == (
        installed.grid,
        installed.quick,
        installed.columns,
    )
    assert built.task is adversary.trace_rows
    assert [c.text for c in built.claims] == [
        "worst certified ratio found for has (per method)",
        "worst certified ratio found for jps (per method)",
    ]


def _fields(s: spec.Experiment) -> tuple:
    return (s.name, s.paper, s.ref, s.task, s.tasks(), s.tasks(True), s.columns,
            s.sort, [(c.text, c.paper, c.fmt) for c in s.claims])  # fmt: skip


def test_sibling_specs_come_from_one_factory():
    """Each sibling spec is its factory's output; sizes are the ones the spec docstrings state."""
    specs = experiment.specs()
    for n, x, metric in ((7, "n_jobs", "jct_rate"), (8, "n_servers", "jct_rate"),
                         (9, "n_jobs", "preemptions"),
                         (10, "n_servers", "preemptions")):  # fmt: skip
        s = next(v for k, v in specs.items() if k.startswith(f"fig{n}_") and
                 v.paper == "edgecloud")  # fmt: skip
        assert _fields(ec.jct_figure(n, x, metric, s.claims, doc="")) == _fields(s)
    # Figs. 7/9 (and 8/10) list the same tasks: 6 job counts x 5 seeds, 5 server counts x 5
    assert specs["fig7_jct_rate_jobs"].tasks() == specs["fig9_preemptions_jobs"].tasks()
    assert len(specs["fig7_jct_rate_jobs"].tasks()) == 30
    assert len(specs["fig10_preemptions_servers"].tasks()) == 25
    r12, r13 = specs["fig12_ratio_jobs"], specs["fig13_ratio_servers"]
    assert _fields(ec.ratio_figure(12, {"n_jobs": [25, 20, 15, 10, 5], "n_servers": 5},
                                   {"n_jobs": [6, 3], "n_servers": 2}, doc="")) == (
        _fields(r12)
    )  # fmt: skip
    assert {t["n_servers"] for t in r13.tasks()} == {5, 15, 25, 35, 45}
    assert len(r12.tasks()) == len(r13.tasks()) == 15  # 5 sizes x 3 seeds
    c9, c10 = specs["fig9_cost_sites"], specs["fig10_cost_jobs"]
    from optsched.figures.okita.sigmoid_reading import with_sigmoid_part as sig

    assert _fields(
        sig(ok.cost_figure(9, "n_sites", [10, 20, 30, 40, 50], [3, 5], ""))
    ) == _fields(c9)
    assert _fields(
        sig(ok.cost_figure(10, "n_jobs", [20, 40, 60, 80, 100], [3, 6], ""))
    ) == _fields(c10)
    # the one grid point of both (R = 50, I = 100) is the same task, 3 seeds x 2 costs
    common = [t for t in c9.tasks() if t in c10.tasks()]
    assert [(t["cost"], t["n_sites"], t["n_jobs"], t["seed"]) for t in common] == [
        (c, 50, 100, s) for c in ("exp", "sigmoid") for s in range(3)
    ]
    a11, b12 = specs["fig11_alpha"], specs["fig12_beta"]
    # settings x 3 seeds x the printed cost and the sigmoid reading
    assert len(a11.tasks()) == 5 * 3 * 2 and len(b12.tasks()) == 7 * 3 * 2
    assert {t["schemes"] for t in a11.tasks() + b12.tasks()} == {("okita",)}
    assert a11.claims[0].text.startswith("total cost roughly equal over alpha1:alpha2")


def test_optimum_memo_keys_a_start_by_its_content():
    """``optimum(..., start=...)`` works with an unhashable schedule and shares one solve per start content."""
    import optsched
    from optsched.core import optima

    p = optsched.get_paper("asrpt")
    inst = p.generate(seed=0, **p.demo_size)
    start = p.run("spjf", inst)
    optima._OPTIMA.clear()
    a = optima.optimum("asrpt", inst, time_limit=20.0, start=start)
    again = p.schedule_type.from_json(start.to_json())  # equal content, new object
    b = optima.optimum("asrpt", inst, time_limit=20.0, start=again)
    assert a is b and len(optima._OPTIMA) == 1
    assert a.status == "optimal" and a.objective <= p.check(inst, start).objective
