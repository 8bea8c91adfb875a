"""The one dispatcher: whatever the user holds, to its one reader, to :class:`Qrels`, :class:`Run`.

:func:`as_qrels` and :func:`as_run` (and :func:`read_qrels`, :func:`read_run`
for paths) look at an input's form (:mod:`rankwise.io._forms`) and hand it,
once, to the reader of that form, which makes the columns and the object in
one pass: TREC text to :mod:`rankwise.io.trec`, table files to
:mod:`rankwise.io.tables`, frames to :mod:`rankwise.io.frames`, named tuples
to :mod:`rankwise.io.records`, dicts to :mod:`rankwise.io.dicts`. An input
never comes back here once handed on (``tests/io/test_one_pass.py``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rankwise._validation import Instance, OneOf, check, optional
from rankwise.data import Qrels, Run
from rankwise.exceptions import InputFormatError
from rankwise.io._forms import collected, form_of, table_format
from rankwise.options import COLUMN_ROLES, check_columns

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COLUMN_ROLES",
    "QRELS_FORMATS",
    "as_qrels",
    "as_run",
    "as_table",
    "check_columns",
    "file_stem",
    "read_qrels",
    "read_run",
    "refuse_empty_dict",
]

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
    kind = fmt or table_format(text) or "trec"
    check("qrels format", kind, OneOf(QRELS_FORMATS))
    if kind == "diversity" and subtopics is False:
        raise InvalidParameterError(
            "format 'diversity' reads subtopics; subtopics=False contradicts it"
        )
    if kind in ("trec", "diversity"):
        from rankwise.io.trec import read_trec_qrels

        return read_trec_qrels(text, subtopics=kind == "diversity" or bool(subtopics))
    from rankwise.io.tables import read_qrels_file

    return read_qrels_file(text, kind, mapping, subtopics=subtopics)


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
    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        from rankwise.io.trec import read_trec_run

        return read_trec_run(text, name=name, keep_rank=keep_rank)
    from rankwise.io.tables import read_run_file

    return read_run_file(text, kind, mapping, name=name or file_stem(text), keep_rank=keep_rank)


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


def as_qrels(obj: Any, *, columns: Mapping[str, Any] | None = None,
             fmt: str | None = None) -> Qrels:
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
    fmt : str, optional
        The format of a file given by path (see :func:`read_qrels`).

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
    obj = collected(obj)  # a polars LazyFrame: its frame
    if isinstance(obj, Qrels):
        return obj
    form = form_of(obj)
    if form == "path":
        return read_qrels(obj, fmt=fmt, columns=columns)
    if form == "dict":
        from rankwise.io.dicts import qrels_from_dict  # not needed (nor loaded) for files

        refuse_empty_dict(obj, "qrels")
        return qrels_from_dict(obj, typed=True)
    if form is None:
        raise InputFormatError(
            "qrels must be a Qrels, a path, a pandas/polars/Arrow table, "
            "{query_id: {doc_id: grade}} or named tuples (ir_datasets' qrels_iter()), "
            f"got {type(obj).__name__}"
        )
    if form == "records":
        from rankwise.io.records import qrels_from_records

        return qrels_from_records(obj, check_columns(columns))
    from rankwise.io.frames import qrels_of_table

    return qrels_of_table(obj, check_columns(columns))


def as_run(
    obj: Any,
    *,
    name: str | None = None,
    keep_rank: bool = False,
    columns: Mapping[str, Any] | None = None,
    empty: bool = False,
    fmt: str | None = None,
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
    fmt : str, optional
        The format of a file given by path (see :func:`read_run`).

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
    obj = collected(obj)  # a polars LazyFrame: its frame
    if isinstance(obj, Run):
        return obj if name is None else obj.with_name(name)
    form = form_of(obj)
    if form == "path":
        return read_run(obj, fmt=fmt, name=name, keep_rank=keep_rank, columns=columns)
    if form == "dict":
        from rankwise.io.dicts import run_from_dict

        if not empty:
            refuse_empty_dict(obj, "run")
        return run_from_dict(obj, name=name or "run", typed=True)
    mapping = check_columns(columns)
    if form is None:
        raise InputFormatError(
            "run must be a Run, a path, a pandas/polars/Arrow table, "
            "{query_id: {doc_id: score}} or named tuples (ir_datasets' scoreddocs_iter()), "
            f"got {type(obj).__name__}"
        )
    if form == "records":
        from rankwise.io.records import run_from_records

        return run_from_records(obj, mapping, name=name or "run", keep_rank=keep_rank,
                                empty=empty)
    from rankwise.io.frames import run_of_table

    return run_of_table(obj, mapping, name=name or "run", keep_rank=keep_rank, empty=empty)


def as_table(obj: Any, what: str) -> pa.Table:
    """Any table the user holds as one Arrow table, by its form (the recommenders' inputs).

    A pandas, polars or Arrow table (or Arrow stream) goes to
    :func:`rankwise.io.frames.to_arrow_table`, named tuples to
    :func:`rankwise.io.records.records_table`, a Parquet / CSV / TSV / JSONL
    file to :func:`rankwise.io.tables.read_table`, ``{column: values}`` to
    :func:`rankwise.io.frames.table_of_columns`. *what* names the input in
    errors.

    Examples
    --------
    >>> as_table({"user": [1, 2], "item": ["a", "b"]}, "test").column_names
    ['user', 'item']
    >>> as_table(3, "test")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: test: expected a pandas, polars or Arrow table or \
{column: values}, got int
    """
    obj = collected(obj)  # a polars LazyFrame: its frame
    form = form_of(obj)
    if form == "table":
        from rankwise.io.frames import to_arrow_table

        return to_arrow_table(obj, source=what)
    if form == "path" and table_format(os.fspath(obj)) is not None:
        from rankwise.io.tables import read_table

        return read_table(os.fspath(obj))
    if form == "records" and not isinstance(obj, Mapping):
        from rankwise.io.records import records_table

        table = records_table(obj)
        if table is not None and table.num_columns:
            return table
    if isinstance(obj, Mapping):
        from rankwise.io.frames import table_of_columns

        return table_of_columns(obj, what)
    raise InputFormatError(
        f"{what}: expected a pandas, polars or Arrow table or {{column: values}}, "
        f"got {type(obj).__name__}"
    )
