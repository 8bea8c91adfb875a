"""Kernels of compatibility (Clarke et al. 2020) and normalised cumulative gain (NCG@k).

compat: rank-biased overlap (Webber et al. 2010) of the ranking with an
ideal ranking of the documents of positive grade, as the reference
implementation computes it (claclark/Compatibility): the ideal orders them
by grade descending, equal grades retrieved ones first in ranking order;

    RBO(a, b) = sum_{i<=D} p^(i-1) |a[:i] & b[:i]| / i  /  sum_{i<=D} p^(i-1)

with D = ``depth`` (1000) whatever the lengths of the lists, and compat =
RBO(run, ideal) / RBO(ideal, ideal) (``normalize=true``). The overlap at
depth i counts the documents whose ranks in both lists are <= i, so
RBO * norm = sum over documents in both of T(max(rank in run, rank in
ideal)) with T(m) = sum_{m<=i<=D} p^(i-1) / i: one value per relevant hit,
no loop.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import per_query_sum, rank_within_query, safe_divide
from rankwise.kernels.context import Context
from rankwise.kernels.dcg import gain_of
from rankwise.measures.spec import Measure


def _tail_sums(p: float, depth: int) -> tuple[np.ndarray, float]:
    """T(m) for m = 1..depth + 1 (T(depth + 1) = 0), and the norm sum_{i<=depth} p^(i-1)."""
    i = np.arange(1, depth + 1, dtype=np.float64)
    weights = p ** (i - 1.0)
    terms = weights / i
    tail = np.concatenate((np.cumsum(terms[::-1])[::-1], [0.0]))
    return tail, float(weights.sum())


def compat(ctx: Context, m: Measure) -> np.ndarray:
    """Compatibility of each ranking with its ideal ranking (0 without a relevant judgment)."""
    d = ctx.data
    p, depth = float(m.param("p")), int(m.param("depth"))
    tail, norm = _tail_sums(p, depth)
    # ideal ranks of the retrieved documents of positive grade
    positive = d.hit_grade > 0
    query, rank, grade = d.hit_query[positive], d.hit_rank[positive], d.hit_grade[positive]
    judged_query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    judged_positive = d.judged_grades > 0
    levels = np.unique(np.concatenate((d.judged_grades[judged_positive], grade)))
    # judged grades descending within a query: count those above each hit's grade
    level_of_judged = np.searchsorted(levels, d.judged_grades[judged_positive])
    keys = judged_query[judged_positive] * (len(levels) + 1) + (len(levels) - level_of_judged)
    hit_keys = query * (len(levels) + 1) + (len(levels) - np.searchsorted(levels, grade))
    starts = np.searchsorted(keys, query * (len(levels) + 1))
    above = np.searchsorted(keys, hit_keys) - starts
    order = np.lexsort((rank, -grade, query))  # equal grades: retrieved ones in ranking order
    among = np.empty(len(order), dtype=np.int64)
    group = query[order] * (len(levels) + 1) + np.searchsorted(levels, grade[order])
    among[order] = rank_within_query(group)
    ideal_rank = above + among
    both = np.minimum(np.maximum(rank, ideal_rank), depth + 1) - 1
    overlap = per_query_sum(query, tail[both], ctx.n_queries)
    relevant = per_query_sum(judged_query[judged_positive], None, ctx.n_queries)
    ideal_overlap = np.cumsum(tail[:-1])[np.minimum(relevant, depth).astype(np.int64) - 1]
    ideal_overlap = np.where(relevant > 0, ideal_overlap, 0.0)
    if m.param("normalize"):
        return safe_divide(overlap, ideal_overlap)
    return overlap / norm


def ncg(ctx: Context, m: Measure) -> np.ndarray:
    """NCG@k = sum of gains in the top k / sum of the k largest judged gains; 0 when that is 0."""
    d = ctx.data
    gains = gain_of(d.hit_grade, m)
    top = np.ones(len(gains), dtype=bool) if m.cutoff is None else d.hit_rank <= m.cutoff
    found = per_query_sum(d.hit_query[top], gains[top], ctx.n_queries)
    query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    ideal = gain_of(d.judged_grades, m)
    order = np.lexsort((-ideal, query))
    query, ideal = query[order], ideal[order]
    keep = ideal > 0
    if m.cutoff is not None:
        keep &= rank_within_query(query) <= m.cutoff
    return safe_divide(found, per_query_sum(query[keep], ideal[keep], ctx.n_queries))


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "compat": compat,
    "ncg": ncg,
}
"""Measure family -> kernel."""
