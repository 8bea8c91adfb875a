"""Opening input sources: paths, compressed files, standard input, pipes, bytes.

Every input is read once, front to back, in chunks of bounded size: a plain
regular file is handed to the C reader by path (it reads ranges of it in
parallel); anything else (standard input, a pipe, a device, raw bytes, a
compressed file) is a stream of decompressed chunks, cut into blocks of whole
lines by :func:`line_blocks`. Nothing is read whole into memory, and no line
may be longer than :data:`MAX_LINE_BYTES`.

Compression is recognised by the first bytes of the content, whatever the
name: gzip, bzip2, xz (and lzma), and zstd when the ``zstandard`` package is
installed.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Union

from rankwise.exceptions import InputFormatError, MissingDependencyError

PathLike = Union[str, "os.PathLike[str]"]

#: The longest line (its line end included) a text input may hold: 1 MiB.
MAX_LINE_BYTES = 1 << 20

_CHUNK = 1 << 22  # decompressed bytes per chunk
_RAW_CHUNK = 1 << 20  # bytes read from a file or pipe at a time

_COMPRESSION_BY_SUFFIX = {
    ".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz", ".zst": "zstd", ".zstd": "zstd",
}
#: The file name endings of compressed inputs (``run.tsv.zst`` is a TSV table).
COMPRESSED_SUFFIXES = tuple(_COMPRESSION_BY_SUFFIX)
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_NAMES = {"gzip": "gzip", "bz2": "bzip2", "xz": "xz", "zstd": "zstd"}


class FileView:
    """Read-only, bytes-like access to a regular file without holding it in memory.

    Supports ``len`` and slicing (``view[a:b]`` reads those bytes).
    """

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


def describe(source: object) -> str:
    """Return the name of *source* as error messages show it."""
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else text
    return f"<{type(source).__name__}>"


def compression_of(path: str) -> str | None:
    """Return the compression implied by the file name's suffix, or None."""
    return _COMPRESSION_BY_SUFFIX.get(Path(path).suffix.lower())


