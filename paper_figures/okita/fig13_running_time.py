"""Fig. 13 of Han et al.: running time of Okita vs the number of jobs (and sites).

The paper (Sec. V-C): Okita run 20 times per size in MATLAB on a laptop
(Core i5-7300HQ, 8 GB): *the running time of Okita increases with the
number of sites/jobs, but still remains at a low level (< 50 s)*.

Ours: the Python implementation on this machine (one process; the runner's
workers run tasks side by side, so use ``--workers 1`` for clean timings;
``benchmarks/okita_bench.py`` has the medians), Sec. V-B's setting with
``T = 150``, R in {10, 30, 50} x I in {20, 40, 60, 80, 100}, one seed, 3
runs each (rows).  Full: 15 sizes x 3 runs; quick: 4 sizes x 2 runs.

Statuses.  "< 50 s" is a wall time on another machine in another language:
``not comparable`` (ours printed).  "Increases with the number of
sites/jobs" is a direction and does not depend on the machine: one claim
per factor (at the largest value of the other), ``reproduced`` when the
mean grows from the smallest to the largest value.

Sizes.  Paper: Sec. V-B's setting (``R = 50``, ``I = 100``, ``T = 150`` by
default), the sizes of Fig. 13 on its axes only; 20 runs per size.  Ours:
R in {10, 30, 50} x I in 20-100 (the paper's defaults as the largest
values), ``T = 150``, 3 runs per size instead of 20, so that the full run
takes about a minute (docs/okita.md, "Figures 7-14").
"""

from optsched.core.experiment import Claim, Experiment
from optsched.core.plots import Line
from optsched.okita import experiments as ex

SPEC = Experiment(
    name="fig13_running_time",
    paper="okita",
    ref="Fig. 13, Sec. V-C",
    doc=__doc__,
    task=ex.running_time,
    grid={
        "n_sites": [10, 30, 50],
        "n_jobs": [20, 40, 60, 80, 100],
        "n_slots": 150,
        "seed": [0],
        "repeats": 3,
    },  # fmt: skip
    quick={
        **ex.SIM_QUICK,
        "n_sites": [3, 4],
        "n_jobs": [3, 6],
        "seed": [0],
        "repeats": 2,
    },
    columns=ex.TIME_COLUMNS,
    sort=["n_sites", "n_jobs", "repeat"],
    plot=Line(
        x="n_jobs",
        y="runtime_s",
        hue="n_sites",
        estimator="mean",
        band=None,
        xlabel="jobs I",
        ylabel="running time (s)",
        title="Fig. 13: running time of Okita",
    ),  # fmt: skip
    summary=lambda df: df.pivot_table(
        index="n_jobs", columns="n_sites", values="runtime_s", aggfunc="mean"
    ),
    claims=[
        Claim(
            "running time < 50 s (largest mean over sizes)",
            "< 50 s",
            lambda df: float(
                df.groupby(["n_sites", "n_jobs"])["runtime_s"].mean().max()
            ),
            fmt="{:.2f} s",
            not_comparable="wall time of our Python code on this machine; the "
            "paper's is MATLAB on a Core i5-7300HQ laptop",
        ),
        Claim(
            "running time increases with jobs (mean at most minus fewest jobs, largest R)",
            "> 0",
            lambda df: float(
                df[df["n_sites"] == df["n_sites"].max()]
                .groupby("n_jobs")["runtime_s"]
                .mean()
                .pipe(lambda s: s.iloc[-1] - s.iloc[0])
            ),
            holds=lambda v: v > 0,
            fmt="{:+.2f} s",
        ),
        Claim(
            "running time increases with sites (mean at most minus fewest sites, "
            "largest I)",
            "> 0",
            lambda df: float(
                df[df["n_jobs"] == df["n_jobs"].max()]
                .groupby("n_sites")["runtime_s"]
                .mean()
                .pipe(lambda s: s.iloc[-1] - s.iloc[0])
            ),
            holds=lambda v: v > 0,
            fmt="{:+.2f} s",
        ),
    ],
)
