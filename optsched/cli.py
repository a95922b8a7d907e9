"""The ``optsched`` command line.

Every error prints one line ``optsched: error: ...`` on stderr and exits with
code 2; output files are written atomically (temp file + rename), so a failed
command never leaves a partial file.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .core.errors import OptschedError
from .core.experiment import default_file_mode, write_atomic
from .core.registry import PAPERS, get_paper

#: Where ``figure run`` writes by default and ``figure report`` reads/writes
#: (relative to the current directory: run them from the repository root).
FIGURES_OUT = Path("paper_figures") / "out"
FIGURES_CLAIMS = Path("paper_figures") / "claims"
FIGURES_README = Path("paper_figures") / "README.md"


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def _write_atomic(path: str | os.PathLike, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, default_file_mode())
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _paper(key: str):
    try:
        return get_paper(key)
    except KeyError as exc:
        raise CliError(str(exc.args[0])) from None


def _load_instance(paper, path: str):
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise CliError(f"cannot read instance file {path!r}: {exc.strerror}") from None
    return paper.instance_type.from_json(text)


def _size_kwargs(paper, args: argparse.Namespace) -> dict[str, Any]:
    """The paper's size keywords: each given option, else its ``size_options`` default."""
    return {
        k: default if getattr(args, k, None) is None else getattr(args, k)
        for k, (_typ, default, _help) in paper.size_options.items()
    }


def _add_size_options(parser: argparse.ArgumentParser) -> None:
    """Size options of every registered paper (``--n-jobs`` ...)."""
    seen: dict[str, tuple] = {}
    for key in PAPERS:
        for name, spec in get_paper(key).size_options.items():
            seen.setdefault(name, spec)
    for name, (typ, _default, help_) in seen.items():
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, type=typ, default=None, help=help_
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
    inst = p.generate(seed=args.seed, **_size_kwargs(p, args))
    text = inst.to_json(indent=1)
    if args.output:
        _write_atomic(args.output, text + "\n")
    else:
        print(text)
    return 0


def _evaluation_line(p, inst, sched, runtime: float) -> str:
    ev = p.check(inst, sched)
    extra = ""
    if hasattr(ev, "n_admitted"):
        extra = f"  admitted={ev.n_admitted}/{len(ev.admitted)}"
    return f"objective={ev.objective:.6g}{extra}  runtime={runtime:.3f}s"


def cmd_run(args: argparse.Namespace) -> int:
    """Run one algorithm on an instance file; print the checked objective."""
    p = _paper(args.paper)
    if args.algorithm not in p.algorithms:
        raise CliError(
            f"unknown algorithm {args.algorithm!r} for {p.key} "
            f"(known: {', '.join(p.algorithms)})"
        )
    inst = _load_instance(p, args.instance)
    t0 = time.perf_counter()
    sched = p.run(args.algorithm, inst)
    line = _evaluation_line(p, inst, sched, time.perf_counter() - t0)
    if args.output:
        _write_atomic(args.output, sched.to_json() + "\n")
    print(f"{p.key}/{args.algorithm}: {line}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve the offline problem of an instance with HiGHS."""
    p = _paper(args.paper)
    inst = _load_instance(p, args.instance)
    res = p.solve_offline(inst, time_limit=args.time_limit)
    if res.status == "optimal":
        print(
            f"{p.key}: optimal objective={res.objective:.6g} runtime={res.runtime:.2f}s"
        )
    else:
        print(
            f"{p.key}: status={res.status} incumbent={res.objective:.6g} "
            f"bound={res.bound:.6g} runtime={res.runtime:.2f}s (not proven optimal)"
        )
    if args.output and res.schedule is not None:
        _write_atomic(args.output, res.schedule.to_json() + "\n")
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
                f"unknown algorithm(s) {', '.join(unknown)} for {p.key} "
                f"(known: {', '.join(p.algorithms)})"
            )
    df = ratios(
        p,
        n_instances=args.n,
        seed=args.seed,
        algorithms=algs,
        time_limit=args.time_limit,
        workers=args.workers,
        scheduler=args.dask,
        progress=True,
        **_size_kwargs(p, args),
    )
    if args.output:
        _write_atomic(args.output, df.to_csv(index=False))
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
            workers=args.workers,
            progress=False,
            **p.demo_size,
        )
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
        f"optsched demo: empirical ratios OPT/ALG (max) or ALG/OPT (min), {args.n} instances each ({size})"
    )
    print(table.to_string(index=False))
    return 0


