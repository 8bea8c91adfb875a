"""What a report was made from: files with sizes and hashes, measure definitions, versions."""

from __future__ import annotations

import hashlib
import os
import platform
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from rankwise.measures import Measure

__all__ = [
    "FileRecord",
    "MeasureRecord",
    "describe_file",
    "describe_input",
    "describe_measures",
    "environment",
    "file_kind",
    "now",
    "spool",
]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileRecord:
    """An input of the report.

    Attributes
    ----------
    role : str
        ``"judgments"`` or ``"run"``.
    system : str or None
        The system name of a run.
    path : str
        The path as given, or a description of an in-memory object.
    size : int or None
        Bytes (None for an object that is not a file).
    sha256 : str or None
        Hex digest of the file's bytes.
    note : str
        What else to know: ``"a pipe: size and SHA-256 of the bytes read"``, ...
    """

    role: str
    system: str | None
    path: str
    size: int | None
    sha256: str | None
    note: str = ""


def describe_file(path: str | os.PathLike[str], role: str, system: str | None = None) -> FileRecord:
    """Size and SHA-256 of a file (read in chunks of 1 MiB).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(delete=False) as handle:
    ...     _ = handle.write(b"abc")
    >>> record = describe_file(handle.name, "run", "bm25")
    >>> record.size, record.sha256[:16]
    (3, 'ba7816bf8f01cfea')
    """
    text = os.fspath(path)
    digest = hashlib.sha256()
    with open(text, "rb") as stream:
        for chunk in iter(lambda: stream.read(_CHUNK), b""):
            digest.update(chunk)
    return FileRecord(role, system, text, os.path.getsize(text), digest.hexdigest())


def file_kind(path: str) -> str | None:
    """``"a pipe"``, ``"a character device"``, ...: what *path* is when not a regular file.

    None for a regular file (or a symbolic link to one) and for a path that
    does not exist.

    Examples
    --------
    >>> file_kind("/dev/null"), file_kind(__file__)
    ('a character device', None)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def spool(path: str, folder: str) -> tuple[str, int, str]:
    """Copy a pipe's bytes to a file in *folder*, hashing them on the way.

    A pipe (``<(zcat run.gz)``, a FIFO) can be read once only, so the report
    reads it here, records the size and SHA-256 of exactly the bytes read,
    and evaluates the copy. The copy keeps the pipe's file name, so the run
    is named as it would be; memory stays bounded (1 MiB at a time).

    Returns
    -------
    copy : str
        The path of the copy.
    size : int
    sha256 : str
    """
    copy = os.path.join(folder, os.path.basename(path.rstrip(os.sep)) or "input")
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as source, open(copy, "xb") as target:
        for chunk in iter(lambda: source.read(_CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
            target.write(chunk)
    return copy, size, digest.hexdigest()


def _unhashed(path: str, role: str, system: str | None, why: str) -> FileRecord:
    return FileRecord(role, system, path, None, None, why)


def describe_input(obj: Any, role: str, system: str | None = None) -> FileRecord:
    """A :class:`FileRecord` of a path, or of an object read from a file, or of anything else.

    A regular file gets its size and SHA-256; a path that is not one (a pipe
    read already, a device) is named with what it is; an object read from a
    file is described by that file; anything else is ``<dict in memory>``.
    """
    if isinstance(obj, (str, os.PathLike)):
        path = os.fspath(obj)
        kind = file_kind(path)
        if kind is None and os.path.isfile(path):
            return describe_file(path, role, system)
        return _unhashed(path, role, system, f"{kind or 'not found'}: no size or hash")
    source = getattr(obj, "source", None)
    if isinstance(source, str) and not source.startswith("<"):
        if os.path.isfile(source) and file_kind(source) is None:
            return describe_file(source, role, system)
        return _unhashed(source, role, system,
                         f"{file_kind(source) or 'not found'}, read before the report: "
                         "no size or hash")
    if isinstance(source, str):  # "<stdin>", "<bytes>"
        return _unhashed(source, role, system, "read before the report: no size or hash")
    return FileRecord(role, system, f"<{type(obj).__name__} in memory>", None, None)


@dataclass(frozen=True)
class MeasureRecord:
    """The definition of one measure of the report, from :data:`rankwise.measures.FAMILIES`."""

    name: str
    summary: str
    formula: str
    parameters: str
    reference: str


def describe_measures(measures: Iterable[Measure]) -> list[MeasureRecord]:
    """The definition of each measure: summary, formula, parameters (set or default), reference.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> record = describe_measures([parse("P@5(rel=2)")])[0]
    >>> record.name, record.summary, record.parameters
    ('P@5(rel=2)', 'precision at k', 'rel=2')
    """
    from rankwise.measures.spec import format_value

    records = []
    for measure in measures:
        family = measure.family
        parts = []
        for key, param in family.params.items():
            value = measure.param(key)
            if value == param.default and value in ((), None, ""):
                continue
            if key in ("dialect", "empty", "denominator") and key not in dict(measure.params):
                continue  # another tool's conventions: said only when asked for
            default = "" if key in dict(measure.params) else " (default)"
            parts.append(f"{key}={format_value(value)}{default}")
        records.append(MeasureRecord(
            name=str(measure),
            summary=family.summary,
            formula=family.formula,
            parameters=", ".join(parts),
            reference=family.reference,
        ))
    return records


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # any failure means: not installed or unknown
        return None


def environment() -> dict[str, str]:
    """Versions of rankwise, Python and the libraries that computed and drew the report."""
    from rankwise._version import __version__

    found = {
        "rankwise": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(terse=True),
    }
    for name in ("numpy", "pyarrow", "scipy"):  # the figures are drawn by rankwise itself
        value = _version(name)
        if value is not None:
            found[name] = value
    return found


def now() -> datetime:
    """The current time in the local time zone (what the report says it was made at)."""
    return datetime.now(timezone.utc).astimezone()
