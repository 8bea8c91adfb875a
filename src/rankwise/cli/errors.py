"""Errors on the command line: one line on standard error and an exit status.

Every error rankwise raises on purpose becomes ``rankwise: error: <what,
where, expected, got>`` and a non-zero exit status; ``--debug`` shows the
traceback as well. Shared by every command (``trec-eval`` prints with its
own prefix and exit statuses).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = [
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "interrupted",
    "report_error",
    "run_guarded",
]

EXIT_ERROR = 1
"""Exit status for bad input, an unknown measure, or a file that cannot be written."""

EXIT_USAGE = 2
"""Exit status for a malformed command line (argparse's convention)."""

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as a shell reports a process SIGINT ended)."""


def interrupted() -> int:
    """Say that Ctrl-C stopped the command; its exit status."""
    try:
        sys.stderr.write("\nrankwise: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # standard error is gone too: the status says it
        pass
    return EXIT_INTERRUPTED

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
        return interrupted()
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
