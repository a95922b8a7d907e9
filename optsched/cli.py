"""The ``optsched`` command line.

Every user error (bad option, unwritable output path, malformed instance,
unknown name) prints one line ``optsched: error: ...`` naming the option or
field on stderr and exits with code 2, before any computation; output files
are written atomically (temp file + rename), so a failed or interrupted
command never leaves a partial file.

Exit codes: 0 success; 1 an infeasible schedule (``optsched check``) or an
internal error (one line ``optsched: internal error: ...``; set
``OPTSCHED_DEBUG=1`` to see the traceback); 2 a usage or input error; 130
interrupted (Ctrl-C: ``optsched: interrupted; nothing written``).  A closed
output pipe (``optsched generate oasis | head -1``) ends the command quietly
with code 0: the reader stopped reading, nothing failed on our side.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from .core.base import write_atomic, write_text_atomic
from .core.errors import InfeasibleScheduleError, OptschedError
from .core.registry import PAPERS, get_paper

#: Where ``figure run`` writes by default and ``figure report`` reads/writes
#: (relative to the current directory: run them from the repository root).
FIGURES_OUT = Path("paper_figures") / "out"
FIGURES_CLAIMS = Path("paper_figures") / "claims"
FIGURES_README = Path("paper_figures") / "README.md"

#: The help header (plain text: argparse prints it verbatim).
DESCRIPTION = (
    "optsched: online scheduling of distributed machine-learning training jobs, "
    "paper by paper. Generate instances, run the papers' algorithms, check "
    "schedules independently, solve the offline problem (HiGHS), compute "
    "competitive ratios and reproduce the papers' figures."
)
EPILOG = (
    "Exit codes: 0 success; 1 infeasible schedule (check) or internal error "
    "(OPTSCHED_DEBUG=1 shows its traceback); 2 usage or input error; "
    "130 interrupted (Ctrl-C)."
)
#: Environment variable: when set, an internal error shows its traceback.
DEBUG_ENV = "OPTSCHED_DEBUG"


#: Papers whose model has several formulations, for ``solve --formulation``.
#: The model modules' ``FORMULATIONS`` name them; a test keeps this in step.
SOLVE_FORMULATIONS = ("asrpt", "edgecloud", "okita")


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


# ------------------------------------------------------------ option types
def _int_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer ``>= low``, else a message naming the bound."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {low}, got {text!r}"
            ) from None
        if value < low:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {low}, got {value}"
            )
        return value

    parse.__name__ = f"int>={low}"
    return parse


positive_int = _int_at_least(1)
nonneg_int = _int_at_least(0)


def _finite_float(low: float, *, strict: bool, what: str) -> Callable[[str], float]:
    """An argparse ``type=``: a finite number above ``low`` (``>`` when
    ``strict``, else ``>=``), else a message naming the bound."""
    sign = ">" if strict else ">="

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and (value > low if strict else value >= low)
        if not ok:
            raise argparse.ArgumentTypeError(
                f"must be a finite {what} {sign} {low:g}, got {text!r}"
            )
        return value

    parse.__name__ = f"float{sign}{low:g}"
    return parse


positive_seconds = _finite_float(0.0, strict=True, what="number of seconds")
_nonneg_float = _finite_float(0.0, strict=False, what="number")


class _Parser(argparse.ArgumentParser):
    """argparse with our one-line error format (no usage block).

    ``argument --seed: must be ...`` becomes ``optsched: error: --seed: must
    be ...``; other usage errors add a pointer to the command's ``--help``.
    """

    def error(self, message: str) -> NoReturn:
        message = message.removeprefix("argument ")
        hint = "" if ": must be " in message else f" (see '{self.prog} --help')"
        self.exit(2, f"optsched: error: {message}{hint}\n")


# ------------------------------------------------------------- file helpers
def _check_output(option: str, path: str | os.PathLike, *, folder: bool) -> Path:
    """Refuse, before any work, an output path that cannot be written.

    ``folder=False``: ``path`` is a file (it must not be a directory or a
    special file); ``folder=True``: ``path`` is a directory (created if
    missing; it must not be an existing non-directory).  The nearest existing
    ancestor must be a directory this process may write in.  Raises
    :class:`CliError` naming ``option`` and ``path``.
    """
    target = Path(path)
    if folder:
        if target.exists() and not target.is_dir():
            raise CliError(f"{option}: {str(path)!r} exists and is not a directory")
        parent = target
    else:
        if target.is_dir():
            raise CliError(f"{option}: {str(path)!r} is a directory, not a file")
        if target.exists() and not target.is_file():
            raise CliError(f"{option}: {str(path)!r} is not a regular file")
        parent = target.parent
    base = Path(os.path.abspath(parent))
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise CliError(
            f"{option}: cannot create {str(path)!r}: {str(base)!r} is not a directory"
        )
    if not os.access(base, os.W_OK | os.X_OK):
        raise CliError(
            f"{option}: cannot write {str(path)!r}: "
            f"no write permission in {str(base)!r}"
        )
    return target


def _read(what: str, path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise CliError(f"cannot read {what} file {path!r}: {exc.strerror}") from None


def _paper(key: str):
    try:
        return get_paper(key)
    except KeyError as exc:
        raise CliError(str(exc.args[0])) from None


def _load_instance(paper, path: str):
    return paper.instance_type.from_json(_read("instance", path))


def _workers(args: argparse.Namespace) -> int:
    """``--workers``, or one process per CPU: the CLI is parallel by default
    whatever the library functions' own default is."""
    return args.workers if args.workers is not None else (os.cpu_count() or 1)


