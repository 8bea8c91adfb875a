"""Judgments and runs from tables: pandas, polars, Arrow, Parquet, CSV/TSV, JSONL."""

from __future__ import annotations

import csv
import io
import itertools
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError
from rankwise.io._source import MAX_LINE_BYTES, Source, open_source

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = [
    "NotATableError",
    "TextLines",
    "qrels_from_table",
    "read_table",
    "refuse_no_rows",
    "run_from_table",
    "to_arrow_table",
]

class NotATableError(InputFormatError):
    """The object given is not a table at all (not a table with bad values)."""


def to_arrow_table(frame: Any) -> pa.Table:
    """Convert a pandas, polars or Arrow table to an Arrow table (zero-copy where possible)."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    module = type(frame).__module__.split(".")[0]
    if module == "polars":
        return frame.to_arrow()
    if module == "pandas":
        try:
            return pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
            raise _pandas_failure(frame, error) from None
    if hasattr(frame, "__arrow_c_stream__"):
        return pa.table(frame)
    raise NotATableError(
        f"expected a pandas, polars or Arrow table, got {type(frame).__module__}."
        f"{type(frame).__name__}"
    )


def _pandas_failure(frame: Any, error: Exception) -> InputFormatError:
    """The row and column a pandas frame cannot be converted at (values of mixed types)."""
    import pyarrow as pa

    from rankwise.data._arrow import first_failing_row

    for name in frame.columns:
        column = frame[name]
        try:
            pa.array(column)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            row = first_failing_row(_Rows(column), lambda part: pa.array(part.series), prefix=True)
            value = column.iloc[row]
            before = type(column.iloc[0]).__name__ if row else "nothing"
            return InputFormatError(
                f"row {row + 1}: column {str(name)!r}: {value!r} ({type(value).__name__}) does "
                f"not fit with the values before it ({before})", "<table>")
    message = str(error).split("\n")[0]
    return InputFormatError(f"cannot convert the table to Arrow: {message}", "<table>")


class _Rows:
    """A pandas column with the ``slice`` and ``len`` of an Arrow array (for the bisection)."""

    def __init__(self, series: Any) -> None:
        self.series = series

    def __len__(self) -> int:
        return len(self.series)

    def slice(self, start: int, length: int) -> _Rows:
        return _Rows(self.series.iloc[start : start + length])


def _column(table: pa.Table, name: str, role: str, where: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise InputFormatError(
            f"{role} column {name!r} not found; columns are {table.column_names}", where
        )
    return table[name]


_FORMAT = b"rankwise.format"  # schema metadata read_table leaves for the converters below
_PATH = b"rankwise.path"


class TextLines:
    """The line of each data row of a CSV, TSV or JSONL file, found when a message needs it.

    Lines are counted from 1, the header included; blank lines (which the
    readers skip) are counted too. The file is read again, only for messages.
    """

    __slots__ = ("header", "path", "skip_spaces")

    def __init__(self, path: str, header: int, skip_spaces: bool) -> None:
        self.path = path
        self.header = header
        self.skip_spaces = skip_spaces

    def __getstate__(self) -> tuple[str, int, bool]:
        return self.path, self.header, self.skip_spaces

    def __setstate__(self, state: tuple[str, int, bool]) -> None:
        self.path, self.header, self.skip_spaces = state

    def __call__(self, row: int) -> int:
        """The line of data row *row* (from 0)."""
        from rankwise.io.trec import iter_lines

        seen = -1
        for number, raw in enumerate(iter_lines(self.path), start=1):
            blank = not raw.strip() if self.skip_spaces else raw in (b"", b"\r")
            if number <= self.header or blank:
                continue
            seen += 1
            if seen == row:
                return number
        return row + 1 + self.header


def _where(table: pa.Table, source: str | None) -> tuple[str, TextLines | None, bool]:
    """The name, the line finder and whether numbers are text, of a table read_table made."""
    meta = table.schema.metadata or {}
    kind = meta.get(_FORMAT, b"").decode()
    path = meta.get(_PATH, b"").decode()
    where = source or "<table>"
    lines = None
    if path and kind in ("csv", "tsv", "jsonl"):
        lines = TextLines(path, 1 if kind != "jsonl" else 0, skip_spaces=kind == "jsonl")
    return where, lines, kind in ("csv", "tsv")


_NEEDS = {"run": "a run needs at least one row of query id, document id and score",
          "qrels": "judgments need at least one row of query id, document id and grade"}
_NO_ROWS = {"parquet": "file has no rows", "csv": "file has no data lines (only its header)",
            "tsv": "file has no data lines (only its header)", "jsonl": "file has no data lines"}


def refuse_no_rows(table: pa.Table, kind: str, source: str | None, *,
                   records: bool = False) -> None:
    """Raise :class:`InputFormatError` when *table* holds no rows: the rule for every input.

    A run (``kind="run"``) or judgments (``"qrels"``) read from a file of any
    format, a frame, a dict or records hold at least one row: an empty input
    is nearly always a failed job or the wrong file (see docs/reading.md).

    Examples
    --------
    >>> import pyarrow as pa
    >>> refuse_no_rows(pa.table({"query_id": pa.array([], pa.string())}), "run", None)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: <table>: the table has no rows: a run needs at \
