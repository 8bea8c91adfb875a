"""Kernels of trec_eval's other measures: bpref, infAP, utility, rbp, G, binG, ...

Each follows trec_eval 10.0's definition (see the docstrings), vectorised
over all queries. In trec_eval's terms a retrieved document is *unjudged*
when it is not in the judgments, *unjudged in pool* when its grade is
negative, *non-relevant* when its grade is in [0, rel) and *relevant* when it
is >= rel.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import per_query_sum, rank_within_query, safe_divide
from rankwise.kernels.context import Context
from rankwise.kernels.core import gain_of
from rankwise.measures.spec import Measure

INFAP_EPSILON = 1e-5


def segment_cumsum(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Cumulative sum of *values* within each query (entries sorted by query)."""
    total = np.cumsum(values)
    if len(values) == 0:
        return total
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    before = np.concatenate(([0.0], total))[starts]
    lengths = np.diff(np.append(starts, len(values)))
    return total - np.repeat(before, lengths)


def _counts_above(ctx: Context, indicator: np.ndarray) -> np.ndarray:
    """Per hit, how many earlier hits of its query have *indicator* set."""
    d = ctx.data
    return segment_cumsum(d.hit_query, indicator.astype(np.float64)) - indicator


def bpref(ctx: Context, m: Measure) -> np.ndarray:
    """Bpref = (1/R) sum over relevant retrieved r of 1 - min(n_r, R) / min(N, R).

    n_r counts judged non-relevant documents (grade in [0, rel)) ranked above r;
    N counts them in the judgments.
    """
    d = ctx.data
    view = ctx.view(m.param("rel"))
    nonrel = (d.hit_grade >= 0) & ~view.is_rel
    above = _counts_above(ctx, nonrel)[view.is_rel]
    query = view.rel_query
    judged_query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    judged_nonrel = (d.judged_grades >= 0) & (d.judged_grades < view.rel)
    n_nonrel = per_query_sum(judged_query[judged_nonrel], None, ctx.n_queries)
    r = view.num_rel[query]
    penalty = safe_divide(np.minimum(above, r), np.minimum(n_nonrel[query], r))
    term = np.where(above > 0, 1.0 - penalty, 1.0)
    return safe_divide(per_query_sum(query, term, ctx.n_queries), view.num_rel)


def inferred_ap(ctx: Context, m: Measure) -> np.ndarray:
    """InfAP (Yilmaz & Aslam 2006), as trec_eval computes it.

    For a relevant document at 0-based position j with r relevant, n judged
    non-relevant and u unjudged-in-pool (negative grade) documents above:
    1 when j = 0, else 1/(j+1) + j/(j+1) * (r+n+u)/j * (r+eps)/(r+n+2 eps);
    summed and divided by R. Documents not in the judgments count only in j.
    """
    d = ctx.data
    view = ctx.view(m.param("rel"))
    nonrel = (d.hit_grade >= 0) & ~view.is_rel
    pooled = d.hit_grade < 0
    n_above = _counts_above(ctx, nonrel)[view.is_rel]
    u_above = _counts_above(ctx, pooled)[view.is_rel]
    r_above = view.rel_index - 1.0
    j = view.rel_rank - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r_above + n_above + u_above) / j) * (
            (r_above + INFAP_EPSILON) / (r_above + n_above + 2 * INFAP_EPSILON)
        )
    term = np.where(j == 0, 1.0, term)
    return safe_divide(per_query_sum(view.rel_query, term, ctx.n_queries), view.num_rel)


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """A * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret.

    The collection size is unknown, so the last term uses 0 documents in the
    collection, as trec_eval does without ``-N``.
    """
    a, b, c, e = m.param("coefficients")
    view = ctx.view(m.param("rel"))
    rel_ret, ret, r = view.num_rel_ret, ctx.data.num_ret.astype(np.float64), view.num_rel
    return a * rel_ret + b * (ret - rel_ret) + c * (r - rel_ret) + e * (rel_ret - ret - r)


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


