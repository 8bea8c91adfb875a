"""``{query_id: {doc_id: value}}`` dicts (pytrec_eval's and ranx's form) as columns.

Ids are text: every key is converted with ``str()``, so ``1`` and ``"1"`` are
the same id (the same rule as :mod:`rankwise.io.dicts`, the fast reader): two
query keys that are one id are one query, and a document then given twice
for it is an error that names both keys, as a document listed twice is.
"""

from __future__ import annotations

from typing import Any

from rankwise.data._values import BadValue
from rankwise.exceptions import DuplicateEntryError, InputFormatError

__all__ = ["dict_duplicate_error", "dict_value_error", "flatten_dict", "is_nested"]


def is_nested(mapping: Any) -> bool:
    """Whether *mapping* is ``{query_id: {subtopic: {doc_id: grade}}}`` (diversity judgments).

    Decided by the first value of the first non-empty query entry (one look,
    not one per row); a later entry of the other form is then refused by
    the reader with its query named.

    Examples
    --------
    >>> is_nested({"q1": {}, "q2": {"1": {"d1": 1}}}), is_nested({"q1": {"d1": 1}})
    (True, False)
    """
    if not isinstance(mapping, dict):
        return False
    for entries in mapping.values():
        if isinstance(entries, dict) and entries:
            return isinstance(next(iter(entries.values())), dict)
    return False


def flatten_dict(
    mapping: Any, kind: str, shape: str
) -> tuple[list[str], list[str], list[Any]]:
    """Query ids, document ids (as text) and values, one per (query, document).

    Raises
    ------
    InputFormatError
        When *mapping* or a query's entry is not a dict.
    """
    if not isinstance(mapping, dict):
        raise InputFormatError(
            f"a {kind} dict must map query ids to {shape}, got {type(mapping).__name__}"
        )
    queries: list[str] = []
    docs: list[str] = []
    values: list[Any] = []
    for query, entries in mapping.items():
        if not isinstance(entries, dict):
            raise InputFormatError(
                f"{kind} entry for query {query!r} must be a dict {shape}, "
                f"got {type(entries).__name__}"
            )
        queries.extend([str(query)] * len(entries))
        docs.extend(map(str, entries))
        values.extend(entries.values())
    return queries, docs, values


def _keys_of_row(mapping: dict[Any, dict[Any, Any]], row: int) -> tuple[Any, Any]:
    for query, entries in mapping.items():
        if row < len(entries):
            for doc in entries:
                if row == 0:
                    return query, doc
                row -= 1
        row -= len(entries)
    raise IndexError(row)  # pragma: no cover


def dict_value_error(mapping: dict[Any, dict[Any, Any]], bad: BadValue) -> InputFormatError:
    """The error of a refused value, naming its query and document keys."""
    query, doc = _keys_of_row(mapping, bad.row)
    return InputFormatError(f"query {query!r}, document {doc!r}: {bad.message}", "<dict>")


def dict_duplicate_error(mapping: dict[Any, dict[Any, Any]], kind: str) -> DuplicateEntryError:
    """The error of a document given twice for one query, naming the two (query, doc) keys.

    Keys are compared as text: ``1`` and ``"1"`` are one id, for queries and documents.
    """
    seen: dict[tuple[str, str], tuple[Any, Any]] = {}
    for query, entries in mapping.items():
        for doc in entries:
            text = (str(query), str(doc))
            if text in seen:
                first = seen[text]
                what = "judgment" if kind == "qrels" else "document"
                return DuplicateEntryError(
                    f"document {text[1]!r} appears twice for query {text[0]!r}: the {kind} dict "
                    f"has it under the keys {first!r} and {(query, doc)!r}, and ids are compared "
                    f"as text (1 and '1' are the same id); each {what} is given once per query",
                    "<dict>",
                )
            seen[text] = (query, doc)
    raise AssertionError("no duplicate to report")  # pragma: no cover
