"""``{query_id: {doc_id: value}}`` dicts (pytrec_eval's, ranx's, BEIR's and MTEB's form) as columns.

The one reader of dicts: :meth:`rankwise.Run.from_dict`,
:meth:`rankwise.Qrels.from_dict` and every front door given a dict
(:mod:`rankwise.io.dicts`) read through it, with one wording of every error.
The C module :mod:`rankwise.data._ccolumns` (optional, compiled at install
time) iterates the dicts with the C API: query ids are interned as they come,
document ids are written straight into Arrow's string layout, values into
float64. Without it (or with ``RANKWISE_NO_C=1``) the same columns are built
in Python, with the same checks and the same errors.

Ids are compared as text: a key must be a ``str`` or an ``int`` (numpy
integers too; not a bool) and ``1`` and ``"1"`` are the same id: two query keys
that are one id are an error naming both (never merged into one query), and so
are two document keys of one query that are one id. Values must be real
numbers (``float``, ``int``, numpy numbers), finite; a grade may also be
``True`` or ``False`` (1 and 0), a score may not. Subclasses of ``dict``
(``defaultdict``, ``OrderedDict``) are read as dicts: their entries in the
order the dict stores them.

Examples
--------
>>> columns = read_run_dict({"q1": {"d1": 2.0, "d2": 1.5}, 7: {"d3": 1}})
>>> columns.names, columns.scores.tolist(), columns.descending
(['q1', '7'], [2.0, 1.5, 1.0], True)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise.data._strings import StringColumn
from rankwise.exceptions import DuplicateEntryError, InputFormatError

__all__ = [
    "SOURCE",
    "QrelsColumns",
    "RunColumns",
    "duplicate_error",
    "is_nested",
    "read_qrels_dict",
    "read_run_dict",
    "rows_to_check",
]


ID_TYPES = (np.integer,)
"""Key types read as ids besides ``str`` and ``int`` (by their ``str()``)."""
NUMBER_TYPES = (np.floating, np.integer)
"""Value types read as numbers besides ``float`` and ``int``."""
GRADE_TYPES = (*NUMBER_TYPES, np.bool_)
"""Value types read as grades besides ``float``, ``int`` and ``bool`` (1 and 0)."""

SOURCE = "<dict>"

_STR, _INT, _OTHER = 1, 2, 4


def _native() -> Any:
    """The C module, when built and not turned off (loaded on first use: files need it not)."""
    return load("rankwise.data._ccolumns") if enabled() else None


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


class RunColumns(NamedTuple):
    """A run dict's columns, as :class:`~rankwise.data.Run` takes them."""

    names: list[str]  # every query id, in order of first appearance (empty entries too)
    starts: np.ndarray  # int64, first row of each non-empty query entry
    codes: np.ndarray  # int32, its query code
    check_codes: list[int]  # queries whose rows may list a document twice
    doc_ids: StringColumn
    scores: np.ndarray
    descending: bool  # scores never rise within an entry


class QrelsColumns(NamedTuple):
    """A judgments dict's columns, as :class:`~rankwise.data.Qrels` takes them."""

    columns: tuple[Any, ...]  # query codes, query ids, doc codes, doc ids, grades
    extra: dict[str, Any]  # the document ids as text (doc_rows or doc_column)
    may_repeat: bool  # a (query, document) may be judged twice (keys of mixed kinds)
    str_keys: bool  # every query key a str: the ids' type is known without a pass


# ---------------------------------------------------------------------------------------
# the readers


def read_run_dict(results: Any) -> RunColumns:
    """The columns of ``{query_id: {doc_id: score}}`` (C, else pure Python: the same).

    Raises
    ------
    InputFormatError
        An entry that is not a dict, an id that is not a str or int, a score
        that is not a finite number.
    """
    native = _native()
    if native is None:
        return _read_run(results)
    read = native.run_dict(results, ID_TYPES, NUMBER_TYPES)
    if len(read) == 4:
        raise _problem(read, "run")
    names, starts, codes, check, pieces, scores, descending = read
    if len(names) < len(results):  # every key is a query, even an empty ranking's
        _refuse_same_query_keys(results, "run")
    return RunColumns(
        names,
        np.frombuffer(starts, dtype=np.int64),
        np.frombuffer(codes, dtype=np.int32),
        check,
        StringColumn.from_buffers(pieces),
        np.frombuffer(scores, dtype=np.float64),
        descending,
    )


