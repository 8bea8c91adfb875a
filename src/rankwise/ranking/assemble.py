"""The one assembly of the kernels' input, from ranks however an engine computed them.

Every engine ends in :func:`assemble_ranking`: which queries are evaluated,
in which order (byte order of their ids, :func:`byte_order`), the judged
grades of each (descending) and the depth cut are decided here once.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from rankwise.ranking.tied import TiedRanking, by_query_then_rank

if TYPE_CHECKING:

    from rankwise.data import Qrels
    from rankwise.options import Missing

__all__ = ["assemble_ranking", "byte_order"]


def byte_order(names: list[str]) -> np.ndarray:
    """The permutation sorting *names* by their UTF-8 bytes (C's strcmp, trec_eval's order).

    Examples
    --------
    >>> byte_order(["b", "a", "\u00e9", "B"]).tolist()
    [3, 1, 0, 2]
    """
    # Arrow sorts text by its bytes too, without a key per name, once it is imported
    # (importing pyarrow.compute costs ~0.3 s: more than sorting a million names)
    if len(names) > 1 << 20 or (len(names) > 1 << 16 and "pyarrow.compute" in sys.modules):
        import pyarrow as pa
        import pyarrow.compute as pc

        return np.asarray(pc.sort_indices(pa.array(names, type=pa.string())), dtype=np.int64)
    # str order is code point order, which UTF-8 byte order is: no encoding needed
    return np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)


def assemble_ranking(
    qrels: Qrels,
    counts: np.ndarray,
    *,
    hit_query: np.ndarray,
    hit_rank: np.ndarray,
    hit_grade: np.ndarray,
    tie_above: np.ndarray,
    tie_size: np.ndarray,
    depth: int | None,
    missing: Missing,
    judged_only: bool = False,
    hit_score: np.ndarray | None = None,
    hit_row: np.ndarray | None = None,
) -> TiedRanking:
    """The kernels' input, from ranks however an engine computed them.

    Every engine ends here: which queries are evaluated, in which order,
    the judged grades of each and the depth cut are decided once.

    Parameters
    ----------
    qrels : Qrels
        All judgments.
    counts : ndarray of int64
        Per query of *qrels* (by its code), the documents the run ranks for
        it before the depth cut, or -1 when the run does not hold it.
    hit_query : ndarray of int64
        Per judged document retrieved, its query (a code of *qrels*; -1:
        not a judged query, dropped).
    hit_rank, hit_grade, tie_above, tie_size : ndarrays
        Its 1-based rank, its grade, the documents of its query ranked
        strictly above its tie group and the size of the group.
    depth : int or None
        ``num_ret = min(count, depth)``; hits whose tie group starts below
        the depth are dropped (each tie policy's view cuts at the depth).
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.
    judged_only : bool
        Unjudged documents were dropped. With ``missing="zero"``, a judged
        query absent from the run then counts as retrieved with nothing left
        to rank, as in trec_eval ``-c -J`` (its placeholder document is
        unjudged and dropped): its precision at recall 0 is undefined (NaN).
    hit_score : ndarray, optional
        Per hit, the score that ranked it (read by conventions that look at
        scores, see :mod:`rankwise.measures.dialects`).
    hit_row : ndarray of int64, optional
        Per hit, its row in *qrels* (:func:`judgment_rows` finds them from
        ids); the diversity measures need it.

    Returns
    -------
    TiedRanking
        Queries in byte order of their ids (``query_rows``: each one's index
        in ``qrels.query_ids``); hits by query, then rank.

    Examples
    --------
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q2": {"a": 1}, "q1": {"b": 2, "c": 0}})
    >>> ranking = assemble_ranking(
    ...     qrels, np.array([-1, 5]), hit_query=np.array([1, 1]), hit_rank=np.array([4, 2]),
    ...     hit_grade=np.array([0.0, 2.0]), tie_above=np.array([3, 1]),
    ...     tie_size=np.array([1, 1]), depth=None, missing="zero")
    >>> data = ranking.view("trec")
    >>> data.query_ids, data.num_ret.tolist(), data.hit_rank.tolist()
    (['q1', 'q2'], [5, 0], [2, 4])
    """
    names = qrels.query_ids
    n_queries = len(names)
    counts = np.asarray(counts, dtype=np.int64)
    present = counts >= 0
    evaluated = np.arange(n_queries) if missing == "zero" else np.flatnonzero(present)
    if len(evaluated) < n_queries:  # an object array gathers names without a Python loop
        names = np.array(names, dtype=object)[evaluated].tolist()
    order = byte_order(names)
    if len(order) > 1 and not (order[1:] > order[:-1]).all():
        evaluated = evaluated[order]
        names = np.array(names, dtype=object)[order].tolist()
    eval_of = np.full(n_queries, -1, dtype=np.int64)
    eval_of[evaluated] = np.arange(len(evaluated))
    n_eval = len(evaluated)

    # judgments of the evaluated queries, CSR with grades descending
    judged_query = eval_of[qrels.query_codes]
    keep = judged_query >= 0
    every_judgment = bool(keep.all())  # then nothing is copied
    judged_query = judged_query if every_judgment else judged_query[keep]
    judged_grade = qrels.grades if every_judgment else qrels.grades[keep]
    judged_rows = None
    entry_of_row = None
    if hit_row is not None:  # the rows of the entries of judged_grades (diversity measures)
        judged_rows = np.flatnonzero(keep)[_by_query_grade_descending(judged_query, judged_grade)]
        entry_of_row = np.full(len(qrels.grades), -1, dtype=np.int64)
        entry_of_row[judged_rows] = np.arange(len(judged_rows))
    judged_offsets = np.concatenate(
        ([0], np.cumsum(np.bincount(judged_query, minlength=n_eval)))
    ).astype(np.int64)

    hit_query = np.asarray(hit_query, dtype=np.int64)
    hit_query = np.where(hit_query >= 0, eval_of[np.maximum(hit_query, 0)], -1)
    above = np.asarray(tie_above, dtype=np.int64)
    num_ret = np.maximum(counts[evaluated], 0)
    kept = hit_query >= 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
        kept &= above < depth  # a superset: each view cuts at the depth itself
    hit_rank = np.asarray(hit_rank, dtype=np.int64)
    rows: np.ndarray | slice
    if kept.all():
        hit_order = by_query_then_rank(hit_query, hit_rank)
        rows = slice(None) if hit_order is None else hit_order  # in order: nothing copied
    else:
        rows = np.flatnonzero(kept)
        hit_order = by_query_then_rank(hit_query[rows], hit_rank[rows])
        if hit_order is not None:  # hits in view order once: views need not sort again
            rows = rows[hit_order]
    hit_judged = (
        entry_of_row[np.asarray(hit_row, dtype=np.int64)[rows]]
        if hit_row is not None and entry_of_row is not None else None
    )
    return TiedRanking(
        query_ids=names,
        num_ret=num_ret,
        hit_query=hit_query[rows],
        hit_rank=hit_rank[rows],
        hit_grade=np.asarray(hit_grade, dtype=np.float64)[rows],
        tie_above=above[rows],
        tie_size=np.asarray(tie_size, dtype=np.int64)[rows],
        judged_offsets=judged_offsets,
        judged_grades=(
            _grades_descending(judged_query, judged_grade, n_eval)
            if judged_rows is None else qrels.grades[judged_rows]
        ),
        # in the run, even when -J leaves nothing to rank
        in_run=present[evaluated] | (judged_only and missing == "zero"),
        depth=depth,
        hit_score=None if hit_score is None else np.asarray(hit_score, np.float64)[rows],
        hit_judged=hit_judged,
        judged_rows=judged_rows,
        qrels=qrels,
        query_rows=evaluated,
    )


def _grades_descending(query: np.ndarray, grade: np.ndarray, n_queries: int) -> np.ndarray:
    """The grades grouped by query (ascending), descending within each query.

    Grades are few distinct small integers in practice: then counted per
    (query, grade) and laid out, in linear time; else sorted.

    Examples
    --------
    >>> _grades_descending(np.array([1, 0, 1, 0]), np.array([0.0, 2.0, 3.0, -1.0]), 2).tolist()
    [2.0, -1.0, 3.0, 0.0]
    """
    if len(grade):
        low, high = float(grade.min()), float(grade.max())
        if low == high:  # one grade (implicit feedback): nothing to order
            return np.full(len(grade), high)
        levels = high - low + 1
        if levels <= 64 and n_queries * levels <= 4 * len(grade) + 1024 and (
            grade == np.floor(grade)
        ).all():
            step = int(levels)
            level = (high - grade).astype(np.int64)  # 0: the highest grade
            counts = np.bincount(query * step + level, minlength=n_queries * step)
            values = np.tile(high - np.arange(step, dtype=np.float64), n_queries)
            return np.repeat(values, counts)
    return grade[np.lexsort((-grade, query))]


def _by_query_grade_descending(query: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Judgments ordered by query, then grade descending (stable): :func:`_grades_descending`.

    Examples
    --------
    >>> _by_query_grade_descending(np.array([1, 0, 1, 0]), np.array([0.0, 2.0, 3.0, -1.0])).tolist()
    [1, 3, 2, 0]
    """
    if len(grade) and (grade == np.floor(grade)).all():
        low, high = float(grade.min()), float(grade.max())
        if high - low < 1 << 20 and len(grade) < 1 << 40:
            key = query.astype(np.int64) * int(high - low + 1) + (high - grade).astype(np.int64)
            return np.argsort(key, kind="stable")
    return np.lexsort((-grade, query))
