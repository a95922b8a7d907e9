r"""What branching on one family of integer variables alone can prove, from the integrality ablation.

Two levers named for the proof-time targets at the papers' sizes are
*branching* levers: branching on the completion times (oasis, 50 jobs),
and, behind branch and price at okita and edgecloud, branching on the
packing or the dispatch.  ``benchmarks/integrality.py`` solved each
largest frontier instance with only some integer families kept integral;
this script turns those committed rows into a statement about every
branch-and-bound that branches on such a family alone.

**The limit.**  Let ``F`` be a set of integer families of a minimisation
MILP ``P`` and ``P_F`` the relaxation that keeps only ``F`` integral.
Take a branch-and-bound over ``P`` that branches only on variables of
``F`` and bounds a node by the LP of the formulation with that node's
branching decisions (plus any cuts valid for ``P_F``).  Its leaves
partition the integer points of ``F``, so an optimal point of ``P_F``
meets the decisions of one open node or leaf, whose LP value is then at
most ``opt(P_F)``.  That node is closed only by pruning (its bound at
least the incumbent, which is at least ``OPT``) or when its LP optimum is
integral in every family (a schedule of value at most ``opt(P_F)``).  So
if ``opt(P_F) < OPT`` no such tree proves the optimum: a proof must
branch on another family too, or use cuts from another family's
integrality, or a stronger formulation.  If ``opt(P_F) = OPT``, branching
on ``F`` suffices in the limit (the families are bounded integers).  For a
maximisation everything is mirrored.

**What the committed data decide.**  ``opt(P_F)`` lies in the ablation
row's ``[bound, objective]`` (its incumbent is a point of ``P_F``, not a
schedule; mirrored for a maximisation); ``OPT`` lies in the best interval
the committed CSVs certify for the same instance (:func:`known_interval`:
valid bounds and checked schedules from :data:`SOURCES`).  Then, for a
minimisation,

* ``cannot``: the row's ``objective`` is below the best bound on ``OPT``
  (``opt(P_F) <= objective < lower <= OPT``);
* ``suffices``: the row's ``bound`` reaches the best checked schedule
  (``upper <= bound <= opt(P_F) <= OPT <= upper``);
* ``open``: neither is certified by the data.

A relative tolerance of ``1e-6`` guards both tests (``TOL``).  Nothing is
solved here: the script reads ``benchmarks/data`` only, so its table is a
function of committed runs.

Run::

    python -m benchmarks.branching_limits                       # print the table
    python -m benchmarks.branching_limits --table docs/ratios.md  # rewrite its block
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import optsched
from benchmarks.integrality import SETTINGS
from optsched.core.report import replace_block

DATA = Path("benchmarks/data")
TOL = 1e-6
TABLE_BEGIN = (
    "<!-- branching limits: begin (python -m benchmarks.branching_limits --table FILE; "
    "do not edit) -->"
)
TABLE_END = "<!-- branching limits: end -->"
COLUMNS = [
    "paper", "seed", "keep", "relax_status", "relax_lo", "relax_hi",
    "opt_lo", "opt_lo_source", "opt_hi", "opt_hi_source", "verdict",
]  # fmt: skip


@dataclass(frozen=True)
class Source:
    """Certificates of one committed CSV: which rows and columns, which side.

    ``match`` holds column values a row must have (``size_json`` compared
    as parsed JSON); ``columns`` maps a column to ``"bound"`` (a valid bound
    on the optimum) or ``"schedule"`` (the value of a checked schedule) and
    a label for the table.  NaN cells certify nothing.
    """

    file: str
    match: dict[str, Any]
    columns: dict[str, tuple[str, str]]


def wide_lns_sources(paper: str, script: str) -> list[Source]:
    """The two CSVs of ``benchmarks/wide_lns.py`` for ``paper``: the search's
    checked schedules, and HiGHS's bound and checked incumbent of ``--prove``
    (``script`` names the command in the table's labels)."""
    match = {"size_json": SETTINGS[paper].size}
    prove = f"HiGHS ({script} --prove)"
    return [
        Source(
            f"{paper}_wide_lns.csv", match,
            {"objective": ("schedule", f"wide neighbourhood search ({script})")},
        ),
        Source(
            f"{paper}_wide_lns_highs.csv", match,
            {"bound": ("bound", prove), "objective": ("schedule", prove)},
        ),
    ]  # fmt: skip


#: Per paper, the CSVs besides ``frontier.csv`` and ``integrality.csv``
#: that certify a side of the optimum of the ablation's instances.
SOURCES: dict[str, list[Source]] = {
    "okita": [
        Source(
            "okita_colgen.csv",
            {"n_sites": 5, "n_jobs": 10, "n_slots": 20},
            {"lagr_best": ("bound", "Lagrangian (okita_colgen)")},
        ),
        *wide_lns_sources("okita", "wide_lns"),
    ],
    "edgecloud": [
        Source(
            "edgecloud_gap.csv",
            {"n_jobs": 20, "n_servers": 3},
            {
                "no2f_bound": ("bound", "relaxation without (2f) (edgecloud_gap)"),
                "no2f_repaired": ("schedule", "repaired schedule (edgecloud_gap)"),
            },
        ),
        Source(
            "edgecloud_below.csv",
            {"source": "frontier", "n_jobs": 20, "n_servers": 3},
            {
                "bound": ("bound", "objective cut (edgecloud_below)"),
                "found_objective": ("schedule", "objective cut (edgecloud_below)"),
            },
        ),
        Source(
            "edgecloud_pool.csv",
            {"n_jobs": 20, "n_servers": 3},
            {
                "pool_bound": ("bound", "pool relaxation (edgecloud_pool)"),
                "repair_objective": ("schedule", "pool repair (edgecloud_pool)"),
                "window_objective": ("schedule", "window repair (edgecloud_pool)"),
            },
        ),
    ],
    "oasis": [
        Source(
            "oasis_dw.csv",
            {"size_json": SETTINGS["oasis"].size},
            {"dw_upper": ("bound", "job decomposition (oasis_dw)")},
        ),
        *wide_lns_sources("oasis", "oasis_wide_lns"),
    ],
}


def _matches(df: pd.DataFrame, match: dict[str, Any]) -> pd.Series:
    mask = pd.Series(True, index=df.index)
    for col, want in match.items():
        if col == "size_json":
            mask &= df[col].map(lambda s, want=want: json.loads(s) == want)
        else:
            mask &= df[col] == want
    return mask


def candidates(
    paper: str, seed: int, data: Path = DATA
) -> list[tuple[str, str, float]]:
    """Every certificate ``(side, label, value)`` of the instance in the committed CSVs.

    ``frontier.csv`` (any formulation: HiGHS's bound and the checked
    incumbent), ``integrality.csv`` (every relaxation's bound) and the
    paper's :data:`SOURCES`; the instance is the ablation's
    (``SETTINGS[paper].size``, ``seed``).
    """
    size = SETTINGS[paper].size
    found: list[tuple[str, str, float]] = []
    front = pd.read_csv(data / "frontier.csv")
    rows = front[(front["paper"] == paper) & (front["seed"] == seed)]
    for r in rows[_matches(rows, {"size_json": size})].itertuples(index=False):
        found.append(("bound", f"frontier {r.formulation}", float(r.bound)))
        found.append(("schedule", f"frontier {r.formulation}", float(r.objective)))
    ablation = pd.read_csv(data / "integrality.csv")
    rows = ablation[(ablation["paper"] == paper) & (ablation["seed"] == seed)]
    for r in rows[_matches(rows, {"size_json": size})].itertuples(index=False):
        found.append(("bound", f"integrality {r.keep}", float(r.bound)))
    for src in SOURCES.get(paper, []):
        df = pd.read_csv(data / src.file)
        rows = df[_matches(df, {**src.match, "seed": seed})]
        for col, (side, label) in src.columns.items():
            found += [(side, label, float(v)) for v in rows[col]]
    return [c for c in found if not math.isnan(c[2])]


def known_interval(paper: str, seed: int, data: Path = DATA) -> dict[str, Any]:
    """The best certified ``[opt_lo, opt_hi]`` of the instance's optimum, with sources.

    For a minimisation the largest bound and the smallest checked schedule;
    for a maximisation the largest checked schedule and the smallest bound.
    An end nothing certifies is ``-inf`` / ``inf`` with source ``""``.
    """
    maximise = optsched.get_paper(paper).sense == "max"
    lo_side, hi_side = ("schedule", "bound") if maximise else ("bound", "schedule")
    cands = candidates(paper, seed, data)
    lows = [(v, s) for side, s, v in cands if side == lo_side]
    highs = [(v, s) for side, s, v in cands if side == hi_side]
    lo = max(lows, default=(-math.inf, ""), key=lambda c: c[0])
    hi = min(highs, default=(math.inf, ""), key=lambda c: c[0])
    return {
        "opt_lo": lo[0],
        "opt_lo_source": lo[1],
        "opt_hi": hi[0],
        "opt_hi_source": hi[1],
    }


def verdict(sense: str, relax: tuple[float, float], opt: tuple[float, float]) -> str:
    """``cannot`` / ``suffices`` / ``open`` for branching on ``F`` alone (module docstring).

    ``relax``: the interval ``[lo, hi]`` of ``opt(P_F)``; ``opt``: that of ``OPT``.
    """

    def tol(v: float) -> float:
        return TOL * max(1.0, abs(v)) if math.isfinite(v) else 0.0

    (r_lo, r_hi), (o_lo, o_hi) = relax, opt
    if sense == "min":
        if r_hi < o_lo - tol(o_lo):
            return "cannot"
        return "suffices" if r_lo >= o_hi - tol(o_hi) else "open"
    if sense != "max":
        raise ValueError(f"sense: {sense!r} is neither 'min' nor 'max'")
    if r_lo > o_hi + tol(o_hi):
        return "cannot"
    return "suffices" if r_hi <= o_lo + tol(o_lo) else "open"


def table(data: Path = DATA) -> pd.DataFrame:
    """One row per ablation row with integer families kept (``keep != lp``)."""
    ablation = pd.read_csv(data / "integrality.csv")
    out: list[dict[str, Any]] = []
    for r in ablation[ablation["keep"] != "lp"].itertuples(index=False):
        if r.paper not in SETTINGS or json.loads(r.size_json) != SETTINGS[r.paper].size:
            continue
        sense = optsched.get_paper(r.paper).sense
        obj, bnd = float(r.objective), float(r.bound)
        lo, hi = (bnd, obj) if sense == "min" else (obj, bnd)
        known = known_interval(r.paper, int(r.seed), data)
        out.append({
            "paper": r.paper, "seed": int(r.seed), "keep": r.keep,
            "relax_status": r.status, "relax_lo": lo, "relax_hi": hi, **known,
            "verdict": verdict(sense, (lo, hi), (known["opt_lo"], known["opt_hi"])),
        })  # fmt: skip
    return pd.DataFrame(out, columns=COLUMNS).sort_values(["paper", "keep", "seed"])


def _num(v: float) -> str:
    return f"{v:,.2f}" if math.isfinite(v) else ("-inf" if v < 0 else "inf")


def markdown(df: pd.DataFrame) -> str:
    """The table between :data:`TABLE_BEGIN` and :data:`TABLE_END`, with a tally per family."""
    lines = [
        TABLE_BEGIN,
        "",
        "| paper | branch only on | seed | optimum of that relaxation | OPT in "
        "| sources of OPT's ends | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in df.itertuples(index=False):
        relax = (
            f"= {_num(r.relax_lo)}"
            if r.relax_status == "optimal"
            else f"[{_num(r.relax_lo)}, {_num(r.relax_hi)}]"
        )
        shown = f"**{r.verdict}**" if r.verdict == "cannot" else r.verdict
        lines.append(
            f"| {r.paper} | `{r.keep}` | {r.seed} | {relax} | "
            f"[{_num(r.opt_lo)}, {_num(r.opt_hi)}] | {r.opt_lo_source}; "
            f"{r.opt_hi_source} | {shown} |"
        )
    lines += [
        "",
        "Per family, seeds where branching on it alone cannot prove / suffices / open:",
        "",
    ]
    for (paper, keep), g in df.groupby(["paper", "keep"], sort=True):
        n = g["verdict"].value_counts()
        lines.append(
            f"* {paper} `{keep}`: {n.get('cannot', 0)} / {n.get('suffices', 0)} / "
            f"{n.get('open', 0)} of {len(g)}"
        )
    return "\n".join([*lines, "", TABLE_END])


def main(argv: list[str] | None = None) -> int:
    """Print the table; ``--table FILE`` rewrites FILE's generated block."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the committed CSVs")
    ap.add_argument("--table", type=Path, help="a Markdown file whose block to rewrite")
    a = ap.parse_args(argv)
    text = markdown(table(a.data))
    if a.table is not None:
        replace_block(a.table, text, TABLE_BEGIN, TABLE_END)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
