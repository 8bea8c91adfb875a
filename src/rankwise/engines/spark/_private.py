"""Files handed to the JVM from a private folder of this process, never from a shared one.

A file at a fixed name in the temporary folder (``/tmp/rankwise-...``) can be
created first by any local user, with their content (or as a link to a file of
this user's, which a writer would then overwrite). What rankwise gives the JVM
(its jar, a log configuration) is therefore written to a new file of a folder
made by :func:`tempfile.mkdtemp` for this process (mode 0700, a random name),
and the folder is removed when the process exits.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading

__all__ = ["private_file", "private_folder"]

_FOLDER: dict[int, str] = {}
"""This process's private folder, by process id (a forked child makes its own)."""

_GUARD = threading.Lock()


def private_folder() -> str:
    """A folder only this user can use (0700), made once per process, removed at exit.

    Examples
    --------
    >>> import os, stat
    >>> folder = private_folder()
    >>> oct(stat.S_IMODE(os.stat(folder).st_mode)), folder == private_folder()
    ('0o700', True)
    """
    with _GUARD:
        folder = _FOLDER.get(os.getpid())
        if folder is None or not os.path.isdir(folder):
            folder = tempfile.mkdtemp(prefix="rankwise-")
            atexit.register(shutil.rmtree, folder, True)
            _FOLDER.clear()
            _FOLDER[os.getpid()] = folder
        return folder


def private_file(data: bytes, prefix: str, suffix: str) -> str:
    r"""The path of a new file holding *data* in :func:`private_folder` (never one reused).

    Examples
    --------
    >>> path = private_file(b"rootLogger.level = error\n", "log4j2-", ".properties")
    >>> os.path.dirname(path) == private_folder(), open(path, "rb").read()
    (True, b'rootLogger.level = error\n')
    """
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=private_folder())
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return path
