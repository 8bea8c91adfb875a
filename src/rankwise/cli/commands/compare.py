"""``rankwise compare``: paired significance tests between runs; a table ready for a paper."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rankwise.cli.options import (
    DEFAULT_MEASURES,
    add_common_options,
    add_engine_options,
    add_evaluation_options,
    add_input_options,
    add_significance_options,
    check_stdin_once,
    compare_options,
    digits,
    engine_of,
    evaluation_options,
    measure_texts,
    output_format,
    reading,
)
from rankwise.cli.summaries import SUMMARIES
from rankwise.report.tables import FORMATS

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Evaluate each RUN against the judgments QRELS and compare them with paired
significance tests, query by query: a table with one row per run and one
column per measure (means), ready for a paper in the markdown and latex
formats.

With --baseline, every other run is compared with the baseline: a marker (†)
on a significant difference, with ▲ or ▼ for its direction. Without it, every
pair of runs: the runs are labelled a, b, c, ... and each mean carries the
letters of the runs it is significantly better than; with --test tukey (or
randomized-tukey, or --letters groups) a compact letter display instead: runs
that share a letter do not differ. A legend under the table names the test,
the correction, alpha and the seed that reproduces it (and, for the Tukey
tests, the two-way ANOVA of each measure).

--long (always for tsv, csv and jsonl) prints one row per measure and run with
every statistic: means, intervals, delta, p-value, corrected p-value, effect
size, wins/ties/losses. json prints the whole comparison.

Inputs as for 'rankwise eval': TREC text (also .gz, .bz2, .xz), Parquet, CSV,
TSV or JSONL; '-' reads standard input (for one of the files)."""

_EPILOG = f"""\
tests: randomization (Fisher's, default; exact when 2^k <= --n-resamples),
  t-test, wilcoxon, bootstrap, sign (aliases such as permutation or t work);
  and all pairs at once, family-wise: tukey (Tukey's HSD on the two-way ANOVA
  residual), randomized-tukey (Carterette's; exact when (m!)^(n-1) <=
  --n-resamples). The Tukey tests use the queries evaluated for every run.
corrections: holm (default for the paired tests), bonferroni,
  benjamini-hochberg (alias bh), none (the Tukey tests: they are family-wise
  already); applied per measure over the runs compared (--family measure) or
  over everything.
measures: as for 'rankwise eval', aggregated by a mean. Default:
  {' '.join(DEFAULT_MEASURES)}. -m takes one or more values: put it after the files.
names: each run is named by its run id (the last column of a TREC run), else by
  its file's stem; repeated names are numbered (bm25, bm25#2). --names gives the
  names instead, one per RUN, in order; --baseline takes a name or a RUN's path.

examples:
  rankwise compare qrels.txt bm25.run dense.run hybrid.run --baseline bm25 -m ndcg@10 map
  rankwise compare qrels.txt a.run b.run c.run --names bm25 dense hybrid -m mrr@10 -f latex
  rankwise compare qrels.txt a.run b.run --test t-test --long -f csv -o comparison.csv
  rankwise compare qrels.txt a.run b.run c.run d.run --test tukey -m ndcg@10 -f latex

exit status: 0 success, 1 bad input, measure, or an unknown baseline, test or
  correction (one line on stderr says what and where), 2 malformed command line
  (an unknown option, a value out of range such as --alpha 1.5)."""

