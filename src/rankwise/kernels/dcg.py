"""Kernels of the gain-based measures: DCG, nDCG, and trec_eval's binG, G, ndcg_rel, Rndcg.

The gain of a grade is set by the measure's ``gain`` (``exp``: 2^g - 1, the
default of rankwise's ``ndcg``; ``linear``: g, trec_eval's) and ``gains``
(explicit gains per grade); the discount is 1 / log2(rank + 1). One value per
evaluated query; no Python loop per query or per document.

Large grades and the exponential gain: 2^g - 1 is exact in float64 for
integer g up to 53 bits of it, rounds like any float beyond, and overflows to
infinity from g = 1024 on (an ideal DCG of two documents of grade 1023
overflows already). nDCG is a ratio, so each query's gains are scaled by
2^-s with s = max(0, max grade of the query - 512): the gain of g becomes
2^(g - s) - 2^-s. Scaling by a power of two is exact in floating point, so a
query whose grades stay at or below 512 gets the same bits as without
scaling, and above it DCG / IDCG is still the correctly computed ratio
(terms smaller than 2^-1000 of the largest vanish, as they would in any sum
with it). ``dcg`` itself is not a ratio: a value beyond float64's range is
refused with an error rather than returned as infinity.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.exceptions import UnsupportedMeasureError
from rankwise.kernels._segments import (
    per_query_sum,
    rank_within_query,
    running_sum,
    safe_divide,
    segment_cumsum,
    sums_through_cutoffs,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

EXP_SCALE_ABOVE = 512.0
"""Queries with a grade above this have their exponential gains scaled (see the module)."""


def is_exponential(m: Measure) -> bool:
    """Whether *m* uses the exponential gain 2^g - 1 (``ndcg``, ``dcg`` by default)."""
    return "gain" in m.family.params and m.param("gain") == "exp"


def gain_of(grades: np.ndarray, m: Measure, shift: np.ndarray | None = None) -> np.ndarray:
    """The gain of each grade under the measure's ``gain`` and ``gains`` parameters.

    Negative grades (judged, never relevant) have gain 0 unless ``gains``
    names them; ``gains`` overrides the gain of the grades it lists.
    *shift* (one value per grade, from :func:`exp_shift`) scales the
    exponential gains by 2^-shift, so they stay finite; without it they are
    2^g - 1.
    """
    params = m.family.params
    kind = m.param("gain") if "gain" in params else "linear"
    positive = np.maximum(grades, 0.0)
    if kind == "exp" and shift is not None:
        gains: np.ndarray = np.exp2(positive - shift) - np.exp2(-shift)
    elif kind == "exp":  # in place: positive is a fresh array
        gains = np.exp2(positive, out=positive) if positive.dtype == np.float64 else \
            np.exp2(positive)
        gains -= 1.0
    else:
        gains = positive.astype(np.float64, copy=False)
    explicit = m.param("gains") if "gains" in params else ()
    for grade, value in explicit:
        scaled = value * np.exp2(-shift) if kind == "exp" and shift is not None else value
        gains = np.where(grades == grade, scaled, gains)
    return gains


def exp_shift(ctx: Context, m: Measure) -> np.ndarray | None:
    """Per query, the power of two its exponential gains are divided by (None: no query needs it).

    s = max(0, max judged grade of the query - 512): 0 (no scaling at all)
    for every query whose grades stay at or below 512.
    """
    d = ctx.data
    grades = d.judged_grades
    if not is_exponential(m) or len(grades) == 0 or not np.max(grades) > EXP_SCALE_ABOVE:
        return None
    top = np.full(d.n_queries, -np.inf)
    query = np.repeat(np.arange(d.n_queries), np.diff(d.judged_offsets))
    np.maximum.at(top, query, grades)
    return np.maximum(top - EXP_SCALE_ABOVE, 0.0)


def _discounted(gains: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Each gain divided by log2(rank + 1).

    Divided, as trec_eval does: a product with 1 / log2(rank + 1) can differ
    in the last bit.
    """
    scale: np.ndarray = np.add(rank, 1.0)
    np.log2(scale, out=scale)
    if scale.dtype == np.float64 and scale.shape == np.shape(gains):
        np.divide(gains, scale, out=scale)  # in place: the same quotients
        return scale
    quotient: np.ndarray = gains / scale
    return quotient


def discounted_sum(
    query: np.ndarray, rank: np.ndarray, gains: np.ndarray, n_queries: int
) -> np.ndarray:
    """DCG's sum: per query, the sum of ``gain / log2(rank + 1)`` over its entries.

    The one place DCG is summed: the kernels below, the ideal rankings and
    the tutorial functions of :mod:`rankwise.metrics` call it with their gains.

    Examples
    --------
    >>> discounted_sum(np.array([0, 0, 1]), np.array([1, 2, 1]), np.array([3.0, 1.0, 1.0]), 2)
    array([3.63092975, 1.        ])
    """
    return per_query_sum(query, _discounted(gains, rank), n_queries)


