"""``rankwise report``: one self-contained HTML page comparing runs: tables, curves, plots."""

from __future__ import annotations

import argparse
import sys

from rankwise.cli.options import (
    DEFAULT_MEASURES,
    add_common_options,
    add_engine_options,
    add_evaluation_options,
    add_input_options,
    add_significance_options,
    check_no_stdin,
    compare_options,
    engine_of,
    evaluation_options,
    measure_texts,
    non_negative_int,
    positive_int,
    reading,
)
from rankwise.cli.summaries import SUMMARIES

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Evaluate each RUN against the judgments QRELS, compare them with paired
significance tests, and write ONE self-contained HTML file (styles, figures,
data and its one script inline, nothing loaded from the network) with:

  - the comparison table, with significance markers against the baseline
    (and, with --test tukey, letters: runs that share one do not differ),
    sortable; p-values, effect sizes and intervals a click away
  - a query explorer: every query's values, sortable and searchable (by id,
    or by text with --topics), each system against the baseline as a paired
    scatter (click a dot), and the first --list-depth documents of each
    system's ranking side by side (grades, unjudged, ties; texts with
    --documents)
  - with 3 runs or more, the discriminative power of each measure and its
    ASL curve
  - metric@k curves (ndcg@k, P@k, recall@k for k = 1..100) per system
  - per-query differences against the baseline, as sorted bars
  - the distribution of per-query values per system
  - the queries that gained and lost most
  - what was evaluated: files with sizes and SHA-256 (a pipe such as
    <(zcat run.gz): those of the bytes read), measure definitions, options,
    the rankwise version and the date

The figures are SVG drawn by rankwise (no matplotlib needed). The
randomization and bootstrap tests need nothing more; the t-test, Wilcoxon,
sign and Tukey tests need scipy (pip install 'rankwise[stats]')."""

_EPILOG = """\
examples:
  rankwise report qrels.txt bm25.run dense.run -m ndcg@10 map mrr@10 -o report.html
  rankwise report qrels.txt a.run b.run c.run --baseline b -m ndcg@10 --seed 0 -o ab.html

The runs are named by their run ids (the last column of TREC files), else by
their file names; --baseline takes a name or a file (default: the first run).

exit status: 0 success, 1 bad input, measure or missing dependency (one line
  on stderr says what and where), 2 malformed command line."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``report`` command."""
    parser = commands.add_parser(
        "report",
        help=SUMMARIES["report"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend",
                        help="measures of the table and the per-query plots (repeatable; "
                             "default: ndcg@10 map mrr P@10 recall@1000)")
    parser.add_argument("-o", "--output", metavar="FILE.html", required=True,
                        help="the HTML file to write (atomically; - for standard output)")
    parser.add_argument("--baseline", metavar="NAME",
                        help="the run the others are compared with: its name or its file "
                             "(default: the first run)")
    page = parser.add_argument_group("page")
    page.add_argument("--title", metavar="TEXT", help="heading of the page")
    page.add_argument("--max-k", type=positive_int, default=100, metavar="K",
                      help="largest cutoff of the metric@k curves (default 100)")
    page.add_argument("--top", type=positive_int, default=10, metavar="N",
                      help="queries listed among those that gained and lost most (default 10)")
    tests = parser.add_argument_group("significance tests")
    add_significance_options(tests)
    tests.add_argument("--discriminative-power", choices=("bootstrap", "randomized-tukey",
                                                          "none"),
                       default="bootstrap", metavar="TEST",
                       help="with 3 runs or more: the share of run pairs each measure tells "
                            "apart and its ASL curve, by bootstrap (default), "
                            "randomized-tukey, or none")
    add_engine_options(add_evaluation_options(parser))
    add_input_options(parser)
    explorer = parser.add_argument_group("query explorer")
    explorer.add_argument("--topics", metavar="FILE",
                          help="query texts, shown and searched: TREC topics, TSV "
                               "(qid<TAB>text) or JSONL (query_id, text)")
    explorer.add_argument("--topic-field", metavar="FIELD",
                          help="the part of each topic to show: title (default), description "
                               "or narrative of TREC topics; a field of JSONL")
    explorer.add_argument("--documents", metavar="FILE",
                          help="document texts of the ranked lists: a collection as TSV "
                               "(doc_id<TAB>text) or JSONL (doc_id, text), read once")
    explorer.add_argument("--list-depth", type=non_negative_int, default=20, metavar="K",
                          help="documents of each ranking shown per query (default 20; "
                               "0: no ranked lists)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise report`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` registers.

    Returns
    -------
    int
        0 on success.
    """
    from rankwise._wording import counted
    from rankwise.cli._output import say_written, write_output
    from rankwise.reporting import build_report

    check_no_stdin([args.qrels, *args.runs], "rankwise report",
                   " (it records their size and SHA-256)")
    topics = args.topics
    if topics is not None and args.topic_field is not None:
        from rankwise.io.texts import read_topics

        topics = read_topics(topics, field=args.topic_field)
    report = build_report(
        args.qrels, list(args.runs), measure_texts(args.measures, DEFAULT_MEASURES),
        baseline=args.baseline, options=(evaluation_options(args), compare_options(args)),
        engine=engine_of(args), qrels_format=args.qrels_format, run_format=args.run_format,
        max_k=args.max_k, top=args.top, title=args.title, reading=reading(args),
        discriminative_power=(None if args.discriminative_power == "none"
                              else args.discriminative_power),
        topics=topics, documents=args.documents, list_depth=args.list_depth,
    )
    write_output(report.to_html(), args.output)  # - : standard output
    if not args.quiet:
        for note in report.notes:
            sys.stderr.write(f"rankwise: note: {note}\n")
    say_written(args.output, quiet=args.quiet, detail=(
        f"{counted(len(report.systems), 'system')}, "
        f"{counted(report.n_queries, 'query', grouped=True)}"))
    return 0
