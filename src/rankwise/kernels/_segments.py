"""Vectorised per-query reductions over entries sorted by query."""

from __future__ import annotations

import numpy as np


def per_query_sum(query: np.ndarray, values: np.ndarray | None, n_queries: int) -> np.ndarray:
    """Sum *values* (or count entries when None) per query."""
    if values is None:
        return np.bincount(query, minlength=n_queries).astype(np.float64)
    return np.bincount(query, weights=values, minlength=n_queries).astype(np.float64, copy=False)


def rank_within_query(query: np.ndarray) -> np.ndarray:
    """1-based position of each entry among the entries of its query (input sorted by query)."""
    n = len(query)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # ones, each query's first entry starting the count again: 1 - the length before it
    starts = np.flatnonzero(query[1:] != query[:-1]) + 1
    position = np.ones(n, dtype=np.int64)
    position[starts] = 1 - np.diff(starts, prepend=0)
    return np.cumsum(position, out=position)


def first_per_query(
    query: np.ndarray, values: np.ndarray, n_queries: int, fill: float
) -> np.ndarray:
    """The first value of each query (input sorted by query); *fill* where a query has none."""
    out = np.full(n_queries, fill, dtype=np.float64)
    if len(query):
        first = np.concatenate(([True], query[1:] != query[:-1]))
        out[query[first]] = values[first]
    return out


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) != 0)
    return out


