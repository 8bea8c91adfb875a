"""The fast path for TREC text: the C reader, run on several byte ranges at once.

:mod:`rankwise.io._ctrec` (optional, compiled at install time) parses the
lines that start in a byte range of a file (read block by block with
``pread``) or of a buffer, with the GIL released; this module cuts the input
into ranges, runs them on a few threads and joins the pieces into columns:
the blocks of lines of each query (first row, query), an Arrow string column
of document ids (qrels: interned codes), the scores or grades, the rows the
duplicate check still has to look at (queries whose lines are not in one
block of one range), and whether the run is in rank order.

The C reader accepts only input whose meaning is certain and declines the
rest (a string saying why); the caller then uses the general reader, which
gives the same values and the precise error messages. Set the environment
variable ``RANKWISE_NO_C=1`` to turn the fast path off.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads
from rankwise.data._strings import StringColumn

if TYPE_CHECKING:
    from rankwise.io._source import OpenedSource

__all__ = ["FastColumns", "available", "parse_columns"]

_RANGE_BYTES = 16 << 20  # bytes per parsing task
_MAX_THREADS = 8


_ctrec = load("rankwise.io._ctrec")


def available() -> bool:
    """Whether the C reader is built and not turned off (``RANKWISE_NO_C=1``)."""
    return _ctrec is not None and enabled()


@dataclass(frozen=True)
class FastColumns:
    """The columns of a TREC file read by the C reader.

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
    values : ndarray
        Per row, the score (float64, runs) or the grade (int64, qrels).
    ranks : StringColumn or None
        Per row, the rank field as text (runs read with ``keep_rank``).
    unchecked_rows : ndarray of int64, or None
        Rows of the queries whose lines are split over several blocks: the C
        reader checked each block for a repeated document, not their union.
        None when that is a large part of the file (queries interleave):
        every row is to be checked.
    sorted_blocks : ndarray of int64 or None
        Runs in rank order (each query's lines together, scores never rising
        within them): the first row of each query's block. None otherwise.
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

    @property
    def interleaved(self) -> bool:
        """Whether the blocks are many (one per 8 rows or more): codes per row are cheaper."""
        return len(self.segment_starts) * 8 > len(self.values)

    @property
    def query_codes(self) -> np.ndarray:
        """Per row, the index of its query in *query_ids* (int32)."""
        lengths = np.diff(np.append(self.segment_starts, len(self.values)))
        return np.repeat(self.segment_codes.astype(np.int32), lengths)


@contextmanager
def _opened_for_reader(opened: OpenedSource, reader: Any) -> Iterator[Any]:
    """What the C reader reads: a plain file's descriptor, else the input's bytes.

    Where the reader cannot read a descriptor (no ``pread``), a plain file is
    memory-mapped instead.
    """
    if opened.path is None or isinstance(opened.data, (bytes, bytearray)):
        yield opened.data
        return
    with open(opened.path, "rb") as handle:
        if reader.FILE_MODE:
            yield handle.fileno()
            return
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        yield mapped
    finally:
        mapped.close()


