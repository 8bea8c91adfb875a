"""Writing command output: to standard output, or to a file through the one writer.

A command that writes a file says so on standard error (:func:`say_written`).
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterable

__all__ = ["say_written", "size_text", "write_output"]


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
        The file cannot be written, or standard output is closed.
    """
    if path is None or path == "-":
        stream = sys.stdout
        if stream is None or stream.closed:
            raise OSError(errno.EBADF, "standard output is closed", "<stdout>")
        if text is None:
            raise TypeError("expected text to write, got None")
        for piece in [text] if isinstance(text, str) else text:
            stream.write(piece)
        stream.flush()
        return
    import os

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
