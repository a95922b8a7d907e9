"""Fig. 18 of Liu et al. (TPDS 2024): Gavel's average JCT against one job's scale factor.

What the paper shows (Sec. VI-B2, Fig. 18, ``S = 4``, ``K = 15``): *the
average JCT of using Gavel with the increased value of predefined
scale_factor_i for a learning job ... the scale factors of other learning
jobs are set to 5*.  Gavel gangs ``scale_factor_i`` GPUs of a single type per
round, so *the maximum value of scale_factor_i is 5* (5 GPUs per type on the
1:1:1 testbed).  Claims: *the average JCT decreases with the increased value
of scale_factor_i from 1 to 5* and *the lowest JCT of using Gavel can be
achieved when the scale factors of four learning jobs are set to
[5, 5, 5, 5]*.  No numbers are given.

What we do: :func:`optsched.hetero.simulate.simulate` with policy
``"gavel"`` (Gavel's round mechanism, rounds of 6 minutes, allocation
recomputed after a round with a completion; docs/hetero.md), all jobs
submitted at time 0.  The caption does not say which job is varied, so we
vary **each job in turn** (column ``varied_job``): its scale factor goes
``1..sf_max`` while the others stay at ``sf_max = n_workers // 3`` (5 at
``K = 15``).  Completions come from the checker's latencies of every round's
equal-split placement (inside ``simulate``).

Instances: those of Fig. 17 (``fig17_reset_events.make_instance``, repeated
here): settings ``1:1:1`` (5 T4, 5 P100, 5 V100; the paper's testbed, where
5 is the largest feasible scale factor) and ``H=1.15``
(``generate(heterogeneity=1.15)``: 8 T4, 5 P100, 2 V100 for the first four
jobs, so a job of scale factor 3-5 cannot use the V100s), and the five 4-job
subsets of Table III (column ``pool`` = the job left out; ``no_Transformer``
is the instance of Figs. 9-14), seed 0.

Readings and choices
--------------------
* "Decreases" is checked per curve (instance x varied job) as
  non-increasing up to a relative ``1e-9`` (column ``curve_decreasing``), and
  "lowest at [5, 5, 5, 5]" as the all-``sf_max`` value being the curve's
  minimum (``curve_lowest_at_max``).
* The ``[sf_max] * S`` run is shared by every curve of an instance.

CSV: one row per setting x instance x varied job x scale factor, with
``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers`` (regenerate with
``make_instance``), ``jobs``, ``heterogeneity``, ``gpu_counts``
(T4/P100/V100), ``varied_job`` / ``varied_name``, ``scale_factor`` (of the
varied job) and ``scale_factors`` (all jobs, ``;``-separated), ``avg_jct``,
``makespan``, ``completion_s`` (instance order), ``normalized`` (avg JCT
over the instance's ``[sf_max] * S`` value) and the paper's trend.
"""

from __future__ import annotations

import argparse
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
from optsched.hetero.simulate import simulate

NAME = "fig18_gavel_scale"
COLUMNS = [
    "setting",
    "pool",
    "seed",
    "n_jobs",
    "n_workers",
    "jobs",
    "heterogeneity",
    "gpu_counts",
    "varied_job",
    "varied_name",
    "scale_factor",
    "sf_max",
    "scale_factors",
    "round_s",
    "avg_jct",
    "makespan",
    "completion_s",
    "decisions",
    "normalized",
    "curve_decreasing",
    "curve_lowest_at_max",
    "paper_trend",
]
SETTINGS = ("1:1:1", "H=1.15")
#: The five 4-job subsets of Table III, by the job left out (``no_Transformer``
#: = ResNet-101, ResNet-18, VGG-19, AlexNet: the instance of Figs. 9-14).
POOLS = {f"no_{x}": tuple(m for m in MODELS if m != x) for x in MODELS}
DEFAULT_POOL = "no_Transformer"
ROUND_S = 360.0
PAPER_TREND = "decreasing in scale_factor, lowest at [5, 5, 5, 5]"
RTOL = 1e-9