def _release(buffer: Any, begin: int, end: int) -> None:
    """Drop the parsed pages of a mapped file from this process (they stay cached).

    Keeps the peak memory of reading a large file to a few ranges, not the
    whole file; pages touched again are simply mapped again.
    """
    if not isinstance(buffer, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
        return
    start = begin - begin % mmap.PAGESIZE
    stop = end - end % mmap.PAGESIZE
    if stop > start:
        buffer.madvise(mmap.MADV_DONTNEED, start, stop - start)


class _Piece(NamedTuple):
    """What the C reader returns for one range (arrays as buffers)."""

    rows: int
    names: list[str]
    segment_rows: Any
    segment_codes: Any
    values: Any
    doc_offsets: Any  # runs
    doc_data: Any
    rank_offsets: Any
    rank_data: Any
    doc_codes: Any  # qrels
    doc_names: list[str] | None
    descending: bool  # runs: scores never rise within a block


def _parse_ranges(reader: Any, source: Any, size: int, layout: int, keep_rank: bool) -> Any:
    """Parse *source* (a descriptor or a buffer) in ranges, on up to one thread per core.

    Returns the pieces in file order, or a str when any range declined.
    """
    count = max(1, -(-size // _RANGE_BYTES))
    bounds = [size * i // count for i in range(count + 1)]
    results: list[Any] = [None] * count
    lock = threading.Lock()
    state: dict[str, Any] = {"next": 0, "declined": None}

    def work(_: int) -> None:
        while True:
            with lock:
                index = state["next"]
                if index >= count or state["declined"] is not None:
                    return
                state["next"] = index + 1
            result = reader.parse(source, bounds[index], bounds[index + 1], layout, keep_rank)
            if isinstance(result, str):
                with lock:
                    state["declined"] = result
                return
            results[index] = _Piece(*result)
            _release(source, bounds[index], bounds[index + 1])

    run_threads(work, min(count, cores(), _MAX_THREADS))
    return state["declined"] if state["declined"] is not None else results


def parse_columns(opened: OpenedSource, kind: str, *, keep_rank: bool = False) -> FastColumns | str:
    """Read a TREC run (``kind="run"``) or qrels file with the C reader.

    Returns the columns, or a str saying why the C reader declined the input
    (the general reader must then read it).
    """
    reader = _ctrec
    if reader is None or not available():
        return "the C reader is not available"
    if len(opened.data) == 0:
        return "empty input"
    layout = reader.RUN if kind == "run" else reader.QRELS
    value_type = np.float64 if kind == "run" else np.int64
    with _opened_for_reader(opened, reader) as source:
        pieces = _parse_ranges(reader, source, len(opened.data), layout, keep_rank)
    if isinstance(pieces, str):
        return pieces
    if sum(piece.rows for piece in pieces) == 0:
        return "no data lines"

    run = kind == "run"
    row_counts = [piece.rows for piece in pieces]
    ends = np.cumsum(row_counts).tolist()
    query_ids, segment_codes = _merge_codes(
        [(piece.names, piece.segment_codes) for piece in pieces],
        [len(piece.segment_codes) // 4 for piece in pieces],
    )
    segment_starts = np.concatenate(
        [np.frombuffer(piece.segment_rows, dtype=np.int64) + (end - piece.rows)
         for piece, end in zip(pieces, ends)]
    )
    parts = [np.frombuffer(piece.values, dtype=value_type, count=piece.rows) for piece in pieces]
    values = np.concatenate(parts) if len(parts) > 1 else parts[0]
    doc_ids = ranks = doc_codes = doc_names = None
    if run:
        doc_ids = StringColumn.from_buffers([(p.rows, p.doc_offsets, p.doc_data) for p in pieces])
        if keep_rank:
            ranks = StringColumn.from_buffers(
                [(p.rows, p.rank_offsets, p.rank_data) for p in pieces]
            )
    else:
        doc_names, doc_codes = _merge_codes(
            [(piece.doc_names, piece.doc_codes) for piece in pieces], row_counts
        )
    return FastColumns(
        segment_starts=segment_starts,
        segment_codes=segment_codes,
        query_ids=query_ids,
        doc_ids=doc_ids,
        doc_codes=doc_codes,
        doc_names=doc_names,
        values=values,
        ranks=ranks,
        unchecked_rows=_rows_split_over_blocks(
            segment_starts, segment_codes, ends, len(query_ids)
        ) if run else np.zeros(0, dtype=np.int64),
        sorted_blocks=_sorted_blocks(pieces, segment_starts, segment_codes, values, len(query_ids))
        if run else None,
    )


def _merge_codes(parts: list[tuple[list[str], Any]], counts: list[int]) -> tuple[list[str], Any]:
    """Join per-range interned ids: the distinct ids and the codes.

    Each part is (names, int32 codes) of one range, its codes indexing its
    own names; the result's codes index the names of all ranges, in order of
    first appearance.
    """
    code_of: dict[str, int] = {}
    codes = []
    for (names, local_codes), count in zip(parts, counts):
        remap = np.array([code_of.setdefault(name, len(code_of)) for name in names], np.int32)
        local = np.frombuffer(local_codes, dtype=np.int32, count=count)
        identity = bool((remap == np.arange(len(remap), dtype=np.int32)).all())
        codes.append(local if identity else remap[local])
    return list(code_of), np.concatenate(codes) if len(codes) > 1 else codes[0]


def _sorted_blocks(
    pieces: list[_Piece], starts: np.ndarray, codes: np.ndarray, scores: np.ndarray,
    n_queries: int,
) -> np.ndarray | None:
    """The first row of each query's block when the run is in rank order, else None.

    In rank order: one block per query (a block cut by a range boundary is
    joined again) and scores that never rise inside a block.
    """
    if not all(piece.descending for piece in pieces):
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
    starts: np.ndarray, codes: np.ndarray, range_ends: list[int], n_queries: int
) -> np.ndarray | None:
    """Rows of the queries that own more than one block (a block ends at a range's end).

    None when the blocks are many (queries interleave): check every row.
    """
    if len(starts) * 8 > range_ends[-1]:
        return None
    blocks_per_query = np.bincount(codes, minlength=n_queries)
    split = blocks_per_query[codes] > 1
    if not split.any():
        return np.zeros(0, dtype=np.int64)
    # a block ends where the next one starts, or at the end of its range
    range_of_block = np.searchsorted(np.array(range_ends), starts, side="right")
    next_start = np.append(starts[1:], range_ends[-1])
    ends = np.minimum(next_start, np.array(range_ends, dtype=np.int64)[range_of_block])
    begin, stop = starts[split], ends[split]
    lengths = stop - begin
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(begin - offsets, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)