least one row of query id, document id and score
    """
    if table.num_rows:
        return
    form = (table.schema.metadata or {}).get(_FORMAT, b"").decode()
    what = "no records" if records else _NO_ROWS.get(form, "the table has no rows")
    where = source or ("<records>" if records else "<table>")
    raise InputFormatError(f"{what}: {_NEEDS[kind]}", where)


def qrels_from_table(
    frame: Any,
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    relevance: str = "relevance",
    subtopic: str | None = None,
    source: str | None = None,
) -> Qrels:
    """Judgments from a table with query, document and relevance columns.

    Ids are text (integers are converted); grades must be numbers (in CSV
    and TSV files, decimal text), fractional grades included.

    With *subtopic* (a column name), diversity judgments: a grade per
    subtopic of the query.
    """
    from rankwise.data import Qrels
    from rankwise.data._arrow import numbers_column

    table = to_arrow_table(frame)
    where, lines, text = _where(table, source)
    grades = numbers_column(_column(table, relevance, "relevance", where), "grade", where, lines,
                            text=text, booleans=True)
    return Qrels.from_arrow(
        _column(table, query, "query", where),
        _column(table, doc, "document", where),
        grades,
        source=where,
        locate=lines,
        subtopics=_column(table, subtopic, "subtopic", where) if subtopic is not None else None,
    )


def run_from_table(
    frame: Any,
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    score: str = "score",
    name: str = "run",
    source: str | None = None,
) -> Run:
    """A run from a table with query, document and score columns.

    Ids are text (integers are converted); scores must be numbers (in CSV
    and TSV files, decimal text).
    """
    from rankwise.data import Run
    from rankwise.data._arrow import numbers_column

    table = to_arrow_table(frame)
    where, lines, text = _where(table, source)
    scores = numbers_column(_column(table, score, "score", where), "score", where, lines,
                            text=text)
    return Run.from_arrow(
        _column(table, query, "query", where),
        _column(table, doc, "document", where),
        scores,
        name=name,
        source=where,
        locate=lines,
        copy_scores=False,
    )


def read_table(path: str, fmt: str | None = None) -> pa.Table:
    """Read a Parquet, CSV, TSV or JSONL file into an Arrow table.

    The format comes from the extension (``.parquet``, ``.csv``, ``.tsv``,
    ``.jsonl``/``.ndjson``, optionally compressed) unless *fmt* names it;
    compression is recognised by the content. Every column of a CSV or TSV
    file is read as text (ids stay as written: ``007``, ``NA``); scores and
    grades are parsed when the table is turned into a run or judgments.
    """
    kind = fmt or table_format(path)
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
    meta = dict(table.schema.metadata or {})
    meta[_FORMAT] = kind.encode()
    meta[_PATH] = opened.display.encode() if rereadable else b""
    return table.replace_schema_metadata(meta)


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
        if opened.path is not None:
            return pq.read_table(opened.path)
        return pq.read_table(pa.BufferReader(b"".join(opened.chunks())))
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
        raise InputFormatError("file is empty: expected a header line naming the columns",
                               opened.display)
    source = _stream(opened, None if opened.path is not None else itertools.chain([head], chunks))
    try:
        return pacsv.read_csv(
            source,
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowException, OSError) as error:
        if opened.display != "<stdin>" and os.path.isfile(opened.display):
            _diagnose_csv(opened.display, delimiter, names)
        raise _arrow_failure(error, "csv", opened.display) from None


def _diagnose_csv(path: str, delimiter: str, names: list[str]) -> None:
    """Raise the error of the first bad line of a CSV file pyarrow refused (if one is found)."""
    from rankwise.io.trec import iter_lines

    for number, raw in enumerate(iter_lines(path), start=1):
        if raw in (b"", b"\r"):
            continue
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            raise InputFormatError(
                f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {error.start + 1}): "
                "rankwise reads UTF-8 files", path, number) from None
        try:
            fields = next(csv.reader([text.rstrip("\r")], delimiter=delimiter), [])
        except csv.Error as error:
            raise InputFormatError(f"cannot read this line: {error}", path, number) from None
        if len(fields) != len(names):
            raise InputFormatError(
                f"expected {len(names)} fields ({delimiter.join(names)}), got {len(fields)}",
                path, number)


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
        try:
            record = json.loads(raw.decode("utf-8"))
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


_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}


def table_format(path: str) -> str | None:
    """The table format implied by *path*'s extension, or None for TREC text."""
    name = os.fspath(path).lower()
    for compressed in (".gz", ".bz2", ".xz"):
        if name.endswith(compressed):
            name = name[: -len(compressed)]
    for suffix, kind in _SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None
