"""Worst-case search (``optsched.core.adversary``) and slice mutations (``optsched.core.mutate``).

Known answers: the certified ratio of a tiny hetero instance is recomputed
from a brute-force optimum over every assignment (independent of the
MILP); the rules of the certified objective are checked on hand-made rows.
"""

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import optsched
from optsched.cli import main
from optsched.core import adversary
from optsched.core.errors import InvalidInstanceError
from optsched.core.mutate import Knob, knob_mutator, matches, mutate_dict
from optsched.hetero.jct import avg_jct

HETERO = {"n_jobs": 3, "n_workers": 5}
OASIS = {"n_jobs": 4, "n_slots": 6, "n_worker_servers": 2, "n_ps_servers": 2}


def _leaves(d, prefix=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, (*prefix, k))
    elif isinstance(d, list):
        for j, v in enumerate(d):
            yield from _leaves(v, (*prefix, j))
    else:
        yield prefix, d


# ------------------------------------------------------------------ mutate
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(optsched.PAPERS), seed=st.integers(0, 10_000))
def test_mutations_are_valid_single_changes(key, seed):
    """Each mutation is a valid instance (JSON round trip) that changes a field.

    One field exactly where the slice keeps the list order (hetero); the
    others re-sort jobs by arrival, which can move several fields.
    """
    p = optsched.get_paper(key)
    size = dict(p.demo_size)
    try:
        inst = p.generate(seed=seed, **size)
    except InvalidInstanceError:  # okita's generator found no instance (1 of 10,001)
        assume(False)
    rng = np.random.default_rng(seed)
    for _ in range(8):
        new = p.mutate(inst, rng, **size)
        assert type(new).from_json(new.to_json()).to_json() == new.to_json()
        old_d, new_d = inst.to_dict(), new.to_dict()
        old_d.pop("meta", None), new_d.pop("meta", None)
        changed = [k for k, v in _leaves(new_d) if dict(_leaves(old_d)).get(k) != v]
        assert changed, new.meta.get("mutation")
        if key == "hetero":
            assert len(changed) == 1, changed
        inst = new


def test_knob_paths_bounds_and_redraw():
    data = {"a": [{"x": 1.0}, {"x": 2.0}], "b": 5}
    assert matches(data, "a.*.x") == [("a", 0, "x"), ("a", 1, "x")]
    assert matches(data, "b") == [("b",)] and matches(data, "c") == []
    rng = np.random.default_rng(0)
    for _ in range(50):
        out, what = mutate_dict(data, [Knob("b", 3, 6, integer=True)], rng)
        assert 3 <= out["b"] <= 6 and isinstance(out["b"], int) and data["b"] == 5

    class Box:
        def __init__(self, d):
            if d["b"] > 5:
                raise optsched.InvalidInstanceError("b too big")
            self.d, self.meta = d, {}

        def to_dict(self):
            return dict(self.d)

    mut = knob_mutator(Box, [Knob("b", 0, 100, integer=True, step=5.0, absolute=True)])
    for _ in range(20):
        assert mut(Box({"b": 5}), rng).d["b"] <= 5  # rejected draws are redrawn


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_knob_bounds_contain_every_generated_value(key):
    """A mutation never clips a value the slice's own generator draws.

    ``step_value`` clips the moved field to its knob's bounds, so a bound
    inside the generator's range would pull every such field towards it
    (asrpt's activation sizes reach 201 MB, oasis's ``gamma3`` 15 > T):
    the search would then move away from the instances it starts from.
    Checked on 10 generated instances at the demo size, plus every
    latency-cost kind for okita.
    """
    import importlib

    from optsched.core.mutate import _bound, get

    p = optsched.get_paper(key)
    knobs = importlib.import_module(f"optsched.{key}.mutate").KNOBS
    extra = (
        [{"cost": c} for c in ("exp", "linear", "piecewise")]
        if key == "okita"
        else [{}]
    )
    for seed in range(10):
        for kw in extra:
            data = p.generate(seed=seed, **p.demo_size, **kw).to_dict()
            for knob in knobs:
                lo, hi = _bound(knob.lo, data), _bound(knob.hi, data)
                for keys in matches(data, knob.path):
                    v = get(data, keys)
                    assert lo <= v <= hi, (knob.path, keys, v, (lo, hi))


