"""Tests of the OASiS figures (``optsched.oasis.experiments`` and the specs of Figs. 3-6)."""

from __future__ import annotations

import dataclasses
import importlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import optsched
from optsched.core import experiment
from optsched.oasis import experiments as ex

NAMES = (
    "fig3_total_utility",
    "fig4_completion_timeliness",
    "fig5_performance_ratio",
    "fig6_ul_estimates",
)
#: the five schemes of Figs. 3-4 (the registry also holds the issue-13 variants)
ALGORITHMS = {"oasis", *ex.BASELINES}
TOL = 1e-9


def _spec(name: str) -> experiment.Experiment:
    return experiment.specs()[name]


def _csv(quick_run, name: str) -> pd.DataFrame:
    """The quick run's CSV as written (so every test reads what a user would)."""
    return pd.read_csv(quick_run(name).paths[f"{name}.csv"])


def _claims(quick_run, name: str) -> pd.DataFrame:
    return quick_run(name).claims.set_index("claim")


def _regenerate(row: pd.Series, **kw):
    """A row's instance from its documented columns (``H``, ``K`` as written)."""
    p = optsched.get_paper("oasis")
    inst = p.generate(
        seed=int(row["seed"]),
        n_jobs=int(row["n_jobs"]),
        n_slots=int(row["n_slots"]),
        n_worker_servers=int(row["n_worker_servers"]),
        n_ps_servers=int(row["n_ps_servers"]),
        **kw,
    )
    return p, inst


# ------------------------------------------------------------------ specs
def test_specs_are_declarative_modules() -> None:
    """Each figure is an installed module with only a docstring and SPEC (no script entry point)."""
    for name in NAMES:
        mod = importlib.import_module(f"optsched.figures.oasis.{name}")
        assert mod.SPEC is _spec(name) and mod.SPEC.doc == mod.__doc__
        assert not hasattr(mod, "main")
        src = Path(mod.__file__).read_text()
        assert "argparse" not in src and "__main__" not in src
        assert "core.figures" not in src
        assert mod.SPEC.task.__module__ == "optsched.oasis.experiments"


def test_docstrings_keep_the_paper_claims() -> None:
    """The specs quote the paper's claim of their figure."""
    quotes = {
        "fig3_total_utility": "OASiS performs the best, especially when the number",
        "fig4_completion_timeliness": "is the closest to zero for both types",
        "fig6_ul_estimates": "underestimation gives a higher total utility than",
    }
    for name, quote in quotes.items():
        assert quote in " ".join(_spec(name).doc.split()), name


def test_full_grids_are_the_old_full_runs() -> None:
    """The full grids hold the old scripts' full task sets (sizes, seeds, schemes, order)."""
    tasks = _spec("fig3_total_utility").tasks()
    fig3 = [t for t in tasks if t["servers_per_side"] == 10]
    assert [(t["n_jobs"], t["scheme"], t["seed"]) for t in fig3] == [
        (n, s, seed)
        for n in (200, 100, 50, 25)
        for s in ("oasis", "fifo", "drf", "rrh", "dorm")
        for seed in range(5)
    ]
    assert {t["n_slots"] for t in fig3} == {300}
    # the paper's 50 + 50 servers: 2 seeds, Dorm at 170 jobs only
    big = [t for t in tasks if t["servers_per_side"] == 50]
    assert len(big) + len(fig3) == len(tasks)
    assert [(t["n_jobs"], t["scheme"], t["seed"]) for t in big] == [
        (n, s, seed)
        for n in (1200, 600, 340, 170)
        for s in ("oasis", "fifo", "drf", "rrh", "dorm")
        for seed in range(2)
    ]
    assert {(t["n_slots"], t["dorm_max_jobs"]) for t in big} == {(300, 170)}
    fig4 = _spec("fig4_completion_timeliness").tasks()
    assert [(t["scheme"], t["seed"]) for t in fig4] == [
        (s, seed) for s in ("dorm", "oasis", "fifo", "drf", "rrh") for seed in range(3)
    ]
    assert {
        (t["n_jobs"], t["n_slots"], t["servers_per_side"], t["job_mix"]) for t in fig4
    } == {(200, 100, 50, (0.0, 0.5, 0.5))}
    fig6 = _spec("fig6_ul_estimates").tasks()
    assert [(t["n_slots"], t["n_jobs"], t["resources"], t["seed"]) for t in fig6] == [
        (300, n, r, seed)
        for n, r in ((50, "abundant"), (200, "medium"), (400, "scarce"))
        for seed in range(5)
    ]
    assert {(t["servers_per_side"], t["scales"]) for t in fig6} == {
        (20, (0.25, 0.5, 1.0, 2.0, 4.0))
    }


