"""Smoke tests of the hetero Fig. 16 and Table V scripts (``paper_figures/hetero``), quick mode."""

from __future__ import annotations

import importlib.util
import inspect
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.hetero.baselines import equal_workload
from optsched.hetero.schedule import HeteroPlacement, proportional_workload

FIG_DIR = Path(__file__).resolve().parents[2] / "paper_figures" / "hetero"
STEMS = ("fig16_workers", "table5_running_time")


def _load(stem: str) -> ModuleType:
    path = FIG_DIR / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"test_fig_hetero_d_{stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(stem: str, out: Path, **kw) -> tuple[ModuleType, pd.DataFrame, pd.DataFrame]:
    mod = _load(stem)
    returned = mod.main(out, quick=True, progress=False, **kw)
    csv, png = out / f"{stem}.csv", out / f"{stem}.png"
    assert csv.is_file() and png.is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files
    df = pd.read_csv(csv, keep_default_na=False, na_values=[""])
    assert list(df.columns) == mod.COLUMNS
    assert len(df) == len(returned)
    return mod, returned, df


@pytest.fixture(scope="module")
def fig16(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig16_workers", tmp_path_factory.mktemp("fig16"), workers=1)


@pytest.fixture(scope="module")
def table5(tmp_path_factory: pytest.TempPathFactory):
    return _run("table5_running_time", tmp_path_factory.mktemp("table5"))


def _instance(row: pd.Series):
    p = optsched.get_paper("hetero")
    inst = p.generate(
        seed=int(row["seed"]),
        n_jobs=int(row["n_jobs"]),
        n_workers=int(row["n_workers"]),
    )
    return p, inst


def test_scripts_have_main_and_cli() -> None:
    """Both scripts expose ``main(out_dir, quick=False, ...)`` and an argparse entry point."""
    for stem in STEMS:
        mod = _load(stem)
        assert mod.NAME == stem
        params = inspect.signature(mod.main).parameters
        assert list(params)[:2] == ["out_dir", "quick"]
        assert params["quick"].default is False
        assert "progress" in params
        src = (FIG_DIR / f"{stem}.py").read_text()
        assert '__name__ == "__main__"' in src and "--quick" in src and "--out" in src
        assert "paper_figures/out/hetero" in src


def test_fig16_paper_numbers() -> None:
    """The K = 300 latencies are the paper's (Sec. VI-B1); JPS's JCT is below Optimus-LB's."""
    mod = _load("fig16_workers")
    assert mod.PAPER_K300 == {"jps": (68.86, 201.30), "optimus_lb": (69.13, 217.96)}
    assert mod.KS == (15, 30, 50, 100, 200, 300)
    assert mod.JPS_N == 40
    jct, comm, comp = mod._paper_values("jps_market", "jps", 300)
    assert (comm, comp) == (68.86, 201.30) and jct == pytest.approx(270.16)
    assert all(math.isnan(v) for v in mod._paper_values("jps_market", "jps", 100))
    assert all(math.isnan(v) for v in mod._paper_values("optimus", "optimus", 300))


def test_fig16_rows_and_latency_ranges(fig16) -> None:
    """Every scheme per instance; comm + comp = JCT; comm below its (6) upper bound."""
    mod, _, df = fig16
    assert sorted(df["n_workers"].unique()) == [15, 30]
    per = df.groupby(["n_workers", "seed"])["scheme"].apply(set)
    base = {"optimus", "optimus_lb", "jps_market", "jps_exact"}
    assert per.loc[(15, 0)] == base | {"has", "optimum"}  # quick: HAS, MILP at K = 15
    assert per.loc[(30, 0)] == base
    assert (df["avg_jct"] > 0).all()
    assert np.allclose(df["avg_comm_s"] + df["avg_comp_s"], df["avg_jct"], rtol=1e-12)
    assert (df.loc[df["p3"].notna(), "algorithm"] == "jps").all()
    assert set(df.loc[df["algorithm"] == "jps", "p3"]) == {"market", "exact"}
    assert (df.loc[df["algorithm"] == "jps", "n_samples"] == 40).all()
    # (6): l_c = 2 (K_i - 1) 8 D_i / (1000 r K_i) < 16 D_i / (1000 r_min), r_min >= 10 Gbps
    for _, row in df.drop_duplicates(["n_workers", "seed"]).iterrows():
        _, inst = _instance(row)
        cap = float(np.mean(inst.epochs * 16.0 * inst.model_size_mb / 1000.0 / 10.0))
        sub = df[(df["n_workers"] == row["n_workers"]) & (df["seed"] == row["seed"])]
        assert (sub["avg_comm_s"] >= 0).all() and (sub["avg_comm_s"] < cap).all()
        # every job's computation is at least its time on all K workers together
        floor = float(np.mean(inst.epochs * inst.dataset_size / inst.rho.sum(axis=1)))
        assert (sub["avg_comp_s"] >= floor * (1 - 1e-12)).all()


def test_fig16_ratios_against_proven_optimum(fig16) -> None:
    """The MILP is proven at K = 15 and no scheme beats it (ratio >= 1)."""
    _, _, df = fig16
    k15 = df[df["n_workers"] == 15]
    assert (k15["opt_status"] == "optimal").all()
    assert k15["ratio_to_opt"].notna().all()
    assert (k15["ratio_to_opt"] >= 1 - 1e-9).all()
    assert (k15["avg_jct"] >= k15["opt_bound"] * (1 - 1e-9)).all()
    opt = k15[k15["scheme"] == "optimum"].iloc[0]
    assert opt["ratio_to_opt"] == 1.0
    assert (k15["opt_objective"] == opt["avg_jct"]).all()
    assert df.loc[df["n_workers"] == 30, "ratio_to_opt"].isna().all()


def test_fig16_rows_recheck_from_csv(fig16) -> None:
    """A row's placement (``assignment`` + split) re-checks to its JCT and latency terms."""
    _, _, df = fig16
    for _, row in df[df["n_workers"] == 15].iterrows():
        p, inst = _instance(row)
        a = np.array([int(x) for x in row["assignment"].split()])
        assert a.shape == (inst.n_workers,)
        sigma = np.zeros((inst.n_jobs, inst.n_workers), dtype=np.int64)
        sigma[a, np.arange(inst.n_workers)] = 1
        if row["split"] == "equal":
            work = equal_workload(inst.dataset_size, sigma)
        else:
            work = proportional_workload(inst.dataset_size, inst.rho, sigma)
        ev = p.check(inst, HeteroPlacement(sigma, work))
        assert ev.objective == pytest.approx(row["avg_jct"], rel=1e-12)
        assert float(np.mean(inst.epochs * ev.comm_latency)) == pytest.approx(
            row["avg_comm_s"], rel=1e-12, abs=1e-12
        )
        assert "-".join(str(int(x)) for x in sigma.sum(axis=1)) == row["category"]


def test_fig16_jps_row_regenerates(fig16) -> None:
    """Re-running JPS (market, N = 40, seed 0) on the regenerated instance gives the row."""
    _, _, df = fig16
    row = df[(df["scheme"] == "jps_market") & (df["n_workers"] == 30)].iloc[0]
    p, inst = _instance(row)
    pl = p.run("jps", inst, n_samples=int(row["n_samples"]), seed=0, p3="market")
    assert p.check(inst, pl).objective == pytest.approx(row["avg_jct"], rel=1e-12)


def test_table5_paper_numbers_and_rows(table5) -> None:
    """Table V's entries sit beside our rows; every measured run is timed and checked."""
    mod, _, df = table5
    paper = {
        ("optimus", 50): 4.0e-3,
        ("optimus_lb", 100): 10.03e-3,
        ("jps_market", 50): 2.11,
        ("jps_exact", 100): 8.35,
        ("has_extrapolated", 50): 857.81,
    }
    for (scheme, K), v in paper.items():
        vals = df.loc[(df["scheme"] == scheme) & (df["n_workers"] == K), "paper_art_s"]
        assert len(vals) and np.allclose(vals, v, rtol=1e-12)
    assert mod.paper_art("jps_market", 300) == 114.61
    assert mod.paper_art("has", 100) == pytest.approx(12.98 * 3600)
    assert math.isnan(mod.paper_art("has", 200))
    assert math.isnan(mod.paper_art("has_category", 50))
    measured = df[df["kind"] == "measured"]
    assert set(measured["scheme"]) == {
        "optimus",
        "optimus_lb",
        "jps_market",
        "jps_exact",
    }
    assert (measured["runtime_s"] > 0).all() and measured["avg_jct"].notna().all()
    assert (df["threads"] >= 1).all()
    assert set(df.loc[df["scheme"].str.startswith("jps"), "p3"]) == {"market", "exact"}
    # deterministic algorithms: every repetition places the same way
    assert (
        measured.groupby(["n_workers", "seed", "scheme"])["avg_jct"].nunique() == 1
    ).all()
    assert (df["n_psi"] == [math.comb(k - 1, 3) for k in df["n_workers"]]).all()


def test_table5_has_extrapolation(table5) -> None:
    """The HAS estimate is mean(one category's time) x C(K-1, 3); categories are valid."""
    mod, _, df = table5
    samp = df[df["kind"] == "category_sample"]
    ext = df[df["kind"] == "extrapolation"]
    assert list(ext["n_workers"]) == [50] and len(samp) == 3
    K = 50
    assert ext["runtime_s"].iloc[0] == pytest.approx(
        samp["runtime_s"].mean() * math.comb(K - 1, 3), rel=1e-12
    )
    assert ext["n_categories_timed"].iloc[0] == 3
    assert samp["category"].nunique() == 3
    p = optsched.get_paper("hetero")
    for _, row in samp.iterrows():
        cat = tuple(int(x) for x in row["category"].split("-"))
        assert len(cat) == 4 and min(cat) >= 1 and sum(cat) == K
        _, inst = _instance(row)
        pl = p.run("has", inst, categories=[cat])
        assert p.check(inst, pl).objective == pytest.approx(row["avg_jct"], rel=1e-12)
    # the draw is reproducible from the instance seed
    cats = mod.sample_categories(K, 4, 3, int(samp["seed"].iloc[0]))
    assert ["-".join(map(str, c)) for c in cats] == list(samp["category"])
