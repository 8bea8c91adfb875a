"""Which rows of a string column hold one of a set of strings, and which one.

The run's document ids against the judged ones: the join every evaluation
starts with. The C module :mod:`rankwise.kernels._cjoin` (optional, compiled
at install time) hashes the set once and probes it from every row of the
column's Arrow buffers; without it, pyarrow's ``index_in`` gives the same
answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["find_strings"]


_cjoin = load("rankwise.kernels._cjoin")


def _native() -> Any:
    return _cjoin if enabled() else None


def _buffers(array: pa.Array) -> tuple[int, Any, Any, int]:
    """An Arrow string array as (length, offsets, data, offset) for the C module."""
    _, offsets, data = array.buffers()
    return len(array), offsets, data if data is not None else b"", array.offset


def find_strings(column: pa.ChunkedArray, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Rows of *column* whose string is in *values*, and its index there.

    Parameters
    ----------
    column : pyarrow.ChunkedArray of string, without nulls
        For example the run's document ids.
    values : pyarrow.Array of string, without nulls
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
    import pyarrow as pa

    native = _native()
    if native is None or not all(
        pa.types.is_string(array.type) for array in (values, *column.chunks)
    ):
        return _index_in(column, values)
    chunks = [_buffers(chunk) for chunk in column.chunks]
    wanted = _buffers(values)
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
        return results[0]
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
