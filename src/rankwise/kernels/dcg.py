"""Kernels of the gain-based measures: DCG, nDCG, and trec_eval's binG, G, ndcg_rel, Rndcg.

The gain of a grade is set by the measure's ``gain`` (``exp``: 2^g - 1, the
default of rankwise's ``ndcg``; ``linear``: g, trec_eval's) and ``gains``
(explicit gains per grade); the discount is 1 / log2(rank + 1). One value per
evaluated query; no Python loop per query or per document.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import (
    per_query_sum,
    rank_within_query,
    safe_divide,
    segment_cumsum,
    sums_through_cutoffs,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure


def gain_of(grades: np.ndarray, m: Measure) -> np.ndarray:
    """The gain of each grade under the measure's ``gain`` and ``gains`` parameters.

    Negative grades (judged, never relevant) have gain 0 unless ``gains``
    names them; ``gains`` overrides the gain of the grades it lists.
    """
    params = m.family.params
    kind = m.param("gain") if "gain" in params else "linear"
    positive = np.maximum(grades, 0.0)
    gains = np.exp2(positive) - 1.0 if kind == "exp" else positive.astype(np.float64)
    explicit = m.param("gains") if "gains" in params else ()
    for grade, value in explicit:
        gains = np.where(grades == grade, value, gains)
    return gains


def _discount(rank: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(rank + 1.0)


def dcg_values(ctx: Context, m: Measure, cutoff: int | None) -> np.ndarray:
    """DCG of each query's ranking, to *cutoff*."""
    d = ctx.data
    gains = gain_of(d.hit_grade, m)
    keep = gains != 0
    if cutoff is not None:
        keep &= d.hit_rank <= cutoff
    return per_query_sum(
        d.hit_query[keep], gains[keep] * _discount(d.hit_rank[keep]), ctx.n_queries
    )


