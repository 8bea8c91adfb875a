"""Runs and judgments from Python dicts: ``{query_id: {doc_id: value}}``.

The form pytrec_eval, ranx, BEIR and MTEB use. The C module
:mod:`rankwise.io._ccolumns` (optional, compiled at install time) iterates the
dicts with the C API: query ids are interned as they come, document ids are
written straight into Arrow's string layout, values into float64. Without it
(or with ``RANKWISE_NO_C=1``) the same columns are built in Python, with the
same checks and the same errors.

Ids are compared as text: a key must be a ``str`` or an ``int`` (numpy
integers too; not a bool) and ``1`` and ``"1"`` are the same id. Values must be
real numbers (``float``, ``int``, numpy numbers; not a bool), finite. A query
whose dict is empty is in the run and retrieved nothing (``num_ret`` 0): it
is evaluated, and scores 0, as pytrec_eval and ranx score it; a judged query
that is not a key of the run at all is left out (``missing``). Subclasses of
``dict`` (``defaultdict``, ``OrderedDict``) are read as dicts: their entries in
the order the dict stores them.

Examples
--------
>>> run = run_from_dict({"q1": {"d1": 2.0, "d2": 1.5}, 7: {"d3": 1}})
>>> run.query_ids, run.scores.tolist()
(['q1', '7'], [2.0, 1.5, 1.0])
>>> qrels_from_dict({"q1": {"d1": 1, 12: 0}}).doc_ids
['d1', '12']
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise.data import Qrels, Run
from rankwise.data._dicts import is_nested
from rankwise.data._rows import key_type
from rankwise.data._strings import StringColumn
from rankwise.exceptions import DuplicateEntryError, InputFormatError

__all__ = ["qrels_from_dict", "run_from_dict"]

_ccolumns = load("rankwise.io._ccolumns")

ID_TYPES = (np.integer,)
"""Key types read as ids besides ``str`` and ``int`` (by their ``str()``)."""
NUMBER_TYPES = (np.floating, np.integer)
"""Value types read as numbers besides ``float`` and ``int``."""

SOURCE = "<dict>"

_STR, _INT, _OTHER = 1, 2, 4


def _native() -> Any:
    """The C module, when built and not turned off."""
    return _ccolumns if enabled() else None


class _RunColumns(NamedTuple):
    names: list[str]  # every query id, in order of first appearance (empty entries too)
    starts: np.ndarray  # int64, first row of each non-empty query entry
    codes: np.ndarray  # int32, its query code
    check_codes: list[int]  # queries whose rows may list a document twice
    doc_ids: StringColumn
    scores: np.ndarray
    descending: bool  # scores never rise within an entry


class _QrelsColumns(NamedTuple):
    query_names: list[str]
    query_codes: np.ndarray
    doc_names: list[str]
    doc_codes: np.ndarray
    grades: np.ndarray
    doc_column: StringColumn | None
    may_repeat: bool  # a (query, document) may be judged twice (keys of mixed kinds)


# ---------------------------------------------------------------------------------------
# the public readers


def run_from_dict(results: Any, *, name: str = "run", typed: bool = False) -> Run:
    """A run from ``{query_id: {doc_id: score}}``.

    Parameters
    ----------
    results : dict
        Per query id (str or int), a dict of document id (str or int) to
        score (a finite real number).
    name : str
        The run's name.
    typed : bool
        Note the type the query ids were given in (``int`` when every key
        is an integer, else ``str``: :attr:`Run.query_id_type`).

    Returns
    -------
    Run

    Raises
    ------
    InputFormatError
        An entry that is not a dict, an id that is not a str or int, a score
        that is not a finite number; ``DuplicateEntryError`` when a document
        is listed twice for one query (as ``1`` and ``"1"``).

    Examples
    --------
    >>> run = run_from_dict({"q1": {"d1": 0.5, "d2": 0.25}}, name="bm25")
    >>> run, run.rank_order_blocks.tolist()
    (Run('bm25', 1 query, 2 rows), [0])
    """
    native = _native()
    if native is not None:
        read = native.run_dict(results, ID_TYPES, NUMBER_TYPES)
        if len(read) == 4:
            raise _problem(read, "run")
        names, starts, codes, check, pieces, scores, descending = read
        columns = _RunColumns(
            names,
            np.frombuffer(starts, dtype=np.int64),
            np.frombuffer(codes, dtype=np.int32),
            check,
            StringColumn.from_buffers(pieces),
            np.frombuffer(scores, dtype=np.float64),
            descending,
        )
    else:
        columns = _read_run(results)
    return _build_run(columns, results, name, key_type(results) if typed else None)


def qrels_from_dict(judgments: Any, *, typed: bool = False) -> Qrels:
    """Judgments from ``{query_id: {doc_id: grade}}``.

    Parameters
    ----------
    judgments : dict
        Per query id (str or int), a dict of document id (str or int) to
        relevance grade (a finite real number).
    typed : bool
        Note the type the query ids were given in (``int`` when every key
        is an integer, else ``str``); without it, ``str`` when the reader
        saw only text keys, else not known.

    Returns
    -------
    Qrels

    Raises
    ------
    InputFormatError
        As :func:`run_from_dict`; ``DuplicateEntryError`` when a
        (query, document) is judged twice (as ``1`` and ``"1"``).

    Examples
    --------
    >>> qrels_from_dict({"q1": {"d1": 2, "d2": 0}}).to_dict()
    {'q1': {'d1': 2, 'd2': 0}}
    """
    if is_nested(judgments):  # diversity judgments {query_id: {subtopic: {doc_id: grade}}}
        return Qrels.from_dict(judgments)
    native = _native()
    if native is not None:
        read = native.qrels_dict(judgments, ID_TYPES, NUMBER_TYPES, False)
        if len(read) != 4 and read[0] is None:  # ids past 2 GiB: interned instead
            read = native.qrels_dict(judgments, ID_TYPES, NUMBER_TYPES)
        if len(read) == 4:
            raise _problem(read, "qrels")
        query_names, query_codes, doc_names, doc_codes, grades, ids, may_repeat, str_keys = read
        codes = np.frombuffer(query_codes, dtype=np.int32)
        # every query key a str: the ids' type is known without a pass
        kind = str if str_keys else key_type(judgments) if typed else None
        columns: tuple[Any, ...]
        if doc_names is None:  # each judgment's document id in row order, interned if asked
            columns = (codes, query_names, None, None, np.frombuffer(grades, dtype=np.float64))
            extra: dict[str, Any] = {
                "doc_rows": StringColumn.from_buffers([(len(codes), *ids)])}
        else:
            columns = (codes, query_names, np.frombuffer(doc_codes, dtype=np.int32), doc_names,
                       np.frombuffer(grades, dtype=np.float64))
            extra = {"doc_column": None if ids is None else StringColumn.from_buffers(
                [(len(doc_names), *ids)])}
        return _checked(columns, extra, judgments, may_repeat, kind)
    read_columns = _read_qrels(judgments)
    return _checked(
        (read_columns.query_codes, read_columns.query_names, read_columns.doc_codes,
         read_columns.doc_names, read_columns.grades), {"doc_column": read_columns.doc_column},
        judgments, read_columns.may_repeat, key_type(judgments) if typed else None)


def _checked(columns: tuple[Any, ...], extra: dict[str, Any], judgments: Any,
             may_repeat: bool, kind: type | None) -> Qrels:
    """The judgments, checked for a (query, document) judged twice when its keys may collide."""
    try:
        return Qrels(*columns, source=SOURCE, query_id_type=kind, check=may_repeat, **extra)
    except DuplicateEntryError as error:
        qrels = Qrels(*columns, source=SOURCE, **extra)
        row = (error.line or 1) - 1
        query = qrels.query_ids[int(qrels.query_codes[row])]
        doc = qrels.doc_ids[int(qrels.doc_codes[row])]
        raise _duplicate(judgments, query, doc, "qrels") from None


# ---------------------------------------------------------------------------------------
# shared by both paths


def _build_run(columns: _RunColumns, results: Any, name: str, kind: type | None) -> Run:
    # each query's rows in one entry: no query text twice among the non-empty entries
    # (codes number the queries in order of first appearance, empty entries included)
    codes = columns.codes
    grouped = len(codes) < 2 or bool((codes[1:] > codes[:-1]).all())
    rows = None
    if columns.check_codes:
        ends = np.append(columns.starts[1:], len(columns.scores))
        suspect = np.isin(columns.codes, np.array(columns.check_codes, dtype=np.int32))
        lengths = (ends - columns.starts)[suspect]
        firsts = columns.starts[suspect]
        rows = np.repeat(firsts - (np.cumsum(lengths) - lengths), lengths) + np.arange(
            int(lengths.sum()), dtype=np.int64
        )

    def run(**check: Any) -> Run:
        return Run(None, columns.names, columns.doc_ids, columns.scores, name=name,
                   source=SOURCE, segments=(columns.starts, columns.codes),
                   rank_order_blocks=columns.starts if grouped and columns.descending else None,
                   query_id_type=kind, **check)

    try:
        return run(check=rows is not None, check_rows=rows)
    except DuplicateEntryError as error:
        row = np.array([(error.line or 1) - 1])
        unchecked = run()
        query = columns.names[int(unchecked.query_codes_at(row)[0])]
        doc = unchecked.doc_ids[int(row[0])].as_py()
        raise _duplicate(results, query, doc, "run") from None


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


_WHAT = {
    "run": ("run", "score", "{doc_id: score}"),
    "qrels": ("qrels", "relevance grade", "{doc_id: grade}"),
}


def _problem(found: tuple[Any, ...], form: str) -> InputFormatError:
    """The error for an entry the readers do not accept: (kind, query, doc, value)."""
    kind, query, doc, value = found
    label, number, inner = _WHAT[form]
    if kind in ("run", "qrels"):
        return InputFormatError(
            f"a {label} dict must map query ids to {inner}, got {type(query).__name__}"
        )
    if kind in ("ranking", "judged"):
        return InputFormatError(
            f"{label} entry for query {query!r} must be a dict {inner}, "
            f"got {type(value).__name__}",
            SOURCE,
        )
    if kind == "query id":
        return InputFormatError(
            f"{label} dict: query id must be a str or an int, got {_describe(query)}", SOURCE
        )
    if kind == "query text":
        return InputFormatError(
            f"{label} dict: query id {query!r} cannot be encoded as UTF-8 (a lone surrogate)",
            SOURCE,
        )
    where = f"for query {query!r}"
    if kind == "doc id":
        return InputFormatError(
            f"{label} dict: document id {where} must be a str or an int, got {_describe(doc)}",
            SOURCE,
        )
    if kind == "doc text":
        return InputFormatError(
            f"{label} dict: document id {doc!r} {where} cannot be encoded as UTF-8 "
            "(a lone surrogate)",
            SOURCE,
        )
    if kind.endswith(" finite"):
        return InputFormatError(
            f"{label} dict: {number} of document {doc!r} {where} must be a finite number, "
            f"got {value!r}",
            SOURCE,
        )
    if kind.endswith(" range"):
        size = (f"an integer of {len(str(abs(value)))} digits" if isinstance(value, int)
                else _describe(value))
        return InputFormatError(
            f"{label} dict: {number} of document {doc!r} {where} must be a finite number, "
            f"got {size}, too large for a 64-bit float",
            SOURCE,
        )
    return InputFormatError(
        f"{label} dict: {number} of document {doc!r} {where} must be a number "
        f"(float or int), got {_describe(value)}",
        SOURCE,
    )


def _duplicate(mapping: dict[Any, Any], query: str, doc: str, form: str) -> DuplicateEntryError:
    """The error for a document given twice for one query: its keys, found in *mapping*."""
    keys = [
        (query_key, doc_key)
        for query_key, inner in dict.items(mapping)
        if _text(query_key) == query
        for doc_key in dict.keys(inner)
        if _text(doc_key) == doc
    ]
    shown = " and ".join(f"({q!r}, {d!r})" for q, d in keys[:2])
    if form == "run":
        what = f"document {doc!r} appears twice for query {query!r}"
        rule = "a run lists each document once per query"
    else:
        what = f"judgment for document {doc!r} of query {query!r} is given twice"
        rule = "each (query, document) is judged once"
    return DuplicateEntryError(
        f"{what}: the {form} dict has it under the keys {shown}, and ids are compared as "
        f"text (1 and '1' are the same id); {rule}",
        SOURCE,
    )


def _text(key: Any) -> str | None:
    found = _id(key)
    return None if found is None else found[0]


# ---------------------------------------------------------------------------------------
# the pure Python readers: the same columns, checks and errors as the C module


def _id(key: Any) -> tuple[str, int] | None:
    """The text and kind of an id, or None when its type is not accepted."""
    kind = type(key)
    if kind is str:
        return key, _STR
    if kind is int:
        return str(key), _INT
    if isinstance(key, bool) or not isinstance(key, (str, int, *ID_TYPES)):
        return None
    return str(key), _OTHER


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _number(value: Any) -> float | str:
    """The value as a float, or the kind of problem ("", " range", " finite")."""
    if type(value) is float:
        number = value
    elif isinstance(value, float):
        number = float.__float__(value)
    elif isinstance(value, bool):
        return ""
    elif isinstance(value, int):
        try:
            number = int.__float__(value)
        except OverflowError:
            return " range"
    elif isinstance(value, NUMBER_TYPES):
        try:
            number = float(value)
        except OverflowError:
            return " range"
    else:
        return ""
    return number if math.isfinite(number) else " finite"


def _check_outer(mapping: Any, form: str) -> None:
    if not isinstance(mapping, dict):
        raise _problem((form, mapping, None, None), form)
    nested = "ranking" if form == "run" else "judged"
    for key, inner in dict.items(mapping):
        if not isinstance(inner, dict):
            raise _problem((nested, key, None, inner), form)


def _query_text(key: Any, form: str) -> str:
    found = _id(key)
    if found is None:
        raise _problem(("query id", key, None, None), form)
    if not _encodes(found[0]):
        raise _problem(("query text", key, None, None), form)
    return found[0]


def _doc_text(query_key: Any, key: Any, form: str) -> tuple[str, int]:
    found = _id(key)
    if found is None:
        raise _problem(("doc id", query_key, key, None), form)
    if not _encodes(found[0]):
        raise _problem(("doc text", query_key, key, None), form)
    return found


def _value(query_key: Any, doc_key: Any, value: Any, form: str) -> float:
    number = _number(value)
    if isinstance(number, str):
        kind = "score" if form == "run" else "grade"
        raise _problem((kind + number, query_key, doc_key, value), form)
    return number


def _mixed(kinds: int) -> bool:
    return bool(kinds & (kinds - 1)) or bool(kinds & _OTHER)


def _read_run(results: Any) -> _RunColumns:
    _check_outer(results, "run")
    code_of: dict[str, int] = {}
    starts: list[int] = []
    codes: list[int] = []
    check: list[int] = []
    docs: list[str] = []
    scores: list[float] = []
    descending = True
    for query_key, ranking in dict.items(results):
        query = _query_text(query_key, "run")
        known = len(code_of)
        code = code_of.setdefault(query, known)
        if not ranking:  # in the run, nothing retrieved: a query id, no entry of rows
            continue
        if code != known:  # the same text again (1 and "1")
            check.append(code)
        starts.append(len(docs))
        codes.append(code)
        kinds = 0
        last = math.inf
        # a snapshot: str() of a key may run code that changes the dict being read
        for doc_key, value in list(dict.items(ranking)):
            doc, kind = _doc_text(query_key, doc_key, "run")
            kinds |= kind
            score = _value(query_key, doc_key, value, "run")
            descending &= score <= last
            last = score
            docs.append(doc)
            scores.append(score)
        if _mixed(kinds):
            check.append(code)
    return _RunColumns(
        list(code_of),
        np.array(starts, dtype=np.int64),
        np.array(codes, dtype=np.int32),
        check,
        StringColumn.from_strings(docs),
        np.array(scores, dtype=np.float64),
        descending,
    )


def _read_qrels(judgments: Any) -> _QrelsColumns:
    _check_outer(judgments, "qrels")
    query_of: dict[str, int] = {}
    doc_of: dict[str, int] = {}
    query_codes: list[int] = []
    doc_codes: list[int] = []
    grades: list[float] = []
    may_repeat = False
    for query_key, judged in dict.items(judgments):
        if not judged:
            continue
        query = _query_text(query_key, "qrels")
        known = len(query_of)
        code = query_of.setdefault(query, known)
        may_repeat |= code != known
        kinds = 0
        for doc_key, value in list(dict.items(judged)):  # a snapshot, as the run's
            doc, kind = _doc_text(query_key, doc_key, "qrels")
            kinds |= kind
            grade = _value(query_key, doc_key, value, "qrels")
            query_codes.append(code)
            doc_codes.append(doc_of.setdefault(doc, len(doc_of)))
            grades.append(grade)
        may_repeat |= _mixed(kinds)
    doc_names = list(doc_of)
    return _QrelsColumns(
        list(query_of),
        np.array(query_codes, dtype=np.int32),
        doc_names,
        np.array(doc_codes, dtype=np.int32),
        np.array(grades, dtype=np.float64),
        None,
        may_repeat,
    )
