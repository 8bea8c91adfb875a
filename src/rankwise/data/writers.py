"""Writing judgments and runs: TREC text and Parquet, read back to equal objects.

A run is written in trec_eval's order (per query, score descending, ties by
document id descending) with ranks 1, 2, ...; scores are written in the
shortest text that reads back to the same float64, so reading the file gives
the same run. Query and document ids that TREC text cannot hold (empty, or
with a space, tab, line end, vertical tab, form feed or NUL, and query ids
starting with ``#``, which readers take for a comment line, or a byte order
mark) are refused with the row that holds them.
Files are written atomically (:func:`rankwise._files.write_file`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["qrels_to_trec", "run_to_trec", "to_pandas", "to_parquet"]


def _check_ids(column: pa.Array, what: str, *, first: bool = False) -> None:
    """Refuse an id TREC text cannot hold; *first*: the line's first field (a query id).

    A line whose first field starts with ``#`` is a comment to the readers (rankwise's,
    and most tools'): a query id written there would be lost when the file is read.
    """
    import pyarrow.compute as pc

    # the bytes the readers (and trec_eval's isspace) take for a separator or a line end,
    # and NUL (binary data)
    separators = r"[\t\n\v\f\r \x00]"
    pattern = separators + "|^#|^\ufeff" if first else separators
    bad = pc.or_(pc.equal(pc.utf8_length(column), 0), pc.match_substring_regex(column, pattern))
    if pc.any(bad).as_py():
        row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
        rule = ("ids there are non-empty and hold no space, tab, line end, vertical tab, form "
                "feed or NUL"
                + (", and a query id does not start with '#' (a comment line) or a byte order "
                   "mark" if first else ""))
        raise InvalidParameterError(
            f"{what} {column[row].as_py()!r} (row {row + 1}) cannot be written as TREC text: "
            f"{rule}; use to_parquet"
        )


def _numbers_as_text(values: np.ndarray) -> pa.Array:
    """Each float64 as the shortest text that reads back to it (``2`` for 2.0, ``0.1``)."""
    import pyarrow as pa

    return pa.array(np.asarray(values, dtype=np.float64)).cast(pa.string())


def _constant(text: str, n: int) -> pa.Array:
    import pyarrow as pa

    return pa.array([text], pa.string()).take(pa.array(np.zeros(n, dtype=np.int64)))


def _join_lines(columns: list[pa.Array]) -> bytes:
    """The columns joined by spaces, one line per row: built in Arrow, no loop per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(columns[0])
    if n == 0:
        return b""
    newline = _constant("\n", n)
    last = pc.binary_join_element_wise(columns[-1], newline, "")
    lines = pc.binary_join_element_wise(*columns[:-1], last, " ")
    lines = lines.cast(pa.large_string()) if not isinstance(lines, pa.LargeStringArray) else lines
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset:lines.offset + n + 1]
    data = lines.buffers()[2]
    return bytes(memoryview(data)[int(offsets[0]):int(offsets[-1])])


def run_to_trec(table: pa.Table, path: str | os.PathLike[str], *, run_id: str) -> None:
    """Write a run's table as a TREC run file ``qid Q0 docno rank score run_id``.

    Parameters
    ----------
    table : pyarrow.Table
        The run's columns ``query_id, doc_id, score`` (:meth:`Run.to_arrow`).
    path : path
        The file (written atomically).
    run_id : str
        The last column (the run's name, or the one the caller chose).

    Raises
    ------
    InvalidParameterError
        An id or the run id cannot be written as TREC text.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise._files import write_file

    tag = run_id
    if not tag or any(char.isspace() or char == "\x00" for char in tag):
        raise InvalidParameterError(
            f"run id {tag!r} cannot be written as TREC text: give run_id= without spaces "
            "(or NUL)"
        )
    _check_ids(table["query_id"].combine_chunks(), "query id", first=True)
    _check_ids(table["doc_id"].combine_chunks(), "document id")
    order = pc.sort_indices(
        pa.table({
            "q": table["query_id"].cast(pa.binary()),
            "s": table["score"],
            "d": table["doc_id"].cast(pa.binary()),
        }),
        sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")],
    )
    ordered = table.take(order)
    queries = ordered["query_id"].combine_chunks()
    codes = pc.not_equal(queries[1:], queries[:-1]).to_numpy(zero_copy_only=False) if len(
        queries) else np.zeros(0, dtype=bool)
    starts = np.concatenate(([0], np.flatnonzero(codes) + 1)) if len(queries) else np.zeros(0)
    position = np.arange(len(queries))
    rank = position - np.repeat(starts, np.diff(np.append(starts, len(queries)))) + 1
    n = len(queries)
    columns = [
        queries,
        _constant("Q0", n),
        ordered["doc_id"].combine_chunks(),
        pa.array(rank.astype(np.int64)).cast(pa.string()),
        _numbers_as_text(ordered["score"].to_numpy()),
        _constant(tag, n),
    ]
    write_file(_join_lines(columns), path)


def qrels_to_trec(table: pa.Table, path: str | os.PathLike[str]) -> None:
    """Write judgments' table as a TREC qrels file ``qid 0 docno grade`` (grades as read).

    *table* holds the columns ``query_id, doc_id, relevance`` (and ``subtopic``
    for diversity judgments, written ``qid subtopic docno grade``: ndeval's
    format), as :meth:`Qrels.to_arrow` gives them.
    """
    from rankwise._files import write_file

    _check_ids(table["query_id"].combine_chunks(), "query id", first=True)
    _check_ids(table["doc_id"].combine_chunks(), "document id")
    n = table.num_rows
    if "subtopic" in table.column_names:
        _check_ids(table["subtopic"].combine_chunks(), "subtopic")
    columns = [
        table["query_id"].combine_chunks(),
        table["subtopic"].combine_chunks() if "subtopic" in table.column_names
        else _constant("0", n),
        table["doc_id"].combine_chunks(),
        _numbers_as_text(table["relevance"].to_numpy()),
    ]
    write_file(_join_lines(columns), path)


def to_parquet(table: pa.Table, path: str | os.PathLike[str]) -> None:
    """Write an Arrow table as Parquet, atomically."""
    import io

    import pyarrow.parquet as pq

    from rankwise._files import write_file

    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    write_file(buffer.getvalue(), path)


def to_pandas(table: pa.Table) -> Any:
    """An Arrow table as a pandas DataFrame (ids as Python strings, numbers as numpy)."""
    from rankwise.exceptions import MissingDependencyError

    try:
        import pandas  # noqa: F401
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("to_pandas needs pandas: pip install 'rankwise[pandas]'") \
            from error
    return table.to_pandas()
