"""Why edgecloud's Figs. 7-11 magnitudes are not the paper's: an ablation.

The facts (issue 25, section 4, "edgecloud magnitudes"), on the Fig. 7
setting (100 edge servers, 50-300 jobs, arrivals uniform over 1,800 of
``T = 2000`` one-hour slots, ``experiments.SIM``):

* A_online's total JCT is 88% / 94% below SRTF's / Tiresias-L's at 300
  jobs; the paper: "up to 40%, 35%" (Sec. I).
* A_online's makespan is 0.37 of SRTF's (Fig. 11's instance); the paper:
  "about 0.76x" (Sec. V-C).
* A_online preempts less than SRTF; the paper (Figs. 9-10): "the number of
  preemption triggered by A_online is larger than SRTF".
* Tiresias-L's JCT rate (over SRTF's) does not fall with ``S`` (Fig. 8);
  the paper: it "becomes smaller".

Each section switches ONE reading or knob away from the figures' defaults
(column ``section``, ``knob``, ``value``); ``value == "literal"`` (or the
default value of the knob) is the figures' setting:

``category``
    SRTF and Tiresias-L read as edge + cloud schedulers instead of
    edge-only ("A_online and A_online-E consistently outperform all others
    in their category", Sec. V-C), by two measurement instruments of this
    file (:func:`srtf_cloud_overflow`, :func:`tiresias_l_cloud_overflow`,
    :func:`srtf_cloud_earliest`, :func:`tiresias_l_cloud_earliest`; not
    registered algorithms: candidates to become named variants of the
    slice).  Fig. 7 grid (``J`` in :data:`JOBS`, :data:`SEEDS`).
``window``
    The arrival window (offered edge load), which the paper does not give:
    arrivals uniform over the first ``L`` slots (``value`` = ``L``; 1,800 is
    the figures'), ``T = max(ceil(L / 0.9), L + 200)`` so that no job is
    ever redrawn (the longest all-cloud job needs 190 slots, docs/edgecloud.md)
    and the jobs are those of ``L = 1800`` with other arrival slots (same
    seed, same draws).  Column ``window_load`` is the offered edge load over
    the window, ``edge_load`` the figures' (over ``T``).
``delays``
    Delays in slots (the generator's) vs in hours rounded up to slots
    (open question 7 of docs/worst_case_paper_regime.md) when one slot is
    ``h`` hours (``value`` = ``"h=<h> slots"`` / ``"h=<h> hours"``): the
    Fig. 7 instance transformed through ``to_dict`` / ``from_dict``
    (:func:`coarsen`): arrival ``r`` -> ``ceil(r / h)``, ``T`` ->
    ``ceil(T / h)``, ``slot_hours = h`` (chunk lengths follow from Eq. (1)),
    delays kept or ``ceil(Delta / h)``.  At ``h = 1`` both are the figures'.
``servers``
    Fig. 8's axis (300 jobs, ``S`` in :data:`SERVERS`) under the literal
    reading, the two category instruments, a long window and the
    hours-delay reading at 8-hour slots: which of them makes Tiresias-L's
    JCT rate fall with ``S``.

Every schedule goes through the paper's checker (``p.check``) on the
instance with ``T`` extended to its makespan (the horizon rule, as the
figures do); column ``checked``.  Column ``role`` says which of the paper's
schemes a row stands for (``srtf`` / ``tiresias_l`` rows of the category
instruments carry the instrument's name in ``scheme``); A_online's row is
repeated for each configuration of an instance that shares its run.
:func:`summary` gives, per configuration, the quantities of the four facts.
One process; the default run takes about 10 minutes of CPU (570 s user on
the shared 2-core machine, 20 minutes of wall time).

Run: ``python -m benchmarks.edgecloud_diagnosis [--quick] [--out F]``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import optsched
from benchmarks.common import print_table
from optsched.core import horizon
from optsched.core.experiment import write_atomic
from optsched.edgecloud import experiments as ex
from optsched.edgecloud.baselines import (
    DEFAULT_THRESHOLDS,
    _GangEngine,
    _Srtf,
    _TiresiasL,
)
from optsched.edgecloud.instance import EdgeCloudInstance
from optsched.edgecloud.schedule import EdgeCloudSchedule

OUT = Path("benchmarks/data/edgecloud_diagnosis.csv")
COLUMNS = [
    "section", "knob", "value", "n_jobs", "n_servers", "n_slots", "slot_hours",
    "window", "seed", "role", "scheme", "total_jct", "preemptions", "makespan",
    "cloud_jobs", "edge_load", "window_load", "runtime_s", "checked",
]  # fmt: skip
#: The paper's numbers (Sec. I and V-C).
PAPER = {"red_srtf": 0.40, "red_tiresias": 0.35, "makespan_srtf": 0.76}

#: Full run: Fig. 7's grid with fewer seeds and job counts.
FULL: dict[str, Any] = {
    "jobs": (50, 150, 300),
    "seeds": (0, 1, 2),
    "servers": 100,
    "windows": (48, 300, 900, 1800, 3600, 7200, 14400, 28800),
    "window_jobs": (50, 300),
    "window_seeds": (0, 1, 2),
    "hours": (1, 4, 8, 24),
    "hours_jobs": (50, 300),
    "server_values": (20, 60, 100),
    "server_jobs": 300,
    "server_seeds": (0, 1),
    "server_window": 7200,
    "gen": {"n_slots": 2000, "arrival_window": 0.9},
}
#: ``--quick``: tiny sizes (3-6 servers, 2 types, <= 2 chunks), seconds; not
#: comparable with the paper.
QUICK: dict[str, Any] = {
    "jobs": (8, 16),
    "seeds": (0,),
    "servers": 4,
    "windows": (20, 200),
    "window_jobs": (16,),
    "window_seeds": (0,),
    "hours": (1, 8),
    "hours_jobs": (16,),
    "server_values": (3, 6),
    "server_jobs": 16,
    "server_seeds": (0,),
    "server_window": 200,
    "gen": {
        "n_slots": 300, "arrival_window": 0.3, "max_chunks": 2,
        "n_worker_types": 2, "n_ps_types": 2,
    },
}  # fmt: skip


# ------------------------------------------------------ the instruments
class _CloudGangEngine(_GangEngine):
    """The baselines' gang engine with the cloud as one more server.

    ``rule`` (the only change to the engine, its reading 5):

    * ``"overflow"``: the cloud is the server with the most free workers,
      so Tiresias' consolidated placement (reading 2) takes it as soon as
      the job can reach it: a job that has not started on the edge by slot
      ``r_j + Delta_jc`` starts there, whole (``zeta_j = 1``), without
      preemption.
    * ``"earliest"``: on arrival the job goes wholly to the cloud when the
      cloud finishes it no later than its fastest edge gang on an empty
      edge (``r_j + Delta_jc + p_jc - 1 <= r_j + Delta_k + ceil(D_j / k_j)
      p_j0 - 1``, ``Delta_k`` the ``k_j``-th smallest delay of its
      qualified workers): BatchSche's comparison without the batch plan.
    """

    def __init__(self, inst: EdgeCloudInstance, seed: int, rule: str) -> None:
        super().__init__(inst, seed)
        if rule not in ("overflow", "earliest"):
            raise ValueError(f"rule: 'overflow' or 'earliest', got {rule!r}")
        self.rule = rule
        dc = self.delay[:, self.c] if self.J else np.zeros(0, int)
        self.cloud_at = [self.r[j] + int(dc[j]) for j in range(self.J)]
        self.waiting: set[int] = set()  # arrived, never trained, on the edge
        self.cloud_first = [self._cloud_first(j) for j in range(self.J)]

    def _cloud_first(self, j: int) -> bool:
        k = self.k[j]
        if k == 0:
            return True
        delays = sorted(int(self.delay[j, s]) for s, _w in self.qual[j])
        edge_fin = delays[k - 1] + -(-self.D[j] // k) * self.p0[j]
        cloud_fin = int(self.delay[j, self.c]) + int(self.inst.chunk_slots[j, 1])
        return cloud_fin <= edge_fin

    def edge_pool(self, t: int) -> list[int]:
        """Reading 5 replaced by ``rule``; then the engine's edge pool."""
        for j in range(self.J):
            if self.r[j] == t and self.k[j] > 0:
                if self.rule == "earliest" and self.cloud_first[j]:
                    self.to_cloud(j, self.cloud_at[j])
                elif self.rule == "overflow":
                    self.waiting.add(j)
        if self.rule == "overflow":
            for j in sorted(self.waiting):
                if self.gang[j] is not None:
                    self.waiting.discard(j)
                elif t >= self.cloud_at[j]:
                    self.waiting.discard(j)
                    self.to_cloud(j, t)
        return super().edge_pool(t)


