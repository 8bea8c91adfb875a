"""ranx's nested dicts held as columns: the store behind the drop-in's ``Qrels`` and ``Run``.

ranx 0.3 keeps judgments and runs in numba typed dicts, ``{query: {doc:
value}}``, and orders them: the queries by id (its ``sort_dict_by_key``), each
query's documents by value, descending, with numba's ``np.argsort`` of the
negated values: a quicksort that keeps tied documents in their order up to 15
documents only (:mod:`rankwise.ranking._quicksort` reproduces it). Its
measures read each query's documents in that order, never the scores.

A :class:`Table` holds the same content as columns, in the dict's order: the
queries, how many documents each holds, and the documents and values one
query after the other (ids interned once by rankwise's readers). Sorting
reorders the columns once; rankwise then reads the rows as a ranking
(:meth:`Table.ranking`).

Examples
--------
>>> table = Table.from_mapping({"q2": {"a": 1.0, "b": 3.0}, "q1": {"c": 2.0}})
>>> table.sorted().to_dict(float)
{'q1': {'c': 2.0}, 'q2': {'b': 3.0, 'a': 1.0}}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Table"]


@dataclass(frozen=True, eq=False)
class Table:
    """``{query: {doc: value}}`` as columns, in a dict's order.

    Attributes
    ----------
    keys : list
        The queries, as the user's keys, in the dict's order.
    lengths : ndarray of int64
        Per query, its number of documents.
    docs : pyarrow.ChunkedArray of str
        The document ids: those of ``keys[0]`` first, in that query's order,
        then those of ``keys[1]``, ...
    values : ndarray of float64
        Each document's value (score or grade), in the same order.
    """

    keys: list[Any]
    lengths: np.ndarray
    docs: Any
    values: np.ndarray

    # construction ---------------------------------------------------------------
    @classmethod
    def from_mapping(cls, mapping: Any) -> Table:
        """The table of ``{query: {doc: value}}``, in the dict's order (C speed).

        Raises
        ------
        InputFormatError
            An entry that is not a dict, an id that is not a str or int, a
            value that is not a finite number.
        """
        from rankwise.io.dicts import run_from_dict

        read = run_from_dict(mapping)
        keys = list(mapping)
        if len(keys) != len(read.query_ids):  # two keys of one text: 1 and "1"
            from rankwise.exceptions import InputFormatError

            raise InputFormatError(
                f"two query ids of the dict have the same text ({len(keys)} keys, "
                f"{len(read.query_ids)} distinct ids): use one type of key"
            )
        starts, codes = read.query_blocks  # one block per non-empty entry, in dict order
        lengths = np.zeros(len(keys), dtype=np.int64)
        lengths[codes] = np.diff(np.append(starts, len(read)))
        return cls(keys, lengths, read.doc_ids, np.asarray(read.scores, dtype=np.float64))

    @classmethod
    def from_run(cls, run: Any) -> Table:
        """The table of a rankwise :class:`~rankwise.Run` (queries by first appearance).

        Each query's documents come in the order of the run's rows, as a
        dict filled row after row holds them.
        """
        return cls.from_columns(list(run.query_ids), run.query_codes, run.doc_ids, run.scores)

    @classmethod
    def from_qrels(cls, qrels: Any) -> Table:
        """The table of rankwise :class:`~rankwise.Qrels` (queries by first appearance)."""
        import pyarrow as pa

        docs = qrels.doc_array.take(pa.array(qrels.doc_codes))
        return cls.from_columns(list(qrels.query_ids), qrels.query_codes, docs, qrels.grades)

    @classmethod
    def from_columns(cls, keys: list[Any], codes: np.ndarray, docs: Any, values: np.ndarray
                     ) -> Table:
        """The table of rows (*codes* index *keys*), each query's rows in row order."""
        import pyarrow as pa

        codes = np.asarray(codes)
        lengths = np.bincount(codes, minlength=len(keys)).astype(np.int64)
        if isinstance(docs, pa.Array):
            docs = pa.chunked_array([docs], pa.string())
        table = cls(keys, lengths, docs, np.asarray(values, dtype=np.float64))
        if len(codes) < 2 or bool((codes[1:] >= codes[:-1]).all()):
            return table
        return table._taken(np.argsort(codes, kind="stable"))

    # shape ----------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        """Number of (query, document) entries."""
        return len(self.values)

    @property
    def offsets(self) -> np.ndarray:
        """Where each query's documents start (and, last, the end)."""
        out = np.zeros(len(self.keys) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=out[1:])
        return out

    def _segments(self) -> np.ndarray:
        """The starts of the queries that hold documents (contiguous, covering the rows)."""
        return self.offsets[:-1][self.lengths > 0]

    def _taken(self, index: np.ndarray, keys: list[Any] | None = None,
               lengths: np.ndarray | None = None) -> Table:
        """The rows *index* (in that order), under *keys* and *lengths* (default: these)."""
        import pyarrow as pa

        return Table(self.keys if keys is None else keys,
                     self.lengths if lengths is None else lengths,
                     self.docs.take(pa.array(index, pa.int64())), self.values[index])

    # ranx's orders --------------------------------------------------------------
    def _key_order(self) -> tuple[list[int], np.ndarray | None]:
        """The queries in id order, and the rows in that order (None: already so)."""
        permutation = sorted(range(len(self.keys)), key=self.keys.__getitem__)
        if permutation == list(range(len(self.keys))):
            return permutation, None
        moved = np.asarray(permutation, dtype=np.int64)
        lengths = self.lengths[moved]
        new_starts = np.zeros(len(moved), dtype=np.int64)
        np.cumsum(lengths[:-1], out=new_starts[1:])
        shift = np.repeat(self.offsets[:-1][moved] - new_starts, lengths)
        return permutation, np.arange(self.n_rows, dtype=np.int64) + shift

    def sorted(self) -> Table:
        """Sorted as ranx's ``sort()`` does: queries by id, then documents by value.

        One pass of numba's quicksort of the negated values per query, from
        the current order (ties in order up to 15 documents; another pass can
        move them again).
        """
        from rankwise.ranking._quicksort import quicksort_order

        permutation, index = self._key_order()
        keys = [self.keys[i] for i in permutation]
        lengths = self.lengths[np.asarray(permutation, dtype=np.int64)] if permutation else \
            self.lengths
        rows = np.arange(self.n_rows, dtype=np.int64) if index is None else index
        if self.n_rows:
            starts = np.zeros(len(keys) + 1, dtype=np.int64)
            np.cumsum(lengths, out=starts[1:])
            rows = rows[quicksort_order(-self.values[rows], starts[:-1][lengths > 0])]
        return self._taken(rows, keys, lengths)

    def descending(self, depth: int | None = None) -> Table:
        """Each query's documents as ranx orders a plain dict it evaluates.

        ranx's ``python_dict_to_typed_list(sort=True)``: numba's ``np.argsort``
        of the values (ascending), reversed: ties in reverse order up to 15
        documents. With *depth*, each query's first *depth* documents only.
        """
        from rankwise.ranking._quicksort import quicksort_order

        if not self.n_rows:
            return self
        ascending = quicksort_order(self.values, self._segments())
        kept = self.lengths if depth is None else np.minimum(self.lengths, depth)
        starts = np.zeros(len(kept) + 1, dtype=np.int64)
        np.cumsum(kept, out=starts[1:])
        local = np.arange(int(starts[-1]), dtype=np.int64) - np.repeat(starts[:-1], kept)
        last = np.repeat(self.offsets[1:] - 1, kept)  # each query's last, read backwards
        return self._taken(ascending[last - local], lengths=kept)

    # queries ----------------------------------------------------------------------
    def with_keys(self, keys: list[Any]) -> Table:
        """The queries of *keys*: those missing here added, empty, the others removed.

        ranx's ``make_comparable``: an added query comes at the end, the
        queries kept keep their place.
        """
        wanted = set(keys)
        kept = [i for i, key in enumerate(self.keys) if key in wanted]
        held = set(self.keys)
        added = [key for key in keys if key not in held]
        if len(kept) == len(self.keys) and not added:
            return self
        chosen = np.asarray(kept, dtype=np.int64)
        lengths = np.concatenate((self.lengths[chosen], np.zeros(len(added), dtype=np.int64)))
        new_keys = [self.keys[i] for i in kept] + added
        if len(kept) == len(self.keys):
            return Table(new_keys, lengths, self.docs, self.values)
        keep = np.repeat(np.isin(np.arange(len(self.keys)), chosen), self.lengths)
        return self._taken(np.flatnonzero(keep), new_keys, lengths)

    # views ------------------------------------------------------------------------
    def ordered_docs(self) -> list[str]:
        """The document ids in the dict's order."""
        return self.docs.to_pylist() if self.n_rows else []

    def _listed(self, values: np.ndarray, cast: type) -> list[Any]:
        listed: list[Any] = (values.astype(np.int64) if cast is int else values).tolist()
        return listed

    def to_dict(self, cast: type) -> dict[Any, dict[str, Any]]:
        """``{query: {doc: value}}`` in the dict's order, values as *cast* (int or float)."""
        docs, values = self.ordered_docs(), self._listed(self.values, cast)
        offsets = self.offsets.tolist()
        return {key: dict(zip(docs[offsets[i]:offsets[i + 1]], values[offsets[i]:offsets[i + 1]]))
                for i, key in enumerate(self.keys)}

    def query_dict(self, key: Any, cast: type) -> dict[str, Any]:
        """One query's ``{doc: value}`` in the dict's order.

        Raises
        ------
        KeyError
            *key* is not a query of the table.
        """
        try:
            index = self.keys.index(key)
        except ValueError:
            raise KeyError(key) from None
        start, stop = int(self.offsets[index]), int(self.offsets[index + 1])
        return dict(zip(self.docs[start:stop].to_pylist(),
                        self._listed(self.values[start:stop], cast)))

    def positions(self) -> np.ndarray:
        """Per document, its 0-based position in its query's list."""
        positions: np.ndarray = np.arange(self.n_rows, dtype=np.int64) - np.repeat(
            self.offsets[:-1], self.lengths)
        return positions

    def ranking(self, name: str = "run", depth: int | None = None) -> Any:
        """A rankwise :class:`~rankwise.Run` ranking each query's documents in this order.

        Its scores fall strictly along the order, so no two documents tie.
        With *depth*, each query's first *depth* documents only (what a
        measure with a cutoff up to *depth* reads).
        """
        import pyarrow as pa

        from rankwise.data import Run

        table = self
        if depth is not None and self.n_rows and int(self.lengths.max()) > depth:
            table = Table(self.keys, np.minimum(self.lengths, depth),
                          self.docs.filter(pa.array(self.positions() < depth)),
                          np.zeros(0))
        starts = table._segments()
        codes = np.flatnonzero(table.lengths > 0).astype(np.int32)
        scores = -np.arange(len(table.docs), dtype=np.float64)
        return Run(None, [str(key) for key in table.keys], table.docs, scores, name=name,
                   rank_order_blocks=starts, segments=(starts, codes))

    def rows(self) -> tuple[np.ndarray, Any, np.ndarray]:
        """Per document its query (an index into :attr:`keys`), its id and its value."""
        return (np.repeat(np.arange(len(self.keys), dtype=np.int32), self.lengths),
                self.docs, self.values)

    def with_values(self, values: np.ndarray) -> Table:
        """The same documents, in the same order, with other values."""
        return Table(self.keys, self.lengths, self.docs, np.asarray(values, dtype=np.float64))
