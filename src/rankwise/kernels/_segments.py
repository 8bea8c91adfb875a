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
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    lengths = np.diff(np.append(starts, n))
    return np.arange(1, n + 1) - np.repeat(starts, lengths)


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
    return total - np.repeat(before, lengths)
