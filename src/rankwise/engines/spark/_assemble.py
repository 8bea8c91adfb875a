"""On the driver: from per-query counts and ranked hits to :class:`RankedJudgments`.

Spark computes, per judged query present in the run, the number of rows, and
per judged document retrieved, its rank; this module turns those into the
same :class:`~rankwise.kernels.RankedJudgments` that
:func:`~rankwise.kernels.rank_judgments` builds from whole objects, so the
numpy kernels compute the measures unchanged.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels
    from rankwise.kernels import RankedJudgments

__all__ = ["judged_only_ranks", "ranked_judgments"]


def _index_of(values: pa.Array, names: list[str]) -> np.ndarray:
    """Index of each of *values* in *names* (-1 where absent)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(values, value_set=pa.array(names, pa.string()))
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _byte_order(names: list[str]) -> np.ndarray:
    """Permutation sorting *names* by their UTF-8 bytes (strcmp order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not names:
        return np.zeros(0, dtype=np.int64)
    encoded = pa.array([name.encode("utf-8") for name in names], pa.binary())
    return pc.sort_indices(encoded).to_numpy().astype(np.int64)


def judged_only_ranks(
    query: np.ndarray, doc: pa.Array, score: np.ndarray, grade: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks when only judged documents count (trec_eval ``-J``).

    Parameters
    ----------
    query : ndarray of int64
        Query index of each hit.
    doc : Arrow string array
        Document id of each hit.
    score : ndarray of float64
        Score of each hit.
    grade : ndarray of float64
        Grade of each hit.

    Returns
    -------
    kept : ndarray of bool
        The hits that take part (grade >= 0).
    rank : ndarray of int64
        Their 1-based ranks among the kept hits of their query: score
        descending, ties by document id descending in byte order.

    Examples
    --------
    >>> import pyarrow as pa
    >>> kept, rank = judged_only_ranks(
    ...     np.array([0, 0, 0]), pa.array(["a", "b", "c"]),
    ...     np.array([1.0, 1.0, 2.0]), np.array([1.0, -1.0, 0.0]))
    >>> kept.tolist(), rank.tolist()
    ([True, False, True], [2, 1])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kept = grade >= 0
    rows = np.flatnonzero(kept)
    table = pa.table(
        {
            "q": pa.array(query[rows]),
            "s": pa.array(score[rows]),
            "d": doc.take(pa.array(rows)).cast(pa.binary()),
        }
    )
    order = pc.sort_indices(
        table, sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")]
    ).to_numpy()
    sorted_query = query[rows][order]
    n = len(order)
    starts = np.flatnonzero(np.concatenate(([True], sorted_query[1:] != sorted_query[:-1])))
    position = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
    rank = np.empty(n, dtype=np.int64)
    rank[order] = position
    return kept, rank


def ranked_judgments(
    qrels: Qrels,
    run_queries: pa.Array,
    run_counts: np.ndarray,
    hit_queries: pa.Array,
    hit_ranks: np.ndarray,
    hit_grades: np.ndarray,
    *,
    depth: int | None,
    missing: str,
) -> RankedJudgments:
    """Build the kernels' input from what Spark computed.

    Parameters
    ----------
    qrels : Qrels
        All judgments (collected to the driver).
    run_queries, run_counts : Arrow string array, ndarray of int64
        The judged queries found in the run, and the number of documents
        ranked for each (before the depth cut; 0 allowed).
    hit_queries, hit_ranks, hit_grades : Arrow string array, ndarrays
        One entry per judged document retrieved: its query, 1-based rank
        and grade, in any order.
    depth : int or None
        Keep ranks <= depth; ``num_ret = min(count, depth)``.
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.

    Returns
    -------
    RankedJudgments
        Equal to what :func:`rankwise.kernels.rank_judgments` returns on the
        whole data.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q2": {"a": 1}, "q1": {"b": 2, "c": 0}})
    >>> data = ranked_judgments(qrels, pa.array(["q1"]), np.array([5]),
    ...     pa.array(["q1", "q1"]), np.array([4, 2]), np.array([0.0, 2.0]),
    ...     depth=None, missing="zero")
    >>> data.query_ids, data.num_ret.tolist(), data.hit_rank.tolist()
    (['q1', 'q2'], [5, 0], [2, 4])
    """
    from rankwise.kernels import RankedJudgments

    names = qrels.query_ids
    counts = np.zeros(len(names), dtype=np.int64)
    present = np.zeros(len(names), dtype=bool)
    where = _index_of(run_queries, names)
    found = where >= 0
    counts[where[found]] = np.asarray(run_counts, dtype=np.int64)[found]
    present[where[found]] = True

    evaluated = np.arange(len(names)) if missing == "zero" else np.flatnonzero(present)
    evaluated = evaluated[_byte_order([names[i] for i in evaluated])]
    eval_of = np.full(len(names), -1, dtype=np.int64)
    eval_of[evaluated] = np.arange(len(evaluated))
    n_eval = len(evaluated)

    judged_query = eval_of[qrels.query_codes]
    keep = judged_query >= 0
    judged_query = judged_query[keep]
    judged_grade = qrels.grades[keep]
    by_query = np.lexsort((-judged_grade, judged_query))
    judged_offsets = np.concatenate(
        ([0], np.cumsum(np.bincount(judged_query, minlength=n_eval)))
    ).astype(np.int64)

    hit_query = _index_of(hit_queries, names)
    hit_query = np.where(hit_query >= 0, eval_of[np.maximum(hit_query, 0)], -1)
    rank = np.asarray(hit_ranks, dtype=np.int64)
    grade = np.asarray(hit_grades, dtype=np.float64)
    num_ret = counts[evaluated]
    in_run = num_ret > 0
    kept = hit_query >= 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
        kept &= rank <= depth
    hit_query, rank, grade = hit_query[kept], rank[kept], grade[kept]
    order = np.lexsort((rank, hit_query))
    fields = {field.name for field in dataclasses.fields(RankedJudgments)}
    extra = {"depth": depth} if "depth" in fields else {}
    return RankedJudgments(
        query_ids=[names[i] for i in evaluated],
        num_ret=num_ret,
        hit_query=hit_query[order],
        hit_rank=rank[order],
        hit_grade=grade[order],
        judged_offsets=judged_offsets,
        judged_grades=judged_grade[by_query],
        in_run=in_run,
        **extra,
    )