def test_instance_size_splits_servers_and_passes_generator_keys() -> None:
    """``instance_size`` gives ``H = K`` and forwards only the generator's own keys."""
    task = {"seed": 3, "n_jobs": 7, "n_slots": 9, "servers_per_side": 4}
    assert ex.instance_size({**task, "scheme": "drf"}) == {
        "n_jobs": 7,
        "n_slots": 9,
        "n_worker_servers": 4,
        "n_ps_servers": 4,
    }
    assert ex.instance_size({**task, "job_mix": ex.JOB_MIX})["job_mix"] == (
        0.0,
        0.5,
        0.5,
    )


def test_failed_run_writes_nothing(tmp_path: Path) -> None:
    """A run that fails during computation leaves no CSV, PNG or temp file behind."""
    spec = _spec("fig3_total_utility")
    bad = dataclasses.replace(
        spec,
        quick={**spec.quick[0], "n_jobs": 4, "scheme": ["oasis", "no_such_scheme"]},
    )
    with pytest.raises(KeyError, match="no_such_scheme"):
        experiment.run(
            bad, quick=True, out=tmp_path, workers=1, progress=False, echo=False
        )
    assert not tmp_path.exists() or not list(tmp_path.iterdir())


# ------------------------------------------------------------------ Fig. 3
def test_fig3_utilities_within_bounds(quick_run) -> None:
    """Fig. 3 covers all five schemes and every utility lies in [0, sum of gamma1]."""
    both = _csv(quick_run, "fig3_total_utility")
    assert list(both.columns) == ex.FIG3_COLUMNS
    assert (both["utility"] >= 0).all()
    assert (both["utility"] <= both["sum_gamma1"] + TOL).all()
    assert (both["n_admitted"] <= both["n_jobs"]).all()
    # the paper-size part (3 + 3 servers in the quick grid) runs Dorm at 5 jobs only
    big = both[both["n_worker_servers"] == 3]
    assert set(big.loc[big["n_jobs"] == 10, "scheme"]) == ALGORITHMS - {"dorm"}
    assert set(big.loc[big["n_jobs"] == 5, "scheme"]) == ALGORITHMS
    df = both[both["n_worker_servers"] == 2]
    assert len(df) + len(big) == len(both)
    assert set(df["scheme"]) == ALGORITHMS
    assert (df.groupby(["n_jobs", "seed"]).size() == 5).all()
    # only Dorm solves MILPs: its limit hits are counted, the others' are NaN
    assert df.loc[df["scheme"] == "dorm", "solver_limit_hits"].notna().all()
    assert df.loc[df["scheme"] != "dorm", "solver_limit_hits"].isna().all()


def test_fig3_matches_direct_checker_run(quick_run) -> None:
    """A Fig. 3 row equals ``p.check`` of ``p.run`` on the regenerated instance."""
    df = _csv(quick_run, "fig3_total_utility")
    row = df[df["scheme"] == "drf"].iloc[-1]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("drf", inst))
    assert ev.objective == pytest.approx(row["utility"], rel=1e-12, abs=1e-12)
    assert ev.n_admitted == row["n_admitted"]
    assert sum(j.gamma1 for j in inst.jobs) == pytest.approx(row["sum_gamma1"])


def test_fig3_load_bounds_what_any_scheme_completes(quick_run) -> None:
    """The admitted jobs' worker demand fits the horizon, so load > 1 forces rejections."""
    df = _csv(quick_run, "fig3_total_utility")
    df = df[df["n_worker_servers"] == 2]
    assert (df["load"] > 1).all()  # the quick sizes are scarce
    assert (df["n_admitted"] < df["n_jobs"]).all()
    row = df[(df["scheme"] == "oasis") & (df["n_jobs"] == 12)].iloc[0]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("oasis", inst))
    cap = inst.n_slots * inst.c_worker.sum(axis=0)
    dem_all = sum(inst.work[i] * inst.w[i] for i in range(inst.n_jobs))
    dem_done = sum(inst.work[i] * inst.w[i] for i in np.flatnonzero(ev.admitted))
    assert row["load"] == pytest.approx(max(dem_all[cap > 0] / cap[cap > 0]))
    assert (dem_done <= cap + TOL).all()


