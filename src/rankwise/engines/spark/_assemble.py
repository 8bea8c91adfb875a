"""On the driver: from per-query counts and ranked hits to the kernels' input.

Spark computes, per judged query present in the run, the number of rows,
and per judged document retrieved, its rank and its tie group; this module
turns those into the same :class:`~rankwise.kernels.ranking.TiedRanking`
that :func:`~rankwise.kernels.rank_all_ties` builds from whole objects, so
the numpy kernels (and every tie policy) compute the measures unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels
    from rankwise.kernels.ranking import TiedRanking

__all__ = ["judged_only_ranks", "tied_ranking"]


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
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ranks and tie groups when only judged documents count (trec_eval ``-J``).

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
    above, size : ndarrays of int64
        Kept hits of the query with a higher score, and with the same score
        (itself included).

    Examples
    --------
    >>> import pyarrow as pa
    >>> kept, rank, above, size = judged_only_ranks(
    ...     np.array([0, 0, 0, 0]), pa.array(["a", "b", "c", "d"]),
    ...     np.array([1.0, 1.0, 2.0, 1.0]), np.array([1.0, -1.0, 0.0, 2.0]))
    >>> kept.tolist(), rank.tolist(), above.tolist(), size.tolist()
    ([True, False, True, True], [3, 1, 2], [1, 0, 1], [2, 1, 2])
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
    sorted_score = score[rows][order]
    n = len(order)
    new_query = np.concatenate(([True], sorted_query[1:] != sorted_query[:-1]))
    new_group = new_query | np.concatenate(([True], sorted_score[1:] != sorted_score[:-1]))
    query_start = np.flatnonzero(new_query)
    group_start = np.flatnonzero(new_group)
    position = np.arange(n)
    first_of_query = query_start[np.cumsum(new_query) - 1] if n else position
    group_id = np.cumsum(new_group) - 1
    group_sizes = np.diff(np.append(group_start, n))
    rank, above, size = (np.empty(n, dtype=np.int64) for _ in range(3))
    rank[order] = position - first_of_query + 1
    above[order] = group_start[group_id] - first_of_query if n else position
    size[order] = group_sizes[group_id] if n else position
    return kept, rank, above, size


def tied_ranking(
    qrels: Qrels,
    run_queries: pa.Array,
    run_counts: np.ndarray,
    hits: dict[str, Any],
    *,
    depth: int | None,
    missing: str,
) -> TiedRanking:
    """Build the kernels' input from what Spark computed.

    Parameters
    ----------
    qrels : Qrels
        All judgments (collected to the driver).
    run_queries, run_counts : Arrow string array, ndarray of int64
        The judged queries found in the run, and the number of documents
        ranked for each (before the depth cut; 0 allowed).
    hits : dict
        One entry per judged document retrieved, in any order: ``query``
        (Arrow strings), ``rank`` (1-based), ``grade``, ``above`` (documents
        of the query with a higher score) and ``size`` (documents with the
        same score, itself included).
    depth : int or None
        ``num_ret = min(count, depth)``; hits whose tie group starts below
        the depth are dropped (each tie policy's view cuts at the depth).
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.

    Returns
    -------
    TiedRanking
        Equal to what :func:`rankwise.kernels.rank_all_ties` returns on the
        whole data.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q2": {"a": 1}, "q1": {"b": 2, "c": 0}})
    >>> hits = {"query": pa.array(["q1", "q1"]), "rank": np.array([4, 2]),
    ...         "grade": np.array([0.0, 2.0]), "above": np.array([3, 1]),
    ...         "size": np.array([1, 1])}
    >>> data = tied_ranking(qrels, pa.array(["q1"]), np.array([5]), hits,
    ...                     depth=None, missing="zero").view("trec")
    >>> data.query_ids, data.num_ret.tolist(), data.hit_rank.tolist()
    (['q1', 'q2'], [5, 0], [2, 4])
    """
    from rankwise.kernels.ranking import TiedRanking

    names = qrels.query_ids
    counts = np.zeros(len(names), dtype=np.int64)
    where = _index_of(run_queries, names)
    found = where >= 0
    counts[where[found]] = np.asarray(run_counts, dtype=np.int64)[found]
    present = np.zeros(len(names), dtype=bool)
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

    hit_query = _index_of(hits["query"], names)
    hit_query = np.where(hit_query >= 0, eval_of[np.maximum(hit_query, 0)], -1)
    above = np.asarray(hits["above"], dtype=np.int64)
    num_ret = counts[evaluated]
    in_run = present[evaluated]  # in the run, even when -J leaves nothing to rank
    kept = hit_query >= 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
        kept &= above < depth
    return TiedRanking(
        query_ids=[names[i] for i in evaluated],
        num_ret=num_ret,
        hit_query=hit_query[kept],
        hit_rank=np.asarray(hits["rank"], dtype=np.int64)[kept],
        hit_grade=np.asarray(hits["grade"], dtype=np.float64)[kept],
        tie_above=above[kept],
        tie_size=np.asarray(hits["size"], dtype=np.int64)[kept],
        judged_offsets=judged_offsets,
        judged_grades=judged_grade[by_query],
        in_run=in_run,
        depth=depth,
    )