# ------------------------------------------------------------ size options
def _size_names() -> dict[str, list[str]]:
    """Size keyword -> the papers that take it, in registry order."""
    names: dict[str, list[str]] = {}
    for key in PAPERS:
        for name in get_paper(key).size_options:
            names.setdefault(name, []).append(key)
    return names


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _size_kwargs(
    paper, args: argparse.Namespace, *, probe_seed: int | None = None
) -> dict[str, Any]:
    """The paper's size keywords: each given option, else its ``size_options`` default.

    A size option of another paper (``generate oasis --n-sites 3``) is
    refused, naming it and this paper's size options.  With ``probe_seed``,
    one instance is generated here so that an invalid size is reported
    before a pool or a search starts.
    """
    foreign = [
        _flag(name)
        for name in _size_names()
        if name not in paper.size_options and getattr(args, name, None) is not None
    ]
    if foreign:
        own = ", ".join(_flag(n) for n in paper.size_options) or "none"
        raise CliError(
            f"{', '.join(foreign)}: not a size option of {paper.key} "
            f"(its size options: {own})"
        )
    size = {
        k: default if getattr(args, k, None) is None else getattr(args, k)
        for k, (_typ, default, _help) in paper.size_options.items()
    }
    if probe_seed is not None:
        paper.generate(seed=probe_seed, **size)
    return size


def _add_size_options(parser: argparse.ArgumentParser) -> None:
    """Size options of every registered paper (``--n-jobs`` ...); each
    paper accepts only its own (:func:`_size_kwargs`)."""
    specs: dict[str, tuple] = {}
    for key in PAPERS:
        for name, spec in get_paper(key).size_options.items():
            specs.setdefault(name, spec)
    group = parser.add_argument_group(
        "size options", "instance size; each paper takes only its own (listed)"
    )
    for name, papers in _size_names().items():
        typ, _default, help_ = specs[name]
        group.add_argument(
            _flag(name),
            dest=name,
            type=typ,
            default=None,
            help=f"{help_} [{', '.join(papers)}]",
        )


