"""``optsched.ratios`` given a modified copy of a registered :class:`Paper`.

Its docstring accepts a ``Paper``, and a researcher trying a variant would
pass ``dataclasses.replace(p, algorithms={..., "mine": fn})``.  Known
defect: each instance's task carries only the paper's key, and
``core.ratio._one_instance`` fetches the *registered* paper again, so a
copy's own algorithms raise ``KeyError`` and its other fields (``check``,
``solve_offline``, ...) are silently replaced by the registered ones.  The
fix (send the copy itself when it is not the registered object) changes
``core/ratio.py``, hence the digest of every recorded figure: it waits for
the full re-recording (docs/architecture.md, "Records are keyed by
code").  These tests say what the fixed harness must do; they are expected
failures until then (``strict``: a fix makes them pass and fail the
marker, so the marker goes with the fix).
"""

from __future__ import annotations

import dataclasses

import pytest

import optsched

KNOWN = pytest.mark.xfail(
    strict=True,
    reason="known: core.ratio re-fetches the registered paper by key "
    "(module docstring); the fix waits for the full re-recording",
)


def _paper():
    return optsched.get_paper("okita")


@KNOWN
def test_ratios_runs_an_algorithm_of_a_paper_copy():
    """A copy's own algorithm is run, checked and compared like the others:
    here a renamed copy of FIFO, which must give FIFO's own row."""
    p = _paper()

    def fifo_copy(inst, /, *, seed=0, params=None):
        return p.run("fifo", inst, seed=seed, params=params)

    mine = dataclasses.replace(p, algorithms={**p.algorithms, "fifo_copy": fifo_copy})
    df = optsched.ratios(
        mine, n_instances=1, algorithms=["fifo", "fifo_copy"], progress=False,
        **dict(p.demo_size),
    )  # fmt: skip
    rows = df.set_index("algorithm")
    assert rows.loc["fifo_copy", "alg_objective"] == rows.loc["fifo", "alg_objective"]
    assert rows.loc["fifo_copy", "ratio"] == rows.loc["fifo", "ratio"]


@KNOWN
def test_ratios_uses_the_copys_own_solver():
    """A copy's ``solve_offline`` is the one called (here a wrapper that
    counts its calls around the registered model)."""
    p = _paper()
    calls = []

    def solve(inst, **kw):
        calls.append(1)
        return p.solve_offline(inst, **kw)

    mine = dataclasses.replace(p, solve_offline=solve)
    optsched.ratios(
        mine, n_instances=1, algorithms=["fifo"], progress=False, **dict(p.demo_size)
    )
    assert calls == [1]


def test_ratios_of_the_registered_paper_object_equals_its_key():
    """What works today: the registered ``Paper`` object itself is the key,
    and its row holds the checker's objective of FIFO's schedule on the
    instance of seed 0 (computed here without the harness)."""
    p = _paper()
    kw = dict(n_instances=1, algorithms=["fifo"], progress=False, **dict(p.demo_size))
    a = optsched.ratios(p, **kw).drop(columns=["alg_runtime_s", "opt_runtime_s"])
    b = optsched.ratios("okita", **kw).drop(columns=["alg_runtime_s", "opt_runtime_s"])
    assert a.equals(b)
    inst = p.generate(seed=0, **dict(p.demo_size))
    sched = p.run("fifo", inst)
    fitted, _ = p.fit_horizon(inst, sched)
    assert a["alg_objective"].iloc[0] == p.check(fitted, sched).objective