def sniff_compression(head: bytes) -> str | None:
    """The compression whose magic bytes start *head*, or None."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return None


def check_readable_path(path: str) -> None:
    """Raise :class:`InputFormatError` unless *path* exists, is not a directory and is readable."""
    if not os.path.exists(path):
        raise InputFormatError("no such file", path)
    if os.path.isdir(path):
        raise InputFormatError("is a directory, expected a file", path)
    if not os.access(path, os.R_OK):
        raise InputFormatError("permission denied", path)


@dataclass
class Source:
    """An opened input: where it is, and its (decompressed) bytes as chunks.

    Attributes
    ----------
    display : str
        The name error messages use (the path, ``<stdin>``, ``<bytes>``).
    path : str or None
        A plain (uncompressed) regular file, which readers may read by ranges.
    size : int
        Its size in bytes (0 for streams).
    compression : str or None
        ``"gzip"``, ``"bz2"``, ``"xz"``, ``"zstd"`` or None.
    """

    display: str
    path: str | None
    size: int
    compression: str | None
    _raw: Callable[[], BinaryIO]
    _prefix: bytes = b""

    def chunks(self, size: int = _CHUNK) -> Iterator[bytes]:
        """The decompressed content, front to back, in chunks of at most about *size* bytes."""
        raw = self._raw()
        try:
            stream = _raw_chunks(raw, self._prefix)
            if self.compression is None:
                yield from stream
            else:
                yield from _decompressed(stream, self.compression, self.display, size)
        except OSError as error:
            raise unreadable(error, self.display) from None
        finally:
            if raw is not getattr(sys.stdin, "buffer", None):  # (None: no standard input)
                raw.close()

    def read_at(self, begin: int, end: int) -> bytes:
        """Bytes ``[begin, end)`` of a plain regular file (:attr:`path`)."""
        if self.path is None:
            raise ValueError("read_at needs a regular file")
        try:
            with open(self.path, "rb") as handle:
                handle.seek(begin)
                return handle.read(max(0, end - begin))
        except OSError as error:
            raise unreadable(error, self.display) from None


def _open(path: str) -> BinaryIO:
    return open(path, "rb")


def _raw_chunks(raw: BinaryIO, prefix: bytes) -> Iterator[bytes]:
    if prefix:
        yield prefix
    while True:
        data = raw.read(_RAW_CHUNK)
        if not data:
            return
        yield data


def unreadable(error: OSError, name: str) -> InputFormatError:
    """The error of a read that failed (an I/O error, a device that refuses reads)."""
    return InputFormatError(f"cannot read it: {error.strerror or error}", name)


def _read_head(raw: BinaryIO, name: str, count: int = 6) -> bytes:
    """The first *count* bytes of a stream (fewer at its end), read without peeking."""
    head = b""
    try:
        while len(head) < count:
            more = raw.read(count - len(head))
            if not more:
                break
            head += more
    except OSError as error:
        raise unreadable(error, name) from None
    return head


@contextmanager
def open_source(source: PathLike | bytes) -> Iterator[Source]:
    """Open *source* (a path, ``"-"`` for standard input, or bytes) for reading once.

    Raises
    ------
    InputFormatError
        When the file does not exist, is a directory, cannot be read, or its
        name promises a compression its content does not have.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        kind = sniff_compression(data[:6])
        yield Source("<bytes>", None, 0, kind, lambda: io.BytesIO(data))
        return
    path = os.fspath(source)
    if path == "-":
        if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
            raise InputFormatError("standard input is closed: give the data on it, or a "
                                   "file name instead of -", "<stdin>")
        stdin = sys.stdin.buffer
        head = _read_head(stdin, "<stdin>")
        yield Source("<stdin>", None, 0, sniff_compression(head), lambda: stdin, head)
        return
    check_readable_path(path)
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        with open(path, "rb") as handle:
            head = _read_head(handle, path)
        kind = sniff_compression(head)
        named = compression_of(path)
        if named is not None and kind != named and not (named == "xz" and head[:1] == b"\x5d"):
            raise InputFormatError(
                f"not {_NAMES[named]} data, though the name ends in {Path(path).suffix} "
                f"(it starts with {head[:2]!r}); rename the file or compress it",
                path,
            )
        if named == "xz" and kind is None:  # the legacy .lzma format has no magic bytes
            kind = "xz"
        if kind is None:
            yield Source(path, path, os.path.getsize(path), None, lambda: _open(path))
        else:
            yield Source(path, None, 0, kind, lambda: _open(path))
        return
    # a pipe or a device (``<(zcat run.gz)``, /dev/stdin): no size, no seeking; read once
    pipe = _open(path)
    try:
        head = _read_head(pipe, path)
        yield Source(path, None, 0, sniff_compression(head), lambda: pipe, head)
    finally:
        pipe.close()


# ------------------------------------------------------------------------------------------
# decompression, in bounded steps (a small bomb cannot fill the memory)


def _decompressor(kind: str) -> Any:
    if kind == "gzip":
        from rankwise.io._inflate import gzip_decompressor

        return gzip_decompressor()
    if kind == "bz2":
        import bz2

        return bz2.BZ2Decompressor()
    if kind == "xz":
        import lzma

        return lzma.LZMADecompressor(lzma.FORMAT_AUTO)
    try:
        import zstandard
    except ImportError:
        raise MissingDependencyError(
            "this input is zstd-compressed: reading it needs the zstandard package "
            "(pip install zstandard), or decompress it first (zstd -d)"
        ) from None
    return _ZstdStep(zstandard.ZstdDecompressor().decompressobj())


