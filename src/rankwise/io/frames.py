"""Runs from data frames at C speed: pyarrow tables, pandas and polars frames.

The general path (:func:`rankwise.io.tables.run_from_table`) converts a frame
to an Arrow table, interns the query ids with pyarrow and checks duplicates
with a sort. This path reads the columns where they are: Arrow string,
large_string and string_view buffers (pyarrow, polars, pandas' Arrow-backed
strings) and numpy object arrays of ``str`` (pandas' object columns), with
the C module :mod:`rankwise.io._ccolumns`, which cuts the rows into blocks of
one query, checks each block for a document listed twice and notes whether
the run is in rank order, in one pass. No Python loop per row, and pandas'
object columns are never converted to Arrow by pyarrow.

It reads only what it is sure of and returns None otherwise (the C module is
not built, a column is missing values or holds something other than text,
a document is listed twice, a score is not finite): the general path then
reads the frame, with the same values and the precise error messages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from rankwise._compiled import enabled, load
from rankwise.data import Run
from rankwise.data._arrow import as_string_chunks, numbers_to_numpy
from rankwise.data._strings import StringColumn

__all__ = ["run_from_frame"]

_ccolumns = load("rankwise.io._ccolumns")
_LOG = logging.getLogger("rankwise.io")

Pick = Callable[[list[str]], tuple[str, str, str]]


def _native() -> Any:
    return _ccolumns if enabled() else None


def run_from_frame(
    frame: Any, pick: Pick, *, name: str = "run", source: str = "<table>",
    locate: Callable[[int], int] | None = None,
) -> Run | None:
    """A run from a pyarrow table, pandas or polars frame, or None (take the general path).

    Parameters
    ----------
    frame : pyarrow.Table, pyarrow.RecordBatch, pandas.DataFrame or polars.DataFrame
        The run, one row per (query, document).
    pick : callable
        Given the column names, the names of the query, document and score
        columns (raising :class:`~rankwise.exceptions.InputFormatError` when
        one is missing).
    name, source : str
        The run's name, and where it came from (for messages).
    locate : callable, optional
        The line of a row in its file (a table read from a CSV, TSV or JSONL
        file), for messages; by default rows are numbered from 1.

    Returns
    -------
    Run or None

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
    ...                   "score": [2.0, 1.0, 0.5]})
    >>> run = run_from_frame(table, lambda names: ("query_id", "doc_id", "score"))
    >>> run, run.rank_order_blocks.tolist()  # doctest: +SKIP
    (Run('run', 2 queries, 3 rows), [0, 2])
    """
    native = _native()
    if native is None:
        return None
    columns = _columns(frame, pick)
    if columns is None:
        return None
    query_column, doc_column, score_column = columns
    queries, _ = _source(native, query_column)
    docs, doc_arrow = _source(native, doc_column)
    scores = _scores(score_column)
    if queries is None or docs is None or scores is None:
        return None
    if len(scores) == 0:
        return None
    copy_docs = docs[0] != native.STRING
    read = native.run_table(queries[:2], docs[:2], scores, copy_docs)
    if isinstance(read, str):
        _LOG.debug("%s: general table reader (%s)", source, read)
        return None
    names, starts, codes, split, pieces, descending = read
    starts = np.frombuffer(starts, dtype=np.int64)
    codes = np.frombuffer(codes, dtype=np.int32)
    doc_ids = StringColumn.from_buffers(pieces) if copy_docs else doc_arrow
    grouped = len(starts) == len(names)
    run = Run(
        None,
        names,
        doc_ids,
        scores,
        name=name,
        source=source,
        locate=locate,
        rank_order_blocks=starts if grouped and descending else None,
        segments=(starts, codes),
    )
    if split:  # a query in several blocks: each block was checked, not their union
        ends = np.append(starts[1:], len(scores))
        several = np.isin(codes, np.array(split, dtype=np.int32))
        lengths = (ends - starts)[several]
        rows = np.repeat(starts[several] - (np.cumsum(lengths) - lengths), lengths) + np.arange(
            int(lengths.sum()), dtype=np.int64
        )
        run.check_duplicates(rows)
    return run


def _columns(frame: Any, pick: Pick) -> tuple[Any, Any, Any] | None:
    """The query, document and score columns: Arrow columns or pandas Series."""
    import pyarrow as pa

    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        names = pick(frame.column_names)
        return frame[names[0]], frame[names[1]], frame[names[2]]
    module = type(frame).__module__.split(".")[0]
    if module == "polars" and hasattr(frame, "select"):
        names = pick(list(frame.columns))
        picked = frame.select(list(names))
        try:
            import polars as pl

            table = picked.to_arrow(compat_level=pl.CompatLevel.newest())  # views: no copy
        except (AttributeError, TypeError):
            table = picked.to_arrow()
        return table.column(0), table.column(1), table.column(2)
    if module == "pandas" and hasattr(frame, "columns") and hasattr(frame, "iloc"):
        column_names = [str(column) for column in frame.columns]
        if len(set(column_names)) != len(column_names):
            return None
        names = pick(column_names)
        by_name = dict(zip(column_names, frame.columns))
        return frame[by_name[names[0]]], frame[by_name[names[1]]], frame[by_name[names[2]]]
    return None


def _is_pandas(column: Any) -> bool:
    return type(column).__module__.split(".")[0] == "pandas"


Source = tuple[int, list[Any], Any]  # kind, chunks, the object holding their memory


def _source(native: Any, column: Any) -> tuple[Source | None, Any]:
    """What the C module reads of an id column, and the column as Arrow strings if it is."""
    import pyarrow as pa

    none = None, None
    if _is_pandas(column):
        dtype = column.dtype
        numpy_objects = isinstance(dtype, np.dtype) and dtype.kind == "O"
        if numpy_objects or getattr(dtype, "storage", None) == "python":
            items = np.ascontiguousarray(column.to_numpy(dtype=object))
            return (native.OBJECTS, [(len(items), items.ctypes.data)], items), None
        try:
            column = pa.array(column)
        except (pa.ArrowException, TypeError, ValueError):
            return none
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if not isinstance(column, pa.ChunkedArray) or column.null_count:
        return none
    kinds = {
        pa.string(): native.STRING,
        pa.large_string(): native.LARGE_STRING,
    }
    if hasattr(pa, "string_view"):
        kinds[pa.string_view()] = native.STRING_VIEW
    kind = kinds.get(column.type)
    if kind is None:
        try:
            column = as_string_chunks(column, "id")  # integers, dictionaries, ... as text
        except Exception:  # the general path reports it
            return none
        kind = native.STRING
    try:  # Arrow strings read from files may hold invalid UTF-8: the general path names the row
        column.validate(full=True)
    except pa.ArrowInvalid:
        return none
    chunks = []
    for chunk in column.chunks:
        if len(chunk) == 0:
            continue
        buffers = chunk.buffers()
        data = [buffer if buffer is not None else b"" for buffer in buffers[2:]]
        if kind != native.STRING_VIEW and not data:
            data = [b""]
        chunks.append((len(chunk), buffers[1], data, chunk.offset))
    return (kind, chunks, column), (column if kind == native.STRING else None)


def _scores(column: Any) -> np.ndarray | None:
    """The scores as one contiguous float64 array, or None."""
    import pyarrow as pa

    if _is_pandas(column):
        if column.dtype.kind in "fiu":  # a copy: the frame may change, the run may not
            return np.array(column.to_numpy(dtype=np.float64), dtype=np.float64)
        try:
            column = pa.array(column)
        except (pa.ArrowException, TypeError, ValueError):
            return None
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if (
        not isinstance(column, pa.ChunkedArray)
        or column.null_count
        or not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type))
    ):
        return None
    return np.ascontiguousarray(numbers_to_numpy(column))
