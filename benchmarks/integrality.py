"""Where the integrality gap lives: the exact MILPs with variable families relaxed.

An ablation of the bound side of issue 26's proof targets.  For the
frontier's largest instances (``benchmarks/frontier.py``: okita 5 sites x
10 jobs x 20 slots, formulation v3; oasis 50 jobs, T = 30, 20 + 20
servers; edgecloud 20 jobs x 3 edge servers, T = 30, formulation v3;
seeds 0-4, ``p.generate(seed, **size)``), the paper's MILP is solved with
the integrality of *only* the families in ``keep``; every other integer
variable becomes continuous within its bounds (:func:`relax_except`).
Each such model is a relaxation of the exact MILP, so its optimum -- and
HiGHS's bound on it -- is a valid bound on the paper's optimum
(``keep = ()`` is the LP relaxation).  A family whose integrality alone
moves the bound far from the LP is where the integrality gap lives, and
so where a stronger formulation has to act.

Columns: ``paper``, ``size_json``, ``seed``, ``keep`` (``+``-joined,
``lp`` for none), ``status``, ``objective`` (the relaxation's incumbent:
not a schedule of the paper), ``bound`` (HiGHS's bound on the relaxation,
= ``objective`` when ``optimal``), ``runtime_s``, ``time_limit_s``,
``lp``, the frontier CSV's 60-s row of the same instance and formulation
(``ref_bound``, ``ref_incumbent``: HiGHS's bound and the checked
incumbent), ``gap_closed = (bound - lp) / (ref_incumbent - lp)`` (the
share of the LP's gap to the best known schedule that this integrality
alone closes; a lower estimate when the relaxation is not solved) and
``loadavg``.  Written to ``<out>/integrality.csv`` after every instance
(rows of other papers, seeds and families are kept); the committed run is
``benchmarks/data/integrality.csv``.

``--quick``: okita 3 sites x 4 jobs x 12 slots, seed 0, ``lp`` and ``y``,
10 s each; the reference is a proven ``solve_offline`` (the smoke test).

Run (one HiGHS thread; timings are measurements, not assertions)::

    python -m benchmarks.integrality --papers okita oasis edgecloud --out benchmarks/data
    python -m benchmarks.integrality --quick
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyomo.environ as pyo

import optsched
from benchmarks.common import OUT, merge_into_csv, print_table
from benchmarks.frontier import CSV, LADDERS, reference_row
from optsched.core.solver import solve

FRONTIER = CSV  # benchmarks/data/frontier.csv


@dataclass(frozen=True)
class Setting:
    """One paper's ablation: instance size, model, integer families, runs."""

    size: dict[str, Any]
    formulation: str  # the frontier CSV's formulation of the reference row
    build: Callable[[Any], pyo.ConcreteModel]
    families: tuple[str, ...]
    keeps: tuple[tuple[str, ...], ...]


def _okita(inst: Any) -> pyo.ConcreteModel:
    from optsched.models.okita import build_model

    return build_model(inst, formulation="v3")


def _oasis(inst: Any) -> pyo.ConcreteModel:
    from optsched.models.oasis import build_model

    return build_model(inst)


def _edgecloud(inst: Any) -> pyo.ConcreteModel:
    from optsched.models.edgecloud import build_model

    return build_model(inst, formulation="v3")


#: Per paper: the frontier's largest size (``benchmarks/frontier.py``), the
#: model, its integer families and the ablation's runs.
SETTINGS: dict[str, Setting] = {
    # y workers per site, s PS site, u completion slot, x / l chunks
    "okita": Setting(
        LADDERS["okita"][-1],
        "v3",
        _okita,
        ("y", "s", "u", "x", "l"),
        ((), ("u",), ("s",), ("y",), ("y", "s")),
    ),
    # x admission, y / z workers / PSs per server, n workers per slot, u completion
    "oasis": Setting(
        LADDERS["oasis"][-1],
        "current",
        _oasis,
        ("x", "y", "z", "u", "n"),
        ((), ("x", "u"), ("n",), ("y", "z")),
    ),
    # x chunk dispatch, y chunk trains in a slot, z PS, u completion, zeta cloud
    "edgecloud": Setting(
        LADDERS["edgecloud"][-1],
        "v3",
        _edgecloud,
        ("x", "y", "z", "u", "zeta"),
        ((), ("u",), ("z",), ("x", "y", "zeta")),
    ),
}
QUICK = Setting(
    {"n_sites": 3, "n_jobs": 4, "n_slots": 12},
    "v3",
    _okita,
    SETTINGS["okita"].families,
    ((), ("y",)),
)
#: A row's identity in the CSV (a new run replaces the rows it repeats).
KEY = ["paper", "seed", "keep"]
COLUMNS = [
    "paper", "size_json", "seed", "keep", "status", "objective", "bound",
    "runtime_s", "time_limit_s", "lp", "ref_bound", "ref_incumbent",
    "gap_closed", "loadavg",
]  # fmt: skip