class _ZstdStep:
    """zstandard's decompressobj behind the interface of bz2's and lzma's decompressors."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.needs_input = True
        self.unused_data = b""
        self._pending = b""

    @property
    def eof(self) -> bool:
        return bool(self._inner.eof) and not self._pending

    def decompress(self, data: bytes, max_length: int = -1) -> bytes:
        out = self._pending + (self._inner.decompress(data) if data else b"")
        self.unused_data = self._inner.unused_data if self._inner.eof else b""
        if max_length >= 0 and len(out) > max_length:
            self._pending = out[max_length:]
            out = out[:max_length]
        else:
            self._pending = b""
        self.needs_input = not self._pending
        return out


def _decompressed(raw: Iterator[bytes], kind: str, display: str, size: int) -> Iterator[bytes]:
    """Decompress a stream of chunks, *size* bytes of output at a time.

    Concatenated members (``cat a.gz b.gz``) are read in turn, zero padding
    after the last one is allowed; anything else after it, or a stream that
    ends inside a member, is an error.
    """
    name = _NAMES[kind]

    def fail(reason: object) -> InputFormatError:
        return InputFormatError(f"cannot decompress {name} data: {reason}", display)

    step = _decompressor(kind)
    fresh = True  # nothing given to this member's decompressor yet
    carry = b""  # input not yet given to a decompressor
    for data in raw:
        carry = carry + data if carry else data
        while True:
            if step.eof:  # between members
                if not carry.strip(b"\x00"):
                    carry = b""
                    break
                if len(carry) < 6:
                    break  # too short to tell: wait for more
                if sniff_compression(carry[:6]) != kind:
                    raise fail("other data follows the end of the compressed stream")
                step, fresh = _decompressor(kind), True
            if not carry and step.needs_input:
                break
            try:
                out = step.decompress(carry, size)
            except Exception as error:  # zlib.error, OSError, LZMAError, ZstdError
                raise fail(error) from None
            carry, fresh = b"", False
            if out:
                yield out
            if step.eof:
                carry = step.unused_data
    while not step.eof and not step.needs_input:  # what the decompressor still holds
        try:
            out = step.decompress(b"", size)
        except Exception as error:
            raise fail(error) from None
        if not out:
            break
        yield out
    if not fresh and not step.eof:
        raise fail("the compressed stream ends early (the file is truncated)")
    if carry.strip(b"\x00"):
        raise fail("other data follows the end of the compressed stream")


# ------------------------------------------------------------------------------------------
# whole lines


class LineTooLong(Exception):  # noqa: N818 (a signal between the splitter and its reader)
    """A line longer than the limit: *head* holds its first bytes (up to the limit and more)."""

    def __init__(self, head: bytes) -> None:
        super().__init__("line too long")
        self.head = head


def line_blocks(
    chunks: Iterator[bytes], block_size: int, max_line: int = MAX_LINE_BYTES
) -> Iterator[bytes | memoryview]:
    """Cut a stream of chunks into blocks of whole lines, each about *block_size* bytes or more.

    Every block but the last ends with a line feed. A chunk of half *block_size*
    or more is not copied: its whole lines come as a :class:`memoryview` of it,
    after a small block (bytes) that ends the line cut by its start; smaller
    chunks are joined into blocks of bytes. Raises :class:`LineTooLong` (after
    yielding every whole line before it) when a line holds more than *max_line*
    bytes without a line feed.
    """
    parts: list[bytes | memoryview] = []  # whole lines
    size = 0
    tail: list[bytes] = []  # the line being read
    tail_size = 0
    for chunk in chunks:
        cut = chunk.rfind(b"\n")
        if cut == -1:
            tail.append(chunk)
            tail_size += len(chunk)
            if tail_size > max_line:
                if parts:
                    yield b"".join(parts)
                raise LineTooLong(b"".join(tail)[: max_line + 1])
            continue
        view = memoryview(chunk)
        if len(chunk) * 2 >= block_size:  # large: its lines as they are, the seam joined
            first = chunk.find(b"\n")
            block = b"".join([*parts, *tail, view[: first + 1]])
            parts, size = [], 0  # the joined chunks let go before the block is read,
            yield block
            del block  # and the block before the next is joined
            if cut > first:
                yield view[first + 1 : cut + 1]
        else:
            parts.extend(tail)
            parts.append(view[: cut + 1])
            size += tail_size + cut + 1
            if size >= block_size:
                block = b"".join(parts)
                parts, size = [], 0
                yield block
                del block
        rest = chunk[cut + 1 :]
        tail, tail_size = ([rest], len(rest)) if rest else ([], 0)
        if tail_size > max_line:
            if parts:
                yield b"".join(parts)
            raise LineTooLong(rest[: max_line + 1])
    parts.extend(tail)
    if parts:
        yield b"".join(parts)
