"""Turning whatever the user holds into :class:`Qrels` and :class:`Run`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rankwise._validation import Instance, OneOf, check, optional
from rankwise.data import Qrels, Run
from rankwise.data._rows import key_type
from rankwise.exceptions import InputFormatError
from rankwise.options import COLUMN_ROLES, check_columns

__all__ = [
    "COLUMN_ROLES",
    "QRELS_FORMATS",
    "as_qrels",
    "as_run",
    "check_columns",
    "file_stem",
    "read_qrels",
    "read_run",
    "refuse_empty_dict",
    "split_one_table",
]

_CANDIDATES = {
    "query_id": ("query_id", "qid", "query", "query-id"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "corpus-id"),
    "relevance": ("relevance", "label", "grade", "rel"),
    "score": ("score", "prediction", "pred"),
    "rank": ("rank",),
    "subtopic": ("subtopic", "intent"),
}
BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")
"""The header of BEIR's qrels TSV files, whose ``score`` is the relevance grade."""
_ROLE_TEXT = {"query_id": "query", "doc_id": "document", "relevance": "relevance",
              "score": "score", "rank": "rank", "subtopic": "subtopic"}

QRELS_FORMATS = ("trec", "diversity", "parquet", "csv", "tsv", "jsonl")
"""Formats of judgments files: ``diversity`` is TREC text whose second field is the subtopic."""


def _path_text(path: Any, function: str, what: str, converter: str) -> str:
    """The text of *path*, or the error saying what *function* takes and where else to go.

    Examples
    --------
    >>> _path_text({"q1": {"d1": 1}}, "read_qrels", "judgments", "as_qrels")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: read_qrels reads a file: it takes a path (str \
or os.PathLike, '-' for standard input), got dict; judgments already in memory (a dict, a \
frame, named tuples) go to rw.evaluate as they are, or to rankwise.io.as_qrels
    """
    from rankwise.exceptions import InvalidParameterError

    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    verb = "goes" if what.startswith("a ") else "go"
    remedy = (f"{what} already in memory (a dict, a frame, named tuples) {verb} to "
              f"rw.evaluate as {'it is' if verb == 'goes' else 'they are'}, or to "
              f"rankwise.io.{converter}")
    if isinstance(path, (bytes, bytearray, memoryview)):
        remedy = (f"TREC text held as bytes goes to rankwise.read_trec_"
                  f"{'run' if converter == 'as_run' else 'qrels'}")
    raise InvalidParameterError(
        f"{function} reads a file: it takes a path (str or os.PathLike, '-' for standard "
        f"input), got {type(path).__name__}; {remedy}"
    )


@dataclass(frozen=True)
class _Origin:
    """Where a table came from, for messages.

    Attributes
    ----------
    where : str or None
        The file's name (None: a frame, ``<table>``).
    header : bool
        Its column names are the first line of a CSV or TSV file.
    records : bool
        It was made from named tuples.
    lines : callable or None
        The line of each row in its file (CSV, TSV, JSONL files).
    """

    where: str | None = None
    header: bool = False
    records: bool = False
    lines: Any = None


_FRAME = _Origin()


def _origin(table: Any, source: str | None, records: bool = False) -> _Origin:
    from rankwise.io.tables import _where

    _, lines, header = _where(table, source)
    return _Origin(source, header, records, lines)


_REMEDIES = {
    "relevance": "; judgments without grades (implicit feedback: every listed pair is relevant) "
                 "say so with columns={'relevance': None} (--columns relevance=)",
    "score": "; a run ordered by a rank column instead: columns={'rank': ...}",
}


def _header_hint(names: list[str], origin: _Origin) -> str:
    """A remedy when a CSV or TSV file's first line looks like data, not a header."""
    known = {name for candidates in _CANDIDATES.values() for name in candidates}
    if not origin.header or known & set(names):
        return ""
    return ("; the first line of a CSV or TSV file names its columns: is the header missing? "
            "(add one, such as query_id,doc_id,score or query_id,doc_id,relevance)")