def srtf_cloud_overflow(inst: EdgeCloudInstance, seed: int = 0) -> EdgeCloudSchedule:
    """Instrument: SRTF over edge + cloud, the cloud as the freest server.

    Reading: "A_online and A_online-E consistently outperform all others in
    their category" (Sec. V-C) does not make SRTF [16] edge-only; the cloud
    is a server like the others, and consolidated placement (baselines'
    reading 2) prefers it once reachable (:class:`_CloudGangEngine`,
    ``"overflow"``).  Everything else is :func:`optsched.edgecloud.srtf`.
    A measurement instrument of this benchmark, not a registered algorithm.
    """
    return _CloudGangEngine(inst, seed, "overflow").run(_Srtf())


def tiresias_l_cloud_overflow(
    inst: EdgeCloudInstance, seed: int = 0
) -> EdgeCloudSchedule:
    """Instrument: Tiresias-L over edge + cloud, the cloud as the freest server.

    The reading of :func:`srtf_cloud_overflow` applied to
    :func:`optsched.edgecloud.tiresias_l` (default thresholds).
    """
    return _CloudGangEngine(inst, seed, "overflow").run(_TiresiasL(DEFAULT_THRESHOLDS))


def srtf_cloud_earliest(inst: EdgeCloudInstance, seed: int = 0) -> EdgeCloudSchedule:
    """Instrument: SRTF over edge + cloud, a job to whichever finishes it first.

    Reading: as :func:`srtf_cloud_overflow` (SRTF is not edge-only), with
    the cloud chosen on arrival when its remaining training time there
    (``Delta_jc + p_jc``) is no longer than on the job's fastest edge gang
    (:class:`_CloudGangEngine`, ``"earliest"``).  A measurement instrument.
    """
    return _CloudGangEngine(inst, seed, "earliest").run(_Srtf())


