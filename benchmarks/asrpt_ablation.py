"""Why A-SRPT (Alg. 1) loses to SPWF at the paper's scale: an ablation.

The paper (Sec. V-B, Fig. 6) reports A-SRPT 31-91% below every baseline in
total completion time on 250 servers x 8 GPUs with 37,500-150,000 jobs; on
the synthetic generator at that size (``generate(0, trace=None, load=0.9,
predictor="median")``) our A-SRPT is several times SPWF.  This script
measures, on one instance, every scheme and an ablation ladder that switches
ONE component of A-SRPT at a time (:mod:`optsched.asrpt.variants`), then
the regimes in which the virtual order of A~_1 can matter.  Sections
(column ``section``):

``schemes``
    A-SRPT, A-SRPT-Perfect, the eager variant, the five baselines with the
    servers of the most free GPUs (ours) and on the fewest servers possible
    (named variants ``*_fewest``), and the named variant
    ``asrpt_consolidate``.
``ladder``
    A-SRPT with one component switched (``component`` = ``value``): the
    virtual-completion gate (``gate=arrival``), the queue order
    (``order=arrival`` / ``workload``), the communication-heavy wait
    (``wait=none``, ``tau=0``), the server rule (``servers=most`` / ``least``
    / ``fewest``), backfilling (``backfill=True``), the predictor
    (``predictor=perfect`` / ``rf``: A-SRPT on the same jobs with other
    predictions); and the cumulative rows ``combined`` (the components that
    cost most, switched together).
``regimes``
    A-SRPT, SPWF, SPWF on the fewest servers, ``asrpt_consolidate`` and
    A-SRPT ordered by workload (and, at burst 1, SPJF and the three WCS
    baselines), per load (``load``), per burst (``burst``:
    arrivals rounded down to multiples of ``burst`` slots, the same jobs in
    batches) and per cluster size (``servers``: the same jobs per GPU as
    the paper, 18.75); ``kendall_tau`` is Kendall's tau between A~_1's
    completion times and the arrival times (1: the virtual order is the
    arrival order).
``fig8``
    A-SRPT (random forest) vs A-SRPT-Perfect on the quick Fig. 8 window (100
    trace jobs, no single-GPU job, 2 x 8 GPUs, 1 Gbps), and both without the
    communication-heavy window: the mechanism of the Perfect-vs-RF inversion
    (``split_jobs``: jobs placed with ``alpha > 1.5 alpha~^min``).

Every schedule goes through the paper's checker (``p.check``) before its
objective is used (``checked``); ``ratio_spwf`` is the objective over
SPWF's on the same instance.  The CSV goes to
``benchmarks/data/asrpt_ablation.csv`` (``--out``), atomically.  One
process; the default (37,500 jobs) takes about 10 minutes on one core.

Run: ``python -m benchmarks.asrpt_ablation [--quick] [--jobs 150000] [--out F]
[--sections regimes,fig8]`` (``--sections``: run only those sections and
replace their rows in the CSV at ``--out``, keeping the others).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

import optsched
from benchmarks.common import print_table
from optsched.asrpt import AsrptInstance, AsrptSchedule
from optsched.asrpt.online import AsrptParams, virtual_durations
from optsched.asrpt.sim import srpt
from optsched.asrpt.variants import VARIANTS, AblationParams, asrpt_ablation
from optsched.core.experiment import write_atomic

OUT = Path("benchmarks/data/asrpt_ablation.csv")
#: The paper's simulation size (Sec. V-B) and the issue's instance.
PAPER = {"n_jobs": 37_500, "n_servers": 250, "gpus_per_server": 8}
GEN = {"trace": None, "load": 0.9, "predictor": "median"}
QUICK = {"n_jobs": 400, "n_servers": 8, "gpus_per_server": 8}
#: Jobs per GPU of the paper's Fig. 6 at 37,500 jobs (37,500 / 2,000).
JOBS_PER_GPU = 18.75
COLUMNS = [
    "section", "config", "component", "value", "scheme", "objective",
    "ratio_spwf", "kendall_tau", "split_jobs", "n_jobs", "n_servers", "load",
    "burst", "predictor", "nic_gbps", "runtime_s", "checked",
]  # fmt: skip

Run = Callable[[AsrptInstance], AsrptSchedule]


def _abl(**kw: Any) -> Run:
    return lambda inst: asrpt_ablation(inst, params=AblationParams(**kw))


#: (component, value, params) of the ladder: one switch from Alg. 1 each.
LADDER: list[tuple[str, str, dict[str, Any]]] = [
    ("none", "Alg. 1 (asrpt)", {}),
    ("gate", "arrival", {"gate": "arrival"}),
    ("order", "arrival", {"order": "arrival"}),
    ("order", "workload", {"order": "workload"}),
    ("wait", "none", {"wait": "none"}),
    ("wait", "tau=0", {"tau": 0.0}),
    ("servers", "most", {"servers": "most"}),
    ("servers", "least", {"servers": "least"}),
    ("servers", "fewest", {"servers": "fewest"}),
    ("backfill", "True", {"backfill": True}),
    ("combined", "order=workload, servers=fewest",
     {"order": "workload", "servers": "fewest"}),
    ("combined", "order=workload, servers=fewest, backfill",
     {"order": "workload", "servers": "fewest", "backfill": True}),
    ("combined", "gate=arrival, order=arrival, wait=none",
     {"gate": "arrival", "order": "arrival", "wait": "none"}),
]  # fmt: skip

REGIME_SCHEMES = ("asrpt", "spwf", "spwf_fewest", "asrpt_consolidate", "asrpt_workload")
# the other baselines, on the unbatched instance of each load only
REGIME_EXTRA = ("spjf", "wcs_duration", "wcs_workload", "wcs_subtime")
SECTIONS = ("schemes", "ladder", "regimes", "fig8")


def kendall(inst: AsrptInstance) -> float:
    """Kendall's tau between A~_1's SRPT completion times and the arrivals."""
    size = virtual_durations(inst, inst.predicted)
    done = srpt(inst.arrival.astype(float), size)
    if np.ptp(inst.arrival) == 0:
        return float("nan")
    return float(kendalltau(done, inst.arrival).statistic)


def burst(inst: AsrptInstance, every: int) -> AsrptInstance:
    """The same jobs submitted in batches: arrivals rounded down to ``every`` slots."""
    if every <= 1:
        return inst
    jobs = tuple(
        dataclasses.replace(j, arrival=(j.arrival // every) * every) for j in inst.jobs
    )
    return AsrptInstance(inst.cluster, jobs, inst.slot, dict(inst.meta))


def _runner(name: str) -> Run:
    p = optsched.get_paper("asrpt")
    if name in p.algorithms:
        return lambda inst: p.run(name, inst)
    if name in VARIANTS:
        return VARIANTS[name]
    if name == "asrpt_workload":
        return _abl(order="workload")
    raise KeyError(name)


def measure(inst: AsrptInstance, run: Run) -> dict[str, Any]:
    """Run, check with the paper's checker, and return the row's measured part."""
    p = optsched.get_paper("asrpt")
    t0 = time.perf_counter()
    sched = run(inst)
    runtime = time.perf_counter() - t0
    ev = p.check(inst, sched)  # raises InfeasibleScheduleError if infeasible
    split = int((ev.alpha > 1.5 * inst.alpha_min_est * (1 + 1e-12)).sum())
    return {"objective": float(ev.objective), "runtime_s": runtime,
            "checked": True, "split_jobs": split}  # fmt: skip


def _base(inst: AsrptInstance, **kw: Any) -> dict[str, Any]:
    row: dict[str, Any] = {c: np.nan for c in COLUMNS}
    row.update(
        n_jobs=inst.n_jobs,
        n_servers=inst.cluster.n_servers,
        nic_gbps=inst.cluster.b_inter * 8.0,
        predictor=inst.meta.get("predictor", ""),
        checked=False,
    )
    row.update(kw)
    return row


def _ratio(rows: list[dict[str, Any]], spwf: float) -> list[dict[str, Any]]:
    for r in rows:
        r["ratio_spwf"] = r["objective"] / spwf
    return rows


def section_schemes(inst: AsrptInstance, config: str) -> list[dict[str, Any]]:
    """Every registered scheme and every named variant on ``inst``."""
    names = [*optsched.get_paper("asrpt").algorithms, *VARIANTS]
    rows = [
        _base(inst, section="schemes", config=config, component="scheme",
              value=n, scheme=n, load=GEN["load"], burst=1) | measure(inst, _runner(n))
        for n in names
    ]  # fmt: skip
    spwf = next(r["objective"] for r in rows if r["scheme"] == "spwf")
    return _ratio(rows, spwf)


def section_ladder(
    inst: AsrptInstance, config: str, spwf: float, gen: dict[str, Any]
) -> list[dict[str, Any]]:
    """A-SRPT with one component switched at a time (and the combined rows)."""
    rows = []
    for comp, value, kw in LADDER:
        rows.append(
            _base(inst, section="ladder", config=config, component=comp,
                  value=value, scheme="asrpt_ablation", load=GEN["load"], burst=1)
            | measure(inst, _abl(**kw))
        )  # fmt: skip
    perfect = AsrptParams(predicted=tuple(inst.iterations))
    preds: list[tuple[str, Run]] = [
        ("perfect", lambda i: optsched.asrpt.asrpt(i, params=perfect))
    ]
    rf = optsched.asrpt.generate(0, **{**gen, "predictor": "rf"})
    preds.append(
        (
            "rf",
            lambda i: optsched.asrpt.asrpt(
                i, params=AsrptParams(predicted=tuple(rf.predicted))
            ),
        )
    )
    for value, run in preds:
        rows.append(
            _base(inst, section="ladder", config=config, component="predictor",
                  value=value, scheme="asrpt", load=GEN["load"], burst=1,
                  predictor=value) | measure(inst, run)
        )  # fmt: skip
    return _ratio(rows, spwf)


def section_regimes(
    size: dict[str, Any], loads: list[float], bursts: list[int], servers: list[int]
) -> list[dict[str, Any]]:
    """Load x burst on ``size``, then cluster sizes at the paper's jobs per GPU."""
    cases: list[tuple[str, AsrptInstance, float, int]] = []
    for load in loads:
        inst = optsched.asrpt.generate(0, **{**size, **GEN, "load": load})
        for b in bursts:
            cases.append((f"load {load}, burst {b}", burst(inst, b), load, b))
    for m in servers:
        n = max(1, round(JOBS_PER_GPU * m * size["gpus_per_server"]))
        sz = {**size, "n_servers": m, "n_jobs": n}
        inst = optsched.asrpt.generate(0, **{**sz, **GEN})
        cases.append((f"{m} servers, {n} jobs", inst, GEN["load"], 1))
    rows = []
    for config, inst, load, b in cases:
        tau = kendall(inst)
        got = [
            _base(inst, section="regimes", config=config, component="regime",
                  value=config, scheme=s, load=load, burst=b, kendall_tau=tau)
            | measure(inst, _runner(s))
            for s in REGIME_SCHEMES + (REGIME_EXTRA if b == 1 and "load" in config else ())
        ]  # fmt: skip
        spwf = next(r["objective"] for r in got if r["scheme"] == "spwf")
        rows += _ratio(got, spwf)
        print(f"  regime {config}: tau {tau:.3f}", flush=True)
    return rows


