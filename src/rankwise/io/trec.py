"""Reading TREC text files: runs (``qid iter docno rank score runid``) and qrels.

Fields are separated by any run of spaces or tabs; ``iter`` and ``rank`` are
ignored (the rank is kept for ``ties="rank"``); text after the run id is
ignored. Blank lines and lines whose first non-blank character is ``#`` are
skipped. Ids are strings: ``"1"`` and ``"01"`` are different queries. Lines
end with LF or CRLF; a carriage return elsewhere (files with CR line ends)
is an error, and so is a line longer than 1 MiB (:data:`MAX_LINE_BYTES`).
Grades are numbers, fractional ones included (see docs/reading.md).

The input is read once, front to back, in pieces: ranges of a plain file
(in parallel), or blocks of whole lines of a stream (standard input, a
pipe, a compressed file: decompressed as it is read, never whole in
memory). The C reader (:mod:`rankwise.io._fast`) parses each piece when it
is built and the piece has the common shape; it declines anything unusual,
and the general reader then parses that piece: pyarrow's CSV reader, after
normalising the piece with regular expressions when its whitespace is
irregular. Both give the same values; errors name the file and the line of
the first bad line, found in the same pass.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.data._strings import string_chunks
from rankwise.exceptions import InputFormatError
from rankwise.io import _fast
from rankwise.io._fast import Declined, FastColumns, Piece
from rankwise.io._source import (
    MAX_LINE_BYTES,
    FileView,
    LineTooLong,
    PathLike,
    Source,
    line_blocks,
    open_source,
    unreadable,
)

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
    value: str  # the numeric field: score or grade
    text: tuple[int, ...] = (0, 2)  # the fields that must be UTF-8 (the ids; ranks when kept)

    @property
    def description(self) -> str:
        return " ".join(self.names)


_RUN = _Layout(
    "run", ("qid", "iter", "docno", "rank", "score", "runid"), ("qid", "docno", "score"), "score"
)
_RUN_RANKED = _Layout(
    "run", _RUN.names, ("qid", "docno", "rank", "score"), "score", (0, 2, 3)
)
_QRELS = _Layout("qrels", ("qid", "iter", "docno", "grade"), ("qid", "docno", "grade"), "grade")
_DIVERSITY = _Layout("qrels", ("qid", "subtopic", "docno", "grade"), _QRELS.wanted, "grade")
"""Diversity judgments (ndeval's): read as qrels, named as they are in messages."""

_STREAM_BLOCK = 4 << 20  # bytes of whole lines per piece of a stream (4x without the C reader)
_CSV_BLOCK = 1 << 22  # pyarrow's parallel blocks inside a piece
_HEAD = 1 << 16  # a NUL byte in the first 64 KiB: binary data
_WHITESPACE_RUN = re.compile(rb"[ \t\r\f\v]+")
_EDGE_SPACE = re.compile(rb"(?m)^ | $")
_SKIPPED_LINE = re.compile(rb"(?m)^(?:#[^\n]*)?\n")
_LONE_CR = re.compile(rb"\r(?!\n)")
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_INTEGER = re.compile(rb"-?[0-9]+")
_FIELD = re.compile(rb"[^ \t\r\f\v]+")
_BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark


# ------------------------------------------------------------------------------------------
# one line: the precise message


def _check_line(raw: bytes, number: int, layout: _Layout, display: str,
                integer_grades: bool = False) -> None:
    """Raise the error of one line (its line end removed), or return when it is good."""

    def fail(message: str) -> InputFormatError:
        return InputFormatError(message, display, number)

    if b"\x00" in raw:
        raise fail(
            f"binary data (a NUL byte): expected TREC {layout.kind} text ({layout.description})"
        )
    comment = raw.lstrip().startswith(b"#")  # skipped whole up to its LF, as the C reader does
    if not comment and _LONE_CR.search(raw, 0, max(0, len(raw) - 1)) is not None:
        raise fail(
            "a carriage return (CR) inside a line: rankwise reads lines that end with LF or "
            "CR LF; a file with CR line ends (classic Mac) can be converted with "
            "tr '\\r' '\\n' < FILE"
        )
    if len(raw) >= MAX_LINE_BYTES:
        raise fail(
            f"line longer than {MAX_LINE_BYTES:,} bytes (1 MiB), the most a line may hold: "
            f"expected TREC {layout.kind} lines ({layout.description})"
        )
    fields = raw.split()
    if fields and not fields[0].startswith(b"#"):
        for index, found in enumerate(_FIELD.finditer(raw)):
            if index in layout.text:
                try:
                    found.group().decode("utf-8")
                except UnicodeDecodeError as error:
                    at = found.start() + error.start
                    raise fail(
                        f"not UTF-8 text (byte 0x{raw[at]:02x} at column {at + 1}): "
                        "rankwise reads UTF-8 files"
                    ) from None
    if not fields or fields[0].startswith(b"#"):
        return
    too_few = len(fields) < len(layout.names)
    too_many = layout.kind == "qrels" and len(fields) > len(layout.names)
    if too_few or too_many:
        raise fail(
            f"expected {len(layout.names)} fields ({layout.description}), got {len(fields)}"
        )
    text = fields[layout.names.index(layout.value)]
    shown = text.decode("utf-8", errors="backslashreplace")
    if layout.kind == "qrels" and integer_grades:
        if _INTEGER.fullmatch(text) is None or not -(2**63) <= int(text) < 2**63:
            digits = re.match(rb"\s*[+-]?[0-9]*", text)
            atol = int(digits.group()) if digits and digits.group().strip(b"+-") else 0
            raise fail(
                f"grade must be an integer, got {shown!r} (trec_eval would read it as {atol}); "
                "rankwise eval reads fractional grades"
            )
        return
    if _NOT_FINITE.fullmatch(text) is not None:
        raise fail(f"{layout.value} must be a finite number, got {shown!r}")
    if _NUMBER.fullmatch(text) is None:
        raise fail(f"{layout.value} must be a number, got {shown!r}")
    if not np.isfinite(float(text)):
        raise fail(f"{layout.value} must be a finite number, got {shown!r}")


def _check_lines(block: bytes, first_line: int, layout: _Layout, display: str,
                 integer_grades: bool, start: int = 0) -> None:
    """Raise the error of the first bad line of *block* (from byte *start* on)."""
    number = first_line + block.count(b"\n", 0, start)
    at = start
    while at < len(block):
        end = block.find(b"\n", at)
        end = len(block) if end == -1 else end
        raw = block[at:end]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        _check_line(raw, number, layout, display, integer_grades)
        number += 1
        at = end + 1


def _binary_head(head: bytes, first_line: int, layout: _Layout, display: str) -> None:
    """A NUL byte in the first 64 KiB: the input is binary (said before any other error)."""
    nul = head.find(b"\x00", 0, _HEAD)
    if nul != -1:
        raise InputFormatError(
            f"binary data (a NUL byte): expected TREC {layout.kind} text ({layout.description})",
            display,
            first_line + head.count(b"\n", 0, nul),
        )


def _head_checked(blocks: Iterator[bytes | memoryview],
                  check: Callable[[bytes], None]) -> Iterator[bytes | memoryview]:
    """*blocks*, once *check* has seen their first 64 KiB (a stream's blocks may be smaller).

    A NUL byte anywhere in the first 64 KiB is said before the error of any line, as
    for a file, however small the blocks a stream comes in.
    """
    buffered: list[bytes | memoryview] = []
    size = 0
    try:
        for block in blocks:
            buffered.append(block)
            size += len(block)
            del block  # held by buffered alone, so let go once yielded
            if size >= _HEAD:
                break
    except LineTooLong as error:
        check(_first_bytes([*buffered, error.head]))
        yield from buffered
        raise error from None
    check(_first_bytes(buffered))
    while buffered:  # each block let go once read: the first is not held to the end
        yield buffered.pop(0)
    yield from blocks


def _first_bytes(blocks: list[bytes | memoryview]) -> bytes:
    """The first 64 KiB of the blocks joined (not the whole of a large block copied)."""
    return b"".join([bytes(block[:_HEAD]) for block in blocks])[:_HEAD]


# ------------------------------------------------------------------------------------------
# the general reader: one piece (whole lines) with pyarrow


_SUB_BLOCK = 1 << 16  # bytes normalised at a time (bounds the regular expressions' lists)
_EXTRA_FIELDS = re.compile(rb"(?m)^((?:[^ \n]+ ){%d}[^ \n]+) [^\n]*" % (len(_RUN.names) - 1))


def _normalise(data: bytes, layout: _Layout) -> tuple[bytes, np.ndarray | None]:
    """Collapse whitespace, drop comment and blank lines, cut fields past the last one.

    Returns the normalised text and, when lines were dropped, the 1-based line
    number in *data* of each kept line. Works on parts of about 64 KiB of
    whole lines, so memory stays small whatever the lines are.
    """
    parts: list[bytes] = []
    numbers: list[np.ndarray | tuple[int, int]] = []  # kept lines, or (lines before, count)
    dropped = False
    before = 0  # lines before the part
    at = 0
    while at < len(data):
        cut = data.find(b"\n", min(at + _SUB_BLOCK, len(data)) - 1)
        end = len(data) if cut == -1 else cut + 1
        part = data[at:end]
        lines = part.count(b"\n") + (0 if part.endswith(b"\n") else 1)
        if b"\n" in part and not part.strip(b" \t\n"):  # blank lines only: all dropped, fast
            dropped = True
            before += lines
            at = end
            continue
        text = _EDGE_SPACE.sub(b"", _WHITESPACE_RUN.sub(b" ", part))
        if text and not text.endswith(b"\n"):
            text += b"\n"
        if text.startswith((b"\n", b"#")) or b"\n\n" in text or b"\n#" in text:
            dropped = True
            kept_text = _SKIPPED_LINE.sub(b"", text)
            if kept_text:
                buffer = np.frombuffer(text, dtype=np.uint8)
                ends = np.flatnonzero(buffer == 10)
                starts = np.concatenate(([0], ends[:-1] + 1))
                first = buffer[np.minimum(starts, len(buffer) - 1)]
                kept = (starts != ends) & (first != ord("#"))
                numbers.append(np.flatnonzero(kept) + 1 + before)
            text = kept_text
        else:
            numbers.append((before, lines))
        if layout.kind == "run" and text:
            text = _EXTRA_FIELDS.sub(rb"\1", text)
        parts.append(text)
        before += lines
        at = end
    line_numbers = None
    if dropped:
        line_numbers = np.concatenate([np.zeros(0, np.int64)] + [
            item if isinstance(item, np.ndarray)
            else np.arange(item[0] + 1, item[0] + item[1] + 1, dtype=np.int64)
            for item in numbers
        ])
    return b"".join(parts), line_numbers


def _read_csv(data: bytes, separator: bytes, layout: _Layout, wanted: tuple[str, ...],
              integer_grades: bool) -> pa.Table:
    """*data* (lines of fields split by *separator*, no blank line) as a table of *wanted*.

    pyarrow skips a byte order mark at the start of its buffer: one that
    starts a piece past the input's start is part of the first field (as in
    the C reader), so it is kept behind an empty first line pyarrow skips.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    bom = data.startswith(_BOM)
    if bom:
        data = b"\n" + data

    types = {"qid": pa.string(), "docno": pa.string(), "rank": pa.string(), "iter": pa.string(),
             "score": pa.float64(), "grade": pa.int64() if integer_grades else pa.float64()}
    return pacsv.read_csv(
        pa.BufferReader(data),
        read_options=pacsv.ReadOptions(column_names=list(layout.names), block_size=_CSV_BLOCK),
        parse_options=pacsv.ParseOptions(
            delimiter=separator.decode(), quote_char=False, escape_char=False, double_quote=False,
            ignore_empty_lines=bom,
        ),
        convert_options=pacsv.ConvertOptions(
            include_columns=list(wanted),
            column_types={name: types[name] for name in wanted},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    )


def _is_clean(block: bytes) -> bytes | None:
    """The one separator of a piece pyarrow can read as it is, or None (normalise it first).

    Only single-byte searches over the whole piece (memchr speed): no comment
    line, one kind of separator, no vertical tab or form feed. Blank lines and
    odd spacing are left to pyarrow (it reads empty lines as rows, and
    fails), whose error sends the piece to the normaliser; a piece pyarrow
    read is sent there too when a line of it may hold an empty field
    (:func:`_may_hold_empty_fields`).
    """
    if b"#" in block and (block.startswith(b"#") or b"\n#" in block):
        return None
    if b"\x0b" in block or b"\x0c" in block:
        return None
    has_tab, has_space = b"\t" in block, b" " in block
    if has_tab and has_space:
        return None
    return b"\t" if has_tab else b" "


_PAIR_PART = 1 << 18  # bytes looked at at a time for adjacent whitespace (stays in cache)


def _may_hold_empty_fields(block: bytes) -> bool:
    """Whether a line of *block* may hold an empty field when read with one separator byte.

    pyarrow reads two separators in a row, or one at the start or end of a
    line, as an empty field: ``q1 Q0  2 1.0 t`` would be six fields, one of
    them an empty document id, where the line has five. That takes two
    whitespace bytes side by side (a CR before its LF excepted), or one at
    the start or the end of the piece. True sends the piece to the
    normaliser, which collapses whitespace as the C reader reads it. Looks at
    256 KiB at a time (3 to 4% of the general reader's time).
    """
    buffer = np.frombuffer(block, dtype=np.uint8)
    if not len(buffer):
        return False
    if buffer[0] < 33 or buffer[-1] in (9, 32):
        return True
    crlf = b"\r" in block
    for at in range(0, len(buffer), _PAIR_PART):
        part = buffer[at : at + _PAIR_PART + 1]
        space = part < 33  # whitespace and control bytes (a false alarm only costs time)
        first = space[:-1] & (part[:-1] != 13) if crlf else space[:-1]
        if (first & space[1:]).any():
            return True
    return False


def _last_field(text: bytes, index: int) -> bytes:
    """Field *index* of the last data line of *text* (comment and blank lines skipped)."""
    end = len(text)
    while end > 0:
        start = text.rfind(b"\n", 0, end) + 1
        fields = text[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return fields[index] if len(fields) > index else b""
        end = start - 1
    return b""


def _general_piece(block: bytes, first_line: int, layout: _Layout, display: str,
                   keep_rank: bool, integer_grades: bool) -> Piece:
    """Parse one piece of whole lines with pyarrow (the general reader)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if first_line == 1 and block.startswith(_BOM):
        # the input's byte order mark (the C reader declines it): skipped, not part of a field,
        # so whitespace after it is the first line's leading whitespace
        block = block[len(_BOM):]
    lines = block.count(b"\n") + (1 if block and not block.endswith(b"\n") else 0)
    # what pyarrow would take as data: NUL bytes, lone CRs, over-long lines
    suspect = b"\x00" in block or (
        b"\r" in block and _LONE_CR.search(block, 0, max(0, len(block) - 1)) is not None)
    if not suspect:
        # a line of MAX_LINE_BYTES holds a whole aligned window of half that: look for one
        # window without a line end (a few finds per MiB)
        half = MAX_LINE_BYTES // 2
        suspect = any(block.find(b"\n", at, at + half) == -1
                      for at in range(0, len(block) - half + 1, half))
    if suspect:
        _check_lines(block, first_line, layout, display, integer_grades)
    wanted = layout.wanted
    # lines shorter on average than the shortest data line: blank lines (normalise them away)
    shortest = 2 * len(layout.names)
    separator = _is_clean(block) if len(block) >= shortest * lines else None
    if block.startswith(_BOM):
        separator = None  # a byte order mark past the input's start: kept, by the normaliser
    table = None
    line_numbers: np.ndarray | None = None
    if separator is not None:
        try:
            table = _read_csv(block, separator, layout, wanted, integer_grades)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            table = None  # extra text after the last field, odd spacing: normalise below
        if table is not None and _may_hold_empty_fields(block):
            table = None  # a missing field read as an empty one: normalise below
        text = block
    if table is None:
        text, line_numbers = _normalise(block, layout)
        if not text.strip():
            return _empty_piece(lines, layout)
        try:
            table = _read_csv(text, b" ", layout, wanted, integer_grades)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            _check_lines(block, first_line, layout, display, integer_grades)
            raise InputFormatError(
                f"cannot read TREC {layout.kind} text: {error}", display, first_line
            ) from None
    rows = table.num_rows
    values = table[layout.value].combine_chunks()
    if values.type != pa.float64():
        values = values.cast(pa.float64())
    value_array = np.frombuffer(values.buffers()[1], dtype=np.float64, count=rows,
                                offset=values.offset * 8) if rows else np.zeros(0)

    def line_of(row: int) -> int:
        local = int(line_numbers[row]) if line_numbers is not None else row + 1
        return first_line + local - 1

    finite = np.isfinite(value_array)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        number = line_of(row)
        start = 0
        for _ in range(number - first_line):
            start = block.index(b"\n", start) + 1
        _check_lines(block, first_line, layout, display, integer_grades, start)
        raise InputFormatError(f"{layout.value} must be a finite number", display, number)
    encoded = pc.dictionary_encode(table["qid"]).combine_chunks()
    codes = np.frombuffer(encoded.indices.buffers()[1], dtype=np.int32, count=rows,
                          offset=encoded.indices.offset * 4) if rows else np.zeros(0, np.int32)
    segment_rows = np.flatnonzero(np.diff(codes, prepend=-1)).astype(np.int64)
    same_query = codes[1:] == codes[:-1]
    skips = np.zeros((0, 2), dtype=np.int64)
    if line_numbers is not None:
        skipped = line_numbers.astype(np.int64) - 1 - np.arange(rows, dtype=np.int64)
        changes = np.flatnonzero(np.diff(skipped, prepend=0))
        skips = np.stack([changes, skipped[changes]], axis=1).astype(np.int64)
    piece = Piece(
        rows=rows,
        names=encoded.dictionary.to_pylist(),
        segment_rows=segment_rows,
        segment_codes=codes[segment_rows].astype(np.int32),
        values=value_array,
        docs=[],
        ranks=None,
        doc_codes=None,
        doc_names=None,
        descending=not bool((same_query & (value_array[1:] > value_array[:-1])).any()),
        checked=False,
        skips=skips,
        lines=lines,
        run_id=_last_field(text, 5) if layout.kind == "run" else None,
    )
    if layout.kind == "run":
        piece.docs = string_chunks(table["docno"])
        if keep_rank:
            piece.ranks = string_chunks(table["rank"])
    else:
        docs = pc.dictionary_encode(table["docno"]).combine_chunks()
        piece.doc_codes = np.frombuffer(docs.indices.buffers()[1], dtype=np.int32, count=rows,
                                        offset=docs.indices.offset * 4)
        piece.doc_names = docs.dictionary.to_pylist()
    return piece


def _empty_piece(lines: int, layout: _Layout) -> Piece:
    """A piece of blank and comment lines only."""
    return Piece(
        rows=0, names=[], segment_rows=np.zeros(0, np.int64),
        segment_codes=np.zeros(0, np.int32), values=np.zeros(0), docs=[], ranks=None,
        doc_codes=np.zeros(0, np.int32) if layout.kind == "qrels" else None,
        doc_names=[] if layout.kind == "qrels" else None, descending=True, checked=True,
        skips=np.zeros((0, 2), dtype=np.int64), lines=lines, run_id=None,
    )


# ------------------------------------------------------------------------------------------
# the whole input, piece by piece


class _Reader:
    """Reads one input into pieces, in order, and reports the first bad line."""

    def __init__(self, source: Source, layout: _Layout, keep_rank: bool,
                 integer_grades: bool, kept: list[bytes] | None = None) -> None:
        self.source = source
        self.kept = kept  # a stream's chunks, kept as they are read (a second pass needs them)
        self.layout = layout
        self.keep_rank = keep_rank
        self.integer_grades = integer_grades
        self.pieces: list[Piece] = []
        self.lines = 0  # lines before the next piece
        self.text = False  # a byte other than whitespace was seen (comments count)
        self.fast = _fast.available()
        self.joiner: _fast.ValueJoiner | None = None  # a stream's values, joined as they come

    @property
    def display(self) -> str:
        return self.source.display

    def read(self) -> FastColumns:
        try:
            # (a file of size 0 is read as a stream: /proc files say 0 and hold lines)
            if self.fast and self.source.path is not None and self.source.size > 0:
                self._read_file(self.source.path, self.source.size)
            else:
                self._read_stream()
            if any(piece.rows for piece in self.pieces):
                values = self.joiner.values() if self.joiner is not None else None
                return _fast.merge(self.pieces, self.layout.kind, values)
        except MemoryError:
            where = f" (stopped after line {self.lines:,})" if self.lines else ""
            raise InputFormatError(
                f"not enough memory to read it{where}; free memory, or split the input",
                self.display,
            ) from None
        finally:
            if self.joiner is not None:
                self.joiner.close()
        kind, names = self.layout.kind, self.layout.description  # no data rows
        if self._has_text():
            raise InputFormatError(
                f"file has no data lines: expected TREC {kind} lines ({names})", self.display
            )
        raise InputFormatError(f"file is empty: expected TREC {kind} lines ({names})", self.display)

    def _has_text(self) -> bool:
        if self.text or self.source.path is None:
            return self.text
        return any(chunk.strip() for chunk in self.source.chunks())

    def _add(self, piece: Piece) -> None:
        self.pieces.append(piece)
        self.lines += piece.lines
        if self.joiner is not None:
            self.joiner.add(piece)

    def _general(self, block: bytes | memoryview, declined: Declined | None = None) -> Piece:
        """The general reader's piece (the C reader declined it, or is not there)."""
        block = bytes(block)  # a stream's large blocks come as views of its chunks
        first = self.lines + 1
        if declined is not None:
            import logging  # here, not at the top: start-up time (issue 13, item 21)

            logging.getLogger("rankwise.io").debug(
                "%s: general TREC reader from line %d (%s)", self.display,
                first + block.count(b"\n", 0, declined.offset), declined.reason)
            end = block.find(b"\n", declined.offset)
            raw = block[declined.offset : len(block) if end == -1 else end]
            if first == 1 and declined.offset == 0 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]  # the input's byte order mark: skipped, as below
            _check_line(raw[:-1] if raw.endswith(b"\r") else raw,
                        first + block.count(b"\n", 0, declined.offset), self.layout,
                        self.display, self.integer_grades)
        return _general_piece(block, first, self.layout, self.display, self.keep_rank,
                              self.integer_grades)

    # a plain file: ranges in parallel -------------------------------------------------
    def _read_file(self, path: str, size: int) -> None:
        if size == 0:
            return
        head = self.source.read_at(0, _HEAD)
        _binary_head(head, 1, self.layout, self.display)
        self.text = bool(head.strip())
        try:
            results = _fast.parse_file_ranges(path, size, self.layout.kind,
                                              keep_rank=self.keep_rank,
                                              integer_grades=self.integer_grades)
        except OSError as error:  # a read of the C reader failed (an I/O error)
            raise unreadable(error, self.display) from None
        bounds = _fast.range_bounds(size)
        for index, result in enumerate(results):
            if isinstance(result, Declined):
                begin = self._line_start(bounds[index])
                end = self._line_start(bounds[index + 1])
                if result.reason == "line too long":  # do not read the whole range first
                    head = self.source.read_at(result.offset, result.offset + MAX_LINE_BYTES + 1)
                    head = head.split(b"\n", 1)[0]
                    number = self.lines + 1 + self.source.read_at(begin, result.offset).count(
                        b"\n")
                    _check_line(head, number, self.layout, self.display, self.integer_grades)
                block = self.source.read_at(begin, end)
                self._add(self._general(block, Declined(result.reason, result.offset - begin)))
            else:
                self._add(result)

    def _line_start(self, offset: int) -> int:
        """The first offset at or after *offset* where a line starts (the C reader's rule)."""
        if offset == 0 or offset >= self.source.size:
            return min(offset, self.source.size)
        at = offset - 1
        limit = min(self.source.size, offset + MAX_LINE_BYTES + 1)
        while at < limit:
            data = self.source.read_at(at, min(limit, at + (1 << 16)))
            found = data.find(b"\n")
            if found != -1:
                return at + found + 1
            at += len(data)
        return limit

    # a stream: blocks of whole lines, parsed while the next ones are read -------------
    def _read_stream(self) -> None:
        from rankwise._threads import cores

        size = _STREAM_BLOCK if self.fast else 4 * _STREAM_BLOCK  # pyarrow: fewer, larger
        blocks = _head_checked(line_blocks(self._chunks(), size),
                               lambda head: _binary_head(head, 1, self.layout, self.display))
        workers = max(1, min(4, cores() - 1)) if self.fast else 0
        if self.fast:
            self.joiner = _fast.ValueJoiner()
        pool = None
        if workers:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(max_workers=workers)
        pending: deque[tuple[bytes | memoryview, Any]] = deque()
        too_long = None
        try:
            first = True
            try:
                for block in blocks:
                    first = False
                    if not self.text:
                        self.text = bool(bytes(block[:_HEAD]).strip()) or bool(
                            bytes(block).strip())
                    if pool is None:
                        self._add(self._general(block))
                        del block  # not held while the next block is joined
                        continue
                    pending.append((block, pool.submit(
                        _fast.parse_block, block, self.layout.kind, keep_rank=self.keep_rank,
                        integer_grades=self.integer_grades)))
                    while len(pending) > workers + 1:
                        self._take(*pending.popleft())
            except LineTooLong as error:
                too_long = error
            while pending:
                self._take(*pending.popleft())
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        if too_long is not None:
            if first:
                _binary_head(too_long.head, 1, self.layout, self.display)
            _check_line(too_long.head, self.lines + 1, self.layout, self.display,
                        self.integer_grades)

    def _chunks(self) -> Iterator[bytes]:
        for chunk in self.source.chunks():
            if self.kept is not None:
                self.kept.append(chunk)
            yield chunk

    def _take(self, block: bytes | memoryview, future: Any) -> None:
        result = future.result()
        self._add(self._general(block, result) if isinstance(result, Declined) else result)


def _read_columns(source: PathLike | bytes, layout: _Layout, keep_rank: bool,
                  integer_grades: bool = False, *, keep_text: bool = False,
                  ) -> tuple[FastColumns, str, bytes | None]:
    """The columns, the name for messages and, with *keep_text*, the whole decompressed text.

    The text of a stream (standard input, a pipe, compressed data) is kept as
    it is read, since it cannot be read again; a plain file is read again.
    """
    with open_source(source) as opened:
        kept: list[bytes] | None = [] if keep_text and opened.path is None else None
        columns = _Reader(opened, layout, keep_rank, integer_grades, kept).read()
        text = None
        if keep_text:
            text = b"".join(kept if kept is not None else opened.chunks())
        return columns, opened.display, text


def _last_run_id(data: bytes | FileView) -> str:
    """The run id of the last data line of a run file (the one trec_eval prints)."""
    size = len(data)
    tail = bytes(data[max(0, size - 2 * MAX_LINE_BYTES) : size])
    return _last_field(tail, 5).decode("utf-8", errors="replace")


def read_trec_run(
    source: PathLike | bytes, *, name: str | None = None, keep_rank: bool = False
) -> Run:
    r"""Read a TREC run file: ``qid iter docno rank score runid`` per line.

    Parameters
    ----------
    source : path, ``"-"`` for standard input, or bytes
        The file; gzip, bzip2, xz (and zstd, with the ``zstandard`` package)
        data is decompressed as it is read, whatever the file's name.
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
        document appears twice for one query, a line is longer than 1 MiB or
        holds a lone carriage return, or the file is empty or binary.

    Examples
    --------
    >>> run = read_trec_run(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\n")
    >>> run.name, len(run)
    ('bm25', 2)
    """
    from rankwise.data.run import Run

    columns, display, _ = _read_columns(source, _RUN_RANKED if keep_rank else _RUN, keep_rank)
    assert columns.doc_ids is not None
    dense = columns.interleaved  # blocks of a line or two: a code per row is cheaper
    return Run(
        columns.query_codes if dense else None,
        columns.query_ids,
        columns.doc_ids,
        columns.values,
        ranks=columns.ranks,
        name=name if name is not None else columns.run_id,
        source=display,
        locate=columns.lines,
        rank_order_blocks=columns.sorted_blocks,
        segments=None if dense else (columns.segment_starts, columns.segment_codes),
        check=True,
        check_rows=columns.unchecked_rows,
    )


def read_trec_qrels(
    source: PathLike | bytes, *, integer_grades: bool = False, subtopics: bool = False
) -> Qrels:
    r"""Read a TREC qrels file: ``qid iter docno grade`` per line.

    Parameters
    ----------
    source : path, ``"-"`` for standard input, or bytes
        The file; compressed data is decompressed as it is read.
    integer_grades : bool, default False
        Accept only integer grades (``-?digits``), the only ones trec_eval
        reads as written (it reads ``1.5`` as 1): for a drop-in that must give
        trec_eval's numbers. By default grades are any finite decimal number.
    subtopics : bool, default False
        Read diversity judgments: the second field is the subtopic
        (``qid subtopic docno grade``, ndeval's format), not TREC's ignored
        iteration, and a document may be judged once per subtopic. (The
        subtopic column is read in a second pass over the text, held whole in
        memory: diversity judgments are small. Standard input and pipes are
        kept as they are read, so they work too.)

    Returns
    -------
    Qrels

    Raises
    ------
    InputFormatError
        When a line does not have 4 fields, a grade is not a finite number, a
        judgment is given twice, or the file is empty or binary.

    Examples
    --------
    >>> qrels = read_trec_qrels(b"q1 0 d1 2\nq1 0 d2 0.5\n")
    >>> len(qrels), qrels.query_ids, qrels.grades.tolist()
    (2, ['q1'], [2.0, 0.5])
    >>> read_trec_qrels(b"q1 1 d1 2\nq1 2 d1 0\nq1 2 d2 1\n", subtopics=True)
    Qrels(1 query, 2 judgments, 2 subtopics)
    """
    from rankwise.data.qrels import Qrels

    columns, display, text = _read_columns(source, _DIVERSITY if subtopics else _QRELS, False,
                                           integer_grades, keep_text=subtopics)
    assert columns.doc_codes is not None and columns.doc_names is not None
    if subtopics:
        return Qrels.with_subtopics(
            columns.query_codes, columns.query_ids, columns.doc_codes, columns.doc_names,
            _subtopic_field(text or b"", len(columns.values)), columns.values,
            source=display, locate=columns.lines,
        )
    return Qrels(
        columns.query_codes,
        columns.query_ids,
        columns.doc_codes,
        columns.doc_names,
        columns.values,
        source=display,
        locate=columns.lines,
        check=True,
    )


def _subtopic_field(data: bytes, rows: int) -> pa.ChunkedArray:
    """The second field of every data line of a qrels text already read and checked."""
    text, _ = _normalise(data[len(_BOM):] if data.startswith(_BOM) else data, _QRELS)
    field = _read_csv(text, b" ", _QRELS, ("iter",), False)["iter"] if text else None
    if field is None or len(field) != rows:  # pragma: no cover - the first pass checked it
        raise InputFormatError("cannot read the subtopic field (column 2)", None)
    return field


def iter_lines(source: PathLike | bytes) -> Iterator[bytes]:
    """Yield the raw lines of a (possibly compressed) input, read once."""
    with open_source(source) as opened:
        tail = b""
        for chunk in opened.chunks():
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            yield from lines
        if tail:
            yield tail