# ----------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace) -> int:
    """List registered papers and their algorithms."""
    for key in PAPERS:
        p = get_paper(key)
        print(f"{key:10s} {p.sense}  {p.title}")
        print(f"{'':10s} algorithms: {', '.join(p.algorithms)}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Write a random instance as JSON."""
    p = _paper(args.paper)
    size = _size_kwargs(p, args)
    if args.output:
        _check_output("-o", args.output, folder=False)
    inst = p.generate(seed=args.seed, **size)
    text = inst.to_json(indent=1)
    if args.output:
        write_text_atomic(args.output, text + "\n")
    else:
        print(text)
    return 0


def _evaluation_line(ev: Any) -> str:
    """``objective=...`` and the evaluation's summary scalars (``EvaluationBase.SUMMARY``)."""
    items = ev.summary().items()
    return "  ".join(
        f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in items
    )


def _known_algorithm(p, name: str) -> None:
    if name not in p.algorithms:
        raise CliError(
            f"unknown algorithm {name!r} for {p.key} (known: {', '.join(p.algorithms)})"
        )


def cmd_run(args: argparse.Namespace) -> int:
    """Run one algorithm on an instance file; print the checked objective."""
    p = _paper(args.paper)
    _known_algorithm(p, args.algorithm)
    if args.output:
        _check_output("-o", args.output, folder=False)
    inst = _load_instance(p, args.instance)
    t0 = time.perf_counter()
    sched = p.run(args.algorithm, inst)
    runtime = time.perf_counter() - t0
    # the horizon rule (optsched.core.horizon): a run past T is checked on
    # the instance extended to its makespan, and says so
    fitted, extended = p.fit_horizon(inst, sched)
    line = _evaluation_line(p.check(fitted, sched))
    if extended:
        line += (
            f"  horizon extended to T={fitted.n_slots} (instance T={inst.n_slots};"
            " docs/horizon.md)"
        )
    if args.output:
        write_text_atomic(args.output, sched.to_json() + "\n")
    print(f"{p.key}/{args.algorithm}: {line}  runtime={runtime:.3f}s")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check a schedule file against an instance file with the paper's checker.

    Exit 0 and ``feasible objective=...`` when the checker accepts it; exit 1
    and the checker's message (the violated equation) when it does not.
    """
    p = _paper(args.paper)
    inst = _load_instance(p, args.instance)
    sched = p.schedule_type.from_json(_read("schedule", args.schedule))
    try:
        ev = p.check(inst, sched)
    except InfeasibleScheduleError as exc:
        print(f"{p.key}: infeasible: {_one_line(str(exc))}")
        return 1
    print(f"{p.key}: feasible {_evaluation_line(ev)}")
    return 0


def _solve_options(
    key: str, formulation: str | None, threads: int | None
) -> dict[str, Any]:
    """``solve_offline`` keywords of ``--formulation`` and ``--threads``.

    Raises
    ------
    CliError
        ``--formulation`` names none of the paper's formulations
        (``optsched.models.<key>.FORMULATIONS``), or the paper has one.
    """
    options: dict[str, Any] = {} if threads is None else {"threads": threads}
    if formulation is None:
        return options
    names = tuple(
        getattr(importlib.import_module(f"optsched.models.{key}"), "FORMULATIONS", ())
    )
    if not names:
        raise CliError(
            f"--formulation: paper {key!r} has one formulation, got {formulation!r}"
        )
    if formulation not in names:
        raise CliError(
            f"--formulation: must be one of {', '.join(names)} for {key}, "
            f"got {formulation!r}"
        )
    return {**options, "formulation": formulation}


def _solve_start(p, inst, path: str | None):
    """The MIP start: the schedule of ``--start`` (checked first), else the
    paper's start rule (its best checked online schedule), never the model's."""
    from .core.ratio import best_start

    if path is None:
        return best_start(p, inst)
    sched = p.schedule_type.from_json(_read("schedule", path))
    try:
        p.check(inst, sched)
    except InfeasibleScheduleError as exc:
        raise CliError(
            f"--start: {path!r} is not a feasible schedule of this instance: "
            f"{_one_line(str(exc))}"
        ) from None
    return sched


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve the offline problem of an instance with HiGHS (``--confirm scip``: and SCIP)."""
    p = _paper(args.paper)
    if args.output:
        _check_output("-o", args.output, folder=False)
    confirm = args.confirm
    if confirm is not None:
        from .core.confirm import check_confirm

        try:
            check_confirm(confirm)  # pyscipopt missing: fail before the solve
        except ImportError as exc:
            raise CliError(f"--confirm {confirm}: {exc}") from None
    options = _solve_options(p.key, args.formulation, args.threads)
    inst = _load_instance(p, args.instance)
    from .core.confirm import UnconfirmedWarning

    start = _solve_start(p, inst, args.start)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnconfirmedWarning)
        res = p.solve_offline(
            inst, time_limit=args.time_limit, start=start, confirm=confirm, **options
        )
    unconfirmed = [w for w in caught if issubclass(w.category, UnconfirmedWarning)]
    for w in caught:
        if w not in unconfirmed:  # not ours: show it as Python would
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    for w in unconfirmed:
        print(f"optsched: warning: --confirm {confirm}: {w.message}", file=sys.stderr)
    if res.status == "optimal":
        confirmed = " (confirmed by SCIP)" if confirm and not unconfirmed else ""
        print(
            f"{p.key}: optimal objective={res.objective:.6g} "
            f"runtime={res.runtime:.2f}s{confirmed}"
        )
    else:
        print(
            f"{p.key}: status={res.status} incumbent={res.objective:.6g} "
            f"bound={res.bound:.6g} ({res.bound_kind}) runtime={res.runtime:.2f}s "
            "(not proven optimal)"
        )
    if args.output:
        if res.schedule is not None:
            write_text_atomic(args.output, res.schedule.to_json() + "\n")
        else:
            print(
                f"optsched: warning: -o: no schedule (status {res.status}); "
                f"{args.output!r} not written",
                file=sys.stderr,
            )
    return 0


