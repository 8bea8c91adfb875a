"""The ``rankwise`` command: argument parsing, dispatch, and error reporting.

The commands live in :mod:`rankwise.cli.commands` (listed in
:data:`COMMANDS`); each one parses its arguments, calls the public API and
prints. Heavy modules (pyarrow, pandas, scipy) are imported inside the
commands, never here, so ``rankwise --help`` answers at once. Errors become
one line on standard error (:mod:`rankwise.cli.errors`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rankwise.cli.errors import EXIT_USAGE, interrupted, run_guarded
from rankwise.cli.notices import library_warnings
from rankwise.cli.version import VersionAction

__all__ = ["COMMANDS", "build_parser", "main"]

_DESCRIPTION = """\
Evaluate rankings (search, recommendation, learning to rank) against relevance
judgments: NDCG, MAP, MRR, P@k, recall@k and trec_eval's whole family."""

_EPILOG = """\
examples:
  rankwise demo
  rankwise guide qrels.txt bm25.run dense.run
  rankwise eval qrels.txt bm25.run dense.run -m ndcg@10 map mrr@10 P@10
  rankwise eval qrels.parquet run.parquet -m ndcg@10 --per-query --format csv -o out.csv
  rankwise trec-eval -q -m all_trec qrels.txt bm25.run
  rankwise fuse bm25.run dense.run --method rrf -o hybrid.run
  rankwise measures

Run 'rankwise COMMAND --help' for the options of a command."""


class _ParseError(Exception):
    """A malformed command line: which parser found it, and its message."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """argparse, with the error line prefixed like every other rankwise error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ParseError(self, message)

    def _print_message(self, message: str, file: Any = None) -> None:
        """Help and version text: a failed write is an error (argparse ignores it)."""
        if message and (file is None or file is sys.stdout):
            from rankwise.cli._output import write_output

            write_output(message, None)
        else:
            super()._print_message(message, file)


_MEASURE_OPTIONS = ("-m", "--measure")


def _measures_took_files(args: list[str]) -> tuple[list[str], list[str]] | None:
    """When ``-m`` took existing files as measures: those files and the command line in order.

    ``-m`` takes every following word that is not an option, so trec_eval's
    order (``-m ndcg@10 qrels run``) gives the files to ``-m``.

    Examples
    --------
    >>> _measures_took_files(["eval", "-m", "ndcg@10", "map"]) is None
    True
    """
    import os

    line: list[str] = []
    files: list[str] = []
    measures: list[str] = []
    where: int | None = None
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            line += args[index - 1:]
            break
        if arg not in _MEASURE_OPTIONS:  # (-mX and --measure=X take X only)
            line.append(arg)
            continue
        values: list[str] = []
        while index < len(args) and args[index] != "--" and (
            args[index] == "-" or not args[index].startswith("-")
        ):
            values.append(args[index])
            index += 1
        for value in values:
            is_file = value == "-" or os.path.isfile(value) or os.path.isdir(value)
            (files if is_file else measures).append(value)
        if where is None:
            where = len(line)
    if not files or where is None:
        return None
    fixed = line[:where] + files + line[where:]
    if measures:
        fixed += ["-m", *measures]
    return files, fixed


def _usage_error(error: _ParseError, args: list[str]) -> int:
    """Print a malformed command line's error (saying so when -m took the files)."""
    import shlex

    if "the following arguments are required" in error.message:
        found = _measures_took_files(args)
        if found is not None:
            files, fixed = found
            sys.stderr.write(
                f"{error.parser.prog}: error: -m took the file{'s' if len(files) > 1 else ''} "
                f"{', '.join(files)} as measures (-m takes every word up to the next option); "
                f"put the files first: rankwise {shlex.join(fixed)}\n"
            )
            return EXIT_USAGE
    error.parser.print_usage(sys.stderr)
    sys.stderr.write(f"{error.parser.prog}: error: {error.message}\n")
    return EXIT_USAGE