def cmd_figure(args: argparse.Namespace) -> int:
    """List, run or report the declarative figure specs (``paper_figures/``)."""
    from .core import experiment

    if args.action == "list":
        for name, spec in experiment.specs().items():
            print(f"{spec.paper}/{name}  ({spec.ref})")
        return 0
    if args.action == "report":
        experiment.report(args.claims or FIGURES_CLAIMS, args.readme or FIGURES_README)
        print(f"rewrote the findings table of {args.readme or FIGURES_README}")
        return 0
    if not args.name:
        raise CliError("figure run needs a NAME (see 'optsched figure list') or 'all'")
    if args.record and args.quick:
        raise CliError("--record keeps full runs only; drop --quick")
    chosen = (
        list(experiment.specs().values())
        if args.name == "all"
        else [experiment.get_spec(args.name)]
    )
    for spec in chosen:
        out = Path(args.out) if args.out else FIGURES_OUT / spec.paper
        res = experiment.run(
            spec,
            quick=args.quick,
            out=out,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=not args.no_progress,
        )
        if args.record:
            experiment.write_atomic(
                FIGURES_CLAIMS / spec.paper,
                {
                    f"{spec.name}.claims.csv": lambda p, r=res: r.claims.to_csv(
                        p, index=False
                    )
                },
            )
    return 0


def cmd_worst_case(args: argparse.Namespace) -> int:
    """Search for the instance with the worst certified ratio; write instance, trace, plot."""
    from .core import adversary

    p = _paper(args.paper)
    if args.algorithm not in p.algorithms:
        raise CliError(
            f"{p.key}: unknown algorithm {args.algorithm!r} (known: {', '.join(p.algorithms)})"
        )
    if args.evals < 1:
        raise CliError(f"--evals: must be >= 1, got {args.evals}")
    size = _size_kwargs(p, args)
    res = adversary.worst_case(
        p,
        args.algorithm,
        n_evals=args.evals,
        seed=args.seed,
        time_limit=args.time_limit,
        method=args.method,
        batch=args.batch,
        workers=args.workers,
        scheduler=args.dask,
        progress=not args.no_progress,
        **size,
    )
    stem = f"worst_{p.key}_{args.algorithm}_{args.method}_seed{args.seed}"
    out = Path(args.out)
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
def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``optsched``."""
    ap = argparse.ArgumentParser(prog="optsched", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="registered papers and algorithms")
    s.set_defaults(fn=cmd_list)

    s = sub.add_parser("generate", help="random instance as JSON")
    s.add_argument("paper")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("-o", "--output")
    _add_size_options(s)
    s.set_defaults(fn=cmd_generate)

    s = sub.add_parser("run", help="run an algorithm on an instance file")
    s.add_argument("paper")
    s.add_argument("algorithm")
    s.add_argument("instance")
    s.add_argument("-o", "--output", help="write the schedule as JSON")
    s.set_defaults(fn=cmd_run)

    s = sub.add_parser("solve", help="offline optimum (HiGHS)")
    s.add_argument("paper")
    s.add_argument("instance")
    s.add_argument("--time-limit", type=float, default=60.0)
    s.add_argument("-o", "--output", help="write the incumbent schedule as JSON")
    s.set_defaults(fn=cmd_solve)

    s = sub.add_parser("ratio", help="competitive ratios vs the offline optimum")
    s.add_argument("paper")
    s.add_argument("-n", type=int, default=10, help="number of instances")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--algorithms", help="comma-separated (default: all)")
    s.add_argument("--time-limit", type=float, default=60.0)
    s.add_argument("--workers", type=int, default=None, help="local processes")
    s.add_argument("--dask", default=None, help="Dask scheduler address")
    s.add_argument("-o", "--output", help="CSV file")
    _add_size_options(s)
    s.set_defaults(fn=cmd_ratio)

    s = sub.add_parser(
        "worst-case", help="search for the instance with the worst certified ratio"
    )
    s.add_argument("paper")
    s.add_argument("algorithm")
    s.add_argument("--evals", type=int, default=200, help="instances evaluated")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--time-limit", type=float, default=30.0, help="per offline solve")
    s.add_argument("--method", choices=["anneal", "evolve"], default="anneal")
    s.add_argument("--batch", type=int, default=4, help="candidates evaluated per step")
    s.add_argument("--workers", type=int, default=None, help="local processes")
    s.add_argument("--dask", default=None, help="Dask scheduler address")
    s.add_argument("--out", default="worst_case", help="output folder")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_size_options(s)
    s.set_defaults(fn=cmd_worst_case)

    s = sub.add_parser("figure", help="reproduce paper figures and tables")
    s.add_argument("action", choices=["list", "run", "report"])
    s.add_argument("name", nargs="?", help="figure name, unique prefix, or 'all'")
    s.add_argument("--quick", action="store_true", help="smoke-test grid")
    s.add_argument(
        "--out", default=None, help="output folder (default paper_figures/out/KEY)"
    )
    s.add_argument("--workers", type=int, default=None, help="local processes")
    s.add_argument("--scheduler", default=None, help="Dask scheduler address")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.add_argument(
        "--record",
        action="store_true",
        help="full runs: also keep the claims in paper_figures/claims (for 'report')",
    )
    s.add_argument("--claims", default=None, help="report: claims folder")
    s.add_argument("--readme", default=None, help="report: README to rewrite")
    s.set_defaults(fn=cmd_figure)

    s = sub.add_parser("demo", help="small ratio table for every paper")
    s.add_argument("-n", type=int, default=5)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--workers", type=int, default=None)
    s.set_defaults(fn=cmd_demo)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``optsched`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except (CliError, OptschedError, ValueError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"optsched: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
