"""Fig. 14 of Liu et al. (TPDS 2024): impact of the heterogeneity degree ``H``.

What the paper shows (Sec. VI-B1, "Impact of Heterogeneity Degree", Fig. 14,
``K = 15``): the average JCT of Optimus, Optimus-LB, HAS, JPS (``N = 60``) and
exhaustive search as the heterogeneity degree (35)
``H = sum_k sum_i rho_{i,k} / (K min_k sum_i rho_{i,k})`` grows *from 1.1 to
1.26* (the default setting has ``H = 1.15``; ``H`` *becomes higher when more
workers are equipped with the more powerful Tesla V100 as opposed to T4*).
Claims: *with more powerful workers, the average JCT decreases*; against
exhaustive search *Optimus incurs a performance loss ranging from 42.09% to
18.07%*; *HAS achieves the optimal JCT when H = 1.1, 1.15, and 1.21, and incurs
a performance loss of 1.28% when H = 1.26*; *JPS (N = 60) incurs a performance
loss ranging from 0.49% to 1.9%*; *compared with Optimus, JPS reduces the
average JCT ranging from 41.4% to 15.87%*.

What we do: the first four jobs of Table III (ResNet-101, ResNet-18, VGG-19,
AlexNet), ``S = 4``, ``K = 15``, in two settings (column ``setting``):

* ``target`` (the generator's knob): ``generate(seed, 4, 15, models=first
  four, heterogeneity=H)`` for ``H`` in 1.10, 1.15, 1.21, 1.26 (the values
  the text names); the generator picks the GPU counts whose ``H`` is closest
  to the target, which is not always "more V100 instead of T4" (e.g. 3 T4,
  11 P100, 1 V100 for 1.21).  The achieved ``H`` is in column
  ``heterogeneity`` and is the x-axis.
* ``swap`` (the paper's description): P100 fixed at ``K // 3`` = 5 and
  ``v`` = 1..5 T4 replaced by V100 (``gpu_mix = (10 - v, 5, v)``), i.e.
  ``H`` = 1.116, 1.152, 1.188, 1.224, 1.261.  Swapping a T4 for a V100 makes
  every position of the type-by-type layout at least as fast on the same
  node structure, so the optimum can only decrease with ``v``.

Every scheme runs through the registry (``p.run``) and its placement is
re-evaluated by the checker; JPS (``N = 60``, paper defaults ``alpha = 0.7``,
``beta = 1``) over 100 sampler seeds (mean and 5-95% band).  The paper's
exhaustive search is run too (``p.run("exhaustive")``, enumeration up to
worker symmetry) and the certified optimum (``p.solve_offline``, exact MILP)
is the denominator of ``normalized``.

Readings and choices
--------------------
* "Ranging from 42.09% to 18.07%" is read in the order of increasing ``H``
  (1.1 -> 1.26) for ``paper_normalized`` of Optimus; JPS's 0.49%-1.9% range
  is not attributed to points (printed only).
* The paper's "JPS (H = 60)" is JPS with ``N = 60``.

CSV: one row per setting x point x scheme (x JPS sampler seed), with
``seed``, ``n_jobs``, ``n_workers``, ``models``, ``heterogeneity_target``
(``target``) or ``n_v100`` (``swap``), enough to regenerate the instance with
:func:`make_instance`, the achieved ``heterogeneity`` and ``gpu_counts``
(T4/P100/V100), and the checker's ``avg_jct``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import optsched
from optsched.core import sweep
from optsched.core.figures import ScriptFunction as _ScriptFunction
from optsched.core.figures import write_outputs as _write_outputs
from optsched.hetero.instance import GPU_TYPES, MODELS
from optsched.hetero.online import fairness_degree

NAME = "fig14_heterogeneity"
COLUMNS = [
    "setting",
    "seed",
    "n_jobs",
    "n_workers",
    "models",
    "jobs",
    "heterogeneity_target",
    "n_v100",
    "heterogeneity",
    "gpu_counts",
    "scheme",
    "n_samples",
    "jps_seed",
    "category",
    "avg_jct",
    "fairness",
    "opt_objective",
    "opt_bound",
    "opt_status",
    "normalized",
    "paper_normalized",
    "alg_runtime_s",
]
INT_COLUMNS = ("n_v100", "n_samples", "jps_seed")
SETTINGS = ("target", "swap")
H_TARGETS = (1.10, 1.15, 1.21, 1.26)
SWAP_V100 = (1, 2, 3, 4, 5)
JPS_N = 60
SCHEMES = ("optimus", "optimus_lb", "has", "jps", "exhaustive", "optimum")
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "has": "HAS",
    "jps": f"JPS N={JPS_N}",
    "exhaustive": "exhaustive",
    "optimum": "optimum (MILP)",
}
#: Ratios to exhaustive search stated in the text, by (scheme, H) (setting target).
PAPER_NORMALIZED = {
    ("optimus", 1.10): 1.4209,
    ("optimus", 1.26): 1.1807,
    ("has", 1.10): 1.0,
    ("has", 1.15): 1.0,
    ("has", 1.21): 1.0,
    ("has", 1.26): 1.0128,
    **{("exhaustive", h): 1.0 for h in H_TARGETS},
    **{("optimum", h): 1.0 for h in H_TARGETS},
}
PAPER_JPS_LOSS = (0.0049, 0.019)
PAPER_OPTIMUS_LOSS = (0.4209, 0.1807)
PAPER_JPS_VS_OPTIMUS = (0.414, 0.1587)


# --------------------------------------------------------------- helpers
def make_instance(
    setting: str,
    seed: int,
    n_jobs: int,
    n_workers: int,
    h_target: float | None = None,
    n_v100: int | None = None,
):
    """The instance of a CSV row (see the module docstring, settings)."""
    p = optsched.get_paper("hetero")
    models = list(MODELS)[:n_jobs]
    if setting == "target":
        return p.generate(
            seed=seed,
            n_jobs=n_jobs,
            n_workers=n_workers,
            models=models,
            heterogeneity=h_target,
        )
    if setting == "swap":
        n_p100 = n_workers // 3
        mix = (n_workers - n_p100 - n_v100, n_p100, n_v100)
        return p.generate(
            seed=seed, n_jobs=n_jobs, n_workers=n_workers, models=models, gpu_mix=mix
        )
    raise KeyError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")


def _category(ev) -> str:
    return "-".join(str(int(x)) for x in ev.n_workers)


# ------------------------------------------------------------ experiment
def run_instance(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Optimum, exhaustive, Optimus, Optimus-LB, HAS and JPS rounds on one instance."""
    p = optsched.get_paper("hetero")
    setting, seed = task["setting"], task["seed"]
    S, K = task["n_jobs"], task["n_workers"]
    h_target, n_v100 = task.get("h_target"), task.get("n_v100")
    inst = make_instance(setting, seed, S, K, h_target, n_v100)
    opt = p.solve_offline(inst, time_limit=task["time_limit"], threads=1)
    proven = opt.status == "optimal"
    base = {
        "setting": setting,
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "models": ";".join(list(MODELS)[:S]),
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity_target": math.nan if h_target is None else h_target,
        "n_v100": n_v100,
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES),
        "opt_objective": opt.objective,
        "opt_bound": opt.bound,
        "opt_status": opt.status,
    }
    paper_on = setting == "target" and S == 4 and K == 15

    def row(scheme, placement, runtime, n_samples=None, jps_seed=None):
        ev = p.check(inst, placement)
        alg = float(ev.objective)
        paper = (
            PAPER_NORMALIZED.get((scheme, round(h_target, 2)), math.nan)
            if paper_on
            else math.nan
        )
        return {
            **base,
            "scheme": scheme,
            "n_samples": n_samples,
            "jps_seed": jps_seed,
            "category": _category(ev),
            "avg_jct": alg,
            "fairness": fairness_degree(inst, ev.jct),
            "normalized": alg / opt.objective if proven else math.nan,
            "paper_normalized": paper,
            "alg_runtime_s": runtime,
        }

    rows = [row("optimum", opt.schedule, opt.runtime)]
    for name in ("optimus", "optimus_lb", "has", "exhaustive"):
        t0 = time.perf_counter()
        pl = p.run(name, inst)
        rows.append(row(name, pl, time.perf_counter() - t0))
    for r in range(task["rounds"]):
        t0 = time.perf_counter()
        pl = p.run("jps", inst, n_samples=task["jps_n"], seed=r)
        rows.append(row("jps", pl, time.perf_counter() - t0, task["jps_n"], r))
    return rows


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "n_workers": 10,
            "h_targets": (1.15,),
            "swap": (1, 4),
            "rounds": 3,
            "time_limit": 60.0,
        }
    return {
        "n_workers": 15,
        "h_targets": H_TARGETS,
        "swap": SWAP_V100,
        "rounds": 100,
        "time_limit": 600.0,
    }


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Mean (and 5-95% for JPS) of JCT and ratio per setting x point x scheme."""
    keys = ["setting", "heterogeneity_target", "n_v100", "heterogeneity", "scheme"]
    g = df.groupby(keys, dropna=False, sort=False)
    out = pd.DataFrame(
        {
            "gpu_counts": g["gpu_counts"].first(),
            "n": g.size(),
            "jct_mean": g["avg_jct"].mean(),
            "jct_p5": g["avg_jct"].quantile(0.05),
            "jct_p95": g["avg_jct"].quantile(0.95),
            "ratio_mean": g["normalized"].mean(),
            "paper_normalized": g["paper_normalized"].first(),
        }
    ).reset_index()
    rank = out["setting"].map({s: j for j, s in enumerate(SETTINGS)})
    return (
        out.assign(_rank=rank)
        .sort_values(["_rank", "heterogeneity"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def _plot(df: pd.DataFrame) -> Figure:
    summ = summarize(df)
    settings = [s for s in SETTINGS if s in set(df["setting"])]
    fig = Figure(figsize=(5.5 * len(settings), 7.5), layout="constrained")
    axes = np.asarray(fig.subplots(2, len(settings), squeeze=False))
    titles = {
        "target": "generate(heterogeneity=H) (free GPU counts)",
        "swap": "P100 fixed, v T4 replaced by V100",
    }
    for col, setting in enumerate(settings):
        ax, axr = axes[0, col], axes[1, col]
        sub = summ[summ["setting"] == setting]
        for j, scheme in enumerate(SCHEMES):
            s = sub[sub["scheme"] == scheme].sort_values("heterogeneity")
            if not len(s):
                continue
            style = {"optimum": "k--", "exhaustive": "kx"}.get(scheme, "o-")
            kw = {} if scheme in ("optimum", "exhaustive") else {"color": f"C{j}"}
            ax.plot(
                s["heterogeneity"], s["jct_mean"], style, label=LABELS[scheme], **kw
            )
            axr.plot(
                s["heterogeneity"], s["ratio_mean"], style, label=LABELS[scheme], **kw
            )
            if scheme == "jps":
                ax.fill_between(
                    s["heterogeneity"], s["jct_p5"], s["jct_p95"], alpha=0.15, **kw
                )
            paper = s.dropna(subset=["paper_normalized"])
            if scheme not in ("optimum", "exhaustive") and len(paper):
                axr.scatter(
                    paper["heterogeneity"],
                    paper["paper_normalized"],
                    marker="D",
                    s=30,
                    facecolors="none",
                    edgecolors=f"C{j}",
                    label=f"paper {LABELS[scheme]}",
                )
        for _, r in sub[sub["scheme"] == "optimum"].iterrows():
            ax.annotate(
                r["gpu_counts"], (r["heterogeneity"], r["jct_mean"]), fontsize=6
            )
        ax.set_title(titles[setting], fontsize=9)
        ax.set_ylabel("average JCT (s, checker)")
        axr.set_ylabel("average JCT / optimum")
        axr.set_xlabel("achieved heterogeneity degree H (35)")
        axr.axhline(1.0, color="grey", lw=0.8)
        ax.legend(fontsize=7)
        axr.legend(fontsize=7)
    fig.suptitle(
        f"Fig. 14: impact of H, S = {int(df['n_jobs'].iloc[0])}, "
        f"K = {int(df['n_workers'].iloc[0])} (labels: T4/P100/V100; JPS: mean, 5-95%)",
        fontsize=10,
    )
    return fig


def report(df: pd.DataFrame) -> None:
    """Print the paper's claims beside our numbers."""
    summ = summarize(df)
    print(f"{NAME}: average JCT (s, checker) and ratio to the certified optimum")
    print(
        "  paper: JCT decreases with H; Optimus loss 42.09% -> 18.07%; HAS optimal "
        "at H = 1.1, 1.15, 1.21, +1.28% at 1.26; JPS loss 0.49%-1.9%; JPS vs "
        "Optimus -41.4% to -15.87%"
    )
    for (setting, h), sub in summ.groupby(["setting", "heterogeneity"], sort=False):
        s = sub.set_index("scheme")
        point = (
            f"target {s['heterogeneity_target'].iloc[0]:.2f}"
            if setting == "target"
            else f"v={int(s['n_v100'].iloc[0])}"
        )
        ratios = " ".join(
            f"{sc}={s.loc[sc, 'ratio_mean']:.4f}" for sc in SCHEMES if sc in s.index
        )
        jps_vs = s.loc["jps", "jct_mean"] / s.loc["optimus", "jct_mean"] - 1
        print(
            f"  {setting:6s} {point:12s} H={h:.4f} ({s['gpu_counts'].iloc[0]}): "
            f"opt {s.loc['optimum', 'jct_mean']:.1f} s; {ratios}; "
            f"JPS vs Optimus {jps_vs:+.2%}"
        )
    for setting, sub in summ.groupby("setting", sort=False):
        o = sub[sub["scheme"] == "optimum"].sort_values("heterogeneity")
        mono = bool(np.all(np.diff(o["jct_mean"].to_numpy()) <= 1e-9))
        jps = sub[sub["scheme"] == "jps"]["ratio_mean"]
        print(
            f"  {setting}: optimum decreasing in H: {mono}; JPS loss "
            f"{jps.min() - 1:.2%}-{jps.max() - 1:.2%} (paper 0.49%-1.9%)"
        )


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    settings: tuple[str, ...] = SETTINGS,
    rounds: int | None = None,
    seed: int = 0,
    time_limit: float | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 14 and write ``fig14_heterogeneity.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: ``K = 10``, ``H = 1.15`` (target) and ``v`` = 1, 4
        (swap, P100 fixed at 3), 3 JPS seeds.
    settings
        ``"target"`` and/or ``"swap"`` (module docstring).
    rounds
        JPS sampler seeds per instance (default 100, quick 3).
    seed
        Instance seed (it only permutes the job order).
    time_limit
        Budget of each ``solve_offline`` in seconds.
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per setting x point x scheme (x JPS seed).
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    rounds = cfg["rounds"] if rounds is None else rounds
    time_limit = cfg["time_limit"] if time_limit is None else time_limit
    for s in settings:
        if s not in SETTINGS:
            raise KeyError(f"unknown setting {s!r} (known: {', '.join(SETTINGS)})")
    common = {
        "seed": seed,
        "n_jobs": 4,
        "n_workers": cfg["n_workers"],
        "rounds": rounds,
        "jps_n": JPS_N,
        "time_limit": time_limit,
    }
    tasks = []
    if "target" in settings:
        tasks += [
            {**common, "setting": "target", "h_target": h} for h in cfg["h_targets"]
        ]
    if "swap" in settings:
        tasks += [{**common, "setting": "swap", "n_v100": v} for v in cfg["swap"]]
    out = sweep.map(
        _ScriptFunction(run_instance),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = pd.DataFrame([r for rows in out for r in rows], columns=COLUMNS)
    for col in INT_COLUMNS:
        df[col] = df[col].astype("Int64")
    _write_outputs(out_dir, NAME, df, _plot(df))
    report(df)
    return df


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke-test sizes")
    parser.add_argument(
        "--out", type=Path, default=Path("paper_figures/out/hetero"), help="output dir"
    )
    parser.add_argument("--workers", type=int, default=None, help="processes")
    parser.add_argument("--rounds", type=int, default=None, help="JPS sampler seeds")
    parser.add_argument("--seed", type=int, default=0, help="instance seed")
    parser.add_argument("--time-limit", type=float, default=None, help="s per solve")
    parser.add_argument(
        "--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS
    )
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        settings=tuple(args.settings),
        rounds=args.rounds,
        seed=args.seed,
        time_limit=args.time_limit,
        workers=args.workers,
    )