def _fmt_ratio(row: pd.Series) -> str:
    if row.get("kind") == "alg_infeasible":
        return "infeasible"
    if row["opt_status"] == "optimal":
        return f"{row['ratio']:.3f}"
    return f"[{row['ratio_lo']:.3f}, {row['ratio_hi']:.3f}]"


def cmd_ratio(args: argparse.Namespace) -> int:
    """Competitive-ratio table against the certified offline optimum."""
    from .core.ratio import ratios, summarize

    p = _paper(args.paper)
    algs = args.algorithms.split(",") if args.algorithms else None
    if algs:
        unknown = [a for a in algs if a not in p.algorithms]
        if unknown:
            raise CliError(
                f"--algorithms: unknown algorithm(s) {', '.join(unknown)} for "
                f"{p.key} (known: {', '.join(p.algorithms)})"
            )
    size = _size_kwargs(p, args, probe_seed=args.seed)
    if args.output:
        _check_output("-o", args.output, folder=False)
    df = ratios(
        p,
        n_instances=args.n,
        seed=args.seed,
        algorithms=algs,
        time_limit=args.time_limit,
        workers=_workers(args),
        scheduler=args.dask,
        progress=True,
        **size,
    )
    if args.output:
        write_text_atomic(args.output, df.to_csv(index=False))
    show = df.assign(ratio_str=df.apply(_fmt_ratio, axis=1))
    with pd.option_context("display.width", 140, "display.max_rows", 500):
        print(
            show[
                [
                    "instance",
                    "seed",
                    "algorithm",
                    "alg_objective",
                    "opt_objective",
                    "opt_status",
                    "ratio_str",
                ]
            ]
            .rename(columns={"ratio_str": "ratio"})
            .to_string(index=False)
        )
        print()
        summary = summarize(df)
        summary["paper_reports"] = [
            f"{r[0]}-{r[1]}" if (r := p.reported_ratio.get(a)) else "-"
            for a in summary["algorithm"]
        ]
        print(summary.to_string(index=False))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Small ratio table for every registered paper, paper's range beside ours."""
    from .core.ratio import ratios

    rows = []
    for key in PAPERS:
        p = get_paper(key)
        df = ratios(
            p,
            n_instances=args.n,
            seed=args.seed,
            time_limit=30.0,
            workers=_workers(args),
            progress=False,
            **p.demo_size,
        )
        alg: Any  # pandas-stubs: group keys are Hashable
        for alg, g in df.groupby("algorithm", sort=False):
            proven = g[g["opt_status"] == "optimal"]
            r = proven["ratio"].replace(np.inf, np.nan)
            finite = r.dropna()
            ours = (
                f"{finite.min():.2f}-{finite.max():.2f} (mean {finite.mean():.2f})"
                if len(finite)
                else "n/a"
            )
            n_inf = int(np.isinf(proven["ratio"]).sum())
            if n_inf:
                ours += f", {n_inf} with ALG=0"
            n_bad = int((g["kind"] == "alg_infeasible").sum())
            if n_bad:
                ours += f", {n_bad} infeasible"
            rep = p.reported_ratio.get(alg)
            rows.append(
                {
                    "paper": key,
                    "algorithm": alg,
                    "instances": len(g),
                    "proven_optimal": len(proven),
                    "ratio (ours)": ours,
                    "paper reports": f"{rep[0]}-{rep[1]}" if rep else "-",
                    "size": " ".join(f"{k}={v}" for k, v in p.demo_size.items()),
                }
            )
    table = pd.DataFrame(rows)
    size = ", ".join(f"{k}={v}" for k, v in get_paper(PAPERS[0]).demo_size.items())
    print(
        "optsched demo: empirical ratios OPT/ALG (max) or ALG/OPT (min), "
        f"{args.n} instances each ({size})"
    )
    print(table.to_string(index=False))
    return 0


