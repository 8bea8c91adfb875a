"""``rankwise eval``: evaluate one or more runs; a table of means, or per-query values."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rankwise.cli.formats import FORMATS
from rankwise.cli.options import (
    INPUT_FORMATS,
    add_evaluation_options,
    add_input_options,
    digits,
    number,
    positive_int,
)

if TYPE_CHECKING:
    from rankwise.cli.formats import Table
    from rankwise.data import Qrels, Run
    from rankwise.measures import Measure
    from rankwise.results import Results

__all__ = ["DEFAULT_MEASURES", "INPUT_FORMATS", "add_parser", "build_table", "run"]

DEFAULT_MEASURES = ("ndcg@10", "map", "mrr", "P@10", "recall@1000")
"""Measures used when ``-m`` is not given."""



_FORMAT_BY_SUFFIX = {
    ".txt": "table",
    ".tsv": "tsv",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".md": "markdown",
    ".tex": "latex",
}

_DESCRIPTION = """\
Evaluate each RUN against the judgments QRELS and print a table of means:
one row per run, one column per measure (canonical names, e.g. ndcg@10).

Inputs: TREC text (also .gz, .bz2, .xz), Parquet, CSV, TSV or JSONL, chosen
by the file's extension (override with --qrels-format / --run-format);
'-' reads standard input (for one of the files). Tables need columns
query_id, doc_id and relevance (qrels) or score (runs)."""

_EPILOG = f"""\
measures: rankwise's language ('ndcg@10', 'P@5(rel=2)', 'ndcg@10(gain=linear)',
  'map', 'mrr@10', 'recall@1000') or trec_eval's names ('ndcg_cut.10', 'P.5,10',
  'official'); see 'rankwise measures'. Several in one argument may be separated
  by commas. Default: {' '.join(DEFAULT_MEASURES)}.
  -m takes one or more values: put it after the files (or end it with --).

examples:
  rankwise eval qrels.txt bm25.run dense.run -m ndcg@10 map mrr@10
  rankwise eval qrels.txt bm25.run.gz -m 'P@5(rel=2)' --per-query --format tsv
  zcat run.gz | rankwise eval qrels.txt - -m ndcg@10 -o results.json

exit status: 0 success, 1 bad input or measure (one line on stderr says what
  and where), 2 malformed command line."""


_non_negative_int = positive_int  # the names other commands import
_number = number
_digits = digits


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register the ``eval`` command."""
    from rankwise.cli.app import add_common_options

    parser = commands.add_parser(
        "eval",
        help="evaluate runs against judgments: a table of means (or per-query values)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs to evaluate")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend", help="measures to compute (repeatable)")
    output = parser.add_argument_group("output")
    output.add_argument("--per-query", action="store_true",
                        help="also print the value of each query (a 'query' column; the "
                             "means are the rows whose query is 'all')")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension "
                             "(.tsv .csv .json .jsonl .md .tex), else table)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    output.add_argument("--digits", type=_digits, default=4, metavar="N",
                        help="decimals in the table, markdown and latex formats (default 4)")
    options = add_evaluation_options(parser)
    options.add_argument(
        "--engine", choices=("numpy", "spark"), default="numpy",
        help="where to compute: this process (numpy, default) or Spark (Parquet or TREC "
             "paths, local, s3a:// or hdfs://; needs pip install 'rankwise[spark]')",
    )
    options.add_argument(
        "--spark-master", metavar="MASTER", default=None,
        help="Spark master for --engine spark, e.g. local[2] or yarn (default: Spark's own)",
    )
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _output_format(fmt: str | None, output: str | None) -> str:
    if fmt is not None:
        return fmt
    if output is not None and output != "-":
        suffix = os.path.splitext(output)[1].lower()
        return _FORMAT_BY_SUFFIX.get(suffix, "table")
    return "table"


def _run_names(paths: Sequence[str], run_ids: Sequence[str]) -> list[str]:
    """The run ids, or the file paths where two runs share an id."""
    names = [run_id or os.path.basename(path) for path, run_id in zip(paths, run_ids)]
    if len(set(names)) == len(names):
        return names
    names = list(paths)
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[index] = f"{name}#{seen[name]}"
    return names