def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``compare`` command."""
    parser = commands.add_parser(
        "compare",
        help=SUMMARIES["compare"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("run_a", metavar="RUN_A", help="a run")
    parser.add_argument("run_b", metavar="RUN_B", help="another run")
    parser.add_argument("more_runs", metavar="RUN", nargs="*", help="more runs")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend", help="measures to compare (repeatable)")
    parser.add_argument("--names", metavar="NAME", nargs="+", action="extend",
                        help="names of the runs, one per RUN in order (default: run ids, else "
                             "file stems)")
    stats = parser.add_argument_group("comparison")
    stats.add_argument("--baseline", metavar="NAME",
                       help="compare every other run with this one (a name, or the RUN as "
                            "given); default: every pair")
    add_significance_options(stats)
    stats.add_argument("--family", choices=("measure", "all"), default="measure",
                       help="correct over the runs of each measure (default) or over all "
                            "runs and measures")
    stats.add_argument("--ci", choices=("t", "bootstrap"), default="t",
                       help="confidence intervals: Student t (default) or bootstrap percentile")
    add_engine_options(add_evaluation_options(parser))
    output = parser.add_argument_group("output")
    output.add_argument("--long", action="store_true",
                        help="one row per measure and run with every statistic (always for "
                             "tsv, csv and jsonl)")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension "
                             "(.tsv .csv .json .jsonl .md .tex), else table)")
    output.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals in the table, markdown and latex formats (default 4)")
    output.add_argument("--marker", default=None, metavar="TEXT",
                        help="marks a significant difference from the baseline (default †; "
                             "in latex, math: \\dagger)")
    output.add_argument("--letters", choices=("auto", "groups", "better"), default="auto",
                        help="all pairs: groups (runs that share a letter do not differ; "
                             "default for the Tukey tests) or better (the letters of the runs "
                             "each is better than; default otherwise)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


# ----------------------------------------------------------------------------
# names
# ----------------------------------------------------------------------------


def _given_names(paths: Sequence[str], names: Sequence[str]) -> list[str]:
    """The names ``--names`` gives, checked: one distinct, non-empty name per RUN.

    Raises
    ------
    InvalidParameterError
        *names* does not give one distinct, non-empty name per run.

    Examples
    --------
    >>> _given_names(["a/x.run", "b/x.run"], ["bm25", "dense"])
    ['bm25', 'dense']
    """
    from rankwise.exceptions import InvalidParameterError

    if len(names) != len(paths):
        raise InvalidParameterError(
            f"--names gives {len(names)} name{'s' if len(names) != 1 else ''} for "
            f"{len(paths)} runs; give one per RUN, in order"
        )
    if any(not name for name in names):
        raise InvalidParameterError("--names: a run name cannot be empty")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InvalidParameterError(
                f"--names gives {name!r} twice; each run needs its own name"
            )
        seen.add(name)
    return list(names)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise compare`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` registers.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    RankwiseError
        Bad input, measure or option value (reported as one line by the caller).
    """
    from rankwise.cli._output import say_written, write_output
    from rankwise.cli.progress import Progress
    from rankwise.comparison import compare_results
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs
    from rankwise.io.naming import find_run
    from rankwise.report.comparison_tables import render_comparison

    fmt = output_format(args.format, args.output)
    paths = [args.run_a, args.run_b, *args.more_runs]
    check_stdin_once([args.qrels, *paths])
    options = evaluation_options(args)
    statistics = compare_options(args)
    measures = prepare_measures(measure_texts(args.measures, DEFAULT_MEASURES), options)
    runs: dict[str, str] | list[str] = (
        dict(zip(_given_names(paths, args.names), paths)) if args.names else paths
    )
    results = evaluate_runs(
        args.qrels, runs, measures, options=options, engine=engine_of(args),
        qrels_format=args.qrels_format, run_format=args.run_format,
        reading=reading(args), need_common_queries=options.missing == "skip",
    )
    baseline = None
    if args.baseline is not None:
        baseline = find_run(args.baseline, list(results), paths, what="baseline")
    with Progress("comparing", f"{len(results)} runs", enabled=not args.quiet):
        comparison = compare_results(results, measures, baseline=baseline, options=statistics)
    if not args.quiet:
        for note in comparison.notes:
            sys.stderr.write(f"rankwise: note: {note}\n")
    text = render_comparison(comparison, fmt, long=args.long, digits=args.digits,
                             marker=args.marker, letters=args.letters)
    write_output(text, args.output)
    if not args.quiet:  # under the table: what the numbers mean
        for note in dict.fromkeys(note for r in results.values() for note in r.notes):
            sys.stderr.write(f"rankwise: note: {note}\n")
    say_written(args.output, quiet=args.quiet)
    return 0