def test_fig3_claims_from_the_csv(quick_run) -> None:
    """The claims' OASiS / best baseline is the CSV's mean utilities' ratio (README: 1.53, 0.39)."""
    both = _csv(quick_run, "fig3_total_utility")
    df = both[both["n_worker_servers"] == 2]
    means = df.groupby(["n_jobs", "scheme"])["utility"].mean().unstack()
    ratio = means["oasis"] / means.drop(columns="oasis").max(axis=1)
    # README, quick run: 4 jobs OASiS 40.4 vs RRH 26.5; 12 jobs RRH 127.5, OASiS 50.2
    assert means.loc[4, ["oasis", "rrh"]].tolist() == pytest.approx(
        [40.45, 26.52], abs=0.01
    )
    assert means.loc[12, ["rrh", "oasis"]].tolist() == pytest.approx(
        [127.53, 50.22], abs=0.01
    )
    assert means.loc[12].drop("oasis").idxmax() == "rrh"
    claims = _claims(quick_run, "fig3_total_utility")
    best = claims.iloc[0]
    assert (
        best["ours"] == f"4 jobs: {ratio[4]:.2f} (RRH); 12 jobs: {ratio[12]:.2f} (RRH)"
    )
    assert best["status"] == "not reproduced"  # 0.39 at 12 jobs
    trend = claims.iloc[1]
    assert float(trend["ours"]) == pytest.approx(ratio[12] - ratio[4], abs=0.005)
    assert trend["status"] == "not reproduced"
    loads = df.groupby("n_jobs")["load"].mean()
    assert claims.iloc[2]["ours"] == f"4 jobs: {loads[4]:.2f}; 12 jobs: {loads[12]:.2f}"
    # the same claims on the paper-size part: its rows only (Dorm missing at 10 jobs)
    big = both[both["n_worker_servers"] == 3]
    m = big.groupby(["n_jobs", "scheme"])["utility"].mean().unstack()
    r = m["oasis"] / m.drop(columns="oasis").max(axis=1)
    paper = claims.iloc[3]
    assert paper.name.startswith("at the paper's 50 + 50 servers")
    assert paper["ours"].startswith(f"5 jobs: {r[5]:.2f} (") and (
        f"10 jobs: {r[10]:.2f} (" in paper["ours"]
    )
    assert float(claims.iloc[4]["ours"]) == pytest.approx(r[10] - r[5], abs=0.005)


# ------------------------------------------------------------------ Fig. 4
def test_fig4_lateness_only_for_completed_jobs(quick_run) -> None:
    """Fig. 4 has a lateness exactly for admitted jobs, and lateness + gamma3 lies in [0, T - 1]."""
    df = _csv(quick_run, "fig4_completion_timeliness")
    assert list(df.columns) == ex.FIG4_COLUMNS
    assert set(df["kind"]) <= {"sensitive", "critical"}
    assert df.loc[df["admitted"], "lateness"].notna().all()
    assert df.loc[~df["admitted"], "lateness"].isna().all()
    # completion t_hat - a_i lies in [0, T - 1], so lateness + gamma3 does too
    dur = df.loc[df["admitted"], "lateness"] + df.loc[df["admitted"], "gamma3"]
    assert (dur >= -TOL).all() and (dur <= df["n_slots"].max() - 1 + TOL).all()
    assert set(df["scheme"]) == ALGORITHMS
    assert (df.groupby(["seed", "scheme"]).size() == 16).all()
    assert (df.loc[~df["admitted"], "utility"] == 0).all()


def test_fig4_matches_direct_checker_run(quick_run) -> None:
    """Fig. 4's rows of one run equal the checker's lateness on the regenerated instance."""
    df = _csv(quick_run, "fig4_completion_timeliness")
    rows = df[(df["scheme"] == "oasis") & (df["seed"] == 1)].sort_values("job")
    p, inst = _regenerate(rows.iloc[0], job_mix=(0.0, 0.5, 0.5))
    ev = p.check(inst, p.run("oasis", inst))
    assert [j.kind for j in inst.jobs] == list(rows["kind"])
    np.testing.assert_allclose(rows["lateness"], ev.lateness, rtol=1e-12)
    np.testing.assert_array_equal(rows["admitted"], ev.admitted.astype(bool))