COMMANDS: dict[str, str] = {
    "eval": "rankwise.cli.commands.eval",
    "compare": "rankwise.cli.commands.compare",
    "report": "rankwise.cli.commands.report",
    "plot": "rankwise.cli.commands.plot",
    "fuse": "rankwise.cli.commands.fuse",
    "recs": "rankwise.cli.commands.recs",
    "design": "rankwise.cli.commands.design",
    "guide": "rankwise.cli.commands.guide",
    "explain": "rankwise.cli.commands.explain",
    "trec-eval": "rankwise.cli.commands.trec_eval",
    "demo": "rankwise.cli.commands.demo",
    "measures": "rankwise.cli.commands.measures",
}
"""The commands, in the order ``rankwise --help`` lists them: name -> module.

Each module has ``add_parser(commands)``, which registers the command and its
handler; a command imports only the shared helpers of :mod:`rankwise.cli`
and the public API, never another command or this module.
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser of ``rankwise`` and its commands.

    Parameters
    ----------
    only : str, optional
        A command of :data:`COMMANDS`: register that one alone (what a command
        line naming it needs; the others' modules are not imported). By default
        every command, as ``rankwise --help`` lists them.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> build_parser(only="eval").parse_args(["eval", "q", "r", "-m", "map"]).measures
    ['map']
    """
    import importlib

    parser, commands = _root_parser()
    modules = [COMMANDS[only]] if only in COMMANDS else COMMANDS.values()
    for module in modules:
        importlib.import_module(module).add_parser(commands)
    return parser