def _ideal_order(ctx: Context, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = ctx.data
    query = np.repeat(np.arange(d.n_queries), np.diff(d.judged_offsets))
    gains = gain_of(d.judged_grades, m)
    positive = gains > 0
    query, gains = query[positive], gains[positive]
    order = np.lexsort((-gains, query))
    query, gains = query[order], gains[order]
    return query, gains, rank_within_query(query)


def ideal_dcg_values(ctx: Context, m: Measure, cutoff: np.ndarray | int | None) -> np.ndarray:
    """DCG of the ideal ranking: every judged document by gain, descending, to *cutoff*."""
    query, gains, position = _ideal_order(ctx, m)
    keep = np.ones(len(query), dtype=bool)
    if cutoff is not None:
        limit = cutoff[query] if isinstance(cutoff, np.ndarray) else cutoff
        keep = position <= limit
    return per_query_sum(query[keep], gains[keep] * _discount(position[keep]), ctx.n_queries)


def dcg(ctx: Context, m: Measure) -> np.ndarray:
    """DCG@k = sum over the top k of gain(grade) / log2(rank + 1)."""
    return dcg_values(ctx, m, m.cutoff)


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k; 0 when IDCG is 0."""
    return safe_divide(dcg_values(ctx, m, m.cutoff), ideal_dcg_values(ctx, m, m.cutoff))


def dcg_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """DCG@k for every k of *cutoffs* at once (one row per cutoff): :func:`dcg`'s numbers."""
    d = ctx.data
    gains = gain_of(d.hit_grade, m)
    keep = gains != 0
    return sums_through_cutoffs(
        d.hit_query[keep], d.hit_rank[keep], gains[keep] * _discount(d.hit_rank[keep]),
        ctx.n_queries, cutoffs,
    )


def ndcg_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """nDCG@k for every k of *cutoffs* at once (one row per cutoff): :func:`ndcg`'s numbers."""
    query, gains, position = _ideal_order(ctx, m)
    ideal = sums_through_cutoffs(query, position, gains * _discount(position), ctx.n_queries,
                                 cutoffs)
    return safe_divide(dcg_at_cutoffs(ctx, m, cutoffs), ideal)


def binary_g(ctx: Context, m: Measure) -> np.ndarray:
    """binG: (1/R) sum over relevant retrieved of 1 / log2(2 + rank - their index)."""
    view = ctx.view(m.param("rel"))
    term = 1.0 / np.log2(2.0 + view.rel_rank - view.rel_index)
    return safe_divide(per_query_sum(view.rel_query, term, ctx.n_queries), view.num_rel)


class _Ideal:
    """The ideal ranking of each query: positive gains sorted descending (CSR)."""

    def __init__(self, ctx: Context, m: Measure) -> None:
        d = ctx.data
        query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
        gains = gain_of(d.judged_grades, m)
        keep = (gains > 0) & (d.judged_grades >= 0)
        query, gains = query[keep], gains[keep]
        order = np.lexsort((-gains, query))
        self.query, self.gains = query[order], gains[order]
        self.count = np.bincount(self.query, minlength=ctx.n_queries)
        self.offsets = np.concatenate(([0], np.cumsum(self.count)))
        self.position = rank_within_query(self.query)

    def cumulative(self, weights: np.ndarray) -> np.ndarray:
        """Prefix sums of ``gains * weights`` within each query, with a leading 0 per query."""
        return segment_cumsum(self.query, self.gains * weights)

    def prefix_at(self, cumulative: np.ndarray, query: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Value of the within-query prefix sum through position min(k, count) (0 for k = 0)."""
        k = np.minimum(k, self.count[query]).astype(np.int64)
        index = self.offsets[query] + k - 1
        out = np.zeros(len(query), dtype=np.float64)
        ok = k > 0
        out[ok] = cumulative[index[ok]]
        return out


def _linear(m: Measure) -> Measure:
    return m


def graded_g(ctx: Context, m: Measure) -> np.ndarray:
    """G (trec_eval): gain-weighted like binG, normalised by the sum of ideal gains.

    For a retrieved document of gain g > 0 at rank i: g / log2(2 + cost_i - sum_i),
    where sum_i is the gain retrieved through rank i and cost_i is the sum over
    ideal positions 1..i of max(ideal gain, 1).
    """
    d = ctx.data
    ideal = _Ideal(ctx, m)
    gains = gain_of(d.hit_grade, m)
    gains = np.where(d.hit_grade >= 0, gains, 0.0)
    gained_through = segment_cumsum(d.hit_query, gains)
    excess = ideal.cumulative(np.ones_like(ideal.gains))  # sum of gains
    extra = segment_cumsum(ideal.query, np.maximum(ideal.gains - 1.0, 0.0))
    cost = d.hit_rank + ideal.prefix_at(extra, d.hit_query, d.hit_rank)
    nonzero = gains != 0
    term = np.zeros(len(gains))
    term[nonzero] = gains[nonzero] / np.log2(2.0 + cost[nonzero] - gained_through[nonzero])
    total_ideal = ideal.prefix_at(excess, np.arange(ctx.n_queries), ideal.count)
    return safe_divide(per_query_sum(d.hit_query, term, ctx.n_queries), total_ideal)


def ndcg_rel(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg_rel (trec_eval): nDCG averaged over the ranks of the positive-gain documents.

    Each retrieved document of positive gain at rank r adds DCG@r / IDCG@min(r, Rg);
    each of the Rg ideal documents not retrieved adds DCG / IDCG of the whole
    ranking; the sum is divided by Rg (documents of positive gain).
    """
    d = ctx.data
    ideal = _Ideal(ctx, m)
    gains = np.where(d.hit_grade >= 0, gain_of(d.hit_grade, m), 0.0)
    dcg_through = segment_cumsum(d.hit_query, gains * _discount(d.hit_rank))
    ideal_cumulative = ideal.cumulative(_discount(ideal.position.astype(np.float64)))
    positive = gains > 0
    q = d.hit_query[positive]
    idcg = ideal.prefix_at(ideal_cumulative, q, d.hit_rank[positive])
    terms = safe_divide(dcg_through[positive], idcg)
    total = per_query_sum(q, terms, ctx.n_queries)
    queries = np.arange(ctx.n_queries)
    full_dcg = per_query_sum(d.hit_query, gains * _discount(d.hit_rank), ctx.n_queries)
    full_idcg = ideal.prefix_at(ideal_cumulative, queries, ideal.count)
    found = per_query_sum(q, None, ctx.n_queries)
    total += (ideal.count - found) * safe_divide(full_dcg, full_idcg)
    return np.where(total > 0, safe_divide(total, ideal.count.astype(np.float64)), 0.0)


def r_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """Rndcg (trec_eval): mean nDCG@i over the ranks i where the ideal gain changes.

    Those ranks are the last position of each gain level of the ideal ranking
    (the last being Rg, the number of positive-gain documents); when at least
    Rg + 2 documents were retrieved, nDCG over the whole ranking is added too.
    0 when no document is relevant at the relevance level.
    """
    d = ctx.data
    ideal = _Ideal(ctx, m)
    n = ctx.n_queries
    gains = np.where(d.hit_grade >= 0, gain_of(d.hit_grade, m), 0.0)
    weighted = gains * _discount(d.hit_rank)
    ideal_cumulative = ideal.cumulative(_discount(ideal.position.astype(np.float64)))
    # boundary ranks: positions p (1-based) where gain[p] differs from gain[p+1] (or p = Rg)
    last_of_level = np.ones(len(ideal.gains), dtype=bool)
    if len(ideal.gains) > 1:
        last_of_level[:-1] = (ideal.gains[1:] != ideal.gains[:-1]) | (
            ideal.query[1:] != ideal.query[:-1]
        )
    bq = ideal.query[last_of_level]
    bk = ideal.position[last_of_level].astype(np.float64)
    # DCG@k of the ranking at each boundary: sum of weighted gains with rank <= k
    dcg_at = _dcg_at(d.hit_query, d.hit_rank, weighted, bq, bk, n)
    idcg_at = ideal_cumulative[last_of_level]
    total = per_query_sum(bq, safe_divide(dcg_at, idcg_at), n)
    count = per_query_sum(bq, None, n)
    extra = d.num_ret >= ideal.count + 2
    full_dcg = per_query_sum(d.hit_query, weighted, n)
    full_idcg = ideal.prefix_at(ideal_cumulative, np.arange(n), ideal.count)
    total += np.where(extra & (ideal.count > 0), safe_divide(full_dcg, full_idcg), 0.0)
    count += extra & (ideal.count > 0)
    value = safe_divide(total, count)
    return np.where(ctx.view(m.param("rel")).num_rel > 0, value, 0.0)


def _dcg_at(
    hit_query: np.ndarray,
    hit_rank: np.ndarray,
    weighted: np.ndarray,
    query: np.ndarray,
    k: np.ndarray,
    n: int,
) -> np.ndarray:
    """Per (query, k) pair: the sum of *weighted* over the hits of that query with rank <= k."""
    cumulative = segment_cumsum(hit_query, weighted)
    starts = np.searchsorted(hit_query, np.arange(n))
    ends = np.searchsorted(hit_query, np.arange(n), side="right")
    # hits are sorted by (query, rank): the number of hits of q with rank <= k
    key_hits = hit_query.astype(np.float64) * (2.0**32) + hit_rank
    key = query.astype(np.float64) * (2.0**32) + k
    through = np.searchsorted(key_hits, key, side="right")
    has = through > starts[query]
    out = np.zeros(len(query))
    out[has] = cumulative[through[has] - 1]
    del ends
    return out


CUTOFF_KERNELS: dict[str, Callable[[Context, Measure, np.ndarray], np.ndarray]] = {
    "ndcg": ndcg_at_cutoffs,
    "dcg": dcg_at_cutoffs,
}
"""Measure family -> kernel of many cutoffs at once (one row per cutoff)."""

KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "ndcg": ndcg,
    "dcg": dcg,
    "binG": binary_g,
    "G": graded_g,
    "ndcg_rel": ndcg_rel,
    "Rndcg": r_ndcg,
}
"""Measure family -> kernel."""
