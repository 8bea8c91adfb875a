"""Tables in memory to judgments and runs: pandas, polars and Arrow frames, at C speed.

The one reader of a table, whichever way it came: a frame given, the Arrow
table of a Parquet, CSV, TSV or JSONL file (:mod:`rankwise.io.tables`), or
of named tuples (:mod:`rankwise.io.records`). It finds the columns of each
role (``query_id``, ``doc_id``, ``relevance``, ``score``, ``rank``,
``subtopic``: by the ``columns`` map, else by their usual names) and hands
them to :class:`~rankwise.Qrels` or :class:`~rankwise.Run` in one call,
with the type the query ids were given in.

A run is first read where its columns are (:func:`run_from_frame`): Arrow
string, large_string and string_view buffers (pyarrow, polars, pandas'
Arrow-backed strings) and numpy object arrays of ``str`` (pandas' object
columns), with the C module :mod:`rankwise.data._ccolumns`, which cuts the
rows into blocks of one query, checks each block for a document listed twice
and notes whether the run is in rank order, in one pass. No Python loop per
row, and pandas' object columns are never converted to Arrow by pyarrow.
That reader reads only what it is sure of and returns None otherwise (the C
module is not built, a column is missing values or holds something other
than text, a document is listed twice, a score is not finite): the general
path (:func:`run_from_table`) then reads the table, with the same values and
the precise error messages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._compiled import enabled, load
from rankwise.data import Qrels, Run
from rankwise.data._arrow import (
    array_to_numpy,
    as_string_chunks,
    first_failing_row,
    numbers_column,
    numbers_to_numpy,
)
from rankwise.data._strings import StringColumn
from rankwise.exceptions import InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "BEIR_QRELS_HEADER",
    "NotATableError",
    "TextLines",
    "csv_records",
    "numbers_of_table",
    "qrels_from_table",
    "qrels_of_table",
    "refuse_no_rows",
    "run_from_frame",
    "run_from_table",
    "run_of_table",
    "split_one_table",
    "table_of_columns",
    "table_path",
    "to_arrow_table",
]

_ccolumns = load("rankwise.data._ccolumns")
_LOG = logging.getLogger("rankwise.io")

Pick = Callable[[list[str]], tuple[str, str, str]]


def _native() -> Any:
    return _ccolumns if enabled() else None


def run_from_frame(
    frame: Any, pick: Pick, *, name: str = "run", source: str = "<table>",
    locate: Callable[[int], int] | None = None,
    typed_by: Callable[[], type | None] | None = None,
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
    typed_by : callable, optional
        The type the query ids were given in (asked once the columns are picked).

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
    rows = None
    if split:  # a query in several blocks: each block was checked, not their union
        ends = np.append(starts[1:], len(scores))
        several = np.isin(codes, np.array(split, dtype=np.int32))
        lengths = (ends - starts)[several]
        rows = np.repeat(starts[several] - (np.cumsum(lengths) - lengths), lengths) + np.arange(
            int(lengths.sum()), dtype=np.int64
        )
    return Run(
        None,
        names,
        doc_ids,
        scores,
        name=name,
        source=source,
        locate=locate,
        rank_order_blocks=starts if grouped and descending else None,
        segments=(starts, codes),
        query_id_type=typed_by() if typed_by is not None else None,
        check=bool(split),
        check_rows=rows,
    )


def _columns(frame: Any, pick: Pick) -> tuple[Any, Any, Any] | None:
    """The query, document and score columns: Arrow columns or pandas Series."""
    import pyarrow as pa

    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        names = pick(frame.column_names)
        if any(frame.column_names.count(picked) > 1 for picked in names):
            return None  # a column named twice: the general path says which
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


class NotATableError(InputFormatError):
    """The object given is not a table at all (not a table with bad values)."""


def to_arrow_table(frame: Any, source: str = "<table>") -> pa.Table:
    """Convert a pandas, polars or Arrow table to an Arrow table (zero-copy where possible).

    *source* names the table in the error of a pandas column Arrow cannot
    hold (its row and column).
    """
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    module = type(frame).__module__.split(".")[0]
    if module == "polars":
        return frame.to_arrow()
    if module == "pandas":
        _check_pandas_frame(frame, source)
        numeric = _numeric_pandas(frame)
        if numeric is not None:
            return numeric
        try:
            return pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
            raise _pandas_failure(frame, error, source) from None
    if hasattr(frame, "__arrow_c_stream__"):
        return pa.table(frame)
    raise NotATableError(
        f"expected a pandas, polars or Arrow table, got {type(frame).__module__}."
        f"{type(frame).__name__}"
    )


def _check_pandas_frame(frame: Any, source: str) -> None:
    """A pandas object that is not a frame, or a frame with a column name twice: one clear error.

    Examples
    --------
    >>> import pandas as pd
    >>> _check_pandas_frame(pd.Series([1.0]), "<table>")
    Traceback (most recent call last):
    ...
    rankwise.io.frames.NotATableError: <table>: expected a table (a pandas DataFrame), got a \
