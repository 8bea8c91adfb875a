"""Judgments and runs from tables: pandas, polars, Arrow, Parquet, CSV/TSV, JSONL."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError, MissingDependencyError
from rankwise.io._source import check_readable_path

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = ["qrels_from_table", "read_table", "run_from_table", "to_arrow_table"]

QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_COLUMNS = ("query_id", "doc_id", "score")


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
        return pa.Table.from_pandas(frame, preserve_index=False)
    if hasattr(frame, "__arrow_c_stream__"):
        return pa.table(frame)
    raise InputFormatError(
        f"expected a pandas, polars or Arrow table, got {type(frame).__module__}."
        f"{type(frame).__name__}"
    )


def _column(table: pa.Table, name: str, role: str, where: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise InputFormatError(
            f"{role} column {name!r} not found; columns are {table.column_names}", where
        )
    return table[name]


def qrels_from_table(
    frame: Any,
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    relevance: str = "relevance",
    source: str | None = None,
) -> Qrels:
    """Judgments from a table with query, document and relevance columns."""
    from rankwise.data import Qrels

    table = to_arrow_table(frame)
    where = source or "<table>"
    return Qrels.from_arrow(
        _column(table, query, "query", where),
        _column(table, doc, "document", where),
        _column(table, relevance, "relevance", where),
        source=where,
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
    """A run from a table with query, document and score columns."""
    from rankwise.data import Run

    table = to_arrow_table(frame)
    where = source or "<table>"
    return Run.from_arrow(
        _column(table, query, "query", where),
        _column(table, doc, "document", where),
        _column(table, score, "score", where),
        name=name,
        source=where,
    )


def read_table(path: str, fmt: str | None = None) -> pa.Table:
    """Read a Parquet, CSV, TSV or JSONL file into an Arrow table.

    The format comes from the extension (``.parquet``, ``.csv``, ``.tsv``,
    ``.jsonl``/``.ndjson``, optionally compressed) unless *fmt* names it.
    """
    import pyarrow as pa

    check_readable_path(path)
    kind = fmt or table_format(path)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path)
        if kind in ("csv", "tsv"):
            import pyarrow.csv as pacsv

            delimiter = "\t" if kind == "tsv" else ","
            return pacsv.read_csv(
                path,
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(
                    column_types={
                        "query_id": pa.string(),
                        "doc_id": pa.string(),
                        "qid": pa.string(),
                        "docno": pa.string(),
                    }
                ),
            )
        if kind == "jsonl":
            import pyarrow.json as pajson

            return pajson.read_json(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise InputFormatError(f"cannot read {kind} file: {error}", path) from None
    raise InputFormatError(
        f"unknown table format {kind!r}; expected parquet, csv, tsv or jsonl", path
    )


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


def require(module: str, extra: str) -> Any:
    """Import an optional dependency or raise a clear error naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(
            f"this needs {module}: pip install 'rankwise[{extra}]'"
        ) from error