def _find(names: list[str], columns: dict[str, Any], role: str,
          origin: _Origin = _FRAME) -> str | None:
    """The column of *role*: the one *columns* names, else the first candidate present."""
    wanted = columns.get(role)
    if wanted is not None:
        if wanted not in names:
            raise InputFormatError(
                f"{_ROLE_TEXT[role]} column {wanted!r} (columns[{role!r}]) not found; "
                f"columns are {names}{_header_hint(names, origin)}", origin.where
            )
        return str(wanted)
    for name in _CANDIDATES[role]:
        if name in names:
            return name
    return None


def _pick(names: list[str], columns: dict[str, Any], role: str,
          origin: _Origin = _FRAME) -> str:
    found = _find(names, columns, role, origin)
    if found is not None:
        return found
    remedy = _header_hint(names, origin) or _REMEDIES.get(role, "")
    raise InputFormatError(
        f"no {_ROLE_TEXT[role]} column: expected one of {list(_CANDIDATES[role])} "
        f"or a name given with columns={{{role!r}: ...}}, columns are {names}{remedy}",
        origin.where,
    )


def _id_type_of_column(table: Any, column: str) -> type:
    """``int`` for an integer column of query ids, else ``str``."""
    import pyarrow as pa

    kind = table.schema.field(column).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return int if pa.types.is_integer(kind) else str


def read_qrels(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    columns: Mapping[str, Any] | None = None,
    subtopics: bool | None = None,
) -> Qrels:
    r"""Read judgments from a TREC qrels file or a Parquet / CSV / TSV / JSONL table.

    Parameters
    ----------
    path : path or ``"-"``
        The file; ``"-"`` reads standard input.
    fmt : {"trec", "diversity", "parquet", "csv", "tsv", "jsonl"}, optional
        Overrides the format implied by the extension (TREC text otherwise).
        ``diversity`` is TREC text read with ``subtopics=True``.
    columns : dict, optional
        For tables: ``{role: column}`` for the roles ``query_id``, ``doc_id``,
        ``relevance`` and ``subtopic`` (default: the first column found among
        ``query_id, qid, query``; ``doc_id, docno, docid, doc``;
        ``relevance, label, grade, rel``; ``subtopic, intent``).
    subtopics : bool, optional
        Read diversity judgments (a grade per subtopic of the query). True: a
        TREC file's second field is the subtopic (ndeval's ``qid subtopic
        docno grade``), a table must have a subtopic column. False: plain
        judgments (a TREC file's second field is ignored, a table's subtopic
        column too). By default a TREC file is plain and a table is diversity
        judgments when it has a subtopic column.

    Returns
    -------
    Qrels

    Raises
    ------
    InvalidParameterError
        *path* is not a path (a dict, a frame or records go to :func:`as_qrels`).
    InputFormatError
        The file is missing or malformed, or holds no rows (in every format:
        docs/reading.md); a line or row is named where there is one.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.ndeval")
    >>> _ = open(path, "w").write("1 1 d1 1\n1 2 d1 0\n1 2 d2 2\n")
    >>> read_qrels(path, subtopics=True)
    Qrels(1 query, 2 judgments, 2 subtopics)
    >>> read_qrels(path, fmt="diversity").to_dict(subtopics=True)
    {'1': {'1': {'d1': 1}, '2': {'d1': 0, 'd2': 2}}}
    """
    from rankwise.exceptions import InvalidParameterError

    text = _path_text(path, "read_qrels", "judgments", "as_qrels")
    mapping = check_columns(columns)
    check("subtopics", subtopics, optional(Instance(bool, words="True or False")))
    from rankwise.io._source import describe
    from rankwise.io.tables import read_table, table_format
    from rankwise.io.trec import read_trec_qrels

    kind = fmt or table_format(text) or "trec"
    check("qrels format", kind, OneOf(QRELS_FORMATS))
    if kind == "diversity":
        if subtopics is False:
            raise InvalidParameterError(
                "format 'diversity' reads subtopics; subtopics=False contradicts it"
            )
        return read_trec_qrels(text, subtopics=True)
    if kind == "trec":
        return read_trec_qrels(text, subtopics=bool(subtopics))
    table = read_table(text, kind)
    return _qrels_of_table(table, mapping, source=describe(text),
                           typed=kind in ("parquet", "jsonl"), subtopics=subtopics)


