"""``rankwise trec-eval``: a drop-in for NIST's trec_eval 10.0.

Same options (GNU getopt: ``-qc``, ``-mP.5``, ``-l2``, long forms, options
after the file names), same output byte for byte, same exit statuses for the
same errors. Where trec_eval 10.0 has a defect, this command does the
documented, sensible thing instead (see ``docs/cli.md``):

* a judged query that is missing from the run is left out of the means (as
  trec_eval 9 did), with a warning on stderr; trec_eval 10.0 exits with 4;
* ``#`` comment lines and blank lines are skipped anywhere in both files;
  trec_eval 10.0 mis-reads consecutive comments and crashes on a last-line one.
"""

from __future__ import annotations

import argparse
import getopt
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rankwise._version import __version__
from rankwise._wording import counted
from rankwise.cli.summaries import SUMMARIES

if TYPE_CHECKING:
    from rankwise.measures.trec_names import TrecEntry

__all__ = ["EXIT_CODES", "TrecOptions", "add_parser", "main", "parse_command_line"]

PROG = "rankwise trec-eval"

USAGE = f"""\
Usage: {PROG} [-h] [-q] {{-m measure}}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all measures, '-m official' is default)
"""

HELP = f"""\
{PROG} [-h] [-v] [-q] [-m measure[.params]]... [-c] [-n] [-l num] [-M num] [-J]
   [-N num] [-R qrels] [-T trec_results] rel_info_file results_file

A drop-in for trec_eval 10.0 (NIST): evaluates results_file (a TREC run:
'qid iter docno rank score runid' per line; '-' reads standard input) against
rel_info_file (TREC qrels: 'qid iter docno grade') and prints trec_eval's
output, byte for byte.

 -h, --help                          this help, and exit
 -v, --version                       version (on standard error), and exit
 -q, --query_eval_wanted             also print the values of each query
 -m, --measure measure[.params]      measure to print; repeat for more. A name
                                     ('map', 'ndcg_cut', 'P'), a name with
                                     parameters ('P.5,10', 'ndcg_cut.10',
                                     'iprec_at_recall.0.1,0.5', 'ndcg.1=3,2=9',
                                     'utility.2,-1,0,0') or a nickname:
                                     'official' (default), 'all_trec', 'set'
 -c, --complete_rel_info_wanted      average over all judged queries: a query
                                     missing from the run scores 0
 -n, --nosummary                     no summary ('all') rows
 -l, --level_for_rel num             minimum grade that is relevant (default 1;
                                     the ndcg family uses grades as gains)
 -M, --Max_retrieved_per_topic num   evaluate only the first num documents
 -J, --Judged_docs_only              drop unjudged documents before evaluating
 -N, --Number_docs_in_coll num       documents in the collection (utility)
 -R, --Rel_info_format qrels         only 'qrels' is supported
 -T, --Results_format trec_results   only 'trec_results' is supported
 -D, --Debug_level num               accepted, ignored
 -o                                  obsolete, ignored
     --quiet                         no warnings on standard error
     --debug                         show the traceback of an error

Differences from trec_eval 10.0: a judged query missing from the run is left
out of the means with a warning (10.0 exits with status 4); '#' comment lines
and blank lines are skipped in both files; malformed input (a non-numeric
score or grade, NaN or infinite scores, a document twice in one query, a
judgment given twice, binary or non-UTF-8 data) is an error with the file and
line. Measures: 'rankwise measures --trec'. Full list: docs/cli.md.
"""

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = {
    "help": "-h",
    "version": "-v",
    "query_eval_wanted": "-q",
    "measure=": "-m",
    "complete_rel_info_wanted": "-c",
    "level_for_rel=": "-l",
    "nosummary": "-n",
    "Debug_level=": "-D",
    "Judged_docs_only": "-J",
    "Number_docs_in_coll=": "-N",
    "Max_retrieved_per_topic=": "-M",
    "Rel_info_format=": "-R",
    "Results_format=": "-T",
    "Output_old_results_format=": "-o",
    "Zscore=": "-Z",
    "debug": "--debug",
    "quiet": "--quiet",
}

