"""Quick-mode tests of the hetero Figs. 17 (reset events) and 18 (Gavel scale factors)."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.hetero.simulate import simulate

FIG_DIR = Path(__file__).resolve().parents[2] / "paper_figures" / "hetero"
STEMS = ("fig17_reset_events", "fig18_gavel_scale")


def _load(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"test_fig_hetero_{stem}", FIG_DIR / f"{stem}.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(stem: str, out: Path) -> tuple[ModuleType, pd.DataFrame, pd.DataFrame]:
    mod = _load(stem)
    returned = mod.main(out, quick=True, workers=1, progress=False)
    csv, png = out / f"{stem}.csv", out / f"{stem}.png"
    assert csv.is_file() and png.is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files
    df = pd.read_csv(csv, keep_default_na=False, na_values=[""])
    assert list(df.columns) == mod.COLUMNS
    assert len(df) == len(returned) > 0
    return mod, returned, df


@pytest.fixture(scope="module")
def fig17(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig17_reset_events", tmp_path_factory.mktemp("fig17"))


@pytest.fixture(scope="module")
def fig18(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig18_gavel_scale", tmp_path_factory.mktemp("fig18"))


def _inst(mod: ModuleType, row: pd.Series):
    return mod.make_instance(
        row["setting"],
        row["pool"],
        int(row["seed"]),
        int(row["n_jobs"]),
        int(row["n_workers"]),
    )


def _completion(row: pd.Series) -> np.ndarray:
    return np.array([float(x) for x in str(row["completion_s"]).split(";")])


def _lower_bound(inst) -> np.ndarray:
    """Any schedule: job i needs at least T_i |Pi_i| / sum_k rho*_{i,k} seconds."""
    return inst.epochs * inst.dataset_size / inst.rho.sum(axis=1)


def test_scripts_have_main_and_cli() -> None:
    for stem in STEMS:
        params = inspect.signature(_load(stem).main).parameters
        assert list(params)[:2] == ["out_dir", "quick"]
        assert params["quick"].default is False
        src = (FIG_DIR / f"{stem}.py").read_text()
        assert '__name__ == "__main__"' in src and "--quick" in src and "--out" in src


# ------------------------------------------------------------------ Fig. 17
def test_fig17_coverage_and_paper_values(fig17) -> None:
    mod, _, df = fig17
    assert set(df["setting"]) == set(mod.SETTINGS)
    for _, g in df.groupby(["setting", "pool", "seed"]):
        for scheme in mod.SCHEMES:
            assert set(g.loc[g["scheme"] == scheme, "mode"]) == {"static", "dynamic"}
        gv = g[g["scheme"] == "gavel"]
        assert len(gv) == 1 and gv["mode"].iloc[0] == "dynamic"
        assert int(gv["scale_factor"].iloc[0]) == int(g["n_workers"].iloc[0]) // 3
        assert gv["round_s"].iloc[0] == 360.0  # Gavel's 6-minute rounds
    dyn = df[(df["mode"] == "dynamic") & (df["scheme"] != "gavel")]
    # the paper's numbers (Sec. VI-B2)
    assert (dyn["paper_reduction_avg_jct_lo"] == 0.1701).all()
    assert (dyn["paper_reduction_avg_jct_hi"] == 0.4167).all()
    assert (dyn["paper_reduction_makespan_lo"] == 0.2734).all()
    assert (dyn["paper_reduction_makespan_hi"] == 0.4435).all()
    gv = df[df["scheme"] == "gavel"]
    assert (gv["paper_reduction_avg_jct_lo"] == 0.212).all()
    assert (gv["paper_reduction_makespan_lo"] == 0.713).all()


def test_fig17_completions_consistent_and_bounded(fig17) -> None:
    """Finite completions, avg/max match them, makespan >= avg JCT, above a work bound."""
    mod, _, df = fig17
    for _, row in df.iterrows():
        c = _completion(row)
        assert np.isfinite(c).all() and (c > 0).all()
        assert c.mean() == pytest.approx(row["avg_jct"], rel=1e-8)
        assert c.max() == pytest.approx(row["makespan"], rel=1e-8)
        assert row["makespan"] >= row["avg_jct"] * (1 - 1e-12)
    for _, g in df.groupby(["setting", "pool", "seed"]):
        inst = _inst(mod, g.iloc[0])
        lb = _lower_bound(inst)
        for _, row in g.iterrows():
            assert (_completion(row) >= lb * (1 - 1e-6)).all()


def test_fig17_static_equals_checker_jct(fig17) -> None:
    """Static mode: each completion is the checker's JCT (7) of the regenerated placement."""
    mod, _, df = fig17
    p = optsched.get_paper("hetero")
    for _, row in df[df["mode"] == "static"].iterrows():
        inst = _inst(mod, row)
        params = {}
        if row["scheme"] == "jps":
            params = {"n_samples": int(row["n_samples"]), "seed": int(row["jps_seed"])}
        ev = p.check(inst, p.run(row["scheme"], inst, **params))
        np.testing.assert_allclose(_completion(row), ev.jct, rtol=1e-9, atol=1e-5)
        assert ev.objective == pytest.approx(row["check_avg_jct"], rel=1e-9)