def _qrels_of_table(
    table: Any, columns: dict[str, Any], source: str | None = None, *, typed: bool = True,
    subtopics: bool | None = None, records: bool = False,
) -> Qrels:
    """Judgments from a table; *typed*: its column types are the data's (not a text file's)."""
    import numpy as np

    from rankwise.io.tables import refuse_no_rows

    origin = _origin(table, source, records)
    if not table.num_columns:  # nothing at all (blank lines, no records): say so first
        refuse_no_rows(table, "qrels", source, records=records)
    names = table.column_names
    query = _pick(names, columns, "query_id", origin)
    doc = _pick(names, columns, "doc_id", origin)
    refuse_no_rows(table, "qrels", source, records=records)
    if "relevance" in columns and columns["relevance"] is None:  # implicit feedback
        qrels = Qrels.from_arrow(
            table[query], table[doc], np.ones(table.num_rows), source=source or "<table>"
        )
    else:
        relevance = _find(names, columns, "relevance", origin)
        if relevance is None and tuple(names) == BEIR_QRELS_HEADER:
            relevance = "score"  # BEIR's qrels TSV: query-id corpus-id score
        if relevance is None:
            relevance = _pick(names, columns, "relevance", origin)  # raises, with the remedy
        topic: str | None = None
        if subtopics is True or "subtopic" in columns:
            topic = _pick(names, columns, "subtopic", origin)
        elif subtopics is None:
            topic = _find(names, {}, "subtopic")
        from rankwise.io.tables import qrels_from_table

        qrels = qrels_from_table(table, query=query, doc=doc, relevance=relevance,
                                 subtopic=topic, source=source)
    return qrels._with_query_id_type(_id_type_of_column(table, query) if typed else None)


def _run_roles(
    names: list[str], columns: dict[str, Any], keep_rank: bool = False,
    origin: _Origin = _FRAME,
) -> tuple[str, str, str | None, str | None]:
    """The query, document, score and rank columns of a run table (score or rank may be None).

    A run needs a score column, or a rank column that orders it (rank 1 first).
    One map serves runs with either: a score or rank column the map names is
    required only when the run has neither (or, for the rank, with ``ties="rank"``).
    """
    query = _pick(names, columns, "query_id", origin)
    doc = _pick(names, columns, "doc_id", origin)

    def present(role: str) -> str | None:
        named = columns.get(role)
        if named is not None:  # named: that column or none (never another one in its place)
            return str(named) if named in names else None
        return _find(names, {}, role)

    score, rank = present("score"), present("rank")
    if score is None and rank is None:
        if columns.get("score") is None and columns.get("rank") is not None:
            _pick(names, columns, "rank", origin)  # raises: the rank column named is not there
        _pick(names, columns, "score", origin)  # raises, naming the column or both ways
    if keep_rank and rank is None and columns.get("rank") is not None:
        _pick(names, columns, "rank", origin)  # ties="rank" needs the rank column named
    return query, doc, score, rank


class _NoScoreError(Exception):
    """The frame has no score column: it is ordered by rank (the general path)."""


def _run_of_frame(
    frame: Any, columns: dict[str, Any], name: str, source: str, *, typed: bool = True,
    origin: _Origin = _FRAME,
) -> Run | None:
    """A run read by the C frame reader, or None (no score column, or the reader declined)."""
    picked: list[str] = []

    def pick(names: list[str]) -> tuple[str, str, str]:
        query, doc, score, _ = _run_roles(names, columns, origin=origin)
        if score is None:
            raise _NoScoreError
        picked.append(query)
        return query, doc, score

    from rankwise.io.frames import run_from_frame  # not needed (nor loaded) for files

    try:
        run = run_from_frame(frame, pick, name=name, source=source, locate=origin.lines)
    except _NoScoreError:
        return None
    if run is None:
        return None
    return run._with_query_id_type(_id_type_of_frame(frame, picked[0]) if typed else None)