pandas Series: give the frame it came from, or Series.to_frame()
    >>> _check_pandas_frame(pd.DataFrame([[1, 2]], columns=["score", "score"]), "<table>")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: <table>: the column 'score' is there twice; a \
table's column names must differ
    """
    from collections import Counter

    kind = type(frame).__name__
    if kind != "DataFrame" or not hasattr(frame, "columns"):
        remedy = ("give the frame it came from, or Series.to_frame()" if kind == "Series"
                  else "give a DataFrame")
        raise NotATableError(f"{source}: expected a table (a pandas DataFrame), got a pandas "
                             f"{kind}: {remedy}")
    names = list(frame.columns)
    if len(set(map(str, names))) != len(names):
        counts = Counter(map(str, names))
        twice = next(name for name, count in counts.items() if count > 1)
        raise InputFormatError(
            f"{source}: the column {twice!r} is there twice; a table's column names must differ"
        )


def _numeric_pandas(frame: Any) -> pa.Table | None:
    """A pandas frame of numpy number columns as Arrow, each column's buffer as it is; or None.

    The table :meth:`pyarrow.Table.from_pandas` makes (without the index
    and pandas' schema metadata, which nothing reads), without its pass
    over every float to find NaN (a null in Arrow, as pandas means it) when
    the column holds none (its minimum is not NaN: one numpy pass), and
    without its thread pool. None (convert it with ``from_pandas``) when a
    column is not a numpy integer, boolean, float32 or float64 column of
    native byte order, or the column names are not distinct strings.

    Examples
    --------
    >>> import pandas as pd
    >>> table = _numeric_pandas(pd.DataFrame({"user": [1, 2], "score": [0.5, float("nan")]}))
    >>> table.column("score").to_pylist(), table.schema.types
    ([0.5, None], [DataType(int64), DataType(double)])
    >>> _numeric_pandas(pd.DataFrame({"user": [1], "item": ["a"]})) is None
    True
    """
    import pyarrow as pa

    names = list(frame.columns)
    if not all(type(name) is str for name in names) or len(set(names)) != len(names):
        return None
    dtypes = list(frame.dtypes)
    if not all(isinstance(dtype, np.dtype) and dtype.isnative and (
            dtype.kind in "iub" or dtype in (np.float32, np.float64)) for dtype in dtypes):
        return None
    arrays = []
    for name, dtype in zip(names, dtypes, strict=True):
        values = frame[name].to_numpy()  # a numpy column: its buffer, no copy
        nan = dtype.kind == "f" and len(values) > 0 and bool(np.isnan(values.min()))
        arrays.append(pa.array(values, from_pandas=nan))  # NaN: null, as from_pandas
    return pa.Table.from_arrays(arrays, names=names)


def _pandas_failure(frame: Any, error: Exception, source: str = "<table>"
                    ) -> InputFormatError:
    """The row and column a pandas frame cannot be converted at (values of mixed types)."""
    import pyarrow as pa

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
                f"not fit with the values before it ({before})", source)
    message = str(error).split("\n")[0]
    return InputFormatError(f"cannot convert the table to Arrow: {message}", source)


def table_of_columns(columns: Mapping[Any, Any], what: str) -> pa.Table:
    """An Arrow table of ``{column: values}`` (columns of equal length).

    Examples
    --------
    >>> table_of_columns({"user": [1, 2], "item": ["a", "b"]}, "test").num_rows
    2
    >>> table_of_columns({"user": [1, 2], "item": ["a"]}, "test")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: test: expected a table or {column: values} of \
equal-length columns, got a dict that Arrow could not read (...)
    """
    import pyarrow as pa

    try:
        return pa.table({str(k): v for k, v in columns.items()})
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as error:
        raise InputFormatError(
            f"{what}: expected a table or {{column: values}} of equal-length columns, "
            f"got a {type(columns).__name__} that Arrow could not read ({error})"
        ) from None


def numbers_of_table(table: pa.Table, column: str, label: str, what: str, *,
                     booleans: bool = False) -> np.ndarray:
    """The *column* of *table* as finite float64, or the error naming its first bad row.

    One rule with :func:`run_from_table`: numbers, or decimal text in CSV
    and TSV files; the error names the file and line of a table
    :func:`rankwise.io.tables.read_table` read (else *what* and the row),
    *label* (what the column holds), what came. A float64 column of one
    chunk (a pandas or numpy column) is read in place: a read-only view, no
    copy.
    """
    import pyarrow as pa

    from rankwise.data._arrow import row_error

    path = (table.schema.metadata or {}).get(_PATH, b"").decode()
    where, lines, text = _where(table, path or what)
    values = table.column(column)
    if values.num_chunks == 1 and values.type == pa.float64() and not values.null_count:
        values = array_to_numpy(values.chunk(0), np.float64)
    else:
        values = numbers_column(values, label, where, lines, text=text, booleans=booleans)
    with np.errstate(all="ignore"):  # a sum past the largest float is no error
        total = np.add.reduce(values) if len(values) else 0.0
    if not np.isfinite(total) and not (np.isfinite(values.min()) and np.isfinite(values.max())):
        # a finite sum: no NaN nor infinity (either makes the sum so), in one pass; else
        # NaN makes min NaN, infinity min or max infinite: no temporary per row unless bad
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        raise row_error(f"{label} must be a finite number, got {values[row]}", row, where,
                        lines)
    return values


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
    if table.column_names.count(name) > 1:
        raise InputFormatError(
            f"the {role} column {name!r} is there twice; a table's column names must differ",
            where
        )
    return table[name]


_FORMAT = b"rankwise.format"  # schema metadata read_table leaves for the converters below
_PATH = b"rankwise.path"


class TextLines:
    """The line of each data row of a CSV, TSV or JSONL file, found when a message needs it.

    Lines are counted from 1, the header included; blank lines (which the
    readers skip) are counted too, and a CSV or TSV record whose quoted field
    holds a line end starts where it starts (a *delimiter* reads the file as
    CSV). The file is read again, only for messages.
    """

    __slots__ = ("delimiter", "header", "path", "skip_spaces")

    def __init__(self, path: str, header: int, skip_spaces: bool,
                 delimiter: str | None = None) -> None:
        self.path = path
        self.header = header
        self.skip_spaces = skip_spaces
        self.delimiter = delimiter

    def __getstate__(self) -> tuple[str, int, bool, str | None]:
        return self.path, self.header, self.skip_spaces, self.delimiter

    def __setstate__(self, state: tuple[str, int, bool, str | None]) -> None:
        self.path, self.header, self.skip_spaces, self.delimiter = state

    def __call__(self, row: int) -> int:
        """The line of data row *row* (from 0)."""
        if self.delimiter is not None:
            return self._record_line(row, self.delimiter)
        from rankwise.io.trec import iter_lines  # a message's line only

        seen = -1
        for number, raw in enumerate(iter_lines(self.path), start=1):
            blank = not raw.strip() if self.skip_spaces else raw in (b"", b"\r")
            if number <= self.header or blank:
                continue
            seen += 1
            if seen == row:
                return number
        return row + 1 + self.header

    def _record_line(self, row: int, delimiter: str) -> int:
        """The first line of CSV record *row*, the header and blank lines skipped."""
        seen, records = -1, 0
        for start, fields in csv_records(self.path, delimiter):
            if not fields:  # a blank line
                continue
            records += 1
            if records <= self.header:
                continue
            seen += 1
            if seen == row:
                return start
        return row + 1 + self.header


def csv_records(path: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Each record of a CSV or TSV file (decompressed) with the line it starts on.

    Read by Python's csv module, which takes quotes as pyarrow does (a quote
    opens a field only at its start; a quoted field may hold line ends); its
    limit on a field's length (131,072 characters) is lifted while it reads.
    A blank line is an empty record. For messages only: a line that is not
    UTF-8 is an :class:`InputFormatError` naming it, as is one the csv module
    cannot read.
    """
    import csv

    from rankwise.io.trec import iter_lines

    def lines() -> Iterator[str]:
        for number, raw in enumerate(iter_lines(path), start=1):
            try:
                yield raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r")
            except UnicodeDecodeError as error:
                raise InputFormatError(
                    f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column "
                    f"{error.start + 1}): rankwise reads UTF-8 files", path, number) from None

    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, (1 << 31) - 1))
    try:
        reader = csv.reader(lines(), delimiter=delimiter)
        end = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise InputFormatError(f"cannot read this line: {error}", path,
                                       reader.line_num) from None
            start, end = end + 1, reader.line_num
            yield start, fields
    finally:
        csv.field_size_limit(limit)


