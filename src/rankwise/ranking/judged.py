"""Which rows of a run the judgments judge: the join every evaluation starts with.

In C (where it is built) the run is joined with its judgments query by
query; otherwise the run's document ids are looked up among all judged ones
(:func:`rankwise.ranking._join.find_strings`, pyarrow), then confirmed per
query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.data._names import name_codes
from rankwise.data._strings import StringsLike

if TYPE_CHECKING:

    from rankwise.data import Qrels, Run

__all__ = ["find_judged", "judged_rows", "judgment_rows"]


def find_judged(qrels: Qrels, run: Run, run_to_qrels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the run that are judged, and the matching row of the judgments.

    *run_to_qrels* gives, per query of the run, its index among the
    judgments' queries (-1: none). The rows come increasing. In C (where it
    is built) the run is joined with its judgments query by query; else its
    document ids are looked up among all judged ones (pyarrow), then
    confirmed per query.

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"b": 2, "c": 1}, "q2": {"a": 1}})
    >>> run = Run.from_dict({"q1": {"a": 3.0, "b": 2.0}, "q2": {"a": 1.0, "c": 0.5}})
    >>> rows, judgments = find_judged(qrels, run, np.array([0, 1]))
    >>> rows.tolist(), qrels.grades[judgments].tolist()
    ([1, 2], [2.0, 1.0])
    """
    from rankwise.ranking._join import native_chunks

    chunks = native_chunks(run.doc_column, qrels.doc_column)
    if chunks is not None:
        return _by_query(qrels, run, run_to_qrels, *chunks)
    from rankwise.ranking._join import find_strings

    candidates, candidate_doc = find_strings(run.doc_column, qrels.doc_column)
    qrels_query = run_to_qrels[run.query_codes_at(candidates)]
    usable = qrels_query >= 0
    candidates, qrels_query = candidates[usable], qrels_query[usable]
    candidate_doc = candidate_doc[usable]
    n_docs = max(1, len(qrels.doc_ids))
    qrels_keys = qrels.query_codes.astype(np.int64) * n_docs + qrels.doc_codes
    key_order = np.argsort(qrels_keys, kind="stable")
    sorted_keys = qrels_keys[key_order]
    wanted = qrels_query * n_docs + candidate_doc
    place = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(sorted_keys) - 1, 0))
    found = sorted_keys[place] == wanted if len(sorted_keys) else np.zeros(0, dtype=bool)
    return candidates[found], key_order[place[found]]


def _by_query(qrels: Qrels, run: Run, run_to_qrels: np.ndarray, native: Any,
              run_chunks: list[Any], values: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`find_judged` in C, query by query (each query's judged documents stay cached)."""
    starts, codes = run.query_blocks
    query_codes = qrels.query_codes
    if len(query_codes) < 2 or bool((query_codes[1:] >= query_codes[:-1]).all()):
        order = np.arange(len(query_codes), dtype=np.int64)  # a file's judgments: grouped
    else:
        order = np.argsort(query_codes, kind="stable").astype(np.int64)
    counts = np.bincount(query_codes, minlength=len(qrels.query_ids))
    bounds = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    rows = np.empty(len(run), dtype=np.int64)
    matches = np.empty(len(run), dtype=np.int64)
    found = native.find_by_query(
        run_chunks, starts, run_to_qrels[codes].astype(np.int64), values,
        np.ascontiguousarray(qrels.doc_codes, dtype=np.int32), order, bounds, rows, matches,
    )
    return rows[:found].copy(), matches[:found].copy()


def judgment_rows(qrels: Qrels, query_codes: np.ndarray, docs: StringsLike) -> np.ndarray:
    """The row of *qrels* judging each (query, document), -1 where none does.

    *query_codes* index ``qrels.query_ids`` (-1: not a judged query); *docs*
    are document ids (an Arrow string array or column). Engines that rank
    by ids (Spark) find the rows of their hits with it.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"a": 2}})
    >>> judgment_rows(qrels, np.array([1, 0, 0, -1]), pa.array(["a", "b", "c", "a"])).tolist()
    [2, 1, -1, -1]
    """
    import pyarrow as pa

    from rankwise.ranking._join import find_strings

    codes = np.asarray(query_codes, dtype=np.int64)
    out = np.full(len(codes), -1, dtype=np.int64)
    if isinstance(docs, pa.Array):
        docs = pa.chunked_array([docs], type=docs.type)
    found, doc_code = find_strings(docs, qrels.doc_column)
    n_docs = max(1, len(qrels.doc_ids))
    keys = qrels.query_codes.astype(np.int64) * n_docs + qrels.doc_codes
    order = np.argsort(keys)
    wanted = codes[found] * n_docs + doc_code
    if len(keys) == 0:
        return out
    place = np.minimum(np.searchsorted(keys[order], wanted), len(keys) - 1)
    hit = (keys[order][place] == wanted) & (codes[found] >= 0)
    out[found[hit]] = order[place[hit]]
    return out


def judged_rows(qrels: Qrels, run: Run) -> tuple[np.ndarray, np.ndarray]:
    """The rows of *run* that *qrels* judges, and the grade of each (vectorised join).

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> rows, grades = judged_rows(Qrels.from_dict({"q1": {"b": 2}}),
    ...                            Run.from_dict({"q1": {"a": 1.0, "b": 2.0}, "q2": {"b": 1.0}}))
    >>> rows.tolist(), grades.tolist()
    ([1], [2.0])
    """
    run_to_qrels = name_codes(qrels.query_ids, run.query_ids)
    rows, qrels_rows = find_judged(qrels, run, run_to_qrels)
    order = np.argsort(rows, kind="stable")
    return rows[order], qrels.grades[qrels_rows[order]]