def section_fig8(n_jobs: int = 100) -> list[dict[str, Any]]:
    """A-SRPT (RF) vs A-SRPT-Perfect on the quick Fig. 8 window at 1 Gbps."""
    from optsched.asrpt.experiments import TRACE, _instance

    task = {**TRACE, "n_jobs": n_jobs, "single_gpu_share": 0.0, "nic_gbps": 1,
            "seed": 0}  # fmt: skip
    inst = _instance(task, "rf")
    true = tuple(inst.iterations)
    runs: list[tuple[str, str, Run]] = [
        ("asrpt", "rf", optsched.asrpt.asrpt),
        ("asrpt_perfect", "perfect", optsched.asrpt.asrpt_perfect),
        ("asrpt wait=none", "rf", _abl(wait="none")),
        ("asrpt_perfect wait=none", "perfect", _abl(wait="none", predicted=true)),
        ("spwf", "rf", _runner("spwf")),
    ]
    over = float(np.median(inst.predicted / inst.iterations))
    rows = [
        _base(inst, section="fig8", config=f"Fig. 8 quick, 1 Gbps, median "
              f"n~/n = {over:.2f}", component="predictor", value=pred,
              scheme=name, predictor=pred, burst=1) | measure(inst, run)
        for name, pred, run in runs
    ]  # fmt: skip
    spwf = rows[-1]["objective"]
    return _ratio(rows, spwf)


