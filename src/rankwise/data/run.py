"""The :class:`Run`: scored results, per query, as columns."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.data._arrow import (
    as_string_chunks,
    intern,
    numbers_column,
    row_error,
    string_keys,
)
from rankwise.data._dicts import SOURCE, duplicate_error, read_run_dict, rows_to_check
from rankwise.data._rows import LineMap, key_type, line_of_row, readonly, typed_column, typed_ids
from rankwise.data._strings import StringsLike, to_arrow
from rankwise.data._values import BadValue, real_numbers
from rankwise.exceptions import DuplicateEntryError, InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Run"]


def _encoded_queries(values: Any) -> tuple[np.ndarray, list[str]] | None:
    """Codes and names of an already dictionary-encoded query column (first-appearance order).

    A dictionary entry no row uses (a pandas category without rows) is not a
    query of the run: a table holds no query with nothing retrieved.
    """
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray) and values.num_chunks == 1:
        values = values.chunk(0)
    if not isinstance(values, pa.DictionaryArray) or values.null_count:
        return None
    if not pa.types.is_string(values.type.value_type):
        return None
    from rankwise.data._arrow import array_to_numpy

    codes = array_to_numpy(values.indices, np.int32)
    names = values.dictionary.to_pylist()
    used = np.bincount(codes, minlength=len(names)) > 0
    if not used.all():
        codes = (np.cumsum(used) - 1).astype(np.int32)[codes]
        names = [name for name, kept in zip(names, used.tolist()) if kept]
    return codes, names


class Run:
    """Scored results of one system: for each query, documents with scores.

    A run is immutable and columnar: one row per (query, document), query ids
    interned once as integer codes, documents kept as an Arrow string column,
    scores as a float64 array. Build one with :meth:`from_dict`,
    :meth:`from_arrow`, :func:`rankwise.read_run` or
    :func:`rankwise.io.read_trec_run`.

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5}}, name="bm25")
    >>> run
    Run('bm25', 2 queries, 3 rows)
    >>> run.to_dict()
    {'q1': {'d1': 2.0, 'd2': 1.0}, 'q2': {'d3': 0.5}}
    """

    __slots__ = (
        "_blocks",
        "_doc_ids",
        "_line_numbers",
        "_locate",
        "_name",
        "_query_codes",
        "_query_id_type",
        "_query_ids",
        "_ranks",
        "_scores",
        "_segments",
        "_source",
    )

    def __init__(
        self,
        query_codes: np.ndarray | None,
        query_ids: list[str],
        doc_ids: StringsLike,
        scores: np.ndarray,
        *,
        ranks: StringsLike | None = None,
        name: str = "run",
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
        locate: Callable[[int], int] | None = None,
        rank_order_blocks: np.ndarray | None = None,
        segments: tuple[np.ndarray, np.ndarray] | None = None,
        query_id_type: type | None = None,
        check: bool = False,
        check_rows: np.ndarray | None = None,
    ) -> None:
        """A run from interned columns (for readers; build one with :meth:`from_arrow`).

        *query_id_type* notes the type the query ids were given in; *check*
        refuses a document listed twice for one query, among *check_rows*
        when a reader checked the others (:meth:`check_duplicates`).
        """
        if query_codes is None and segments is None:
            raise ValueError("give query_codes, or segments=(first rows, codes)")
        # per-row codes, or runs of rows of one query (first rows, codes), expanded on demand
        self._query_codes = None if query_codes is None else readonly(query_codes)
        self._segments = None if segments is None else tuple(map(readonly, segments))
        self._query_ids = query_ids
        self._doc_ids = doc_ids
        self._scores = readonly(scores)
        self._ranks = ranks
        self._name = name
        self._source = source
        self._line_numbers = line_numbers
        self._locate = locate
        self._blocks = None if rank_order_blocks is None else readonly(rank_order_blocks)
        self._query_id_type: type | None = query_id_type
        if check:
            self.check_duplicates(check_rows)

    def __getstate__(self) -> dict[str, Any]:
        return {slot: getattr(self, slot) for slot in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for slot, value in state.items():
            if isinstance(value, np.ndarray):
                value = readonly(value)
            elif slot == "_segments" and value is not None:
                value = tuple(map(readonly, value))
            object.__setattr__(self, slot, value)

    # construction -----------------------------------------------------------------
    @classmethod
    def from_arrow(
        cls,
        query_ids: Any,
        doc_ids: Any,
        scores: Any,
        *,
        ranks: Any = None,
        name: str = "run",
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
        locate: Callable[[int], int] | None = None,
        check_duplicates: bool = True,
        copy_scores: bool = True,
        query_id_type: type | None = None,
    ) -> Run:
        """Build a run from three columns (Arrow arrays, numpy arrays or sequences).

        ``copy_scores=False`` lets the run take ownership of a float64 numpy
        array of scores instead of copying it (for readers); *query_id_type*
        notes the type the query ids were given in.

        Raises
        ------
        InputFormatError
            When the columns differ in length, a score is NaN or infinite, or
            (``DuplicateEntryError``) a document appears twice for one query.
        """
        import pyarrow as pa

        encoded = _encoded_queries(query_ids)
        if locate is None and line_numbers is not None:
            locate = LineMap.from_line_numbers(line_numbers)
        queries = None if encoded is not None else as_string_chunks(
            query_ids, "query id", source, locate)
        docs = as_string_chunks(doc_ids, "document id", source, locate)
        if isinstance(scores, (pa.Array, pa.ChunkedArray)):
            score_array = numbers_column(scores, "score", source, locate)
        elif (not copy_scores and isinstance(scores, np.ndarray)
              and scores.dtype == np.float64):
            score_array = scores
        else:
            try:
                score_array = real_numbers(scores, "score")
            except BadValue as bad:
                raise row_error(bad.message, bad.row, source, locate) from None
        n_queries = len(encoded[0]) if encoded is not None else len(queries)  # type: ignore[arg-type]
        if not (n_queries == len(docs) == len(score_array)):
            raise InputFormatError(
                "query ids, document ids and scores differ in length: "
                f"[{n_queries}, {len(docs)}, {len(score_array)}]",
                source,
            )
        finite = np.isfinite(score_array)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            raise row_error(f"score must be a finite number, got '{float(score_array[row])}'",
                            row, source, locate)
        codes, names = encoded if encoded is not None else intern(queries)
        return cls(
            codes,
            names,
            docs,
            score_array,
            ranks=as_string_chunks(ranks, "rank") if ranks is not None else None,
            name=name,
            source=source,
            line_numbers=line_numbers,
            locate=locate,
            query_id_type=query_id_type,
            check=check_duplicates,
        )

    @classmethod
    def from_dict(cls, results: dict[Any, dict[Any, float]], *, name: str = "run") -> Run:
        """Build a run from ``{query_id: {doc_id: score}}`` (pytrec_eval's and ranx's form).

        Ids are text: a key is a ``str`` or an ``int`` (numpy integers too), and
        two keys that are the same text (``1`` and ``"1"``) name the same query
        (or document): a document that is then listed twice for a query is an
        error (:class:`DuplicateEntryError`) naming both keys. Scores must be
        finite real numbers (``float``, ``int``, numpy numbers; not booleans or
        text). A query whose dict is empty is in the run with nothing
        retrieved: it is one of :attr:`query_ids`, with no row. The one dict
        reader: every front door given a dict reads it so, with the same errors.

        Raises
        ------
        InputFormatError
            An entry that is not a dict, an id that is not a str or int, a
            score that is not a finite number; each names the query and the
            document, what was expected and what came.

        Examples
        --------
        >>> run = Run.from_dict({"q1": {"d1": 1.0}, "q2": {}})
        >>> run, run.query_ids
        (Run('run', 2 queries, 1 row), ['q1', 'q2'])
        """
        return cls._from_dict(results, name, typed=True)

    @classmethod
    def _from_dict(cls, results: Any, name: str, *, typed: bool) -> Run:
        """:meth:`from_dict`, the ids' type noted only when *typed* (a pass over the keys)."""
        columns = read_run_dict(results)
        codes = columns.codes
        # each query's rows in one entry: no query text twice among the non-empty entries
        # (codes number the queries in order of first appearance, empty entries included)
        grouped = len(codes) < 2 or bool((codes[1:] > codes[:-1]).all())
        rows = rows_to_check(columns)

        def run(**check: Any) -> Run:
            return cls(None, columns.names, columns.doc_ids, columns.scores, name=name,
                       source=SOURCE, segments=(columns.starts, codes),
                       rank_order_blocks=columns.starts if grouped and columns.descending
                       else None, query_id_type=key_type(results) if typed else None, **check)

        try:
            return run(check=rows is not None, check_rows=rows)
        except DuplicateEntryError as error:
            row = np.array([(error.line or 1) - 1])
            unchecked = run()
            query = columns.names[int(unchecked.query_codes_at(row)[0])]
            doc = unchecked.doc_ids[int(row[0])].as_py()
            raise duplicate_error(results, query, doc, "run") from None

    # access -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The run's name (its run id in TREC files)."""
        return self._name

    @property
    def query_ids(self) -> list[str]:
        """Distinct query ids, in order of first appearance."""
        return list(self._query_ids)

    @property
    def query_id_type(self) -> type | None:
        """The type the query ids were given in: ``int``, ``str``, or None (not known).

        ``int`` for integer ids (a dict's keys, a frame's integer column),
        ``str`` for text, None when not known (files). The ids are held as
        text (:attr:`query_ids`) either way; results give integer ids back as
        integers (:class:`~rankwise.Results`).
        """
        return self._query_id_type

    def _with_query_id_type(self, kind: type | None) -> Run:
        """Note the type the query ids were given in (for a run just built)."""
        self._query_id_type = kind
        return self

    @property
    def query_codes(self) -> np.ndarray:
        """Per row, the index of its query in :attr:`query_ids` (read-only int32)."""
        if self._query_codes is None:
            starts, codes = self._segments  # type: ignore[misc]
            lengths = np.diff(np.append(starts, len(self._scores)))
            self._query_codes = readonly(np.repeat(codes.astype(np.int32), lengths))
        return self._query_codes

    @property
    def query_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The runs of consecutive rows of one query: their first rows and query codes.

        Each query holds one block when the run is grouped by query (codes then
        increase: they number queries in order of first appearance).

        Examples
        --------
        >>> run = Run.from_arrow(["a", "a", "b", "a"], ["d1", "d2", "d1", "d3"], [3, 2, 1, 0])
        >>> [values.tolist() for values in run.query_blocks]
        [[0, 2, 3], [0, 1, 0]]
        """
        if self._segments is not None:
            starts, codes = self._segments
            keep = np.concatenate(([True], codes[1:] != codes[:-1]))[: len(codes)]
            return starts[keep].astype(np.int64), codes[keep].astype(np.int32)
        codes = self.query_codes
        starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        if not len(codes):
            starts = starts[:0]
        return starts.astype(np.int64), codes[starts].astype(np.int32)

    def query_codes_at(self, rows: np.ndarray) -> np.ndarray:
        """The query codes of *rows* (without expanding a code per row when not needed).

        Examples
        --------
        >>> run = Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5}})
        >>> run.query_codes_at(np.array([2, 0])).tolist()
        [1, 0]
        """
        if self._query_codes is not None:
            codes: np.ndarray = self._query_codes[rows]
            return codes
        starts, codes = self._segments  # type: ignore[misc]
        return codes[np.searchsorted(starts, rows, side="right") - 1].astype(np.int32)

    @property
    def doc_ids(self) -> pa.ChunkedArray:
        """Per row, the document id (Arrow strings)."""
        return to_arrow(self._doc_ids)

    @property
    def doc_column(self) -> StringsLike:
        """Per row, the document id as stored: Arrow, or Arrow's layout without pyarrow.

        For kernels that read the string buffers themselves (see
        :mod:`rankwise.data._strings`); :attr:`doc_ids` is the Arrow column.
        """
        return self._doc_ids

    @property
    def scores(self) -> np.ndarray:
        """Per row, the score (read-only float64)."""
        return self._scores

    @property
    def ranks(self) -> np.ndarray | None:
        """Per row, the rank column of the file as float64, when it was kept.

        Each rank must be a finite number (it orders the rows with ``ties="rank"``):
        anything else is an error naming its line (its row, for a table).
        """
        if self._ranks is None:
            return None
        ranks = numbers_column(to_arrow(self._ranks), "rank", self._source,
                               self.line_of if self._has_lines else None, text=True)
        finite = np.isfinite(ranks)
        if not finite.all():
            row = int(np.argmin(finite))
            written = to_arrow(self._ranks)[row].as_py()  # as the file has it
            raise row_error(f"rank must be a finite number for ties='rank', got {written!r}",
                            row, self._source, self.line_of if self._has_lines else None)
        return ranks

    @property
    def _has_lines(self) -> bool:
        """Whether the rows' lines in a file are known (else messages name rows)."""
        return self._line_numbers is not None or self._locate is not None

    @property
    def rank_order_blocks(self) -> np.ndarray | None:
        """The first row of each query's block, when the run is known to be in rank order.

        In rank order: each query's rows together, scores never rising within
        them (a TREC run as systems write it). Readers that saw it say so, and
        the engine then need not check; None when not known.
        """
        return self._blocks

    @property
    def source(self) -> str | None:
        """Where the run came from (a path), for messages."""
        return self._source

    def line_of(self, row: int) -> int:
        """Return the 1-based line (or row) number of *row* in the source."""
        return line_of_row(row, self._line_numbers, self._locate)

    def __len__(self) -> int:
        return len(self._scores)

    def __repr__(self) -> str:
        return (f"Run({self._name!r}, {counted(len(self._query_ids), 'query')}, "
                f"{counted(len(self), 'row')})")

    def with_name(self, name: str) -> Run:
        """Return the same run under another name."""
        return Run(
            self._query_codes,
            self._query_ids,
            self._doc_ids,
            self._scores,
            ranks=self._ranks,
            name=name,
            source=self._source,
            line_numbers=self._line_numbers,
            locate=self._locate,
            rank_order_blocks=self._blocks,
            segments=self._segments,  # type: ignore[arg-type]
        )._with_query_id_type(self._query_id_type)

    def to_dict(self) -> dict[Any, dict[str, float]]:
        """Return ``{query_id: {doc_id: score}}`` (integer query ids as integers).

        Reading it back (:meth:`from_dict`) gives an equal run. A query with
        nothing retrieved is ``{}``.

        Examples
        --------
        >>> Run.from_dict({7: {"d1": 1.5}, 10: {"d2": 0.5}}).to_dict()
        {7: {'d1': 1.5}, 10: {'d2': 0.5}}
        >>> Run.from_dict({"q1": {}, "q2": {"d2": 0.5}}).to_dict()
        {'q1': {}, 'q2': {'d2': 0.5}}
        """
        out: dict[Any, dict[str, float]] = {}
        docs = self._doc_ids.to_pylist()
        names = typed_ids(self._query_ids, self._query_id_type)
        codes = self.query_codes
        if (np.bincount(codes, minlength=len(names)) == 0).any():  # nothing retrieved: {}
            out = {query: {} for query in names}
        for code, doc, score in zip(codes.tolist(), docs, self._scores.tolist()):
            out.setdefault(names[code], {})[doc] = score
        return out

    def to_arrow(self, *, typed: bool = False) -> pa.Table:
        """Return the run as an Arrow table ``query_id, doc_id, score``.

        With *typed*, integer query ids (:attr:`query_id_type`) are an int64
        column; otherwise text.
        """
        import pyarrow as pa

        queries = typed_column(self._query_ids, self._query_id_type if typed else str).take(
            pa.array(self.query_codes)
        )
        return pa.table(
            {"query_id": queries, "doc_id": self.doc_ids.combine_chunks(), "score": self._scores}
        )

    def to_pandas(self) -> Any:
        """Return the run as a pandas DataFrame ``query_id, doc_id, score``.

        Integer query ids stay integers; reading it back (:func:`rankwise.io.as_run`)
        gives an equal run.

        Examples
        --------
        >>> Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}}).to_pandas()
          query_id doc_id  score
        0       q1     d1    2.0
        1       q1     d2    1.0
        """
        from rankwise.data.writers import to_pandas

        return to_pandas(self.to_arrow(typed=True))

    def to_trec(self, path: str | os.PathLike[str], *, run_id: str | None = None) -> None:
        """Write the run as a TREC run file, in trec_eval's order, scores exact.

        Reading it back (:func:`rankwise.read_run`) gives an equal run, but
        for a query with nothing retrieved: a file has no line for it, so
        the run read back does not hold it (see :meth:`from_dict`).

        Parameters
        ----------
        path : path
            The file (written atomically).
        run_id : str, optional
            The last column (default: the run's name).

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "bm25.run")
        >>> Run.from_dict({"q1": {"d1": 0.5, "d2": 1.25}}, name="bm25").to_trec(path)
        >>> print(open(path).read(), end="")
        q1 Q0 d2 1 1.25 bm25
        q1 Q0 d1 2 0.5 bm25
        """
        from rankwise.data.writers import run_to_trec

        run_to_trec(self.to_arrow(), path, run_id=self.name if run_id is None else run_id)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the run as a Parquet table ``query_id, doc_id, score`` (atomically).

        A query with nothing retrieved has no row: it is not in the table.
        """
        from rankwise.data.writers import to_parquet

        to_parquet(self.to_arrow(typed=True), path)

    # validation -------------------------------------------------------------------
    def check_duplicates(self, rows: np.ndarray | None = None) -> None:
        """Raise :class:`DuplicateEntryError` when a document appears twice for one query.

        Parameters
        ----------
        rows : ndarray of int, optional
            Look only among these rows (a reader that has checked the others
            passes the rest); by default all rows.

        Examples
        --------
        >>> run = Run.from_arrow(["q1", "q1"], ["d1", "d1"], [2.0, 1.0], check_duplicates=False)
        >>> run.check_duplicates()
        Traceback (most recent call last):
        ...
        rankwise.exceptions.DuplicateEntryError: document 'd1' appears twice for query 'q1' \
