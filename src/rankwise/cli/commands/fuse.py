"""``rankwise fuse``: fuse runs into one (RRF, CombMNZ, ...), or search a method's parameters."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankwise.cli.options import (
    add_common_options,
    add_evaluation_options,
    check_stdin_once,
    evaluation_options,
    fusion_options,
    reading,
)
from rankwise.cli.summaries import SUMMARIES

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Fuse two or more RUNs into one: for every query, every document any run
retrieved, with a fused score (ranx's methods and definitions). The fused run
is written as a TREC run file (-o), in trec_eval's order, with --run-id as its
name.

With --optimize QRELS, search the method's parameters (weights, rrf's k, ...)
for the best mean of -m on the judgments first (optionally cross-validated
over --folds of the queries), print what was found, and write the run fused
with the best parameters."""

_EPILOG = """\
methods: rrf (default), isr, log_isr, logn_isr, sum (combsum), mnz (combmnz),
  anz, max, min, med, gmnz, wsum, wmnz, mixed, bordafuse, w_bordafuse,
  condorcet, w_condorcet, rbc, posfuse, probfuse, segfuse, slidefuse, mapfuse,
  bayesfuse (the last six learn from judgments: --qrels or --optimize).
norms: min-max, min-max-inverted, max, sum, zmuv, rank, borda (default none).

examples:
  rankwise fuse bm25.run dense.run --method rrf -o hybrid.run
  rankwise fuse bm25.run dense.run --method combmnz --norm min-max -o hybrid.run
  rankwise fuse bm25.run dense.run --method wsum --norm min-max --weights 0.3 0.7 -o h.run
  rankwise fuse bm25.run dense.run --method wsum --norm min-max --optimize qrels.txt \\
      -m ndcg@10 --folds 5 -o hybrid.run

exit status: 0 success, 1 bad input or option value, 2 malformed command line."""


def _param(text: str) -> tuple[str, float | int | str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, e.g. k=60, got {text!r}")
    number: float | int | str
    try:
        number = int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            number = value
    return key.strip(), number


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``fuse`` command."""
    parser = commands.add_parser(
        "fuse",
        help=SUMMARIES["fuse"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs")
    parser.add_argument("--method", default="rrf", metavar="METHOD",
                        help="the fusion method (default rrf)")
    parser.add_argument("--norm", default=None, metavar="NORM",
                        help="normalise each run's scores per query first (default: none)")
    parser.add_argument("--weights", type=float, nargs="+", metavar="W",
                        help="one weight per RUN, for wsum, wmnz, mixed, w_bordafuse, "
                             "w_condorcet")
    parser.add_argument("--param", dest="params", type=_param, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="a parameter of the method (repeatable): k=60, phi=0.8, "
                             "gamma=0.5, sigma=0.01, w=2, n_segments=10")
    parser.add_argument("--qrels", metavar="QRELS",
                        help="judgments the supervised methods learn from")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the fused run, TREC text (default: standard output)")
    parser.add_argument("--run-id", metavar="NAME",
                        help="the fused run's name, last column of the file (default: the "
                             "method's)")
    search = parser.add_argument_group("optimization")
    search.add_argument("--optimize", metavar="QRELS",
                        help="search the method's parameters on these judgments first")
    search.add_argument("-m", "--measure", default="ndcg@10", metavar="MEASURE",
                        help="the measure to maximise (default ndcg@10)")
    search.add_argument("--folds", type=int, default=None, metavar="K",
                        help="cross-validate over K folds of the queries")
    search.add_argument("--seed", type=int, default=0, metavar="INT",
                        help="seed of the split into folds (default 0)")
    add_evaluation_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _check_judgments_given(args: argparse.Namespace, fusion: Any) -> None:
    """A method that learns from judgments has them; --optimize has something to search.

    Said in options (the Python functions' messages name their keywords).
    """
    from rankwise.exceptions import InvalidParameterError
    from rankwise.fusion.methods import METHODS, resolve_method

    chosen = METHODS[resolve_method(fusion.method).name]
    if (chosen.learns is not None and args.qrels is None and args.optimize is None
            and fusion.values().get(chosen.learns) is None):
        raise InvalidParameterError(
            f"--method {chosen.name} learns {chosen.learns} from judgments: give --qrels "
            "QRELS (or --optimize QRELS)")
    if args.optimize is not None and chosen.learns is None:
        from rankwise.fusion.optimize import default_grid

        if not default_grid(chosen.name, len(args.runs)):
            raise InvalidParameterError(
                f"--method {chosen.name} has no parameter to search or learn: fuse without "
                "--optimize")


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise fuse`` with parsed arguments.

    Returns
    -------
    int
        0 on success.
    """
    import os
    import tempfile

    from rankwise.cli._output import say_written, write_output
    from rankwise.exceptions import InvalidParameterError
    from rankwise.fusion import fuse
    from rankwise.io.coerce import read_qrels, read_run

    if len(args.runs) < 2:
        raise InvalidParameterError(f"fuse needs at least two runs, got {len(args.runs)}")
    check_stdin_once([*args.runs, args.qrels or "", args.optimize or ""])
    fusion = fusion_options(args)
    evaluation = evaluation_options(args)
    _check_judgments_given(args, fusion)
    show = reading(args)
    runs = []
    for path in args.runs:
        with show(path):
            runs.append(read_run(path))
    qrels = None
    if args.qrels is not None:
        with show(args.qrels):
            qrels = read_qrels(args.qrels)
    if args.optimize is not None:
        from rankwise.fusion.optimize import optimize_fusion

        with show(args.optimize):
            judgments = read_qrels(args.optimize)
        found = optimize_fusion(
            judgments, runs, measure=args.measure, folds=args.folds, seed=args.seed,
            options=(evaluation, fusion.replace(weights=None)),
        )
        shown = {k: v for k, v in found.params.items() if k not in ("probs", "log_odds")}
        sys.stderr.write(
            f"rankwise: best {found.method} parameters for {found.measure}: {shown} "
            f"(mean {found.score:.4f} on {os.path.basename(args.optimize)})\n"
        )
        for index, fold in enumerate(found.folds, start=1):
            fold_params = {k: v for k, v in fold.params.items() if k not in ("probs", "log_odds")}
            sys.stderr.write(
                f"rankwise: fold {index}: {fold_params} -> {found.measure} "
                f"{fold.results.mean[found.measure]:.4f} on {len(fold.queries)} held-out "
                "queries\n"
            )
        if found.folds:
            sys.stderr.write(
                f"rankwise: cross-validated {found.measure}: {found.cross_validated_mean:.4f}\n"
            )
        fusion = fusion.replace(weights=None, params={**fusion.values(), **found.params})
        qrels = qrels or judgments
    fused = fuse(runs, qrels=qrels, name=args.run_id, options=fusion)
    if args.output is None or args.output == "-":
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "fused.run")
            fused.to_trec(path)
            with open(path, encoding="utf-8") as stream:
                write_output(stream.read(), None)
    else:
        fused.to_trec(args.output)
        say_written(args.output, quiet=args.quiet)
    return 0