class AfterHeader:
    """The line of data row *row* of a CSV or TSV text read once (standard input): row + 2.

    Its lines are gone, so the rows are taken one to a line after the header
    line (a quoted line end or a blank line would shift them).
    """

    __slots__ = ()

    def __call__(self, row: int) -> int:
        return row + 2


def table_path(table: Any) -> str | None:
    """The file a table was read from by :func:`rankwise.io.tables.read_table`, else None.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table_path(pa.table({"user": ["u1"]})) is None
    True
    """
    meta = getattr(getattr(table, "schema", None), "metadata", None) or {}
    return meta.get(_PATH, b"").decode() or None


def _where(table: pa.Table, source: str | None
           ) -> tuple[str, TextLines | AfterHeader | None, bool]:
    """The name, the line finder and whether numbers are text, of a table read_table made."""
    meta = table.schema.metadata or {}
    kind = meta.get(_FORMAT, b"").decode()
    path = meta.get(_PATH, b"").decode()
    where = source or "<table>"
    lines: TextLines | AfterHeader | None = None
    if path and kind in ("csv", "tsv"):
        lines = TextLines(path, 1, skip_spaces=False, delimiter="\t" if kind == "tsv" else ",")
    elif path and kind == "jsonl":
        lines = TextLines(path, 0, skip_spaces=True)
    elif kind in ("csv", "tsv"):  # read once (standard input): the header still counts
        lines = AfterHeader()
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
    query_id_type: type | None = None,
) -> Qrels:
    """Judgments from a table with query, document and relevance columns.

    Ids are text (integers are converted); grades must be numbers (in CSV
    and TSV files, decimal text), fractional grades included.

    With *subtopic* (a column name), diversity judgments: a grade per
    subtopic of the query.
    """
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
        query_id_type=query_id_type,
    )