(first at line 1); a run lists each document once per query
        """
        if rows is None or len(rows) * 4 > len(self):
            self._check_duplicates()
            return
        if len(rows) < 2:
            return
        from rankwise.data._arrow import string_keys_at

        rows = np.asarray(rows, dtype=np.int64)
        keys = string_keys_at(self._doc_ids, rows)
        keys += self.query_codes_at(rows).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        keys.sort()
        if (keys[1:] == keys[:-1]).any():  # a candidate: the full check confirms and reports
            self._check_duplicates()

    def _check_duplicates(self) -> None:
        """Raise :class:`DuplicateEntryError` when a document appears twice for one query."""
        n = len(self)
        if n < 2:
            return
        keys, _ = string_keys(self._doc_ids)
        codes = self.query_codes
        boundaries = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        sizes = np.diff(np.concatenate(([0], boundaries, [n])))
        grouped = len(sizes) == len(self._query_ids)
        if grouped and (sizes == sizes[0]).all():
            # The common case: one block of equal length per query. Sort within
            # blocks; no query code has to be mixed into the keys.
            rows = keys.reshape(len(sizes), int(sizes[0]))
            rows.sort(axis=1)  # in place: the keys are ours
            if not (rows[:, 1:] == rows[:, :-1]).any():
                return
            keys, _ = string_keys(self._doc_ids)  # unsorted again, for the report
        combined = codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        combined += keys
        del keys
        ordered = np.sort(combined)
        if not (ordered[1:] == ordered[:-1]).any():
            return
        del ordered
        self._report_duplicate(combined)

    def _report_duplicate(self, combined: np.ndarray) -> None:
        """Confirm duplicate candidates (equal keys) exactly, and report the first one."""
        import pyarrow as pa

        ordered = np.sort(combined)
        repeated = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
        rows = np.flatnonzero(np.isin(combined, repeated))
        table = pa.table(
            {
                "query": pa.array(self.query_codes_at(rows)),
                "doc": self.doc_ids.take(pa.array(rows)),
                "row": pa.array(rows),
            }
        )
        groups = table.group_by(["query", "doc"]).aggregate(
            [("row", "min"), ("row", "count"), ("row", "list")]
        )
        counts = groups["row_count"].to_numpy()
        if not (counts > 1).any():
            return
        candidates = [
            sorted(group)
            for group, count in zip(groups["row_list"].to_pylist(), counts.tolist())
            if count > 1
        ]
        first, second = min(((g[0], g[1]) for g in candidates), key=lambda pair: pair[1])
        docs = self.doc_ids
        doc = docs[second].as_py()
        query = self._query_ids[int(self.query_codes_at(np.array([second]))[0])]
        # (a table's rows count as its lines here, as the Spark engine reports the same run)
        raise DuplicateEntryError(
            f"document {doc!r} appears twice for query {query!r} "
            f"(first at line {self.line_of(first)}); a run lists each document once per query",
            self._source,
            self.line_of(second),
        )