def segment_cumsum(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Cumulative sum of *values* within each query (entries sorted by query)."""
    total = np.cumsum(values)
    if len(values) == 0:
        return total
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    before = np.concatenate(([0.0], total))[starts]
    lengths = np.diff(np.append(starts, len(values)))
    out: np.ndarray = total - np.repeat(before, lengths)
    return out


_DENSE_LIMIT = 1 << 22
"""Cells of the dense (queries x entries) block :func:`sums_through_cutoffs` fills at once."""


def sums_through_cutoffs(
    query: np.ndarray,
    rank: np.ndarray,
    values: np.ndarray | None,
    n_queries: int,
    cutoffs: np.ndarray,
) -> np.ndarray:
    """Per cutoff k and query: the sum of *values* (the count when None) over entries of rank <= k.

    Entries are sorted by query, then rank. Each cell is bit for bit what
    ``per_query_sum(query[rank <= k], values[rank <= k], n_queries)`` gives:
    the sum runs in entry order (a running sum within each query, read at the
    last entry of rank <= k), so evaluating many cutoffs at once changes no
    number. The work is one pass over the entries and one lookup per cell,
    whatever the number of cutoffs.

    Parameters
    ----------
    query, rank : ndarray of int
        Query index and rank of each entry, sorted by query then rank.
    values : ndarray of float or None
        What to sum; None counts the entries.
    n_queries : int
        Queries (the columns of the result).
    cutoffs : ndarray of int
        Positive cutoffs, in any order.

    Returns
    -------
    ndarray of float64, shape (len(cutoffs), n_queries)

    Examples
    --------
    >>> query, rank = np.array([0, 0, 1]), np.array([1, 3, 2])
    >>> sums_through_cutoffs(query, rank, np.array([0.5, 0.25, 1.0]), 2, np.array([1, 2, 5]))
    array([[0.5 , 0.  ],
           [0.5 , 1.  ],
           [0.75, 1.  ]])
    """
    cutoffs = np.asarray(cutoffs, dtype=np.int64)
    out = np.zeros((len(cutoffs), n_queries), dtype=np.float64)
    if len(query) == 0 or len(cutoffs) == 0:
        return out
    order = np.argsort(cutoffs, kind="stable")
    ascending = cutoffs[order]
    keep = rank <= ascending[-1]
    query = query[keep]
    if values is not None:
        # + 0.0: a sum that starts at 0.0, as bincount's does, never ends in -0.0
        values = np.asarray(values, dtype=np.float64)[keep] + 0.0
    if len(query) == 0:
        return out
    # each entry counts from the first cutoff >= its rank on
    bucket = np.searchsorted(ascending, rank[keep], side="left")
    starts = np.searchsorted(query, np.arange(n_queries + 1))
    position = np.arange(len(query)) - starts[query]
    width = int(position.max()) + 1 if values is not None else 0
    size = len(cutoffs)
    step = max(1, _DENSE_LIMIT // max(width + 1, size))
    for first in range(0, n_queries, step):
        last = min(first + step, n_queries)
        inside = slice(starts[first], starts[last])
        rows = query[inside] - first
        # entries of each query with rank <= each cutoff (cutoffs ascending)
        through = np.bincount(rows * size + bucket[inside], minlength=(last - first) * size)
        through = np.cumsum(through.reshape(last - first, size), axis=1)
        if values is None:
            out[order, first:last] = through.T
            continue
        # running sums within each query, in entry order: row q, column j + 1 holds the
        # sum of q's first j + 1 entries (column 0: nothing yet), accumulated along rows
        running = np.zeros((last - first, width + 1), dtype=np.float64)
        running[rows, position[inside] + 1] = values[inside]
        np.cumsum(running, axis=1, out=running)
        out[order, first:last] = np.take_along_axis(running, through, axis=1).T
    return out


def exclusive_cumprod(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per entry, the product of the *values* of the entries before it in its query.

    Entries are sorted by query. The products are formed left to right, one
    multiplication per entry as a scalar loop would (no logarithms, no
    division): rows of a dense matrix, one query per row, a block of rows at
    a time.

    Examples
    --------
    >>> exclusive_cumprod(np.array([0, 0, 0, 2, 2]), np.array([0.5, 0.5, 0.5, 0.25, 1.0])).tolist()
    [1.0, 0.5, 0.25, 1.0, 0.25]
    """
    return _accumulated(query, values, np.multiply, 1.0, inclusive=False)


def running_sum(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per entry, the sum of the *values* of its query through it, bit for bit a scalar loop's.

    Entries are sorted by query. Each query's sum starts at 0.0 and adds one
    value at a time, left to right (trec_eval's ``sum += ...``), which
    :func:`segment_cumsum` (one cumulative sum over all queries, minus what
    came before) does not: its values can differ in the last bits.

    Examples
    --------
    >>> running_sum(np.array([0, 0, 0, 2, 2]), np.array([0.1, 0.2, 0.3, 1e20, 1.0])).tolist()
    [0.1, 0.30000000000000004, 0.6000000000000001, 1e+20, 1e+20]
    """
    return _accumulated(query, values, np.add, 0.0, inclusive=True)


def suffix_max(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per entry, the largest of the *values* of its query from it to the query's end.

    Entries are sorted by query. Exact: the values are replaced by their
    rank among the distinct values, so that one running maximum over all
    queries (the later queries' ranks lowered out of reach) never changes a
    value's bits.

    Examples
    --------
    >>> suffix_max(np.array([0, 0, 0, 1, 1]), np.array([0.5, 0.25, 1 / 3, 0.1, 0.2])).tolist()
    [0.5, 0.3333333333333333, 0.3333333333333333, 0.2, 0.2]
    """
    if len(values) == 0:
        return np.asarray(values, dtype=np.float64)
    distinct, code = np.unique(values, return_inverse=True)
    offset = np.asarray(query, dtype=np.int64) * len(distinct)
    best = np.maximum.accumulate((code.reshape(-1) - offset)[::-1])[::-1] + offset
    return distinct[best]


def _accumulated(
    query: np.ndarray, values: np.ndarray, ufunc: np.ufunc, identity: float, *, inclusive: bool
) -> np.ndarray:
    """*ufunc* accumulated left to right within each query: through each entry, or before it."""
    n = len(values)
    out = np.full(n, identity, dtype=np.float64)
    if n == 0:
        return out
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    lengths = np.diff(np.append(starts, n))
    position = np.arange(n) - np.repeat(starts, lengths)
    segment = np.repeat(np.arange(len(starts)), lengths)
    width = int(lengths.max())
    block = max(1, (1 << 22) // max(width, 1))
    shift = 1 if inclusive else 0
    for first in range(0, len(starts), block):
        rows = slice(first, min(first + block, len(starts)))
        lo = int(starts[first])
        hi = int(starts[rows.stop]) if rows.stop < len(starts) else n
        dense = np.full((rows.stop - first, width + 1), identity, dtype=np.float64)
        dense[segment[lo:hi] - first, position[lo:hi] + 1] = values[lo:hi]
        ufunc.accumulate(dense, axis=1, out=dense)
        out[lo:hi] = dense[segment[lo:hi] - first, position[lo:hi] + shift]
    return out