def read_qrels_dict(judgments: Any) -> QrelsColumns:
    """The columns of ``{query_id: {doc_id: grade}}`` (C, else pure Python: the same).

    Raises
    ------
    InputFormatError
        As :func:`read_run_dict`, for grades.
    """
    native = _native()
    if native is None:
        return _read_qrels(judgments)
    read = native.qrels_dict(judgments, ID_TYPES, GRADE_TYPES, False)
    if len(read) != 4 and read[0] is None:  # ids past 2 GiB: interned instead
        read = native.qrels_dict(judgments, ID_TYPES, GRADE_TYPES)
    if len(read) == 4:
        raise _problem(read, "qrels")
    query_names, query_codes, doc_names, doc_codes, grades, ids, may_repeat, str_keys = read
    if may_repeat:  # a query key twice (1 and "1"), or document keys of mixed kinds
        _refuse_same_query_keys(judgments, "qrels", judged_only=True)
    codes = np.frombuffer(query_codes, dtype=np.int32)
    values = np.frombuffer(grades, dtype=np.float64)
    if doc_names is None:  # each judgment's document id in row order, interned if asked
        return QrelsColumns((codes, query_names, None, None, values),
                            {"doc_rows": StringColumn.from_buffers([(len(codes), *ids)])},
                            may_repeat, str_keys)
    column = None if ids is None else StringColumn.from_buffers([(len(doc_names), *ids)])
    return QrelsColumns(
        (codes, query_names, np.frombuffer(doc_codes, dtype=np.int32), doc_names, values),
        {"doc_column": column}, may_repeat, str_keys)


def rows_to_check(columns: RunColumns) -> np.ndarray | None:
    """The rows of the queries that may list a document twice (keys of mixed kinds), or None."""
    if not columns.check_codes:
        return None
    ends = np.append(columns.starts[1:], len(columns.scores))
    suspect = np.isin(columns.codes, np.array(columns.check_codes, dtype=np.int32))
    lengths = (ends - columns.starts)[suspect]
    firsts = columns.starts[suspect]
    return np.repeat(firsts - (np.cumsum(lengths) - lengths), lengths) + np.arange(
        int(lengths.sum()), dtype=np.int64
    )


# ---------------------------------------------------------------------------------------
# the one wording


def _shown(value: Any) -> str:
    """A value as the errors show it: its repr (cut at 60 characters) and its kind."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    kind = "true/false" if isinstance(value, (bool, np.bool_)) else type(value).__name__
    return f"{text} ({kind})"


_WHAT = {  # form: (the value's name, what it may be, the entry's form)
    "run": ("score", "float or int", "{doc_id: score}"),
    "qrels": ("grade", "float, int or bool", "{doc_id: grade}"),
}


def _problem(found: tuple[Any, ...], form: str) -> InputFormatError:
    """The error for an entry the readers do not accept: (kind, query, doc, value).

    One wording, place first as a file's errors put the line: ``<dict>: query
    'q', document 'd': score must be ..., got ...``.
    """
    kind, query, doc, value = found
    number, accepted, inner = _WHAT[form]
    if kind in ("run", "qrels"):
        return InputFormatError(
            f"a {form} dict must map query ids to {inner}, got {type(query).__name__}", SOURCE)
    if kind == "query id":
        return InputFormatError(
            f"query id must be a str or an int, got {_shown(query)}", SOURCE)
    where = f"query {query!r}"
    if kind in ("ranking", "judged"):
        return InputFormatError(
            f"{where}: the {form} entry must be a dict {inner}, got {type(value).__name__}",
            SOURCE)
    if kind == "query text":
        return InputFormatError(
            f"{where}: query id cannot be encoded as UTF-8 (a lone surrogate)", SOURCE)
    if kind == "doc id":
        return InputFormatError(
            f"{where}: document id must be a str or an int, got {_shown(doc)}", SOURCE)
    where += f", document {doc!r}"
    if kind == "doc text":
        return InputFormatError(
            f"{where}: document id cannot be encoded as UTF-8 (a lone surrogate)", SOURCE)
    if kind.endswith(" finite"):
        return InputFormatError(
            f"{where}: {number} must be a finite number, got {value!r}", SOURCE)
    if kind.endswith(" range"):
        size = (f"an integer of {len(str(abs(value)))} digits" if isinstance(value, int)
                else _shown(value))
        return InputFormatError(
            f"{where}: {number} must be a finite number, got {size}, too large for a 64-bit "
            "float", SOURCE)
    return InputFormatError(
        f"{where}: {number} must be a number ({accepted}), got {_shown(value)}", SOURCE)


def _refuse_same_query_keys(mapping: dict[Any, Any], form: str, *,
                            judged_only: bool = False) -> None:
    """Refuse two query keys that are one id as text (``1`` and ``"1"``), naming both.

    *judged_only*: keys of empty entries are left out (an empty judged entry is
    no query: nothing judged), as the qrels readers leave them out.

    Examples
    --------
    >>> _refuse_same_query_keys({1: {}, "2": {}, "1": {}}, "run")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: <dict>: query keys 1 and '1' are the same query \