def main(
    out: Path = OUT,
    quick: bool = False,
    n_jobs: int | None = None,
    sections: tuple[str, ...] = SECTIONS,
) -> pd.DataFrame:
    """Run ``sections`` and write the CSV (module docstring).

    With fewer than all sections, the rows of the other sections are kept
    from the CSV already at ``out`` (which must exist).
    """
    bad = sorted(set(sections) - set(SECTIONS))
    if bad or not sections:
        raise ValueError(f"sections: one or more of {SECTIONS}, got {bad or sections}")
    kept = pd.DataFrame(columns=COLUMNS)
    if set(sections) != set(SECTIONS):
        if not out.exists():
            raise FileNotFoundError(f"--sections needs the CSV to update: {out}")
        kept = pd.read_csv(out)
        kept = kept[~kept["section"].isin(sections)]
    size = dict(QUICK if quick else PAPER)
    if n_jobs is not None:
        size["n_jobs"] = n_jobs
    gen = {**size, **GEN}
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if "schemes" in sections or "ladder" in sections:
        rows += _main_instance(size, gen, quick, sections, t0)
    if "regimes" in sections:
        rows += section_regimes(
            size,
            loads=[0.5, 0.9] if quick else [0.3, 0.6, 0.9],
            bursts=[1, 20] if quick else [1, 20, 100],
            servers=[2] if quick else [2, 16, 64],
        )
    if "fig8" in sections:
        rows += section_fig8(60 if quick else 100)
    print(f"  total: {time.perf_counter() - t0:.0f} s", flush=True)
    new = pd.DataFrame(rows, columns=COLUMNS)
    df = new if kept.empty else pd.concat([kept, new], ignore_index=True)
    order = {s: k for k, s in enumerate(SECTIONS)}
    df = df.sort_values("section", key=lambda c: c.map(order), kind="stable")
    df = df.reset_index(drop=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out.parent, {out.name: lambda f: df.to_csv(f, index=False)})
    show = df[["section", "config", "component", "value", "scheme", "objective",
               "ratio_spwf", "kendall_tau", "split_jobs", "runtime_s"]]  # fmt: skip
    print_table(show.assign(config=show["config"].str.slice(0, 28)))
    return df


