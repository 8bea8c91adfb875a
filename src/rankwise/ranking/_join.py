"""Which rows of a string column hold one of a set of strings, and which one.

The run's document ids against the judged ones: the join every evaluation
starts with. The C module :mod:`rankwise.ranking._cjoin` (optional, compiled
at install time) hashes the set once and probes it from every row of the
column's Arrow buffers; without it, pyarrow's ``index_in`` gives the same
answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads
from rankwise.data._strings import StringColumn, StringsLike, string_chunks, to_arrow

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["find_strings", "native_chunks"]


_cjoin = load("rankwise.ranking._cjoin")


def _native() -> Any:
    return _cjoin if enabled() else None


def _is_large(column: StringsLike) -> bool:
    """Whether an Arrow column holds large (64-bit offset) strings."""
    if isinstance(column, StringColumn):
        return False
    import pyarrow as pa

    return not pa.types.is_string(column.type)


def native_chunks(column: StringsLike, values: StringsLike) -> tuple[Any, list[Any], Any] | None:
    """The C module and the buffers of *column* and *values* (one chunk), or None.

    None when the C module is not built or turned off, or a column holds
    large (64-bit offset) strings, or *values* is not one chunk: the caller
    then takes the general road.
    """
    native = _native()
    if native is None or _is_large(column) or not hasattr(values, "chunks") or \
            _is_large(values):
        return None
    value_chunks = string_chunks(values)
    if len(value_chunks) != 1:
        return None
    return native, [chunk.as_buffers() for chunk in string_chunks(column)], \
        value_chunks[0].as_buffers()


def find_strings(column: StringsLike, values: StringsLike) -> tuple[np.ndarray, np.ndarray]:
    """Rows of *column* whose string is in *values*, and its index there.

    Parameters
    ----------
    column : pyarrow.ChunkedArray of string, or StringColumn; without nulls
        For example the run's document ids.
    values : pyarrow.ChunkedArray or Array of string, or StringColumn; without nulls
        The strings looked for; a string given twice matches its first index.

    Returns
    -------
    rows : ndarray of int64
        The matching rows, increasing.
    codes : ndarray of int64
        For each, the index of its string in *values*.

    Examples
    --------
    >>> import pyarrow as pa
    >>> rows, codes = find_strings(pa.chunked_array([["d3", "d1", "d9"]]), pa.array(["d1", "d3"]))
    >>> rows.tolist(), codes.tolist()
    ([0, 1], [1, 0])
    """
    if not isinstance(values, StringColumn) and not hasattr(values, "chunks"):
        import pyarrow as pa

        values = pa.chunked_array([values])
    if len(values) == 0 or len(column) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if _native() is not None and not _is_large(values) and len(string_chunks(values)) != 1:
        import pyarrow as pa  # the C module takes the values as one chunk: joined by Arrow

        values = pa.chunked_array([to_arrow(values).combine_chunks()])
    buffers = native_chunks(column, values)
    if buffers is None:
        return _index_in(to_arrow(column), to_arrow(values).combine_chunks())
    native, chunks, wanted = buffers
    parts = _split(chunks, _threads(len(column)))
    results: list[Any] = [None] * len(parts)

    def work(index: int) -> None:
        part = parts[index]
        total = sum(chunk[0] for chunk in part)
        rows = np.empty(total, dtype=np.int64)
        codes = np.empty(total, dtype=np.int32)
        found = native.find(part, wanted, rows, codes)
        results[index] = (rows[:found].copy(), codes[:found].astype(np.int64))

    run_threads(work, len(parts))
    base = 0
    for index, part in enumerate(parts):
        results[index][0][:] += base
        base += sum(chunk[0] for chunk in part)
    if len(results) == 1:
        only: tuple[np.ndarray, np.ndarray] = results[0]
        return only
    return (
        np.concatenate([rows for rows, _ in results]),
        np.concatenate([codes for _, codes in results]),
    )


_ROWS_PER_THREAD = 1 << 20


def _threads(rows: int) -> int:
    """Threads worth starting for *rows* rows (one per core, a million rows each at least)."""
    return max(1, min(cores(), 8, rows // _ROWS_PER_THREAD))


def _split(chunks: list[Any], parts: int) -> list[list[Any]]:
    """Consecutive groups of chunks with about equal numbers of rows."""
    if parts <= 1 or len(chunks) <= 1:
        return [chunks]
    total = sum(chunk[0] for chunk in chunks)
    groups: list[list[Any]] = [[]]
    seen = 0
    for chunk in chunks:
        if seen >= total * len(groups) / parts and len(groups) < parts:
            groups.append([])
        groups[-1].append(chunk)
        seen += chunk[0]
    return [group for group in groups if group]


def _index_in(column: pa.ChunkedArray, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Match with ``pyarrow.compute.index_in``, read without ``to_numpy`` (it imports pandas)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    codes = pc.index_in(column, value_set=values)
    chunks = codes.chunks if isinstance(codes, pa.ChunkedArray) else [codes]
    rows, found = [], []
    at = 0
    for chunk in chunks:
        n = len(chunk)
        if n and chunk.null_count < n:
            indices = np.frombuffer(
                chunk.buffers()[1], dtype=np.int32, count=n, offset=chunk.offset * 4
            )
            if chunk.null_count:
                bits = np.frombuffer(chunk.buffers()[0], dtype=np.uint8)
                valid = np.unpackbits(bits, bitorder="little")[chunk.offset : chunk.offset + n]
                local = np.flatnonzero(valid)
            else:
                local = np.arange(n)
            rows.append(local + at)
            found.append(indices[local].astype(np.int64))
        at += n
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows), np.concatenate(found)
