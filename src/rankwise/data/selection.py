"""Rows of a run left out before evaluating: a document retrieved for itself.

BEIR's ArguAna and Quora ask a system to find documents similar to a query
that is itself a document of the corpus; the query's own document, found
first, is not an answer. BEIR drops it (``EvaluateRetrieval.evaluate(...,
ignore_identical_ids=True)``); rankwise does the same with
``exclude_self=True`` (:class:`~rankwise.options.EvalOptions`).
"""

from __future__ import annotations

import numpy as np

from rankwise.data.run import Run

__all__ = ["self_rows", "without_self"]


def self_rows(run: Run) -> np.ndarray:
    """The rows whose document id equals their query id (sorted row numbers).

    Found by 64-bit keys of the ids (exact for ids of at most 8 bytes),
    candidates of longer ids confirmed on the strings: no loop per row.

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"q1": 3.0, "d2": 2.0}, "d2": {"q1": 1.0, "d2": 0.5}})
    >>> self_rows(run).tolist()
    [0, 3]
    """
    from rankwise.data._arrow import string_keys
    from rankwise.data._strings import StringColumn

    if len(run) == 0:
        return np.zeros(0, dtype=np.int64)
    names = StringColumn.from_strings(run.query_ids)
    query_keys, query_exact = string_keys(names)
    doc_keys, doc_exact = string_keys(run.doc_column)
    codes = run.query_codes
    rows = np.flatnonzero(doc_keys == query_keys[codes])
    if (query_exact and doc_exact) or len(rows) == 0:
        return rows.astype(np.int64)
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data._arrow import array_to_numpy, numpy_to_array, take_rows

    docs = take_rows(run.doc_ids, rows.astype(np.int64))
    queries = names.to_arrow().combine_chunks().take(numpy_to_array(codes[rows].astype(np.int64)))
    same = array_to_numpy(pc.equal(docs, queries).cast(pa.bool_()), np.bool_)
    out: np.ndarray = rows[same].astype(np.int64)
    return out


def without_self(run: Run) -> Run:
    """The run without the rows whose document id is their query's id.

    A query left with no document by this is no longer in the run (as a
    query missing from it, see ``missing``); a query that retrieved nothing
    in the first place (an empty dict) stays in it.

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"q1": 3.0, "d2": 2.0}, "d2": {"d2": 1.0}, "q3": {}},
    ...                     name="bm25")
    >>> kept = without_self(run)
    >>> kept, kept.to_dict()
    (Run('bm25', 2 queries, 1 row), {'q1': {'d2': 2.0}, 'q3': {}})
    """
    drop = self_rows(run)
    if len(drop) == 0:
        return run
    keep = np.ones(len(run), dtype=bool)
    keep[drop] = False
    rows = np.flatnonzero(keep)
    codes = run.query_codes[rows]
    # the queries with a row left, and those that had none to begin with
    present = np.bincount(run.query_codes, minlength=len(run.query_ids)) == 0
    present[codes] = True
    renumber = np.cumsum(present, dtype=np.int64) - 1
    names = [name for name, kept in zip(run.query_ids, present.tolist()) if kept]
    import pyarrow as pa

    from rankwise.data._arrow import take_rows
    from rankwise.data._strings import to_arrow

    raw_ranks = run._ranks  # the rank column as read (text), when kept
    original = run.line_of
    return Run(
        renumber[codes].astype(np.int32),
        names,
        pa.chunked_array([take_rows(run.doc_ids, rows)]),
        np.ascontiguousarray(run.scores[rows]),
        ranks=None if raw_ranks is None
        else pa.chunked_array([take_rows(to_arrow(raw_ranks), rows)]),
        name=run.name,
        source=run.source,
        locate=lambda row: original(int(rows[row])),
    )._with_query_id_type(run.query_id_type)
