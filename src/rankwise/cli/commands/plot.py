"""``rankwise plot``: one figure (PNG, SVG or PDF) of curves, distributions or differences."""

from __future__ import annotations

import argparse

from rankwise.cli.options import (
    add_common_options,
    add_engine_options,
    add_evaluation_options,
    add_input_options,
    check_no_stdin,
    engine_of,
    evaluation_options,
    measure_texts,
    positive_int,
    reading,
)
from rankwise.cli.summaries import SUMMARIES

__all__ = ["KINDS", "add_parser", "run"]

KINDS = ("curves", "distribution", "differences")
"""What ``--kind`` draws."""

_DESCRIPTION = """\
Evaluate each RUN against the judgments QRELS and draw one figure:

  curves        the mean of each measure at every cutoff k = 1..K, one line
                per system (-m gives families: ndcg P recall map mrr ...)
  distribution  the per-query values of each measure, per system
  differences   per-query differences against the baseline, sorted; one
                row per measure, one column per system

The format follows the suffix of -o: .png, .svg or .pdf. Every figure is drawn
by rankwise (the figures of the HTML report); SVG is written by rankwise itself,
PNG and PDF through matplotlib (pip install 'rankwise[plot]')."""

_EPILOG = """\
examples:
  rankwise plot qrels.txt bm25.run dense.run -o curves.png
  rankwise plot qrels.txt bm25.run dense.run --kind curves -m ndcg 'P(rel=2)' -o p.svg
  rankwise plot qrels.txt bm25.run dense.run --kind differences -m ndcg@10 map -o d.pdf

exit status: 0 success, 1 bad input, measure or missing dependency, 2 malformed
  command line."""

_DEFAULTS = {"curves": ("ndcg", "P", "recall"), "distribution": ("ndcg@10", "map", "mrr"),
             "differences": ("ndcg@10", "map", "mrr")}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``plot`` command."""
    parser = commands.add_parser(
        "plot",
        help=SUMMARIES["plot"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend",
                        help="measures to draw (default: ndcg P recall for curves; "
                             "ndcg@10 map mrr otherwise)")
    parser.add_argument("-o", "--output", metavar="FILE", required=True,
                        help="the figure: FILE.png, FILE.svg or FILE.pdf (- for standard "
                             "output, with -f)")
    parser.add_argument("-f", "--format", choices=("png", "svg", "pdf"), default=None,
                        help="the figure's format, when FILE has no such suffix "
                             "(/dev/stdout, a named pipe)")
    parser.add_argument("--kind", choices=KINDS, default="curves",
                        help="what to draw (default: curves)")
    figure = parser.add_argument_group("figure")
    figure.add_argument("--baseline", metavar="NAME",
                        help="differences: the run the others are compared with (name or "
                             "file; default: the first run)")
    figure.add_argument("--max-k", type=positive_int, default=100, metavar="K",
                        help="curves: the largest cutoff (default 100)")
    figure.add_argument("--style", choices=("hist", "box"), default="hist",
                        help="distribution: histogram bars (default) or box plots")
    figure.add_argument("--dpi", type=positive_int, default=150, metavar="N",
                        help="resolution of PNG files (default 150)")
    add_engine_options(add_evaluation_options(parser))
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise plot`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` registers.

    Returns
    -------
    int
        0 on success.
    """
    from rankwise.cli._output import say_written, write_binary_output
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io.naming import find_run
    from rankwise.report import curves, differences, distribution
    from rankwise.report._mpl import require_matplotlib
    from rankwise.report.build import curve_templates
    from rankwise.report.export import canvas_bytes, file_format
    from rankwise.report.summaries import curve_measures

    check_no_stdin([args.qrels, *args.runs], "rankwise plot")
    if args.output == "-" and args.format is None:
        raise InvalidParameterError("-o - writes the figure to standard output: give its "
                                    "format with -f png, -f svg or -f pdf")
    fmt = file_format(args.output) if args.format is None else args.format  # fails before work
    if fmt != "svg":  # SVG is written by rankwise itself; PNG and PDF through matplotlib
        require_matplotlib("rankwise plot")
    options = evaluation_options(args)
    texts = measure_texts(args.measures, _DEFAULTS[args.kind])
    if args.kind == "curves":
        templates = curve_templates(texts, [], options.rel)
        measures = [m for t in templates for m in curve_measures(t, args.max_k)]
    else:
        measures = [m for m in prepare_measures(texts, options) if not m.family.text_valued]
        if not measures:
            raise InvalidParameterError("no numeric measure to draw; give one with -m")
    results = evaluate_runs(
        args.qrels, list(args.runs), measures, options=options, engine=engine_of(args),
        qrels_format=args.qrels_format, run_format=args.run_format,
        reading=reading(args),
    )
    names = [str(m) for m in measures]
    if args.kind == "curves":
        canvas = curves.curves_svg(results, templates)
    elif args.kind == "distribution":
        canvas = distribution.distribution_svg(results, names, kind=args.style)
    else:
        if len(results) < 2:
            raise InvalidParameterError(
                "--kind differences needs two runs or more (a baseline and a system)"
            )
        baseline = (
            next(iter(results)) if args.baseline is None
            else find_run(args.baseline, list(results), args.runs, what="baseline")
        )
        canvas = differences.differences_svg(results, names, str(baseline))
    write_binary_output(canvas_bytes(canvas, fmt, dpi=args.dpi), args.output)
    say_written(args.output, quiet=args.quiet)
    return 0
