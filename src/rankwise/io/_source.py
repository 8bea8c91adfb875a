"""Opening input sources: paths, compressed files, standard input, bytes."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from rankwise.exceptions import InputFormatError

PathLike = Union[str, "os.PathLike[str]"]

_COMPRESSION_BY_SUFFIX = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz"}


class FileView:
    """Read-only, bytes-like access to a file without holding it in memory.

    Supports ``len``, slicing, ``find`` (scanned in chunks) and ``bytes()``:
    what the TREC reader needs to check a file before pyarrow streams it.
    """

    _CHUNK = 1 << 24

    def __init__(self, path: str) -> None:
        self.path = path
        self.size = os.path.getsize(path)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, part: slice) -> bytes:
        start, stop, _ = part.indices(self.size)
        with open(self.path, "rb") as handle:
            handle.seek(start)
            return handle.read(max(0, stop - start))

    def __bytes__(self) -> bytes:
        with open(self.path, "rb") as handle:
            return handle.read()

    def find_any(self, needles: tuple[bytes, ...]) -> dict[bytes, int]:
        """Offset of the first occurrence of each single byte in *needles* (-1 if absent)."""
        found = dict.fromkeys(needles, -1)
        buffer = bytearray(self._CHUNK)
        offset = 0
        with open(self.path, "rb") as handle:
            while True:
                count = handle.readinto(buffer)
                if not count:
                    break
                chunk = buffer if count == self._CHUNK else bytes(buffer[:count])
                for needle in needles:
                    if found[needle] == -1:
                        at = chunk.find(needle)
                        if at != -1:
                            found[needle] = offset + at
                offset += count
                if all(value != -1 for value in found.values()):
                    break
        return found

    def find(self, needle: bytes) -> int:
        """Offset of the first occurrence of a single byte (-1 if absent)."""
        return self.find_any((needle,))[needle]


@dataclass(frozen=True)
class OpenedSource:
    """The bytes of an input and the name to use in error messages.

    ``rereadable``: whether the input can be opened again by its name to find
    a line for a message (not standard input, a pipe or raw bytes).
    """

    data: bytes | FileView
    display: str
    path: str | None = None
    rereadable: bool = True


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

    Plain files are given as a :class:`FileView` (read in chunks, never held
    whole: pyarrow streams them); compressed files and standard input
    (``"-"``) are read into memory.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield OpenedSource(bytes(source), "<bytes>", rereadable=False)
        return
    path = os.fspath(source)
    if path == "-":
        yield OpenedSource(sys.stdin.buffer.read(), "<stdin>", rereadable=False)
        return
    check_readable_path(path)
    kind = compression_of(path)
    if kind is not None:
        with open(path, "rb") as handle:
            yield OpenedSource(_decompress(handle.read(), kind, path), path)
        return
    if not stat.S_ISREG(os.stat(path).st_mode):
        # a pipe or a device (``<(zcat run.gz)``): no size, no seeking; read it once
        with open(path, "rb") as handle:
            yield OpenedSource(handle.read(), path, rereadable=False)
        return
    view = FileView(path)
    yield OpenedSource(view if len(view) else b"", path, path)
