"""Turning whatever the user holds into :class:`Qrels` and :class:`Run`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rankwise.data import Qrels, Run
from rankwise.exceptions import InputFormatError
from rankwise.io.dicts import qrels_from_dict, run_from_dict
from rankwise.io.frames import run_from_frame
from rankwise.io.tables import (
    NotATableError,
    qrels_from_table,
    read_table,
    run_from_table,
    table_format,
    to_arrow_table,
)
from rankwise.io.trec import read_trec_qrels, read_trec_run

__all__ = [
    "COLUMN_ROLES",
    "as_qrels",
    "as_run",
    "check_columns",
    "file_stem",
    "read_qrels",
    "read_run",
    "split_one_table",
]

COLUMN_ROLES = ("query_id", "doc_id", "relevance", "score", "rank")
"""The roles a column map may name: ``columns={"query_id": "user", "doc_id": "item"}``."""

_CANDIDATES = {
    "query_id": ("query_id", "qid", "query"),
    "doc_id": ("doc_id", "docno", "docid", "doc"),
    "relevance": ("relevance", "label", "grade", "rel"),
    "score": ("score", "prediction", "pred"),
}
_ROLE_TEXT = {"query_id": "query", "doc_id": "document", "relevance": "relevance",
              "score": "score", "rank": "rank"}


def check_columns(columns: Any) -> dict[str, str]:
    """A column map ``{role: column name}``, checked.

    Examples
    --------
    >>> check_columns({"query_id": "user", "doc_id": "item"})
    {'query_id': 'user', 'doc_id': 'item'}
    >>> check_columns({"user": "query_id"})
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: columns: unknown role 'user'; the roles are \
query_id, doc_id, relevance, score, rank (columns={'query_id': 'user', ...} maps a role to \
your column)
    """
    from rankwise.exceptions import InvalidParameterError

    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise InvalidParameterError(
            f"columns must be a dict {{role: column name}}, got {type(columns).__name__}"
        )
    out: dict[str, str] = {}
    for role, name in columns.items():
        if role not in COLUMN_ROLES:
            raise InvalidParameterError(
                f"columns: unknown role {role!r}; the roles are {', '.join(COLUMN_ROLES)} "
                "(columns={'query_id': 'user', ...} maps a role to your column)"
            )
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(
                f"columns[{role!r}] must be a column name (a non-empty str), got {name!r}"
            )
        out[role] = name
    return out


def _pick(names: list[str], columns: dict[str, str], role: str) -> str:
    wanted = columns.get(role)
    if wanted is not None:
        if wanted not in names:
            raise InputFormatError(
                f"{_ROLE_TEXT[role]} column {wanted!r} (columns[{role!r}]) not found; "
                f"columns are {names}"
            )
        return wanted
    for name in _CANDIDATES[role]:
        if name in names:
            return name
    raise InputFormatError(
        f"no {_ROLE_TEXT[role]} column: expected one of {list(_CANDIDATES[role])}, "
        f"columns are {names}"
    )


def read_qrels(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> Qrels:
    """Read judgments from a TREC qrels file or a Parquet / CSV / TSV / JSONL table.

    Parameters
    ----------
    path : path or ``"-"``
        The file; ``"-"`` reads standard input.
    fmt : {"trec", "parquet", "csv", "tsv", "jsonl"}, optional
        Overrides the format implied by the extension (TREC text otherwise).
    columns : dict, optional
        For tables: ``{role: column}`` for the roles ``query_id``, ``doc_id``
        and ``relevance`` (default: the first column found among
        ``query_id, qid, query``; ``doc_id, docno, docid, doc``;
        ``relevance, label, grade, rel``).

    Returns
    -------
    Qrels
    """
    text = os.fspath(path)
    mapping = check_columns(columns)
    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        return read_trec_qrels(text)
    table = read_table(text, kind)
    return _qrels_of_table(table, mapping, source=text)


def _qrels_of_table(table: Any, columns: dict[str, str], source: str | None = None) -> Qrels:
    names = table.column_names
    return qrels_from_table(
        table,
        query=_pick(names, columns, "query_id"),
        doc=_pick(names, columns, "doc_id"),
        relevance=_pick(names, columns, "relevance"),
        source=source,
    )


def _run_columns(columns: dict[str, str]) -> Any:
    """Given column names, the query, document and score columns to read."""

    def pick(names: list[str]) -> tuple[str, str, str]:
        return (
            _pick(names, columns, "query_id"),
            _pick(names, columns, "doc_id"),
            _pick(names, columns, "score"),
        )

    return pick


def _run_of_table(
    table: Any, columns: dict[str, str], name: str, source: str | None = None
) -> Run:
    fast = run_from_frame(table, _run_columns(columns), name=name, source=source or "<table>")
    if fast is not None:
        return fast
    names = table.column_names
    return run_from_table(
        table,
        query=_pick(names, columns, "query_id"),
        doc=_pick(names, columns, "doc_id"),
        score=_pick(names, columns, "score"),
        name=name,
        source=source,
    )


def read_run(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    name: str | None = None,
    keep_rank: bool = False,
    columns: Mapping[str, str] | None = None,
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
    """
    text = os.fspath(path)
    mapping = check_columns(columns)
    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        return read_trec_run(text, name=name, keep_rank=keep_rank)
    table = read_table(text, kind)
    return _run_of_table(table, mapping, name or file_stem(text), source=text)


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


def as_qrels(obj: Any, *, columns: Mapping[str, str] | None = None) -> Qrels:
    """Judgments from a :class:`Qrels`, a path, a frame or a dict."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj, columns=columns)
    if isinstance(obj, dict):
        return qrels_from_dict(obj)
    try:
        table = to_arrow_table(obj)
    except NotATableError:
        raise InputFormatError(
            "qrels must be a Qrels, a path, a pandas/polars/Arrow table or "
            f"{{query_id: {{doc_id: grade}}}}, got {type(obj).__name__}"
        ) from None
    return _qrels_of_table(table, check_columns(columns))


def as_run(
    obj: Any,
    *,
    name: str | None = None,
    keep_rank: bool = False,
    columns: Mapping[str, str] | None = None,
) -> Run:
    """A run from a :class:`Run`, a path, a frame or a dict."""
    if isinstance(obj, Run):
        return obj if name is None else obj.with_name(name)
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj, name=name, keep_rank=keep_rank, columns=columns)
    if isinstance(obj, dict):
        return run_from_dict(obj, name=name or "run")
    mapping = check_columns(columns)
    fast = run_from_frame(obj, _run_columns(mapping), name=name or "run")
    if fast is not None:
        return fast
    try:
        table = to_arrow_table(obj)
    except NotATableError:
        raise InputFormatError(
            "run must be a Run, a path, a pandas/polars/Arrow table or "
            f"{{query_id: {{doc_id: score}}}}, got {type(obj).__name__}"
        ) from None
    return _run_of_table(table, mapping, name or "run")


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
