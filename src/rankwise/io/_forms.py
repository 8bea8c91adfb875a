"""Which form an input has: a path (and its format), a dict, named tuples or a table.

The dispatcher (:mod:`rankwise.io.coerce`) asks these before it hands an
input to its one reader; they import nothing heavy and read no data (a
generator is not consumed).

Examples
--------
>>> from collections import namedtuple
>>> Qrel = namedtuple("Qrel", "query_id doc_id relevance")
>>> form_of("run.parquet"), form_of({"q1": {}}), form_of([Qrel("q1", "d1", 1)]), form_of(3)
('path', 'dict', 'records', None)
>>> table_format("runs/bm25.tsv.gz"), table_format("bm25.csv.zst"), table_format("bm25.run")
('tsv', 'csv', None)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from rankwise.io._source import COMPRESSED_SUFFIXES

__all__ = ["collected", "form_of", "is_records", "is_table", "table_format"]

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
    for compressed in COMPRESSED_SUFFIXES:
        if name.endswith(compressed):
            name = name[: -len(compressed)]
    for suffix, kind in _SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


def _is_named_tuple(item: Any) -> bool:
    return isinstance(item, tuple) and isinstance(getattr(item, "_fields", None), tuple)


def _module(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_records(obj: Any) -> bool:
    """Whether *obj* may be an iterable of named tuples (not a str, dict, table or path)."""
    if isinstance(obj, (str, bytes, dict)) or hasattr(obj, "column_names"):
        return False
    if _module(obj) in ("pandas", "polars", "pyarrow"):
        return False
    if isinstance(obj, (list, tuple)):  # empty: no records (an error the reader names)
        return not obj or _is_named_tuple(obj[0])
    return isinstance(obj, Iterator) or (
        isinstance(obj, Iterable) and not hasattr(obj, "__arrow_c_stream__")
        and _module(obj) != "numpy"
    )


def collected(obj: Any) -> Any:
    """*obj*, a polars LazyFrame collected into its DataFrame (what it evaluates to).

    Anything else is returned as it is.

    Examples
    --------
    >>> collected({"q1": {"d1": 1.0}})
    {'q1': {'d1': 1.0}}
    """
    if _module(obj) == "polars" and type(obj).__name__ == "LazyFrame":
        return obj.collect()
    return obj


def is_table(obj: Any) -> bool:
    """Whether *obj* is a table rankwise reads: pandas, polars or Arrow (or Arrow's stream)."""
    module = _module(obj)
    if module in ("pandas", "polars") or hasattr(obj, "__arrow_c_stream__"):
        return True
    return module == "pyarrow" and type(obj).__name__ in ("Table", "RecordBatch")


def form_of(obj: Any) -> str | None:
    """``"path"``, ``"dict"``, ``"records"`` (named tuples), ``"table"``, or None (none of them).

    Objects already read (:class:`~rankwise.Qrels`, :class:`~rankwise.Run`)
    are the dispatcher's to recognise.
    """
    if isinstance(obj, (str, os.PathLike)):
        return "path"
    if isinstance(obj, dict):
        return "dict"
    if is_records(obj):
        return "records"
    if is_table(obj):
        return "table"
    return None
