"""Writing command output: to standard output, or to a file through the one writer."""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterable

__all__ = ["write_output"]


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