def keep_name(keep: tuple[str, ...]) -> str:
    """``"y+s"``; ``"lp"`` for no family."""
    return "+".join(keep) or "lp"


def relax_except(
    model: pyo.ConcreteModel, keep: tuple[str, ...], families: tuple[str, ...]
) -> list[str]:
    """Make every integer variable outside ``keep`` continuous within its bounds.

    Returns the names of the relaxed variable components.  A name in
    ``keep`` that is not one of ``families`` raises ``ValueError`` (a typo
    would silently relax everything).
    """
    unknown = set(keep) - set(families)
    if unknown:
        raise ValueError(f"keep: unknown families {sorted(unknown)}; use {families}")
    relaxed = []
    for var in model.component_objects(pyo.Var, active=True):
        if var.name in keep:
            continue
        for v in var.values():
            if not v.is_continuous():
                lb, ub = v.lb, v.ub
                v.domain = pyo.Reals
                v.setlb(lb)
                v.setub(ub)
                if var.name not in relaxed:
                    relaxed.append(var.name)
    return relaxed


def solve_relaxed(
    setting: Setting, inst: Any, keep: tuple[str, ...], time_limit: float
) -> dict[str, Any]:
    """The model of ``inst`` with only ``keep`` integer, solved by HiGHS (one thread)."""
    model = setting.build(inst)
    relax_except(model, keep, setting.families)
    t0 = time.perf_counter()
    res = solve(model, time_limit=time_limit, threads=1)
    return {
        "keep": keep_name(keep),
        "status": res.status,
        "objective": res.objective,
        "bound": res.bound,
        "runtime_s": time.perf_counter() - t0,
        "time_limit_s": time_limit,
    }


def frontier_row(
    paper: str, size: dict[str, Any], formulation: str, seed: int, csv: Path = FRONTIER
) -> dict[str, float]:
    """:func:`benchmarks.frontier.reference_row` as ``ref_bound``, ``ref_incumbent``."""
    r = reference_row(paper, size, formulation, seed, csv)
    return {"ref_bound": r["bound"], "ref_incumbent": r["objective"]}


def rows(paper: str, seed: int, quick: bool, time_limit: float) -> list[dict[str, Any]]:
    """The ablation rows of one instance."""
    setting = QUICK if quick else SETTINGS[paper]
    p = optsched.get_paper(paper)
    inst = p.generate(seed, **setting.size)
    if quick:
        res = p.solve_offline(inst, time_limit=60.0, threads=1, formulation="v3")
        ref = {"ref_bound": float(res.bound), "ref_incumbent": float(res.objective)}
    else:
        ref = frontier_row(paper, setting.size, setting.formulation, seed)
    lp = solve_relaxed(setting, inst, (), time_limit)
    out = []
    for keep in setting.keeps:
        r = lp if keep == () else solve_relaxed(setting, inst, keep, time_limit)
        closed = (r["bound"] - lp["bound"]) / (ref["ref_incumbent"] - lp["bound"])
        out.append(
            {
                "paper": paper,
                "size_json": json.dumps(setting.size, sort_keys=True),
                "seed": seed,
                **r,
                "lp": lp["bound"],
                **ref,
                "gap_closed": closed,
                "loadavg": os.getloadavg()[0],
            }
        )
        print(
            f"{paper} seed {seed} keep {r['keep']}: {r['status']} bound {r['bound']:.1f}"
            f" ({r['runtime_s']:.0f} s) closes {closed:.1%} of LP {lp['bound']:.1f}"
            f" -> incumbent {ref['ref_incumbent']:.1f}",
            flush=True,
        )
    return out


def main(
    out_dir: Path = OUT,
    quick: bool = False,
    papers: list[str] | None = None,
    seeds: list[int] | None = None,
    time_limit: float | None = None,
) -> pd.DataFrame:
    """Run the papers and seeds, write the CSV after every instance, print it."""
    papers = (["okita"] if quick else list(SETTINGS)) if papers is None else papers
    seeds = ([0] if quick else [0, 1, 2, 3, 4]) if seeds is None else seeds
    limit = (10.0 if quick else 120.0) if time_limit is None else time_limit
    new: list[dict[str, Any]] = []
    for paper in papers:
        for seed in seeds:
            new += rows(paper, seed, quick, limit)
            merge_into_csv(
                out_dir, "integrality.csv", new, COLUMNS, KEY, keep_old=not quick
            )
    df = pd.DataFrame(new, columns=COLUMNS)
    print_table(df.drop(columns=["size_json", "loadavg"]))
    return df


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--papers", nargs="+", choices=list(SETTINGS), default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=None)
    ap.add_argument("--time-limit", type=float, default=None)
    a = ap.parse_args()
    main(a.out, a.quick, a.papers, a.seeds, a.time_limit)