def dcg_values(
    ctx: Context, m: Measure, cutoff: int | None, shift: np.ndarray | None = None
) -> np.ndarray:
    """DCG of each query's ranking, to *cutoff* (times 2^-shift of the query, with *shift*)."""
    d = ctx.data
    gains = gain_of(d.hit_grade, m, None if shift is None else shift[d.hit_query])
    keep = gains != 0
    if cutoff is not None:
        keep &= d.hit_rank <= cutoff
    return discounted_sum(d.hit_query[keep], d.hit_rank[keep], gains[keep], ctx.n_queries)


def _ideal_order(
    ctx: Context, m: Measure, shift: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = ctx.data
    query = np.repeat(np.arange(d.n_queries), np.diff(d.judged_offsets))
    gains = gain_of(d.judged_grades, m, None if shift is None else shift[query])
    positive = gains > 0
    if not positive.all():  # usually every judged document has a gain: nothing copied
        query, gains = query[positive], gains[positive]
    if not _descending_within(query, gains):  # judged grades come descending: gains mostly do
        order = np.lexsort((-gains, query))
        query, gains = query[order], gains[order]
    return query, gains, rank_within_query(query)


def _descending_within(query: np.ndarray, values: np.ndarray) -> bool:
    """Whether *values* never rise within a query (*query* sorted ascending).

    Examples
    --------
    >>> _descending_within(np.array([0, 0, 1, 1]), np.array([3.0, 1.0, 7.0, 7.0]))
    True
    >>> _descending_within(np.array([0, 0, 1]), np.array([1.0, 3.0, 7.0]))
    False
    """
    rises = (values[1:] > values[:-1]) & (query[1:] == query[:-1])
    return not bool(rises.any())


def ideal_dcg_values(
    ctx: Context, m: Measure, cutoff: np.ndarray | int | None, shift: np.ndarray | None = None
) -> np.ndarray:
    """DCG of the ideal ranking: every judged document by gain, descending, to *cutoff*.

    With *shift*, each query's value is scaled by 2^-shift (see :func:`exp_shift`).
    """
    grades = ctx.data.judged_grades
    if shift is None and not isinstance(cutoff, np.ndarray) and len(grades) and \
            grades.min() == grades.max():
        return _ideal_of_one_grade(ctx, m, cutoff, float(grades.max()))
    query, gains, position = _ideal_order(ctx, m, shift)
    if cutoff is not None:
        limit = cutoff[query] if isinstance(cutoff, np.ndarray) else cutoff
        keep = position <= limit
        if not keep.all():  # every judged document within the cutoff: nothing copied
            query, position, gains = query[keep], position[keep], gains[keep]
    return discounted_sum(query, position, gains, ctx.n_queries)


def _ideal_of_one_grade(ctx: Context, m: Measure, cutoff: int | None, grade: float
                        ) -> np.ndarray:
    """The ideal DCG when every judgment has one grade: one running sum for every query.

    A query's ideal ranking is its n judged documents at ranks 1..n, each
    with the same gain g: its DCG to the cutoff c is the sum of
    ``g / log2(r + 1)`` over r = 1..min(n, c), added in that order, which is
    the running sum of those terms at min(n, c), to the bit (no array of a
    judgment each).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from rankwise.measures import parse
    >>> data = SimpleNamespace(judged_offsets=np.array([0, 3, 4]))
    >>> ctx = SimpleNamespace(data=data, n_queries=2)
    >>> _ideal_of_one_grade(ctx, parse("ndcg@2"), 2, 1.0).round(4).tolist()
    [1.6309, 1.0]
    """
    gain = float(gain_of(np.array([grade]), m)[0])
    if not gain > 0:  # no judged document has a gain: an ideal DCG of 0
        return np.zeros(ctx.n_queries)
    depth = np.diff(ctx.data.judged_offsets)
    if cutoff is not None:
        depth = np.minimum(depth, max(int(cutoff), 0))
    top = int(depth.max()) if len(depth) else 0
    sums = np.zeros(top + 1)
    np.cumsum(_discounted(np.full(top, gain), np.arange(1, top + 1)), out=sums[1:])
    ideal: np.ndarray = sums[depth]
    return ideal


def unscale(values: np.ndarray, shift: np.ndarray | None, m: Measure) -> np.ndarray:
    """DCG values computed with *shift*, times 2^shift; an error when one exceeds float64."""
    if shift is None:
        return values
    with np.errstate(over="ignore"):
        out: np.ndarray = values * np.exp2(shift if values.ndim == 1 else shift[np.newaxis, :])
    if not np.all(np.isfinite(out)):
        top = float(np.max(shift)) + EXP_SCALE_ABOVE
        raise UnsupportedMeasureError(
            f"{str(m)!r}: a grade of {top:g} with the gain 2^grade - 1 makes DCG larger "
            "than the largest float64 (about 2^1024); use ndcg (a ratio, computed exactly "
            f"at any grade) or {m.family.name}(gain=linear)"
        )
    return out


def dcg(ctx: Context, m: Measure) -> np.ndarray:
    """DCG@k = sum over the top k of gain(grade) / log2(rank + 1)."""
    shift = exp_shift(ctx, m)
    return unscale(dcg_values(ctx, m, m.cutoff, shift), shift, m)


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k; 0 when IDCG is 0 (both scaled alike at large grades)."""
    shift = exp_shift(ctx, m)
    return safe_divide(
        dcg_values(ctx, m, m.cutoff, shift), ideal_dcg_values(ctx, m, m.cutoff, shift)
    )


def _dcg_through_cutoffs(
    ctx: Context, m: Measure, cutoffs: np.ndarray, shift: np.ndarray | None
) -> np.ndarray:
    d = ctx.data
    gains = gain_of(d.hit_grade, m, None if shift is None else shift[d.hit_query])
    keep = gains != 0
    return sums_through_cutoffs(
        d.hit_query[keep], d.hit_rank[keep], _discounted(gains[keep], d.hit_rank[keep]),
        ctx.n_queries, cutoffs,
    )


def dcg_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """DCG@k for every k of *cutoffs* at once (one row per cutoff): :func:`dcg`'s numbers."""
    shift = exp_shift(ctx, m)
    return unscale(_dcg_through_cutoffs(ctx, m, cutoffs, shift), shift, m)


def ndcg_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """nDCG@k for every k of *cutoffs* at once (one row per cutoff): :func:`ndcg`'s numbers."""
    shift = exp_shift(ctx, m)
    query, gains, position = _ideal_order(ctx, m, shift)
    ideal = sums_through_cutoffs(query, position, _discounted(gains, position), ctx.n_queries,
                                 cutoffs)
    return safe_divide(_dcg_through_cutoffs(ctx, m, cutoffs, shift), ideal)


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
        """Prefix sums of ``gains * weights`` within each query."""
        return segment_cumsum(self.query, self.gains * weights)

    def dcg_through(self) -> np.ndarray:
        """Per position, the ideal DCG through it, summed as trec_eval sums it."""
        return running_sum(self.query, _discounted(self.gains, self.position.astype(np.float64)))

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
    dcg_through = running_sum(d.hit_query, _discounted(gains, d.hit_rank))
    ideal_cumulative = ideal.dcg_through()
    positive = gains > 0
    q = d.hit_query[positive]
    idcg = ideal.prefix_at(ideal_cumulative, q, d.hit_rank[positive])
    terms = safe_divide(dcg_through[positive], idcg)
    total = per_query_sum(q, terms, ctx.n_queries)
    queries = np.arange(ctx.n_queries)
    full_dcg = per_query_sum(d.hit_query, _discounted(gains, d.hit_rank), ctx.n_queries)
    full_idcg = ideal.prefix_at(ideal_cumulative, queries, ideal.count)
    found = per_query_sum(q, None, ctx.n_queries)
    total += safe_divide((ideal.count - found) * full_dcg, full_idcg)  # trec_eval's grouping
    return np.where(total > 0, safe_divide(total, ideal.count.astype(np.float64)), 0.0)


def r_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """Rndcg (trec_eval): mean nDCG@i over the ranks i where the ideal gain changes.

    Those ranks are the last position of each gain level of the ideal ranking
    (the last being Rg, the number of positive-gain documents); when at least
    Rg + 2 documents were retrieved, nDCG over the whole ranking is added too.
    0 when no document is relevant at the relevance level; NaN, as trec_eval's
    0 / 0, when some are but no rank counts (every gain 0: ``Rndcg.1=0``).
    """
    d = ctx.data
    ideal = _Ideal(ctx, m)
    n = ctx.n_queries
    gains = np.where(d.hit_grade >= 0, gain_of(d.hit_grade, m), 0.0)
    weighted = _discounted(gains, d.hit_rank)
    ideal_cumulative = ideal.dcg_through()
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
    value = np.where(count > 0, safe_divide(total, count), np.nan)
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
    cumulative = running_sum(hit_query, weighted)
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
