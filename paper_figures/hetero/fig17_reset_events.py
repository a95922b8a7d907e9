"""Fig. 17 of Liu et al. (TPDS 2024): static vs dynamic policies (reset events) and Gavel.

What the paper shows (Sec. VI-B2, Fig. 17, ``S = 4``, ``K = 15``): the
average JCT and the makespan (largest JCT) of every scheme with a *static*
policy (placement computed once at submission) and with a *dynamic* one
(*when a job completion happens, the policy will be recomputed among the
remaining active jobs*), and Gavel (round-based, recomputed occasionally).
Claims: *compared with the static policy, the average JCT is reduced ranging
from 17.01% to 41.67%* and *the makespan is reduced ranging from 27.34% to
44.35%*; *compared with Gavel, the average JCT and the makespan yielded by HAS
with reset events are decreased by 21.2% and 71.3%, respectively*.

What we do: every job is submitted at time 0 and run to completion by
:func:`optsched.hetero.simulate.simulate` (``dynamic=False`` / ``True``) for
Optimus, Optimus-LB, HAS, JPS (``N = 60``, paper defaults ``alpha = 0.7``,
``beta = 1``; several sampler seeds) and the exhaustive search (the optimum
placement of P1 at every decision), and by ``simulate(inst, "gavel")``
(rounds of 6 minutes, scale factors ``[5, 5, 5, 5]``, allocation recomputed
after a round with a completion).  Every placement a policy produces, at time
0 and at every reset, is recorded and re-checked with ``p.check`` on the
(sub-)instance it was computed for; a job's progress rate comes from the
checker's latencies (inside ``simulate``), so the JCTs are the checker's.  In
static mode the script also asserts that every completion equals the
checker's JCT (7) of the time-0 placement.

Instances (``make_instance``): ``S = 4``, ``K = 15``, two GPU settings
(column ``setting``):

* ``1:1:1``: 5 T4, 5 P100, 5 V100 (the paper's default testbed ratio);
* ``H=1.15``: ``generate(heterogeneity=1.15)``, the paper's stated default
  ``H`` (with our throughput table: 8 T4, 5 P100, 2 V100 for the first four
  jobs; docs/hetero.md explains why 1:1:1 gives ``H`` about 1.26 here).

and the five 4-job subsets of Table III (column ``pool`` = the job left
out): ``no_Transformer`` = ResNet-101, ResNet-18, VGG-19, AlexNet is the
instance of Figs. 9-14 and of docs/hetero.md; the others contain the
Transformer, a 3-epoch job that finishes first and triggers an early reset.
The paper does not say which four of its five jobs form the default ``S = 4``.
Throughputs carry no noise, so the instance seed (0) only permutes the job
order; different seeds are not different instances.

Readings and choices
--------------------
* "Reduction" of a scheme = ``1 - dynamic / static`` of the same scheme on
  the same instance (JPS: same sampler seed), per metric; the paper's ranges
  are over schemes, so we print each scheme's mean reduction beside them.
* "Exhaustive search" as a policy = ``p.run("exhaustive")``, optimal for P1
  at every decision; the dynamic policy is then a sequence of optimal
  placements, not an optimal dynamic schedule.
* HAS vs Gavel = ``1 - HAS dynamic / Gavel`` (Gavel's row carries it).
* Gavel's scale factor ``n_workers // 3`` (= 5 at ``K = 15``: the GPUs of one
  type on the 1:1:1 testbed, the paper's maximum and best value, Fig. 18),
  for every job and both settings; with 2 V100 (``H=1.15``) a job of scale 5
  cannot use the V100s at all (Gavel gangs ``scale_factor`` GPUs of one
  type).  Gavel's own tie-breakers, deficits and round length are those of
  :mod:`optsched.hetero.simulate` (docs/hetero.md).
* JPS is re-seeded with the same sampler seed at every reset.

CSV: one row per setting x instance x scheme x mode (x JPS sampler seed),
with ``setting``, ``pool``, ``seed``, ``n_jobs``, ``n_workers`` to regenerate
the instance (``make_instance``), ``jobs`` (drawn order), achieved
``heterogeneity`` and ``gpu_counts`` (T4/P100/V100), the completion time of
every job (``completion_s``, instance order, ``;``-separated), ``avg_jct``,
``makespan``, ``check_avg_jct`` (checker objective of the time-0 placement),
``opt_objective`` (certified optimum of P1, ``p.solve_offline``: a lower
bound of every static average JCT), and the reductions with the paper's
values beside them.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

import optsched
from optsched.core import sweep
from optsched.core.figures import ScriptFunction as _ScriptFunction
from optsched.core.figures import write_outputs as _write_outputs
from optsched.hetero.instance import GPU_TYPES, MODELS
from optsched.hetero.simulate import simulate

NAME = "fig17_reset_events"
COLUMNS = [
    "setting",
    "pool",
    "seed",
    "n_jobs",
    "n_workers",
    "jobs",
    "heterogeneity",
    "gpu_counts",
    "scheme",
    "mode",
    "n_samples",
    "jps_seed",
    "scale_factor",
    "round_s",
    "avg_jct",
    "makespan",
    "completion_s",
    "decisions",
    "decision_time_s",
    "check_avg_jct",
    "opt_objective",
    "opt_status",
    "reduction_avg_jct",
    "reduction_makespan",
    "reduction_of",
    "paper_reduction_avg_jct_lo",
    "paper_reduction_avg_jct_hi",
    "paper_reduction_makespan_lo",
    "paper_reduction_makespan_hi",
]
INT_COLUMNS = ("n_samples", "jps_seed", "scale_factor")
SETTINGS = ("1:1:1", "H=1.15")
#: The five 4-job subsets of Table III, by the job left out (``no_Transformer``
#: = ResNet-101, ResNet-18, VGG-19, AlexNet: the instance of Figs. 9-14).
POOLS = {f"no_{x}": tuple(m for m in MODELS if m != x) for x in MODELS}
DEFAULT_POOL = "no_Transformer"
SCHEMES = ("optimus", "optimus_lb", "has", "jps", "exhaustive")
LABELS = {
    "optimus": "Optimus",
    "optimus_lb": "Optimus-LB",
    "has": "HAS",
    "jps": "JPS N=60",
    "exhaustive": "exhaustive",
    "gavel": "Gavel",
}
JPS_N = 60
ROUND_S = 360.0
#: Dynamic vs static, over schemes (Sec. VI-B2).
PAPER_AVG = (0.1701, 0.4167)
PAPER_MAKESPAN = (0.2734, 0.4435)
#: Dynamic HAS vs Gavel.
PAPER_HAS_VS_GAVEL = (0.212, 0.713)


# --------------------------------------------------------------- helpers
def make_instance(setting: str, pool: str, seed: int, n_jobs: int, n_workers: int):
    """The instance of a CSV row (module docstring)."""
    p = optsched.get_paper("hetero")
    if pool not in POOLS:
        raise KeyError(f"unknown pool {pool!r} (known: {', '.join(POOLS)})")
    kw: dict[str, Any] = {"models": list(POOLS[pool])}
    if setting == "H=1.15":
        kw["heterogeneity"] = 1.15
    elif setting != "1:1:1":
        raise KeyError(f"unknown setting {setting!r} (known: {', '.join(SETTINGS)})")
    return p.generate(seed=seed, n_jobs=n_jobs, n_workers=n_workers, **kw)


class Recorder:
    """Policy wrapper: runs ``p.run(name, inst, **params)`` and keeps every (instance, placement)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = name
        self.calls: list[tuple[Any, Any]] = []

    def __call__(self, inst, **params):
        placement = optsched.get_paper("hetero").run(self.name, inst, **params)
        self.calls.append((inst, placement))
        return placement