def tiresias_l_cloud_earliest(
    inst: EdgeCloudInstance, seed: int = 0
) -> EdgeCloudSchedule:
    """Instrument: Tiresias-L over edge + cloud, a job to whichever finishes it first.

    The reading of :func:`srtf_cloud_earliest` applied to Tiresias-L.
    """
    return _CloudGangEngine(inst, seed, "earliest").run(_TiresiasL(DEFAULT_THRESHOLDS))


#: The instruments by name (role, function).
INSTRUMENTS: dict[str, tuple[str, Callable[..., EdgeCloudSchedule]]] = {
    "srtf_cloud_overflow": ("srtf", srtf_cloud_overflow),
    "tiresias_l_cloud_overflow": ("tiresias_l", tiresias_l_cloud_overflow),
    "srtf_cloud_earliest": ("srtf", srtf_cloud_earliest),
    "tiresias_l_cloud_earliest": ("tiresias_l", tiresias_l_cloud_earliest),
}
#: The category readings: value -> the schemes standing for SRTF and Tiresias-L.
CATEGORY = {
    "edge (literal)": ("srtf", "tiresias_l"),
    "edge+cloud overflow": ("srtf_cloud_overflow", "tiresias_l_cloud_overflow"),
    "edge+cloud earliest": ("srtf_cloud_earliest", "tiresias_l_cloud_earliest"),
}


# ------------------------------------------------------------ instances
def coarsen(inst: EdgeCloudInstance, h: int, delays: str) -> EdgeCloudInstance:
    """The same jobs and servers with one slot = ``h`` slots of ``inst``.

    Arrival ``r`` -> ``ceil(r / h)``, ``T`` -> ``ceil(T / h)``,
    ``slot_hours`` times ``h`` (chunk lengths follow from Eq. (1)); delays
    unchanged (``delays == "slots"``, the generator's reading) or
    ``ceil(Delta / h)`` (``"hours"``: the paper's 1-h values kept in hours,
    open question 7 of docs/worst_case_paper_regime.md).  Through
    ``to_dict`` / ``from_dict``, so the instance is validated again.
    """
    if delays not in ("slots", "hours"):
        raise ValueError(f"delays: 'slots' or 'hours', got {delays!r}")
    d = inst.to_dict()
    d["n_slots"] = math.ceil(inst.n_slots / h)
    d["slot_hours"] = inst.slot_hours * h
    for job in d["jobs"]:
        job["arrival"] = math.ceil(job["arrival"] / h)
        if delays == "hours":
            job["delay"] = [math.ceil(x / h) for x in job["delay"]]
    return EdgeCloudInstance.from_dict(d)


