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
    judged_only: bool = False,
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
        The depth cut.
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.
    judged_only : bool
        Unjudged documents were dropped (trec_eval ``-J``).

    Returns
    -------
    TiedRanking
        Equal to what :func:`rankwise.kernels.rank_all_ties` returns on the
        whole data: both end in :func:`rankwise.kernels.ranking.assemble_ranking`.

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
    from rankwise.kernels.ranking import assemble_ranking

    names = qrels.query_ids
    counts = np.full(len(names), -1, dtype=np.int64)
    where = _index_of(run_queries, names)
    found = where >= 0
    counts[where[found]] = np.asarray(run_counts, dtype=np.int64)[found]
    return assemble_ranking(
        qrels,
        counts,
        hit_query=_index_of(hits["query"], names),
        hit_rank=hits["rank"],
        hit_grade=hits["grade"],
        tie_above=hits["above"],
        tie_size=hits["size"],
        depth=depth,
        missing=missing,
        judged_only=judged_only,
    )
