"""Okita Figs. 9-12 and 14 under three latency-cost readings (issue 25, sec. 4).

The paper calls its default latency cost a "Sigmoid Function" but prints
``f(t) = tau e^{0.25 t}`` (Sec. V-B), which never saturates.  With the
printed formula our reductions are about 100% (paper: 20-65%) and Okita's
total cost moves by orders of magnitude with ``alpha1 : alpha2`` (paper:
"roughly equal").  This script changes ONE component, the latency cost
``f_i``, and measures the figures' quantities again:

* ``exp``: ``tau e^{0.25 d}`` as printed (the default);
* ``sigmoid``: ``tau / (1 + e^{-0.25 (d - t0)})``, ``t0 = 4``
  (``optsched.okita.instance.SIGMOID_T0``); same draws as ``exp``, so the
  instance differs from the ``exp`` one of the same seed only in ``f``;
* ``linear``: ``tau d + b`` (Sec. V-B's second kind; it draws ``b``, so its
  instances are other draws of the same distributions);
* ``piecewise`` (Fig. 14 only).

Parts (column ``part``; a run shared by two parts is computed once and
listed under the first):

``scale`` (Figs. 9-10)
    all four schemes, ``T = 150``: ``R`` in {10, 50} at ``I = 100`` and
    ``I`` in {20, 100} at ``R = 50``; costs exp, sigmoid, linear; seeds 0-1.
``functions`` (Fig. 14)
    the paper point ``R = 50, I = 100`` with the piecewise cost too.
``factors`` (Figs. 11-12)
    Okita alone with the settings of the figure specs (5 alpha ratios, 7
    beta triples) at ``R = 20, I = 40, T = 150`` (the paper size costs 45 s
    per sigmoid run), costs exp, sigmoid, linear, seeds 0-1; and
    ``factors_paper``: alpha 1:4 and 4:1 at the paper size, seed 0, exp and
    sigmoid (1:1 is the ``scale`` run).
``t0`` (the sigmoid's midpoint and level)
    all schemes at ``R = 20, I = 40``, seeds 0-1, sigmoid with ``t0`` in
    {0, 4, 8, 16} (``amp = 1``) and ``t0 = 4`` with ``amp = e`` (the level
    ``tau e^{0.25 t0}``: the logistic whose early phase is the printed
    ``tau e^{0.25 d}``).

Every schedule is checked by the paper's checker on ``T`` extended to its
makespan (``optsched.okita.experiments.evaluate``); ``cpu_s`` is the
process CPU time of the run.  The CSV goes to
``benchmarks/data/okita_cost_reading.csv`` (``--out``), atomically; the
summary tables (reductions, spreads, Fig. 14's order) are printed and are
the ones in docs/okita.md, "Diagnosis: the cost reading".  One process,
about 15 minutes of CPU; ``--quick`` (the figures' quick instance, one
seed) takes seconds.

Run: ``python -m benchmarks.okita_cost_reading [--quick] [--out F]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optsched
from benchmarks.common import print_table
from optsched.core.experiment import write_atomic
from optsched.okita import LatencyCost
from optsched.okita import experiments as ex

OUT = Path("benchmarks/data/okita_cost_reading.csv")
SCHEMES = ex.SCHEMES
COLUMNS = [
    "part", "n_sites", "n_jobs", "n_slots", "cost", "t0", "amp", "seed",
    "setting", *ex.OKITA_PARAMS, "scheme", "total", "latency", "bandwidth",
    "transfer", "exchange", "makespan", "past_T", "ps_gaps", "runtime_s", "cpu_s",
]  # fmt: skip
PAPER = {"n_sites": 50, "n_jobs": 100, "n_slots": 150}
MID = {"n_sites": 20, "n_jobs": 40, "n_slots": 150}
QUICK = dict(ex.SIM_QUICK)
READINGS = ("exp", "sigmoid", "linear")


def _settings() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The alpha and beta settings of the Fig. 11-12 specs (same labels)."""
    from optsched.figures.okita import fig11_alpha, fig12_beta

    return list(fig11_alpha.SETTINGS), list(fig12_beta.SETTINGS)


@dataclasses.dataclass(frozen=True)
class Run:
    """One scheme on one instance: size, cost reading, seed, Okita's factors."""

    part: str
    size: tuple[int, int, int]
    cost: str
    seed: int
    scheme: str
    t0: float = math.nan
    amp: float = math.nan
    setting: str = ""
    params: tuple[tuple[str, float], ...] = ()

    def key(self) -> tuple:
        """Identity of the run (``part`` excluded: shared runs are computed once)."""
        return (self.size, self.cost, self.seed, self.scheme, self.t0, self.amp,
                self.params)  # fmt: skip


