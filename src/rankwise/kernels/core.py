"""Kernels of the common measures: precision, recall, AP, RR, nDCG, R-precision, counts.

Each kernel takes a :class:`~rankwise.kernels.context.Context` and a
:class:`~rankwise.measures.Measure` and returns one float64 value per
evaluated query. No Python loop runs per query or per document.
"""

from __future__ import annotations

import numpy as np

from rankwise.kernels._segments import (
    first_per_query,
    per_query_sum,
    rank_within_query,
    safe_divide,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure


def _k(measure: Measure) -> int:
    return int(measure.cutoff)  # type: ignore[arg-type]


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """P@k = relevant in the top k / k."""
    return ctx.view(m.param("rel")).rel_in_top(_k(m)) / _k(m)


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """recall@k = relevant in the top k / R."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.rel_in_top(_k(m)), view.num_rel)


def relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """relative_P@k = relevant in the top k / min(k, R)."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.rel_in_top(_k(m)), np.minimum(view.num_rel, _k(m)))


def hit(ctx: Context, m: Measure) -> np.ndarray:
    """hit@k = 1 when a relevant document is in the top k."""
    return (ctx.view(m.param("rel")).rel_in_top(_k(m)) > 0).astype(np.float64)


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """AP (map, map@k): (1/R) * sum over relevant hits ranked <= k of (their index / rank)."""
    view = ctx.view(m.param("rel"))
    contribution = view.rel_index / view.rel_rank
    if m.cutoff is not None:
        contribution = np.where(view.rel_rank <= m.cutoff, contribution, 0.0)
    return safe_divide(per_query_sum(view.rel_query, contribution, ctx.n_queries), view.num_rel)


def reciprocal_rank(ctx: Context, m: Measure) -> np.ndarray:
    """RR (mrr, mrr@k): 1 / rank of the first relevant document within the top k."""
    view = ctx.view(m.param("rel"))
    first = first_per_query(view.rel_query, view.rel_rank.astype(np.float64), ctx.n_queries, np.inf)
    if m.cutoff is not None:
        first = np.where(first <= m.cutoff, first, np.inf)
    return 1.0 / first


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec: precision at rank R; with ``mult``, at rank int(mult * R + 0.9) (trec_eval)."""
    view = ctx.view(m.param("rel"))
    cut = np.floor(float(m.param("mult")) * view.num_rel + 0.9)
    top = view.rel_rank <= cut[view.rel_query]
    found = per_query_sum(view.rel_query[top], None, ctx.n_queries)
    return safe_divide(found, cut)


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


def ideal_dcg_values(ctx: Context, m: Measure, cutoff: np.ndarray | int | None) -> np.ndarray:
    """DCG of the ideal ranking: every judged document by gain, descending, to *cutoff*."""
    d = ctx.data
    query = np.repeat(np.arange(d.n_queries), np.diff(d.judged_offsets))
    gains = gain_of(d.judged_grades, m)
    positive = gains > 0
    query, gains = query[positive], gains[positive]
    order = np.lexsort((-gains, query))
    query, gains = query[order], gains[order]
    position = rank_within_query(query)
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


def num_q(ctx: Context, m: Measure) -> np.ndarray:
    """1 per evaluated query (summed: the number of queries)."""
    return np.ones(ctx.n_queries, dtype=np.float64)


def num_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Documents retrieved (after the depth cut)."""
    return ctx.data.num_ret.astype(np.float64)


def num_rel(ctx: Context, m: Measure) -> np.ndarray:
    """R: relevant documents in the judgments."""
    return ctx.view(m.param("rel")).num_rel.copy()


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Relevant documents retrieved."""
    return ctx.view(m.param("rel")).num_rel_ret.copy()


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Judged documents below the relevance level that were retrieved (grade >= 0)."""
    d = ctx.data
    nonrel = (d.hit_grade < m.param("rel")) & (d.hit_grade >= 0)
    return per_query_sum(d.hit_query[nonrel], None, ctx.n_queries)


def judged_at(ctx: Context, m: Measure) -> np.ndarray:
    """judged@k = judged documents in the top k / k."""
    d = ctx.data
    top = d.hit_rank <= _k(m)
    return per_query_sum(d.hit_query[top], None, ctx.n_queries) / _k(m)


def set_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_P = relevant retrieved / retrieved."""
    return safe_divide(ctx.view(m.param("rel")).num_rel_ret, ctx.data.num_ret)


def set_recall(ctx: Context, m: Measure) -> np.ndarray:
    """set_recall = relevant retrieved / R."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.num_rel_ret, view.num_rel)


def set_map(ctx: Context, m: Measure) -> np.ndarray:
    """set_map = set_P * set_recall."""
    return set_precision(ctx, m) * set_recall(ctx, m)


def set_relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_relative_P = relevant retrieved / min(retrieved, R)."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.num_rel_ret, np.minimum(ctx.data.num_ret, view.num_rel))


def set_f(ctx: Context, m: Measure) -> np.ndarray:
    """set_F = (1 + beta^2) P R / (beta^2 P + R) over the retrieved set."""
    beta2 = float(m.param("beta")) ** 2
    p, r = set_precision(ctx, m), set_recall(ctx, m)
    return safe_divide((1 + beta2) * p * r, beta2 * p + r)


def round_half_away(values: np.ndarray) -> np.ndarray:
    """C's ``lround`` for non-negative values: halves round up."""
    floor = np.floor(values)
    return np.where(values - floor >= 0.5, floor + 1.0, floor)


def interpolated_precision(ctx: Context, rel: float, levels: np.ndarray) -> np.ndarray:
    """Interpolated precision at recall levels, queries x levels (trec_eval's definition).

    For a level x, let c = lround(x * R) relevant documents. The value is the
    highest precision at any relevant hit from the c-th on (all of them when
    c = 0), and 0 when fewer than c relevant documents were retrieved. A
    query that was retrieved but ranks no document (``depth=0``, or
    ``judged_only`` with nothing judged) gets NaN where c = 0, as trec_eval.
    """
    view = ctx.view(rel)
    n = ctx.n_queries
    query, index, rank = view.rel_query, view.rel_index, view.rel_rank
    precision_at = index / rank
    # running maximum from the end of each query that never crosses queries:
    # shifting each query's values by -2*query keeps later queries below.
    shifted = (precision_at - 2.0 * query)[::-1]
    best_from_here = np.maximum.accumulate(shifted)[::-1] + 2.0 * query
    starts = np.searchsorted(query, np.arange(n))
    out = np.zeros((n, len(levels)), dtype=np.float64)
    found = view.num_rel_ret
    # an empty ranking of a retrieved query has an undefined precision (0 / 0):
    # trec_eval reports NaN at the levels that need no relevant document
    empty = (ctx.data.num_ret == 0) & ctx.data.in_run
    for j, level in enumerate(np.asarray(levels, dtype=np.float64)):
        needed = round_half_away(level * view.num_rel)
        ok = (needed <= found) & (found > 0)
        position = starts + np.maximum(needed, 1).astype(np.int64) - 1
        queries = np.flatnonzero(ok)
        out[queries, j] = best_from_here[position[queries]]
        out[empty & (needed == 0), j] = np.nan
    return out


def iprec_at_recall(ctx: Context, m: Measure) -> np.ndarray:
    """Interpolated precision at one recall level."""
    return interpolated_precision(ctx, m.param("rel"), np.array([m.param("recall")]))[:, 0]


_ELEVEN = np.round(np.arange(11) / 10.0, 1)


def eleven_point_average(ctx: Context, m: Measure) -> np.ndarray:
    """Mean interpolated precision over the recall levels (0.0, 0.1, ..., 1.0 by default)."""
    levels = np.array(m.param("levels") or _ELEVEN, dtype=np.float64)
    return interpolated_precision(ctx, m.param("rel"), levels).mean(axis=1)