def _discount(rank: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(rank + 1.0)


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


def rbp_gains(ctx: Context, m: Measure) -> np.ndarray:
    """Per hit, the gain RBP uses: trec_eval's per-query rescaling to [0, 1].

    The gains of a query are its grade levels 0..max (or the ``gains``
    given); when one lies outside [0, 1], all are rescaled to
    (g - min) / (max - min).
    """
    d = ctx.data
    gains = np.where(d.hit_grade >= 0, gain_of(d.hit_grade, m), 0.0)
    n = ctx.n_queries
    sizes = np.diff(d.judged_offsets)
    first = np.minimum(d.judged_offsets[:-1], max(len(d.judged_grades) - 1, 0))
    top_grade = np.where(sizes > 0, d.judged_grades[first] if len(d.judged_grades) else 0.0, -1.0)
    levels = np.arange(0.0, max(float(top_grade.max()) if n else 0.0, 0.0) + 1.0)
    level_gains = gain_of(levels, m)
    present = levels[None, :] <= np.floor(top_grade)[:, None]
    explicit = np.array(
        [gain for _, gain in m.param("gains")] if "gains" in m.family.params else []
    )
    low = np.where(present, level_gains[None, :], np.inf).min(axis=1)
    high = np.where(present, level_gains[None, :], -np.inf).max(axis=1)
    if len(explicit):
        low, high = np.minimum(low, explicit.min()), np.maximum(high, explicit.max())
    low = np.where(np.isfinite(low), low, 0.0)
    high = np.where(np.isfinite(high), high, 0.0)
    rescale = (low < 0) | (high > 1)
    q = d.hit_query
    scaled = np.where(rescale[q], safe_divide(gains - low[q], (high - low)[q]), gains)
    return np.where(d.hit_grade >= 0, scaled, 0.0)


def rank_biased_precision(ctx: Context, m: Measure) -> np.ndarray:
    """RBP = (1 - p) sum_i gain_i p^(i-1) (Moffat & Zobel 2008), gains as :func:`rbp_gains`."""
    d = ctx.data
    p = float(m.param("p"))
    weight = p ** (d.hit_rank - 1.0)
    return (1.0 - p) * per_query_sum(d.hit_query, rbp_gains(ctx, m) * weight, ctx.n_queries)


def rbp_residual(ctx: Context, m: Measure) -> np.ndarray:
    """RBP residual: p^n + (1 - p) * sum of p^(i-1) over unjudged ranks i; 0 with none unjudged."""
    d = ctx.data
    p = float(m.param("p"))
    n = d.num_ret.astype(np.float64)
    judged = d.hit_grade >= 0
    all_weight = (1.0 - p**n) / (1.0 - p) if p != 1.0 else n
    judged_weight = per_query_sum(
        d.hit_query[judged], p ** (d.hit_rank[judged] - 1.0), ctx.n_queries
    )
    unjudged = n - per_query_sum(d.hit_query[judged], None, ctx.n_queries)
    value = p**n + (1.0 - p) * (all_weight - judged_weight)
    return np.where(unjudged > 0, value, 0.0)


def unjudged_at(ctx: Context, m: Measure) -> np.ndarray:
    """unj@k = documents in the top k that are unjudged or have a negative grade, / k."""
    d = ctx.data
    k = int(m.cutoff)  # type: ignore[arg-type]
    top = min(k, 1 << 62)
    judged_top = (d.hit_rank <= top) & (d.hit_grade >= 0)
    shown = np.minimum(d.num_ret, k).astype(np.float64)
    return (shown - per_query_sum(d.hit_query[judged_top], None, ctx.n_queries)) / k


def relevance_string(ctx: Context, m: Measure) -> np.ndarray:
    """One character per rank of the top k.

    The grade (``>`` above 9), ``-`` for an unjudged document, ``.`` for a
    negative grade (trec_eval's relstring).
    """
    d = ctx.data
    k = 10 if m.cutoff is None else int(m.cutoff)
    length = np.minimum(d.num_ret, k)
    chars = np.full((ctx.n_queries, max(k, 1)), ord("-"), dtype=np.uint8)
    top = d.hit_rank <= k
    grades = d.hit_grade[top]
    code = np.where(
        grades > 9, ord(">"), np.where(grades >= 0, ord("0") + np.clip(grades, 0, 9), ord("."))
    )
    chars[d.hit_query[top], d.hit_rank[top] - 1] = code.astype(np.uint8)
    chars[np.arange(max(k, 1))[None, :] >= length[:, None]] = 0
    return np.ascontiguousarray(chars).view(f"S{max(k, 1)}")[:, 0].astype(str).astype(object)


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "bpref": bpref,
    "gm_bpref": bpref,
    "infAP": inferred_ap,
    "utility": utility,
    "binG": binary_g,
    "G": graded_g,
    "ndcg_rel": ndcg_rel,
    "Rndcg": r_ndcg,
    "rbp": rank_biased_precision,
    "rbp_resid": rbp_residual,
    "unj": unjudged_at,
    "relstring": relevance_string,
}
