"""A column of strings as Arrow lays them out, held without importing pyarrow.

The C reader writes document ids as Arrow string buffers (int32 offsets and
UTF-8 bytes), range by range. Kept as numpy views of those buffers, they need
no pyarrow until someone asks for an Arrow array; the engine reads the
buffers directly. Arrow columns and these columns are read alike through
:func:`string_chunks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Union

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["StringChunk", "StringColumn", "StringsLike", "string_chunks", "to_arrow"]


@dataclass(frozen=True)
class StringChunk:
    """One chunk: ``length`` strings, string ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""

    length: int
    offsets: np.ndarray  # int32, length + 1
    data: np.ndarray  # uint8

    def as_buffers(self) -> tuple[int, np.ndarray, np.ndarray, int]:
        """``(length, offsets, data, offset)`` as the C modules take an Arrow chunk."""
        return self.length, self.offsets, self.data, 0


class StringColumn:
    """Strings in chunks of Arrow string layout, without pyarrow.

    Examples
    --------
    >>> column = StringColumn.from_strings(["d1", "d22", ""])
    >>> len(column), column.to_pylist()
    (3, ['d1', 'd22', ''])
    >>> column.to_arrow().to_pylist()
    ['d1', 'd22', '']
    """

    __slots__ = ("_arrow", "_chunks", "_length")

    def __init__(self, chunks: list[StringChunk]) -> None:
        self._chunks = [chunk for chunk in chunks if chunk.length]
        self._length = sum(chunk.length for chunk in self._chunks)
        self._arrow: pa.ChunkedArray | None = None

    @classmethod
    def from_buffers(cls, pieces: list[tuple[int, Any, Any]]) -> StringColumn:
        """A column from ``(length, offsets buffer, data buffer)`` pieces (no copy)."""
        return cls(
            [
                StringChunk(
                    length,
                    np.frombuffer(offsets, dtype=np.int32, count=length + 1),
                    np.frombuffer(data, dtype=np.uint8),
                )
                for length, offsets, data in pieces
            ]
        )

    @classmethod
    def from_strings(cls, values: list[str]) -> StringColumn:
        """A one-chunk column holding *values* (encoded as UTF-8)."""
        encoded = [value.encode("utf-8") for value in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(value) for value in encoded], out=offsets[1:])
        if offsets[-1] > np.iinfo(np.int32).max:
            raise ValueError("strings longer than 2 GiB in all: too long for one chunk")
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls([StringChunk(len(encoded), offsets.astype(np.int32), data)])

    @property
    def chunks(self) -> list[StringChunk]:
        """The chunks (none empty)."""
        return list(self._chunks)

    def __len__(self) -> int:
        return self._length

    def to_arrow(self) -> pa.ChunkedArray:
        """The column as a pyarrow ChunkedArray of strings (no copy; made once)."""
        if self._arrow is None:
            import pyarrow as pa

            arrays = [
                pa.Array.from_buffers(
                    pa.string(),
                    chunk.length,
                    [None, pa.py_buffer(chunk.offsets), pa.py_buffer(chunk.data)],
                )
                for chunk in self._chunks
            ]
            self._arrow = pa.chunked_array(arrays, type=pa.string())
        return self._arrow

    def to_pylist(self) -> list[str]:
        """The strings as a list."""
        out: list[str] = []
        for chunk in self._chunks:
            raw = chunk.data.tobytes()
            out.extend(raw[a:b].decode("utf-8") for a, b in pairwise(chunk.offsets.tolist()))
        return out


StringsLike = Union["pa.ChunkedArray", StringColumn]


def string_chunks(column: StringsLike) -> list[StringChunk]:
    """The chunks of a StringColumn or of an Arrow string column, as numpy views."""
    if isinstance(column, StringColumn):
        return column.chunks
    out = []
    for chunk in column.chunks:
        length = len(chunk)
        if not length:
            continue
        _, offsets, data = chunk.buffers()
        out.append(
            StringChunk(
                length,
                np.frombuffer(offsets, dtype=np.int32, count=length + 1, offset=chunk.offset * 4),
                np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8),
            )
        )
    return out


def to_arrow(column: StringsLike) -> pa.ChunkedArray:
    """*column* as a pyarrow ChunkedArray."""
    return column.to_arrow() if isinstance(column, StringColumn) else column