def run_from_table(
    frame: Any,
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    score: str = "score",
    name: str = "run",
    source: str | None = None,
    query_id_type: type | None = None,
) -> Run:
    """A run from a table with query, document and score columns.

    Ids are text (integers are converted); scores must be numbers (in CSV
    and TSV files, decimal text).
    """
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
        query_id_type=query_id_type,
    )




_CANDIDATES = {
    "query_id": ("query_id", "qid", "query", "query-id"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "corpus-id"),
    "relevance": ("relevance", "label", "grade", "rel"),
    "score": ("score", "prediction", "pred"),
    "rank": ("rank",),
    "subtopic": ("subtopic", "intent"),
}
BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")
"""The header of BEIR's qrels TSV files, whose ``score`` is the relevance grade."""
_ROLE_TEXT = {"query_id": "query", "doc_id": "document", "relevance": "relevance",
              "score": "score", "rank": "rank", "subtopic": "subtopic"}



@dataclass(frozen=True)
class _Origin:
    """Where a table came from, for messages.

    Attributes
    ----------
    where : str or None
        The file's name (None: a frame, ``<table>``).
    header : bool
        Its column names are the first line of a CSV or TSV file.
    records : bool
        It was made from named tuples.
    lines : callable or None
        The line of each row in its file (CSV, TSV, JSONL files).
    """

    where: str | None = None
    header: bool = False
    records: bool = False
    lines: Any = None


