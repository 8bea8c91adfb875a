"""The :class:`Qrels`: relevance judgments, per query, as columns."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rankwise._wording import counted
from rankwise.data._arrow import as_string_chunks, intern, numbers_column, row_error
from rankwise.data._dicts import SOURCE, duplicate_error, is_nested, read_qrels_dict
from rankwise.data._rows import LineMap, key_type, line_of_row, readonly, typed_column, typed_ids
from rankwise.data._strings import StringColumn
from rankwise.data._values import BadValue, real_numbers
from rankwise.exceptions import DuplicateEntryError, InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data.subtopics import Subtopics

__all__ = ["Qrels"]


class Qrels:
    """Relevance judgments: for each query, documents with grades.

    Immutable and columnar: query and document ids interned once as int32
    codes, grades as float64. A grade ``>= rel`` (default 1) is relevant; a
    grade below it, negative ones included, is judged but not relevant.

    Diversity judgments (a grade per subtopic of the query: ndeval's
    ``qid subtopic docno grade``) keep one row per (query, document) graded
    with the document's maximum grade over its subtopics, which every
    one-grade-per-document measure reads, and the subtopic judgments in
    :attr:`subtopics`, which the diversity measures read.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    >>> qrels
    Qrels(2 queries, 3 judgments)
    >>> qrels.to_dict()
    {'q1': {'d1': 2, 'd2': 0}, 'q2': {'d3': 1}}
    >>> diverse = Qrels.from_dict({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d1": 0, "d2": 2}}})
    >>> diverse, diverse.to_dict()
    (Qrels(1 query, 2 judgments, 2 subtopics), {'q1': {'d1': 1, 'd2': 2}})
    """

    __slots__ = (
        "_doc_codes",
        "_doc_column",
        "_doc_ids",
        "_doc_rows",
        "_grades",
        "_line_numbers",
        "_locate",
        "_query_codes",
        "_query_id_type",
        "_query_ids",
        "_source",
        "_subtopics",
    )

    def __init__(
        self,
        query_codes: np.ndarray,
        query_ids: list[str],
        doc_codes: np.ndarray | None,
        doc_ids: list[str] | None,
        grades: np.ndarray,
        *,
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
        locate: Callable[[int], int] | None = None,
        doc_column: StringColumn | None = None,
        doc_rows: StringColumn | None = None,
        subtopics: Subtopics | None = None,
        query_id_type: type | None = None,
        check: bool = False,
    ) -> None:
        """Judgments from interned columns (for readers; build them with :meth:`from_arrow`).

        *query_id_type* notes the type the query ids were given in; *check*
        refuses a (query, document) judged twice (:meth:`check_duplicates`).
        """
        if (doc_codes is None or doc_ids is None) and doc_rows is None:
            raise TypeError("Qrels needs doc_codes and doc_ids, or doc_rows")
        self._query_codes = readonly(query_codes)
        self._query_ids = query_ids
        # documents are interned when first asked for (doc_rows: each judgment's id, in
        # row order, from a reader that left them uninterned; the dict path reads them so)
        self._doc_codes = None if doc_codes is None else readonly(doc_codes)
        self._doc_ids = doc_ids
        self._doc_rows = doc_rows if doc_codes is None else None
        # the distinct document ids in Arrow's layout, when a reader has them already
        self._doc_column: StringColumn | None = doc_column
        self._grades = readonly(grades)
        self._source = source
        self._line_numbers = line_numbers
        self._locate = locate
        self._query_id_type: type | None = query_id_type
        self._subtopics = subtopics
        if check:
            self.check_duplicates()

    def __getstate__(self) -> dict[str, Any]:
        self._docs()
        return {slot: getattr(self, slot) for slot in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for slot, value in state.items():
            object.__setattr__(
                self, slot, readonly(value) if isinstance(value, np.ndarray) else value)

    @classmethod
    def from_arrow(
        cls,
        query_ids: Any,
        doc_ids: Any,
        grades: Any,
        *,
        source: str | None = None,
        line_numbers: np.ndarray | None = None,
        locate: Callable[[int], int] | None = None,
        subtopics: Any = None,
        query_id_type: type | None = None,
    ) -> Qrels:
        """Build judgments from three columns (Arrow arrays, numpy arrays or sequences).

        With *subtopics* (a fourth column: the subtopic of each judgment),
        they are diversity judgments: a (query, document) may be judged once
        per subtopic, and its row takes its maximum grade over subtopics.
        *query_id_type* notes the type the query ids were given in.

        Raises
        ------
        InputFormatError
            When the columns differ in length, a grade is missing or not a
            finite number, or (``DuplicateEntryError``) a judgment is given twice.
        """
        import pyarrow as pa

        if locate is None and line_numbers is not None:
            locate = LineMap.from_line_numbers(line_numbers)
        queries = as_string_chunks(query_ids, "query id", source, locate)
        docs = as_string_chunks(doc_ids, "document id", source, locate)
        topics = (
            as_string_chunks(subtopics, "subtopic", source, locate)
            if subtopics is not None else None
        )
        if isinstance(grades, (pa.Array, pa.ChunkedArray)):
            grade_array = numbers_column(grades, "grade", source, locate, booleans=True)
        else:
            try:
                grade_array = real_numbers(grades, "grade", booleans=True)
            except BadValue as bad:
                raise row_error(bad.message, bad.row, source, locate) from None
        if not (len(queries) == len(docs) == len(grade_array)) or (
            topics is not None and len(topics) != len(docs)
        ):
            lengths = [len(queries), len(docs)]
            lengths += [len(topics)] if topics is not None else []
            lengths += [len(grade_array)]
            raise InputFormatError(
                "query ids, document ids"
                + (", subtopics" if topics is not None else "")
                + f" and grades differ in length: {lengths}",
                source,
            )
        finite = np.isfinite(grade_array)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            raise row_error(f"grade must be a finite number, got '{float(grade_array[row])}'",
                            row, source or "<judgments>", locate)
        query_codes, query_names = intern(queries)
        doc_codes, doc_names = intern(docs)
        if topics is not None:
            return cls.with_subtopics(
                query_codes, query_names, doc_codes, doc_names, topics, grade_array,
                source=source, line_numbers=line_numbers, locate=locate,
                query_id_type=query_id_type,
            )
        return cls(
            query_codes,
            query_names,
            doc_codes,
            doc_names,
            grade_array,
            source=source,
            line_numbers=line_numbers,
            locate=locate,
            query_id_type=query_id_type,
            check=True,
        )

    @classmethod
    def with_subtopics(
        cls,
        query_codes: np.ndarray,
        query_names: list[str],
        doc_codes: np.ndarray,
        doc_names: list[str],
        topics: Any,
        grades: np.ndarray,
        *,
        source: str | None,
        line_numbers: np.ndarray | None = None,
        locate: Callable[[int], int] | None = None,
        query_id_type: type | None = None,
    ) -> Qrels:
        """Diversity judgments from interned columns and a subtopic per judgment (for readers).

        A (query, document) keeps one row graded with its maximum over
        subtopics; the subtopic judgments go to :attr:`subtopics`.
        """
        from rankwise.data.subtopics import collapse_subtopics

        lines = _FirstLines(None, line_numbers, locate)
        topic_codes, topic_names = intern(as_string_chunks(topics, "subtopic", source, locate))
        rows_query, rows_doc, rows_grade, first, table = collapse_subtopics(
            query_codes, doc_codes, topic_codes, topic_names, grades,
            query_ids=query_names, doc_ids=doc_names, source=source, line_of=lines,
        )
        return cls(
            rows_query, query_names, rows_doc, doc_names, rows_grade, source=source,
            locate=_FirstLines(first, line_numbers, locate), subtopics=table,
            query_id_type=query_id_type,
        )

    @classmethod
    def from_dict(cls, judgments: dict[Any, dict[Any, Any]]) -> Qrels:
        """Build judgments from ``{query_id: {doc_id: grade}}`` (pytrec_eval's and ranx's form).

        Ids are text: a key is a ``str`` or an ``int`` (numpy integers too);
        two keys that are one id (``1`` and ``"1"``) judging one document are
        a :class:`DuplicateEntryError` naming both. Grades are finite real
        numbers, fractional ones included, or ``True`` and ``False`` (1 and 0).
        The one dict reader: every front door given a dict reads it so, with
        the same errors (:meth:`Run.from_dict`).

        Diversity judgments: ``{query_id: {subtopic: {doc_id: grade}}}``.
        """
        return cls._from_dict(judgments, typed=True)

    @classmethod
    def _from_dict(cls, judgments: Any, *, typed: bool) -> Qrels:
        """:meth:`from_dict`, the ids' type noted only when *typed* (or known: text keys)."""
        if is_nested(judgments):  # diversity judgments {query_id: {subtopic: {doc_id: grade}}}
            return cls._from_nested_dict(judgments)._with_query_id_type(key_type(judgments))
        read = read_qrels_dict(judgments)
        kind = str if read.str_keys else key_type(judgments) if typed else None
        try:
            return cls(*read.columns, source=SOURCE, query_id_type=kind, check=read.may_repeat,
                       **read.extra)
        except DuplicateEntryError as error:  # a (query, document) given twice: its keys
            qrels = cls(*read.columns, source=SOURCE, **read.extra)
            row = (error.line or 1) - 1
            query = qrels.query_ids[int(qrels.query_codes[row])]
            doc = qrels.doc_ids[int(qrels.doc_codes[row])]
            raise duplicate_error(judgments, query, doc, "qrels") from None

    @classmethod
    def _from_nested_dict(cls, judgments: dict[Any, Any]) -> Qrels:
        """Diversity judgments from ``{query_id: {subtopic: {doc_id: grade}}}``."""
        queries: list[str] = []
        docs: list[str] = []
        grades: list[Any] = []
        topics: list[str] = []
        for query, judged in judgments.items():
            if not isinstance(judged, dict):
                raise InputFormatError(
                    f"query {query!r}: the qrels entry must be a dict {{subtopic: "
                    f"{{doc_id: grade}}}}, got {type(judged).__name__}", SOURCE
                )
            for topic, graded in judged.items():
                if not isinstance(graded, dict):
                    raise InputFormatError(
                        f"query {query!r}, subtopic {topic!r}: the entry must be a dict "
                        f"{{doc_id: grade}} (diversity judgments: {{query_id: {{subtopic: "
                        f"{{doc_id: grade}}}}}}), got {type(graded).__name__}", SOURCE
                    )
                queries.extend([str(query)] * len(graded))
                topics.extend([str(topic)] * len(graded))
                docs.extend(str(doc) for doc in graded)
                grades.extend(graded.values())
        try:
            values = real_numbers(grades, "grade", booleans=True)
        except BadValue as bad:
            raise InputFormatError(f"diversity judgments: {bad.message}", SOURCE) from None
        return cls.from_arrow(queries, docs, values, source="<dict>", subtopics=topics)

    @property
    def subtopics(self) -> Subtopics | None:
        """The subtopic judgments of diversity judgments (None for plain judgments)."""
        return self._subtopics

    @property
    def query_ids(self) -> list[str]:
        """Distinct query ids, in order of first appearance."""
        return list(self._query_ids)

    @property
    def n_queries(self) -> int:
        """The number of distinct query ids (:attr:`query_ids` without copying them).

        Examples
        --------
        >>> Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d1": 0, "d2": 1}}).n_queries
        2
        """
        return len(self._query_ids)

    @property
    def query_id_type(self) -> type | None:
        """The type the query ids were given in: ``int``, ``str``, or None (not known).

        ``int`` for integer ids (a dict's keys, a frame's integer column),
        ``str`` for text, None when not known (files). The ids are held as
        text (:attr:`query_ids`) either way; the results of an evaluation give
        integer ids back as integers (:class:`~rankwise.Results`).
        """
        return self._query_id_type

    def _with_query_id_type(self, kind: type | None) -> Qrels:
        """Note the type the query ids were given in (for judgments just built)."""
        self._query_id_type = kind
        return self

    @property
    def query_codes(self) -> np.ndarray:
        """Per judgment, the index of its query in :attr:`query_ids` (read-only)."""
        return self._query_codes

    def _docs(self) -> tuple[np.ndarray, list[str]]:
        """The document codes and distinct ids (interned here when a reader left them)."""
        if self._doc_codes is None or self._doc_ids is None:
            rows = cast(StringColumn, self._doc_rows)  # __init__ had one or the other
            codes, names = intern(rows.to_arrow())
            self._doc_codes, self._doc_ids, self._doc_rows = readonly(codes), names, None
        return self._doc_codes, self._doc_ids

    def judged_doc_text(self) -> tuple[StringColumn, np.ndarray]:
        """Document ids as text and, per judgment, the index of its id there.

        The distinct ids (:attr:`doc_column`, :attr:`doc_codes`) when they are
        interned; else each judgment's own id in row order, without interning
        them (what the counting kernels need: an id per judgment).

        Examples
        --------
        >>> ids, index = Qrels.from_dict({"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}
        ...                             ).judged_doc_text()
        >>> [ids.to_arrow()[i].as_py() for i in index.tolist()]
        ['d1', 'd2', 'd1']
        """
        if self._doc_codes is None and self._doc_rows is not None:
            return self._doc_rows, np.arange(len(self._grades), dtype=np.int32)
        return self.doc_column, self.doc_codes

    @property
    def doc_ids(self) -> list[str]:
        """Distinct judged document ids, in order of first appearance."""
        return list(self._docs()[1])

    @property
    def doc_array(self) -> pa.Array:
        """The distinct judged document ids as an Arrow string array."""
        return self.doc_column.to_arrow().combine_chunks()

    @property
    def doc_column(self) -> StringColumn:
        """The distinct judged document ids in Arrow's layout, without pyarrow (built once)."""
        if self._doc_column is None:
            self._doc_column = StringColumn.from_strings(self._docs()[1])
        return self._doc_column

    @property
    def doc_codes(self) -> np.ndarray:
        """Per judgment, the index of its document in :attr:`doc_ids` (read-only)."""
        return self._docs()[0]

    @property
    def grades(self) -> np.ndarray:
        """Per judgment, the relevance grade (read-only float64)."""
        return self._grades

    @property
    def source(self) -> str | None:
        """Where the judgments came from (a path), for messages."""
        return self._source

    def line_of(self, row: int) -> int:
        """Return the 1-based line (or row) number of *row* in the source."""
        return line_of_row(row, self._line_numbers, self._locate)

    def __len__(self) -> int:
        return len(self._grades)

    def __repr__(self) -> str:
        topics = (
            f", {counted(len(distinct_subtopics(self)), 'subtopic')}"
            if self._subtopics is not None else ""
        )
        return (f"Qrels({counted(len(self._query_ids), 'query')}, "
                f"{counted(len(self), 'judgment')}{topics})")

    def to_dict(self, *, subtopics: bool = False) -> dict[Any, Any]:
        """Return ``{query_id: {doc_id: grade}}`` (integral grades as ints).

        Integer query ids come back as integers; :meth:`from_dict` reads it
        back to equal judgments. For diversity judgments the grade is the
        maximum over subtopics; with *subtopics*, ``{query_id: {subtopic:
        {doc_id: grade}}}``.
        """
        out: dict[Any, Any] = {}
        doc_codes, doc_ids = self._docs()
        if subtopics and self._subtopics is not None:
            table = self._subtopics
            integral = bool(np.all(table.grades == np.round(table.grades)))
            rows = table.rows
            topic_names = typed_ids(self._query_ids, self._query_id_type)
            for r, t, g in zip(rows.tolist(), table.codes.tolist(), table.grades.tolist()):
                query = topic_names[self._query_codes[r]]
                by_topic = out.setdefault(query, {}).setdefault(table.names[t], {})
                by_topic[doc_ids[doc_codes[r]]] = int(g) if integral else g
            return out
        integral = bool(np.all(self._grades == np.round(self._grades)))
        names = typed_ids(self._query_ids, self._query_id_type)
        for q, d, g in zip(self._query_codes.tolist(), doc_codes.tolist(), self._grades.tolist()):
            out.setdefault(names[q], {})[doc_ids[d]] = int(g) if integral else g
        return out

    def to_arrow(self, *, typed: bool = False) -> pa.Table:
        """Return the judgments as an Arrow table ``query_id, doc_id, relevance``.

        With *typed*, integer query ids (:attr:`query_id_type`) are an int64
        column; otherwise text.

        Diversity judgments: ``query_id, subtopic, doc_id, relevance``, one
        row per subtopic judgment (read back to equal judgments).
        """
        import pyarrow as pa

        queries = typed_column(self._query_ids, self._query_id_type if typed else str)
        doc_codes, doc_ids = self._docs()
        docs = pa.array(doc_ids, pa.string())
        if self._subtopics is not None:
            table = self._subtopics
            rows = pa.array(table.rows)
            return pa.table(
                {
                    "query_id": queries.take(pa.array(self._query_codes).take(rows)),
                    "subtopic": pa.array(table.names, pa.string()).take(pa.array(table.codes)),
                    "doc_id": docs.take(pa.array(doc_codes).take(rows)),
                    "relevance": table.grades,
                }
            )
        return pa.table(
            {
                "query_id": typed_column(
                    self._query_ids, self._query_id_type if typed else str
                ).take(pa.array(self._query_codes)),
                "doc_id": docs.take(pa.array(doc_codes)),
                "relevance": self._grades,
            }
        )


    def to_trec(self, path: str | os.PathLike[str]) -> None:
        """Write the judgments as a TREC qrels file ``qid 0 docno grade`` (atomically).

        Diversity judgments are written ``qid subtopic docno grade`` (ndeval's
        format; read them back with ``read_qrels(path, subtopics=True)``).

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
        >>> Qrels.from_dict({"q1": {"d1": 2, "d2": 0}}).to_trec(path)
        >>> print(open(path).read(), end="")
        q1 0 d1 2
        q1 0 d2 0
        """
        from rankwise.data.writers import qrels_to_trec

        qrels_to_trec(self.to_arrow(), path)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the judgments as a Parquet table ``query_id, doc_id, relevance``."""
        from rankwise.data.writers import to_parquet

        to_parquet(self.to_arrow(typed=True), path)

    def to_pandas(self) -> Any:
        """Return the judgments as a pandas DataFrame ``query_id, doc_id, relevance``.

        Integer query ids stay integers; reading it back (:func:`rankwise.io.as_qrels`)
        gives equal judgments.
        """
        from rankwise.data.writers import to_pandas

        return to_pandas(self.to_arrow(typed=True))

    def check_duplicates(self) -> None:
        """Raise :class:`DuplicateEntryError` when a (query, document) is judged twice.

        Examples
        --------
        >>> import numpy as np
        >>> twice = np.zeros(2, dtype=np.int32)
        >>> Qrels(twice, ["q1"], twice.copy(), ["d1"], np.array([1.0, 0.0])).check_duplicates()
        Traceback (most recent call last):
        ...
        rankwise.exceptions.DuplicateEntryError: <judgments>:2: judgment for document 'd1' \
of query 'q1' is given twice (first at line 1); each (query, document) is judged once (a \
grade per subtopic: read diversity judgments with subtopics=True, or --qrels-format diversity)
        """
        if len(self) < 2:
            return
        doc_codes, doc_ids = self._docs()
        keys = self._query_codes.astype(np.int64) * max(1, len(doc_ids)) + doc_codes
        order = np.argsort(keys, kind="stable")
        repeated = np.flatnonzero(keys[order][1:] == keys[order][:-1])
        if len(repeated) == 0:
            return
        pairs = [(int(order[i]), int(order[i + 1])) for i in repeated.tolist()]
        first, second = min(pairs, key=lambda pair: pair[1])
        raise DuplicateEntryError(
            f"judgment for document {doc_ids[doc_codes[second]]!r} of query "
            f"{self._query_ids[self._query_codes[second]]!r} is given twice "
            f"(first at line {self.line_of(first)}); each (query, document) is judged once "
            "(a grade per subtopic: read diversity judgments with subtopics=True, or "
            "--qrels-format diversity)",
            self._source or "<judgments>",
            self.line_of(second),
        )


class _FirstLines:
    """The line of a row: that of its first judgment (*first*) in the source (picklable)."""

    __slots__ = ("first", "line_numbers", "locate")

    def __init__(self, first: np.ndarray | None, line_numbers: np.ndarray | None,
                 locate: Callable[[int], int] | None) -> None:
        self.first = first
        self.line_numbers = line_numbers
        self.locate = locate

    def __call__(self, row: int) -> int:
        at = int(self.first[row]) if self.first is not None else int(row)
        return line_of_row(at, self.line_numbers, self.locate)

    def __getstate__(self) -> tuple[Any, ...]:
        return self.first, self.line_numbers, self.locate

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.first, self.line_numbers, self.locate = state


def distinct_subtopics(qrels: Qrels) -> set[tuple[int, int]]:
    """The distinct (query code, subtopic code) pairs of diversity judgments."""
    table = qrels.subtopics
    if table is None:
        return set()
    pairs = qrels.query_codes[table.rows].astype(np.int64) * (1 << 32) + table.codes
    return set(np.unique(pairs).tolist())
