"""Reading TREC text files: runs (``qid iter docno rank score runid``) and qrels.

Fields are separated by any run of spaces or tabs; ``iter`` and ``rank`` are
ignored (the rank is kept for ``ties="rank"``); text after the run id is
ignored. Blank lines and lines whose first non-blank character is ``#`` are
skipped. Ids are strings: ``"1"`` and ``"01"`` are different queries.

Files are read by the C reader (:mod:`rankwise.io._fast`) when it is built
and the file has the common shape; it declines anything unusual. Then clean
files (one kind of separator, no comment lines) are parsed by pyarrow's
multi-threaded CSV reader, and other files are first normalised with regular
expressions (C speed), then parsed the same way. Every path gives the same
values; the general one gives the precise error messages.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankwise.data._arrow import array_to_numpy, take_rows
from rankwise.exceptions import InputFormatError
from rankwise.io._fast import FastColumns, parse_columns
from rankwise.io._source import FileView, OpenedSource, PathLike, open_bytes

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data.qrels import Qrels
    from rankwise.data.run import Run

__all__ = ["read_trec_qrels", "read_trec_run"]


@dataclass(frozen=True)
class _Layout:
    kind: str
    names: tuple[str, ...]
    wanted: tuple[str, ...]
    numeric: dict[str, str]

    @property
    def description(self) -> str:
        return " ".join(self.names)


_RUN = _Layout(
    "run",
    ("qid", "iter", "docno", "rank", "score", "runid"),
    ("qid", "docno", "rank", "score", "runid"),
    {"score": "score", "rank": "rank"},
)
_QRELS = _Layout(
    "qrels", ("qid", "iter", "docno", "grade"), ("qid", "docno", "grade"), {"grade": "grade"}
)

_BLOCK_SIZE = 1 << 22
_LOG = logging.getLogger("rankwise.io")
_WHITESPACE_RUN = re.compile(rb"[ \t\r\f\v]+")
_EDGE_SPACE = re.compile(rb"(?m)^ | $")
_SKIPPED_LINE = re.compile(rb"(?m)^(?:#[^\n]*)?\n")


def _first_line_with_byte(data: bytes | FileView, position: int) -> int:
    return (
        data.count(b"\n", 0, position) + 1
        if isinstance(data, bytes)
        else (bytes(data[:position]).count(b"\n") + 1)
    )


_SCANNED = (b"\x00", b"\t", b" ")


def _scan(data: bytes | FileView) -> dict[bytes, int]:
    """First offset of a NUL byte, a tab and a space (-1 when absent), in one pass."""
    if isinstance(data, FileView):
        return data.find_any(_SCANNED)
    return {needle: data.find(needle) for needle in _SCANNED}


def _check_text(
    data: bytes | FileView, display: str, layout: _Layout, scan: dict[bytes, int]
) -> None:
    if len(data) == 0 or (not bytes(data[:65536]).strip() and not bytes(data).strip()):
        raise InputFormatError(
            f"file is empty: expected TREC {layout.kind} lines ({layout.description})", display
        )
    nul = scan[b"\x00"]
    if nul != -1:
        line = _first_line_with_byte(data, nul)
        raise InputFormatError(
            f"binary data (a NUL byte): expected TREC {layout.kind} text ({layout.description})",
            display,
            line,
        )


def _is_clean(data: bytes | FileView, scan: dict[bytes, int]) -> bytes | None:
    """Return the single separator of a clean file, or None when it needs normalising.

    Only single-byte searches over the whole file (memchr speed); comment lines
    are caught after parsing (a query id starting with ``#``), blank lines are
    skipped by the CSV reader.
    """
    head = bytes(data[:65536])
    if head[:1] == b"#" or b"\n#" in head:
        return None
    separator, other = (b"\t", b" ") if b"\t" in head else (b" ", b"\t")
    if scan[other] != -1:
        return None
    return separator


def _normalise(data: bytes | FileView, layout: _Layout) -> tuple[bytes, np.ndarray | None]:
    """Collapse whitespace, drop comment and blank lines, cut fields past the last one.

    Returns the normalised text and, when lines were dropped, the 1-based line
    number in the original of each kept line.
    """
    text = _WHITESPACE_RUN.sub(b" ", bytes(data))
    text = _EDGE_SPACE.sub(b"", text)
    if not text.endswith(b"\n"):
        text += b"\n"
    line_numbers = None
    if text.startswith((b"\n", b"#")) or b"\n\n" in text or b"\n#" in text:
        buffer = np.frombuffer(text, dtype=np.uint8)
        ends = np.flatnonzero(buffer == 10)
        starts = np.concatenate(([0], ends[:-1] + 1))
        first = buffer[np.minimum(starts, len(buffer) - 1)]
        kept = (starts != ends) & (first != ord("#"))
        line_numbers = np.flatnonzero(kept) + 1
        text = _SKIPPED_LINE.sub(b"", text)
    if layout.kind == "run":
        extra = re.compile(rb"(?m)^((?:[^ \n]+ ){%d}[^ \n]+) [^\n]*" % (len(layout.names) - 1))
        text = extra.sub(rb"\1", text)
    return text, line_numbers


def _line_of_row(row: int, line_numbers: np.ndarray | None) -> int:
    return int(line_numbers[row]) if line_numbers is not None else row + 1


def _diagnose(data: bytes | FileView, display: str, layout: _Layout, error: Exception) -> None:
    """Find the first offending line of a file pyarrow refused, and raise a precise error."""
    lines = bytes(data).split(b"\n")
    score_index = layout.names.index("score") if "score" in layout.names else None
    grade_index = layout.names.index("grade") if "grade" in layout.names else None
    for number, raw in enumerate(lines, start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as decode_error:
            raise InputFormatError(
                f"not UTF-8 text (byte 0x{raw[decode_error.start]:02x} at column "
                f"{decode_error.start + 1}): rankwise reads UTF-8 files",
                display,
                number,
            ) from None
        too_few = len(fields) < len(layout.names)
        too_many = layout.kind == "qrels" and len(fields) > len(layout.names)
        if too_few or too_many:
            raise InputFormatError(
                f"expected {len(layout.names)} fields ({layout.description}), got {len(fields)}",
                display,
                number,
            )
        for index, label in ((score_index, "score"), (grade_index, "grade")):
            if index is None:
                continue
            value = fields[index].decode("utf-8")
            try:
                number_value = float(value) if label == "score" else int(value)
            except ValueError:
                expected = "a number" if label == "score" else "an integer"
                raise InputFormatError(
                    f"{label} must be {expected}, got {value!r}", display, number
                ) from None
            if label == "score" and not np.isfinite(number_value):
                raise InputFormatError(
                    f"score must be a finite number, got {value!r}", display, number
                )
    raise InputFormatError(f"cannot parse TREC {layout.kind} file: {error}", display)


def _read_csv(
    buffer: pa.Buffer | pa.NativeFile, separator: bytes, layout: _Layout, wanted: tuple[str, ...]
) -> pa.Table:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {"qid": pa.string(), "docno": pa.string(), "rank": pa.string()}
    types.update({"score": pa.float64(), "grade": pa.int64()})
    stream = buffer if isinstance(buffer, pa.NativeFile) else pa.BufferReader(buffer)
    return pacsv.read_csv(
        stream,
        read_options=pacsv.ReadOptions(column_names=list(layout.names), block_size=_BLOCK_SIZE),
        parse_options=pacsv.ParseOptions(
            delimiter=separator.decode(), quote_char=False, escape_char=False, double_quote=False
        ),
        convert_options=pacsv.ConvertOptions(
            include_columns=list(wanted),
            column_types={name: types[name] for name in wanted},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    )


def _parse(
    data: bytes | FileView,
    display: str,
    layout: _Layout,
    wanted: tuple[str, ...],
    path: str | None = None,
) -> tuple[pa.Table, np.ndarray | None]:
    """Parse TREC text into a table of the *wanted* columns and the kept lines' numbers."""
    import pyarrow as pa

    scan = _scan(data)
    _check_text(data, display, layout, scan)
    separator = _is_clean(data, scan)
    if separator is not None:
        try:
            source = pa.OSFile(path) if path is not None else pa.py_buffer(data)
            table = _read_csv(source, separator, layout, wanted)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass  # extra text after the last field, odd spacing: normalise below
        else:
            table = _encode_queries(table)
            _release_unused_memory()
            if not _has_comment_rows(table):
                return table, None
    text, line_numbers = _normalise(data, layout)
    if not text.strip():
        raise InputFormatError(
            f"file has no data lines: expected TREC {layout.kind} lines ({layout.description})",
            display,
        )
    try:
        return _read_csv(pa.py_buffer(text), b" ", layout, wanted), line_numbers
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        _diagnose(data, display, layout, error)
        raise  # _diagnose always raises; this keeps type checkers content


def _copy_chunks(chunks: list[pa.Array]) -> np.ndarray:
    """Concatenate numeric chunks into one float64 array, releasing each chunk once copied."""
    out = np.empty(sum(len(chunk) for chunk in chunks), dtype=np.float64)
    at = 0
    for index in range(len(chunks)):
        chunk = chunks[index]
        out[at : at + len(chunk)] = array_to_numpy(chunk, np.float64)
        at += len(chunk)
        chunks[index] = None
        del chunk
    return out


def _release_unused_memory() -> None:
    """Give the memory the CSV reader freed back to the system (lower peak memory)."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    if hasattr(pool, "release_unused"):
        pool.release_unused()


def _change_points(column: pa.ChunkedArray) -> np.ndarray:
    """Rows whose value differs from the previous row's (row 0 included)."""
    import pyarrow.compute as pc

    points = [np.zeros(1, dtype=np.int64)] if len(column) else []
    at = 0
    previous = None
    for chunk in column.chunks:
        n = len(chunk)
        if n == 0:
            continue
        if previous is not None and at > 0 and chunk[0].as_py() != previous:
            points.append(np.array([at], dtype=np.int64))
        if n > 1:
            differs = array_to_numpy(pc.not_equal(chunk.slice(1), chunk.slice(0, n - 1)), bool)
            points.append(np.flatnonzero(differs).astype(np.int64) + at + 1)
        previous = chunk[n - 1].as_py()
        at += n
    return np.concatenate(points) if points else np.zeros(0, dtype=np.int64)


def _encode_queries(table: pa.Table) -> pa.Table:
    """Intern the query ids once (first-appearance order); the Run reuses the codes.

    Runs list each query's documents together, so the ids change only at
    block boundaries: comparing neighbours and naming the few blocks is much
    cheaper than hashing every row. Files that interleave queries fall back
    to hashing.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data._arrow import numpy_to_array

    column = table["qid"]
    n = len(column)
    starts = _change_points(column)
    if len(starts) > max(4096, n // 8):
        encoded = pc.dictionary_encode(column).combine_chunks()
    else:
        names = take_rows(column, starts).to_pylist()
        code_of: dict[str, int] = {}
        first_rows = []
        block_codes = np.empty(len(starts), dtype=np.int32)
        for block, name in enumerate(names):
            code = code_of.get(name)
            if code is None:
                code = code_of[name] = len(code_of)
                first_rows.append(int(starts[block]))
            block_codes[block] = code
        codes = np.repeat(block_codes, np.diff(np.append(starts, n)))
        dictionary = take_rows(column, np.array(first_rows, dtype=np.int64))
        encoded = pa.DictionaryArray.from_arrays(numpy_to_array(codes), dictionary)
    return table.set_column(table.schema.get_field_index("qid"), "qid", encoded)


def _has_comment_rows(table: pa.Table) -> bool:
    """Whether a comment line slipped through as data (a query id starting with ``#``)."""
    column = table["qid"]
    if not column.num_chunks:
        return False
    return any(str(name).startswith("#") for name in column.chunk(0).dictionary.to_pylist())


def _line_locator(opened: OpenedSource) -> Callable[[int], int]:
    """A function from a row number to its line, for error messages only.

    It scans the file again, skipping blank and comment lines; it is only
    called when an error is reported, so the fast path pays nothing for it.
    Input that cannot be read again (standard input, a pipe) is kept.
    """
    source: bytes | str = bytes(opened.data) if not opened.rereadable else opened.display

    def locate(row: int) -> int:
        lines = source.split(b"\n") if isinstance(source, bytes) else open_lines(source)
        seen = -1
        for number, raw in enumerate(lines, start=1):
            stripped = raw.strip()
            if not stripped or stripped.startswith(b"#"):
                continue
            seen += 1
            if seen == row:
                return number
        return row + 1

    return locate


def open_lines(path: str) -> Iterator[bytes]:
    """Yield the raw lines of a (possibly compressed) file."""
    with open_bytes(path) as opened:
        yield from bytes(opened.data).split(b"\n")


def _last_run_id(data: bytes | FileView) -> str:
    """The run id of the last data line (the one trec_eval prints)."""
    size = len(data)
    tail = bytes(data[max(0, size - (1 << 16)) : size])
    for raw in reversed(tail.split(b"\n")):
        fields = raw.split()
        if len(fields) >= 6 and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8", errors="replace")
    return ""


def _read_fast(opened: OpenedSource, kind: str, keep_rank: bool = False) -> FastColumns | None:
    """The file's columns from the C reader, or None when the general reader must read it."""
    columns = parse_columns(opened, kind, keep_rank=keep_rank)
    if isinstance(columns, str):
        _LOG.debug("%s: general TREC reader (%s)", opened.display, columns)
        return None
    return columns


def read_trec_run(
    source: PathLike | bytes, *, name: str | None = None, keep_rank: bool = False
) -> Run:
    r"""Read a TREC run file: ``qid iter docno rank score runid`` per line.

    Parameters
    ----------
    source : path, ``"-"`` for standard input, or bytes
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed.
    name : str, optional
        The run's name; by default the run id of its last line (as trec_eval
        prints it).
    keep_rank : bool, default False
        Keep the rank column (needed for ``ties="rank"``).

    Returns
    -------
    Run

    Raises
    ------
    InputFormatError
        When a line has fewer than 6 fields, a score is not a finite number, a
        document appears twice for one query, or the file is empty or binary.

    Examples
    --------
    >>> run = read_trec_run(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\n")
    >>> run.name, len(run)
    ('bm25', 2)
    """
    from rankwise.data.run import Run

    wanted = ("qid", "docno", "rank", "score") if keep_rank else ("qid", "docno", "score")
    with open_bytes(source) as opened:
        fast = _read_fast(opened, "run", keep_rank)
        if fast is not None and fast.doc_ids is not None:
            # the C reader checked the scores (finite) and each query's block for duplicates
            dense = fast.interleaved  # blocks of a line or two: a code per row is cheaper
            run = Run(
                fast.query_codes if dense else None,
                fast.query_ids,
                fast.doc_ids,
                fast.values,
                ranks=fast.ranks,
                name=name if name is not None else _last_run_id(opened.data),
                source=opened.display,
                locate=_line_locator(opened),
                rank_order_blocks=fast.sorted_blocks,
                segments=None if dense else (fast.segment_starts, fast.segment_codes),
            )
            run.check_duplicates(fast.unchecked_rows)
            return run
        table, line_numbers = _parse(opened.data, opened.display, _RUN, wanted, opened.path)
        run_name = name if name is not None else _last_run_id(opened.data)
        locate = _line_locator(opened) if line_numbers is None else None
    queries, docs = table["qid"], table["docno"]
    ranks = table["rank"] if keep_rank else None
    score_chunks = list(table["score"].chunks)
    del table  # the score chunks are now only in the list, freed as they are copied
    scores = _copy_chunks(score_chunks)
    _release_unused_memory()
    return Run.from_arrow(
        queries,
        docs,
        scores,
        ranks=ranks,
        name=run_name,
        source=opened.display,
        line_numbers=line_numbers,
        locate=locate,
        copy_scores=False,
    )


def read_trec_qrels(source: PathLike | bytes) -> Qrels:
    r"""Read a TREC qrels file: ``qid iter docno grade`` per line.

    Parameters
    ----------
    source : path, ``"-"`` for standard input, or bytes
        The file; ``.gz``, ``.bz2`` and ``.xz`` files are decompressed.

    Returns
    -------
    Qrels

    Raises
    ------
    InputFormatError
        When a line does not have 4 fields, a grade is not an integer, a
        judgment is given twice, or the file is empty or binary.

    Examples
    --------
    >>> qrels = read_trec_qrels(b"q1 0 d1 2\nq1 0 d2 0\n")
    >>> len(qrels), qrels.query_ids
    (2, ['q1'])
    """
    from rankwise.data.qrels import Qrels

    with open_bytes(source) as opened:
        fast = _read_fast(opened, "qrels")
        if fast is not None and fast.doc_codes is not None and fast.doc_names is not None:
            qrels = Qrels(
                fast.query_codes,
                fast.query_ids,
                fast.doc_codes,
                fast.doc_names,
                fast.values.astype(np.float64),
                source=opened.display,
                locate=_line_locator(opened),
            )
            qrels.check_duplicates()
            return qrels
        table, line_numbers = _parse(
            opened.data, opened.display, _QRELS, _QRELS.wanted, opened.path
        )
        locate = _line_locator(opened) if line_numbers is None else None
    return Qrels.from_arrow(
        table["qid"],
        table["docno"],
        table["grade"],
        source=opened.display,
        line_numbers=line_numbers,
        locate=locate,
    )