def _id_type_of_frame(frame: Any, column: str) -> type:
    """``int`` for an integer column of query ids in an Arrow, pandas or polars frame."""
    import pyarrow as pa

    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        return _id_type_of_column(frame, column)
    module = type(frame).__module__.split(".")[0]
    if module == "polars":
        return int if frame.schema[column].is_integer() else str
    series = frame[dict(zip(map(str, frame.columns), frame.columns))[column]]
    import pandas as pd

    if pd.api.types.is_bool_dtype(series.dtype):
        return str
    if pd.api.types.is_integer_dtype(series.dtype):
        return int
    if series.dtype.kind == "O" and pd.api.types.infer_dtype(series, skipna=False) == "integer":
        return int
    return str


def _run_of_table(
    table: Any,
    columns: dict[str, Any],
    name: str,
    source: str | None = None,
    *,
    keep_rank: bool = False,
    typed: bool = True,
    records: bool = False,
) -> Run:
    """A run from a table: ordered by its score column, or by its rank column without one."""
    from rankwise.io.tables import refuse_no_rows

    origin = _origin(table, source, records)
    if not table.num_columns:  # nothing at all (blank lines, no records): say so first
        refuse_no_rows(table, "run", source, records=records)
    if not keep_rank:
        fast = _run_of_frame(table, columns, name, source or "<table>", typed=typed,
                             origin=origin)
        if fast is not None:
            return fast
    names = table.column_names
    query, doc, score, rank = _run_roles(names, columns, keep_rank, origin)
    refuse_no_rows(table, "run", source, records=records)
    if score is not None and not (keep_rank and rank is not None):
        from rankwise.io.tables import run_from_table

        run = run_from_table(table, query=query, doc=doc, score=score, name=name, source=source)
    else:
        run = _run_by_rank(table, query, doc, score, rank, name, source, keep_rank)
    return run._with_query_id_type(_id_type_of_column(table, query) if typed else None)


def _run_by_rank(
    table: Any,
    query: str,
    doc: str,
    score: str | None,
    rank: str | None,
    name: str,
    source: str | None,
    keep_rank: bool,
) -> Run:
    """A run with its rank column kept; without a score column, ordered by rank (1 first)."""
    import numpy as np
    import pyarrow as pa

    from rankwise.data._arrow import numbers_column
    from rankwise.io.tables import _where

    where, lines, text = _where(table, source)
    ranks = table[rank] if rank is not None else None
    if score is not None:
        scores = numbers_column(table[score], "score", where, lines, text=text)
    elif ranks is None:  # pragma: no cover - _run_roles gives a score or a rank column
        raise InputFormatError("a run needs a score or a rank column", where)
    else:
        # rank 1 first: the score is minus the rank (CSV and TSV ranks are decimal text)
        scores = -numbers_column(ranks, f"rank (column {rank!r})", where, lines, text=text)
        if not np.isfinite(scores).all():
            raise InputFormatError(f"rank column {rank!r} holds a value that is not finite",
                                   where)
    kept = None
    if keep_rank and ranks is not None:
        kept = ranks if pa.types.is_string(ranks.type) else ranks.cast(pa.string())
    return Run.from_arrow(table[query], table[doc], scores, ranks=kept, name=name, source=where,
                          locate=lines)


def read_run(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    name: str | None = None,
    keep_rank: bool = False,
    columns: Mapping[str, Any] | None = None,
) -> Run:
    """Read a run from a TREC run file or a Parquet / CSV / TSV / JSONL table.

    Parameters
    ----------
    path : path or ``"-"``
        The file; ``"-"`` reads standard input.
    fmt : {"trec", "parquet", "csv", "tsv", "jsonl"}, optional
        Overrides the format implied by the extension (TREC text otherwise).
    name : str, optional
        The run's name (default: a TREC file's run id, else the file's stem).
    keep_rank : bool
        Keep the rank column of a TREC file (for ``ties="rank"``).
    columns : dict, optional
        For tables: ``{role: column}`` for ``query_id``, ``doc_id`` and
        ``score`` (default: ``query_id, qid, query``; ``doc_id, docno, docid,
        doc``; ``score, prediction, pred``).

    Returns
    -------
    Run

    Raises
    ------
    InvalidParameterError
        *path* is not a path (a dict, a frame or records go to :func:`as_run`).
    InputFormatError
        The file is missing or malformed, or holds no rows (in every format:
        docs/reading.md); a line or row is named where there is one.
    """
    text = _path_text(path, "read_run", "a run", "as_run")
    mapping = check_columns(columns)
    from rankwise.io._source import describe
    from rankwise.io.tables import read_table, table_format
    from rankwise.io.trec import read_trec_run

    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        return read_trec_run(text, name=name, keep_rank=keep_rank)
    table = read_table(text, kind)
    return _run_of_table(table, mapping, name or file_stem(text), source=describe(text),
                         keep_rank=keep_rank, typed=kind in ("parquet", "jsonl"))


