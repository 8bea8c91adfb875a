"""Shared, memoised intermediate arrays for the kernels of one evaluation."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cached_property
from typing import Any

import numpy as np

from rankwise.kernels._segments import per_query_sum, rank_within_query
from rankwise.ranking.tied import RankedJudgments

__all__ = ["Context", "RelevanceView"]


class RelevanceView:
    """Arrays that depend on the relevance level ``rel``: which hits are relevant, R, ..."""

    def __init__(self, data: RankedJudgments, rel: float) -> None:
        self.data = data
        self.rel = rel

    @cached_property
    def is_rel(self) -> np.ndarray:
        """Per hit: relevant (grade >= rel)."""
        return self.data.hit_grade >= self.rel

    @cached_property
    def num_rel(self) -> np.ndarray:
        """R per query, counted in the judgments.

        The judgments come query by query (``judged_offsets``): R is the
        difference of the running count of relevant ones at each query's
        bounds (the judgments per query when all are relevant), as floats.
        """
        d = self.data
        relevant = d.judged_grades >= self.rel
        bounds = np.asarray(d.judged_offsets, dtype=np.int64)
        if relevant.all():
            counts = np.diff(bounds)
        else:
            running = np.zeros(len(relevant) + 1, dtype=np.int64)
            np.cumsum(relevant, out=running[1:])
            counts = running[bounds[1:]] - running[bounds[:-1]]
        return counts.astype(np.float64)

    @cached_property
    def rel_query(self) -> np.ndarray:
        """Query of each relevant hit (sorted by query, then rank)."""
        out: np.ndarray = self.data.hit_query[self.is_rel]
        return out

    @cached_property
    def rel_rank(self) -> np.ndarray:
        """Rank of each relevant hit."""
        out: np.ndarray = self.data.hit_rank[self.is_rel]
        return out

    @cached_property
    def rel_index(self) -> np.ndarray:
        """1-based position of each relevant hit among the relevant hits of its query."""
        return rank_within_query(self.rel_query)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant documents retrieved, per query."""
        return per_query_sum(self.rel_query, None, self.data.n_queries)

    def rel_in_top(self, k: int) -> np.ndarray:
        """Relevant documents in the top *k*, per query."""
        top = self.rel_rank <= k
        return per_query_sum(self.rel_query[top], None, self.data.n_queries)


class Context:
    """One evaluation's data plus memoised views per relevance level."""

    def __init__(self, data: RankedJudgments) -> None:
        self.data = data
        self._views: dict[float, RelevanceView] = {}
        self._memo: dict[Hashable, Any] = {}

    def memo(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value stored under *key*, made once by *make* (shared by the measures)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def view(self, rel: float) -> RelevanceView:
        """The :class:`RelevanceView` for relevance level *rel*."""
        if rel not in self._views:
            self._views[rel] = RelevanceView(self.data, rel)
        return self._views[rel]

    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
        return self.data.n_queries
