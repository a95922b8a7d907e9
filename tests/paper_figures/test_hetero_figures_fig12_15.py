"""Smoke tests of the hetero figure scripts Figs. 12-15 (``paper_figures/hetero``), quick mode."""

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
from optsched.hetero.instance import GPU_TYPES, MODELS

FIG_DIR = Path(__file__).resolve().parents[2] / "paper_figures" / "hetero"
STEMS = (
    "fig12_alpha",
    "fig13_beta",
    "fig14_heterogeneity",
    "fig15_prediction_error",
)
TABLE3_FIRST4 = ["ResNet101", "ResNet18", "VGG19", "AlexNet"]


def _load(stem: str) -> ModuleType:
    path = FIG_DIR / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"test_fig_hetero_{stem}", path)
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
    df = pd.read_csv(csv)
    assert list(df.columns) == mod.COLUMNS
    assert len(returned) == len(df)
    return mod, returned, df


@pytest.fixture(scope="module")
def fig12(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig12_alpha", tmp_path_factory.mktemp("fig12"))


@pytest.fixture(scope="module")
def fig13(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig13_beta", tmp_path_factory.mktemp("fig13"))


@pytest.fixture(scope="module")
def fig14(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig14_heterogeneity", tmp_path_factory.mktemp("fig14"))


@pytest.fixture(scope="module")
def fig15(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig15_prediction_error", tmp_path_factory.mktemp("fig15"))


def _instance(row: pd.Series, **extra):
    """Regenerate a row's instance with the generator directly (not the script)."""
    kw = {}
    if "heterogeneity_target" in row and not pd.isna(row["heterogeneity_target"]):
        kw["heterogeneity"] = float(row["heterogeneity_target"])
    if "epsilon" in row and float(row["epsilon"]) > 0:
        kw["epsilon"] = float(row["epsilon"])
    kw.update(extra)
    p = optsched.get_paper("hetero")
    inst = p.generate(
        seed=int(row["seed"]),
        n_jobs=int(row["n_jobs"]),
        n_workers=int(row["n_workers"]),
        models=str(row["models"]).split(";"),
        **kw,
    )
    assert ";".join(j.name for j in inst.jobs) == row["jobs"]
    return p, inst


def _h35(rho: np.ndarray) -> float:
    col = np.asarray(rho).sum(axis=0)
    return float(col.sum() / (col.size * col.min()))


def test_every_script_has_main_and_cli() -> None:
    """Each script exposes NAME, COLUMNS, ``main(out_dir, quick=False, ..., progress)`` and a CLI."""
    for stem in STEMS:
        mod = _load(stem)
        assert mod.NAME == stem
        params = inspect.signature(mod.main).parameters
        assert list(params)[:2] == ["out_dir", "quick"]
        assert params["quick"].default is False
        assert "progress" in params and "workers" in params
        src = (FIG_DIR / f"{stem}.py").read_text()
        assert '__name__ == "__main__"' in src and "--quick" in src and "--out" in src
        assert "paper_figures/out/hetero" in src


def test_failed_run_writes_nothing(tmp_path: Path) -> None:
    """An unknown setting fails before anything is written."""
    mod = _load("fig14_heterogeneity")
    with pytest.raises(KeyError, match="no_such_setting"):
        mod.main(tmp_path, quick=True, settings=("no_such_setting",), workers=1)
    assert not tmp_path.exists() or not list(tmp_path.iterdir())


# ----------------------------------------------------------------- Fig. 12
def test_fig12_rear_part_and_category_profile(fig12) -> None:
    """Rear-part sizes follow ceil(alpha |Psi|) (paper: 364 -> 36); Psi is complete."""
    mod, _, df = fig12
    assert set(df["kind"]) == {"jps", "category", "optimum"}
    cat = df[df["kind"] == "category"]
    n_psi = math.comb(14, 3)
    assert len(cat) == n_psi == 364
    assert sorted(cat["category_id"]) == list(range(1, n_psi + 1))
    jps = df[df["kind"] == "jps"]
    assert sorted(jps["alpha"].unique()) == pytest.approx(mod.ALPHAS)
    for alpha, sub in jps.groupby("alpha"):
        start = math.ceil(round(alpha * n_psi, 9))
        assert (sub["n_rear"] == n_psi - start).all()
        assert (sub["rear_start_id"] == start + 1).all()
        assert (sub["category_id"] >= sub["rear_start_id"]).all()
        assert (sub["category_id"] <= n_psi).all()
    n_rear = jps.groupby("alpha")["n_rear"].first()
    assert n_rear.loc[0.0] == 364 and n_rear.loc[0.9] == 36  # Sec. VI-B1
    # every category has sum K_i = K and S positive parts
    parts = cat["category"].str.split("-").apply(lambda v: [int(x) for x in v])
    assert parts.apply(lambda v: len(v) == 4 and min(v) >= 1 and sum(v) == 15).all()


def test_fig12_jps_picks_its_category_and_ratios(fig12) -> None:
    """A JPS row has the checked JCT of the category it picked; nothing beats the optimum."""
    mod, _, df = fig12
    opt = df[df["kind"] == "optimum"]
    assert len(opt) == 1 and (df["opt_status"] == "optimal").all()
    assert (df["normalized"] >= 1 - 1e-9).all()
    assert (df["avg_jct"] >= df["opt_objective"] * (1 - 1e-9)).all()
    cat = df[df["kind"] == "category"].set_index("category_id")
    jps = df[df["kind"] == "jps"]
    np.testing.assert_allclose(
        jps["avg_jct"].to_numpy(),
        cat.loc[jps["category_id"].to_numpy(), "avg_jct"].to_numpy(),
        rtol=1e-12,
    )
    # JPS (beta = 1, exact predictions) is at least the best of its rear part,
    # and equals it when N covers the whole rear part
    for _, r in jps.iterrows():
        rear = cat.loc[cat.index >= r["rear_start_id"], "avg_jct"]
        assert r["avg_jct"] >= rear.min() * (1 - 1e-12)
        if r["n_samples"] >= r["n_rear"]:
            assert r["avg_jct"] == pytest.approx(rear.min(), rel=1e-12)
    best = int(cat["avg_jct"].idxmin())
    assert (df["best_category_id"] == best).all()
    assert (df["paper_best_category_id"] == 276).all()


def test_fig12_row_regenerates(fig12) -> None:
    """A Fig. 12 row equals p.check of p.run('jps') on the regenerated instance."""
    _, _, df = fig12
    row = df[df["kind"] == "jps"].iloc[-1]
    p, inst = _instance(row)
    assert _h35(inst.rho) == pytest.approx(row["heterogeneity"], rel=1e-12)
    pl = p.run(
        "jps",
        inst,
        n_samples=int(row["n_samples"]),
        alpha=float(row["alpha"]),
        beta=float(row["beta"]),
        seed=int(row["jps_seed"]),
    )
    assert pl.meta["category_id"] == row["category_id"]
    assert p.check(inst, pl).objective == pytest.approx(row["avg_jct"], rel=1e-12)


# ----------------------------------------------------------------- Fig. 13
def test_fig13_beta_trade_off_is_monotone(fig13) -> None:
    """Per sampler seed, JCT and fairness are non-increasing in beta (rule (34))."""
    mod, _, df = fig13
    jps = df[df["kind"] == "jps"]
    assert (jps["fairness"] >= 1 / 4 - 1e-12).all() and (
        jps["fairness"] <= 1 + 1e-12
    ).all()
    assert (df["normalized"] >= 1 - 1e-9).all()
    for _, sub in jps.groupby(["n_samples", "jps_seed"]):
        sub = sub.sort_values("beta")
        assert len(sub) == len(jps["beta"].unique())
        jct, fair = sub["avg_jct"].to_numpy(), sub["fairness"].to_numpy()
        assert (np.diff(jct) <= 1e-9 * jct[:-1]).all()
        assert (np.diff(fair) <= 1e-9).all()


def test_fig13_paper_numbers_and_regeneration(fig13) -> None:
    """Paper numbers sit only on N = 60, beta in {0, 1}; a row regenerates."""
    mod, _, df = fig13
    assert mod.PAPER == {(60, 0.0): (4301.35, 0.947), (60, 1.0): (3944.17, 0.821)}
    jps = df[df["kind"] == "jps"]
    on = (jps["n_samples"] == 60) & jps["beta"].isin([0.0, 1.0])
    assert jps.loc[~on, "paper_avg_jct"].isna().all()
    row = jps[jps["beta"] == 0.0].iloc[-1]
    p, inst = _instance(row)
    pl = p.run(
        "jps",
        inst,
        n_samples=int(row["n_samples"]),
        alpha=float(row["alpha"]),
        beta=float(row["beta"]),
        seed=int(row["jps_seed"]),
    )
    ev = p.check(inst, pl)
    assert ev.objective == pytest.approx(row["avg_jct"], rel=1e-12)
    # fairness (33) recomputed by hand: Jain's index of Lambda_i / Lambda_i^[e] (32)
    S, K = inst.n_jobs, inst.n_workers
    gb = np.array([j.model_size_mb for j in inst.jobs]) * 8 / 1000
    comm = 2 * (K / S - 1) * gb / (inst.inter_gbps * K / S)
    comp = S * np.array([j.dataset_size for j in inst.jobs]) / inst.rho.sum(axis=1)
    x = ev.jct / (np.array([j.epochs for j in inst.jobs]) * (comm + comp))
    assert x.sum() ** 2 / (S * (x * x).sum()) == pytest.approx(
        row["fairness"], rel=1e-9
    )


# ----------------------------------------------------------------- Fig. 14
def test_fig14_exhaustive_meets_optimum(fig14) -> None:
    """Exhaustive search equals the certified MILP optimum; every ratio is >= 1."""
    mod, _, df = fig14
    assert set(df["scheme"]) == set(mod.SCHEMES)
    assert (df["opt_status"] == "optimal").all()
    assert (df["normalized"] >= 1 - 1e-9).all()
    keys = ["setting", "heterogeneity_target", "n_v100"]
    for _, sub in df.groupby(keys, dropna=False):
        s = sub.set_index("scheme")
        assert s.loc["exhaustive", "avg_jct"] == pytest.approx(
            s.loc["optimum", "avg_jct"], rel=1e-9
        )
        assert (sub["scheme"] == "jps").sum() >= 1


def test_fig14_heterogeneity_degrees(fig14) -> None:
    """Achieved H is Eq. (35) of the instance, the closest to the target; swap keeps P100."""
    mod, _, df = fig14
    inst_rows = df[df["scheme"] == "optimum"]
    assert set(inst_rows["setting"]) == {"target", "swap"}
    for _, row in inst_rows.iterrows():
        counts = [int(x) for x in row["gpu_counts"].split("/")]
        K = int(row["n_workers"])
        assert sum(counts) == K
        if row["setting"] == "target":
            p, inst = _instance(row)
            h = _h35(inst.rho)
            # independently: no GPU split of K workers gets closer to the target
            table = np.array(
                [[MODELS[m].throughput[g] for g in GPU_TYPES] for m in TABLE3_FIRST4]
            ).sum(axis=0)
            target = float(row["heterogeneity_target"])
            best = min(
                abs(_h35(np.repeat(table, [a, b, K - a - b])[None, :]) - target)
                for a in range(K + 1)
                for b in range(K + 1 - a)
            )
            assert abs(h - target) == pytest.approx(best, abs=1e-12)
        else:
            assert counts[1] == K // 3 and counts[2] == row["n_v100"]
            p, inst = _instance(row, gpu_mix=tuple(counts))
            h = _h35(inst.rho)
        assert h == pytest.approx(row["heterogeneity"], rel=1e-12)
    # swap: replacing T4 by V100 can only lower the optimum, and raises H
    swap = inst_rows[inst_rows["setting"] == "swap"].sort_values("n_v100")
    assert len(swap) >= 2
    assert (np.diff(swap["opt_objective"].to_numpy()) <= 1e-9).all()
    assert (np.diff(swap["heterogeneity"].to_numpy()) > 0).all()


def test_fig14_row_regenerates_and_paper_values(fig14) -> None:
    """A swap-setting JPS row regenerates; the text's ratios are recorded as constants."""
    mod, _, df = fig14
    row = df[(df["setting"] == "swap") & (df["scheme"] == "jps")].iloc[-1]
    counts = tuple(int(x) for x in row["gpu_counts"].split("/"))
    p, inst = _instance(row, gpu_mix=counts)
    pl = p.run("jps", inst, n_samples=int(row["n_samples"]), seed=int(row["jps_seed"]))
    assert p.check(inst, pl).objective == pytest.approx(row["avg_jct"], rel=1e-12)
    assert mod.PAPER_NORMALIZED[("has", 1.26)] == 1.0128
    assert mod.PAPER_NORMALIZED[("optimus", 1.10)] == 1.4209
    # quick mode runs K = 10: no paper value is attached to it
    if (df["n_workers"] != 15).all():
        assert df["paper_normalized"].isna().all()


# ----------------------------------------------------------------- Fig. 15
def test_fig15_optimum_and_exact_predictions(fig15) -> None:
    """One optimum for all rounds; nothing beats it; eps = 0 predictions are the truth."""
    mod, _, df = fig15
    assert set(df["scheme"]) == {*mod.SCHEMES, "optimum"}
    opt = df[df["scheme"] == "optimum"]
    assert (opt["epsilon"] == 0).all() and (opt["opt_status"] == "optimal").all()
    assert opt["avg_jct"].to_numpy() == pytest.approx(opt["avg_jct"].iloc[0], rel=1e-9)
    assert (df["avg_jct"] >= df["opt_objective"] * (1 - 1e-9)).all()
    alg = df[df["scheme"].isin(["has", "jps"])]
    assert alg["n_cycled"].notna().all() and (alg["n_cycled"] >= 0).all()
    assert df.loc[df["scheme"].isin(["optimus", "optimus_lb"]), "n_cycled"].isna().all()
    exact = alg[alg["epsilon"] == 0]
    np.testing.assert_allclose(exact["predicted_jct"], exact["avg_jct"], rtol=1e-9)
    hi = df[df["epsilon"] == df["epsilon"].max()]
    assert (hi.loc[hi["scheme"] == "has", "paper_increase"] == 0.0375).all()
    assert (hi.loc[hi["scheme"] == "jps", "paper_increase"] == 0.043).all()
    summ = mod.summarize(df)
    assert summ.loc[summ["epsilon"] == 0, "increase"].abs().max() == 0


def test_fig15_noisy_row_regenerates(fig15) -> None:
    """A noisy HAS row: prediction within the epsilon band, re-run and re-checked on rho*."""
    _, _, df = fig15
    row = df[(df["scheme"] == "has") & (df["epsilon"] > 0)].iloc[-1]
    eps = float(row["epsilon"])
    p, inst = _instance(row)
    ratio = inst.rho_hat / inst.rho
    assert (ratio >= 1 - eps - 1e-12).all() and (ratio <= 1 + eps + 1e-12).all()
    assert not np.allclose(ratio, 1.0)
    pl = p.run("has", inst)
    assert len(pl.meta["cycled"]) == row["n_cycled"]
    ev = p.check(inst, pl)
    assert ev.objective == pytest.approx(row["avg_jct"], rel=1e-12)
    assert ev.objective >= row["opt_objective"] * (1 - 1e-9)