def test_okita_mutations_reach_every_latency_cost_parameter():
    """``tau`` (exp, linear), ``b`` (linear), ``tau1`` / ``tau2`` (piecewise)
    are all mutable; the exponent's ``rate`` is the paper's constant 0.25."""
    p = optsched.get_paper("okita")
    seen = set()
    for kind in ("exp", "linear", "piecewise"):
        inst = p.generate(seed=1, **p.demo_size, cost=kind)
        rng = np.random.default_rng(0)
        for _ in range(300):
            what = p.mutate(inst, rng).meta["mutation"]
            if ".cost." in what:
                seen.add((kind, what.split(".cost.")[1].split(":")[0]))
    assert seen == {
        ("exp", "tau"),
        ("linear", "tau"),
        ("linear", "b"),
        ("piecewise", "tau1"),
        ("piecewise", "tau2"),
    }, seen


# ---------------------------------------------------------- certified rule
def test_certified_ratio_rules_and_acceptance():
    assert (
        adversary.certified_ratio({"kind": "proven", "ratio": 1.5, "ratio_lo": 1.5})
        == 1.5
    )
    assert (
        adversary.certified_ratio(
            {"kind": "interval", "ratio": math.nan, "ratio_lo": 1.2}
        )
        == 1.2
    )
    assert (
        adversary.certified_ratio(
            {"kind": "alg_zero", "ratio": math.inf, "ratio_lo": math.inf}
        )
        == math.inf
    )
    assert math.isnan(
        adversary.certified_ratio(
            {"kind": "no_opt", "ratio": math.nan, "ratio_lo": math.nan}
        )
    )
    assert adversary._accept(1.2, 1.3, 0.1, 0.99)  # better: always
    assert not adversary._accept(1.2, math.nan, 0.1, 0.0)  # no certificate: never
    assert not adversary._accept(math.inf, 5.0, 0.1, 0.0)
    # worse: Metropolis on log ratios
    p = math.exp((math.log(1.1) - math.log(1.2)) / 0.1)
    assert adversary._accept(1.2, 1.1, 0.1, p - 1e-9) and not adversary._accept(
        1.2, 1.1, 0.1, p + 1e-9
    )


def test_tiny_hetero_ratio_against_brute_force():
    """The search's certified ratio of an instance = HAS / brute-force optimum over all assignments."""
    p = optsched.get_paper("hetero")
    inst = p.generate(seed=3, **HETERO)
    row = adversary.evaluate(p, "has", inst, time_limit=30.0)
    best = min(
        avg_jct(inst, np.array(a))
        for a in itertools.product(range(3), repeat=5)
        if len(set(a)) == 3
    )
    has = p.check(inst, p.run("has", inst)).objective
    assert row["kind"] == "proven"
    assert row["certified"] == pytest.approx(has / best, rel=1e-6)


# ------------------------------------------------------------------ search
@pytest.fixture(scope="module")
def small_search():
    return adversary.worst_case(
        "hetero", "optimus_lb", n_evals=13, seed=1, time_limit=30.0, workers=1,
        progress=False, **HETERO,
    )  # fmt: skip


def test_trace_is_consistent(small_search):
    res = small_search
    tr = res.trace
    assert list(tr.columns) == adversary.TRACE_COLUMNS and len(tr) == 13
    assert list(tr["eval"]) == list(range(13))
    assert (tr["best"].diff().dropna() >= 0).all()  # running maximum
    assert tr["best"].iloc[-1] == res.ratio == tr["certified"].max()
    assert res.ratio >= 1.0 and res.kind == "proven"
    # the current state only changes on accepted rows
    for prev, row in zip(tr.itertuples(), tr.iloc[1:].itertuples(), strict=False):
        if not row.accepted:
            assert row.current == prev.current


def test_best_instance_reloaded_from_json_gives_the_same_ratio(small_search, tmp_path):
    res = small_search
    path = tmp_path / "worst.json"
    path.write_text(res.instance.to_json())
    p = optsched.get_paper("hetero")
    inst = p.instance_type.from_json(path.read_text())
    again = adversary.evaluate(p, "optimus_lb", inst, time_limit=30.0)
    assert again["certified"] == pytest.approx(res.ratio, rel=1e-9)


@pytest.mark.parametrize("name", ["trace.csv", "trace.csv.gz"])
def test_saved_trace_reads_back_with_its_dtypes(small_search, tmp_path, name):
    small_search.trace.to_csv(tmp_path / name, index=False)
    back = adversary.read_trace(tmp_path / name)
    pd.testing.assert_frame_equal(back, small_search.trace)


def test_same_seed_same_trace_with_processes_and_dask(small_search):
    """Byte-identical trace CSV with 2 local processes and on a Dask LocalCluster."""
    ref = small_search.trace.to_csv(index=False)
    pooled = adversary.worst_case(
        "hetero", "optimus_lb", n_evals=13, seed=1, time_limit=30.0, workers=2,
        progress=False, **HETERO,
    )  # fmt: skip
    assert pooled.trace.to_csv(index=False) == ref
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = adversary.worst_case(
            "hetero", "optimus_lb", n_evals=13, seed=1, time_limit=30.0,
            scheduler=client, progress=False, **HETERO,
        )  # fmt: skip
    assert on_dask.trace.to_csv(index=False) == ref


