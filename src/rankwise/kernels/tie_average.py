"""Expected values of measures over all orderings of tied documents (``ties="average"``).

Inside a tie group of size g whose first position is s + 1, every order of
the documents is equally likely (McSherry & Najork, ECIR 2008). Each measure
below has a closed form per tie group, vectorised over all hits: no
ordering is enumerated and nothing is sampled. With a depth cut, a document
of a group that straddles the cut is retrieved with the matching
probability, so the depth acts as a cutoff.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.exceptions import UnsupportedMeasureError
from rankwise.kernels._segments import per_query_sum, safe_divide, segment_cumsum
from rankwise.kernels.context import Context
from rankwise.kernels.dcg import exp_shift, gain_of, ideal_dcg_values, unscale
from rankwise.measures.spec import Measure

__all__ = ["AVERAGE_KERNELS", "average_kernel"]


def _cut(ctx: Context, cutoff: int | float | None) -> float:
    """The effective cutoff: the measure's, and the depth cut, whichever is smaller."""
    depth = ctx.data.depth
    limits = [c for c in (cutoff, depth) if c is not None]
    return float(min(limits)) if limits else np.inf


def _k(m: Measure) -> int:
    if m.cutoff is None:  # the catalog requires a cutoff for these families
        raise ValueError(f"{m} needs a cutoff")
    return m.cutoff