def file_stem(path: str) -> str:
    """The file name without its extensions (``runs/bm25.run.gz`` -> ``bm25``).

    Examples
    --------
    >>> file_stem("runs/bm25.run.gz"), file_stem("dense.parquet"), file_stem("-")
    ('bm25', 'dense', '-')
    """
    base = os.path.basename(path)
    stem = base.split(".", 1)[0]
    return stem or base


def _records_or_table(obj: Any) -> tuple[Any, bool]:
    """*obj* as an Arrow table (None if it is not one), and whether it came as records.

    Records are named tuples (ir_datasets'); a table is a pandas, polars or
    Arrow frame.
    """
    from rankwise.io.records import records_table  # not needed (nor loaded) for dicts
    from rankwise.io.tables import NotATableError, to_arrow_table

    table = records_table(obj)
    if table is not None:
        return table, True
    try:
        return to_arrow_table(obj), False
    except NotATableError:
        return None, False


def refuse_empty_dict(obj: Mapping[Any, Any], kind: str) -> None:
    """Raise :class:`InputFormatError` for an empty dict: no input form may be empty.

    ``kind`` is ``"run"`` or ``"qrels"``. A dict that names a query holds
    data, whatever that query's own dict holds (see docs/reading.md).

    Examples
    --------
    >>> refuse_empty_dict({}, "run")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: <dict>: the dict is empty: a run needs at least \
one query ({query_id: {doc_id: score}})
    """
    if not obj:
        needs = ("a run needs at least one query ({query_id: {doc_id: score}})" if kind == "run"
                 else "judgments need at least one query ({query_id: {doc_id: grade}})")
        raise InputFormatError(f"the dict is empty: {needs}", "<dict>")


def as_qrels(obj: Any, *, columns: Mapping[str, Any] | None = None) -> Qrels:
    """Judgments from a :class:`Qrels`, a path, a frame, a dict or named tuples.

    Parameters
    ----------
    obj : Qrels, path, frame, dict or iterable of named tuples
        A pandas / polars / Arrow table; ``{query_id: {doc_id: grade}}``;
        ir_datasets' ``qrels_iter()`` (named tuples with fields ``query_id,
        doc_id, relevance``).
    columns : dict, optional
        ``{role: column}`` for tables and named tuples (see
        :func:`read_qrels`); ``{"relevance": None}``: no relevance column,
        every listed pair is relevant with grade 1.

    Returns
    -------
    Qrels
        Its :attr:`~Qrels.query_id_type` is ``int`` when the query ids were
        integers (a dict's keys, an integer column).

    Raises
    ------
    InputFormatError
        Malformed judgments, or none at all: an empty dict, a frame of no
        rows, no records (docs/reading.md).

    Examples
    --------
    >>> import pyarrow as pa
    >>> clicks = pa.table({"user": [7, 7, 9], "item": ["a", "b", "a"]})
    >>> qrels = as_qrels(clicks, columns={"query_id": "user", "doc_id": "item",
    ...                                   "relevance": None})
    >>> qrels.to_dict(), qrels.query_id_type
    ({7: {'a': 1, 'b': 1}, 9: {'a': 1}}, <class 'int'>)

    Frames with a ``subtopic`` (or ``intent``) column and dicts
    ``{query_id: {subtopic: {doc_id: grade}}}`` are diversity judgments.
    """
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj, columns=columns)
    if isinstance(obj, dict):
        from rankwise.io.dicts import qrels_from_dict  # not needed (nor loaded) for files

        refuse_empty_dict(obj, "qrels")
        qrels = qrels_from_dict(obj)
        if qrels.query_id_type is None:  # the reader may know it already (all str keys)
            qrels._with_query_id_type(key_type(obj))
        return qrels
    table, records = _records_or_table(obj)
    if table is None:
        raise InputFormatError(
            "qrels must be a Qrels, a path, a pandas/polars/Arrow table, "
            "{query_id: {doc_id: grade}} or named tuples (ir_datasets' qrels_iter()), "
            f"got {type(obj).__name__}"
        )
    return _qrels_of_table(table, check_columns(columns), records=records)


