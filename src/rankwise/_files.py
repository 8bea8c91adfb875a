"""Writing an output file: complete or not at all, never replacing what it should not.

:func:`write_file` is the one writer of rankwise (tables, reports, figures):

- a regular file (new or existing) is written to a temporary file in the same
  folder (``.NAME.XXXXXXXX.tmp``), flushed and fsync'd, then renamed over the
  target: a failure (full disk, an error, Ctrl-C, a signal that ends the
  process: SIGHUP, SIGTERM, SIGQUIT, ..., see :data:`_TERMINATING`) never
  leaves a partial file nor spoils an existing one, and the temporary file is
  removed (only SIGKILL, which no process can catch, leaves it behind);
- an existing file keeps its permissions (and, where the process may, its
  owner and group); a new one is created as any new file is, with mode 0666
  through the umask (and a default ACL of its folder): the umask is never
  read or changed (``os.umask`` would change it for every thread);
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
import threading
import types
from collections.abc import Iterable, Iterator

__all__ = ["write_file"]

_PENDING: set[str] = set()
"""Temporary files being written, removed when a signal ends the process."""

_TERMINATING = tuple(
    getattr(signal, name) for name in (
        "SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGALRM", "SIGUSR1", "SIGUSR2",
        "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGPOLL", "SIGPWR",
    ) if hasattr(signal, name)
)
"""The signals that end a process by default and that a process can catch.

While a file is written, each of these whose action is still the default one
removes the temporary files first, then ends the process as it would have
(same signal, same exit status). Left out: SIGKILL and SIGSTOP (no process can
catch them), SIGPIPE and SIGXFSZ (Python ignores them: the write fails with an
``OSError`` instead, which removes the file), and the signals of a fault
(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS: no Python code can
run after them).
"""


def _remove_pending() -> None:
    for path in list(_PENDING):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _PENDING.clear()


def _remove_and_die(signum: int, frame: types.FrameType | None) -> None:
    """Remove the temporary files, then let *signum* end the process as it would have."""
    _remove_pending()
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)
    # still here: the signal is blocked in this thread; end as a shell reports it
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def _cleanup_on_signals() -> Iterator[None]:
    """While writing, a terminating signal removes the temporary files first.

    Only signals whose action is the default (ending the process) are taken
    over, and only in the main thread (the only one Python lets set them):
    an ignored signal stays ignored (``nohup``), and a handler of the
    program's own (Python's KeyboardInterrupt for SIGINT) stays in charge; if
    it raises, :func:`write_file` removes its temporary file as for any error.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken: list[int] = []
    try:
        for signum in _TERMINATING:
            with contextlib.suppress(ValueError, OSError):  # not allowed here: skip it
                if signal.getsignal(signum) == signal.SIG_DFL:
                    signal.signal(signum, _remove_and_die)
                    taken.append(signum)
        yield
    finally:
        for signum in taken:
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(signum) is _remove_and_die:  # not one set meanwhile
                    signal.signal(signum, signal.SIG_DFL)


_STEM_BYTES = 200
"""The bytes of the target's name a temporary name keeps (``.NAME.XXXXXXXX.tmp``)."""


def _create_temporary(target: str, shown: str, mode: int) -> tuple[int, str]:
    """Create a new, unique temporary file next to *target*: its descriptor and path.

    The file is created with *mode* through the umask (and any default ACL of
    the folder), exactly as a new file is: the process's umask is never read
    or changed (``os.umask`` sets it, for every thread, to read it). Its path
    is listed in :data:`_PENDING` before it exists, so that a signal arriving
    at any moment finds it.
    """
    folder, name = os.path.split(target)
    # a name may hold 255 bytes: the temporary one adds 14, so a long name is cut to at most
    # 200 bytes, between two characters (a cut inside one does not decode on Windows)
    stem = name
    while len(os.fsencode(stem)) > _STEM_BYTES:
        stem = stem[:-1]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        temporary = os.path.join(folder, f".{stem}.{os.urandom(4).hex()}.tmp")
        _PENDING.add(temporary)
        try:
            return os.open(temporary, flags, mode), temporary
        except FileExistsError:
            _PENDING.discard(temporary)
        except OSError as error:
            _PENDING.discard(temporary)
            raise OSError(error.errno, error.strerror, shown) from None
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", shown)


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
    if not shown:  # (its real path would be the working folder)
        raise FileNotFoundError(errno.ENOENT, "the file name is empty: expected a file to write",
                                "''")
    if os.path.basename(shown) in ("", ".", ".."):
        # "out/", "out/.": a folder's name, though out may be a file (realpath drops the slash)
        if os.path.isdir(shown):
            raise IsADirectoryError(errno.EISDIR, "is a directory, expected a file name", shown)
        raise NotADirectoryError(errno.ENOTDIR, "names a folder, expected a file name", shown)
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
    with _cleanup_on_signals():
        # a new file gets the mode a new file gets (0666 through the umask); a file
        # replaced gets its own back, the temporary one being private meanwhile
        fd, temporary = _create_temporary(target, shown, 0o666 if existing is None else 0o600)
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
            try:
                os.replace(temporary, target)
            except OSError as error:  # an immutable target, say: name it, not the temporary
                raise OSError(error.errno, f"cannot replace it: {error.strerror}",
                              shown) from None
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
