"""Kernels of the measures read from the ranks of relevant documents: AP, RR, bpref, infAP.

In trec_eval's terms a retrieved document is *unjudged* when it is not in the
judgments, *unjudged in pool* when its grade is negative, *non-relevant* when
its grade is in [0, rel) and *relevant* when it is >= rel. One value per
evaluated query; no Python loop per query or per document.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import (
    first_per_query,
    per_query_sum,
    safe_divide,
    segment_cumsum,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

INFAP_EPSILON = 1e-5


def precision_sums(
    rel_query: np.ndarray, rel_rank: np.ndarray, rel_index: np.ndarray, n_queries: int,
    cutoff: int | None = None,
) -> np.ndarray:
    """AP's sum: per query, the precision at each relevant rank <= *cutoff*, summed.

    *rel_query*, *rel_rank*: the query and rank of each relevant document
    retrieved (sorted by query, then rank); *rel_index*: its 1-based position
    among them, so that precision at its rank is ``rel_index / rel_rank``. AP
    is this sum over R. The one place it is computed (this module's kernel,
    :func:`rankwise.metrics.average_precision`).

    Examples
    --------
    >>> precision_sums(np.array([0, 0]), np.array([1, 3]), np.array([1, 2]), 1).round(4)
    array([1.6667])
    """
    contribution = rel_index / rel_rank
    if cutoff is not None:
        contribution = np.where(rel_rank <= cutoff, contribution, 0.0)
    return per_query_sum(rel_query, contribution, n_queries)


def reciprocal_ranks(
    rel_query: np.ndarray, rel_rank: np.ndarray, n_queries: int, cutoff: int | None = None
) -> np.ndarray:
    """Per query, 1 / the rank of its first relevant document within *cutoff* (0 if none).

    Examples
    --------
    >>> reciprocal_ranks(np.array([0, 0, 2]), np.array([3, 4, 1]), 3)
    array([0.33333333, 0.        , 1.        ])
    """
    first = first_per_query(rel_query, rel_rank.astype(np.float64), n_queries, np.inf)
    if cutoff is not None:
        first = np.where(first <= cutoff, first, np.inf)
    return 1.0 / first


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """AP (map, map@k): (1/R) * sum over relevant hits ranked <= k of (their index / rank)."""
    view = ctx.view(m.param("rel"))
    return safe_divide(
        precision_sums(view.rel_query, view.rel_rank, view.rel_index, ctx.n_queries, m.cutoff),
        view.num_rel,
    )


def reciprocal_rank(ctx: Context, m: Measure) -> np.ndarray:
    """RR (mrr, mrr@k): 1 / rank of the first relevant document within the top k."""
    view = ctx.view(m.param("rel"))
    return reciprocal_ranks(view.rel_query, view.rel_rank, ctx.n_queries, m.cutoff)


def _counts_above(ctx: Context, indicator: np.ndarray) -> np.ndarray:
    """Per hit, how many earlier hits of its query have *indicator* set."""
    d = ctx.data
    out: np.ndarray = segment_cumsum(d.hit_query, indicator.astype(np.float64)) - indicator
    return out


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


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "map": average_precision,
    "gm_map": average_precision,
    "mrr": reciprocal_rank,
    "bpref": bpref,
    "gm_bpref": bpref,
    "infAP": inferred_ap,
}
"""Measure family -> kernel."""