def _lateness_rows(
    spec: dict[tuple[str, str], tuple[list[float], int]],
) -> pd.DataFrame:
    """Rows of Fig. 4 from ``(kind, scheme) -> (latenesses of completed jobs, rejected)``."""
    rows = []
    for (kind, scheme), (late, rejected) in spec.items():
        rows += [
            {"kind": kind, "scheme": scheme, "admitted": True, "lateness": x}
            for x in late
        ]
        rows += [
            {"kind": kind, "scheme": scheme, "admitted": False, "lateness": math.nan}
        ] * rejected
    return pd.DataFrame(rows)


def test_lateness_ranks_known_answers() -> None:
    """Best is the smallest |statistic|; ``min_relative`` drops schemes that complete too few jobs."""
    df = _lateness_rows(
        {
            ("critical", "oasis"): ([-1.0, 1.0, 2.0, 4.0], 0),  # median 1.5, std 2.2174
            ("critical", "rrh"): ([0.0, 1.0], 2),  # median 0.5, std 0.7071
            ("critical", "fifo"): ([-3.0, -2.0, 0.0, 5.0], 0),  # median -1, std 3.5590
            ("sensitive", "oasis"): ([0.0, 0.0, 1.0], 0),  # median 0, std 0.5774
            ("sensitive", "rrh"): ([7.0], 2),  # median 7, std NaN
            ("sensitive", "fifo"): ([], 3),  # nothing completed
        }
    )
    med = ex.lateness_ranks(df, "median")
    assert [(r.kind, r.other, r.other_value) for r in med.ranks] == [
        ("critical", "rrh", 0.5),
        ("sensitive", "rrh", 7.0),
    ]
    assert [r.oasis_best for r in med.ranks] == [False, True] and not med.oasis_best
    assert str(med.ranks[0]) == "critical: OASiS 1.50 (4/4) vs RRH 0.50 (2/4)"
    std = ex.lateness_ranks(df, "std")
    assert std.ranks[0].other == "rrh" and not std.oasis_best
    assert std.ranks[1].other is None  # RRH's single job has no std, FIFO none at all
    fair = ex.lateness_ranks(df, "std", min_relative=0.9)
    assert fair.ranks[0].other == "fifo"  # RRH completed 2 < 0.9 x 4
    assert fair.ranks[0].oasis == pytest.approx(np.std([-1, 1, 2, 4], ddof=1))
    assert fair.oasis_best
    assert "no other scheme" in str(fair.ranks[1])


def test_fig4_claims(quick_run) -> None:
    """The completed-jobs claim counts the CSV's admitted jobs; statuses recomputed by hand.

    Closest to zero / smallest spread: OASiS's |statistic| at most every other
    scheme's on both job types (``reproduced``, else ``not reproduced``); the
    spread restricted to schemes completing >= 90% as many jobs as OASiS is a
    ``reading``; the completed jobs are context (``no claim``).
    """
    df = _csv(quick_run, "fig4_completion_timeliness")
    claims = _claims(quick_run, "fig4_completion_timeliness")
    done = claims.iloc[3]["ours"]
    for kind in ("critical", "sensitive"):
        sub = df[(df["kind"] == kind) & (df["scheme"] == "oasis")]
        assert f"OASiS {int(sub['admitted'].sum())}/{len(sub)}" in done
    done = df[df["admitted"] & (df["scheme"] == "oasis")]
    med = done.groupby("kind")["lateness"].median()
    closest = claims.iloc[0]["ours"]
    assert f"critical: OASiS {med['critical']:.2f} (" in closest
    assert f"sensitive: OASiS {med['sensitive']:.2f} (" in closest

    def best(stat: str, min_relative: float) -> bool:
        late = df[df["admitted"]]
        for kind in ("critical", "sensitive"):
            mine = late[(late["kind"] == kind) & (late["scheme"] == "oasis")]
            value = abs(getattr(mine["lateness"], stat)())
            for s in ex.BASELINES:
                other = late[(late["kind"] == kind) & (late["scheme"] == s)]
                x = getattr(other["lateness"], stat)()
                if len(other) >= min_relative * len(mine) and not np.isnan(x):
                    if abs(x) < value:
                        return False
        return True

    verdict = {True: "reproduced", False: "not reproduced"}
    assert claims.iloc[0]["status"] == verdict[best("median", 0.0)]
    assert claims.iloc[1]["status"] == verdict[best("std", 0.0)]
    assert claims.iloc[2]["status"] == (
        "reading" if best("std", 0.9) else "not reproduced"
    )
    assert claims.iloc[2]["note"].startswith("reading: ")
    assert claims.iloc[3]["status"] == "no claim"


