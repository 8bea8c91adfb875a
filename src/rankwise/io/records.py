"""Judgments and runs as records: ir_datasets' and ir_measures' named tuples.

``ir_datasets`` hands judgments as ``dataset.qrels_iter()`` (``TrecQrel(query_id,
doc_id, relevance, iteration)``) and runs as ``dataset.scoreddocs_iter()``
(``GenericScoredDoc(query_id, doc_id, score)``); ir_measures uses the same
fields (``Qrel``, ``ScoredDoc``). Any iterable of named tuples (a generator, a
list) is read by its field names, as a table by its column names (the
``columns`` map applies to the field names).

Examples
--------
>>> from collections import namedtuple
>>> Qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
>>> table = records_table(iter([Qrel("q1", "d1", 2, "0"), Qrel("q1", "d2", 0, "0")]))
>>> table.column_names, table["relevance"].to_pylist()
(['query_id', 'doc_id', 'relevance', 'iteration'], [2, 0])
>>> records_table({"q1": {"d1": 1}}) is None
True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["is_records", "records_table"]


def _is_named_tuple(item: Any) -> bool:
    return isinstance(item, tuple) and isinstance(getattr(item, "_fields", None), tuple)


def is_records(obj: Any) -> bool:
    """Whether *obj* may be an iterable of named tuples (not a str, dict, table or path)."""
    if isinstance(obj, (str, bytes, dict)) or hasattr(obj, "column_names"):
        return False
    if type(obj).__module__.split(".")[0] in ("pandas", "polars", "pyarrow"):
        return False
    if isinstance(obj, (list, tuple)):  # empty: no records (an error the reader names)
        return not obj or _is_named_tuple(obj[0])
    return isinstance(obj, Iterator) or (
        isinstance(obj, Iterable) and not hasattr(obj, "__arrow_c_stream__")
        and type(obj).__module__.split(".")[0] != "numpy"
    )


def records_table(obj: Any) -> pa.Table | None:
    """An Arrow table of an iterable of named tuples, one column per field; None otherwise.

    The iterable is read once (a generator is consumed). An empty iterable
    gives an empty table of no column (the reader then says it holds no records).

    Raises
    ------
    InputFormatError
        An item that is not a named tuple, or of other fields than the first.
    """
    if not is_records(obj):
        return None
    import pyarrow as pa

    iterator = iter(obj)
    first = next(iterator, None)
    if first is None:
        return pa.table({})
    if not _is_named_tuple(first):
        raise InputFormatError(
            f"expected named tuples (as ir_datasets' qrels_iter() and scoreddocs_iter() "
            f"yield, fields query_id, doc_id, relevance or score), got a "
            f"{type(first).__name__}: {first!r:.80}"
        )
    fields = first._fields
    rows = list(itertools.chain((first,), iterator))
    kind = type(first)
    if any(type(row) is not kind for row in rows):
        position = next(i for i, row in enumerate(rows) if type(row) is not kind)
        raise InputFormatError(
            f"record {position + 1} is a {type(rows[position]).__name__}, not a "
            f"{kind.__name__} as the first one; give records of one kind"
        )
    columns = list(zip(*rows))
    try:
        return pa.table({name: pa.array(values) for name, values in zip(fields, columns)})
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise InputFormatError(f"{kind.__name__} records: {error}") from None