def _warn_coverage(name: str, results: Results, missing: str) -> None:
    parts = []
    if results.unjudged_queries:
        count = results.unjudged_queries
        parts.append(
            f"{count} quer{'y' if count == 1 else 'ies'} of the run "
            f"{'has' if count == 1 else 'have'} no judgments (ignored)"
        )
    if results.missing_queries:
        count = results.missing_queries
        what = (
            "scored 0" if missing == "zero"
            else "left out of the means; --missing zero scores them 0"
        )
        parts.append(
            f"{count} judged quer{'y is' if count == 1 else 'ies are'} not in the run ({what})"
        )
    if parts:
        sys.stderr.write(f"rankwise: warning: run {name!r}: {'; '.join(parts)}\n")


def _warn_ties(name: str, results: Results, digits: int) -> None:
    """One line when tie-breaking could change a printed mean."""
    report = results.ties
    changed = report.changed_digits(digits)
    if not changed or report.policy == "average":
        return
    shown = ", ".join(
        f"{m} {report.bounds[m][0]:.{digits}f}..{report.bounds[m][1]:.{digits}f}"
        for m in changed[:3]
    )
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    sys.stderr.write(
        f"rankwise: warning: run {name!r}: tied scores decide {shown}{more} "
        f"({report.queries_mixed} queries with ties among relevant and non-relevant "
        "documents); --ties average gives the expected value\n"
    )


def _kind(measure: Measure) -> str:
    family = measure.family
    if family.text_valued:
        return "text"
    return "int" if family.integer else "float"


def _cell(value: object, kind: str) -> str | float | int | None:
    if kind == "text":
        return None if value is None else str(value)
    return float(value)  # type: ignore[arg-type]


def build_table(
    names: Sequence[str], all_results: Sequence[Results], measures: Sequence[Measure],
    *, per_query: bool,
) -> Table:
    """Lay out the results of several runs as one table.

    Parameters
    ----------
    names : sequence of str
        Run names, one per results.
    all_results : sequence of Results
        The results of each run.
    measures : sequence of Measure
        The columns, in order.
    per_query : bool
        One row per (run, query) followed by the run's means (query ``all``);
        otherwise one row of means per run.

    Returns
    -------
    Table
    """
    from rankwise.cli.formats import Table

    labels = [str(m) for m in measures]
    kinds = [_kind(m) for m in measures]
    header = ["run", "query", *labels] if per_query else ["run", *labels]
    table = Table(header, ["text"] * (len(header) - len(labels)) + kinds)
    for name, results in zip(names, all_results):
        if per_query:
            columns = [results[m].tolist() for m in measures]
            for index, qid in enumerate(results.query_ids):
                table.rows.append(
                    [name, qid, *(_cell(col[index], k) for col, k in zip(columns, kinds))]
                )
        means = [
            None if k == "text" else float(results.mean[label]) for label, k in zip(labels, kinds)
        ]
        table.rows.append([name, "all", *means] if per_query else [name, *means])
    return table


def _read(reader: object, path: str, fmt: str | None, quiet: bool, **kwargs: object) -> object:
    from rankwise.cli.progress import Progress

    with Progress("reading", path, enabled=not quiet):
        return reader(path, fmt=fmt, **kwargs)  # type: ignore[operator]


def _spark_format(fmt: str | None, what: str) -> str:
    from rankwise.exceptions import InvalidParameterError

    if fmt in (None, "trec", "parquet"):
        return fmt or "auto"
    raise InvalidParameterError(
        f"--engine spark reads TREC text or Parquet, not {fmt} ({what}); convert it to Parquet"
    )


def _local_run_id(path: str) -> str:
    """The run id of a local TREC run file (its last line), as the numpy engine names runs."""
    from rankwise.io._source import FileView
    from rankwise.io.tables import table_format
    from rankwise.io.trec import _last_run_id

    if table_format(path) is not None or not os.path.isfile(path) or path.endswith(".parquet"):
        return ""
    return _last_run_id(FileView(path))


