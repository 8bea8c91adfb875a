"""Judgments and runs from table files: Parquet, CSV, TSV and JSONL.

A file is read into an Arrow table (:func:`read_table`), which goes on to
the one reader of tables, :mod:`rankwise.io.frames` (the roles of its
columns, the C reader, the general one): :func:`read_qrels_file` and
:func:`read_run_file` are that road, one pass.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError
from rankwise.io._forms import table_format
from rankwise.io._source import MAX_LINE_BYTES, Source, describe, open_source

# what the reader of tables reads of a table this module made (the format and path of its
# file, in the schema's metadata), and the helpers recommenders/inputs.py reads it with
from rankwise.io.frames import _FORMAT, _PATH, TextLines, _where, csv_records  # noqa: F401

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = [
    "TextLines",
    "read_qrels_file",
    "read_run_file",
    "read_table",
    "table_format",
]


def read_qrels_file(path: str, kind: str, columns: dict[str, Any], *,
                    subtopics: bool | None = None) -> Qrels:
    """Judgments from a table file of format *kind* (*columns*: the checked role map)."""
    from rankwise.io.frames import qrels_of_table

    return qrels_of_table(read_table(path, kind), columns, source=describe(path),
                          typed=kind in ("parquet", "jsonl"), subtopics=subtopics)


def read_run_file(path: str, kind: str, columns: dict[str, Any], *, name: str,
                  keep_rank: bool = False) -> Run:
    """A run from a table file of format *kind* (*columns*: the checked role map)."""
    from rankwise.io.frames import run_of_table

    return run_of_table(read_table(path, kind), columns, name=name, source=describe(path),
                        keep_rank=keep_rank, typed=kind in ("parquet", "jsonl"))

def read_table(path: str, fmt: str | None = None) -> pa.Table:
    """Read a Parquet, CSV, TSV or JSONL file into an Arrow table.

    The format comes from the extension (``.parquet``, ``.csv``, ``.tsv``,
    ``.jsonl``/``.ndjson``, optionally compressed) unless *fmt* names it;
    compression is recognised by the content. Every column of a CSV or TSV
    file is read as text (ids stay as written: ``007``, ``NA``); scores and
    grades are parsed when the table is turned into a run or judgments. An
    empty field (``q1,,3`` or ``""``) is a missing value: where an id, a score
    or a grade is read, an error naming its line. A column name twice is an
    error.
    """
    kind = fmt or table_format(path)
    if kind is None:
        raise InputFormatError(
            "cannot tell the table's format from its name: expected a file ending in .parquet, "
            ".csv, .tsv or .jsonl (optionally compressed: .csv.gz, .tsv.zst, ...)", path
        )
    if kind not in ("parquet", "csv", "tsv", "jsonl"):
        raise InputFormatError(
            f"unknown table format {kind!r}; expected parquet, csv, tsv or jsonl", path
        )
    with open_source(path) as opened:
        if kind == "parquet":
            table = _read_parquet(opened)
        elif kind == "jsonl":
            table = _read_jsonl(opened)
        else:
            table = _read_csv(opened, "\t" if kind == "tsv" else ",")
        rereadable = opened.display != "<stdin>" and os.path.isfile(opened.display)
    try:
        table.column_names  # noqa: B018 (pyarrow decodes the names here)
    except UnicodeDecodeError:
        if kind == "jsonl" and rereadable:
            _diagnose_jsonl(opened.display)  # names the line
        raise InputFormatError("a column name is not UTF-8 text: rankwise reads UTF-8 files",
                               opened.display) from None
    refuse_repeated_columns(table.column_names, opened.display)
    meta = dict(table.schema.metadata or {})
    meta[_FORMAT] = kind.encode()
    meta[_PATH] = opened.display.encode() if rereadable else b""
    return table.replace_schema_metadata(meta)


def refuse_repeated_columns(names: list[str], where: str, line: int | None = None) -> None:
    """Raise :class:`InputFormatError` when a column name comes twice (a header line's, *line*).

    A table whose query, document, score or grade column is named twice cannot say
    which one is meant: no column is guessed.

    Examples
    --------
    >>> refuse_repeated_columns(["query_id", "doc_id", "score", "score"], "run.csv", 1)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: run.csv:1: the column 'score' is there twice; a \
table's column names must differ
    """
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputFormatError(
                f"the column {name!r} is there twice; a table's column names must differ",
                where, line)
        seen.add(name)


class _ChunksIO(io.RawIOBase):
    """The chunks of a source as a readable file, for pyarrow's readers."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._current = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not len(self._current):
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._current = memoryview(chunk)
        count = min(len(buffer), len(self._current))
        buffer[:count] = self._current[:count]
        self._current = self._current[count:]
        return count


def _stream(opened: Source, chunks: Iterator[bytes] | None = None) -> Any:
    import pyarrow as pa

    if opened.path is not None and chunks is None:
        return opened.path
    return pa.PythonFile(io.BufferedReader(_ChunksIO(chunks or opened.chunks())), mode="r")


def _arrow_failure(error: BaseException, kind: str, display: str) -> InputFormatError:
    message = str(error).split("\n")[0]
    return InputFormatError(f"cannot read {kind} file: {message}", display)


def _read_parquet(opened: Source) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = (opened.path if opened.path is not None
                  else pa.BufferReader(b"".join(opened.chunks())))
        with pq.ParquetFile(source) as parquet:
            refuse_repeated_columns(parquet.schema_arrow.names, opened.display)
            return parquet.read()
    except (pa.ArrowException, OSError) as error:
        raise _arrow_failure(error, "parquet", opened.display) from None


def _read_csv(opened: Source, delimiter: str) -> pa.Table:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    chunks = opened.chunks()
    head = b""
    for chunk in chunks:
        head += chunk
        if b"\n" in head or len(head) > MAX_LINE_BYTES:
            break
    header = head.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        names = next(csv.reader([header.decode("utf-8-sig")], delimiter=delimiter), [])
    except (UnicodeDecodeError, csv.Error) as error:
        raise InputFormatError(f"the header line cannot be read: {error}", opened.display,
                               1) from None
    if not names:
        if head.strip():  # a blank first line, then something
            raise InputFormatError("the first line is blank: expected a header line naming "
                                   "the columns", opened.display, 1)
        raise InputFormatError("file is empty: expected a header line naming the columns",
                               opened.display)
    refuse_repeated_columns(names, opened.display, 1)
    source = _stream(opened, None if opened.path is not None else itertools.chain([head], chunks))
    try:
        return pacsv.read_csv(
            source,
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                # an empty field is a missing value (an id, a score: an error naming its
                # line), never an id '' or a guess; any other text ("NA", "null") is text
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                null_values=[""],
            ),
        )
    except (pa.ArrowException, OSError) as error:
        if opened.display != "<stdin>" and os.path.isfile(opened.display):
            _diagnose_csv(opened.display, delimiter, names)
        raise _arrow_failure(error, "csv", opened.display) from None