def window_size(window: int) -> dict[str, Any]:
    """``generate`` keywords for arrivals uniform in slots ``1..window``, no redraw."""
    T = max(math.ceil(window / 0.9), window + 200)
    return {"n_slots": T, "arrival_window": (window - 1e-6) / T}


def window_load(inst: EdgeCloudInstance, window: int) -> float:
    """Offered edge load over the arrival window (``experiments.edge_load`` over ``L``)."""
    return ex.edge_load(inst) * inst.n_slots / window


# ------------------------------------------------------------------ runs
def run(p: Any, inst: EdgeCloudInstance, scheme: str) -> dict[str, Any]:
    """One scheme (registered or instrument) on ``inst``, checked (horizon rule).

    The algorithm seed (the PS draws) is 0, as in the figures.
    """
    seed = 0
    t0 = time.perf_counter()
    if scheme in INSTRUMENTS:
        sched = INSTRUMENTS[scheme][1](inst, seed=seed)
    else:
        sched = p.run(scheme, inst, seed=seed)
    runtime = time.perf_counter() - t0
    done, _ = horizon.fit(inst, sched)
    ev = p.check(done, sched)
    cloud = sched.runs[:, 3] == inst.cloud
    return {
        "scheme": scheme,
        "role": INSTRUMENTS[scheme][0] if scheme in INSTRUMENTS else scheme,
        "total_jct": float(ev.objective),
        "preemptions": int(ev.n_preemptions),
        "makespan": int(sched.last_slot),
        "cloud_jobs": int(np.unique(sched.runs[cloud, 0]).size),
        "runtime_s": runtime,
        "checked": True,
    }


def _base(section: str, knob: str, value: Any, inst: EdgeCloudInstance, seed: int,
          window: int) -> dict[str, Any]:  # fmt: skip
    return {
        "section": section, "knob": knob, "value": str(value),
        "n_jobs": inst.n_jobs, "n_servers": len(inst.servers),
        "n_slots": inst.n_slots, "slot_hours": inst.slot_hours, "window": window,
        "seed": seed, "edge_load": ex.edge_load(inst),
        "window_load": window_load(inst, window),
    }  # fmt: skip


def _window_of(inst: EdgeCloudInstance, gen: dict[str, Any]) -> int:
    return max(1, math.ceil(gen["arrival_window"] * gen["n_slots"]))


def category_rows(p: Any, inst, seed: int, window: int, section: str = "category"):
    """Rows of the three category readings on one instance (A_online run once)."""
    rows = []
    a = run(p, inst, "a_online")
    for value, schemes in CATEGORY.items():
        base = _base(section, "category", value, inst, seed, window)
        rows.append({**base, **a})
        rows += [{**base, **run(p, inst, s)} for s in schemes]
    return rows


