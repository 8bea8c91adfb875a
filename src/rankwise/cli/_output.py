"""Writing command output: to standard output, or to a file through the one writer.

A command that writes a file says so on standard error (:func:`say_written`).
It never writes over what it reads (:func:`refuse_overwriting_inputs`), and a
failed write to standard output names it (``> /dev/full``).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "FILES", "flush_stdout", "refuse_overwriting_inputs", "say_written", "size_text",
    "write_output",
]

FILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "eval": (("qrels", "runs"), ("output",)),
    "compare": (("qrels", "run_a", "run_b", "more_runs"), ("output",)),
    "report": (("qrels", "runs"), ("output",)),
    "plot": (("qrels", "runs"), ("output",)),
    "fuse": (("runs", "qrels", "optimize"), ("output",)),
    "recs": (("held_out", "recs", "exclude", "train", "catalogue", "segments"),
             ("output", "html")),
    "design": (("files",), ("output",)),
    "explain": (("qrels", "run"), ("output",)),
    "guide": (("qrels", "runs"), ("output",)),
}
"""Each command that writes: the arguments naming the files it reads, and those it writes.

An output left out (``None``) or ``-`` is standard output. ``trec-eval``,
``demo`` and ``measures`` read nothing they write.
"""

_OPTION = {"output": "-o", "html": "--html"}

STDOUT = "standard output"
"""How messages name standard output."""


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the regular file *path* names (``-``: standard input), else None."""
    try:
        info = os.fstat(sys.stdin.fileno()) if path == "-" else os.stat(path)
    except (OSError, ValueError, AttributeError):  # absent, unreadable, no real stdin
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _stdout_identity() -> tuple[int, int] | None:
    """(device, inode) of standard output when it is redirected to a regular file."""
    try:
        info = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # closed, or not a real file (captured)
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _paths(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(item) for item in value] if isinstance(value, (list, tuple)) else [str(value)]


def _input_text(path: str, target: str) -> str:
    """The input *path* that the output *target* is, in words."""
    if path == "-":
        return "standard input (read from that file)"
    if path == target:
        return f"the input {path}"
    if target == STDOUT:
        return f"the input {path} (redirected to it)"
    return f"the input {path} (another name for it: the same device and inode)"


def refuse_overwriting_inputs(command: str, args: Any) -> None:
    """Refuse an output that is one of the inputs, before any work.

    The same file is the same device and inode: the same name, another name
    for it (a symbolic or hard link), or standard output redirected to it
    (``>> run.txt``); standard input redirected from the output counts as
    that input. Two outputs naming one file (``-o`` and ``--html``) are
    refused too. Only regular files are compared: ``/dev/stdout`` given for
    both a terminal's input and output is not "the same file".

    Parameters
    ----------
    command : str
        A command of :data:`FILES` (any other is let through).
    args : argparse.Namespace
        Its parsed arguments.

    Raises
    ------
    InvalidParameterError
        An output file is an input, or two outputs are one file.
    """
    from rankwise.exceptions import InvalidParameterError

    inputs, outputs = FILES.get(command, ((), ()))
    read = [(path, _identity(path))
            for dest in inputs for path in _paths(getattr(args, dest, None))]
    written: list[tuple[str, str, tuple[int, int] | None]] = []
    for dest in outputs:
        value = getattr(args, dest, None)
        if value is None and dest != "output":
            continue
        if value is None or value == "-":
            written.append((STDOUT, STDOUT, _stdout_identity()))
        else:
            written.append((f"{_OPTION[dest]} {value}", str(value), _identity(str(value))))
    for shown, target, identity in written:
        if identity is None:
            continue
        for path, other in read:
            if other == identity:
                raise InvalidParameterError(
                    f"{shown} is {_input_text(path, target)}: writing it would replace a "
                    "file being read; write to another file"
                )
    # two outputs: the same file, or the same path when it does not exist yet
    keys = [identity or os.path.realpath(target) for _, target, identity in written]
    for index, (shown, _, _) in enumerate(written):
        for (later, _, _), key in zip(written[index + 1:], keys[index + 1:]):
            if keys[index] == key:
                raise InvalidParameterError(
                    f"{shown} and {later} are the same file; give each its own file"
                )


