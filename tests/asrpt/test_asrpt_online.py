"""A-SRPT (Alg. 1) and the baselines on hand-computed instances."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optsched.asrpt import AsrptInstance, Job, Stage, check
from optsched.asrpt.baselines import spjf, spwf, wcs_duration, wcs_subtime, wcs_workload
from optsched.asrpt.online import AsrptParams, asrpt, asrpt_eager, asrpt_perfect
from optsched.asrpt.sim import select, srpt
from optsched.asrpt.timing import Cluster

C = Cluster(2, 2, 1.25, 300.0)
ONE = (Stage(k=1, pf=400.0, pb=600.0),)  # 1000 ms: one slot per iteration
LIGHT = (Stage(k=2, pf=200.0, pb=300.0, h=150.0),)  # 500.5 / 740 ms: ratio 1.48
HEAVY = (Stage(k=2, pf=200.0, pb=300.0, h=300.0),)  # 501 / 980 ms: ratio 1.96


def test_srpt_by_hand():
    # job 1 (size 1) preempts job 0 (size 3) at t = 1; a size-0 job is done at once
    done = srpt(np.array([0.0, 1.0, 2.0]), np.array([3.0, 1.0, 0.0]))
    assert done.tolist() == [4.0, 2.0, 2.0]


def test_srpt_beats_every_non_preemptive_order():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 6))
        r = np.round(rng.uniform(0, 5, n), 1)
        p = np.round(rng.uniform(0, 3, n), 1)
        best = np.inf
        for perm in itertools.permutations(range(n)):
            t, tot = 0.0, 0.0
            for j in perm:
                t = max(t, r[j]) + p[j]
                tot += t
            best = min(best, tot)
        done = srpt(r, p)
        assert done.sum() <= best + 1e-9
        assert (done >= r + p - 1e-9).all()
        # work conservation: the last completion is the non-preemptive FIFO makespan
        t = 0.0
        for j in np.argsort(r, kind="stable"):
            t = max(t, r[j]) + p[j]
        assert done.max() == pytest.approx(t)


def test_select_most_and_least():
    free = np.array([1, 3, 2, 0])
    assert select(free, 4, most=True) == [(1, 3), (2, 1)]
    assert select(free, 4, most=False) == [(0, 1), (2, 2), (1, 1)]


def test_unseen_job_goes_first_and_virtual_order():
    # virtual durations (1/4) n~ alpha~: J0 1 slot, J1 (unseen, n~ = 0) 0
    inst = AsrptInstance(C, (Job(0, 4, 4.0, ONE), Job(0, 2, 0.0, ONE)))
    s = asrpt(inst)
    assert s.start == (1, 0)  # J1 at once, J0 when A~_1 completes it (t = 1)
    assert s.servers == ((0,), (0,))  # least-available server for both
    assert check(inst, s).objective == pytest.approx(5 + 2)
    # the baselines start both at once, and so does the eager variant: both
    # join the queue at arrival, J1 first (C~ = 0 < 1), J0 then fits
    for alg in (spjf, spwf, wcs_duration, wcs_workload, wcs_subtime, asrpt_eager):
        assert alg(inst).start == (0, 0)
    assert asrpt_eager(inst).meta["algorithm"] == "asrpt_eager"


def test_comm_heavy_job_waits_within_its_window():
    # A (1 GPU) enters at 1 -> server 0 [1, 4); E (2 GPUs, not heavy) enters at
    # 2, least-available servers 0 and 1 -> split, 4 x 0.740 -> [2, 4.96);
    # D (heavy) enters at 4 with one GPU free per server: split alpha 980 ms
    # is > 1.5 alpha~ (501), so D waits; E's GPUs return at 5 < 4 + floor(2 x
    # 1.002) and D starts there on one server (alpha 501 < kappa = 980).
    jobs = (Job(0, 3, 3.0, ONE), Job(0, 4, 4.0, LIGHT), Job(2, 8, 4.0, HEAVY))
    inst = AsrptInstance(C, jobs)
    s = asrpt(inst, params=AsrptParams(tau=2.0))
    assert s.start == (1, 2, 5)
    assert s.servers[1] == (0, 1) and len(s.servers[2]) == 1
    ev = check(inst, s)
    assert ev.completion.tolist() == pytest.approx([4.0, 2 + 2.96, 5 + 8 * 0.501])
    assert s.meta["comm_heavy_delays"] == 1
    # tau = 0: no window, D starts split at 4 (8 x 0.980 slots)
    s0 = asrpt(inst, params=AsrptParams(tau=0.0))
    assert s0.start == (1, 2, 4)
    assert check(inst, s0).completion[2] == pytest.approx(4 + 8 * 0.98)
    # the window ends without a better placement: start at its last slot
    # (E underestimated: n = 40, n~ = 4, so it still holds its GPUs)
    late = AsrptInstance(C, (Job(0, 3, 3.0, ONE), Job(0, 40, 4.0, LIGHT),
                             Job(2, 8, 4.0, HEAVY)))  # fmt: skip
    s2 = asrpt(late, params=AsrptParams(tau=2.0))
    assert s2.start[2] == 4 + 2 and len(s2.servers[2]) == 2


def test_perfect_uses_true_iterations():
    # n~ = 0 for J0 would make it go first; with n (perfect) J1 is shorter
    inst = AsrptInstance(C, (Job(0, 8, 0.0, ONE), Job(0, 1, 5.0, ONE)))
    assert asrpt(inst).start == (0, 2)  # J1 enters at ceil(5/4) = 2
    # A_1: J1 done at 0.25, J0 at 2.25 (enters at slot 3)
    assert asrpt_perfect(inst).start == (3, 1)


def test_strict_versus_work_conserving():
    one = Cluster(1, 2, 1.25, 300.0)
    # P runs [0, 10); at 1 the 2-GPU Q (short) blocks R under SPJF / SPWF
    jobs = (Job(0, 10, 10.0, ONE), Job(1, 1, 1.0, LIGHT), Job(1, 5, 5.0, ONE))
    inst = AsrptInstance(one, jobs)
    for alg in (spjf, spwf):
        s = alg(inst)
        assert s.start == (0, 10, 11)
        assert check(inst, s).objective == pytest.approx(10 + 10.5005 + 16)
    for alg in (wcs_duration, wcs_workload, wcs_subtime):
        s = alg(inst)
        assert s.start == (0, 10, 1)
        assert check(inst, s).objective == pytest.approx(10 + 10.5005 + 6)


def test_eager_variant_keeps_the_virtual_order():
    # one server of 1 GPU: J0 (n~ = 8) and J1 (n~ = 1) at 0, J2 (n~ = 2) at 1.
    # A~_1 (G = 1): J1 done at 1, J2 at 3, J0 at 11.  Eager: J1 at 0 (head),
    # then J2 (arrived at 1, C~ = 3 < 11) before J0, each when the GPU frees.
    one = Cluster(1, 1, 1.25, 300.0)
    jobs = (Job(0, 8, 8.0, ONE), Job(0, 1, 1.0, ONE), Job(1, 2, 2.0, ONE))
    inst = AsrptInstance(one, jobs)
    assert asrpt_eager(inst).start == (3, 0, 1)
    assert asrpt(inst).start == (11, 1, 3)  # literal: each waits for C~