def _main_instance(
    size: dict[str, Any],
    gen: dict[str, Any],
    quick: bool,
    sections: tuple[str, ...],
    t0: float,
) -> list[dict[str, Any]]:
    """The ``schemes`` section (always: the ladder needs SPWF) and the ladder."""
    inst = optsched.asrpt.generate(0, **gen)
    config = (
        f"{size['n_jobs']} jobs, {size['n_servers']} x {size['gpus_per_server']}"
        f" GPUs, load {GEN['load']}, median"
    )
    print(f"{'QUICK ' if quick else ''}instance: {config}, generated in "
          f"{time.perf_counter() - t0:.1f} s; Kendall tau {kendall(inst):.4f}",
          flush=True)  # fmt: skip
    rows = section_schemes(inst, config)
    for r in rows:
        r["kendall_tau"] = kendall(inst) if r is rows[0] else rows[0]["kendall_tau"]
    spwf = next(r["objective"] for r in rows if r["scheme"] == "spwf")
    print(f"  schemes: {time.perf_counter() - t0:.0f} s", flush=True)
    ladder = section_ladder(inst, config, spwf, gen)
    print(f"  ladder: {time.perf_counter() - t0:.0f} s", flush=True)
    return (rows if "schemes" in sections else []) + (
        ladder if "ladder" in sections else []
    )


def cli() -> None:
    """``python -m benchmarks.asrpt_ablation [--quick] [--jobs N] [--out F] [--sections S]``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small instance (a test)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="jobs of the main instance (default 37,500; 150,000)")  # fmt: skip
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma-separated subset of {','.join(SECTIONS)}; the "
                    "other sections' rows are kept from --out")  # fmt: skip
    a = ap.parse_args()
    try:
        main(a.out, a.quick, a.jobs, tuple(filter(None, a.sections.split(","))))
    except (ValueError, FileNotFoundError) as e:
        ap.error(str(e))


if __name__ == "__main__":
    cli()