def _diagnose_csv(path: str, delimiter: str, names: list[str]) -> None:
    """Raise the error of the first bad record of a CSV file pyarrow refused (if one is found).

    A record is named by the line it starts on (a quoted field may span lines).
    """
    for start, fields in csv_records(path, delimiter):
        if fields and len(fields) != len(names):
            raise InputFormatError(
                f"expected {len(names)} fields ({delimiter.join(names)}), got {len(fields)}",
                path, start)


def _read_jsonl(opened: Source) -> pa.Table:
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        return pajson.read_json(_stream(opened))
    except (pa.ArrowException, OSError) as error:
        if "Empty JSON file" in str(error):
            raise InputFormatError("file is empty: expected one JSON object per line",
                                   opened.display) from None
        if opened.display != "<stdin>" and os.path.isfile(opened.display):
            _diagnose_jsonl(opened.display)
        raise _arrow_failure(error, "jsonl", opened.display) from None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if value is None:
        return "null"
    return "a list" if isinstance(value, list) else "an object"


def _diagnose_jsonl(path: str) -> None:
    """Raise the error of the first bad line of a JSONL file pyarrow refused (if one is found)."""
    import json

    from rankwise.io.trec import iter_lines

    first_seen: dict[str, tuple[str, int]] = {}
    for number, raw in enumerate(iter_lines(path), start=1):
        if not raw.strip():
            continue
        def unique(pairs: list[tuple[str, Any]], number: int = number) -> dict[str, Any]:
            keys = [key for key, _ in pairs]
            for key in keys:
                if keys.count(key) > 1:  # json.loads would keep the last silently
                    raise InputFormatError(f"field {key!r} is there twice in this object; a "
                                           "record's field names must differ", path, number)
            return dict(pairs)

        def finite(text: str, number: int = number) -> float:
            value = float(text)
            if not math.isfinite(value):  # pyarrow refuses it: json.loads would give inf
                raise InputFormatError(f"the number {text} is too large for a 64-bit float",
                                       path, number)
            return value

        try:
            record = json.loads(raw.decode("utf-8"), object_pairs_hook=unique,
                                parse_float=finite)
        except InputFormatError:
            raise
        except UnicodeDecodeError as error:
            raise InputFormatError(
                f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {error.start + 1}): "
                "rankwise reads UTF-8 files", path, number) from None
        except ValueError as error:
            raise InputFormatError(f"not valid JSON: {error}", path, number) from None
        if not isinstance(record, dict):
            raise InputFormatError(
                f"expected one JSON object per line, got {_json_kind(record)}", path, number)
        for key, value in record.items():
            kind = _json_kind(value)
            if kind == "null":
                continue
            seen = first_seen.setdefault(key, (kind, number))
            if seen[0] != kind:
                raise InputFormatError(
                    f"field {key!r} is {kind} here ({json.dumps(value)[:40]}) but {seen[0]} in "
                    f"line {seen[1]}: a column holds one type", path, number)