def test_oasis_search_runs_and_finds_at_least_the_start():
    res = adversary.worst_case("oasis", "oasis", n_evals=5, seed=0, time_limit=20.0,
                               progress=False, **OASIS)  # fmt: skip
    assert res.ratio >= res.trace["certified"].iloc[0] >= 1.0
    assert "Theorem 4" in res.proven_bound


def test_bad_arguments():
    with pytest.raises(KeyError, match="unknown algorithm"):
        adversary.worst_case("hetero", "nope", n_evals=2, **HETERO)
    with pytest.raises(ValueError, match="method"):
        adversary.worst_case("hetero", "has", n_evals=2, method="magic", **HETERO)
    with pytest.raises(ValueError, match="n_evals"):
        adversary.worst_case("hetero", "has", n_evals=0, **HETERO)


# --------------------------------------------------------------------- CLI
def test_cli_worst_case_writes_files_and_prints_the_bound(tmp_path, capsys):
    out = tmp_path / "wc"
    rc = main(["worst-case", "oasis", "oasis", "--evals", "3", "--n-jobs", "4", "--n-slots",
               "6", "--out", str(out), "--no-progress"])  # fmt: skip
    assert rc == 0
    names = sorted(p.name for p in out.iterdir())
    stem = "worst_oasis_oasis_anneal_seed0"
    assert names == sorted(
        f"{stem}{s}" for s in (".json", ".png", ".summary.json", ".trace.csv")
    )
    text = capsys.readouterr().out
    assert "paper's proven bound: 2 alpha" in text
    worst = optsched.get_paper("oasis").instance_type.from_json(
        (out / f"{stem}.json").read_text()
    )
    two_alpha = 2 * optsched.get_paper("oasis").run("oasis", worst).meta["alpha"]
    assert f"on the worst instance found: {two_alpha:.6g}" in text
    summary = json.loads((out / f"{stem}.summary.json").read_text())
    trace = pd.read_csv(out / f"{stem}.trace.csv")
    assert summary["n_evals"] == len(trace) == 3
    assert summary["worst_certified_ratio"] == pytest.approx(trace["certified"].max())


def test_cli_worst_case_bad_input_writes_nothing(tmp_path, capsys):
    out = tmp_path / "wc"
    assert main(["worst-case", "oasis", "nope", "--out", str(out)]) == 2
    with pytest.raises(SystemExit) as info:  # an option's value: argparse exits 2
        main(["worst-case", "oasis", "oasis", "--evals", "0", "--out", str(out)])
    assert info.value.code == 2
    assert "error" in capsys.readouterr().err
    assert not out.exists()


