"""Fig. 4 of Bao et al. (INFOCOM 2018): completion timeliness per scheme.

The paper runs 100 time-sensitive and 100 time-critical jobs in ``T = 100``
slots and reports that *the actual completion time minus target completion
time (gamma_3) achieved with OASiS is the closest to zero for both types of
jobs, with the smallest variance* (Sec. V-A, "Results").

We generate 200 jobs with ``job_mix=(0, 0.5, 0.5)`` (each job is sensitive or
critical with probability 1/2, so the split is about 100/100), ``T = 100``,
``H = K = 50`` servers as in the paper, run the five schemes
(``ex.completion_timeliness``) and take ``lateness = t_hat_i - a_i -
gamma3_i`` from the checker (``p.check(...).lateness``).  Lateness exists
only for jobs that are admitted and completed; the ``admitted`` column and
the summary keep the number of such jobs beside the statistics, since a
scheme that rejects hard jobs looks punctual on the rest.

Claims: "closest to zero" is read on the median lateness, "variance" on its
standard deviation (smallest absolute value wins), per job type, against all
other schemes; the variance claim is also read against only the schemes that
complete at least 90% as many jobs of that type as OASiS.

Each CSV row is one job x instance (seed) x scheme.  Full run: 3 seeds;
quick: 16 jobs, ``T = 20``, ``H = K = 3``, 2 seeds.  Dorm (slowest) comes
first in the grid so that the workers stay busy.

Statuses.  The three claims are qualitative (closest to zero, smallest
spread): ``reproduced`` when OASiS is best on both job types.  The
comparison restricted to schemes that complete at least 90% as many jobs as
OASiS is our reading, not the paper's statement, so it carries
``reading=`` (status ``reading`` when it holds).  The completed jobs are
printed for context (the paper states the jobs run, not how many complete).

Sizes.  Paper: 100 time-sensitive + 100 time-critical jobs, ``T = 100``,
``H = K = 50`` (Sec. V-A's setting).  Ours: the same, except that the
200 jobs' types are drawn (probability 1/2 each), so a seed has about, not
exactly, 100 of each (315 critical and 285 sensitive over the 3 seeds of
the recorded run); the paper does not say how many instances it ran.
"""

from optsched.core.experiment import Claim, Experiment
from optsched.oasis import experiments as ex

_SCHEMES = sorted(ex.SCHEMES, key=lambda s: s != "dorm")

SPEC = Experiment(
    name="fig4_completion_timeliness",
    paper="oasis",
    ref="Fig. 4, Sec. V-A",
    doc=__doc__,
    task=ex.completion_timeliness,
    grid={
        "scheme": _SCHEMES,
        "seed": list(range(3)),
        "n_jobs": 200,
        "n_slots": 100,
        "servers_per_side": 50,
        "job_mix": ex.JOB_MIX,
    },
    quick={
        "scheme": _SCHEMES,
        "seed": [0, 1],
        "n_jobs": 16,
        "n_slots": 20,
        "servers_per_side": 3,
        "job_mix": ex.JOB_MIX,
    },
    columns=ex.FIG4_COLUMNS,
    sort=["seed", "scheme", "job"],
    plot=ex.plot_completion_timeliness,
    summary=ex.summarize_lateness,
    claims=[
        Claim(
            "OASiS closest to zero for both job types (median lateness, all schemes)",
            "closest to 0",
            lambda df: ex.lateness_ranks(df, "median"),
            holds=lambda v: v.oasis_best,
        ),
        Claim(
            "OASiS with the smallest variance (std of lateness, all schemes)",
            "smallest",
            lambda df: ex.lateness_ranks(df, "std"),
            holds=lambda v: v.oasis_best,
        ),
        Claim(
            "smallest variance among schemes completing >= 90% as many jobs as OASiS",
            "smallest",
            lambda df: ex.lateness_ranks(df, "std", min_relative=0.9),
            holds=lambda v: v.oasis_best,
            reading="lateness spread compared only among schemes that complete "
            ">= 90% as many jobs of the type as OASiS",
        ),
        Claim(
            "completed / jobs per scheme and job type (paper: 100 + 100 jobs run)",
            "-",
            ex.completed,
        ),
    ],
)