_INSTANCES: dict[tuple, Any] = {}


def instance(size: tuple[int, int, int], cost: str, seed: int, t0: float, amp: float):
    """``generate`` of the size and cost; sigmoid variants re-parametrise ``f``."""
    key = (size, cost, seed, t0, amp)
    if key not in _INSTANCES:
        R, I_, T = size
        gen = "sigmoid" if cost == "sigmoid" else cost
        inst = optsched.okita.generate(seed, R, I_, T, cost=gen)
        if cost == "sigmoid" and (t0, amp) != (4.0, 1.0):
            jobs = tuple(
                dataclasses.replace(
                    j, cost=LatencyCost.sigmoid(amp * j.cost.tau, 0.25, t0)
                )
                for j in inst.jobs
            )
            inst = dataclasses.replace(inst, jobs=jobs)
        _INSTANCES[key] = inst
    return _INSTANCES[key]


def plan(quick: bool) -> list[Run]:
    """Every run of the module docstring's parts, in order (duplicates kept)."""
    alphas, betas = _settings()
    paper, mid = (QUICK, QUICK) if quick else (PAPER, MID)
    seeds = [0] if quick else [0, 1]
    size = lambda d: (d["n_sites"], d["n_jobs"], d["n_slots"])  # noqa: E731
    sig = lambda c: (4.0, 1.0) if c == "sigmoid" else (math.nan, math.nan)  # noqa: E731
    runs: list[Run] = []
    scale = (
        [(3, 6, 30), (4, 6, 30), (4, 3, 30)]
        if quick
        else [(10, 100, 150), (50, 100, 150), (50, 20, 150)]
    )
    for cost in READINGS:
        for s in scale:
            for seed in seeds:
                runs += [Run("scale", s, cost, seed, x, *sig(cost)) for x in SCHEMES]
    for seed in seeds:
        runs += [Run("functions", size(paper), "piecewise", seed, x) for x in SCHEMES]
    for cost in READINGS:
        for st in [*alphas, *betas]:
            params = tuple((k, float(st[k])) for k in ex.OKITA_PARAMS if k in st)
            for seed in seeds:
                runs.append(
                    Run(
                        "factors",
                        size(mid),
                        cost,
                        seed,
                        "okita",
                        *sig(cost),
                        st["setting"],
                        params,
                    )  # fmt: skip
                )
    for cost in ("exp", "sigmoid"):
        for st in (alphas[0], alphas[-1]):
            params = tuple((k, float(st[k])) for k in ex.OKITA_PARAMS if k in st)
            runs.append(
                Run(
                    "factors_paper",
                    size(paper),
                    cost,
                    0,
                    "okita",
                    *sig(cost),
                    st["setting"],
                    params,
                )  # fmt: skip
            )
    for t0, amp in ((0.0, 1.0), (4.0, 1.0), (8.0, 1.0), (16.0, 1.0), (4.0, math.e)):
        for seed in seeds:
            runs += [Run("t0", size(mid), "sigmoid", seed, x, t0, amp) for x in SCHEMES]
    return runs


def measure(run: Run) -> dict[str, Any]:
    """Run one scheme and check it (module docstring); one CSV row."""
    p = optsched.get_paper("okita")
    inst = instance(run.size, run.cost, run.seed, run.t0, run.amp)
    task = dict(run.params)
    c0 = time.process_time()
    sched, runtime = ex.run_scheme(p, inst, run.scheme, task)
    row = ex.evaluate(inst, sched)
    cpu = time.process_time() - c0
    R, I_, T = run.size
    return {
        "part": run.part, "n_sites": R, "n_jobs": I_, "n_slots": T,
        "cost": run.cost, "t0": run.t0, "amp": run.amp, "seed": run.seed,
        "setting": run.setting,
        **{k: dict(run.params).get(k, 1.0) for k in ex.OKITA_PARAMS},
        "scheme": run.scheme, **row, "runtime_s": runtime, "cpu_s": cpu,
    }  # fmt: skip


# ---------------------------------------------------------------- summaries
def _variant(df: pd.DataFrame) -> pd.Series:
    """``exp`` / ``linear`` / ``piecewise`` / ``sigmoid t0=4`` / ``... amp=e``."""
    out = df["cost"].astype(str)
    sig = df["cost"] == "sigmoid"
    lab = [
        f"sigmoid t0={t0:g}" + ("" if amp == 1.0 else f" amp={amp:.3g}")
        for t0, amp in zip(df.loc[sig, "t0"], df.loc[sig, "amp"], strict=True)
    ]
    out.loc[sig] = lab
    return out