# ------------------------------------------------------------------ evolve
def test_evolve_is_deterministic_and_counts_invalid_draws():
    """Same seed, same trace with 1 and 2 processes; every row is certified or marked invalid."""
    kw = dict(n_evals=10, seed=2, time_limit=20.0, method="evolve", progress=False)
    a = adversary.worst_case("hetero", "jps", workers=1, **kw, **HETERO)
    b = adversary.worst_case("hetero", "jps", workers=2, **kw, **HETERO)
    assert a.trace.to_csv(index=False) == b.trace.to_csv(index=False)
    tr = a.trace
    assert set(tr["method"]) == {"evolve"} and len(tr) == 10
    assert tr["kind"].isin(["proven", "interval", "invalid"]).all()
    assert tr.loc[tr["kind"] == "invalid", "certified"].isna().all()
    params = json.loads(tr["mutation"].iloc[0])
    assert set(params) == set(optsched.get_paper("hetero").search_space.params)
    assert a.ratio == tr["certified"].max()
    # the best instance is the generator's output for its parameters
    best = tr.loc[tr["certified"].idxmax()]
    space = optsched.get_paper("hetero").search_space
    rebuilt = space.build(json.loads(best["mutation"]), **HETERO)
    assert adversary.sha(rebuilt) == best["instance_sha"] == adversary.sha(a.instance)


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_every_slice_has_a_search_space_that_builds(key):
    p = optsched.get_paper(key)
    space = p.search_space
    mid = {
        n: (
            int((lo + hi) // 2)
            if kind == "int"
            else (lo * hi) ** 0.5
            if kind == "log"
            else (lo + hi) / 2
        )
        for n, (lo, hi, kind) in space.params.items()
    }
    inst = space.build(mid, **p.demo_size)
    assert type(inst).from_json(inst.to_json()).to_json() == inst.to_json()
    assert "instance_seed" in space.params


@pytest.mark.parametrize("key", optsched.PAPERS)
def test_search_space_draws_are_valid_at_the_demo_size(key):
    """Every corner of the box is reachable by ``evolve``: 25 uniform draws
    (log-uniform for ``log``) all build, so no evaluation is spent on an
    invalid candidate (edgecloud's arrival window once went to 1.0 and 11%
    of an evolve run was invalid; now capped at ``ARRIVAL_WINDOW_MAX``)."""
    p = optsched.get_paper(key)
    rng = np.random.default_rng(7)
    for _ in range(25):
        draw = {}
        for n, (lo, hi, kind) in p.search_space.params.items():
            if kind == "int":
                draw[n] = int(rng.integers(int(lo), int(hi) + 1))
            elif kind == "log":
                draw[n] = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            else:
                draw[n] = float(rng.uniform(lo, hi))
        p.search_space.build(draw, **p.demo_size)  # raises if invalid


# ------------------------------------------------------- experiment layer
def test_trace_rows_task_matches_a_direct_evaluation():
    """The figure task's first row is the certified evaluation of ``generate(seed)``."""
    task = {"paper": "hetero", "algorithm": "has", "method": "anneal", "seed": 4,
            "n_evals": 3, "time_limit": 30.0, "batch": 2, "size": HETERO}  # fmt: skip
    rows = adversary.trace_rows(task)
    assert [r["eval"] for r in rows] == [0, 1, 2]
    assert set(rows[0]) == {"paper", "algorithm", "seed", *adversary.TRACE_COLUMNS}
    p = optsched.get_paper("hetero")
    direct = adversary.evaluate(p, "has", p.generate(seed=4, **HETERO), time_limit=30.0)
    assert rows[0]["certified"] == pytest.approx(direct["certified"], rel=1e-12)
    df = pd.DataFrame(rows)
    assert adversary.worst_found(df, "has").startswith(
        f"anneal: {df['certified'].max():.4g}"
    )
    assert adversary.worst_found(df, "jps") == "not run"


def test_anneal_with_several_starts_begins_at_the_worst_generated_instance():
    p = optsched.get_paper("hetero")
    res = adversary.worst_case("hetero", "optimus", n_evals=7, seed=5, starts=4, batch=3,
                               time_limit=30.0, progress=False, **HETERO)  # fmt: skip
    tr = res.trace
    direct = [
        adversary.evaluate(
            p, "optimus", p.generate(seed=5 + j, **HETERO), time_limit=30.0
        )["certified"]
        for j in range(4)
    ]
    assert list(tr["certified"].iloc[:4]) == pytest.approx(direct)
    assert tr["current"].iloc[3] == pytest.approx(max(direct))
    # the first mutation step starts from the worst start
    assert (tr["parent"].iloc[4:] == int(np.argmax(direct))).all()
    with pytest.raises(ValueError, match="starts"):
        adversary.worst_case("hetero", "has", n_evals=2, starts=0, **HETERO)


@pytest.mark.parametrize("seed", range(3))
def test_bound_values_on_generated_instances(seed):
    """``Paper.bound_value``: OASiS's is its run's ``2 alpha``; A-SRPT's Theorem 1
    value is at least the certified ratio (the theorem must hold where its
    assumptions do: no job needs the whole cluster at the demo size)."""
    p = optsched.get_paper("oasis")
    inst = p.generate(seed, **p.demo_size)
    assert p.bound_value["oasis"](inst) == pytest.approx(
        2 * p.run("oasis", inst).meta["alpha"], rel=1e-12
    )
    q = optsched.get_paper("asrpt")
    inst = q.generate(seed, **q.demo_size)
    row = adversary.evaluate(q, "asrpt", inst, time_limit=30.0)
    assert row["kind"] == "proven"
    assert 1.0 <= row["certified"] <= q.bound_value["asrpt"](inst)
    assert set(q.bound_value) <= set(q.proven_bound)
    assert set(p.bound_value) <= set(p.proven_bound)


def test_plot_traces_marks_alg_zero_and_uses_log_for_wide_ranges():
    rows = []
    for method, best in (
        ("anneal", [1.0, 5.0, 1e6, 1e6]),
        ("evolve", [1.2, 3.0, math.inf, math.inf]),
    ):
        rows += [{"paper": "oasis", "algorithm": "oasis", "method": method, "eval": k,
                  "best": b} for k, b in enumerate(best)]  # fmt: skip
    fig = adversary.plot_traces(pd.DataFrame(rows))
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "evolve: inf (ALG = 0) from evaluation 3" in labels
    narrow = pd.DataFrame(rows).assign(best=lambda d: d["best"].clip(upper=2.0))
    assert adversary.plot_traces(narrow).axes[0].get_yscale() == "linear"
