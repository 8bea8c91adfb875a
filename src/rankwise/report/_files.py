"""Writing a file atomically: complete, or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["write_atomically"]


def write_atomically(data: bytes, path: str | os.PathLike[str]) -> None:
    """Write *data* to *path* through a temporary file in the same folder and a rename.

    A failure (full disk, interruption) never leaves a partial file nor
    spoils an existing one. The file gets the permissions of the umask.

    Raises
    ------
    IsADirectoryError
        *path* is a folder.
    OSError
        The folder is not writable.
    """
    target = os.fspath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target}: is a directory, expected a file name")
    folder = os.path.dirname(os.path.abspath(target))
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
        )
    except OSError as error:
        raise OSError(error.errno, error.strerror, target) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
