"""What would make OASiS's Fig. 3 gap grow with the load: 50 + 50 servers, an ablation.

The facts (issue 25, section 4, "oasis Fig. 3 'gap grows with load'"): on
``fig3_total_utility`` (``T = 300``, ``H = K = 10``, 25 / 50 / 100 / 200
jobs, offered worker load 0.23 / 0.46 / 0.83 / 1.63, 5 seeds) the literal
OASiS earns 0.94 (Dorm) / 0.89 (Dorm) / 0.69 (RRH) / 0.39 (RRH) of the best
baseline's mean total utility; the paper (Sec. V-A): "OASiS performs the
best, especially when the number of jobs in the fixed timespan is larger
(resources are more scarce)", at ``H = K = 50``.

Two sections (column ``section``), one process, every schedule through the
public API (``p.run``) and the paper's checker (``p.check``; column
``checked``; the utility is the checker's):

``scale``
    The paper's 50 + 50 servers, ``T = 300``, job counts :data:`SCALE_JOBS`
    (170 / 340 / 600 / 1,200) chosen so that the mean offered worker load
    (``ex.offered_load``) spans the 10 + 10 run's 0.23-1.63 (load per job
    is about 1/5.2 of the 10 + 10 one on these seeds), seeds
    :data:`SCALE_SEEDS` (2, not 5: DRF takes 100 s and OASiS 45 s of CPU per
    1,000-job instance, and the run shares 2 cores).  Schemes: OASiS and
    FIFO, DRF, RRH at every point; Dorm only at the lowest load (170 jobs,
    :data:`SCALE_DORM_MAX_JOBS`), each MILP re-solve capped by its existing
    ``DormParams.time_limit`` at :data:`DORM_TIME_LIMIT` s (column
    ``solver_limit_hits``: re-solves that stopped before proving
    optimality, of ``dorm_solves``): it re-solves a MILP at every arrival
    and completion, 36 s of CPU at 170 jobs and far more with more active
    jobs.  In the recorded 10 + 10 run Dorm is the best baseline only at
    the two lowest loads; without it a ratio can only be higher (an upper
    bound of OASiS / best baseline).  ``oasis_lfloor`` is not run at this
    size (its ``F`` needs Alg. 2 once more per job; CPU budget), it is in
    the ablation.
``ablation``
    On the instances of ``fig3_total_utility`` (10 + 10 servers, ``T =
    300``, 25 / 50 / 100 / 200 jobs, seeds :data:`ABLATION_SEEDS`), ONE knob
    at a time away from the literal setting (column ``knob``, ``value``;
    ``value == "literal"`` is the figure's setting).  Baselines FIFO, DRF,
    RRH (not Dorm, as above).  Knobs:

    ``pricing``
        The price parameters of OASiS only (the instances and the baselines'
        rows are the literal ones): ``oasis_lfloor`` (the registered
        variant), and ``alpha=<a>`` (a = 10, 8, 7, 6, 5): ``L`` raised per
        side so that ``ln(U^r / L) <= a`` for every demanded resource
        (:func:`capped_prices`, passed as ``OasisParams(prices=...)``; the
        literal ``ln(U/L)`` is about 1,400 at ``T = 300``).
    ``job_mix``
        The generator's shares of time-insensitive / -sensitive / -critical
        jobs (literal 0.10 / 0.55 / 0.35): ``no_critical`` (0.10 / 0.90 /
        0) -- the utility's steepness and the ``L`` collapse come from the
        critical jobs.
    ``gamma1``
        Priority range (literal [1, 100]): ``[1, 10000]``, values spread
        over four decades, so that choosing which jobs to serve matters more.
    ``tau``
        Job size: ``tau_i`` in the paper's [0.001, 0.1] slots (literal,
        calibrated: [0.001, 0.01]); jobs up to 10x longer, so the same job
        counts are up to 5x the load.
    ``load_axis``
        The offered load definition: resources made scarce by fewer servers
        at a fixed 100 jobs (``H = K`` = 40 / 20 / 10 / 5) instead of more
        jobs on 10 + 10 servers.
    ``fixed_workers``
        The fixed worker count of FIFO and RRH (literal ``ceil(N_i / 2)``;
        paper: "a number within [1, 30]"): ``N_i`` (the most (3) allows);
        OASiS and DRF rows are the literal ones.

Summary (:func:`summary`): per configuration and point, the mean load,
the mean utility of each scheme over seeds, the best baseline and OASiS /
best baseline (``ratio``); :func:`verdicts` gives per configuration the
ratio at each load, ``trend`` = ratio at the highest minus at the lowest
load (the paper: > 0) and whether it rises at every step.  Rows that a
configuration shares with another (the same scheme, parameters and
instance) are computed once and repeated (column ``shared``).

Run: ``python -m benchmarks.oasis_fig3_diagnosis [--quick] [--out F]``
(quick: 4 / 12 jobs, ``T = 30``, 2 + 2 servers (scale: 3 + 3), seed 0).
Writes ``benchmarks/data/oasis_fig3_diagnosis.csv`` after every section.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optsched
from benchmarks.common import print_table
from optsched.core.experiment import write_atomic
from optsched.oasis import experiments as ex
from optsched.oasis.baselines import DormParams, FifoParams, RrhParams
from optsched.oasis.online import OasisParams, PriceParams, price_params

OUT = Path("benchmarks/data/oasis_fig3_diagnosis.csv")
#: The baselines measured (Dorm left out: module docstring).
BASELINES = ("fifo", "drf", "rrh")
SCALE_JOBS = (170, 340, 600, 1200)
SCALE_SEEDS = (0, 1)
#: Dorm runs in the scale section on instances with at most this many jobs,
#: each MILP re-solve capped at :data:`DORM_TIME_LIMIT` seconds.
SCALE_DORM_MAX_JOBS = 170
DORM_TIME_LIMIT = 0.5
ABLATION_JOBS = (25, 50, 100, 200)
ABLATION_SEEDS = (0, 1, 2)
COLUMNS = [
    "section", "knob", "value", "point", "seed", "scheme", "role", "utility",
    "n_admitted", "load", "log_ul", "runtime_s", "solver_limit_hits", "dorm_solves",
    "checked", "shared", "n_slots",
    "n_jobs", "n_worker_servers", "n_ps_servers",
]  # fmt: skip


@dataclass(frozen=True)
class Setting:
    """Sizes of one run: the job counts and seeds of both sections, ``T``, servers."""

    scale_jobs: tuple[int, ...] = SCALE_JOBS
    scale_seeds: tuple[int, ...] = SCALE_SEEDS
    scale_servers: int = 50
    scale_dorm_max_jobs: int = SCALE_DORM_MAX_JOBS
    jobs: tuple[int, ...] = ABLATION_JOBS
    seeds: tuple[int, ...] = ABLATION_SEEDS
    servers: int = 10
    load_axis_servers: tuple[int, ...] = (40, 20, 10, 5)
    load_axis_jobs: int = 100
    n_slots: int = 300


FULL = Setting()
QUICK = Setting(
    scale_jobs=(4, 12), scale_seeds=(0,), scale_servers=3, scale_dorm_max_jobs=4,
    jobs=(4, 12),
    seeds=(0,), servers=2, load_axis_servers=(4, 2), load_axis_jobs=8, n_slots=30,
)  # fmt: skip


@dataclass(frozen=True)
class Config:
    """One configuration: the instances (points) and how each role is run.

    ``points`` are ``generate`` keywords (without ``seed``); ``oasis`` is
    ``(scheme, alpha)`` of the row standing for OASiS; ``params`` maps a
    baseline to its parameters (default: the paper's defaults).
    """

    section: str
    knob: str
    value: str
    points: tuple[tuple[tuple[str, Any], ...], ...]
    seeds: tuple[int, ...]
    oasis: tuple[str, float | None] = ("oasis", None)
    params: dict[str, Any] = field(default_factory=dict)
    extra: tuple[str, ...] = ()  # further OASiS variants run beside (scale)
    dorm_max_jobs: int = 0  # Dorm on points with at most this many jobs


def capped_prices(inst: Any, alpha: float) -> PriceParams:
    """The literal price parameters with ``L`` raised so that ``ln(U^r/L) <= alpha``.

    Per side, ``ln L' = max(ln L, min(max_r ln U^r - alpha, min_r ln U^r))``
    over the demanded resources (``L' <= U^r``: prices still rise with
    usage); the prices of resources no job demands stay at ``L'``.
    """
    pp = price_params(inst)

    def side(log_u: np.ndarray, log_l: float, demanded: np.ndarray | None):
        mask = np.ones(len(log_u), bool) if demanded is None else demanded
        if not mask.any():
            return log_u, log_l
        du = log_u[mask]
        new_l = max(log_l, min(float(du.max()) - alpha, float(du.min())))
        out = log_u.copy()
        out[~mask] = new_l
        return out, new_l

    u1, l1 = side(pp.log_U1, pp.log_L1, pp.demanded1)
    u2, l2 = side(pp.log_U2, pp.log_L2, pp.demanded2)
    return dataclasses.replace(pp, log_U1=u1, log_U2=u2, log_L1=l1, log_L2=l2)


def _size(n_jobs: int, servers: int, n_slots: int, **gen: Any) -> tuple:
    kw = {
        "n_jobs": n_jobs,
        "n_slots": n_slots,
        "n_worker_servers": servers,
        "n_ps_servers": servers,
        **gen,
    }
    return tuple(sorted(kw.items()))


def configs(s: Setting) -> list[Config]:
    """The scale section's configuration, then the ablation's (module docstring)."""
    scale = tuple(_size(n, s.scale_servers, s.n_slots) for n in s.scale_jobs)
    out = [
        Config("scale", "servers", f"{s.scale_servers}+{s.scale_servers}", scale,
               s.scale_seeds, dorm_max_jobs=s.scale_dorm_max_jobs),
    ]  # fmt: skip

    def grid(**gen: Any) -> tuple:
        return tuple(_size(n, s.servers, s.n_slots, **gen) for n in s.jobs)

    lit = grid()
    abl = [
        ("literal", "literal", lit, ("oasis", None), {}),
        ("pricing", "oasis_lfloor", lit, ("oasis_lfloor", None), {}),
        ("pricing", "alpha=10", lit, ("oasis", 10.0), {}),
        ("pricing", "alpha=8", lit, ("oasis", 8.0), {}),
        ("pricing", "alpha=7", lit, ("oasis", 7.0), {}),
        ("pricing", "alpha=6", lit, ("oasis", 6.0), {}),
        ("pricing", "alpha=5", lit, ("oasis", 5.0), {}),
        ("job_mix", "no_critical", grid(job_mix=(0.1, 0.9, 0.0)), None, {}),
        ("gamma1", "[1, 10000]", grid(gamma1_range=(1.0, 1e4)), None, {}),
        ("tau", "[0.001, 0.1]", grid(tau_range=(0.001, 0.1)), None, {}),
        ("load_axis", f"servers at {s.load_axis_jobs} jobs",
         tuple(_size(s.load_axis_jobs, h, s.n_slots) for h in s.load_axis_servers),
         None, {}),
        ("fixed_workers", "N_i", lit, None,
         {"fifo": "N", "rrh": "N"}),
    ]  # fmt: skip
    for knob, value, pts, oas, params in abl:
        out.append(
            Config("ablation", knob, value, pts, s.seeds,
                   oasis=oas or ("oasis", None), params=params)
        )  # fmt: skip
    return out


def _params(p_name: str, spec: Any, inst: Any) -> Any:
    """The ``...Params`` of a baseline: ``"N"`` means ``n_workers = N_i``."""
    if spec is None:
        return None
    if p_name == "dorm":
        return DormParams(time_limit=float(spec))
    counts = [int(n) for n in inst.N]
    return {"fifo": FifoParams, "rrh": RrhParams}[p_name](n_workers=counts)


class Runner:
    """Runs (and caches) checked schedules: one row per instance x scheme x params."""

    def __init__(self) -> None:
        self.p = optsched.get_paper("oasis")
        self.cache: dict[tuple, dict[str, Any]] = {}
        self.insts: dict[tuple, Any] = {}

    def instance(self, point: tuple, seed: int) -> Any:
        """``p.generate(seed, **point)``, generated once."""
        key = (point, seed)
        if key not in self.insts:
            self.insts[key] = self.p.generate(seed=seed, **dict(point))
        return self.insts[key]

    def row(self, point: tuple, seed: int, scheme: str, how: Any = None) -> tuple:
        """``(row, shared)``: the checked run of ``scheme`` (``how``: alpha or params)."""
        key = (point, seed, scheme, repr(how))
        if key in self.cache:
            return self.cache[key], True
        inst = self.instance(point, seed)
        if scheme == "oasis" and how is not None:
            pp = capped_prices(inst, float(how))
            params: Any = OasisParams(prices=pp)
        else:
            params = _params(scheme, how, inst)
        sched, runtime, ev = ex.checked_run(self.p, inst, scheme, params)
        pp_used = sched.meta.get("params")
        solves = sched.meta.get("solves")
        r = {
            "scheme": scheme,
            "utility": ev.objective,
            "n_admitted": ev.n_admitted,
            "load": ex.offered_load(inst),
            "log_ul": np.nan if pp_used is None else pp_used.log_ul,
            "runtime_s": runtime,
            "solver_limit_hits": np.nan
            if solves is None
            else float(sum(1 for x in solves if x[1] != "optimal")),
            "dorm_solves": np.nan if solves is None else float(len(solves)),
            "checked": True,  # ex.checked_run raises if p.check refuses
            "n_slots": inst.n_slots,
            "n_jobs": inst.n_jobs,
            "n_worker_servers": inst.n_worker_servers,
            "n_ps_servers": inst.n_ps_servers,
        }
        self.cache[key] = r
        return r, False


def run_config(run: Runner, c: Config) -> list[dict[str, Any]]:
    """Every point x seed x role of one configuration."""
    rows = []
    head = {"section": c.section, "knob": c.knob, "value": c.value}
    for k, point in enumerate(c.points):
        for seed in c.seeds:
            roles = [("oasis", c.oasis[0], c.oasis[1])]
            roles += [(b, b, c.params.get(b)) for b in BASELINES]
            roles += [(v, v, None) for v in c.extra]
            if dict(point)["n_jobs"] <= c.dorm_max_jobs:
                roles.append(("dorm", "dorm", DORM_TIME_LIMIT))
            for role, scheme, how in roles:
                r, shared = run.row(point, seed, scheme, how)
                rows.append({**head, "point": k, "seed": seed, "role": role,
                             **r, "shared": shared})  # fmt: skip
    return rows


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration x point: mean load, mean utility per role, best baseline, ratio."""
    keys = ["section", "knob", "value", "point"]
    t = df.pivot_table(index=keys, columns="role", values="utility", aggfunc="mean")
    load = df.groupby(keys)[["load", "n_jobs", "n_worker_servers"]].mean()
    t = t.join(load)
    base = [b for b in (*BASELINES, "dorm") if b in t.columns]
    t["best_baseline"] = t[base].idxmax(axis=1)
    best = t[base].max(axis=1)
    t["ratio"] = t["oasis"] / best.where(best > 0)
    if "oasis_lfloor" in t.columns:
        t["lfloor_ratio"] = t["oasis_lfloor"] / best.where(best > 0)
    return t.reset_index()


def verdicts(df: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: ratio per load (ascending), trend (last - first), monotone."""
    out = []
    for (sec, knob, value), g in summary(df).groupby(
        ["section", "knob", "value"], sort=False
    ):
        g = g.sort_values("load")
        r = g["ratio"].to_numpy()
        row = {
            "section": sec, "knob": knob, "value": value,
            "loads": " / ".join(f"{x:.2f}" for x in g["load"]),
            "ratios": " / ".join(
                f"{x:.2f} ({b})" for x, b in zip(r, g["best_baseline"], strict=True)
            ),
            "trend": float(r[-1] - r[0]),
            "rising": bool(np.all(np.diff(r) > 0)),
            "oasis_best": bool(np.all(r >= 1.0)),
        }  # fmt: skip
        if "lfloor_ratio" in g:
            lf = g["lfloor_ratio"].to_numpy()
            row["lfloor_ratios"] = " / ".join(f"{x:.2f}" for x in lf)
            row["lfloor_trend"] = float(lf[-1] - lf[0])
        out.append(row)
    return pd.DataFrame(out)


def _write(rows: Iterable[dict[str, Any]], out: Path) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=COLUMNS)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out.parent, {out.name: lambda f: df.to_csv(f, index=False)})
    return df


def main(out: Path = OUT, quick: bool = False) -> pd.DataFrame:
    """Run the ablation, then the 50 + 50 section; write the rows after each config."""
    s = QUICK if quick else FULL
    run = Runner()
    rows: list[dict[str, Any]] = []
    cfgs = configs(s)
    for c in cfgs[1:] + cfgs[:1]:  # ablation first: the scale section is the longest
        t0, c0 = time.perf_counter(), time.process_time()
        rows += run_config(run, c)
        df = _write(rows, out)
        print(
            f"  {c.section} {c.knob} {c.value}: {time.perf_counter() - t0:.1f} s wall, "
            f"{time.process_time() - c0:.1f} s CPU",
            flush=True,
        )
    with pd.option_context("display.max_colwidth", 80):
        print_table(verdicts(df))
    return df


def _cli() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    main(a.out, a.quick)


if __name__ == "__main__":
    _cli()


__all__ = ["capped_prices", "configs", "main", "summary", "verdicts"]