id '1' once converted to text; give each query once (the run dict's rows of one query \
under one key)
    """
    first: dict[str, Any] = {}
    for key, inner in dict.items(mapping):
        if judged_only and not inner:
            continue
        text = _text(key)
        if text is None:
            continue
        other = first.setdefault(text, key)
        if other is not key:
            raise InputFormatError(
                f"query keys {other!r} and {key!r} are the same query id {text!r} once "
                f"converted to text; give each query once (the {form} dict's rows of one "
                "query under one key)", SOURCE)


def duplicate_error(mapping: dict[Any, Any], query: str, doc: str, form: str
                    ) -> DuplicateEntryError:
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


def _number(value: Any, grade: bool) -> float | str:
    """The value as a float, or the kind of problem ("", " range", " finite")."""
    if type(value) is float:
        number = value
    elif isinstance(value, float):
        number = float.__float__(value)
    elif isinstance(value, (bool, np.bool_)):
        return float(value) if grade else ""
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
    number = _number(value, form == "qrels")
    if isinstance(number, str):
        kind = "score" if form == "run" else "grade"
        raise _problem((kind + number, query_key, doc_key, value), form)
    return number


def _mixed(kinds: int) -> bool:
    return bool(kinds & (kinds - 1)) or bool(kinds & _OTHER)


def _read_run(results: Any) -> RunColumns:
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
        if code != known:  # the same text again (1 and "1"), an empty ranking's key too
            _refuse_same_query_keys(results, "run")
        if not ranking:  # in the run, nothing retrieved: a query id, no entry of rows
            continue
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
    return RunColumns(
        list(code_of),
        np.array(starts, dtype=np.int64),
        np.array(codes, dtype=np.int32),
        check,
        StringColumn.from_strings(docs),
        np.array(scores, dtype=np.float64),
        descending,
    )


def _read_qrels(judgments: Any) -> QrelsColumns:
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
        if code != known:  # the same text again (1 and "1")
            _refuse_same_query_keys(judgments, "qrels", judged_only=True)
        kinds = 0
        for doc_key, value in list(dict.items(judged)):  # a snapshot, as the run's
            doc, kind = _doc_text(query_key, doc_key, "qrels")
            kinds |= kind
            grade = _value(query_key, doc_key, value, "qrels")
            query_codes.append(code)
            doc_codes.append(doc_of.setdefault(doc, len(doc_of)))
            grades.append(grade)
        may_repeat |= _mixed(kinds)
    columns = (np.array(query_codes, dtype=np.int32), list(query_of),
               np.array(doc_codes, dtype=np.int32), list(doc_of),
               np.array(grades, dtype=np.float64))
    return QrelsColumns(columns, {"doc_column": None}, may_repeat, False)
