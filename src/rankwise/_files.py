"""Writing an output file: complete or not at all, never replacing what it should not.

:func:`write_file` is the one writer of rankwise (tables, reports, figures):

- a regular file (new or existing) is written to a temporary file in the same
  folder, flushed and fsync'd, then renamed over the target: a failure (full
  disk, interruption, SIGTERM) never leaves a partial file nor spoils an
  existing one, and the temporary file is removed;
- an existing file keeps its permissions (and, where the process may, its
  owner and group); a new one gets those of the umask;
- a symbolic link is followed: its target is written, the link stays;
- anything that is not a regular file (``/dev/null``, ``/dev/stdout``, a named
  pipe, a terminal) is written directly, never replaced;
- every write, flush and close is checked: a failed write is an ``OSError``
  naming the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
import types
from collections.abc import Iterable, Iterator

__all__ = ["write_file"]

_PENDING: set[str] = set()
"""Temporary files being written, removed on SIGTERM."""


def _remove_pending() -> None:
    for path in list(_PENDING):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _PENDING.clear()


@contextlib.contextmanager
def _cleanup_on_sigterm() -> Iterator[None]:
    """While writing, SIGTERM removes the temporary files, then acts as it would have."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: types.FrameType | None) -> None:
        _remove_pending()
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
        else:
            os.kill(os.getpid(), signal.SIGTERM)

    try:
        signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # not allowed here: write without it
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _default_mode() -> int:
    """The permissions a new file gets under the current umask (mkstemp uses 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_all(fd: int, data: bytes, path: str) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except OSError as error:
            raise OSError(error.errno, f"cannot write: {error.strerror}", path) from None
        if written <= 0:
            raise OSError(errno.EIO, "cannot write: nothing was written", path)
        view = view[written:]


def _pieces(data: bytes | str | Iterable[bytes | str]) -> Iterator[bytes]:
    """The contents as bytes, piece by piece (str pieces as UTF-8)."""
    pieces: Iterable[bytes | str] = (
        [bytes(data)] if isinstance(data, (bytearray, memoryview))
        else [data] if isinstance(data, (bytes, str)) else data
    )
    for piece in pieces:
        if isinstance(piece, str):
            yield piece.encode("utf-8")
        elif isinstance(piece, (bytes, bytearray, memoryview)):
            yield bytes(piece)
        else:
            raise TypeError(f"expected str or bytes to write, got {type(piece).__name__}")


def _write_pieces(fd: int, data: bytes | str | Iterable[bytes | str], shown: str) -> None:
    for piece in _pieces(data):
        _write_all(fd, piece, shown)


def _write_directly(target: str, data: bytes | str | Iterable[bytes | str], shown: str) -> None:
    fd = os.open(target, os.O_WRONLY)
    try:
        _write_pieces(fd, data, shown)
    finally:
        os.close(fd)


def write_file(data: bytes | str | Iterable[bytes | str], path: str | os.PathLike[str]) -> None:
    r"""Write *data* to *path*: atomically for regular files, directly for anything else.

    Parameters
    ----------
    data : bytes, str, or an iterable of them
        The complete contents (str is written as UTF-8). An iterable is
        written piece by piece as it comes (a large output never has to be
        in memory whole); the file appears, complete, only at the end.
    path : path
        The file to write.

    Raises
    ------
    IsADirectoryError
        *path* is a folder.
    OSError
        The folder is not writable, the disk is full, or a write failed; the
        message names *path*.

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> target = os.path.join(folder, "out.txt")
    >>> write_file("first\n", target); write_file(b"second\n", target)
    >>> open(target).read(), os.listdir(folder)
    ('second\n', ['out.txt'])
    """
    if data is None:
        raise TypeError("expected str, bytes or an iterable of them to write, got None")
    shown = os.fspath(path)
    target = os.path.realpath(shown)  # follow symbolic links: write the file they point to
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, "is a directory, expected a file name", shown)
    existing: os.stat_result | None = None
    with contextlib.suppress(FileNotFoundError):
        existing = os.stat(target)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_directly(target, data, shown)  # a device, a pipe, a terminal: never replaced
        return
    folder = os.path.dirname(target)
    with _cleanup_on_sigterm():
        try:
            fd, temporary = tempfile.mkstemp(
                prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
            )
        except OSError as error:
            raise OSError(error.errno, error.strerror, shown) from None
        _PENDING.add(temporary)
        try:
            try:
                _write_pieces(fd, data, shown)
                os.fsync(fd)
            finally:
                os.close(fd)
            if existing is not None:
                os.chmod(temporary, stat.S_IMODE(existing.st_mode))
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.chown(temporary, existing.st_uid, existing.st_gid)
            else:
                os.chmod(temporary, _default_mode())
            os.replace(temporary, target)
            _PENDING.discard(temporary)
            with contextlib.suppress(OSError):  # make the rename itself durable
                folder_fd = os.open(folder, os.O_RDONLY)
                try:
                    os.fsync(folder_fd)
                finally:
                    os.close(folder_fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            _PENDING.discard(temporary)
            raise