# ------------------------------------------------------------------ Fig. 5
def test_fig5_proven_ratios_at_least_one(quick_run) -> None:
    """Fig. 5: every proven ratio OPT/OASiS is >= 1 (OPT >= OASiS) and intervals are ordered."""
    df = _csv(quick_run, "fig5_performance_ratio")
    assert list(df.columns) == ex.FIG5_COLUMNS
    proven = df[df["kind"] == "proven"]
    assert len(proven) > 0
    assert (proven["opt_status"] == "optimal").all()
    assert (proven["ratio"] >= 1 - TOL).all()
    assert (proven["opt_objective"] >= proven["alg_objective"] - TOL).all()
    inter = df[df["kind"] == "interval"]
    assert (inter["ratio"].isna()).all()
    assert (inter["ratio_lo"] <= inter["ratio_hi"] + TOL).all()
    # Theorem 4: 2 alpha = 2 max(1, ln max_r U/L)
    expected = 2.0 * df["ln_max_ul"].clip(lower=1.0)
    assert df["two_alpha"].to_numpy() == pytest.approx(expected.to_numpy())
    assert (df["ln_max_ul"] >= 0).all()


def test_fig5_claims_from_the_csv(quick_run) -> None:
    """Fig. 5's claims recomputed from the CSV; statuses follow the stated tolerances.

    The band 1.1-1.5 is applied as printed; "no clear trend" per factor holds
    when the medians per value differ by at most 10% of the smallest.
    """
    df = _csv(quick_run, "fig5_performance_ratio")
    claims = _claims(quick_run, "fig5_performance_ratio")
    proven = df[df["kind"] == "proven"]
    med = proven["ratio"].median()
    assert claims.iloc[0]["ours"] == f"{med:.3f}"
    band = {True: "reproduced", False: "not reproduced"}
    assert claims.iloc[0]["status"] == band[1.1 <= med <= 1.5]
    assert claims.iloc[3]["status"] == "no claim"
    for row, column in ((4, "n_servers"), (5, "gamma1_hi")):
        m = proven.groupby(column)["ratio"].median()
        assert len(m) == 2  # the quick grid: two values per factor
        flat = (m.max() - m.min()) <= 0.10 * m.min()
        # two values are always monotone: flat, or not reproduced
        assert claims.iloc[row]["status"] == band[flat]
        assert claims.iloc[row]["ours"].count(":") == 2


def test_no_trend_claim_statuses_by_hand() -> None:
    """The "no clear trend" claim on the recorded full run's medians and on made-up ones.

    Recorded (paper_figures/claims/oasis/fig5_performance_ratio.claims.csv):
    4: 1.68, 8: 1.38, 16: 1.56 servers: 22% apart (> 10%) and not monotone,
    so ``trend only``; a monotone rise of 30% is ``not reproduced``; medians
    within 10% are ``reproduced``, one value alone is no evidence.
    """
    claim = _spec("fig5_performance_ratio").claims[4]
    assert "number of servers" in claim.text

    def cases(*values: float) -> ex.Cases:
        return ex.Cases(tuple((f"{k}", v, "") for k, v in enumerate(values)))

    assert claim.status(cases(1.68, 1.38, 1.56)) == "trend only"
    assert claim.status(cases(1.2, 1.4, 1.56)) == "not reproduced"
    assert claim.status(cases(1.50, 1.40, 1.45)) == "reproduced"  # 7.1% apart
    assert claim.status(cases(1.5)) == "not reproduced"
    assert ex.flat(cases(1.0, 1.09)) and not ex.flat(cases(1.0, 1.11))
    assert ex.no_direction(cases(1.0, 2.0, 1.5)) and not ex.no_direction(
        cases(1.0, 1.0, 2.0)
    )
    rows = pd.DataFrame(
        {
            "kind": ["proven", "proven", "proven", "interval", "proven"],
            "ratio": [1.2, 1.4, 2.0, np.nan, np.inf],
            "n_servers": [4, 4, 8, 8, 8],
        }
    )
    got = ex.median_ratio_per(rows, "n_servers")
    assert str(got) == "4 servers: 1.30; 8 servers: 2.00"