def _stdout_error(error: OSError) -> OSError:
    """A failed write to standard output, named (``standard output: cannot write: ...``)."""
    reason = error.strerror or (str(error) if str(error) else type(error).__name__)
    return OSError(error.errno, f"cannot write: {reason}", STDOUT)


def flush_stdout() -> None:
    """Flush standard output; a failure names it (a full disk: ``> /dev/full``).

    Raises
    ------
    OSError
        Standard output cannot be written; the message names it and says why.
        (A reader gone away stays a :class:`BrokenPipeError`.)
    """
    stream = sys.stdout
    if stream is None or stream.closed:
        return
    try:
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _stdout_error(error) from None


def _to_stdout(pieces: Iterator[str]) -> None:
    stream = sys.stdout
    if stream is None or stream.closed:
        raise OSError(errno.EBADF, "standard output is closed", "<stdout>")
    for piece in pieces:  # (an error of the producer is its own, not standard output's)
        try:
            stream.write(piece)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _stdout_error(error) from None
    flush_stdout()


def write_binary_output(data: bytes, path: str | None) -> None:
    """Write *data* to *path* as :func:`write_output` writes text (``-``: standard output)."""
    if path is not None and path != "-":
        from rankwise._files import write_file

        if os.path.isdir(path):
            raise IsADirectoryError(f"{path}: is a directory, expected a file name for -o")
        write_file(data, path)
        return
    flush_stdout()  # what was written as text comes first
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None or sys.stdout.closed:
        raise OSError(errno.EBADF, "standard output is closed", "<stdout>")
    try:
        stream.write(data)
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _stdout_error(error) from None


def write_output(text: str | Iterable[str], path: str | None) -> None:
    """Write *text* to *path*, or to standard output when *path* is None or ``"-"``.

    *text* may be an iterable of pieces (a table written block by block): each
    is written as it comes, so a large output is never whole in memory.

    Files go through :func:`rankwise._files.write_file`: atomically for a
    regular file (nothing partial is ever left, an existing file keeps its
    permissions, a symbolic link its target), directly for a device or a pipe.

    Raises
    ------
    OSError
        The file cannot be written, or standard output is closed or cannot be
        written (its message then names ``standard output``).
    """
    if text is None:
        raise TypeError("expected text to write, got None")
    if path is None or path == "-":
        _to_stdout(iter([text] if isinstance(text, str) else text))
        return
    from rankwise._files import write_file

    if os.path.isdir(path):
        raise IsADirectoryError(f"{path}: is a directory, expected a file name for -o")
    write_file(text, path)


def size_text(size: int) -> str:
    """A file size for people: ``512 B``, ``412.3 kB``, ``1.2 MB``, ``3.4 GB``.

    Examples
    --------
    >>> size_text(512), size_text(412_300), size_text(1_234_567), size_text(3_400_000_000)
    ('512 B', '412.3 kB', '1.2 MB', '3.4 GB')
    """
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def say_written(path: str | None, *, quiet: bool, detail: str = "") -> None:
    """The one rule of every command that writes a file: say so on standard error.

    ``rankwise: wrote FILE (size)``, then ``: detail`` when given, unless
    *quiet*. Nothing for standard output (*path* None or ``-``) nor for what
    is not a regular file (``/dev/stdout``, a pipe): the output itself shows.
    """
    import os
    import stat

    if quiet or path is None or path == "-":
        return
    try:
        status = os.stat(path)
    except OSError:
        return
    if not stat.S_ISREG(status.st_mode):
        return
    sys.stderr.write(f"rankwise: wrote {path} ({size_text(status.st_size)})"
                     f"{': ' + detail if detail else ''}\n")
