"""``{query_id: {doc_id: value}}`` dicts (pytrec_eval's and ranx's form) as columns.

Ids are text: every key is converted with ``str()``, so ``1`` and ``"1"`` are
the same id. Two keys that become one id are an error that names both keys
(never silently merged), for queries and for the documents of one query.
"""

from __future__ import annotations

from typing import Any

from rankwise.data._values import BadValue
from rankwise.exceptions import DuplicateEntryError, InputFormatError

__all__ = ["dict_duplicate_error", "dict_value_error", "flatten_dict"]


def flatten_dict(
    mapping: Any, kind: str, shape: str
) -> tuple[list[str], list[str], list[Any]]:
    """Query ids, document ids (as text) and values, one per (query, document).

    Raises
    ------
    InputFormatError
        When *mapping* or a query's entry is not a dict.
    DuplicateEntryError
        When two query keys are the same id once converted to text.
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
    names = list(map(str, mapping))
    if len(set(names)) != len(names):
        seen: dict[str, Any] = {}
        for query in mapping:
            text = str(query)
            if text in seen:
                raise DuplicateEntryError(
                    f"query keys {seen[text]!r} and {query!r} are the same query id {text!r} "
                    "once converted to text (ids are text); use one key per query",
                    "<dict>",
                )
            seen[text] = query
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
    """The error of two document keys of one query that are one id once converted to text."""
    for query, entries in mapping.items():
        seen: dict[str, Any] = {}
        for doc in entries:
            text = str(doc)
            if text in seen:
                what = "judgment" if kind == "qrels" else "document"
                return DuplicateEntryError(
                    f"query {query!r}: document keys {seen[text]!r} and {doc!r} are the same "
                    f"document id {text!r} once converted to text (ids are text); "
                    f"each {what} is given once per query",
                    "<dict>",
                )
            seen[text] = doc
    raise AssertionError("no duplicate to report")  # pragma: no cover
