"""Kernels of compatibility (Clarke et al. 2020) and normalised cumulative gain (NCG@k).

compat: rank-biased overlap (Webber et al. 2010) of the ranking with an
ideal ranking of the documents of positive grade, as the reference
implementation computes it (claclark/Compatibility): the ideal orders them
by grade descending, equal grades retrieved ones first in ranking order;

    RBO(a, b) = sum_{i<=D} p^(i-1) |a[:i] & b[:i]| / i  /  sum_{i<=D} p^(i-1)

with D = ``depth`` (1000) whatever the lengths of the lists (``depth=run``:
per query, the longer of the ranking and the ideal, as ir_measures), and compat =
RBO(run, ideal) / RBO(ideal, ideal) (``normalize=true``). The overlap at
depth i counts the documents whose ranks in both lists are <= i, so
RBO * norm = sum over documents in both of T(max(rank in run, rank in
ideal)) with T(m) = sum_{m<=i<=D} p^(i-1) / i: one value per relevant hit,
no loop.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.kernels._segments import per_query_sum, rank_within_query, safe_divide
from rankwise.kernels.context import Context
from rankwise.kernels.dcg import gain_of
from rankwise.measures.spec import Measure


def _tail_sums(p: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """T(m) for m = 1..depth + 1 (T(depth + 1) = 0), and sum_{i<=j} p^(i-1) for j = 1..depth."""
    i = np.arange(1, depth + 1, dtype=np.float64)
    weights = p ** (i - 1.0)
    terms = weights / i
    tail = np.concatenate((np.cumsum(terms[::-1])[::-1], [0.0]))
    return tail, np.cumsum(weights)


def _ideal_ranks(ctx: Context, m: Measure, positive: np.ndarray) -> np.ndarray:
    """The rank in the ideal ranking of each retrieved document of positive grade.

    The ideal lists the documents of positive grade by grade descending; equal
    grades: ``ideal=retrieved`` (the reference) the retrieved ones first, in
    ranking order; ``ideal=score`` (ir_measures) by the run's score descending,
    an unretrieved document's taken as 0, then in the order of the judgments
    (:func:`_ideal_ranks_by_score`).
    """
    d = ctx.data
    if m.param("ideal") == "score" and d.judged_rows is not None and d.hit_judged is not None:
        return _ideal_ranks_by_score(ctx, m, positive)
    query, rank, grade = d.hit_query[positive], d.hit_rank[positive], d.hit_grade[positive]
    judged_query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    judged_positive = d.judged_grades > 0
    levels = np.unique(np.concatenate((d.judged_grades[judged_positive], grade)))
    width = len(levels) + 1
    # judged grades descending within a query: count those above each hit's grade
    level_of_judged = np.searchsorted(levels, d.judged_grades[judged_positive])
    keys = judged_query[judged_positive] * width + (len(levels) - level_of_judged)
    hit_keys = query * width + (len(levels) - np.searchsorted(levels, grade))
    starts = np.searchsorted(keys, query * width)
    above = np.searchsorted(keys, hit_keys) - starts
    if m.param("ideal") == "score":
        if d.hit_score is None:
            raise InvalidParameterError(
                f"{m}: ideal=score orders the ideal by the run's scores, which this "
                "evaluation did not keep; use ideal=retrieved"
            )
        score = d.hit_score[positive]
        kind = np.where(score > 0, 0, np.where(score == 0, 1, 2))
    else:
        kind = np.zeros(len(rank), dtype=np.int64)
    order = np.lexsort((rank, kind, hit_keys))
    among = np.empty(len(order), dtype=np.int64)
    among[order] = rank_within_query(hit_keys[order])
    ideal_rank: np.ndarray = above + among
    late = kind == 2  # after the unretrieved documents of their grade
    if late.any():
        size = np.searchsorted(keys, hit_keys, side="right") - starts - above
        _, inverse, retrieved = np.unique(hit_keys, return_inverse=True, return_counts=True)
        ideal_rank[late] += (size - retrieved[inverse])[late]
    return ideal_rank


def _ideal_ranks_by_score(ctx: Context, m: Measure, positive: np.ndarray) -> np.ndarray:
    """``ideal=score``, as ir_measures sorts its ideal: by grade, score, then judgments' order.

    ir_measures lists a query's documents of positive grade in the order of
    its judgments, sorts them by the run's score descending (0 for one not
    retrieved), then by grade descending, both sorts stable.
    """
    d = ctx.data
    if d.hit_score is None or d.hit_judged is None or d.judged_rows is None:
        raise InvalidParameterError(
            f"{m}: ideal=score orders the ideal by the run's scores, which this "
            "evaluation did not keep; use ideal=retrieved"
        )
    judged_query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    score = np.zeros(len(d.judged_grades))
    score[d.hit_judged] = d.hit_score
    order = np.lexsort((d.judged_rows, -score, -d.judged_grades, judged_query))
    ideal = np.empty(len(order), dtype=np.int64)
    ideal[order] = rank_within_query(judged_query[order])
    out: np.ndarray = ideal[d.hit_judged[positive]]
    return out


def compat(ctx: Context, m: Measure) -> np.ndarray:
    """Compatibility of each ranking with its ideal ranking (0 without a relevant judgment)."""
    d = ctx.data
    p = float(m.param("p"))
    judged_query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    relevant = per_query_sum(judged_query[d.judged_grades > 0], None, ctx.n_queries)
    relevant = relevant.astype(np.int64)
    if m.param("depth") == "run":  # ir_measures: the longer of the ranking and the ideal
        depths = np.maximum(np.asarray(d.num_ret, dtype=np.int64), relevant)
    else:
        depths = np.full(ctx.n_queries, int(m.param("depth")), dtype=np.int64)
    depth = max(int(depths.max(initial=0)), 1)
    tail, norms = _tail_sums(p, depth)
    # with a query's depth D <= depth: T_D(j) = tail[j - 1] - tail[D] for j <= D, else 0
    positive = d.hit_grade > 0
    query, rank = d.hit_query[positive], d.hit_rank[positive]
    both = np.maximum(rank, _ideal_ranks(ctx, m, positive))
    own = depths[query]
    term = np.where(both <= own, tail[np.minimum(both, depth + 1) - 1] - tail[own], 0.0)
    overlap = per_query_sum(query, term, ctx.n_queries)
    shared = np.minimum(relevant, depths)
    ideal_overlap = np.cumsum(tail[:-1])[np.maximum(shared, 1) - 1] - shared * tail[depths]
    ideal_overlap = np.where(relevant > 0, ideal_overlap, 0.0)
    if m.param("normalize"):
        return safe_divide(overlap, ideal_overlap)
    out: np.ndarray = overlap / norms[np.maximum(depths, 1) - 1]
    return out


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
