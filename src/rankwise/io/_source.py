"""Opening input sources: paths, compressed files, standard input, bytes."""

from __future__ import annotations

import contextlib
import mmap
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from rankwise.exceptions import InputFormatError

PathLike = Union[str, "os.PathLike[str]"]

_COMPRESSION_BY_SUFFIX = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz"}


@dataclass(frozen=True)
class OpenedSource:
    """The bytes of an input and the name to use in error messages."""

    data: bytes | mmap.mmap
    display: str
    path: str | None = None


def describe(source: object) -> str:
    """Return the name of *source* as error messages show it."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else text
    return f"<{type(source).__name__}>"


def compression_of(path: str) -> str | None:
    """Return the compression implied by the file name's suffix, or None."""
    return _COMPRESSION_BY_SUFFIX.get(Path(path).suffix.lower())


def _decompress(raw: bytes, kind: str, display: str) -> bytes:
    try:
        if kind == "gzip":
            import gzip

            return gzip.decompress(raw)
        if kind == "bz2":
            import bz2

            return bz2.decompress(raw)
        import lzma

        return lzma.decompress(raw)
    except Exception as error:
        raise InputFormatError(f"cannot decompress {kind} data: {error}", display) from error


def check_readable_path(path: str) -> None:
    """Raise :class:`InputFormatError` unless *path* is an existing regular file."""
    if not os.path.exists(path):
        raise InputFormatError("no such file", path)
    if os.path.isdir(path):
        raise InputFormatError("is a directory, expected a file", path)
    if not os.access(path, os.R_OK):
        raise InputFormatError("permission denied", path)


@contextmanager
def open_bytes(source: PathLike | bytes) -> Iterator[OpenedSource]:
    """Give the whole content of *source* as a bytes-like object.

    Plain files are memory-mapped (no copy); compressed files and standard
    input (``"-"``) are read into memory.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield OpenedSource(bytes(source), "<bytes>")
        return
    path = os.fspath(source)
    if path == "-":
        yield OpenedSource(sys.stdin.buffer.read(), "<stdin>")
        return
    check_readable_path(path)
    kind = compression_of(path)
    if kind is not None:
        with open(path, "rb") as handle:
            yield OpenedSource(_decompress(handle.read(), kind, path), path)
        return
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            yield OpenedSource(b"", path)
            return
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield OpenedSource(mapped, path, path)
        finally:
            # still referenced by a reader thread: the GC closes it then
            with contextlib.suppress(BufferError):
                mapped.close()