def test_variant_claims_carry_their_reading(quick_run) -> None:
    """Claims of a non-literal variant are evaluated under its named reading.

    Theorem 4's bound is a claim only where the variant keeps its proof
    (``oasis``, ``oasis_lfloor``); elsewhere the shares are context.
    """
    for name, per in (("oasis_variants_fig5", 4), ("oasis_variants_fig3", 2)):
        claims = quick_run(name).claims
        for k, v in enumerate(ex.VARIANT_NAMES):
            mine = claims.iloc[per * k : per * (k + 1)]
            assert all(c.startswith(ex.LABELS[v]) for c in mine["claim"])
            for _, c in mine.iterrows():
                if c["paper"] == "-":
                    assert c["status"] == "no claim"
                elif v == "oasis":
                    assert c["status"] in {"reproduced", "not reproduced", "trend only"}
                else:
                    assert c["note"] == f"reading: {ex.READINGS[v]}"
                    assert c["status"] in {"reading", "not reproduced", "trend only"}
            if name == "oasis_variants_fig5":
                theorem4 = mine.iloc[2]
                assert (theorem4["paper"] != "-") == ex.CLAIMS_THEOREM4[v]


@pytest.mark.parametrize(
    "name", [*NAMES, "oasis_variants_fig3", "oasis_variants_fig5", "oasis_fig5_50_jobs"]
)
def test_quick_runs_give_a_status_of_the_vocabulary(quick_run, name: str) -> None:
    """Every claim is evaluated on the CSV form without error, with a defined status."""
    claims = quick_run(name).claims
    assert set(claims["status"]) <= set(experiment.STATUSES) - {"error", "stale"}
    assert not claims["ours"].str.startswith("n/a (").any()
    assert "see notes" not in set(claims["status"])


# ------------------------------------------------------------------ Fig. 6
def test_fig6_scale_one_is_plain_oasis(quick_run) -> None:
    """Fig. 6 runs every U/L scale on every instance, and scale 100% equals the default OASiS run."""
    df = _csv(quick_run, "fig6_ul_estimates")
    assert list(df.columns) == ex.FIG6_COLUMNS
    assert sorted(df["ul_scale"].unique()) == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert (df.groupby(["n_slots", "n_jobs", "seed"]).size() == 5).all()
    assert (df["utility"] >= 0).all()
    assert (df["utility"] <= df["sum_gamma1"] + TOL).all()
    assert (df.loc[df["ul_scale"] == 1.0, "rel_to_actual"].dropna() == 1.0).all()
    row = df[df["ul_scale"] == 1.0].iloc[-1]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("oasis", inst))
    assert ev.objective == pytest.approx(row["utility"], rel=1e-12, abs=1e-12)


def test_fig6_ln_ul_dwarfs_the_estimate_factor(quick_run) -> None:
    """The docstring's reading: ``ln 4`` is a small share of ``ln max_r U/L`` (prices barely move)."""
    df = _csv(quick_run, "fig6_ul_estimates")
    assert (math.log(4.0) / df["ln_max_ul"] < 0.02).all()
    claims = _claims(quick_run, "fig6_ul_estimates")
    change = claims.loc[
        "largest change of utility vs exact U/L (any estimate, instance)"
    ]
    rel = df["rel_to_actual"].dropna()
    assert float(change["ours"].rstrip("%")) == pytest.approx(
        100 * (rel - 1).abs().max(), abs=0.005
    )


def test_add_relative_and_under_minus_over_known_answers() -> None:
    """Paired change per instance (NaN when the exact utility is 0) and the under - over summary."""
    base = {"n_slots": 10, "resources": "scarce", "sum_gamma1": 1.0, "load": 2.0}
    utils = {  # (n_jobs, seed) -> utility per scale 0.25 .. 4
        (5, 0): [12.0, 10.0, 10.0, 9.0, 7.0],  # under 11, over 8: +30% of 10
        (5, 1): [4.0, 4.0, 5.0, 6.0, 6.0],  # under 4, over 6: -40% of 5
        (5, 2): [1.0, 1.0, 0.0, 1.0, 1.0],  # exact 0: no relative change
    }
    rows = [
        {
            **base,
            "n_jobs": n,
            "seed": s,
            "ul_scale": x,
            "utility": u,
            "ln_max_ul": 100.0,
        }
        for (n, s), us in utils.items()
        for x, u in zip(ex.SCALES, us, strict=True)
    ]
    df = ex.add_relative(pd.DataFrame(rows))
    rel = df.set_index(["seed", "ul_scale"])["rel_to_actual"]
    assert rel[(0, 0.25)] == pytest.approx(1.2) and rel[(1, 4.0)] == pytest.approx(1.2)
    assert rel.loc[2].isna().all()
    s = ex.summarize_ul_estimates(df).iloc[0]
    assert s["under-over_%"] == pytest.approx((30.0 - 40.0) / 2)  # seed 2 has no base
    assert s["seeds_under>over"] == 1 and s["seeds"] == 3
    assert s["100%"] == pytest.approx(5.0)
    cases = ex.under_minus_over(df, "scarce")
    assert cases.values == [pytest.approx(-5.0)]
    assert str(cases) == "5 jobs (scarce): -5.00% (1/3 seeds with under > over)"
    assert ex.max_change(df) == pytest.approx(30.0)