def _groups(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    d = ctx.data
    return d.tie_above.astype(np.float64), d.tie_size.astype(np.float64)


def _prob_in_top(ctx: Context, k: np.ndarray | float) -> np.ndarray:
    """Per hit, the probability that it is ranked within the top *k*."""
    above, size = _groups(ctx)
    out: np.ndarray = np.clip(k - above, 0.0, size) / size
    return out


def _relevant_in_top(ctx: Context, m: Measure, k: np.ndarray | float) -> np.ndarray:
    view = ctx.view(m.param("rel"))
    return per_query_sum(
        ctx.data.hit_query[view.is_rel], _prob_in_top(ctx, k)[view.is_rel], ctx.n_queries
    )


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[P@k] = sum over relevant hits of P(rank <= k) / k."""
    return _relevant_in_top(ctx, m, _cut(ctx, m.cutoff)) / _k(m)


def relevant_retrieved(ctx: Context, m: Measure) -> np.ndarray:
    """E[rel_ret@k] = sum over relevant hits of P(rank <= k)."""
    return _relevant_in_top(ctx, m, _cut(ctx, m.cutoff))


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """E[recall@k]."""
    return safe_divide(
        _relevant_in_top(ctx, m, _cut(ctx, m.cutoff)), ctx.view(m.param("rel")).num_rel
    )


def relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[relative_P@k]."""
    view = ctx.view(m.param("rel"))
    return safe_divide(
        _relevant_in_top(ctx, m, _cut(ctx, m.cutoff)), np.minimum(view.num_rel, _k(m))
    )


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[Rprec]: precision at c = int(mult * R + 0.9)."""
    view = ctx.view(m.param("rel"))
    cut = np.floor(float(m.param("mult")) * view.num_rel + 0.9)
    limit = np.minimum(cut, _cut(ctx, None))
    per_hit = limit[ctx.data.hit_query]
    found = _relevant_in_top(ctx, m, per_hit)
    return safe_divide(found, cut)


def judged(ctx: Context, m: Measure) -> np.ndarray:
    """E[judged@k]."""
    from rankwise.kernels.precision import judged_denominator

    top = _prob_in_top(ctx, _cut(ctx, m.cutoff))
    return safe_divide(
        per_query_sum(ctx.data.hit_query, top, ctx.n_queries), judged_denominator(ctx, m)
    )


def unjudged(ctx: Context, m: Measure) -> np.ndarray:
    """E[unj@k]."""
    d = ctx.data
    top = _prob_in_top(ctx, _cut(ctx, m.cutoff))
    usable = d.hit_grade >= 0
    judged_top = per_query_sum(d.hit_query[usable], top[usable], ctx.n_queries)
    out: np.ndarray = (np.minimum(d.num_ret, _k(m)) - judged_top) / _k(m)
    return out


def _discount_table(limit: int) -> np.ndarray:
    """cumulative[p] = sum of 1 / log2(q + 1) for q = 1..p."""
    positions = np.arange(1, limit + 1, dtype=np.float64)
    return np.concatenate(([0.0], np.cumsum(1.0 / np.log2(positions + 1.0))))


def expected_discounted_sum(
    query: np.ndarray, gains: np.ndarray, above: np.ndarray, size: np.ndarray, cutoff: float,
    n_queries: int,
) -> np.ndarray:
    """E[DCG@cutoff] over the orders of tied entries: each gain times its group's mean discount.

    An entry of a tie group of *size* g whose first position is *above* + 1
    is at each of the group's positions with probability 1/g, so it adds
    gain / g times the discounts 1 / log2(p + 1) of the positions p of its
    group within *cutoff*. The one place the tie average of DCG is computed
    (``ties="average"``, and :func:`rankwise.metrics.dcg_score`).

    Examples
    --------
    >>> expected_discounted_sum(np.array([0, 0]), np.array([3.0, 1.0]), np.array([0.0, 0.0]),
    ...                         np.array([2.0, 2.0]), np.inf, 1).round(4)  # 2 (1 + 1/log2 3)
    array([3.2619])
    """
    last = np.minimum(above + size, cutoff)
    if len(last) == 0:
        return np.zeros(n_queries)
    table = _discount_table(int(np.max(np.minimum(above + size, 1e15))) if len(above) else 0)
    first = np.minimum(above, last).astype(np.int64)
    last = last.astype(np.int64)
    expected = gains * (table[last] - table[first]) / size
    return per_query_sum(query, expected, n_queries)


def expected_dcg(
    ctx: Context, m: Measure, cutoff: float, shift: np.ndarray | None = None
) -> np.ndarray:
    """E[DCG@k] = sum over hits of gain / g * (discounts of the group's positions within k).

    With *shift*, each query's value is scaled by 2^-shift (see ``dcg.exp_shift``).
    """
    d = ctx.data
    above, size = _groups(ctx)
    gains = gain_of(d.hit_grade, m, None if shift is None else shift[d.hit_query])
    return expected_discounted_sum(d.hit_query, gains, above, size, cutoff, ctx.n_queries)


def dcg(ctx: Context, m: Measure) -> np.ndarray:
    """E[DCG@k]."""
    shift = exp_shift(ctx, m)
    return unscale(expected_dcg(ctx, m, _cut(ctx, m.cutoff), shift), shift, m)


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """E[nDCG@k] = E[DCG@k] / IDCG@k (the ideal ranking does not depend on ties)."""
    # the depth cuts the ranking, not the ideal one
    shift = exp_shift(ctx, m)
    return safe_divide(
        expected_dcg(ctx, m, _cut(ctx, m.cutoff), shift),
        ideal_dcg_values(ctx, m, m.cutoff, shift),
    )


def _relevant_groups(ctx: Context, rel: float) -> tuple[np.ndarray, ...]:
    """Per tie group holding a relevant hit: query, s, g, r (relevant in it), relevant above it."""
    d = ctx.data
    view = ctx.view(rel)
    query = d.hit_query[view.is_rel]
    above = d.tie_above[view.is_rel]
    size = d.tie_size[view.is_rel]
    if len(query) == 0:
        empty = np.zeros(0)
        return empty.astype(np.int64), empty, empty, empty, empty
    order = np.lexsort((above, query))
    query, above, size = query[order], above[order], size[order]
    new = np.concatenate(([True], (query[1:] != query[:-1]) | (above[1:] != above[:-1])))
    starts = np.flatnonzero(new)
    count = np.diff(np.append(starts, len(query))).astype(np.float64)
    group_query = query[starts]
    before = segment_cumsum(group_query, count) - count
    return (
        group_query,
        above[starts].astype(np.float64),
        size[starts].astype(np.float64),
        count,
        before,
    )


def _harmonic(limit: int) -> np.ndarray:
    """harmonic[n] = sum of 1 / i for i = 1..n."""
    return np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, limit + 1, dtype=np.float64))))


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[AP@k], per tie group in closed form.

    A relevant document at position s + t of its group (t uniform in 1..g)
    has R_above + 1 + (r - 1)(t - 1)/(g - 1) relevant documents at or above it
    in expectation, so the group adds
    r/g * sum_{t <= m} [R_above + 1 + (r - 1)(t - 1)/(g - 1)] / (s + t),
    m = min(g, k - s), which harmonic numbers give exactly.
    """
    view = ctx.view(m.param("rel"))
    query, above, size, count, before = _relevant_groups(ctx, m.param("rel"))
    cut = _cut(ctx, m.cutoff)
    span = np.clip(np.minimum(size, cut - above), 0, None)
    if len(query) == 0:
        return np.zeros(ctx.n_queries)
    harmonic = _harmonic(int((above + span).max()) if len(above) else 0)
    delta = harmonic[(above + span).astype(np.int64)] - harmonic[above.astype(np.int64)]
    spread = np.where(size > 1, (count - 1) / np.maximum(size - 1, 1), 0.0)
    inner = (before + 1.0) * delta + spread * (span - (above + 1.0) * delta)
    total = per_query_sum(query, count / size * inner, ctx.n_queries)
    return safe_divide(total, view.num_rel)


def reciprocal_rank(ctx: Context, m: Measure) -> np.ndarray:
    """E[RR@k]: over the first tie group holding a relevant document.

    With r relevant among its g documents, the first relevant one sits at
    s + j with P(J >= j) = C(g - j + 1, r) / C(g, r).
    """
    query, above, size, count, _ = _relevant_groups(ctx, m.param("rel"))
    out = np.zeros(ctx.n_queries)
    if len(query) == 0:
        return out
    first = np.concatenate(([True], query[1:] != query[:-1]))
    query, above, size, count = query[first], above[first], size[first], count[first]
    steps = (size - count + 1).astype(np.int64)  # possible positions of the first relevant
    owner = np.repeat(np.arange(len(query)), steps)
    j = np.arange(int(steps.sum())) - np.repeat(np.cumsum(steps) - steps, steps) + 1.0
    g, r = size[owner], count[owner]
    # log P(J >= j) = sum_{i < j} log((g - i + 1 - r) / (g - i + 1)), all factors positive
    factor = np.where(j > 1, np.log(np.maximum(g - j + 2 - r, 1e-300) / (g - j + 2)), 0.0)
    log_survival = segment_cumsum(owner, factor)
    survival = np.exp(log_survival)
    next_factor = (g - j + 1 - r) / (g - j + 1)
    probability = survival * (1.0 - next_factor)
    position = above[owner] + j
    cut = _cut(ctx, m.cutoff)
    value = np.where(position <= cut, probability / position, 0.0)
    out[query] = per_query_sum(owner, value, len(query))
    return out


def hit(ctx: Context, m: Measure) -> np.ndarray:
    """E[hit@k] = 1 - P(no relevant document in the top k)."""
    query, above, size, count, _ = _relevant_groups(ctx, m.param("rel"))
    cut = _cut(ctx, m.cutoff)
    slots = np.clip(cut - above, 0, size)
    # P(none of the r relevant among the first `slots` of g) = prod_{i<r} (g - slots - i)/(g - i)
    owner = np.repeat(np.arange(len(query)), count.astype(np.int64))
    i = np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count.astype(np.int64))
    factor = np.maximum(size[owner] - slots[owner] - i, 0.0) / (size[owner] - i)
    log_none = per_query_sum(owner, np.log(np.maximum(factor, 1e-300)), len(query))
    none = np.where(
        per_query_sum(owner, (factor == 0).astype(np.float64), len(query)) > 0,
        0.0,
        np.exp(log_none),
    )
    miss = np.ones(ctx.n_queries)
    np.multiply.at(miss, query, none)
    return 1.0 - miss


def rank_biased_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[RBP]: each hit's weight p^(position - 1) averaged over its group's positions."""
    from rankwise.kernels.rbp import beyond_gain, rbp_gains

    p = float(m.param("p"))
    above, size = _groups(ctx)
    last = np.maximum(np.minimum(above + size, _cut(ctx, None)), above)
    weight = (last - above) / size if p == 1.0 else (p**above - p**last) / (1.0 - p) / size
    found = per_query_sum(ctx.data.hit_query, rbp_gains(ctx, m) * weight, ctx.n_queries)
    out: np.ndarray = (1.0 - p) * found + beyond_gain(ctx, m)
    return out


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """E[relevant retrieved] (differs from the trec order only under a depth cut)."""
    return _relevant_in_top(ctx, m, _cut(ctx, None))


def set_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[set_P]."""
    return safe_divide(num_rel_ret(ctx, m), ctx.data.num_ret)


def set_recall(ctx: Context, m: Measure) -> np.ndarray:
    """E[set_recall]."""
    return safe_divide(num_rel_ret(ctx, m), ctx.view(m.param("rel")).num_rel)


def set_relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """E[set_relative_P]."""
    view = ctx.view(m.param("rel"))
    return safe_divide(num_rel_ret(ctx, m), np.minimum(ctx.data.num_ret, view.num_rel))


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """E[judged non-relevant retrieved]."""
    d = ctx.data
    nonrel = (d.hit_grade >= 0) & (d.hit_grade < m.param("rel"))
    top = _prob_in_top(ctx, _cut(ctx, None))
    return per_query_sum(d.hit_query[nonrel], top[nonrel], ctx.n_queries)


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """E[utility] (linear in the relevant retrieved)."""
    a, b, c, e = m.param("coefficients")
    rel_ret = num_rel_ret(ctx, m)
    ret = ctx.data.num_ret.astype(np.float64)
    r = ctx.view(m.param("rel")).num_rel
    out: np.ndarray = (a * rel_ret + b * (ret - rel_ret) + c * (r - rel_ret)
                       + e * (rel_ret - ret - r))
    return out


AVERAGE_KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "ndcg": ndcg,
    "dcg": dcg,
    "P": precision,
    "recall": recall,
    "relative_P": relative_precision,
    "Rprec": r_precision,
    "hit": hit,
    "rel_ret": relevant_retrieved,
    "mrr": reciprocal_rank,
    "map": average_precision,
    "gm_map": average_precision,
    "judged": judged,
    "unj": unjudged,
    "num_rel_ret": num_rel_ret,
    "num_nonrel_judged_ret": num_nonrel_judged_ret,
    "set_P": set_precision,
    "set_recall": set_recall,
    "set_relative_P": set_relative_precision,
    "utility": utility,
    "rbp": rank_biased_precision,
}

# Measures whose value does not depend on the order of the retrieved set.
_ORDER_FREE = {"num_q", "num_ret", "num_rel"}
# Non-linear in the retrieved set: order-free only without a depth cut.
_SET_ONLY = {"set_F", "set_map"}


def average_kernel(
    name: str, default: Callable[[Context, Measure], np.ndarray], depth: int | None
) -> Callable[[Context, Measure], np.ndarray]:
    """The ``ties="average"`` kernel of family *name*, or a clear error when it has none."""
    if name in AVERAGE_KERNELS:
        return AVERAGE_KERNELS[name]
    if name in _ORDER_FREE or (name in _SET_ONLY and depth is None):
        return default
    supported = ", ".join(sorted(AVERAGE_KERNELS) + sorted(_ORDER_FREE))
    raise UnsupportedMeasureError(
        f"measure {name!r} has no exact expected value over tied orderings in rankwise; "
        f"use ties='trec' (or 'worst'/'best' for bounds). ties='average' supports: {supported}"
    )