_FRAME = _Origin()


def _origin(table: Any, source: str | None, records: bool = False) -> _Origin:
    _, lines, header = _where(table, source)
    return _Origin(source, header, records, lines)


_REMEDIES = {
    "relevance": "; judgments without grades (implicit feedback: every listed pair is relevant) "
                 "say so with columns={'relevance': None} (--columns relevance=)",
    "score": "; a run ordered by a rank column instead: columns={'rank': ...}",
}


def _header_hint(names: list[str], origin: _Origin) -> str:
    """A remedy when a CSV or TSV file's first line looks like data, not a header."""
    known = {name for candidates in _CANDIDATES.values() for name in candidates}
    if not origin.header or known & set(names):
        return ""
    return ("; the first line of a CSV or TSV file names its columns: is the header missing? "
            "(add one, such as query_id,doc_id,score or query_id,doc_id,relevance)")


def _find(names: list[str], columns: dict[str, Any], role: str,
          origin: _Origin = _FRAME) -> str | None:
    """The column of *role*: the one *columns* names, else the first candidate present."""
    wanted = columns.get(role)
    if wanted is not None:
        if wanted not in names:
            raise InputFormatError(
                f"{_ROLE_TEXT[role]} column {wanted!r} (columns[{role!r}]) not found; "
                f"columns are {names}{_header_hint(names, origin)}", origin.where
            )
        return str(wanted)
    for name in _CANDIDATES[role]:
        if name in names:
            return name
    return None


def _pick(names: list[str], columns: dict[str, Any], role: str,
          origin: _Origin = _FRAME) -> str:
    found = _find(names, columns, role, origin)
    if found is not None:
        return found
    remedy = _header_hint(names, origin) or _REMEDIES.get(role, "")
    raise InputFormatError(
        f"no {_ROLE_TEXT[role]} column: expected one of {list(_CANDIDATES[role])} "
        f"or a name given with columns={{{role!r}: ...}}, columns are {names}{remedy}",
        origin.where,
    )


def _id_type_of_column(table: Any, column: str) -> type:
    """``int`` for an integer column of query ids, else ``str``."""
    import pyarrow as pa

    kind = table.schema.field(column).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return int if pa.types.is_integer(kind) else str




def _qrels_of_arrow(
    table: Any, columns: dict[str, Any], source: str | None = None, *, typed: bool = True,
    subtopics: bool | None = None, records: bool = False,
) -> Qrels:
    """Judgments from a table; *typed*: its column types are the data's (not a text file's)."""
    origin = _origin(table, source, records)
    if not table.num_columns:  # nothing at all (blank lines, no records): say so first
        refuse_no_rows(table, "qrels", source, records=records)
    names = table.column_names
    query = _pick(names, columns, "query_id", origin)
    doc = _pick(names, columns, "doc_id", origin)
    refuse_no_rows(table, "qrels", source, records=records)
    kind = _id_type_of_column(table, query) if typed else None
    if "relevance" in columns and columns["relevance"] is None:  # implicit feedback
        return Qrels.from_arrow(table[query], table[doc], np.ones(table.num_rows),
                                source=source or "<table>", query_id_type=kind)
    else:
        relevance = _find(names, columns, "relevance", origin)
        if relevance is None and tuple(names) == BEIR_QRELS_HEADER:
            relevance = "score"  # BEIR's qrels TSV: query-id corpus-id score
        if relevance is None:
            relevance = _pick(names, columns, "relevance", origin)  # raises, with the remedy
        topic: str | None = None
        if subtopics is True or "subtopic" in columns:
            topic = _pick(names, columns, "subtopic", origin)
        elif subtopics is None:
            topic = _find(names, {}, "subtopic")
        return qrels_from_table(table, query=query, doc=doc, relevance=relevance,
                                subtopic=topic, source=source, query_id_type=kind)