# ------------------------------------------------- issue 13: variant specs
def test_variant_fig5_rows_match_direct_recomputation(quick_run) -> None:
    """An ``oasis_variants_fig5`` row equals a direct run: checker utility, solve, certificate."""
    from optsched.oasis.duality import certificate

    df = _csv(quick_run, "oasis_variants_fig5")
    assert list(df.columns) == ex.FIG5_VARIANT_COLUMNS
    assert sorted(df["variant"]) == sorted(ex.VARIANT_NAMES)
    assert df["opt_le_d_exact"].all()  # weak duality can not fail
    row = df[df["variant"] == "oasis_lfloor"].iloc[0]
    p, inst = _regenerate(row, gamma1_range=(row["gamma1_lo"], row["gamma1_hi"]))
    sched = p.run("oasis_lfloor", inst)
    ev = p.check(inst, sched)
    opt = p.solve_offline(inst, time_limit=10.0)
    assert opt.status == "optimal" and row["kind"] == "proven"
    assert row["ratio"] == pytest.approx(opt.objective / ev.objective, rel=1e-6)
    cert = certificate(inst, sched)
    assert row["d_exact"] == pytest.approx(cert.d_exact, rel=1e-9)
    assert bool(row["dual_feasible"]) == cert.dual_feasible
    assert row["max_share"] == pytest.approx(ex.max_share(inst, sched))


def test_variant_fig3_rows_match_checker_and_ranks(quick_run) -> None:
    """``oasis_variants_fig3``: every scheme per instance, utilities from the checker, ranks recomputed."""
    name = "oasis_variants_fig3"
    df = _csv(quick_run, name)
    assert set(df["scheme"]) == {*ex.VARIANT_NAMES, *ex.BASELINES}
    assert (df.groupby(["n_jobs", "seed"]).size() == len(ex.VARIANT_NAMES) + 4).all()
    row = df[df["scheme"] == "oasis_per_class"].iloc[-1]
    p, inst = _regenerate(row)
    ev = p.check(inst, p.run("oasis_per_class", inst))
    assert ev.objective == pytest.approx(row["utility"], rel=1e-12, abs=1e-12)
    # the claim's share and rank, recomputed from the CSV by hand
    means = df.groupby(["n_jobs", "scheme"])["utility"].mean().unstack()
    n = means.index.max()
    best = means.loc[n, list(ex.BASELINES)].max()
    share = means.loc[n, "oasis_lfloor"] / best
    rank = 1 + int(
        (means.loc[n, list(ex.BASELINES)] > means.loc[n, "oasis_lfloor"]).sum()
    )
    claim = _claims(quick_run, name).iloc[2]["ours"]
    assert f"{n} jobs: {share:.2f} (best baseline" in claim
    assert f"rank {rank}/5" in claim


# ------------------------------------------------- issue 26: Fig. 5 at 50 jobs
def _fig5_50():
    return importlib.import_module("optsched.figures.oasis.oasis_fig5_50_jobs")