def _run_on_spark(args: argparse.Namespace, measures: list[Measure], fmt: str) -> int:
    """``rankwise eval --engine spark``: the same table, computed by Spark."""
    from rankwise.cli._output import write_output
    from rankwise.cli.formats import render
    from rankwise.exceptions import InvalidParameterError

    if "-" in [args.qrels, *args.runs]:
        raise InvalidParameterError("--engine spark reads paths; '-' (standard input) is not one")
    if args.ties == "rank":
        raise InvalidParameterError("--engine spark does not support --ties rank")
    from rankwise.spark import evaluate, get_session, read_qrels, read_run

    spark = get_session(args.spark_master)
    qrels = read_qrels(spark, args.qrels, fmt=_spark_format(args.qrels_format, args.qrels))
    qrels = qrels.cache()
    all_results = []
    for path in args.runs:
        run = read_run(spark, path, fmt=_spark_format(args.run_format, path))
        computed = evaluate(
            run, qrels, measures, depth=args.depth, missing=args.missing,
            judged_only=args.judged_only, ties=args.ties,
        )
        all_results.append(computed.to_results(run_name=""))
    names = _run_names(args.runs, [_local_run_id(path) for path in args.runs])
    if not args.quiet:
        for name, results in zip(names, all_results):
            _warn_coverage(name, results, args.missing)
            _warn_ties(name, results, args.digits)
    table = build_table(names, all_results, measures, per_query=args.per_query)
    write_output(render(table, fmt, digits=args.digits), args.output)
    return 0


def _measure_texts(arguments: Sequence[str] | None) -> list[str]:
    from rankwise.measures.parser import split_measure_list

    if not arguments:
        return list(DEFAULT_MEASURES)
    return [item for argument in arguments for item in split_measure_list(argument)]


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise eval`` with parsed arguments.

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
        Bad input or measure (reported as one line by the caller).
    """
    from rankwise.evaluation import evaluate_objects, parse_measures
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io import read_qrels, read_run

    fmt = _output_format(args.format, args.output)
    measures = parse_measures(_measure_texts(args.measures), args.rel)
    measures = [m for m in measures if m is not None]
    if not measures:
        raise InvalidParameterError(
            "no measure to compute ('runid' is trec_eval's run name, not a measure); "
            "give one with -m, for example -m ndcg@10"
        )
    if args.engine == "spark":
        return _run_on_spark(args, measures, fmt)
    stdin_uses = [args.qrels, *args.runs].count("-")
    if stdin_uses > 1:
        raise InvalidParameterError(
            f"'-' (standard input) is given {stdin_uses} times; only one file can come from it"
        )
    qrels: Qrels = _read(read_qrels, args.qrels, args.qrels_format, args.quiet)  # type: ignore[assignment]
    all_results = []
    for path in args.runs:
        # one run in memory at a time: only its results are kept
        one_run: Run = _read(  # type: ignore[assignment]
            read_run, path, args.run_format, args.quiet, keep_rank=args.ties == "rank"
        )
        results = evaluate_objects(
            qrels, one_run, measures,
            depth=args.depth, missing=args.missing, judged_only=args.judged_only,
            ties=args.ties,
        )
        if results.n_queries == 0:
            raise InvalidParameterError(
                f"run {one_run.name or path!r} and the judgments have no query in common "
                f"(run: {len(one_run.query_ids)} queries, e.g. {one_run.query_ids[:3]}; "
                f"judgments: {len(qrels.query_ids)} queries, e.g. {qrels.query_ids[:3]})"
            )
        all_results.append(results)
        del one_run
    names = _run_names(args.runs, [results.run_name for results in all_results])
    if not args.quiet:
        for name, results in zip(names, all_results):
            _warn_coverage(name, results, args.missing)
            _warn_ties(name, results, args.digits)
    from rankwise.cli._output import write_output
    from rankwise.cli.formats import render

    table = build_table(names, all_results, measures, per_query=args.per_query)
    write_output(render(table, fmt, digits=args.digits), args.output)
    return 0
