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
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError
from rankwise.io._forms import _is_named_tuple, is_records

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = ["is_records", "qrels_from_records", "records_table", "run_from_records"]


def qrels_from_records(obj: Any, columns: dict[str, Any]) -> Qrels:
    """Judgments from named tuples: their table, read by the one reader of tables."""
    from rankwise.io.frames import qrels_of_table

    return qrels_of_table(_table(obj), columns, records=True)


def run_from_records(obj: Any, columns: dict[str, Any], *, name: str = "run",
                     keep_rank: bool = False, empty: bool = False) -> Run:
    """A run from named tuples: their table, read by the one reader of tables."""
    from rankwise.io.frames import run_of_table

    return run_of_table(_table(obj), columns, name=name, keep_rank=keep_rank, records=True,
                        empty=empty)


def _table(obj: Any) -> pa.Table:
    table = records_table(obj)
    if table is None:  # pragma: no cover - the dispatcher sends records only
        raise InputFormatError(f"expected named tuples, got {type(obj).__name__}")
    return table


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