def _run_roles(
    names: list[str], columns: dict[str, Any], keep_rank: bool = False,
    origin: _Origin = _FRAME,
) -> tuple[str, str, str | None, str | None]:
    """The query, document, score and rank columns of a run table (score or rank may be None).

    A run needs a score column, or a rank column that orders it (rank 1 first).
    One map serves runs with either: a score or rank column the map names is
    required only when the run has neither (or, for the rank, with ``ties="rank"``).
    """
    query = _pick(names, columns, "query_id", origin)
    doc = _pick(names, columns, "doc_id", origin)

    def present(role: str) -> str | None:
        named = columns.get(role)
        if named is not None:  # named: that column or none (never another one in its place)
            return str(named) if named in names else None
        return _find(names, {}, role)

    score, rank = present("score"), present("rank")
    if score is None and rank is None:
        if columns.get("score") is None and columns.get("rank") is not None:
            _pick(names, columns, "rank", origin)  # raises: the rank column named is not there
        _pick(names, columns, "score", origin)  # raises, naming the column or both ways
    if keep_rank and rank is None and columns.get("rank") is not None:
        _pick(names, columns, "rank", origin)  # ties="rank" needs the rank column named
    return query, doc, score, rank


class _NoScoreError(Exception):
    """The frame has no score column: it is ordered by rank (the general path)."""


def _run_of_frame(
    frame: Any, columns: dict[str, Any], name: str, source: str, *, typed: bool = True,
    origin: _Origin = _FRAME,
) -> Run | None:
    """A run read by the C frame reader, or None (no score column, or the reader declined)."""
    picked: list[str] = []

    def pick(names: list[str]) -> tuple[str, str, str]:
        query, doc, score, _ = _run_roles(names, columns, origin=origin)
        if score is None:
            raise _NoScoreError
        picked.append(query)
        return query, doc, score

    def typed_by() -> type | None:
        return _id_type_of_frame(frame, picked[0]) if typed else None

    try:
        return run_from_frame(frame, pick, name=name, source=source, locate=origin.lines,
                              typed_by=typed_by)
    except _NoScoreError:
        return None


def _id_type_of_frame(frame: Any, column: str) -> type:
    """``int`` for an integer column of query ids in an Arrow, pandas or polars frame."""
    import pyarrow as pa

    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        return _id_type_of_column(frame, column)
    module = type(frame).__module__.split(".")[0]
    if module == "polars":
        return int if frame.schema[column].is_integer() else str
    series = frame[dict(zip(map(str, frame.columns), frame.columns))[column]]
    import pandas as pd

    if pd.api.types.is_bool_dtype(series.dtype):
        return str
    if pd.api.types.is_integer_dtype(series.dtype):
        return int
    if series.dtype.kind == "O" and pd.api.types.infer_dtype(series, skipna=False) == "integer":
        return int
    return str


def _run_of_arrow(
    table: Any,
    columns: dict[str, Any],
    name: str,
    source: str | None = None,
    *,
    keep_rank: bool = False,
    typed: bool = True,
    records: bool = False,
) -> Run:
    """A run from a table: ordered by its score column, or by its rank column without one."""
    origin = _origin(table, source, records)
    if not table.num_columns:  # nothing at all (blank lines, no records): say so first
        refuse_no_rows(table, "run", source, records=records)
    if not keep_rank:
        fast = _run_of_frame(table, columns, name, source or "<table>", typed=typed,
                             origin=origin)
        if fast is not None:
            return fast
    names = table.column_names
    query, doc, score, rank = _run_roles(names, columns, keep_rank, origin)
    refuse_no_rows(table, "run", source, records=records)
    kind = _id_type_of_column(table, query) if typed else None
    if score is not None and not (keep_rank and rank is not None):
        return run_from_table(table, query=query, doc=doc, score=score, name=name,
                              source=source, query_id_type=kind)
    return _run_by_rank(table, query, doc, score, rank, name, source, keep_rank, kind)


