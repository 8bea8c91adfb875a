"""Writing command output: to standard output, or atomically to a file."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile

__all__ = ["write_output"]


def write_output(text: str, path: str | None) -> None:
    """Write *text* to *path*, or to standard output when *path* is None or ``"-"``.

    A regular file is written to a temporary file in the same folder and
    renamed over *path* once complete, so a failure never leaves a partial
    file (nor spoils an existing one). A path that exists and is not a regular
    file (``/dev/stdout``, a named pipe, a device) is written to directly.

    Parameters
    ----------
    text : str
        The complete output.
    path : str or None
        Destination file.

    Raises
    ------
    OSError
        When the folder is not writable or the disk is full (the temporary
        file is removed first).
    """
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path}: is a directory, expected a file name for -o")
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        return
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder
        )
    except OSError as error:
        raise OSError(error.errno, error.strerror, path) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        mode = _default_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _default_mode() -> int:
    """The permissions a new file gets under the current umask (mkstemp uses 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