def _record_state(spec: Any, *, why: bool = False) -> str:
    """``fresh``, ``stale`` or ``not recorded``: the spec's record in paper_figures/claims.

    With ``why``, a stale state names the files whose code changed since the
    recording (``stale: core/solver.py changed``), when the record keeps
    per-file hashes.
    """
    from .core.record import is_stale, read_record, stale_files

    record = read_record(FIGURES_CLAIMS / spec.paper, spec.name)
    if record is None:
        return "not recorded"
    if not is_stale(spec, record):
        return "fresh"
    changed = stale_files(spec, record) if why else None
    if not changed:
        return "stale"
    shown = ", ".join(changed[:3]) + (
        f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    )
    return f"stale: {shown} changed"


def _record_wall(spec: Any) -> str:
    """``, run 45 min`` from the record's ``wall_s`` (empty when not kept)."""
    from .core.record import read_record, run_time

    took = run_time(read_record(FIGURES_CLAIMS / spec.paper, spec.name) or {})
    return f", run {took}" if took else ""


def cmd_figure(args: argparse.Namespace) -> int:
    """List, run or report the declarative figure specs (``paper_figures/``)."""
    from .core import experiment

    if args.action == "list":
        for name, spec in experiment.specs().items():
            state = _record_state(spec, why=True) + _record_wall(spec)
            print(f"{spec.paper}/{name}  ({spec.ref}; {state})")
        return 0
    if args.action == "report":
        readme = args.readme or FIGURES_README
        _check_output("--readme", readme, folder=False)
        block = experiment.report(args.claims or FIGURES_CLAIMS, readme)
        counts = block.split("\n### ", 1)[0].splitlines()
        print("\n".join(line for line in counts if line.startswith("|")))
        print(f"rewrote the findings table of {readme}")
        return 0
    if args.action == "verify":
        return _figure_verify(args)
    if not args.name:
        raise CliError(
            "figure run needs a NAME (see 'optsched figure list'), 'all' or 'stale'"
        )
    if args.record and args.quick:
        raise CliError("--record keeps full runs only; drop --quick")
    if args.name == "all":
        chosen = list(experiment.specs().values())
    elif args.name == "stale":
        chosen = [s for s in experiment.specs().values() if _record_state(s) != "fresh"]
        if not chosen:
            print("every figure has a fresh record; nothing to run")
            return 0
        print(f"{len(chosen)} figures without a fresh record: "
              f"{', '.join(s.name for s in chosen)}")  # fmt: skip
    else:
        chosen = [experiment.get_spec(args.name)]
    outs = [Path(args.out) if args.out else FIGURES_OUT / s.paper for s in chosen]
    for spec, out in zip(chosen, outs, strict=True):
        _check_output("--out", out, folder=True)
        if args.record:
            _check_output("--record", FIGURES_CLAIMS / spec.paper, folder=True)
    # specs that run the same task on the same grid point (edgecloud Figs.
    # 7/9, 8/10, okita 9/10) compute it once per command
    shared = experiment.TaskCache()
    code: str | None = None
    files: dict[str, str] | None = None
    dirty: list[str] | None = None
    commit: str | None = None
    for spec, out in zip(chosen, outs, strict=True):
        if args.record:  # the digest of the code the rows come from: taken first
            from .core import record

            code, files = record.code_digest(spec), record.code_hashes(spec)
            dirty, commit = record.uncommitted_files(spec), record.current_commit()
        started = time.perf_counter()
        res = experiment.run(
            spec,
            quick=args.quick,
            out=out,
            workers=_workers(args),
            scheduler=args.scheduler,
            progress=not args.no_progress,
            shared=shared,
        )
        args.written.append(spec.name)
        if args.record:  # rows + provenance; unchanged claims keep their file
            from .core.record import record_run

            record_run(
                spec,
                res.rows,
                res.claims,
                FIGURES_CLAIMS / spec.paper,
                n_tasks=len(spec.tasks(args.quick)),
                code=code,
                files=files,
                wall_s=time.perf_counter() - started,
                uncommitted=dirty,
                commit=commit,
            )
    return 0