EXIT_USAGE = 1
"""trec_eval's status for a bad command line or an unknown measure."""
EXIT_INPUT = 2
"""trec_eval's status for an unreadable or malformed file, or bad measure parameters."""
EXIT_CALC = 4
"""trec_eval's status for an error found while evaluating (a document twice in a query)."""
EXIT_NO_QUERIES = 7
"""trec_eval's status when no query has both results and judgments."""

EXIT_CODES = {
    "UnknownMeasureError": EXIT_USAGE,
    "MeasureSyntaxError": EXIT_INPUT,
    "DuplicateEntryError": EXIT_CALC,
    "InputFormatError": EXIT_INPUT,
}
"""Exit status by error class (the most specific class listed wins); others give 1."""


@dataclass
class TrecOptions:
    """trec_eval's command line, parsed."""

    qrels: str = ""
    run: str = ""
    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    summary: bool = True
    level: int | None = None
    depth: int | None = None
    judged_only: bool = False
    num_docs: int = 0
    help: bool = False
    version: bool = False
    debug: bool = False
    quiet: bool = False
    ignored: list[str] = field(default_factory=list)


class UsageError(Exception):
    """A command line trec_eval rejects (exit status 1)."""

    def __init__(self, message: str, *, status: int = EXIT_USAGE, usage: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage


def _atol(text: str) -> int:
    """C's ``atol``: leading blanks, an optional sign, digits; anything else is 0."""
    from rankwise.measures.trec_names import c_long

    match = re.match(r"[ \t\n\v\f\r]*[+-]?\d+", text)
    return c_long(match.group()) if match else 0  # beyond a C long: its limit, as atol


def _check_measure(argument: str) -> str:
    """Reject what trec_eval rejects while reading ``-m`` (status 1); return the argument."""
    from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
    from rankwise.measures.trec_names import NICKNAMES, parse_trec_list

    name, dot, params = argument.partition(".")
    if dot and params == "":
        raise UsageError(
            f"empty parameter list in measure {argument!r}: give parameters after the '.' "
            f"(for example '{name}.10') or none ('{name}')",
            usage=False,
        )
    if dot and name in NICKNAMES:
        return name  # trec_eval ignores parameters given to a nickname
    try:
        parse_trec_list([argument])
    except UnknownMeasureError as error:
        raise UsageError(str(error), usage=False) from None
    except MeasureSyntaxError:
        pass  # bad parameters: reported after reading the files, as trec_eval does
    return argument


def _version_before(argv: list[str]) -> bool:
    """Whether ``-v`` comes before the option getopt rejects (trec_eval then exits 0).

    trec_eval acts on its options in order: ``-v`` prints the version and exits
    before a later unknown option is seen. A first part of the command line that
    getopt reads and that holds ``-v`` ends before the rejected option.
    """
    for end in range(1, len(argv) + 1):
        try:
            pairs, _ = getopt.gnu_getopt(argv[:end], _SHORT, list(_LONG))
        except getopt.GetoptError:
            continue  # the rejected option, or an option whose argument is still to come
        if any(option in ("-v", "--version") for option, _ in pairs):
            return True
    return False


def parse_command_line(argv: Sequence[str]) -> TrecOptions:
    """Parse trec_eval's command line.

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``trec-eval``.

    Returns
    -------
    TrecOptions

    Raises
    ------
    UsageError
        An unknown option, a missing option argument, an unknown measure, or
        not exactly two file names.

    Examples
    --------
    >>> options = parse_command_line(["-qc", "-mP.5,10", "-l2", "qrels", "run", "-M", "100"])
    >>> options.per_query, options.complete, options.measures, options.level, options.depth
    (True, True, ['P.5,10'], 2, 100)
    """
    try:
        pairs, files = getopt.gnu_getopt(list(argv), _SHORT, list(_LONG))
    except getopt.GetoptError as error:
        if _version_before(list(argv)):  # trec_eval acts on -v when it comes to it
            return TrecOptions(version=True)
        raise UsageError(_getopt_message(error)) from None
    options = TrecOptions()
    for option, value in pairs:
        key = option if len(option) == 2 else _LONG.get(
            option[2:] + "=", _LONG.get(option[2:], option)
        )
        if key == "-h":
            options.help = True
        elif key == "-v":
            options.version = True
            return options
        elif key == "-q":
            options.per_query = True
        elif key == "-m":
            options.measures.append(_check_measure(value))
        elif key == "-c":
            options.complete = True
        elif key == "-l":
            options.level = _atol(value)
        elif key == "-n":
            options.summary = False
        elif key == "-J":
            options.judged_only = True
        elif key == "-N":
            options.num_docs = _atol(value)
        elif key == "-M":
            options.depth = _atol(value)
        elif key == "-R":
            _check_format(value, "qrels", "rel_info format")
        elif key == "-T":
            _check_format(value, "trec_results", "results format")
        elif key == "-Z":
            raise UsageError("-Z (z-scores) is not supported by rankwise trec-eval", usage=False)
        elif key in ("-D", "-o"):
            options.ignored.append(option)
        elif key == "--debug":
            options.debug = True
        elif key == "--quiet":
            options.quiet = True
    if options.help:
        return options
    if len(files) != 2:
        given = "no file" if not files else f"{counted(len(files), 'file')} ({' '.join(files)})"
        raise UsageError(f"expected 2 files (rel_info_file results_file), got {given}")
    options.qrels, options.run = files
    if options.depth is not None and options.depth < 0:
        raise UsageError(f"-M must be a number >= 0, got {options.depth}", usage=False)
    return options


def _getopt_message(error: getopt.GetoptError) -> str:
    option = error.opt
    if "requires argument" in error.msg:
        return f"option requires an argument -- '{option}'"
    if len(option) == 1:
        return f"invalid option -- '{option}'"
    return f"unrecognized option '--{option}'"


def _check_format(value: str, supported: str, what: str) -> None:
    if value != supported:
        raise UsageError(
            f"{what} {value!r} is not supported: rankwise trec-eval reads {supported!r} only",
            status=EXIT_INPUT,
            usage=False,
        )


def exit_code(error: BaseException) -> int:
    """trec_eval's exit status for *error*."""
    for cls in type(error).__mro__:
        if cls.__name__ in EXIT_CODES:
            return EXIT_CODES[cls.__name__]
    if isinstance(error, OSError):
        return EXIT_INPUT
    return EXIT_USAGE


def _entries(options: TrecOptions) -> list[TrecEntry]:
    """The entries to print, with ``-l`` applied to the measures that take a level."""
    from rankwise.engines.core import prepare_measures
    from rankwise.measures.trec_names import parse_trec_list
    from rankwise.options import EvalOptions

    entries = parse_trec_list(options.measures or ["official"])
    if options.level is None:
        return entries
    level = EvalOptions(rel=options.level)
    out = []
    for entry in entries:
        if entry.measure is not None:
            entry = replace(entry, measure=prepare_measures([entry.measure], level)[0])
        out.append(entry)
    return out


def _check_num_docs(options: TrecOptions, entries: list[TrecEntry]) -> None:
    from rankwise.exceptions import UnsupportedMeasureError

    if options.num_docs == 0:
        return
    for entry in entries:
        measure = entry.measure
        if measure is not None and measure.name == "utility" and measure.param("coefficients")[3]:
            raise UnsupportedMeasureError(
                f"-N (documents in the collection) is not supported: {entry.label} needs it "
                "for its 4th coefficient"
            )


def _evaluate(options: TrecOptions) -> int:
    from rankwise.cli.progress import Progress
    from rankwise.cli.trec_printer import trec_chunks
    from rankwise.engines.numpy import NumpyEngine
    from rankwise.io import read_run
    from rankwise.io.trec import read_trec_qrels
    from rankwise.options import EvalOptions

    entries = _entries(options)
    _check_num_docs(options, entries)
    show = not options.quiet
    with Progress("reading", options.qrels, enabled=show):
        # trec_eval reads a grade with atol (1.9 is 1): only integers give its numbers
        qrels = read_trec_qrels(options.qrels, integer_grades=True)
    with Progress("reading", options.run, enabled=show):
        run = read_run(options.run, fmt="trec")
    measures = list(dict.fromkeys(e.measure for e in entries if e.measure is not None))
    results = NumpyEngine().evaluate(
        qrels,
        run,
        measures,
        EvalOptions(
            depth=options.depth,
            missing="zero" if options.complete else "skip",
            judged_only=options.judged_only,
        ),
    )
    if results.n_queries == 0:
        sys.stderr.write(
            f"{PROG}: no query has both results and judgments: the run's query ids "
            "and the qrels' query ids have nothing in common\n"
        )
        return EXIT_NO_QUERIES
    if results.missing_queries and not options.complete and show:
        count = results.missing_queries
        sys.stderr.write(
            f"{PROG}: warning: {count} judged quer{'y is' if count == 1 else 'ies are'} "
            "not in the run and left out of the means (trec_eval 10.0 would exit with "
            "status 4; -c scores them 0)\n"
        )
    from rankwise.cli._output import write_output

    write_output(trec_chunks(
        entries, results, run_id=run.name, per_query=options.per_query, summary=options.summary
    ), None)
    return 0


def main(argv: Sequence[str], *, debug: bool = False, quiet: bool = False) -> int:
    """Run ``rankwise trec-eval`` with trec_eval's command line *argv*.

    Parameters
    ----------
    argv : sequence of str
        trec_eval's arguments (options and the two files).
    debug : bool
        Show tracebacks (also ``--debug`` in *argv*).
    quiet : bool
        No warnings (also ``--quiet`` in *argv*).

    Returns
    -------
    int
        trec_eval's exit status: 0, 1 (command line, unknown measure),
        2 (unreadable or malformed file, bad measure parameters),
        4 (a document twice in one query), 7 (no query in common).
    """
    from rankwise.cli._output import write_output
    from rankwise.cli.errors import report_error, run_guarded
    from rankwise.cli.notices import library_warnings

    try:
        options = parse_command_line(argv)
    except UsageError as error:
        sys.stderr.write(f"{PROG}: {error}\n")
        if error.usage:
            sys.stderr.write(USAGE)
        return error.status
    if options.version:
        sys.stderr.write(f"{PROG} (rankwise {__version__}), compatible with trec_eval 10.0\n")
        return 0
    if options.help:
        def show_help() -> int:
            write_output(HELP, None)
            return 0

        return run_guarded(show_help, debug=False, exit_code=exit_code, prefix=f"{PROG}: ")
    options.debug = options.debug or debug
    options.quiet = options.quiet or quiet
    if options.ignored and not options.quiet:
        report_error(
            Exception(f"{', '.join(sorted(set(options.ignored)))} ignored"),
            prefix=f"{PROG}: warning: ",
        )
    with library_warnings(quiet=options.quiet, prefix=f"{PROG}: note: "):
        return run_guarded(
            lambda: _evaluate(options), debug=options.debug, exit_code=exit_code,
            prefix=f"{PROG}: ",
        )


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``trec-eval`` (for the command list; its arguments are parsed by :func:`main`)."""
    parser = commands.add_parser(
        "trec-eval",
        help=SUMMARIES["trec-eval"],
        add_help=False,
        prefix_chars="\0",
    )
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    parser.set_defaults(handler=lambda namespace: main(namespace.arguments))