def _root_parser() -> tuple[_Parser, argparse._SubParsersAction[_Parser]]:
    """``rankwise``'s own parser, and the action its commands are added to."""
    parser = _Parser(
        prog="rankwise",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    return parser, commands


def _listing_parser() -> argparse.ArgumentParser:
    """``rankwise``'s parser with every command named and summarised, none of their options.

    What a command line that runs no command needs: ``rankwise --help``,
    ``rankwise --version``, ``rankwise`` alone, a misspelt command. Its help
    and its errors are :func:`build_parser`'s, without importing a command.

    Examples
    --------
    >>> _listing_parser().format_help() == build_parser().format_help()
    True
    """
    from rankwise.cli.summaries import SUMMARIES

    parser, commands = _root_parser()
    for name in COMMANDS:
        commands.add_parser(name, help=SUMMARIES[name])
    return parser


def _runs_no_command(before: list[str], args: list[str]) -> bool:
    """Whether the command line only lists the commands, or fails before running one.

    ``rankwise --help`` (also before a command: ``rankwise --help eval`` lists them
    all), ``--version``, no command, or no word that names one.

    Examples
    --------
    >>> _runs_no_command(["--help"], ["--help", "eval"]), _runs_no_command([], ["evl"])
    (True, True)
    >>> _runs_no_command([], ["eval", "--help"]), _runs_no_command(["--"], ["--", "eval"])
    (False, False)
    """
    if {"-h", "--help", "--version"} & set(before):
        return True
    return not any(arg in COMMANDS for arg in args)


def _command_parser(parser: argparse.ArgumentParser,
                    command: str | None) -> argparse.ArgumentParser:
    """The parser of *command* (``rankwise`` itself when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


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
    _numpy_settings()
    _standard_error_open()
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except BaseException as error:  # Ctrl-C at start-up (imports): as once a command runs
        if not _interrupted(error):
            raise
        return interrupted()


def _standard_error_open() -> None:
    """Started with standard error closed (``2>&-``): put /dev/null there.

    Else the notices fail (a written file's command exits 1) and, worse, the
    next file opened (an output's temporary file) would take descriptor 2 and
    receive them.
    """
    try:
        import fcntl
    except ImportError:  # (Windows: pythonw has no standard error at all)
        if sys.stderr is None:
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the process's own)
        return
    try:
        writable = (fcntl.fcntl(2, fcntl.F_GETFL) & os.O_ACCMODE) != os.O_RDONLY
    except OSError:
        writable = False
    if not writable:  # closed, or a file a launcher opened there (a pyenv shim: read-only)
        fd = os.open(os.devnull, os.O_WRONLY)
        if fd != 2:
            os.dup2(fd, 2)
            os.close(fd)
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 (the process's own)


def _numpy_settings() -> None:
    """Set, for this command, how numpy uses threads and memory, unless the user chose.

    * One OpenBLAS thread (``OPENBLAS_NUM_THREADS``). numpy's OpenBLAS starts a
      thread per core when numpy is imported, and those threads spin on the
      other cores for a while: on the small inputs of a shell loop that is
      more CPU than the evaluation (``rankwise eval`` of the demo data: 0.21 s
      of CPU, 0.18 s with one thread). The commands call BLAS only in
      randomization tests of over 524,288 queries (a matrix product per chunk
      of resamples), where a second thread would save at most that product's
      share of the wall time. ``OMP_NUM_THREADS`` is left alone (pyarrow sizes
      its thread pool from it).
    * No transparent huge pages for numpy's arrays (``NUMPY_MADVISE_HUGEPAGE``).
      numpy asks the kernel for huge pages on every array above 4 MiB. On a
      virtual machine that hands freed memory back to its host (virtio-balloon
      free page reporting, as on the machines rankwise is measured on), a
      fresh huge page is faulted in from the host and zeroed whole: on the
      7M-line run, joining the parsed scores into one array was 14% of the
      process's CPU (``perf``: ``clear_page_erms`` under a huge-page fault),
      and the whole ``rankwise eval`` cost 0.78 s of CPU against 0.71 s in
      4 KiB pages (medians of 7 paired runs 3 s apart). A command touches each
      array once or twice in order, where huge pages save little.

    Set before any command imports numpy (both are read then), and only then:
    in a process that imported numpy already, nothing changes.
    """
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def _interrupted(error: BaseException | None) -> bool:
    """Whether *error* is Ctrl-C, or came of it.

    (Python 3.11 wraps a KeyboardInterrupt raised while a class is made, such
    as a dataclass being imported, in a RuntimeError.)

    Examples
    --------
    >>> _interrupted(RuntimeError("Error calling __set_name__")), _interrupted(KeyboardInterrupt())
    (False, True)
    """
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def _main(args: list[str]) -> int:
    before, command, rest = _split_global(args)
    if command == "trec-eval":
        # trec_eval has its own (getopt) command line: hand it over untouched.
        from rankwise.cli.commands import trec_eval

        if set(before) <= {"--debug", "--quiet"}:
            return _flushed(
                trec_eval.main(rest, debug="--debug" in before, quiet="--quiet" in before),
                prefix=f"{trec_eval.PROG}: ",
            )
    flags = {"--debug", "--quiet"}
    if command is not None and before and set(before) <= flags:
        # ``rankwise --quiet eval ...``: the messages options belong to every command
        args = [command, *before, *rest]
    # a known command needs its own parser only (start-up time: issue 13, item 21); a line
    # that runs none (--help, no command, a misspelt one) the commands' names and summaries
    parser = _listing_parser() if _runs_no_command(before, args) else build_parser(only=command)
    try:
        namespace, unknown = parser.parse_known_args(args)
        if unknown:  # said by the command's parser, with its usage line, not rankwise's
            raise _ParseError(_command_parser(parser, namespace.command),
                              f"unrecognized arguments: {' '.join(unknown)}")
    except _ParseError as error:
        return _usage_error(error, args)
    except SystemExit as stop:  # --help, --version: written to standard output
        return _flushed(int(stop.code) if isinstance(stop.code, int) else EXIT_USAGE)
    except OSError as error:  # ... which failed (> /dev/full)
        return _failed(error)
    if namespace.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    handler: Callable[[argparse.Namespace], int] = namespace.handler
    from rankwise.cli._output import flush_stdout, refuse_overwriting_inputs

    def action() -> int:
        refuse_overwriting_inputs(namespace.command, namespace)
        status = handler(namespace)
        flush_stdout()
        return status

    # the library's warnings are for Python callers; each command says what matters in its
    # own words (and not at all under --quiet): the pure path's note alone is shown
    with library_warnings(quiet=getattr(namespace, "quiet", False)):
        return run_guarded(action, debug=getattr(namespace, "debug", False))


def _failed(error: OSError) -> int:
    """Report *error* as every command does: one line, its exit status."""
    def fail() -> int:
        raise error

    return run_guarded(fail, debug=False)


def _flushed(status: int, *, prefix: str = "rankwise: error: ") -> int:
    """*status*, once what is left for standard output is written (else an error line)."""
    from rankwise.cli._output import flush_stdout

    def flush() -> int:
        flush_stdout()
        return status

    return run_guarded(flush, debug=False, prefix=prefix)