def test_fig17_static_not_below_certified_optimum(fig17) -> None:
    """Every static average JCT is >= the optimum of P1; exhaustive attains it."""
    mod, _, df = fig17
    p = optsched.get_paper("hetero")
    for _, g in df[df["mode"] == "static"].groupby(["setting", "pool", "seed"]):
        opt = p.solve_offline(_inst(mod, g.iloc[0]), time_limit=60.0, threads=1)
        assert opt.status == "optimal"
        assert (g["avg_jct"] >= opt.objective * (1 - 1e-9)).all()
        ex = g.loc[g["scheme"] == "exhaustive", "avg_jct"].iloc[0]
        assert ex == pytest.approx(opt.objective, rel=1e-9)


def test_fig17_dynamic_conserves_work(fig17) -> None:
    """Re-simulate a dynamic row: the checker's epoch rates over the segments do T_i epochs."""
    mod, _, df = fig17
    p = optsched.get_paper("hetero")
    for scheme in ("has", "optimus"):
        row = df[(df["mode"] == "dynamic") & (df["scheme"] == scheme)].iloc[-1]
        inst = _inst(mod, row)
        calls = []

        def policy(sub, _name=scheme, _calls=calls, **kw):
            pl = p.run(_name, sub, **kw)
            _calls.append((sub, pl))
            return pl

        res = simulate(inst, policy, dynamic=True)
        np.testing.assert_allclose(res.completion, _completion(row), atol=1e-5)
        assert len(calls) == len(res.segments) == int(row["decisions"])
        done = np.zeros(inst.n_jobs)
        for seg, (sub, pl) in zip(res.segments, calls, strict=True):
            ev = p.check(sub, pl)
            per_epoch = ev.compute_latency + ev.comm_latency
            for pos, i in enumerate(seg.active):
                done[i] += (seg.end - seg.start) / per_epoch[pos]
        np.testing.assert_allclose(done, inst.epochs, rtol=1e-9)


# ------------------------------------------------------------------ Fig. 18
def test_fig18_curves_well_formed(fig18) -> None:
    mod, _, df = fig18
    assert set(df["setting"]) == set(mod.SETTINGS)
    for _, g in df.groupby(["setting", "pool", "seed"]):
        top = int(g["sf_max"].iloc[0])
        assert top == int(g["n_workers"].iloc[0]) // 3
        assert sorted(set(g["varied_job"])) == list(range(int(g["n_jobs"].iloc[0])))
        for j, cur in g.groupby("varied_job"):
            assert list(cur["scale_factor"]) == list(range(1, top + 1))
            for _, r in cur.iterrows():
                sf = [int(x) for x in r["scale_factors"].split(";")]
                assert sf[j] == r["scale_factor"]
                assert all(s == top for i, s in enumerate(sf) if i != j)
            v = cur["avg_jct"].to_numpy()
            assert cur["curve_decreasing"].iloc[0] == bool(
                np.all(v[1:] <= v[:-1] * (1 + 1e-9))
            )
        at_max = g[g["scale_factor"] == top]
        assert at_max["avg_jct"].nunique() == 1  # the same [top] * S run
        assert np.allclose(at_max["normalized"], 1.0)
    assert (df["paper_trend"].str.contains(r"\[5, 5, 5, 5\]", regex=True)).all()


def test_fig18_rerun_from_csv_and_gavel_gangs(fig18) -> None:
    """A row re-simulated from the CSV gives its JCT; rounds gang s_i GPUs of one type."""
    mod, _, df = fig18
    for _, row in df[(df["scale_factor"] == 1) & (df["varied_job"] == 1)].iterrows():
        inst = _inst(mod, row)
        sf = [int(x) for x in row["scale_factors"].split(";")]
        res = simulate(
            inst, "gavel", params={"scale_factor": sf}, round_s=row["round_s"]
        )
        np.testing.assert_allclose(res.completion, _completion(row), atol=1e-5)
        assert res.avg_jct == pytest.approx(row["avg_jct"], rel=1e-9)
        assert (res.completion >= _lower_bound(inst) * (1 - 1e-6)).all()
        gpu = np.array(inst.gpu)
        for seg in res.segments:
            for i in set(seg.assignment.tolist()) - {-1}:
                ws = np.flatnonzero(seg.assignment == i)
                assert len(ws) == sf[i] and len(set(gpu[ws])) == 1
                assert i in seg.active
