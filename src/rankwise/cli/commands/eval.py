"""``rankwise eval``: evaluate one or more runs; a table of means, or per-query values."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from rankwise._wording import counted
from rankwise.cli.options import (
    DEFAULT_MEASURES,
    add_common_options,
    add_engine_options,
    add_evaluation_options,
    add_input_options,
    add_unjudged_option,
    check_stdin_once,
    digits,
    engine_of,
    evaluation_options,
    measure_texts,
    output_format,
    reading,
)
from rankwise.cli.summaries import SUMMARIES
from rankwise.report.tables import FORMATS

if TYPE_CHECKING:
    from rankwise.results import Results

__all__ = ["add_parser", "run"]

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
  rankwise eval qrels.ndeval run -m alpha_ndcg@20 err_ia@20 --qrels-format diversity
  rankwise eval qrels.ndeval run --qrels-format diversity --ties rank --format ndeval
  rankwise eval qrels.txt dense.run -m ndcg@10 rbp --unjudged bounds
  zcat run.gz | rankwise eval qrels.txt - -m ndcg@10 -o results.json

exit status: 0 success, 1 bad input or measure (one line on stderr says what
  and where), 2 malformed command line."""



def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``eval`` command."""
    parser = commands.add_parser(
        "eval",
        help=SUMMARIES["eval"],
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
    output.add_argument("-f", "--format", choices=[*FORMATS, "ndeval"], default=None,
                        metavar="FORMAT",
                        help=f"{', '.join(FORMATS)}, ndeval (default: from the -o file's "
                             "extension (.tsv .csv .json .jsonl .md .tex), else table); ndeval: "
                             "ndeval's CSV of its 21 diversity measures per topic and amean "
                             "(-m may set their alpha, beta, rel; ndeval's order is --ties rank)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    output.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals in the table, markdown and latex formats (default 4)")
    evaluation = add_evaluation_options(parser)
    add_unjudged_option(evaluation)
    add_engine_options(evaluation)
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _warn_ties(name: str, results: Results, digits: int) -> None:
    """One line when tie-breaking could change a printed mean."""
    report = results.ties
    changed = report.changed_digits(digits)
    if not changed or report.policy == "average":
        return
    shown = ", ".join(
        f"{m} {min(report.bounds[m]):.{digits}f}..{max(report.bounds[m]):.{digits}f}"
        for m in changed[:3]
    )
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    # --ties average applies to rankwise's own measures (a dialect keeps its tool's ties)
    from rankwise.engines.core import plan_of
    from rankwise.measures import parse

    average = any(plan_of(parse(m)).own for m in changed)
    sys.stderr.write(
        f"rankwise: warning: run {name!r}: tied scores decide {shown}{more} "
        f"({counted(report.queries_mixed, 'query')} with ties among relevant and non-relevant "
        "documents)" + ("; --ties average gives the expected value" if average else "") + "\n"
    )


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
    from rankwise.cli._output import say_written, write_output
    from rankwise.engines.core import coverage_notes, relevance_notes
    from rankwise.evaluation import evaluate_runs
    from rankwise.exceptions import InvalidParameterError
    from rankwise.measures import parse_many
    from rankwise.report.result_tables import results_table
    from rankwise.report.tables import write_chunks

    fmt = output_format(args.format, args.output)
    options = evaluation_options(args)
    if fmt == "ndeval":
        return _run_ndeval(args, options)
    measures = [m for m in parse_many(measure_texts(args.measures, DEFAULT_MEASURES))
                if m is not None]
    if not measures:
        raise InvalidParameterError(
            "no measure to compute ('runid' is trec_eval's run name, not a measure); "
            "give one with -m, for example -m ndcg@10"
        )
    check_stdin_once([args.qrels, *args.runs])
    engine = engine_of(args)
    all_results = evaluate_runs(
        args.qrels, list(args.runs), measures, options=options, engine=engine,
        qrels_format=args.qrels_format, run_format=args.run_format,
        reading=reading(args),
    )
    if not args.quiet:
        for name, results in all_results.items():
            notes = coverage_notes(results.unjudged_queries, results.missing_queries,
                                   options.missing, remedy="--missing zero")
            if notes:
                sys.stderr.write(f"rankwise: warning: run {name!r}: {'; '.join(notes)}\n")
            _warn_ties(name, results, args.digits)
        for note in relevance_notes(all_results.values()):
            sys.stderr.write(f"rankwise: warning: {note}\n")
    parsed = next(iter(all_results.values())).measures
    table = results_table(all_results, parsed, per_query=args.per_query,
                          unjudged=options.bounds)
    write_output(write_chunks(table, fmt, digits=args.digits), args.output)
    if not args.quiet:  # under the table: what the numbers mean
        for note in dict.fromkeys(note for r in all_results.values() for note in r.notes):
            sys.stderr.write(f"rankwise: note: {note}\n")
    say_written(args.output, quiet=args.quiet)
    return 0


def _ndeval_parameters(texts: list[str] | None) -> dict[str, float]:
    """The alpha, beta and rel of ndeval as the -m measures set them (alike), else defaults."""
    from rankwise.exceptions import InvalidParameterError
    from rankwise.measures import parse_many
    from rankwise.report.ndeval import NDEVAL_COLUMNS

    families = {name.partition("@")[0] for _, name in NDEVAL_COLUMNS}
    found: dict[str, set[float]] = {"alpha": set(), "beta": set(), "rel": set()}
    for measure in parse_many(measure_texts(texts, [])) if texts else []:
        if measure is None:
            continue
        if measure.name not in families:
            raise InvalidParameterError(
                f"--format ndeval prints ndeval's 21 diversity measures; -m {measure} is not "
                "one of them (-m only sets their alpha, beta and rel)"
            )
        for key, values in found.items():
            if key in measure.family.params:
                values.add(float(measure.param(key)))
    out = {"alpha": 0.5, "beta": 0.5, "rel": 1.0}
    for key, values in found.items():
        if len(values) > 1:
            raise InvalidParameterError(
                f"--format ndeval: the -m measures give {key} {sorted(values)}; ndeval uses one"
            )
        if values:
            out[key] = values.pop()
    return out


def _run_ndeval(args: argparse.Namespace, options: Any) -> int:
    """``rankwise eval --format ndeval``: ndeval's CSV for each run, one after the other."""
    from rankwise.cli._output import say_written, write_output
    from rankwise.evaluation import evaluate_runs
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io.coerce import read_qrels, read_run
    from rankwise.report.ndeval import ndeval_csv, ndeval_measures

    engine = engine_of(args)
    if not engine.capabilities.in_process:
        raise InvalidParameterError(f"--format ndeval computes in this process (it reads each "
                                    f"run here); the {engine.name} engine reads its inputs "
                                    "itself: leave out --engine")
    if options.missing != "skip":
        raise InvalidParameterError("--format ndeval prints the topics of the run, as ndeval: "
                                    "leave out --missing")
    measures = ndeval_measures(**_ndeval_parameters(args.measures))
    check_stdin_once([args.qrels, *args.runs])
    with reading(args)(args.qrels):
        qrels = read_qrels(args.qrels, fmt=args.qrels_format, columns=options.columns)

    def blocks() -> Any:
        for path in args.runs:
            with reading(args)(path):
                run = read_run(path, fmt=args.run_format, keep_rank=options.by_rank,
                               columns=options.columns)
            results = evaluate_runs(qrels, {run.name: run}, measures, options=options,
                                    engine=engine, need_common_queries=False)[run.name]
            yield ndeval_csv(results, run_query_ids=run.query_ids, run_name=run.name,
                             qrels_query_ids=qrels.query_ids)

    write_output(blocks(), args.output)
    say_written(args.output, quiet=args.quiet)
    return 0