def reductions(df: pd.DataFrame) -> pd.DataFrame:
    """Per reading and size: mean totals and Okita's reductions (Figs. 9-10, 14).

    ``red_<b>`` = ``1 - mean(Okita) / mean(b)`` over the seeds; ``red_best``
    against the baseline of the lowest mean; ``lat_share`` = Okita's latency
    share of its total; ``past_T`` = runs past ``T`` (all schemes).
    """
    d = df[df["setting"].isna() | (df["setting"].astype(str) == "")].copy()
    d["variant"] = _variant(d)
    keys = ["variant", "n_sites", "n_jobs", "n_slots"]
    t = d.pivot_table(index=keys, columns="scheme", values="total", aggfunc="mean")
    t = t[[s for s in SCHEMES if s in t.columns]]
    out = pd.DataFrame(index=t.index)
    for s in t.columns:
        out[f"mean_{s}"] = t[s]
    others = [s for s in t.columns if s != "okita"]
    for s in others:
        out[f"red_{s}"] = 1.0 - t["okita"] / t[s]
    out["red_best"] = 1.0 - t["okita"] / t[others].min(axis=1)
    ok = d[d["scheme"] == "okita"].groupby(keys)[["latency", "total"]].mean()
    out["lat_share"] = ok["latency"] / ok["total"]
    out["past_T"] = d.groupby(keys)["past_T"].sum()
    out["runs"] = d.groupby(keys).size()
    return out.reset_index()


def spreads(df: pd.DataFrame) -> pd.DataFrame:
    """Okita's ``(max - min) / min`` of the mean total over the alpha / beta settings."""
    alphas, betas = _settings()
    groups = {
        "alpha": {s["setting"] for s in alphas},
        "beta": {s["setting"] for s in betas},
    }
    named = df["setting"].notna() & (df["setting"].astype(str) != "")
    d = df[(df["scheme"] == "okita") & named]
    rows = []
    keys = ["part", "cost", "n_sites", "n_jobs"]
    for k, g in d.groupby(keys):
        for name, labels in groups.items():
            m = g[g["setting"].isin(labels)].groupby("setting")["total"].mean()
            if len(m) < 2:
                continue
            rows.append(
                {**dict(zip(keys, k, strict=True)), "factors": name,
                 "settings": len(m), "min": m.min(), "max": m.max(),
                 "argmax": m.idxmax(), "spread": (m.max() - m.min()) / m.min()}
            )  # fmt: skip
    return pd.DataFrame(rows)


def fig14_order(red: pd.DataFrame, size: tuple[int, int, int]) -> pd.DataFrame:
    """Fig. 14 at ``size``: reduction vs the best benchmark per cost."""
    R, I_, T = size
    r = red[(red["n_sites"] == R) & (red["n_jobs"] == I_) & (red["n_slots"] == T)]
    return r[["variant", "red_best", "red_fifo", "red_drf", "red_oasis"]]


def main(out: Path = OUT, quick: bool = False) -> pd.DataFrame:
    """Run every part (module docstring), write the CSV, print the summaries."""
    runs, done, rows = plan(quick), set(), []
    c0, t0 = time.process_time(), time.perf_counter()
    for k, run in enumerate(runs):
        if run.key() in done:
            continue
        done.add(run.key())
        rows.append(measure(run))
        if not quick and k % 20 == 0:
            print(f"  {k}/{len(runs)} runs, {time.process_time() - c0:.0f} s CPU",
                  flush=True)  # fmt: skip
    df = pd.DataFrame(rows, columns=COLUMNS)
    write_atomic(out.parent, {out.name: lambda f: df.to_csv(f, index=False)})
    red = reductions(df)
    print("\nOkita's reduction of the mean total cost (Figs. 9-10, 14; t0 part):")
    print_table(red.drop(columns=[c for c in red if c.startswith("mean_")]))
    print(
        "\nSpread of Okita's mean total over the alpha / beta settings (Figs. 11-12):"
    )
    print_table(spreads(df))
    print(f"\n{len(df)} runs, {time.process_time() - c0:.0f} s CPU, "
          f"{time.perf_counter() - t0:.0f} s wall; CSV {out}")  # fmt: skip
    return df


def cli() -> None:
    """``python -m benchmarks.okita_cost_reading [--quick] [--out F]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny instances (a test)")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    main(a.out, a.quick)


if __name__ == "__main__":
    np.seterr(over="ignore")
    cli()
