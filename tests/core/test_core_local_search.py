"""The generic local search: checked acceptance, stops, determinism, argument errors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from optsched.core.errors import InfeasibleScheduleError
from optsched.core.local_search import improve, iterated


@dataclass(frozen=True)
class Ev:
    objective: float


def evaluate(inst, x: tuple[int, ...]) -> Ev:
    """Toy checker: minimise sum (x_k - 3)^2; any x_k == 1 is "infeasible"."""
    if 1 in x:
        raise InfeasibleScheduleError("x_k = 1 is forbidden", constraint="toy")
    return Ev(float(sum((v - 3) ** 2 for v in x)))


def neighbours(inst, x, rng):
    """+-1 on one coordinate, in a seeded order."""
    for k in rng.permutation(len(x)).tolist():
        for step in (1, -1):
            y = list(x)
            y[k] += step
            yield f"{k}{step:+d}", tuple(y)


@pytest.mark.parametrize("strategy", ["first", "best"])
def test_reaches_the_optimum_and_never_accepts_a_rejected_candidate(strategy):
    # from (0, 5): coordinate 0 must pass 1, which the checker forbids, so the
    # only reachable optimum keeps x_0 = 0 (value 9 + 0): the search must not
    # jump through the infeasible point; x_1 goes 5 -> 3.
    x, tr = improve(
        None,
        (0, 5),
        neighbours=neighbours,
        evaluate=evaluate,
        sense="min",
        strategy=strategy,
        time_limit=None,
    )
    assert x == (0, 3)
    assert tr.objective == 9.0 and tr.start == 13.0
    assert tr.stop == "local_optimum"
    assert tr.n_infeasible > 0
    objs = [tr.start] + [o for _, o in tr.accepted]
    assert all(b < a for a, b in zip(objs, objs[1:], strict=False))


def test_max_sense_and_max_evaluations():
    def ev(inst, x):
        return Ev(-evaluate(inst, x).objective)

    x, tr = improve(
        None, (4, 4), neighbours=neighbours, evaluate=ev, sense="max", time_limit=None
    )
    assert x == (3, 3) and tr.objective == 0.0
    x2, tr2 = improve(
        None,
        (9, 9),
        neighbours=neighbours,
        evaluate=ev,
        sense="max",
        time_limit=None,
        max_evaluations=3,
    )
    assert tr2.stop == "max_evaluations" and tr2.n_candidates == 3
    assert tr2.objective >= tr2.start


def test_deterministic_for_a_seed():
    runs = [
        improve(
            None,
            (9, 9, 9),
            neighbours=neighbours,
            evaluate=evaluate,
            sense="min",
            seed=s,
            strategy="first",
            time_limit=None,
            max_evaluations=7,
        )
        for s in (5, 5, 6)
    ]
    assert runs[0][0] == runs[1][0]
    assert runs[0][1].accepted == runs[1][1].accepted


def test_infeasible_start_raises():
    with pytest.raises(InfeasibleScheduleError):
        improve(None, (1,), neighbours=neighbours, evaluate=evaluate, sense="min")


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"sense": "minimise"}, "sense"),
        ({"strategy": "steepest"}, "strategy"),
        ({"time_limit": 0}, "time_limit"),
        ({"max_evaluations": -1}, "max_evaluations"),
        ({"max_evaluations": 2.5}, "max_evaluations"),
    ],
)
def test_bad_arguments_name_the_field(kw, field):
    args = {"sense": "min", **kw}
    with pytest.raises(ValueError, match=field):
        improve(None, (0,), neighbours=neighbours, evaluate=evaluate, **args)


def test_time_limit_stops():
    def slow(inst, x, rng):  # an endless neighbourhood of non-improving moves
        while True:
            yield "same", x

    x, tr = improve(
        None, (3,), neighbours=slow, evaluate=evaluate, sense="min", time_limit=0.2
    )
    assert tr.stop == "time_limit" and x == (3,)
    assert np.isfinite(tr.runtime)


def kick2(inst, x, rng):
    """Jump one random coordinate by +-2 (over the forbidden x_k = 1)."""
    k = int(rng.integers(len(x)))
    step = 2 if rng.random() < 0.5 else -2
    y = list(x)
    y[k] += step
    return f"{k}{step:+d}", tuple(y)


def test_iterated_escapes_the_local_optimum_descent_stops_in():
    # from (0, 5) the descent stops at (0, 3) (value 9: x_0 cannot pass the
    # forbidden 1); a kick x_0 = 0 -> 2 jumps over it and the descent then
    # reaches (3, 3), the global optimum (value 0, by hand).
    kw = {"neighbours": neighbours, "evaluate": evaluate, "sense": "min"}
    d, td = improve(None, (0, 5), time_limit=None, **kw)
    x, tr = iterated(None, (0, 5), perturb=kick2, time_limit=None, patience=30, **kw)
    assert d == (0, 3) and td.objective == 9.0
    assert x == (3, 3) and tr.objective == 0.0
    assert tr.stop == "patience" and tr.n_kicks >= 30
    # its first phase is the same descent (same generator): same moves first
    assert tr.accepted[: len(td.accepted)] == td.accepted
    objs = [tr.start] + [o for _, o in tr.accepted]
    assert all(b < a for a, b in zip(objs, objs[1:], strict=False))


@pytest.mark.parametrize("budget", [0, 1, 3, 6, 10, 25, 60])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iterated_never_worse_than_descent_and_deterministic(seed, budget):
    kw = {
        "neighbours": neighbours,
        "evaluate": evaluate,
        "sense": "min",
        "seed": seed,
        "time_limit": None,
        "max_evaluations": budget,
    }
    start = (0, 7, -2)
    _, td = improve(None, start, **kw)
    a, ta = iterated(None, start, perturb=kick2, **kw)
    b, tb = iterated(None, start, perturb=kick2, **kw)
    assert ta.objective <= td.objective
    assert a == b and ta.accepted == tb.accepted and ta.n_kicks == tb.n_kicks
    assert ta.n_candidates <= budget
    assert evaluate(None, a).objective == ta.objective


def test_iterated_max_sense_and_rejected_kicks():
    def ev(inst, x):
        return Ev(-evaluate(inst, x).objective)

    def bad_kick(inst, x, rng):  # always infeasible: counted, never kept
        return "bad", (1,) * len(x)

    x, tr = iterated(
        None,
        (5, 5),
        neighbours=neighbours,
        perturb=bad_kick,
        evaluate=ev,
        sense="max",
        time_limit=None,
        patience=4,
    )
    assert x == (3, 3) and tr.objective == 0.0
    assert tr.n_kicks == 4 and tr.n_infeasible >= 4 and tr.stop == "patience"


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"patience": 0}, "patience"),
        ({"patience": True}, "patience"),
        ({"patience": None, "time_limit": None}, "patience"),
        ({"strategy": "steepest"}, "strategy"),
    ],
)
def test_iterated_bad_arguments_name_the_field(kw, field):
    args = {"sense": "min", **kw}
    with pytest.raises(ValueError, match=field):
        iterated(
            None, (0,), neighbours=neighbours, perturb=kick2, evaluate=evaluate, **args
        )