def as_run(
    obj: Any,
    *,
    name: str | None = None,
    keep_rank: bool = False,
    columns: Mapping[str, Any] | None = None,
    empty: bool = False,
) -> Run:
    """A run from a :class:`Run`, a path, a frame, a dict or named tuples.

    Parameters
    ----------
    obj : Run, path, frame, dict or iterable of named tuples
        A pandas / polars / Arrow table (a score column, or a rank column
        that orders it, rank 1 first); ``{query_id: {doc_id: score}}``;
        ir_datasets' ``scoreddocs_iter()`` (named tuples with fields
        ``query_id, doc_id, score``).
    name : str, optional
        The run's name.
    keep_rank : bool
        Keep the rank column (for ``ties="rank"``).
    columns : dict, optional
        ``{role: column}`` for tables and named tuples (see :func:`read_run`).
    empty : bool, default False
        Read a dict, frame or records with no rows as a run that retrieved
        nothing, instead of refusing it: for the drop-ins of tools that do
        (ir_measures).

    Returns
    -------
    Run

    Raises
    ------
    InputFormatError
        A malformed run, or an empty one: an empty dict, a frame of no rows,
        no records (docs/reading.md), unless *empty*. A :class:`Run` is taken
        as it is.

    Examples
    --------
    >>> import pyarrow as pa
    >>> ranked = pa.table({"qid": ["q1", "q1", "q1"], "docno": ["a", "b", "c"],
    ...                    "rank": [2, 1, 3]})
    >>> as_run(ranked).to_dict()
    {'q1': {'a': -2.0, 'b': -1.0, 'c': -3.0}}
    """
    if isinstance(obj, Run):
        return obj if name is None else obj.with_name(name)
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj, name=name, keep_rank=keep_rank, columns=columns)
    if isinstance(obj, dict):
        from rankwise.io.dicts import run_from_dict

        if not empty:
            refuse_empty_dict(obj, "run")
        return run_from_dict(obj, name=name or "run")._with_query_id_type(
            key_type(obj)
        )
    mapping = check_columns(columns)
    if not keep_rank:
        fast = _run_of_frame(obj, mapping, name or "run", "<table>")
        if fast is not None:
            return fast
    table, records = _records_or_table(obj)
    if table is None:
        raise InputFormatError(
            "run must be a Run, a path, a pandas/polars/Arrow table, "
            "{query_id: {doc_id: score}} or named tuples (ir_datasets' scoreddocs_iter()), "
            f"got {type(obj).__name__}"
        )
    if empty and not table.num_rows:
        return Run.from_arrow([], [], [], name=name or "run")
    return _run_of_table(table, mapping, name or "run", keep_rank=keep_rank, records=records)


def split_one_table(
    frame: Any, *, query: str | None, label: str | None, score: str | None, doc: str | None
) -> tuple[Qrels, Run]:
    """Judgments and run from one table where every row is judged (learning-to-rank data).

    Without a document column, each row is its own document (named by its
    position within its query).
    """
    import numpy as np
    import pyarrow as pa

    if query is None or label is None or score is None:
        raise InputFormatError("the one-table form needs query=, label= and score= column names")
    from rankwise.io.tables import to_arrow_table

    table = to_arrow_table(frame)
    for role, column in (("query", query), ("label", label), ("score", score)):
        if column not in table.column_names:
            raise InputFormatError(
                f"{role} column {column!r} not found; columns are {table.column_names}"
            )
    docs = table[doc] if doc is not None else pa.array(np.arange(table.num_rows).astype(str))
    qrels = Qrels.from_arrow(table[query], docs, table[label], source="<table>")
    run = Run.from_arrow(table[query], docs, table[score], name="run", source="<table>")
    return qrels, run
