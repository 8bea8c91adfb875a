"""The ``rankwise`` command: argument parsing, dispatch, and error reporting.

The commands live in :mod:`rankwise.cli.commands`; each one parses its
arguments, calls the public API and prints. Heavy modules (pyarrow, pandas,
scipy) are imported inside the commands, never here, so ``rankwise --help``
answers at once.

Every error rankwise raises on purpose becomes one line on standard error,
``rankwise: error: <what, where, expected, got>``, and a non-zero exit
status; ``--debug`` shows the traceback as well.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from rankwise._version import __version__

__all__ = ["EXIT_ERROR", "EXIT_USAGE", "build_parser", "main", "report_error", "run_guarded"]

EXIT_ERROR = 1
"""Exit status for bad input, an unknown measure, or a file that cannot be written."""

EXIT_USAGE = 2
"""Exit status for a malformed command line (argparse's convention)."""

EXIT_INTERRUPTED = 130

_DESCRIPTION = """\
Evaluate rankings (search, recommendation, learning to rank) against relevance
judgments: NDCG, MAP, MRR, P@k, recall@k and trec_eval's whole family."""

_EPILOG = """\
examples:
  rankwise demo
  rankwise eval qrels.txt bm25.run dense.run -m ndcg@10 map mrr@10 P@10
  rankwise eval qrels.parquet run.parquet -m ndcg@10 --per-query --format csv -o out.csv
  rankwise trec-eval -q -m all_trec qrels.txt bm25.run
  rankwise measures

Run 'rankwise COMMAND --help' for the options of a command."""


class _Parser(argparse.ArgumentParser):
    """argparse, with the error line prefixed like every other rankwise error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet`` and ``--debug`` to a command's parser."""
    group = parser.add_argument_group("messages")
    group.add_argument("--quiet", action="store_true",
                       help="no warnings and no progress display on standard error")
    group.add_argument("--debug", action="store_true",
                       help="show the full traceback of an error")


def build_parser() -> argparse.ArgumentParser:
    """Build the parser of ``rankwise`` and its commands.

    Returns
    -------
    argparse.ArgumentParser
    """
    from rankwise.cli.commands import compare, demo, measures, trec_eval
    from rankwise.cli.commands import eval as evaluate

    parser = _Parser(
        prog="rankwise",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    evaluate.add_parser(commands)
    compare.add_parser(commands)
    from rankwise.cli.commands import report as report_command
    report_command.add_parser(commands)
    from rankwise.cli.commands import plot as plot_command
    plot_command.add_parser(commands)
    trec_eval.add_parser(commands)
    demo.add_parser(commands)
    measures.add_parser(commands)
    return parser


def report_error(error: BaseException, *, prefix: str = "rankwise: error: ") -> None:
    """Print *error* as one line on standard error."""
    message = str(error) or type(error).__name__
    message = " ".join(message.splitlines())
    sys.stderr.write(f"{prefix}{message}\n")
    sys.stderr.flush()


def _os_error_text(error: OSError) -> str:
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror.lower()}"
    return str(error)


def run_guarded(
    action: Callable[[], int],
    *,
    debug: bool,
    exit_code: Callable[[BaseException], int] | None = None,
    prefix: str = "rankwise: error: ",
) -> int:
    """Run *action*, turning expected errors into one line on stderr and an exit status.

    Parameters
    ----------
    action : callable
        Does the work and returns the exit status.
    debug : bool
        Print the traceback too.
    exit_code : callable, optional
        Maps an error to an exit status (default :data:`EXIT_ERROR`).
    prefix : str
        Start of the error line.

    Returns
    -------
    int
        The exit status.
    """
    from rankwise.exceptions import RankwiseError

    code_of = exit_code or (lambda error: EXIT_ERROR)
    try:
        return action()
    except KeyboardInterrupt:
        sys.stderr.write("\nrankwise: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python from
        # complaining again when it flushes standard output at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except (RankwiseError, OSError, MemoryError) as error:
        if debug:
            import traceback

            traceback.print_exc()
        if isinstance(error, OSError) and not isinstance(error, RankwiseError):
            report_error(Exception(_os_error_text(error)), prefix=prefix)
        elif isinstance(error, MemoryError):
            report_error(Exception("out of memory"), prefix=prefix)
        else:
            report_error(error, prefix=prefix)
        return code_of(error)


def _split_global(args: list[str]) -> tuple[list[str], str | None, list[str]]:
    """Split ``[global options] COMMAND [command arguments]``."""
    for index, arg in enumerate(args):
        if arg == "--":
            return args[:index], None, args[index + 1:]
        if not arg.startswith("-") or arg == "-":
            return args[:index], arg, args[index + 1:]
    return args, None, []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankwise`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status: 0 on success, 1 for bad input (one line on standard
        error says what and where), 2 for a malformed command line;
        ``rankwise trec-eval`` uses trec_eval's exit statuses.

    Examples
    --------
    >>> main(["--version"])  # doctest: +ELLIPSIS
    rankwise ...
    0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    before, command, rest = _split_global(args)
    if command == "trec-eval":
        # trec_eval has its own (getopt) command line: hand it over untouched.
        from rankwise.cli.commands import trec_eval

        if set(before) <= {"--debug", "--quiet"}:
            return trec_eval.main(rest, debug="--debug" in before, quiet="--quiet" in before)
    flags = {"--debug", "--quiet"}
    if command is not None and before and set(before) <= flags:
        # ``rankwise --quiet eval ...``: the messages options belong to every command
        args = [command, *before, *rest]
    parser = build_parser()
    try:
        namespace = parser.parse_args(args)
    except SystemExit as stop:
        return int(stop.code) if isinstance(stop.code, int) else EXIT_USAGE
    if namespace.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    handler: Callable[[argparse.Namespace], int] = namespace.handler
    return run_guarded(lambda: handler(namespace), debug=getattr(namespace, "debug", False))
