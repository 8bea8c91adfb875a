"""On the driver: from per-query counts and ranked hits to the kernels' input.

Spark computes, per judged query present in the run, the number of rows,
and per judged document retrieved, its rank and its tie group; this module
turns those into the same :class:`~rankwise.ranking.tied.TiedRanking`
that :func:`~rankwise.ranking.rank_all_ties` builds from whole objects, so
the numpy kernels (and every tie policy) compute the measures unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels
    from rankwise.options import Missing
    from rankwise.ranking.tied import TiedRanking

__all__ = ["judged_only_ranks", "tied_ranking"]


def _index_of(values: pa.Array, names: list[str]) -> np.ndarray:
    """Index of each of *values* in *names* (-1 where absent)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(values, value_set=pa.array(names, pa.string()))
    codes: np.ndarray = found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return codes


def judged_only_ranks(
    query: np.ndarray, doc: pa.Array, score: np.ndarray, grade: np.ndarray,
    *, ascending: bool = False, position: np.ndarray | None = None,
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
    ascending : bool
        Ties by document id ascending (``ties="ascending"``), not descending.
    position : ndarray of int64, optional
        Each hit's place in the input: ties in input order (the dialects that
        rank so), not by document id.

    Returns
    -------
    kept : ndarray of bool
        The hits that take part (grade >= 0).
    rank : ndarray of int64
        Their 1-based ranks among the kept hits of their query: score
        descending, ties by document id descending in byte order
        (ascending with *ascending*).
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
    tie = (doc.take(pa.array(rows)).cast(pa.binary()) if position is None
           else pa.array(np.asarray(position)[rows]))
    table = pa.table({"q": pa.array(query[rows]), "s": pa.array(score[rows]), "d": tie})
    order = pc.sort_indices(
        table,
        sort_keys=[("q", "ascending"), ("s", "descending"),
                   ("d", "ascending" if ascending or position is not None else "descending")],
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
    missing: Missing,
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
        same score, itself included); and ``doc`` (Arrow strings), which
        finds its judgment (the diversity measures read it), and ``score``
        (the measures that order by the run's scores read it).
    depth : int or None
        The depth cut.
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.
    judged_only : bool
        Unjudged documents were dropped (trec_eval ``-J``).

    Returns
    -------
    TiedRanking
        Equal to what :func:`rankwise.ranking.rank_all_ties` returns on the
        whole data: both end in :func:`rankwise.ranking.assemble.assemble_ranking`.

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
    from rankwise.ranking.assemble import assemble_ranking
    from rankwise.ranking.judged import judgment_rows

    names = qrels.query_ids
    counts = np.full(len(names), -1, dtype=np.int64)
    where = _index_of(run_queries, names)
    found = where >= 0
    counts[where[found]] = np.asarray(run_counts, dtype=np.int64)[found]
    hit_query = _index_of(hits["query"], names)
    rows = judgment_rows(qrels, hit_query, hits["doc"]) if "doc" in hits else None
    return assemble_ranking(
        qrels,
        counts,
        hit_query=hit_query,
        hit_rank=hits["rank"],
        hit_grade=hits["grade"],
        tie_above=hits["above"],
        tie_size=hits["size"],
        depth=depth,
        missing=missing,
        judged_only=judged_only,
        hit_row=rows,
        hit_score=hits.get("score"),
    )


class HitIntervals:
    """The hits of each query as points, and the intervals between them.

    Inside a query the documents are ordered by (score, document id in byte
    order); trec_eval ranks them in the reverse of that order. The hits
    (judged documents retrieved) of a query, sorted ascending, are points
    ``p_1 < ... < p_m`` of that order, and cut it into ``m + 1`` intervals:
    ``I_0`` (the documents with the lowest hit's score that come before
    ``p_1``), ``I_i = [p_i, p_{i+1})`` and ``I_m = [p_m, +inf)``. Every
    document of the query scoring at least as high as its lowest hit falls in
    exactly one interval, so counting the documents of each interval (one
    row out per document, one count per interval back) gives every hit's
    rank and tie group: the ``ranks`` strategy's second scan emits at most
    one row per document of the run, however many documents are judged.

    Attributes
    ----------
    query : ndarray of int64
        Query (the caller's code) of each interval, intervals grouped by query.
    low_score, high_score : ndarrays of float64
        Score of the interval's lower and upper point (``high_score`` NaN:
        no upper point).
    low_doc, high_doc : Arrow string arrays
        Document id of the lower and upper point (null: no bound on the
        document: ``I_0``'s lower end, ``I_m``'s upper end).
    hit_interval : ndarray of int64
        Per hit (in the caller's order), the interval it starts.

    With *ascending* (``ties="ascending"``: tied documents ranked by id
    ascending), the document ids of the order above are descending.
    """

    def __init__(
        self, query: np.ndarray, doc: pa.Array, score: np.ndarray, *, ascending: bool = False
    ) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        query = np.asarray(query, dtype=np.int64)
        score = np.asarray(score, dtype=np.float64)
        n = len(query)
        table = pa.table({"q": pa.array(query), "s": pa.array(score), "d": doc.cast(pa.binary())})
        order = pc.sort_indices(
            table,
            sort_keys=[("q", "ascending"), ("s", "ascending"),
                       ("d", "descending" if ascending else "ascending")],
        ).to_numpy()
        sorted_query = query[order]
        sorted_score = score[order]
        new_query = np.concatenate(([True], sorted_query[1:] != sorted_query[:-1]))[:n]
        query_index = np.cumsum(new_query) - 1  # among the queries with hits
        # point k starts interval k + j + 1 (j: its query among those with hits);
        # interval k' = start_j + j is the query's I_0
        point_interval = np.arange(n) + query_index + 1
        starts = np.flatnonzero(new_query)
        n_queries = len(starts)
        size = n + n_queries
        self.query = np.empty(size, dtype=np.int64)
        self.low_score = np.empty(size, dtype=np.float64)
        self.high_score = np.full(size, np.nan)
        first_interval = starts + np.arange(n_queries)
        self.query[point_interval] = sorted_query
        self.query[first_interval] = sorted_query[starts]
        self.low_score[point_interval] = sorted_score
        self.low_score[first_interval] = sorted_score[starts]
        has_next = np.ones(n, dtype=bool)
        if n:
            has_next[:-1] = ~new_query[1:]
            has_next[-1] = False
        following = np.flatnonzero(has_next)
        self.high_score[point_interval[following]] = sorted_score[following + 1]
        self.high_score[first_interval] = sorted_score[starts]
        sorted_doc = doc.take(pa.array(order, pa.int64()))
        low_source = np.full(size, -1, dtype=np.int64)
        low_source[point_interval] = np.arange(n)
        high_source = np.full(size, -1, dtype=np.int64)
        high_source[point_interval[following]] = following + 1
        high_source[first_interval] = starts
        self.low_doc: pa.Array = sorted_doc.take(pa.array(low_source, mask=low_source < 0))
        self.high_doc: pa.Array = sorted_doc.take(pa.array(high_source, mask=high_source < 0))
        self.hit_interval = np.empty(n, dtype=np.int64)
        self.hit_interval[order] = point_interval
        self._order = order
        self._sorted_score = sorted_score
        self._new_query = new_query
        self._point_interval = point_interval
        self._query_end = np.append(first_interval[1:], size)[query_index] if n else point_interval

    def __len__(self) -> int:
        return len(self.query)

    def ranks(
        self, count: np.ndarray, low_equal: np.ndarray, high_equal: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Every hit's rank and tie group from the counts of each interval.

        Parameters
        ----------
        count : ndarray of int64
            Documents in each interval.
        low_equal, high_equal : ndarrays of int64
            Those whose score equals the interval's lower, upper point's score.

        Returns
        -------
        dict
            ``rank`` (1-based), ``above`` (documents scoring higher) and
            ``size`` (documents with the same score, itself included), per
            hit in the caller's order.

        Examples
        --------
        >>> import pyarrow as pa
        >>> intervals = HitIntervals(np.array([0, 0]), pa.array(["a", "b"]), np.array([1.0, 2.0]))
        >>> len(intervals)  # I_0, [a, b), [b, +inf)
        3
        >>> # the run: x 3.0, y 2.0, b 2.0, z 1.0, a 1.0, 0 1.0 (ties by id descending)
        >>> # I_0 holds 0; [a, b) holds a and z; [b, +inf) holds b, y and x
        >>> intervals.ranks(np.array([1, 2, 3]), np.array([1, 2, 2]), np.array([1, 0, 0]))
        {'rank': array([5, 3]), 'above': array([3, 1]), 'size': array([3, 2])}
        """
        count = np.asarray(count, dtype=np.int64)
        low_equal = np.asarray(low_equal, dtype=np.int64)
        high_equal = np.asarray(high_equal, dtype=np.int64)
        n = len(self._order)
        empty = np.zeros(0, dtype=np.int64)
        if n == 0:
            return {"rank": empty, "above": empty, "size": empty}
        total = np.concatenate(([0], np.cumsum(count)))
        interval = self._point_interval
        end = self._query_end  # one past the query's last interval

        def suffix(start: np.ndarray) -> np.ndarray:
            after: np.ndarray = total[end] - total[start]
            return after

        score = self._sorted_score
        new_group = self._new_query | np.concatenate(([True], score[1:] != score[:-1]))
        group_first = np.flatnonzero(new_group)
        group_last = np.append(group_first[1:], n) - 1
        group = np.cumsum(new_group) - 1
        first_interval = interval[group_first][group]
        last_interval = interval[group_last][group]
        size = (
            high_equal[first_interval - 1]
            + (total[last_interval] - total[first_interval])
            + low_equal[last_interval]
        )
        above = suffix(last_interval) - low_equal[last_interval]
        rank = suffix(interval)
        out = {}
        for name, values in (("rank", rank), ("above", above), ("size", size)):
            placed = np.empty(n, dtype=np.int64)
            placed[self._order] = values
            out[name] = placed
        return out

    def grid(self, query_max: np.ndarray, budget: int) -> tuple[float, np.ndarray, np.ndarray]:
        """Cells of a grid on scores, so that a run row finds its interval by equality.

        A row with score ``s`` lies in cell ``floor(clip(s * scale))``
        (:data:`CELL_LIMIT` bounds the clip); each interval is listed once
        per cell it overlaps, so joining on (query, cell) offers a row only the
        intervals of its cell, not all of its query's. *scale* is a power of
        two (``s * scale`` is exact, the same in the JVM and numpy), the
        finest for which the listing has at most *budget* entries; 0 when
        none has (every score in cell 0: each row is offered all the
        intervals of its query).

        Parameters
        ----------
        query_max : ndarray of float64
            Per query code, the highest score of the query in the run.
        budget : int
            Most entries wanted (it is exceeded only when even the coarsest
            grid, one cell per interval, needs more).

        Returns
        -------
        scale : float
        entry_interval, entry_cell : ndarrays of int64
            One entry per (interval, cell it overlaps).

        Examples
        --------
        >>> import pyarrow as pa
        >>> intervals = HitIntervals(np.array([0, 0]), pa.array(["a", "b"]), np.array([1.0, 2.0]))
        >>> scale, interval, cell = intervals.grid(np.array([3.0]), budget=6)
        >>> scale, interval.tolist(), cell.tolist()
        (1.0, [0, 1, 1, 2, 2], [1, 1, 2, 2, 3])
        """
        low = self.low_score
        top = np.asarray(query_max, dtype=np.float64)[self.query]
        high = np.where(np.isnan(self.high_score), top, self.high_score)
        high = np.maximum(high, low)
        largest = float(np.max(np.abs(np.concatenate((low, high))))) if len(low) else 0.0

        def cells(scale: float) -> tuple[np.ndarray, np.ndarray]:
            return cell_of(low, scale), cell_of(high, scale)

        def fits(power: int) -> bool:
            if largest * 2.0**power > 2.0**52:
                return False
            first, last = cells(2.0**power)
            return int(np.sum(last - first + 1)) <= budget

        lowest, highest = -GRID_POWER, GRID_POWER
        if fits(lowest):
            while lowest < highest:  # the finest grid that fits: cells only split as it refines
                middle = (lowest + highest + 1) // 2
                if fits(middle):
                    lowest = middle
                else:
                    highest = middle - 1
            scale = 2.0**lowest
        else:  # no grid fits: one cell (0) for every score, one entry per interval
            scale = 0.0
        first, last = cells(scale)
        spans = last - first + 1
        entry_interval = np.repeat(np.arange(len(low), dtype=np.int64), spans)
        offsets = np.cumsum(spans) - spans
        entry_cell = np.repeat(first, spans) + (
            np.arange(int(spans.sum()), dtype=np.int64) - np.repeat(offsets, spans)
        )
        return scale, entry_interval, entry_cell


GRID_POWER = 60
"""Grid scales range over ``2**-60 .. 2**60``."""
CELL_LIMIT = 2.0**62
"""Scaled scores are clipped to +-``CELL_LIMIT`` before ``floor`` (Spark's ANSI mode
refuses a floor that does not fit 64 bits); only rows outside every interval are clipped."""


def cell_of(score: np.ndarray, scale: float) -> np.ndarray:
    """``floor(clip(score * scale))``: the cell of each score, as Spark computes it.

    Examples
    --------
    >>> cell_of(np.array([2.5, -2.5, 1e300]), 4.0).tolist()
    [10, -10, 4611686018427387904]
    """
    with np.errstate(over="ignore"):  # +-inf is clipped, as Spark's least/greatest do
        scaled = np.clip(np.asarray(score, dtype=np.float64) * scale, -CELL_LIMIT, CELL_LIMIT)
    return np.floor(scaled).astype(np.int64)