def _figure_verify(args: argparse.Namespace) -> int:
    """``figure verify NAME``: re-run a recorded figure and compare its rows (exit 1 if they differ)."""
    from .core import experiment
    from .core.base import write_atomic
    from .core.verify import compare_with_revision, verify_figure

    if not args.name or args.name in ("all", "stale"):
        raise CliError(
            "figure verify needs one figure NAME (see 'optsched figure list')"
        )
    if args.quick:
        raise CliError("figure verify re-runs the recorded full grid; drop --quick")
    spec = experiment.get_spec(args.name)
    folder = Path(args.claims or FIGURES_CLAIMS) / spec.paper
    out = _check_output("--out", args.out or FIGURES_OUT / spec.paper, folder=True)
    try:
        if args.against:
            res = compare_with_revision(spec, folder, args.against, rtol=args.rtol)
            write_atomic(
                out,
                {
                    f"{spec.name}.verify.csv": lambda p: res.differences.to_csv(
                        p, index=False
                    )
                },
            )
        else:
            res = verify_figure(
                spec,
                folder,
                out=out,
                workers=_workers(args),
                scheduler=args.scheduler,
                progress=not args.no_progress,
                rtol=args.rtol,
            )
    except FileNotFoundError as exc:
        hint = (
            "a commit that keeps the record"
            if args.against
            else ("record it with 'figure run --record'")
        )
        raise CliError(f"figure verify: {exc} ({hint})") from None
    print(res.summary())
    failing = res.failures
    if len(failing):
        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            print(failing.head(20).to_string(index=False))
    changed = res.claims[res.claims["changed"]] if len(res.claims) else res.claims
    if len(changed):
        with pd.option_context("display.width", 200, "display.max_colwidth", 70):
            print(changed[["claim", "recorded", "rerun"]].to_string(index=False))
    print(f"differences in {out / (spec.name + '.verify.csv')}")
    return 0 if res.reproduced else 1


def cmd_worst_case(args: argparse.Namespace) -> int:
    """Search for the instance with the worst certified ratio; write instance,
    trace, summary and plot."""
    from .core import adversary

    p = _paper(args.paper)
    if args.algorithm not in p.algorithms:
        raise CliError(
            f"{p.key}: unknown algorithm {args.algorithm!r} "
            f"(known: {', '.join(p.algorithms)})"
        )
    size = _size_kwargs(p, args, probe_seed=args.seed)
    out = _check_output("--out", args.out, folder=True)
    res = adversary.worst_case(
        p,
        args.algorithm,
        n_evals=args.evals,
        seed=args.seed,
        time_limit=args.time_limit,
        method=args.method,
        batch=args.batch,
        workers=_workers(args),
        scheduler=args.dask,
        progress=not args.no_progress,
        **size,
    )
    stem = f"worst_{p.key}_{args.algorithm}_{args.method}_seed{args.seed}"
    fig = adversary.plot_trace(
        res.trace, title=f"{p.key} / {args.algorithm}, seed {args.seed}"
    )
    paths = write_atomic(
        out,
        {
            f"{stem}.json": lambda f: Path(f).write_text(
                res.instance.to_json(indent=1) + "\n"
            ),
            f"{stem}.trace.csv": lambda f: res.trace.to_csv(f, index=False),
            f"{stem}.summary.json": lambda f: Path(f).write_text(
                adversary.dumps_summary(res) + "\n"
            ),
            f"{stem}.png": lambda f: fig.savefig(f, format="png", dpi=120),
        },
    )
    start = float(res.trace["certified"].iloc[0])
    print(
        f"{p.key} / {args.algorithm}: worst certified ratio {res.ratio:.6g} "
        f"({res.kind}, optimum {res.status}) after {res.n_evals} evaluations "
        f"(start instance: {start:.6g})"
    )
    print(
        f"paper's proven bound: {res.proven_bound or 'none proven for this algorithm'}"
    )
    if (value := p.bound_value.get(args.algorithm)) is not None:
        print(f"  on the worst instance found: {value(res.instance):.6g}")
    for path in paths.values():
        print(f"wrote {path}")
    return 0


# ------------------------------------------------------------------- parser
def _version() -> str:
    try:
        return importlib.metadata.version("optsched")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        from . import __version__

        return __version__


_Command = Callable[[str, str, Callable[..., int]], "_Parser"]


def _add_seed(s: argparse.ArgumentParser, what: str) -> None:
    s.add_argument("--seed", type=nonneg_int, default=0, help=f"{what} (integer >= 0)")


