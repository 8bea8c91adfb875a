"""``rankwise explain``: why two tools give different numbers, or which tool gave a number."""

from __future__ import annotations

import argparse

from rankwise.cli.options import (
    add_common_options,
    add_evaluation_options,
    add_input_options,
    check_stdin_once,
    digits,
    evaluation_options,
    measure_texts,
    number,
    output_format,
)
from rankwise.cli.summaries import SUMMARIES

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Explain why two tools give different numbers for one measure: its mean in
two dialects (the conventions of trec_eval, scikit-learn, LightGBM, XGBoost,
CatBoost, torchmetrics, Spark, Microsoft Recommenders, ranx, BEIR, MTEB), and
the difference split by convention, switched one at a time in the order they
apply: for each, the queries it changes (those whose value it moves by
more than half a unit of the last decimal printed, or --tolerance) and its
part of the difference (the parts add up to the difference exactly).

With --measured, find which dialect gives a number a tool printed."""

_EPILOG = """\
dialects: rankwise, trec_eval, sklearn, lightgbm, xgboost, catboost,
  torchmetrics, spark, recommenders, ranx, beir, mteb, gdeval (see
  docs/dialects.md).

examples:
  rankwise explain qrels.txt run.txt -m ndcg@10 --between trec_eval sklearn
  rankwise explain qrels.txt run.txt -m map@10 --between recommenders spark
  rankwise explain qrels.txt run.txt -m ndcg@10 --measured 0.4312

exit status: 0 success, 1 bad input or measure, 2 malformed command line."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``explain`` command."""
    parser = commands.add_parser(
        "explain",
        help=SUMMARIES["explain"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("run", metavar="RUN", help="the run")
    parser.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                        help="the measure, e.g. ndcg@10, map@10, mrr@10, P@5")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--between", nargs=2, metavar=("DIALECT_A", "DIALECT_B"),
                      help="the two dialects to compare, e.g. trec_eval sklearn")
    what.add_argument("--measured", metavar="NUMBER",
                      help="a number a tool printed: which dialect gives it")
    parser.add_argument("--tolerance", type=number, default=None, metavar="T",
                        help="with --between: how much a query's value must move to count as "
                             "changed (default: half a unit of the last decimal printed, "
                             "5e-05 with --digits 4); with --measured: how close a mean must be "
                             "(default: half a unit of the number's last decimal)")
    output = parser.add_argument_group("output")
    output.add_argument("-f", "--format", choices=("text", "json"), default=None,
                        help="text or json (default: json for a -o file ending in .json, "
                             "else text)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    output.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals in the text format (default 4)")
    add_evaluation_options(parser)
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise explain`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` registers.

    Returns
    -------
    int
        0 on success.
    """
    from rankwise.cli._output import say_written, write_output
    from rankwise.exceptions import InvalidParameterError
    from rankwise.explanation import explain
    from rankwise.io import read_qrels, read_run
    from rankwise.measures.dialects import read_dialect
    from rankwise.report.json_text import json_text

    texts = measure_texts([args.measure], [])
    if len(texts) != 1:
        raise InvalidParameterError(
            f"explain takes one measure, got {len(texts)}: {', '.join(texts)}"
        )
    # the names and the number are checked before the files are read: one line, status 1,
    # as every command words an unknown name (measure, test, correction, fusion method)
    dialects = None if args.between is None else [read_dialect(d) for d in args.between]
    if args.measured is not None:
        _check_measured(args.measured)
    check_stdin_once([args.qrels, args.run])
    options = evaluation_options(args)
    qrels = read_qrels(args.qrels, fmt=args.qrels_format)
    run_obj = read_run(args.run, fmt=args.run_format)
    if dialects is not None:
        # a query changes when its value moves beyond the last decimal printed
        within = args.tolerance if args.tolerance is not None else 0.5 * 10.0 ** -args.digits
        result = explain(qrels, run_obj, texts[0], *dialects, tolerance=within,
                         options=options)
    else:
        result = explain(qrels, run_obj, texts[0], measured=args.measured,
                         tolerance=args.tolerance, options=options)
    fmt = args.format or ("json" if output_format(None, args.output) == "json" else "text")
    if fmt == "json":  # strict JSON: NaN (a share of no difference) as null
        text = json_text(result.to_dict(), indent=2) + "\n"
    else:
        places = args.digits if args.between is not None else max(args.digits, 6)
        text = result.to_text(places)
    write_output(text, args.output)
    say_written(args.output, quiet=args.quiet)
    return 0


def _check_measured(text: str) -> None:
    """Refuse a --measured that is not a finite number (NaN is no tool's mean)."""
    from rankwise._validation import check
    from rankwise.explanation import MEASURED

    check("--measured", text, MEASURED)