def run_policy(inst, scheme: str, dynamic: bool, params: dict[str, Any] | None):
    """Simulate ``scheme`` and re-check every placement it made; returns (result, time-0 check)."""
    p = optsched.get_paper("hetero")
    rec = Recorder(scheme)
    res = simulate(inst, rec, dynamic=dynamic, params=params)
    evs = [p.check(sub, pl) for sub, pl in rec.calls]  # raises if infeasible
    assert len(evs) == res.decisions
    first = evs[0]
    if not dynamic:
        # a job alone on its static placement finishes at its JCT (7)
        np.testing.assert_allclose(res.completion, first.jct, rtol=1e-9)
    return res, first


def _fmt(a) -> str:
    return ";".join(f"{float(x):.6f}" for x in a)


# ------------------------------------------------------------ experiment
def run_instance(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Static and dynamic runs of every scheme, and Gavel, on one instance."""
    p = optsched.get_paper("hetero")
    setting, pool, seed = task["setting"], task["pool"], task["seed"]
    S, K = task["n_jobs"], task["n_workers"]
    inst = make_instance(setting, pool, seed, S, K)
    opt = p.solve_offline(inst, time_limit=task["time_limit"], threads=1)
    base = {
        "setting": setting,
        "pool": pool,
        "seed": seed,
        "n_jobs": S,
        "n_workers": K,
        "jobs": ";".join(j.name for j in inst.jobs),
        "heterogeneity": inst.heterogeneity(),
        "gpu_counts": "/".join(str(inst.gpu.count(g)) for g in GPU_TYPES),
        "opt_objective": opt.objective,
        "opt_status": opt.status,
    }
    rows: list[dict[str, Any]] = []
    runs = [(s, None) for s in SCHEMES if s != "jps"]
    runs += [("jps", r) for r in range(task["jps_seeds"])]
    for scheme, jseed in runs:
        params = None if jseed is None else {"n_samples": task["jps_n"], "seed": jseed}
        static = None
        for dynamic in (False, True):
            res, ev0 = run_policy(inst, scheme, dynamic, params)
            row = {
                **base,
                "scheme": scheme,
                "mode": "dynamic" if dynamic else "static",
                "n_samples": None if jseed is None else task["jps_n"],
                "jps_seed": jseed,
                "scale_factor": None,
                "round_s": math.nan,
                "avg_jct": res.avg_jct,
                "makespan": res.makespan,
                "completion_s": _fmt(res.completion),
                "decisions": res.decisions,
                "decision_time_s": res.decision_time,
                "check_avg_jct": float(ev0.objective),
                "reduction_avg_jct": math.nan,
                "reduction_makespan": math.nan,
                "reduction_of": "",
                "paper_reduction_avg_jct_lo": math.nan,
                "paper_reduction_avg_jct_hi": math.nan,
                "paper_reduction_makespan_lo": math.nan,
                "paper_reduction_makespan_hi": math.nan,
            }
            if dynamic:
                row.update(
                    reduction_avg_jct=1 - res.avg_jct / static.avg_jct,
                    reduction_makespan=1 - res.makespan / static.makespan,
                    reduction_of=f"{scheme} dynamic vs static",
                    paper_reduction_avg_jct_lo=PAPER_AVG[0],
                    paper_reduction_avg_jct_hi=PAPER_AVG[1],
                    paper_reduction_makespan_lo=PAPER_MAKESPAN[0],
                    paper_reduction_makespan_hi=PAPER_MAKESPAN[1],
                )
            else:
                static = res
            rows.append(row)
    has_dyn = next(r for r in rows if r["scheme"] == "has" and r["mode"] == "dynamic")
    sf = task["scale_factor"]
    g = simulate(inst, "gavel", params={"scale_factor": sf}, round_s=task["round_s"])
    rows.append(
        {
            **base,
            "scheme": "gavel",
            "mode": "dynamic",
            "n_samples": None,
            "jps_seed": None,
            "scale_factor": sf,
            "round_s": task["round_s"],
            "avg_jct": g.avg_jct,
            "makespan": g.makespan,
            "completion_s": _fmt(g.completion),
            "decisions": g.decisions,
            "decision_time_s": g.decision_time,
            "check_avg_jct": math.nan,
            "reduction_avg_jct": 1 - has_dyn["avg_jct"] / g.avg_jct,
            "reduction_makespan": 1 - has_dyn["makespan"] / g.makespan,
            "reduction_of": "has dynamic vs gavel",
            "paper_reduction_avg_jct_lo": PAPER_HAS_VS_GAVEL[0],
            "paper_reduction_avg_jct_hi": PAPER_HAS_VS_GAVEL[0],
            "paper_reduction_makespan_lo": PAPER_HAS_VS_GAVEL[1],
            "paper_reduction_makespan_hi": PAPER_HAS_VS_GAVEL[1],
        }
    )
    return rows


def _sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "n_workers": 9,
            "pools": (DEFAULT_POOL,),
            "jps_seeds": 1,
            "time_limit": 60.0,
        }
    return {
        "n_workers": 15,
        "pools": tuple(POOLS),
        "jps_seeds": 10,
        "time_limit": 600.0,
    }


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Mean average JCT / makespan per setting x scheme x mode, and mean reductions."""
    keys = ["setting", "scheme", "mode"]
    g = df.groupby(keys, sort=False)
    out = pd.DataFrame(
        {
            "rows": g.size(),
            "avg_jct": g["avg_jct"].mean(),
            "makespan": g["makespan"].mean(),
            "reduction_avg_jct": g["reduction_avg_jct"].mean(),
            "reduction_avg_jct_min": g["reduction_avg_jct"].min(),
            "reduction_avg_jct_max": g["reduction_avg_jct"].max(),
            "reduction_makespan": g["reduction_makespan"].mean(),
            "reduction_makespan_min": g["reduction_makespan"].min(),
            "reduction_makespan_max": g["reduction_makespan"].max(),
        }
    )
    return out.reset_index()


def _plot(df: pd.DataFrame) -> Figure:
    summ = summarize(df)
    settings = [s for s in SETTINGS if s in set(df["setting"])]
    fig = Figure(figsize=(11.0, 3.6 * len(settings)), layout="constrained")
    axes = np.asarray(fig.subplots(len(settings), 2, squeeze=False))
    order = [*SCHEMES, "gavel"]
    for r, setting in enumerate(settings):
        sub = summ[summ["setting"] == setting]
        raw = df[df["setting"] == setting]
        for c, metric in enumerate(("avg_jct", "makespan")):
            ax = axes[r, c]
            for x, scheme in enumerate(order):
                for dx, mode, color in ((-0.2, "static", "C0"), (0.2, "dynamic", "C1")):
                    s = sub[(sub["scheme"] == scheme) & (sub["mode"] == mode)]
                    if scheme == "gavel":
                        dx, color = 0.0, "C2"
                    if not len(s):
                        continue
                    ax.bar(x + dx, s[metric].iloc[0], width=0.38, color=color)
                    pts = raw[(raw["scheme"] == scheme) & (raw["mode"] == mode)]
                    ax.scatter(
                        np.full(len(pts), x + dx), pts[metric], s=6, color="k", zorder=3
                    )
                    red = s[
                        "reduction_avg_jct"
                        if metric == "avg_jct"
                        else "reduction_makespan"
                    ].iloc[0]
                    if mode == "dynamic" and np.isfinite(red):
                        ax.annotate(
                            f"{-red:+.0%}",
                            (x + dx, s[metric].iloc[0]),
                            ha="center",
                            va="bottom",
                            fontsize=7,
                        )
            ax.set_xticks(range(len(order)), [LABELS[s] for s in order], fontsize=8)
            ylabel = "average JCT (s)" if metric == "avg_jct" else "makespan (s)"
            ax.set_ylabel(ylabel)
            counts = ", ".join(sorted(set(raw["gpu_counts"])))
            ax.set_title(f"{setting} (T4/P100/V100 {counts}): {ylabel}", fontsize=9)
        handles = [
            Patch(color="C0", label="static"),
            Patch(color="C1", label="dynamic (reset events)"),
            Patch(color="C2", label="Gavel (rounds)"),
        ]
        axes[r, 0].legend(handles=handles, fontsize=7)
    fig.suptitle(
        f"Fig. 17: with / without reset events, S = {int(df['n_jobs'].iloc[0])}, "
        f"K = {int(df['n_workers'].iloc[0])} (bars: mean over instances; labels: "
        "mean reduction dynamic vs static, Gavel: HAS dynamic vs Gavel)",
        fontsize=9,
    )
    return fig


def _chg(x: float) -> str:
    """A reduction ``x`` as a signed relative change (``0.2`` -> ``-20.00%``)."""
    return f"{-x:+.2%}"


def report(df: pd.DataFrame) -> None:
    """Print the paper's claims beside our numbers (signed relative changes)."""
    summ = summarize(df)
    print(f"{NAME}: dynamic vs static, mean over instances [min..max]")
    print(
        f"  paper: avg JCT {_chg(PAPER_AVG[0])}..{_chg(PAPER_AVG[1])}, makespan "
        f"{_chg(PAPER_MAKESPAN[0])}..{_chg(PAPER_MAKESPAN[1])} (over schemes); HAS "
        f"dynamic vs Gavel: avg JCT {_chg(PAPER_HAS_VS_GAVEL[0])}, makespan "
        f"{_chg(PAPER_HAS_VS_GAVEL[1])}"
    )
    for setting, sub in summ.groupby("setting", sort=False):
        counts = ", ".join(sorted(set(df.loc[df["setting"] == setting, "gpu_counts"])))
        print(f"  {setting} (T4/P100/V100 {counts}):")
        dyn = sub[sub["mode"] == "dynamic"].set_index("scheme")
        sta = sub[sub["mode"] == "static"].set_index("scheme")

        def rng(d, metric):
            return (
                f"{_chg(d[metric])} [{_chg(d[metric + '_max'])}.."
                f"{_chg(d[metric + '_min'])}]"
            )

        for scheme in SCHEMES:
            d = dyn.loc[scheme]
            print(
                f"    {LABELS[scheme]:11s} static {sta.loc[scheme, 'avg_jct']:8.1f} / "
                f"{sta.loc[scheme, 'makespan']:8.1f} s, dynamic {d['avg_jct']:8.1f} / "
                f"{d['makespan']:8.1f} s: avg JCT {rng(d, 'reduction_avg_jct')}, "
                f"makespan {rng(d, 'reduction_makespan')}"
            )
        r_avg = dyn.loc[list(SCHEMES), "reduction_avg_jct"]
        r_mk = dyn.loc[list(SCHEMES), "reduction_makespan"]
        print(
            f"    over schemes: avg JCT {_chg(r_avg.max())}..{_chg(r_avg.min())} "
            f"(paper {_chg(PAPER_AVG[0])}..{_chg(PAPER_AVG[1])}), makespan "
            f"{_chg(r_mk.max())}..{_chg(r_mk.min())} "
            f"(paper {_chg(PAPER_MAKESPAN[0])}..{_chg(PAPER_MAKESPAN[1])})"
        )
        gv = dyn.loc["gavel"]
        print(
            f"    Gavel {gv['avg_jct']:8.1f} / {gv['makespan']:8.1f} s; HAS dynamic vs "
            f"Gavel: avg JCT {rng(gv, 'reduction_avg_jct')} "
            f"(paper {_chg(PAPER_HAS_VS_GAVEL[0])}), makespan "
            f"{rng(gv, 'reduction_makespan')} (paper {_chg(PAPER_HAS_VS_GAVEL[1])})"
        )


def main(
    out_dir: Path,
    quick: bool = False,
    *,
    settings: tuple[str, ...] = SETTINGS,
    pools: tuple[str, ...] | None = None,
    seed: int = 0,
    jps_seeds: int | None = None,
    time_limit: float | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Reproduce Fig. 17 and write ``fig17_reset_events.csv`` / ``.png``.

    Parameters
    ----------
    out_dir
        Output directory (created).
    quick
        Smoke-test sizes: ``K = 9`` (Gavel scale factor 3), pool
        ``no_Transformer`` only, one JPS seed.
    settings
        ``"1:1:1"`` and/or ``"H=1.15"``.
    pools
        Job sets (keys of ``POOLS``; default all five 4-job subsets of
        Table III, quick ``no_Transformer`` only).
    seed
        Instance seed (it only permutes the job order of a pool).
    jps_seeds
        JPS sampler seeds per instance (default 10, quick 1).
    time_limit
        Budget of each ``solve_offline`` in seconds.
    workers
        Processes for :func:`optsched.core.sweep.map` (None: all cores).
    progress
        tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per setting x instance x scheme x mode (x JPS seed).
    """
    out_dir = Path(out_dir)
    cfg = _sizes(quick)
    pools = cfg["pools"] if pools is None else tuple(pools)
    jps_seeds = cfg["jps_seeds"] if jps_seeds is None else jps_seeds
    time_limit = cfg["time_limit"] if time_limit is None else time_limit
    for s in settings:
        if s not in SETTINGS:
            raise KeyError(f"unknown setting {s!r} (known: {', '.join(SETTINGS)})")
    for s in pools:
        if s not in POOLS:
            raise KeyError(f"unknown pool {s!r} (known: {', '.join(POOLS)})")
    K = cfg["n_workers"]
    common = {
        "n_jobs": 4,
        "n_workers": K,
        "jps_n": JPS_N,
        "jps_seeds": jps_seeds,
        "scale_factor": K // 3,
        "round_s": ROUND_S,
        "time_limit": time_limit,
    }
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
    parser.add_argument(
        "--pools", nargs="+", default=None, help=f"job sets among {', '.join(POOLS)}"
    )
    parser.add_argument("--seed", type=int, default=0, help="instance seed")
    parser.add_argument("--jps-seeds", type=int, default=None, help="JPS sampler seeds")
    parser.add_argument("--time-limit", type=float, default=None, help="s per solve")
    args = parser.parse_args()
    main(
        args.out,
        quick=args.quick,
        pools=args.pools,
        seed=args.seed,
        jps_seeds=args.jps_seeds,
        time_limit=args.time_limit,
        workers=args.workers,
    )