def _add_workers(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="local worker processes (default: one per CPU; 1 = this process)",
    )


def _add_instance_commands(command: _Command, paper_help: str) -> None:
    """``list``, ``generate``, ``run``, ``check`` and ``solve``: one instance each."""
    command("list", "registered papers and algorithms", cmd_list)

    s = command("generate", "random instance as JSON", cmd_generate)
    s.add_argument("paper", help=paper_help)
    _add_seed(s, "random seed of the instance")
    s.add_argument(
        "-o", "--output", help="write the instance to this JSON file (default: stdout)"
    )
    _add_size_options(s)

    s = command("run", "run an algorithm on an instance file", cmd_run)
    s.add_argument("paper", help=paper_help)
    s.add_argument("algorithm", help="algorithm name (see 'optsched list')")
    s.add_argument("instance", help="instance JSON file (from 'optsched generate')")
    s.add_argument("-o", "--output", help="write the schedule to this JSON file")

    s = command(
        "check",
        "check a schedule file with the paper's independent checker "
        "(exit 1 if infeasible)",
        cmd_check,
    )
    s.add_argument("paper", help=paper_help)
    s.add_argument("instance", help="instance JSON file")
    s.add_argument("schedule", help="schedule JSON file (from 'optsched run/solve -o')")

    s = command("solve", "offline optimum (HiGHS)", cmd_solve)
    s.add_argument("paper", help=paper_help)
    s.add_argument("instance", help="instance JSON file")
    s.add_argument(
        "--time-limit",
        type=positive_seconds,
        metavar="SECONDS",
        default=60.0,
        help="seconds for the offline solve, model building included (default 60)",
    )
    s.add_argument(
        "-o", "--output", help="write the best schedule found to this JSON file"
    )
    s.add_argument(
        "--confirm",
        choices=["scip"],
        default=None,
        help="second opinion: when HiGHS proves an optimum, re-solve the same "
        "model with SCIP (one thread, the time left of --time-limit) and exit "
        "with an error if SCIP proves a different optimum (needs pyscipopt: "
        "pip install optsched[scip])",
    )
    s.add_argument(
        "--formulation",
        metavar="NAME",
        help="the model's formulation, for the papers that have several "
        f"({', '.join(SOLVE_FORMULATIONS)}: v1, v2 or v3; default: the model's "
        "own, docs/ratios.md compares them)",
    )
    s.add_argument(
        "--start",
        metavar="SCHEDULE",
        help="a schedule JSON file of this instance as MIP start and incumbent "
        "of last resort, instead of the paper's start rule (its best online "
        "schedule); checked first",
    )
    s.add_argument(
        "--threads",
        type=_int_at_least(1),
        metavar="N",
        help="HiGHS threads (default: HiGHS's own choice)",
    )


