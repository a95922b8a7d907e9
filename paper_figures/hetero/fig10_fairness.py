"""Fig. 10 of Liu et al. (TPDS 2024): fairness degree of the schemes' placements.

What the paper shows (Sec. VI-B1, Fig. 10): the fairness degree (33) of the
placements of Fig. 9 (Optimus, Optimus-LB, HAS, JPS ``N = 20, 40, 60``,
exhaustive search; ``S = 4``, ``K = 15`` and ``30``).  Claim: *under the
default settings with beta [= 1], the proposed HAS and JPS schemes only
focus on low JCT, incurring the fairness degree ranging from 0.779 to
0.829.*  No other bar height is given in the text.

What we do: exactly the runs of ``fig9_normalized_jct`` (its
:func:`run_instance`, loaded by path: same instances, settings ``h115`` /
``mix111``, 100 JPS rounds = sampler seeds 0..99, the optimum of
``p.solve_offline`` in place of exhaustive search), and for every placement
the fairness degree ``F`` (33) = Jain's index of ``Lambda_i /
Lambda_i^[e]``, with ``Lambda_i`` the *checker's* per-job JCT (7) and
``Lambda_i^[e]`` the equal-allocation JCT (32) as read in docs/hetero.md
(``optsched.hetero.online.fairness_degree``; per job, equal ``1/S`` share of
every worker).  ``F`` lies in ``[1/S, 1]``.

CSV: one row per instance x scheme (x JPS round), regenerable from
``setting``/``seed``/``n_jobs``/``n_workers`` (``fig9.make_instance``), with
``paper_fairness_lo``/``paper_fairness_hi`` (0.779/0.829) on the HAS and JPS
rows and ``in_paper_range``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from optsched.core.figures import write_outputs as _write_outputs


def _load_fig9() -> ModuleType:
    name = "_optsched_hetero_fig9_normalized_jct"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().with_name("fig9_normalized_jct.py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


FIG9 = _load_fig9()

NAME = "fig10_fairness"
COLUMNS = [
    "setting",
    "seed",
    "n_jobs",
    "n_workers",
    "heterogeneity_target",
    "heterogeneity",
    "gpu_counts",
    "jobs",
    "scheme",
    "algorithm",
    "n_samples",
    "jps_seed",
    "category",
    "avg_jct",
    "fairness",
    "opt_status",
    "paper_fairness_lo",
    "paper_fairness_hi",
    "in_paper_range",
    "alg_runtime_s",
]
#: "HAS and JPS ... fairness degree ranging from 0.779 to 0.829" (Sec. VI-B1).
PAPER_RANGE = (0.779, 0.829)
PAPER_SCHEMES = ("has", "jps_n20", "jps_n40", "jps_n60")


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "settings": ("h115",),
            "n_seeds": 1,
            "workers": (15,),
            "rounds": 3,
            "time_limit": 60.0,
        }
    return {
        "settings": FIG9.SETTINGS,
        "n_seeds": 5,
        "workers": (15, 30),
        "rounds": 100,
        "time_limit": 600.0,
    }


def _plot(df: pd.DataFrame) -> Figure:
    ks = sorted(df["n_workers"].unique())
    settings = [s for s in FIG9.SETTINGS if s in set(df["setting"])]
    schemes = [s for s in FIG9.SCHEMES if s in set(df["scheme"])]
    fig = Figure(figsize=(5.0 * len(ks), 4.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(ks), sharey=True))
    width = 0.8 / max(len(settings), 1)
    for ax, K in zip(axes, ks, strict=True):
        for j, setting in enumerate(settings):
            sub = df[(df["n_workers"] == K) & (df["setting"] == setting)]
            x0 = (j - (len(settings) - 1) / 2) * width
            for x, s in enumerate(schemes):
                v = sub.loc[sub["scheme"] == s, "fairness"].to_numpy()
                if not v.size:
                    continue
                ax.bar(
                    x + x0,
                    v.mean(),
                    width,
                    color=f"C{j}",
                    alpha=0.8,
                    label=(
                        {
                            "h115": "first S jobs, H = 1.15",
                            "mix111": "1:1:1 GPUs, random jobs",
                        }[setting]
                        if x == 0
                        else None
                    ),
                )
                ax.vlines(x + x0, v.min(), v.max(), color="k", lw=1.2)
        idx = [schemes.index(s) for s in PAPER_SCHEMES if s in schemes]
        ax.fill_between(
            [min(idx) - 0.45, max(idx) + 0.45],
            PAPER_RANGE[0],
            PAPER_RANGE[1],
            color="C3",
            alpha=0.2,
            label="paper: HAS, JPS 0.779-0.829",
        )
        ax.set_xticks(np.arange(len(schemes)), [FIG9.LABELS[s] for s in schemes])
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.set_ylim(1.0 / int(df["n_jobs"].max()), 1.0)
        ax.set_title(f"S = {int(df['n_jobs'].iloc[0])}, K = {int(K)}")
        ax.set_ylabel("fairness degree F (33)")
    axes[0].legend(fontsize=7, loc="upper right")
    fig.suptitle("Fig. 10: fairness degree (bars: mean; black: min-max)", fontsize=9)
    return fig


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    settings: tuple[str, ...] | None = None,
    n_seeds: int | None = None,
    rounds: int | None = None,
    time_limit: float | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 10 and write ``fig10_fairness.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: setting ``h115``, ``K = 15`` only, 3 JPS rounds.
    settings, n_seeds, rounds, time_limit, workers, progress
        As in ``fig9_normalized_jct.main`` (defaults: both settings, 5
        ``mix111`` seeds, 100 rounds, 600 s per optimum, all cores).

    Returns
    -------
    pandas.DataFrame
        One row per instance x scheme (x JPS round).
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    settings = tuple(cfg["settings"] if settings is None else settings)
    for s in settings:
        if s not in FIG9.SETTINGS:
            raise KeyError(f"unknown setting {s!r} (known: {', '.join(FIG9.SETTINGS)})")
    seeds = {
        "h115": [0],
        "mix111": list(range(cfg["n_seeds"] if n_seeds is None else n_seeds)),
    }
    tasks = FIG9.build_tasks(
        settings,
        seeds,
        [(4, K) for K in cfg["workers"]],
        rounds=cfg["rounds"] if rounds is None else rounds,
        jps_n=FIG9.JPS_N,
        time_limit=cfg["time_limit"] if time_limit is None else time_limit,
        quick=quick,
    )
    raw = FIG9.run_tasks(tasks, workers, progress, NAME)
    paper = raw["scheme"].isin(PAPER_SCHEMES)
    raw["paper_fairness_lo"] = np.where(paper, PAPER_RANGE[0], math.nan)
    raw["paper_fairness_hi"] = np.where(paper, PAPER_RANGE[1], math.nan)
    raw["in_paper_range"] = paper & raw["fairness"].between(*PAPER_RANGE)
    df = raw[COLUMNS].copy()
    fig = _plot(df)
    _write_outputs(out_dir, NAME, df, fig)
    summ = FIG9.summarize(df, "fairness")
    print(f"{NAME}: fairness degree (33) of the checked placements")
    for r in summ.itertuples(index=False):
        ptxt = (
            f"{PAPER_RANGE[0]}-{PAPER_RANGE[1]}"
            if r.scheme in PAPER_SCHEMES
            else "    -    "
        )
        share = df.loc[
            (df["setting"] == r.setting)
            & (df["n_workers"] == r.n_workers)
            & (df["scheme"] == r.scheme),
            "in_paper_range",
        ].mean()
        print(
            f"  {r.setting:6s} S={int(r.n_jobs)} K={int(r.n_workers):2d} "
            f"{FIG9.LABELS[r.scheme]:10s} paper {ptxt} | ours mean {r.mean:.3f} "
            f"(min {r.min:.3f}, max {r.max:.3f}, n={int(r.n)})"
            + (
                f", {share:.0%} in the paper's range"
                if r.scheme in PAPER_SCHEMES
                else ""
            )
        )
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke-test sizes")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/hetero"), help="output dir"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes")
    parser.add_argument("--seeds", type=int, default=None, help="mix111 instances")
    parser.add_argument("--rounds", type=int, default=None, help="JPS rounds per N")
    parser.add_argument("--time-limit", type=float, default=None, help="s per solve")
    parser.add_argument(
        "--settings", nargs="+", default=None, choices=FIG9.SETTINGS, help="instances"
    )
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        settings=None if args.settings is None else tuple(args.settings),
        n_seeds=args.seeds,
        rounds=args.rounds,
        time_limit=args.time_limit,
        workers=args.workers,
    )