def _run_by_rank(
    table: Any,
    query: str,
    doc: str,
    score: str | None,
    rank: str | None,
    name: str,
    source: str | None,
    keep_rank: bool,
    query_id_type: type | None,
) -> Run:
    """A run with its rank column kept; without a score column, ordered by rank (1 first)."""
    import pyarrow as pa

    where, lines, text = _where(table, source)
    ranks = table[rank] if rank is not None else None
    if score is not None:
        scores = numbers_column(table[score], "score", where, lines, text=text)
    elif ranks is None:  # pragma: no cover - _run_roles gives a score or a rank column
        raise InputFormatError("a run needs a score or a rank column", where)
    else:
        # rank 1 first: the score is minus the rank (CSV and TSV ranks are decimal text)
        scores = -numbers_column(ranks, f"rank (column {rank!r})", where, lines, text=text)
        if not np.isfinite(scores).all():
            raise InputFormatError(f"rank column {rank!r} holds a value that is not finite",
                                   where)
    kept = None
    if keep_rank and ranks is not None:
        kept = ranks if pa.types.is_string(ranks.type) else ranks.cast(pa.string())
    return Run.from_arrow(table[query], table[doc], scores, ranks=kept, name=name, source=where,
                          locate=lines, query_id_type=query_id_type)




def split_one_table(
    frame: Any, *, query: str | None, label: str | None, score: str | None, doc: str | None
) -> tuple[Qrels, Run]:
    """Judgments and run from one table where every row is judged (learning-to-rank data).

    Without a document column, each row is its own document (named by its
    position within its query).
    """
    import pyarrow as pa

    if query is None or label is None or score is None:
        raise InputFormatError("the one-table form needs query=, label= and score= column names")
    table = to_arrow_table(frame)
    for role, column in (("query", query), ("label", label), ("score", score)):
        if column not in table.column_names:
            raise InputFormatError(
                f"{role} column {column!r} not found; columns are {table.column_names}"
            )
    docs = table[doc] if doc is not None else pa.array(np.arange(table.num_rows).astype(str))
    qrels = Qrels.from_arrow(table[query], docs, table[label], source="<table>")
    run = Run.from_arrow(table[query], docs, table[score], name="run", source="<table>")
    return qrels, run


# ---------------------------------------------------------------------------------------
# the reader's two entries


def qrels_of_table(
    frame: Any, columns: dict[str, Any], *, source: str | None = None, typed: bool = True,
    subtopics: bool | None = None, records: bool = False,
) -> Qrels:
    """Judgments from a table: a frame, or the Arrow table of a file or of named tuples.

    *columns* is the checked ``{role: column}`` map; *source* names a file
    the table was read from (for messages), *typed* says its column types
    are the data's (not a text file's: the query ids' type is then known),
    *records* that it was made from named tuples. *subtopics* as in
    :func:`rankwise.io.read_qrels`.
    """
    return _qrels_of_arrow(to_arrow_table(frame), columns, source, typed=typed,
                           subtopics=subtopics, records=records)


def run_of_table(
    frame: Any, columns: dict[str, Any], *, name: str = "run", source: str | None = None,
    keep_rank: bool = False, typed: bool = True, records: bool = False, empty: bool = False,
) -> Run:
    """A run from a table: a frame (read in place when it can be), or an Arrow table read.

    As :func:`qrels_of_table`; *keep_rank* keeps the rank column (for
    ``ties="rank"``), *empty* reads a table of no rows as a run that
    retrieved nothing.
    """
    if not (keep_rank or records or source is not None):
        fast = _run_of_frame(frame, columns, name, "<table>")
        if fast is not None:
            return fast
    table = to_arrow_table(frame)
    if empty and not table.num_rows:
        return Run.from_arrow([], [], [], name=name)
    return _run_of_arrow(table, columns, name, source, keep_rank=keep_rank, typed=typed,
                         records=records)