def _add_ratio_commands(command: _Command, paper_help: str) -> None:
    """``ratio`` and ``worst-case``: certified ratios over many instances."""
    s = command("ratio", "competitive ratios vs the offline optimum", cmd_ratio)
    s.add_argument("paper", help=paper_help)
    s.add_argument(
        "-n", type=positive_int, default=10, help="number of instances (default 10)"
    )
    _add_seed(s, "seed of the first instance; instance j uses seed + j")
    s.add_argument(
        "--algorithms", help="comma-separated algorithm names (default: all)"
    )
    s.add_argument(
        "--time-limit",
        type=positive_seconds,
        metavar="SECONDS",
        default=60.0,
        help="seconds per offline solve (default 60)",
    )
    _add_workers(s)
    s.add_argument(
        "--dask", default=None, help="Dask scheduler address, e.g. tcp://host:8786"
    )
    s.add_argument("-o", "--output", help="write the full table to this CSV file")
    _add_size_options(s)

    s = command(
        "worst-case",
        "search for the instance with the worst certified ratio",
        cmd_worst_case,
    )
    s.add_argument("paper", help=paper_help)
    s.add_argument("algorithm", help="algorithm name (see 'optsched list')")
    s.add_argument(
        "--evals",
        type=positive_int,
        default=200,
        help="instances evaluated in all (default 200)",
    )
    _add_seed(s, "seed of the start instance and of the search")
    s.add_argument(
        "--time-limit",
        type=positive_seconds,
        metavar="SECONDS",
        default=30.0,
        help="seconds per offline solve (default 30)",
    )
    s.add_argument(
        "--method",
        choices=["anneal", "evolve"],
        default="anneal",
        help="search method (default anneal)",
    )
    s.add_argument(
        "--batch",
        type=positive_int,
        default=4,
        help="candidates evaluated per step (default 4)",
    )
    _add_workers(s)
    s.add_argument(
        "--dask", default=None, help="Dask scheduler address, e.g. tcp://host:8786"
    )
    s.add_argument(
        "--out",
        default="worst_case",
        help="output folder for instance, trace, summary and plot (default worst_case)",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_size_options(s)


def _add_figure_commands(command: _Command) -> None:
    """``figure`` (list / run / report the paper figures) and ``demo``."""
    s = command("figure", "reproduce paper figures and tables", cmd_figure)
    s.add_argument(
        "action",
        choices=["list", "run", "report", "verify"],
        help="list the specs, run one (or all), rebuild the findings table, or "
        "verify a record (re-run NAME's full grid, compare its rows with the "
        "recorded ones; exit 1 when they differ)",
    )
    s.add_argument(
        "name",
        nargs="?",
        help="run / verify: figure name, key/name or unique prefix (fig5); run "
        "also 'all' or 'stale' (every figure whose record is missing or stale: "
        "with --record, what 'report' needs to show no stale claim)",
    )
    s.add_argument("--quick", action="store_true", help="smoke-test grid (fast)")
    s.add_argument(
        "--out", default=None, help="output folder (default paper_figures/out/KEY)"
    )
    _add_workers(s)
    s.add_argument(
        "--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786"
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.add_argument(
        "--record",
        action="store_true",
        help="full runs: also keep the claims in paper_figures/claims (for 'report')",
    )
    s.add_argument(
        "--claims",
        default=None,
        help=f"report, verify: claims folder, one subfolder per paper (default "
        f"{FIGURES_CLAIMS})",
    )
    s.add_argument(
        "--rtol",
        type=_nonneg_float,
        default=1e-9,
        help="verify: relative tolerance for numbers (default 1e-9; measured "
        "times are not compared)",
    )
    s.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="verify: compare NAME's record with its record at git revision REV "
        "(e.g. before a re-recording) instead of re-running it",
    )
    s.add_argument(
        "--readme",
        default=None,
        help=f"report: Markdown file whose findings table is rewritten "
        f"(default {FIGURES_README})",
    )

    s = command("demo", "small ratio table for every paper", cmd_demo)
    s.add_argument(
        "-n", type=positive_int, default=5, help="instances per paper (default 5)"
    )
    _add_seed(s, "seed of the first instance")
    _add_workers(s)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``optsched``."""
    ap = _Parser(prog="optsched", description=DESCRIPTION, epilog=EPILOG)
    ap.add_argument("--version", action="version", version=f"optsched {_version()}")
    sub = ap.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="one of:"
    )
    paper_help = f"paper key ({', '.join(PAPERS)})"

    def command(name: str, help_: str, fn: Callable[..., int]) -> _Parser:
        s = sub.add_parser(name, help=help_, description=help_, epilog=EPILOG)
        s.set_defaults(fn=fn)
        return s

    _add_instance_commands(command, paper_help)
    _add_ratio_commands(command, paper_help)
    _add_figure_commands(command)
    return ap


# --------------------------------------------------------------------- main
def _one_line(text: str) -> str:
    return " ".join(text.split())


def _os_message(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def _quiet_stdout() -> None:
    """After a closed output pipe: point stdout at /dev/null so the final
    flush at exit does not raise again (the Python docs' recipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout replaced/closed
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optsched`` console script; returns the exit code."""
    args = argparse.Namespace(written=[])  # figure run: specs already written
    try:
        # inside the try: loading every paper for the parser takes seconds
        build_parser().parse_args(argv, namespace=args)
        code = int(args.fn(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, not at exit
        return code
    except KeyboardInterrupt:
        done = (
            f"only {', '.join(args.written)} written"
            if args.written
            else "nothing written"
        )
        print(f"optsched: interrupted; {done}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except (CliError, OptschedError, ValueError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"optsched: error: {_one_line(str(msg))}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"optsched: error: {_one_line(_os_message(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        print(
            f"optsched: internal error: {_one_line(what)} "
            f"(rerun with {DEBUG_ENV}=1 to see the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
