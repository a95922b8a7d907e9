"""Okita's vectorised PA / DTA reproduce the line-by-line implementation exactly.

``data/okita_reference.json`` holds, per case, the sha256 of the canonical
JSON of Okita's schedule rows, completions, ``min_cost``, PS gaps and the
full trace (every ``O``, ``est``, ``cost1``, ``cost2`` bit for bit), made
with ``optsched/okita/online.py`` as of commit e4859ba -- PA's loop over PS
sites, DTA's per-site ``sorted`` -- before the speed-up.  Cases: three
sizes x three latency-cost kinds x two seeds, a medium instance, and the
keyword variants (alphas, betas, ``keep_ps_on_delay=False``,
``printed_duration=True``).  The paper-size instances (R = 50, I = 100,
T = 150, seeds 0-2) were compared the same way once (identical; 78-85 s
before, 2.9-3.4 s after; ``benchmarks/okita_bench.py``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from optsched.okita import generate, okita
from optsched.okita.online import OkitaParams

REF = Path(__file__).resolve().parent / "data" / "okita_reference.json"

_SIZES = {"s": (2, 3, 12), "m": (3, 5, 20), "l": (6, 15, 60)}
CASES: dict[str, tuple[dict, dict]] = {
    f"{name}-{cost}-{seed}": (
        {"seed": seed, "n_sites": R, "n_jobs": I, "n_slots": T, "cost": cost},
        {},
    )
    for name, (R, I, T) in _SIZES.items()
    for cost in ("exp", "linear", "piecewise")
    for seed in (0, 1)
}
CASES["medium-exp-0"] = ({"seed": 0, "n_sites": 10, "n_jobs": 30, "n_slots": 100}, {})
_VARIANTS = {
    "alphas": {"alpha1": 2.0, "alpha2": 0.5},
    "betas": {"beta1": 0.0, "beta2": 2.0, "beta3": 3.0},
    "no-keep": {"keep_ps_on_delay": False},
    "printed": {"printed_duration": True},
}
for _v, _kw in _VARIANTS.items():
    for _seed in (0, 1):
        CASES[f"{_v}-{_seed}"] = (
            {
                "seed": _seed,
                "n_sites": 4,
                "n_jobs": 8,
                "n_slots": 30,
                "cost": "piecewise",
            },
            _kw,
        )


def _plain(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    return x


def digest(sched) -> str:
    """sha256 of the schedule's rows and the outcome-relevant meta (floats by repr)."""
    body = {
        "workers": sched.workers.tolist(),
        "ps": sched.ps.tolist(),
        "data": sched.data.tolist(),
        "completion": _plain(sched.meta["completion"]),
        "min_cost": repr(sched.meta["min_cost"]),
        "ps_gaps": _plain(sched.meta["ps_gaps"]),
        "trace": _plain(sched.meta["trace"]),
    }
    text = json.dumps(body, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("key", sorted(CASES))
def test_okita_reproduces_the_reference_bit_for_bit(key: str) -> None:
    ref = json.loads(REF.read_text())["digests"]
    gen, kw = CASES[key]
    assert digest(okita(generate(**gen), params=OkitaParams(**kw))) == ref[key]
