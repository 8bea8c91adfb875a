"""``rankwise guide``: which measures the judgments (and runs) support, said from the data."""

from __future__ import annotations

import argparse
import sys

from rankwise.cli.options import (
    add_common_options,
    add_input_options,
    check_stdin_once,
    number,
    output_format,
    positive_int,
    probability,
    seed,
    unit_fraction,
)
from rankwise.cli.summaries import SUMMARIES
from rankwise.report.tables import FORMATS

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Read the judgments (and runs, if given) and say in plain words, with the
numbers behind each sentence, what they support: the grades present (binary
or graded; ndcg's two gains), the relevant documents per query (one: mrr@k;
many: ndcg@k, map, P@k), how deep each run is judged (judged@k, and the
bounds of --unjudged bounds when unjudged documents make a measure uncertain),
missing queries and short rankings, whether ties decide a mean, how many
queries a difference of --min-diff needs (topic set size design, Sakai 2016)
and whether the runs' differences are significant. It ends with the suggested
'rankwise eval' (and 'rankwise compare') command line."""

_EPILOG = """\
examples:
  rankwise guide qrels.txt
  rankwise guide qrels.txt bm25.run dense.run
  rankwise guide qrels.txt run.trec -k 5 --min-diff 0.02 -f json -o guide.json

formats: table (the text), markdown, json (every number), tsv, csv, jsonl,
latex (one row per sentence). See docs/guide.md for the rules.

exit status: 0 success, 1 bad input (one line on stderr says what and where),
  2 malformed command line."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``guide`` command."""
    parser = commands.add_parser(
        "guide",
        help=SUMMARIES["guide"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("runs", metavar="RUN", nargs="*", help="runs to check (optional)")
    guide = parser.add_argument_group("guide")
    guide.add_argument("-k", "--cutoff", type=positive_int, default=10, metavar="K",
                       help="the depth a user sees (default 10: a page of results)")
    guide.add_argument("--min-diff", type=unit_fraction, default=0.05, metavar="D",
                       help="the difference between two means the queries should detect "
                            "(default 0.05)")
    guide.add_argument("--rel", type=number, default=None, metavar="GRADE",
                       help="the lowest relevant grade (default 1)")
    guide.add_argument("--alpha", type=probability, default=0.05, metavar="A",
                       help="level of the tests (default 0.05)")
    guide.add_argument("--beta", type=probability, default=0.20, metavar="B",
                       help="type II error: power is 1 - B (default 0.20)")
    guide.add_argument("--seed", type=seed, default=0, metavar="INT",
                       help="seed of the randomization test comparing the runs (default 0)")
    output = parser.add_argument_group("output")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension, "
                             "else table)")
    output.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically)")
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise guide`` with parsed arguments.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    RankwiseError
        Bad input or option value (reported as one line by the caller).
    """
    from rankwise.cli._output import say_written, write_output
    from rankwise.guidance import guide

    check_stdin_once([args.qrels, *args.runs])
    result = guide(args.qrels, list(args.runs) or None, cutoff=args.cutoff,
                   min_diff=args.min_diff, rel=args.rel, alpha=args.alpha, beta=args.beta,
                   seed=args.seed, columns=args.columns, qrels_format=args.qrels_format,
                   run_format=args.run_format)
    write_output(result.to_table(output_format(args.format, args.output)), args.output)
    if not args.quiet:
        for note in result.facts.notes:
            sys.stderr.write(f"rankwise: note: {note}\n")
    say_written(args.output, quiet=args.quiet)
    return 0