def make_instance(setting: str, pool: str, seed: int, n_jobs: int, n_workers: int):
    """The instance of a CSV row (same as Fig. 17's ``make_instance``)."""
    p = optsched.get_paper("hetero")
    if pool not in POOLS:
        raise KeyError(f"unknown pool {pool!r} (known: {', '.join(POOLS)})")
    kw: dict[str, Any] = {"models": list(POOLS[pool])}
    if setting == "H=1.15":
        kw["heterogeneity"] = 1.15
    elif setting != "1:1:1":
        raise KeyError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")
    return p.generate(seed=seed, n_jobs=n_jobs, n_workers=n_workers, **kw)


def _fmt(a) -> str:
    return ";".join(f"{float(x):.6f}" for x in a)


def is_decreasing(values) -> bool:
    """Non-increasing up to a relative ``RTOL``."""
    v = np.asarray(values, dtype=float)
    return bool(np.all(v[1:] <= v[:-1] * (1 + RTOL)))


# ------------------------------------------------------------ experiment
def run_instance(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Gavel with each job's scale factor 1..sf_max (others sf_max) on one instance."""
    setting, pool, seed = task["setting"], task["pool"], task["seed"]
    S, K, top = task["n_jobs"], task["n_workers"], task["sf_max"]
    inst = make_instance(setting, pool, seed, S, K)
    base = {
        "setting": setting,
        "pool": pool,
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES),
        "sf_max": top,
        "round_s": task["round_s"],
        "paper_trend": PAPER_TREND,
    }
    cache: dict[tuple[int, ...], Any] = {}

    def run(scale: tuple[int, ...]):
        if scale not in cache:
            cache[scale] = simulate(
                inst,
                "gavel",
                params={"scale_factor": list(scale)},
                round_s=task["round_s"],
            )
        return cache[scale]

    ref = run((top,) * S).avg_jct
    rows = []
    for j in range(S):
        curve = []
        for sf in range(1, top + 1):
            scale = tuple(sf if i == j else top for i in range(S))
            res = run(scale)
            curve.append(res.avg_jct)
            rows.append(
                {
                    **base,
                    "varied_job": j,
                    "varied_name": inst.jobs[j].name,
                    "scale_factor": sf,
                    "scale_factors": ";".join(map(str, scale)),
                    "avg_jct": res.avg_jct,
                    "makespan": res.makespan,
                    "completion_s": _fmt(res.completion),
                    "decisions": res.decisions,
                    "normalized": res.avg_jct / ref,
                }
            )
        dec = is_decreasing(curve)
        low = bool(curve[-1] <= min(curve) * (1 + RTOL))
        for r in rows[-top:]:
            r["curve_decreasing"] = dec
            r["curve_lowest_at_max"] = low
    return rows


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {"n_workers": 9, "pools": (DEFAULT_POOL,)}
    return {"n_workers": 15, "pools": tuple(POOLS)}


def _plot(df: pd.DataFrame) -> Figure:
    settings = [s for s in SETTINGS if s in set(df["setting"])]
    fig = Figure(figsize=(5.5 * len(settings), 7.5), layout="constrained")
    axes = np.asarray(fig.subplots(2, len(settings), squeeze=False))
    top = int(df["sf_max"].iloc[0])
    for c, setting in enumerate(settings):
        sub = df[df["setting"] == setting]
        ax, axn = axes[0, c], axes[1, c]
        shown = (
            DEFAULT_POOL if DEFAULT_POOL in set(sub["pool"]) else sub["pool"].iloc[0]
        )
        first = sub[sub["pool"] == shown]
        for j, (name, cur) in enumerate(first.groupby("varied_name", sort=False)):
            ax.plot(
                cur["scale_factor"], cur["avg_jct"], "o-", color=f"C{j}", label=name
            )
        ax.set_title(
            f"{setting}, {first['pool'].iloc[0]} (T4/P100/V100 "
            f"{first['gpu_counts'].iloc[0] if len(first) else '-'})",
            fontsize=9,
        )
        ax.set_ylabel("Gavel average JCT (s)")
        ax.legend(title="varied job", fontsize=7)
        for name in [m for m in MODELS if m in set(sub["varied_name"])]:
            j = list(MODELS).index(name)
            cur = sub[sub["varied_name"] == name]
            for _, inst_cur in cur.groupby(["pool", "seed"]):
                axn.plot(
                    inst_cur["scale_factor"],
                    inst_cur["normalized"],
                    "-",
                    color=f"C{j}",
                    alpha=0.3,
                    lw=0.8,
                )
            mean = cur.groupby("scale_factor")["normalized"].mean()
            axn.plot(mean.index, mean.values, "o-", color=f"C{j}", label=name)
        axn.axhline(1.0, color="grey", lw=0.8, ls="--")
        axn.set_ylabel(f"avg JCT / avg JCT at [{top}] * S")
        axn.set_xlabel("scale_factor of the varied job (others at the maximum)")
        axn.set_title(f"{setting}, all instances (thin) and mean per job", fontsize=9)
        axn.legend(fontsize=7)
        for a in (ax, axn):
            a.set_xticks(range(1, top + 1))
    fig.suptitle(
        f"Fig. 18: Gavel, one job's scale factor 1..{top}, others {top}, "
        f"S = {int(df['n_jobs'].iloc[0])}, K = {int(df['n_workers'].iloc[0])}; "
        f"paper: {PAPER_TREND}",
        fontsize=9,
    )
    return fig


