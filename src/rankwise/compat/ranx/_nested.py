"""What ranx's ``Qrels`` and ``Run`` share: a ``{query: {doc: value}}`` that ranx sorts.

An object holds its content either as a :class:`~rankwise.compat.ranx._table.Table`
(columns: built from dicts, files and frames at C speed, sorted without
copying) or, once the user reads ``qrels.qrels`` / ``run.run`` or adds an
entry, as the dict itself, which the user may then change as ranx's typed
dict can be changed. The table is rebuilt from the dict when it is needed
again (a C read of the dict), so what is evaluated is what the dict holds.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import KeysView
from typing import Any

import numpy as np

from rankwise._wording import counted
from rankwise.compat.ranx._table import Table
from rankwise.exceptions import InputFormatError, InvalidParameterError

__all__ = ["Nested", "file_kind"]


def file_kind(path: str, kind: str | None, kinds: tuple[str, ...]) -> str:
    """Ranx's ``get_file_kind``: the kind of *path* from its extension, unless given.

    ``.txt`` is ``trec``, ``.parq`` is ``parquet``.

    Raises
    ------
    InvalidParameterError
        A kind outside *kinds*.
    """
    if kind is None:
        kind = os.path.splitext(path)[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    if kind not in kinds:
        raise InvalidParameterError(
            f"{path}: kind must be {', '.join(map(repr, kinds))} (from the extension "
            f".json, .trec, .txt, .gz, .parquet, .parq{', .lz4' if 'lz4' in kinds else ''}, "
            f"or kind=...), got {kind!r}"
        )
    return kind


class Nested:
    """The state and the dict API of ranx's ``Qrels`` and ``Run`` (see the module)."""

    _cast: type = float
    """How values are held: ``int`` for judgments (ranx truncates), ``float`` for runs."""

    def __init__(self, mapping: dict[Any, dict[Any, Any]] | None = None,
                 name: str | None = None) -> None:
        self._table: Table | None = None
        self._dict: dict[Any, dict[Any, Any]] | None = None
        self._built: dict[Any, tuple[Table, Any]] = {}  # rankwise's form, per table
        if mapping is None:
            self._dict = {}
            self.sorted = False
        else:
            self._table = self._cast_table(Table.from_mapping(mapping)).sorted()
            self.sorted = True
        self.name = name

    # the content ------------------------------------------------------------------
    @classmethod
    def _cast_table(cls, table: Table) -> Table:
        """Values as ranx holds them (judgments truncated to integers)."""
        if cls._cast is int:
            return table.with_values(np.trunc(table.values))
        return table

    def _current(self) -> Table:
        """The content as a table, in the dict's order (read from the dict if it holds it)."""
        if self._table is not None:
            return self._table
        return self._cast_table(Table.from_mapping(self._dict))

    def _set_table(self, table: Table) -> None:
        self._table, self._dict = table, None

    def _mapping(self) -> dict[Any, dict[Any, Any]]:
        """The content as the dict the user may read and change (built once)."""
        if self._dict is None:
            self._dict = self._current().to_dict(self._cast)
            self._table = None
        return self._dict

    def _set_mapping(self, mapping: dict[Any, dict[Any, Any]]) -> None:
        self._table, self._dict = None, mapping

    def _sorted_table(self) -> Table:
        """The content as ranx evaluates it: sorted first unless it is sorted already."""
        if not self.sorted:
            self.sort()
        return self._current()

    # ranx's API ---------------------------------------------------------------------
    def keys(self) -> KeysView[Any]:
        """The query ids (a view comparing as a set, as ranx's)."""
        if self._dict is not None:
            return self._dict.keys()
        return dict.fromkeys(self._current().keys).keys()

    def add_score(self, q_id: Any, doc_id: Any, score: Any) -> None:
        """Add a (doc_id, score) pair to a query, or change its value (then not sorted)."""
        self._mapping().setdefault(q_id, {})[doc_id] = self._cast(score)
        self.sorted = False

    def add(self, q_id: Any, doc_ids: list[Any], scores: list[Any]) -> None:
        """Add (or replace) one query with its documents and values, then sort."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(self, q_ids: list[Any], doc_ids: list[list[Any]],
                  scores: list[list[Any]]) -> None:
        """Add (or replace) queries with their documents and values, then sort everything.

        As ranx's ``add_and_sort``.
        """
        if not (len(q_ids) == len(doc_ids) == len(scores)):
            raise InputFormatError(
                f"q_ids, doc_ids and scores differ in length: [{len(q_ids)}, "
                f"{len(doc_ids)}, {len(scores)}]; give one list of documents and one of "
                "values per query"
            )
        for q_id, docs, values in zip(q_ids, doc_ids, scores):
            if len(docs) != len(values):  # zip would drop the documents without a value
                raise InputFormatError(
                    f"query {q_id!r}: {counted(len(docs), 'document id')} and "
                    f"{counted(len(values), 'value')}; give one value per document"
                )
        mapping = self._mapping()
        for q_id, docs, values in zip(q_ids, doc_ids, scores):
            mapping[q_id] = dict(zip(docs, map(self._cast, values)))
        self.sort()

    def get_query_ids(self) -> list[Any]:
        """The query ids, in order."""
        return list(self.keys())

    def get_doc_ids_and_scores(self) -> list[dict[Any, Any]]:
        """Each query's ``{doc_id: value}``, in order."""
        return list(self._mapping().values())

    def sort(self) -> None:
        """Sort: queries by id, each query's documents by value descending (ranx's order)."""
        self._set_table(self._current().sorted())
        self.sorted = True

    def to_typed_list(self) -> list[np.ndarray]:
        """Per query, an array of ``[hash(doc_id), value]`` rows in order (sorted first).

        ranx's ``to_typed_list``, as a list of numpy arrays.
        """
        table = self._sorted_table()
        docs = table.ordered_docs()
        ids = np.fromiter(map(hash, docs), dtype=np.int64, count=len(docs)).astype(np.float64)
        pairs = np.column_stack((ids, table.values))
        return np.split(pairs, table.offsets[1:-1]) if table.keys else []

    def to_dict(self) -> defaultdict[Any, dict[Any, Any]]:
        """The content as ``{query: {doc: value}}`` (a new ``defaultdict``, as ranx's)."""
        return defaultdict(dict, self._current().to_dict(self._cast))

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with columns ``q_id``, ``doc_id`` and ``score``, in order."""
        import pandas as pd

        table = self._current()
        keys = np.empty(len(table.keys), dtype=object)
        keys[:] = table.keys
        values = table.values
        return pd.DataFrame({
            "q_id": keys[np.repeat(np.arange(len(table.keys)), table.lengths)].tolist(),
            "doc_id": table.ordered_docs(),
            "score": values.astype(np.int64) if self._cast is int else values,
        })

    @property
    def size(self) -> int:
        """Number of queries."""
        return len(self)

    def __getitem__(self, q_id: Any) -> dict[Any, Any]:
        if self._dict is not None:
            return dict(self._dict[q_id])
        return dict(self._current().query_dict(q_id, self._cast))

    def __len__(self) -> int:
        return len(self._dict) if self._dict is not None else len(self._current().keys)

    def __repr__(self) -> str:
        return repr(self._dict if self._dict is not None else self._current().to_dict(self._cast))

    def __str__(self) -> str:
        return self.__repr__()

    # rankwise's form, kept while the content does not change -----------------------------
    def _cached(self, table: Table, key: Any, build: Any) -> Any:
        """``build()``, made once per *key* while *table* holds the content."""
        held = self._built.get(key)
        if held is not None and held[0] is table:
            return held[1]
        if any(kept is not table for kept, _ in self._built.values()):
            self._built.clear()  # the content changed: what was built from it goes
        value = build()
        self._built[key] = (table, value)
        return value
