"""Turning whatever the user holds into :class:`Qrels` and :class:`Run`."""

from __future__ import annotations

import os
from typing import Any

from rankwise.data import Qrels, Run
from rankwise.exceptions import InputFormatError
from rankwise.io.tables import (
    NotATableError,
    qrels_from_table,
    read_table,
    run_from_table,
    table_format,
    to_arrow_table,
)
from rankwise.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_qrels", "as_run", "read_qrels", "read_run", "split_one_table"]

_QUERY_NAMES = ("query_id", "qid", "query")
_DOC_NAMES = ("doc_id", "docno", "docid", "doc")


def _pick(columns: list[str], wanted: str | None, candidates: tuple[str, ...], role: str) -> str:
    if wanted is not None:
        return wanted
    for name in candidates:
        if name in columns:
            return name
    raise InputFormatError(
        f"no {role} column: expected one of {list(candidates)}, columns are {columns}"
    )


def read_qrels(path: str | os.PathLike[str], *, fmt: str | None = None, **columns: str) -> Qrels:
    """Read judgments from a TREC qrels file or a Parquet / CSV / TSV / JSONL table.

    Parameters
    ----------
    path : path or ``"-"``
        The file; ``"-"`` reads standard input.
    fmt : {"trec", "parquet", "csv", "tsv", "jsonl"}, optional
        Overrides the format implied by the extension (TREC text otherwise).
    **columns
        ``query=``, ``doc=``, ``relevance=`` column names for tables.
    """
    text = os.fspath(path)
    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        return read_trec_qrels(text)
    table = read_table(text, kind)
    names = table.column_names
    return qrels_from_table(
        table,
        query=_pick(names, columns.get("query"), _QUERY_NAMES, "query"),
        doc=_pick(names, columns.get("doc"), _DOC_NAMES, "document"),
        relevance=_pick(
            names, columns.get("relevance"), ("relevance", "label", "grade", "rel"), "relevance"
        ),
        source=text,
    )


def read_run(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    name: str | None = None,
    keep_rank: bool = False,
    **columns: str,
) -> Run:
    """Read a run from a TREC run file or a Parquet / CSV / TSV / JSONL table."""
    text = os.fspath(path)
    kind = fmt or table_format(text) or "trec"
    if kind == "trec":
        return read_trec_run(text, name=name, keep_rank=keep_rank)
    table = read_table(text, kind)
    names = table.column_names
    return run_from_table(
        table,
        query=_pick(names, columns.get("query"), _QUERY_NAMES, "query"),
        doc=_pick(names, columns.get("doc"), _DOC_NAMES, "document"),
        score=_pick(names, columns.get("score"), ("score", "prediction", "pred"), "score"),
        name=name or os.path.basename(text),
        source=text,
    )


def as_qrels(obj: Any) -> Qrels:
    """Judgments from a :class:`Qrels`, a path, a frame or a dict."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj)
    if isinstance(obj, dict):
        return Qrels.from_dict(obj)
    try:
        table = to_arrow_table(obj)
    except NotATableError:
        raise InputFormatError(
            "qrels must be a Qrels, a path, a pandas/polars/Arrow table or "
            f"{{query_id: {{doc_id: grade}}}}, got {type(obj).__name__}"
        ) from None
    names = table.column_names
    return qrels_from_table(
        table,
        query=_pick(names, None, _QUERY_NAMES, "query"),
        doc=_pick(names, None, _DOC_NAMES, "document"),
        relevance=_pick(names, None, ("relevance", "label", "grade", "rel"), "relevance"),
    )


def as_run(obj: Any, *, name: str | None = None, keep_rank: bool = False) -> Run:
    """A run from a :class:`Run`, a path, a frame or a dict."""
    if isinstance(obj, Run):
        return obj if name is None else obj.with_name(name)
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj, name=name, keep_rank=keep_rank)
    if isinstance(obj, dict):
        return Run.from_dict(obj, name=name or "run")
    try:
        table = to_arrow_table(obj)
    except NotATableError:
        raise InputFormatError(
            "run must be a Run, a path, a pandas/polars/Arrow table or "
            f"{{query_id: {{doc_id: score}}}}, got {type(obj).__name__}"
        ) from None
    names = table.column_names
    return run_from_table(
        table,
        query=_pick(names, None, _QUERY_NAMES, "query"),
        doc=_pick(names, None, _DOC_NAMES, "document"),
        score=_pick(names, None, ("score", "prediction", "pred"), "score"),
        name=name or "run",
    )


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
