"""Smoke tests of the OASiS figure scripts (``paper_figures/oasis``) in quick mode."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

import optsched

FIG_DIR = Path(__file__).resolve().parents[2] / "paper_figures" / "oasis"


def _load(stem: str) -> ModuleType:
    path = FIG_DIR / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"test_fig_oasis_{stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(stem: str, out: Path) -> tuple[ModuleType, pd.DataFrame, pd.DataFrame]:
    mod = _load(stem)
    returned = mod.main(out, quick=True, progress=False)
    csv, png = out / f"{stem}.csv", out / f"{stem}.png"
    assert csv.is_file() and png.is_file()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files
    return mod, returned, pd.read_csv(csv)


@pytest.fixture(scope="module")
def fig3(tmp_path_factory: pytest.TempPathFactory):
    return _run("fig3_total_utility", tmp_path_factory.mktemp("fig3"))


def _regenerate(row: pd.Series):
    p = optsched.get_paper("oasis")
    inst = p.generate(
        seed=int(row["seed"]),
        n_jobs=int(row["n_jobs"]),
        n_slots=int(row["n_slots"]),
        n_worker_servers=int(row["n_worker_servers"]),
        n_ps_servers=int(row["n_ps_servers"]),
    )
    return p, inst


def test_every_script_has_main_and_cli() -> None:
    """Every figure script exposes ``main(out_dir, quick=False)`` and an argparse entry point."""
    stems = {p.stem for p in FIG_DIR.glob("fig*.py")}
    assert stems >= {
        "fig3_total_utility",
        "fig4_completion_timeliness",
        "fig5_performance_ratio",
        "fig6_ul_estimates",
    }
    for stem in sorted(stems):
        params = inspect.signature(_load(stem).main).parameters
        assert list(params)[:2] == ["out_dir", "quick"]
        assert params["quick"].default is False
        src = (FIG_DIR / f"{stem}.py").read_text()
        assert '__name__ == "__main__"' in src and "--quick" in src and "--out" in src


def test_failed_run_writes_nothing(tmp_path: Path) -> None:
    """A run that fails during computation leaves no CSV, PNG or temp file behind."""
    mod = _load("fig3_total_utility")
    with pytest.raises(KeyError, match="no_such_scheme"):
        mod.main(tmp_path, quick=True, schemes=["no_such_scheme"], workers=1)
    assert not tmp_path.exists() or not list(tmp_path.iterdir())


def test_fig3_utilities_within_bounds(fig3) -> None:
    """Fig. 3 covers all five schemes and every utility lies in [0, sum of gamma1]."""
    mod, ret, df = fig3
    assert list(df.columns) == mod.COLUMNS
    assert len(ret) == len(df)
    assert set(df["scheme"]) == set(optsched.get_paper("oasis").algorithms)
    assert (df["utility"] >= 0).all()
    assert (df["utility"] <= df["sum_gamma1"] + 1e-9).all()
    assert (df["n_admitted"] <= df["n_jobs"]).all()
    assert (df.groupby(["n_jobs", "seed"]).size() == 5).all()


def test_fig3_matches_direct_checker_run(fig3) -> None:
    """A Fig. 3 row equals ``p.check`` of ``p.run`` on the regenerated instance."""
    _, _, df = fig3
    row = df[df["scheme"] == "drf"].iloc[-1]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("drf", inst))
    assert ev.objective == pytest.approx(row["utility"], rel=1e-12, abs=1e-12)


def test_fig4_lateness_only_for_completed_jobs(tmp_path: Path) -> None:
    """Fig. 4 has a lateness exactly for admitted jobs, and lateness + gamma3 lies in [0, T - 1]."""
    mod, _, df = _run("fig4_completion_timeliness", tmp_path)
    assert list(df.columns) == mod.COLUMNS
    assert set(df["kind"]) <= {"sensitive", "critical"}
    assert df.loc[df["admitted"], "lateness"].notna().all()
    assert df.loc[~df["admitted"], "lateness"].isna().all()
    # completion t_hat - a_i lies in [0, T - 1], so lateness + gamma3 does too
    dur = df.loc[df["admitted"], "lateness"] + df.loc[df["admitted"], "gamma3"]
    assert (dur >= -1e-9).all() and (dur <= df["n_slots"].max() - 1 + 1e-9).all()
    assert set(df["scheme"]) == set(optsched.get_paper("oasis").algorithms)


def test_fig5_proven_ratios_at_least_one(tmp_path: Path) -> None:
    """Fig. 5: every proven ratio OPT/OASiS is >= 1 (OPT >= OASiS) and intervals are ordered."""
    mod, _, df = _run("fig5_performance_ratio", tmp_path)
    assert list(df.columns) == mod.COLUMNS
    proven = df[df["kind"] == "proven"]
    assert len(proven) > 0
    assert (proven["opt_status"] == "optimal").all()
    assert (proven["ratio"] >= 1 - 1e-9).all()
    assert (proven["opt_objective"] >= proven["alg_objective"] - 1e-9).all()
    inter = df[df["kind"] == "interval"]
    assert (inter["ratio"].isna()).all()
    assert (inter["ratio_lo"] <= inter["ratio_hi"] + 1e-9).all()
    # Theorem 4: 2 alpha = 2 max(1, ln max_r U/L)
    expected = 2.0 * df["ln_max_ul"].clip(lower=1.0)
    assert df["two_alpha"].to_numpy() == pytest.approx(expected.to_numpy())
    assert (df["ln_max_ul"] >= 0).all()


def test_fig6_scale_one_is_plain_oasis(tmp_path: Path) -> None:
    """Fig. 6 runs every U/L scale on every instance, and scale 100% equals the default OASiS run."""
    mod, _, df = _run("fig6_ul_estimates", tmp_path)
    assert list(df.columns) == mod.COLUMNS
    assert sorted(df["ul_scale"].unique()) == sorted(mod.SCALES)
    assert (df.groupby(["n_slots", "n_jobs", "seed"]).size() == len(mod.SCALES)).all()
    assert (df["utility"] >= 0).all() and (
        df["utility"] <= df["sum_gamma1"] + 1e-9
    ).all()
    assert (df.loc[df["ul_scale"] == 1.0, "rel_to_actual"].dropna() == 1.0).all()
    row = df[df["ul_scale"] == 1.0].iloc[-1]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("oasis", inst))
    assert ev.objective == pytest.approx(row["utility"], rel=1e-12, abs=1e-12)
