"""Columns of TREC text, piece by piece: the C reader's pieces and the general reader's.

:mod:`rankwise.io._ctrec` (optional, compiled at install time) parses the
lines that start in a byte range of a file (read block by block with
``pread``) or of a buffer, with the GIL released. A plain file is cut into
ranges parsed on a few threads at once; a stream (standard input, a pipe, a
compressed file) is cut into blocks of whole lines, parsed while the next
ones are read. Each range or block becomes a :class:`Piece`; where the C
reader declines a piece (a :class:`Declined` saying why and at which line),
the general reader (:mod:`rankwise.io.trec`) parses that piece alone.
:func:`merge` joins the pieces into the columns of the whole input: the
blocks of lines of each query (first row, query), the document ids (an Arrow
string column; qrels: interned codes), the scores or grades, the rows the
duplicate check still has to look at, whether the run is in rank order, and
where each row's line is.

Set the environment variable ``RANKWISE_NO_C=1`` to turn the C reader off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads
from rankwise.data._names import merge_codes
from rankwise.data._rows import LineMap
from rankwise.data._strings import StringChunk, StringColumn

__all__ = ["Declined", "FastColumns", "Piece", "ValueJoiner", "available", "merge",
           "parse_block", "parse_file_ranges", "range_bounds"]

_RANGE_BYTES = 16 << 20  # bytes per parsing task of a plain file
_MAX_THREADS = 8


_ctrec = load("rankwise.io._ctrec")


def available() -> bool:
    """Whether the C reader is built and not turned off (``RANKWISE_NO_C=1``)."""
    return _ctrec is not None and enabled()


class Declined(NamedTuple):
    """The C reader declined a piece: why, and the input offset of the line it stopped at."""

    reason: str
    offset: int


@dataclass
class Piece:
    """The rows of one range or block of lines.

    Attributes
    ----------
    rows : int
        Data rows.
    names : list of str
        Distinct query ids of the piece; *segment_codes* index them.
    segment_rows, segment_codes : ndarrays of int64 and int32
        The first row of each block of consecutive lines of one query, and its query.
    values : ndarray of float64
        Per row, the score or the grade.
    docs, ranks : lists of StringChunk
        Runs: per row, the document id and (kept ranks) the rank field.
    doc_codes, doc_names : ndarray of int32 and list of str, or None
        Qrels: per row, the index of its document in *doc_names*.
    descending : bool
        Runs: scores never rise within a block of one query.
    checked : bool
        Each block of one query was checked for a repeated document.
    skips : ndarray of int64, shape (k, 2)
        ``(row, lines skipped so far)`` where the count of skipped (blank,
        comment) lines changes: row ``r`` is on local line
        ``r + 1 + skipped before it``.
    lines : int
        Lines that start in the piece.
    run_id : bytes or None
        Runs: the run id field of its last row.
    """

    rows: int
    names: list[str]
    segment_rows: np.ndarray
    segment_codes: np.ndarray
    values: np.ndarray
    docs: list[StringChunk]
    ranks: list[StringChunk] | None
    doc_codes: np.ndarray | None
    doc_names: list[str] | None
    descending: bool
    checked: bool
    skips: np.ndarray
    lines: int
    run_id: bytes | None


def _piece(result: tuple[Any, ...], run: bool, keep_rank: bool,
           read: Callable[[int, int], bytes]) -> Piece:
    """A piece from what the C reader returned (*read* gives input bytes for the run id)."""
    (rows, names, segment_rows, segment_codes, values, doc_offsets, doc_data, rank_offsets,
     rank_data, doc_codes, doc_names, descending, skips, lines, runid_at, runid_length) = result

    def chunk(offsets: Any, data: Any) -> list[StringChunk]:
        return [StringChunk(rows, np.frombuffer(offsets, dtype=np.int32, count=rows + 1),
                            np.frombuffer(data, dtype=np.uint8))] if rows else []

    return Piece(
        rows=rows,
        names=names,
        segment_rows=np.frombuffer(segment_rows, dtype=np.int64),
        segment_codes=np.frombuffer(segment_codes, dtype=np.int32),
        values=np.frombuffer(values, dtype=np.float64, count=rows),
        docs=chunk(doc_offsets, doc_data) if run else [],
        ranks=chunk(rank_offsets, rank_data) if run and keep_rank else None,
        doc_codes=None if run else np.frombuffer(doc_codes, dtype=np.int32, count=rows),
        doc_names=doc_names,
        descending=bool(descending),
        checked=True,
        skips=np.frombuffer(skips, dtype=np.int64).reshape(-1, 2),
        lines=lines,
        run_id=read(runid_at, runid_length) if run and rows else None,
    )


def _layout(kind: str) -> int:
    assert _ctrec is not None
    return int(_ctrec.RUN if kind == "run" else _ctrec.QRELS)


def parse_block(block: bytes | memoryview, kind: str, *, keep_rank: bool = False,
                integer_grades: bool = False, max_line: int | None = None) -> Piece | Declined:
    """Parse a block of whole lines (``kind="run"`` or ``"qrels"``) with the C reader."""
    assert _ctrec is not None
    limit = _ctrec.MAX_LINE if max_line is None else max_line
    result = _ctrec.parse(block, 0, len(block), _layout(kind), keep_rank, integer_grades, limit)
    if len(result) == 2:
        return Declined(*result)
    return _piece(result, kind == "run", keep_rank, lambda at, n: bytes(block[at : at + n]))


def range_bounds(size: int) -> list[int]:
    """The offsets where the ranges of a plain file of *size* bytes begin, and its end."""
    count = max(1, -(-size // _RANGE_BYTES))
    return [size * i // count for i in range(count + 1)]


def parse_file_ranges(path: str, size: int, kind: str, *, keep_rank: bool = False,
                      integer_grades: bool = False,
                      max_line: int | None = None) -> list[Piece | Declined]:
    """Parse a plain file in ranges (:func:`range_bounds`), on up to one thread per core.

    Returns a piece, or why the C reader declined it, per range, in file order.
    """
    assert _ctrec is not None
    limit = _ctrec.MAX_LINE if max_line is None else max_line
    bounds = range_bounds(size)
    count = len(bounds) - 1
    results: list[Piece | Declined | None] = [None] * count
    lock = threading.Lock()
    state = {"next": 0}
    layout = _layout(kind)

    def read(at: int, n: int) -> bytes:
        with open(path, "rb") as again:
            again.seek(at)
            return again.read(n)

    with open(path, "rb") as handle:
        descriptor = handle.fileno()

        def work(_: int) -> None:
            while True:
                with lock:
                    index = state["next"]
                    if index >= count:
                        return
                    state["next"] = index + 1
                result = _ctrec.parse(descriptor, bounds[index], bounds[index + 1], layout,
                                      keep_rank, integer_grades, limit)
                results[index] = (Declined(*result) if len(result) == 2
                                  else _piece(result, kind == "run", keep_rank, read))

        run_threads(work, min(count, cores(), _MAX_THREADS))
    return [result for result in results if result is not None]


# ------------------------------------------------------------------------------------------
# the whole input


@dataclass(frozen=True)
class FastColumns:
    """The columns of a TREC file, all pieces joined.

    Attributes
    ----------
    segment_starts, segment_codes : ndarrays of int64 and int32
        The rows where a block of lines of one query starts, and the index
        of its query in *query_ids* (a query may own several blocks).
    query_ids : list of str
        Distinct query ids in order of first appearance.
    doc_ids : StringColumn or None
        Runs: per row, the document id (Arrow's layout, no pyarrow needed).
    doc_codes, doc_names : ndarray of int32 and list of str, or None
        Qrels: per row, the index of its document in *doc_names*, the
        distinct document ids in order of first appearance.
    values : ndarray of float64
        Per row, the score (runs) or the grade (qrels).
    ranks : StringColumn or None
        Per row, the rank field as text (runs read with ``keep_rank``).
    unchecked_rows : ndarray of int64, or None
        Rows the check for a document listed twice still has to look at
        (queries whose lines are split over several blocks, pieces the
        general reader parsed). None when that is a large part of the
        input (queries interleave): every row is to be checked.
    sorted_blocks : ndarray of int64 or None
        Runs in rank order (each query's lines together, scores never rising
        within them): the first row of each query's block. None otherwise.
    lines : LineMap
        The line of each row.
    run_id : str
        Runs: the run id of the last row.
    """

    segment_starts: np.ndarray
    segment_codes: np.ndarray
    query_ids: list[str]
    doc_ids: StringColumn | None
    doc_codes: np.ndarray | None
    doc_names: list[str] | None
    values: np.ndarray
    ranks: StringColumn | None
    unchecked_rows: np.ndarray | None
    sorted_blocks: np.ndarray | None
    lines: LineMap
    run_id: str

    @property
    def interleaved(self) -> bool:
        """Whether the blocks are many (one per 8 rows or more): codes per row are cheaper."""
        return len(self.segment_starts) * 8 > len(self.values)

    @property
    def query_codes(self) -> np.ndarray:
        """Per row, the index of its query in *query_ids* (int32)."""
        lengths = np.diff(np.append(self.segment_starts, len(self.values)))
        return np.repeat(self.segment_codes.astype(np.int32), lengths)


class ValueJoiner:
    """A stream's values joined into one array as its pieces come, in order, on a thread.

    :func:`merge` copies every piece's values into fresh memory once the last
    piece is read. A stream's pieces come while the rest of it is still being
    decompressed, so the joiner copies them then, on a thread of its own,
    each piece's values dropped once copied: the end of the read waits for
    the last piece only. The joined memory grows in place (``realloc``:
    pages are moved, never copied again). Needs the C reader.
    """

    def __init__(self) -> None:
        self._first: Piece | None = None  # held until a second piece comes: one is not copied
        self._block: Any = None
        self._rows = 0
        self._pool: Any = None
        self._error: BaseException | None = None

    def add(self, piece: Piece) -> None:
        """Join *piece*'s values after those of the pieces added before it."""
        if not piece.rows:
            return
        if self._first is None and self._pool is None:
            self._first = piece
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankwise-join")
            first, self._first = self._first, None
            self._pool.submit(self._append, first)
        self._pool.submit(self._append, piece)  # one thread: pieces are joined in order

    def _append(self, piece: Piece) -> None:
        if self._error is not None:
            return
        assert _ctrec is not None
        try:
            values = np.ascontiguousarray(piece.values, dtype=np.float64)
            self._block = _ctrec.extend(self._block, values)
        except Exception as error:  # MemoryError above all: raised again by values(), never
            self._error = error     # a silently short array
            return
        self._rows += piece.rows
        piece.values = np.zeros(0, dtype=np.float64)

    def values(self) -> np.ndarray | None:
        """The values of every piece added, in order (None when no piece had rows)."""
        self.close()
        if self._error is not None:
            raise self._error
        if self._first is not None:
            return self._first.values
        if self._block is None:
            return None
        return np.frombuffer(self._block, dtype=np.float64, count=self._rows)

    def close(self) -> None:
        """Wait for the pieces added to be joined (also after an error elsewhere)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def merge(pieces: list[Piece], kind: str, values: np.ndarray | None = None) -> FastColumns:
    """Join the pieces of one input (in input order) into its columns.

    The pieces' values are moved into the columns (each piece is left with
    none), so the input's values are held about once, not twice, at any time;
    *values*, when given, are those of every piece already joined
    (:class:`ValueJoiner`).
    """
    pieces = [piece for piece in pieces if piece.rows or piece.lines]
    run = kind == "run"
    row_counts = [piece.rows for piece in pieces]
    ends = np.cumsum(row_counts, dtype=np.int64).tolist()
    query_ids, segment_codes = merge_codes(
        [(piece.names, piece.segment_codes) for piece in pieces if piece.rows]
    )
    segment_starts = _concat([piece.segment_rows + (end - piece.rows)
                              for piece, end in zip(pieces, ends) if piece.rows], np.int64)
    values = _take_values(pieces) if values is None else values
    doc_ids = ranks = doc_codes = doc_names = None
    if run:
        doc_ids = StringColumn([chunk for piece in pieces for chunk in piece.docs])
        ranked = [piece for piece in pieces if piece.rows]
        if ranked and all(piece.ranks is not None for piece in ranked):
            ranks = StringColumn([chunk for piece in ranked for chunk in piece.ranks or []])
    else:
        doc_names, doc_codes = merge_codes(
            [(piece.doc_names or [], piece.doc_codes) for piece in pieces if piece.rows]
        )
    unchecked = None
    sorted_blocks = None
    if run and ends:
        unchecked = _rows_split_over_blocks(segment_starts, segment_codes, ends, len(query_ids))
        general = [(end - piece.rows, end)
                   for piece, end in zip(pieces, ends) if piece.rows and not piece.checked]
        if sum(stop - start for start, stop in general) * 4 > ends[-1]:
            unchecked = None  # mostly unchecked: check every row
        elif unchecked is not None and general:
            rows = [unchecked] + [np.arange(start, stop, dtype=np.int64)
                                  for start, stop in general]
            unchecked = np.sort(np.concatenate(rows))
            unchecked = unchecked[np.append(True, unchecked[1:] != unchecked[:-1])]
            if len(unchecked) * 4 > ends[-1]:
                unchecked = None
        sorted_blocks = _sorted_blocks(pieces, segment_starts, segment_codes, values,
                                       len(query_ids))
    run_id = b""
    for piece in reversed(pieces):
        if piece.rows and piece.run_id is not None:
            run_id = piece.run_id
            break
    return FastColumns(
        segment_starts=segment_starts,
        segment_codes=segment_codes,
        query_ids=query_ids,
        doc_ids=doc_ids,
        doc_codes=doc_codes,
        doc_names=doc_names,
        values=values,
        ranks=ranks,
        unchecked_rows=unchecked if run else np.zeros(0, dtype=np.int64),
        sorted_blocks=sorted_blocks,
        lines=_line_map(pieces),
        run_id=run_id.decode("utf-8", errors="replace"),
    )


def _take_values(pieces: list[Piece]) -> np.ndarray:
    """The values of all pieces in one array; each piece's are dropped once copied.

    A piece's values go as soon as they are in the joined array, so the peak
    is the joined array and one piece, not all pieces twice.
    """
    filled = [piece for piece in pieces if piece.rows]
    if len(filled) == 1:
        return filled[0].values
    values = np.empty(sum(piece.rows for piece in filled), dtype=np.float64)
    at = 0
    for piece in filled:
        values[at : at + piece.rows] = piece.values
        at += piece.rows
        piece.values = np.zeros(0, dtype=np.float64)
    return values


def _concat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _line_map(pieces: list[Piece]) -> LineMap:
    """The lines of the rows of all pieces: skipped lines counted across pieces."""
    rows: list[np.ndarray] = []
    skipped: list[np.ndarray] = []
    rows_before = lines_before = 0
    last = 0
    for piece in pieces:
        base = lines_before - rows_before  # lines skipped before the piece
        if base != last:
            rows.append(np.array([rows_before], dtype=np.int64))
            skipped.append(np.array([base], dtype=np.int64))
            last = base
        if len(piece.skips):
            rows.append(piece.skips[:, 0] + rows_before)
            skipped.append(piece.skips[:, 1] + base)
            last = int(skipped[-1][-1])
        rows_before += piece.rows
        lines_before += piece.lines
    return LineMap(_concat(rows, np.int64), _concat(skipped, np.int64))


def _sorted_blocks(
    pieces: list[Piece], starts: np.ndarray, codes: np.ndarray, scores: np.ndarray,
    n_queries: int,
) -> np.ndarray | None:
    """The first row of each query's block when the run is in rank order, else None.

    In rank order: one block per query (a block cut by a piece boundary is
    joined again) and scores that never rise inside a block.
    """
    if not all(piece.descending for piece in pieces if piece.rows):
        return None
    continued = np.flatnonzero(codes[1:] == codes[:-1]) + 1  # the same query again: cut blocks
    if len(starts) - len(continued) != n_queries:
        return None  # a query in two places
    if len(continued):
        rows = starts[continued]
        if (scores[rows] > scores[rows - 1]).any():
            return None
    return np.delete(starts, continued)


def _rows_split_over_blocks(
    starts: np.ndarray, codes: np.ndarray, piece_ends: list[int], n_queries: int
) -> np.ndarray | None:
    """Rows of the queries that own more than one block (a block ends at a piece's end).

    None when the blocks are many (queries interleave): check every row.
    """
    if len(starts) * 8 > piece_ends[-1]:
        return None
    blocks_per_query = np.bincount(codes, minlength=n_queries)
    split = blocks_per_query[codes] > 1
    if not split.any():
        return np.zeros(0, dtype=np.int64)
    # a block ends where the next one starts, or at the end of its piece
    piece_of_block = np.searchsorted(np.array(piece_ends), starts, side="right")
    next_start = np.append(starts[1:], piece_ends[-1])
    ends = np.minimum(next_start, np.array(piece_ends, dtype=np.int64)[piece_of_block])
    begin, stop = starts[split], ends[split]
    lengths = stop - begin
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(begin - offsets, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)