def report(df: pd.DataFrame) -> None:
    """Print the paper's trend beside ours (monotonicity of every curve)."""
    print(f"{NAME}: Gavel average JCT (s) vs one job's scale factor")
    print(f"  paper: {PAPER_TREND} (no numbers)")
    for setting, sub in df.groupby("setting", sort=False):
        curves = sub.groupby(["pool", "seed", "varied_job"], sort=False)
        dec = curves["curve_decreasing"].first()
        low = curves["curve_lowest_at_max"].first()
        print(
            f"  {setting}: {int(dec.sum())}/{len(dec)} curves decreasing, "
            f"{int(low.sum())}/{len(low)} lowest at all-max"
        )
        for (pool, _seed, _), cur in curves:
            vals = ", ".join(f"{v:.1f}" for v in cur["avg_jct"])
            flag = "decreasing" if cur["curve_decreasing"].iloc[0] else "NOT monotone"
            print(
                f"    {pool:15s} ({cur['gpu_counts'].iloc[0]}) vary "
                f"{cur['varied_name'].iloc[0]:11s}: {vals} [{flag}]"
            )


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    settings: tuple[str, ...] = SETTINGS,
    pools: tuple[str, ...] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 18 and write ``fig18_gavel_scale.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: ``K = 9`` (scale factors 1..3), pool ``no_Transformer`` only.
    settings
        ``"1:1:1"`` and/or ``"H=1.15"``.
    pools
        Job sets (keys of ``POOLS``; default all five 4-job subsets of
        Table III, quick ``no_Transformer`` only).
    seed
        Instance seed (it only permutes the job order of a pool).
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per setting x instance x varied job x scale factor.
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    pools = cfg["pools"] if pools is None else tuple(pools)
    for s in settings:
        if s not in SETTINGS:
            raise KeyError(f"unknown setting {s!r} (known: {', '.join(SETTINGS)})")
    for s in pools:
        if s not in POOLS:
            raise KeyError(f"unknown pool {s!r} (known: {', '.join(POOLS)})")
    K = cfg["n_workers"]
    common = {"n_jobs": 4, "n_workers": K, "sf_max": K // 3, "round_s": ROUND_S}
    tasks = [
        {**common, "setting": st, "pool": pool, "seed": seed}
        for st in settings
        for pool in pools
    ]
    out = sweep.map(
        _ScriptFunction(run_instance),
        tasks,
        workers=workers,
        progress=progress,
        desc=NAME,
    )
    df = pd.DataFrame([r for rows in out for r in rows], columns=COLUMNS)
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
    parser.add_argument(
        "--pools", nargs="+", default=None, help=f"job sets among {', '.join(POOLS)}"
    )
    parser.add_argument("--seed", type=int, default=0, help="instance seed")
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        pools=args.pools,
        seed=args.seed,
        workers=args.workers,
    )