def test_fig5_50_jobs_row_matches_a_direct_solve(quick_run) -> None:
    """``oasis_fig5_50_jobs``: 50 jobs, OASiS re-checked, the optimum re-proven directly."""
    df = _csv(quick_run, "oasis_fig5_50_jobs")
    assert list(df.columns) == ex.FIG5_COLUMNS
    assert (df["n_jobs"] == 50).all() and (df["n_slots"] == 10).all()
    row = df.iloc[0]
    p, inst = _regenerate(row, gamma1_range=(row["gamma1_lo"], row["gamma1_hi"]))
    ev = p.check(inst, p.run("oasis", inst))
    assert ev.objective == pytest.approx(row["alg_objective"], rel=1e-12)
    # the quick instance (2 + 2 servers) is proven well within its 10 s
    opt = p.solve_offline(inst, time_limit=60.0)
    assert opt.status == "optimal" and row["kind"] == "proven"
    assert row["opt_objective"] == pytest.approx(opt.objective, rel=1e-9)
    assert row["ratio"] == pytest.approx(opt.objective / ev.objective, rel=1e-9)
    claims = _claims(quick_run, "oasis_fig5_50_jobs")
    assert list(claims["status"]) == [
        "no claim",
        "no claim",
        "not comparable",
        "reproduced" if row["ratio"] <= row["two_alpha"] else "not reproduced",
    ]


def test_fig5_50_jobs_claims_by_hand() -> None:
    """Widths and Theorem 4's three-way count on made-up rows, computed by hand.

    Rows: proven 1.2 (2 alpha 3), interval [2.0, 2.2] with bound / incumbent
    = 110 / 100 (within 3), interval [3.5, 4.0] (above 3: a certified
    violation), interval [2.5, 3.5] with 2 alpha 3 (undecided).
    """
    mod = _fig5_50()
    df = pd.DataFrame(
        {
            "kind": ["proven", "interval", "interval", "interval"],
            "ratio": [1.2, np.nan, np.nan, np.nan],
            "ratio_lo": [1.2, 2.0, 3.5, 2.5],
            "ratio_hi": [1.2, 2.2, 4.0, 3.5],
            "two_alpha": [3.0, 3.0, 3.0, 3.0],
            "opt_objective": [12.0, 100.0, 35.0, 25.0],
            "opt_bound": [12.0, 110.0, 40.0, 35.0],
            "n_servers": [4, 4, 16, 16],
            "gamma1_hi": [10.0, 10.0, 50.0, 100.0],
            "seed": [0, 1, 0, 3],
        }
    )
    assert list(mod.widths(df)) == pytest.approx([0.0, 0.10, 40 / 35 - 1, 0.40])
    assert mod.width_summary(df) == (
        "widest 40.0% (16 servers, gamma1 <= 100, seed 3); 3 of 4 above 5%; 1 proven"
    )
    assert mod.widest_per_servers(df) == (
        "4 servers: 10.0% (1/2 proven); 16 servers: 40.0% (0/2 proven)"
    )
    assert mod.theorem4(df) == "50% within / 25% above / 25% undecided"
    claim = mod.SPEC.claims[3]
    assert claim.status(mod.theorem4(df)) == "not reproduced"
    assert claim.status(mod.theorem4(df.iloc[:2])) == "reproduced"
    assert mod.ratio_medians(df) == "median in [2.250, 2.850]"
    # a row without incumbent (no_opt: NaN objective) is infinitely wide
    nan = df.iloc[:2].copy()
    nan.loc[1, ["kind", "opt_objective"]] = ["no_opt", np.nan]
    assert list(mod.widths(nan)) == [0.0, np.inf]
    assert mod.width_summary(nan).startswith(
        "widest inf% (4 servers, gamma1 <= 10, seed 1)"
    )
    assert "1 of 2 above 5%" in mod.width_summary(nan)


def test_fig5_50_jobs_grid_is_fig5_grid_with_a_limit_per_server_count() -> None:
    """The grid split by servers per side still covers Fig. 5's cells once each.

    Every (servers, gamma1 range, seed 0-4) of Fig. 5's grid appears exactly
    once, at 50 jobs and 10 slots, with the time limit of its server count;
    the longest cell comes first (the runner hands out tasks in grid order).
    """
    mod = _fig5_50()
    fig5 = importlib.import_module("optsched.figures.oasis.fig5_performance_ratio")
    tasks = mod.SPEC.tasks()
    cells = [(t["servers_per_side"], t["gamma1_range"], t["seed"]) for t in tasks]
    expected = {
        (h, g, s)
        for h in fig5.SPEC.grid["servers_per_side"]
        for g in fig5.SPEC.grid["gamma1_range"]
        for s in range(5)
    }
    assert len(cells) == len(set(cells)) and set(cells) == expected
    assert all(t["n_jobs"] == 50 and t["n_slots"] == 10 for t in tasks)
    assert all(t["time_limit"] == mod.TIME_LIMITS[t["servers_per_side"]] for t in tasks)
    assert tasks[0]["time_limit"] == max(mod.TIME_LIMITS.values())
