"""Fig. 11 of Liu et al. (TPDS 2024): average JCT vs the number of jobs S.

What the paper shows (Sec. VI-B1, "Impact of S", Fig. 11): the average JCT
(8) of Optimus, Optimus-LB, HAS, JPS and exhaustive search for ``S = 3, 4,
5`` jobs on ``K = 15`` workers.  Claims: *compared with Optimus-LB, JPS (N =
60) incurs lower JCT ranging from 9.38% to 14.5%*; *compared with exhaustive
search, JPS (N = 60) incurs performance loss ranging from 0.53% to 5.68%*.
No JCT value in seconds is given in the text.

What we do: the runs of ``fig9_normalized_jct`` (its :func:`run_instance`,
loaded by path) at ``K = 15`` for ``S = 3, 4, 5``: every placement checked by
``p.check`` (the figure uses the checker's average JCT in seconds), the
certified optimum of ``p.solve_offline`` in place of exhaustive search
(``opt_status`` recorded; a ratio to it is NaN unless proven), JPS ``N = 20,
40, 60`` over 100 rounds (sampler seeds 0..99, plotted as the mean).

Readings and choices
--------------------
* Instances as in Fig. 9: setting ``h115`` = the first ``S`` jobs of Table
  III (S = 3: ResNet-101, ResNet-18, VGG-19; S = 5: all five) with GPU counts
  for ``H = 1.15``; setting ``mix111`` = 1:1:1 GPUs and ``S`` random distinct
  Table III jobs (seeds 0..4; at ``S = 5`` every seed draws the same five
  jobs, only their order differs).  Our H = 1.15 counts differ per ``S``
  (13/0/2, 8/5/2, 10/2/3 T4/P100/V100 for S = 3, 4, 5) because (35) depends
  on the jobs.
* The paper's two claims are compared per ``S`` on the mean JCT of JPS
  ``N = 60`` over the rounds: ``1 - JPS / Optimus-LB`` and ``JPS / OPT - 1``
  (``mix111``: averaged over the seeds' instances).

CSV: the columns of Fig. 9 (one row per instance x scheme x JPS round;
``setting``/``seed``/``n_jobs``/``n_workers`` regenerate the instance with
``fig9.make_instance``; ``paper_normalized`` is only filled where Fig. 9's
text gives a value, i.e. for ``S = 4``).  The paper's Fig. 11 ranges are
printed beside ours.
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

NAME = "fig11_jobs"
COLUMNS = list(FIG9.COLUMNS)
N_WORKERS = 15
JOBS = (3, 4, 5)
#: "JPS (N = 60) incurs lower JCT [than Optimus-LB] ranging from 9.38% to 14.5%".
PAPER_VS_OPTIMUS_LB = (0.0938, 0.145)
#: "compared with exhaustive search, JPS (N = 60) incurs performance loss
#: ranging from 0.53% to 5.68%".
PAPER_VS_OPT = (0.0053, 0.0568)


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {"settings": ("h115",), "n_seeds": 1, "rounds": 2, "time_limit": 60.0}
    return {
        "settings": FIG9.SETTINGS,
        "n_seeds": 5,
        "rounds": 100,
        "time_limit": 600.0,
    }


def claims(df: pd.DataFrame) -> pd.DataFrame:
    """Per setting x S: mean JCT of Optimus-LB, JPS N=60 and OPT, and the paper's two ratios.

    Per instance first (JPS: mean over its rounds), then averaged over the
    setting's instances.  ``vs_opt`` uses proven optima only (NaN otherwise).
    """
    keys = ["setting", "n_jobs", "seed"]
    inst = df.groupby([*keys, "scheme"])["avg_jct"].mean().unstack("scheme")
    proven = df[df["scheme"] == "optimum"].set_index(keys)["kind"] == "proven"
    inst["vs_optimus_lb"] = 1.0 - inst["jps_n60"] / inst["optimus_lb"]
    inst["vs_opt"] = (inst["jps_n60"] / inst["optimum"] - 1.0).where(proven)
    cols = ["optimus_lb", "jps_n60", "optimum", "vs_optimus_lb", "vs_opt"]
    out = inst.groupby(["setting", "n_jobs"])[cols].mean()
    out["instances"] = inst.groupby(["setting", "n_jobs"]).size()
    return out.reset_index()


def _plot(df: pd.DataFrame) -> Figure:
    settings = [s for s in FIG9.SETTINGS if s in set(df["setting"])]
    fig = Figure(figsize=(5.2 * len(settings), 4.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(settings)))
    markers = dict(zip(FIG9.SCHEMES, "osD^v<*", strict=True))
    for ax, setting in zip(axes, settings, strict=True):
        sub = df[df["setting"] == setting]
        # per instance (JPS: mean of rounds), then mean over the instances
        per = sub.groupby(["n_jobs", "seed", "scheme"])["avg_jct"].mean()
        mean = per.groupby(["n_jobs", "scheme"]).mean().unstack("scheme")
        for s in FIG9.SCHEMES:
            if s not in mean:
                continue
            ax.plot(
                mean.index,
                mean[s],
                marker=markers[s],
                ls="--" if s == "optimum" else "-",
                color="k" if s == "optimum" else None,
                label=FIG9.LABELS[s] + (" (certified, MILP)" if s == "optimum" else ""),
            )
        ax.set_xticks(sorted(sub["n_jobs"].unique()))
        ax.set_xlabel("number of jobs S")
        ax.set_ylabel("average JCT (s, checker)")
        n = sub["seed"].nunique()
        title = {
            "h115": "first S jobs of Table III, H = 1.15",
            "mix111": f"1:1:1 GPUs, random jobs (mean of {n} seeds)",
        }[setting]
        ax.set_title(f"K = {int(sub['n_workers'].iloc[0])}, {title}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 11: average JCT vs number of jobs (JPS: mean of rounds)")
    return fig


def _pct(lo: float, hi: float) -> str:
    return f"{100 * lo:.2f}% to {100 * hi:.2f}%"


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
    """Reproduce Fig. 11 and write ``fig11_jobs.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: setting ``h115``, 2 JPS rounds.
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
        [(S, N_WORKERS) for S in JOBS],
        rounds=cfg["rounds"] if rounds is None else rounds,
        jps_n=FIG9.JPS_N,
        time_limit=cfg["time_limit"] if time_limit is None else time_limit,
        quick=quick,
    )
    df = FIG9.run_tasks(tasks, workers, progress, NAME)[COLUMNS]
    fig = _plot(df)
    _write_outputs(out_dir, NAME, df, fig)
    c = claims(df)
    n_unproven = int((df.loc[df["scheme"] == "optimum", "kind"] != "proven").sum())
    print(
        f"{NAME}: average JCT (checker) vs S at K = {N_WORKERS}; "
        f"{n_unproven} instance(s) without a proven optimum"
    )
    for r in c.itertuples(index=False):
        print(
            f"  {r.setting:6s} S={int(r.n_jobs)}: Optimus-LB {r.optimus_lb:9.1f} s, "
            f"JPS N=60 {r.jps_n60:9.1f} s, OPT {r.optimum:9.1f} s | "
            f"JPS below Optimus-LB {100 * r.vs_optimus_lb:6.2f}%, "
            f"JPS above OPT {100 * r.vs_opt:6.2f}% ({int(r.instances)} instance(s))"
        )
    for setting, g in c.groupby("setting", sort=False):
        lo1, hi1 = g["vs_optimus_lb"].min(), g["vs_optimus_lb"].max()
        lo2, hi2 = g["vs_opt"].min(), g["vs_opt"].max()
        print(
            f"  {setting}: JPS (N=60) lower than Optimus-LB by paper "
            f"{_pct(*PAPER_VS_OPTIMUS_LB)} | ours {_pct(lo1, hi1)}; "
            f"above the optimum by paper {_pct(*PAPER_VS_OPT)} | ours "
            + (_pct(lo2, hi2) if not math.isnan(lo2) else "n/a")
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