def section_category(p: Any, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """(a): the Fig. 7 grid under the three category readings."""
    rows = []
    for J in cfg["jobs"]:
        for seed in cfg["seeds"]:
            gen = cfg["gen"]
            inst = p.generate(seed=seed, n_jobs=J, n_servers=cfg["servers"], **gen)
            rows += category_rows(p, inst, seed, _window_of(inst, gen))
    return rows


def section_window(p: Any, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """(b): the arrival window ``L`` swept (A_online, SRTF, Tiresias-L, BatchSche)."""
    rows = []
    for L in cfg["windows"]:
        for J in cfg["window_jobs"]:
            for seed in cfg["window_seeds"]:
                gen = {**cfg["gen"], **window_size(L)}
                inst = p.generate(seed=seed, n_jobs=J, n_servers=cfg["servers"], **gen)
                base = _base("window", "window", L, inst, seed, L)
                for s in ("a_online", "srtf", "tiresias_l", "batchsche"):
                    rows.append({**base, **run(p, inst, s)})
    return rows


def section_delays(p: Any, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """(c): delays in slots vs hours at ``h``-hour slots (same jobs)."""
    rows = []
    gen = cfg["gen"]
    for J in cfg["hours_jobs"]:
        for seed in cfg["seeds"]:
            one = p.generate(seed=seed, n_jobs=J, n_servers=cfg["servers"], **gen)
            L = _window_of(one, gen)
            for h in cfg["hours"]:
                for unit in ("slots", "hours") if h > 1 else ("slots",):
                    inst = coarsen(one, h, unit)
                    value = f"h={h} {unit}" if h > 1 else "h=1 (literal)"
                    base = _base("delays", "delay unit", value, inst, seed,
                                 math.ceil(L / h))  # fmt: skip
                    for s in ("a_online", "srtf", "tiresias_l"):
                        rows.append({**base, **run(p, inst, s)})
    return rows


def section_servers(p: Any, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """(d): Fig. 8's axis under the literal reading and one knob at a time."""
    rows = []
    gen, J = cfg["gen"], cfg["server_jobs"]
    for S in cfg["server_values"]:
        for seed in cfg["server_seeds"]:
            inst = p.generate(seed=seed, n_jobs=J, n_servers=S, **gen)
            L = _window_of(inst, gen)
            rows += category_rows(p, inst, seed, L, section="servers")
            Lw = cfg["server_window"]
            wide = p.generate(seed=seed, n_jobs=J, n_servers=S,
                              **{**gen, **window_size(Lw)})  # fmt: skip
            base = _base("servers", "window", Lw, wide, seed, Lw)
            rows += [{**base, **run(p, wide, s)}
                     for s in ("a_online", "srtf", "tiresias_l")]  # fmt: skip
            hrs = coarsen(inst, 8, "hours")
            base = _base("servers", "delay unit", "h=8 hours", hrs, seed,
                         math.ceil(L / 8))  # fmt: skip
            rows += [{**base, **run(p, hrs, s)}
                     for s in ("a_online", "srtf", "tiresias_l")]  # fmt: skip
    return rows


# --------------------------------------------------------------- summary
def _facts(g: pd.DataFrame) -> pd.Series:
    """The four facts' quantities of one configuration (means over seeds)."""
    m = g.groupby("role")[["total_jct", "makespan", "preemptions"]].mean()
    rate = g.pivot_table(index="seed", columns="role", values="total_jct")
    out = {
        "red_srtf": 1 - m.loc["a_online", "total_jct"] / m.loc["srtf", "total_jct"],
        "red_tiresias": 1
        - m.loc["a_online", "total_jct"] / m.loc["tiresias_l", "total_jct"],
        "makespan_srtf": m.loc["a_online", "makespan"] / m.loc["srtf", "makespan"],
        "makespan_tiresias": m.loc["a_online", "makespan"]
        / m.loc["tiresias_l", "makespan"],
        "preempt_a_online": m.loc["a_online", "preemptions"],
        "preempt_srtf": m.loc["srtf", "preemptions"],
        "tiresias_rate": float((rate["tiresias_l"] / rate["srtf"]).mean()),
        "window_load": g["window_load"].mean(),
        "n_seeds": g["seed"].nunique(),
    }
    out["red_batchsche"] = (
        1 - m.loc["a_online", "total_jct"] / m.loc["batchsche", "total_jct"]
        if "batchsche" in m.index
        else np.nan
    )
    return pd.Series(out)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per (section, knob, value, n_jobs, n_servers): the four facts' quantities.

    ``red_*`` = ``1 - mean JCT(A_online) / mean JCT(other)`` (the figures'
    :func:`~optsched.edgecloud.experiments.reduction`), ``makespan_*`` the
    quotient of mean makespans, ``preempt_*`` mean preemptions,
    ``tiresias_rate`` the mean over seeds of Tiresias-L's JCT over SRTF's
    (Fig. 8's plotted value).
    """
    keys = ["section", "knob", "value", "n_jobs", "n_servers"]
    out = [
        {**dict(zip(keys, key, strict=True)), **_facts(g).to_dict()}
        for key, g in df.groupby(keys, sort=False)
    ]
    return pd.DataFrame(out)


def main(out: Path = OUT, quick: bool = False) -> pd.DataFrame:
    """Run every section, write the rows (atomically), print the summary."""
    p = optsched.get_paper("edgecloud")
    cfg = QUICK if quick else FULL
    rows: list[dict[str, Any]] = []
    for section in (section_category, section_window, section_delays, section_servers):
        t0 = time.perf_counter()
        rows += section(p, cfg)
        print(f"  {section.__name__}: {time.perf_counter() - t0:.1f} s", flush=True)
    df = pd.DataFrame(rows, columns=COLUMNS)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out.parent, {out.name: lambda f: df.to_csv(f, index=False)})
    print_table(summary(df))
    return df


def _cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    main(a.out, a.quick)


if __name__ == "__main__":
    _cli()


__all__ = [
    "coarsen",
    "main",
    "srtf_cloud_earliest",
    "srtf_cloud_overflow",
    "summary",
    "tiresias_l_cloud_earliest",
    "tiresias_l_cloud_overflow",
    "window_size",
]
