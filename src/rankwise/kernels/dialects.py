"""Kernels that follow a :class:`~rankwise.measures.dialects.Conventions` record.

One kernel per measure family, reading every convention from the record it
is given: the tie rule, what is relevant, the gain, where the ideal DCG and
R come from, the denominators, the value of an empty query, the arithmetic.
The ranking it receives was built for the record
(:func:`rankwise.measures.dialects.ranking_key`: tie order, float32 scores,
documents dropped), so ranks under ``ties="docno"``, ``"input"`` or ``"ranx"`` are read
as they are; the other tie rules are computed here from the tie groups.

A query left out (``empty="skip"``) has the value NaN. Everything is
vectorised over all queries and hits; no Python loop per query.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np

from rankwise.exceptions import UnsupportedMeasureError
from rankwise.kernels import err as _err
from rankwise.kernels._segments import (
    per_query_sum,
    rank_within_query,
    safe_divide,
    segment_cumsum,
)
from rankwise.kernels.context import Context
from rankwise.kernels.dcg import EXP_SCALE_ABOVE, unscale
from rankwise.measures.dialects import ABOVE_HALF, Conventions, conventions_of
from rankwise.measures.spec import Measure

__all__ = ["DIALECT_KERNELS", "OWN_FAMILIES", "compute_with", "coverage", "measure_for"]

DialectKernel = Callable[[Context, Measure, Conventions], np.ndarray]

_T = TypeVar("_T")


class _Hits:
    """The hits of one context, ranked under one record's tie rule and cut at the depth.

    The context's hits come sorted by (query, rank); they stay in that order
    unless the tie rule reorders tied documents (``low_first``,
    ``high_first``). Under ``average`` and ``group_end`` a hit's rank is the
    last rank of its tie group.
    """

    def __init__(self, ctx: Context, c: Conventions) -> None:
        d = ctx.data
        self.n_queries = ctx.n_queries
        query, grade = d.hit_query, d.hit_grade
        above, size = d.tie_above, d.tie_size
        score = d.hit_score
        reorder = False
        if c.ties in ("docno", "input", "ranx"):
            rank = d.hit_rank
        elif c.ties in ("low_first", "high_first"):
            rank = _bound_ranks(query, grade, above, size, d.hit_rank, c.ties == "low_first")
            reorder = bool((size > 1).any())
        else:  # average, group_end: a rank per document is not defined; the group end bounds it
            rank = above + size
        if d.depth is not None:
            keep = (above < d.depth) if c.ties in ("average", "group_end") else (rank <= d.depth)
            query, rank, grade, above, size = (a[keep] for a in (query, rank, grade, above, size))
            score = None if score is None else score[keep]
        if reorder:
            order = np.lexsort((rank, query))
            query, rank, grade, above, size = (a[order] for a in (query, rank, grade, above, size))
            score = None if score is None else score[order]
        self.query = query
        self.rank = rank.astype(np.int64, copy=False)
        self.grade = grade
        self.above = above.astype(np.int64, copy=False)
        self.size = size.astype(np.int64, copy=False)
        self._score = score
        self.num_ret = d.num_ret.astype(np.int64, copy=False)
        self.depth = d.depth
        self.ties = c.ties
        self.data = d

    @property
    def score(self) -> np.ndarray:
        """Per hit, its score (1 where the engine kept none)."""
        return self._score if self._score is not None else np.ones(len(self.query))

    def static(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """What *make* derives from the judgments alone, made once per set of judgments.

        The ranking's cache holds it, shared by its views and, in training
        loops, by the rankings of every round (:class:`~rankwise.ranking.arrays.GroupedRows`).
        """
        cache = self.data.cache
        if key not in cache:
            value = make()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False  # shared: nobody may change it
            cache[key] = value
        made: _T = cache[key]
        return made

    def judged(self) -> tuple[np.ndarray, np.ndarray]:
        """(query, grade) of every judgment of the evaluated queries, grades descending."""
        d = self.data
        query = self.static(
            ("judged query",),
            lambda: np.repeat(np.arange(self.n_queries), np.diff(d.judged_offsets)),
        )
        return query, d.judged_grades

    def list_is_judged(self) -> bool:
        """Whether every retrieved document is judged and every judgment retrieved.

        Then the retrieved list and the judgments are the same documents (the
        training-loop data of :mod:`rankwise.ranking.arrays`): the list's
        ideal is the judgments', already sorted.
        """
        d = self.data
        counts = np.diff(d.judged_offsets)
        return (
            self.depth is None
            and len(self.query) == len(d.judged_grades)
            and bool(np.array_equal(counts, self.num_ret))
        )


def _bound_ranks(
    query: np.ndarray,
    grade: np.ndarray,
    above: np.ndarray,
    size: np.ndarray,
    base_rank: np.ndarray,
    low_first: bool,
) -> np.ndarray:
    """Ranks with each tie group ordered by grade: ascending (pessimistic) or descending.

    Unjudged documents of a group have grade 0: they come after the negative
    grades and before the others when ascending, after the positive ones and
    the zeros when descending.
    """
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    key = grade if low_first else -grade
    order = np.lexsort((base_rank, key, above, query))
    q, a = query[order], above[order]
    new_group = np.concatenate(([True], (q[1:] != q[:-1]) | (a[1:] != a[:-1])))
    starts = np.flatnonzero(new_group)
    group_id = np.cumsum(new_group) - 1
    index = np.arange(len(order)) - starts[group_id]
    judged_in_group = np.diff(np.append(starts, len(order)))[group_id]
    unjudged = size[order] - judged_in_group
    g = grade[order]
    before = (g >= 0) if low_first else (g < 0)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = a + 1 + index + np.where(before, unjudged, 0)
    return rank


def _empty_value(c: Conventions) -> float:
    return {"0": 0.0, "1": 1.0, "skip": np.nan}[c.empty]


def _relevant(hits: _Hits, rel: float, c: Conventions, gated: bool) -> np.ndarray:
    """Per hit: relevant (grade >= rel), and scored > 0 when the record ignores the others."""
    relevant = hits.grade >= rel
    if gated and c.nonpositive == "ignore":
        relevant &= hits.score > 0
    return relevant


def _num_rel(hits: _Hits, rel: float, c: Conventions) -> np.ndarray:
    """R per query: relevant judgments, or relevant documents of the retrieved list."""
    if c.ideal == "list" and not hits.list_is_judged():
        relevant = hits.grade >= rel
        return per_query_sum(hits.query[relevant], None, hits.n_queries)

    def count() -> np.ndarray:
        query, grades = hits.judged()
        return per_query_sum(query[grades >= rel], None, hits.n_queries)

    return hits.static(("num_rel", rel), count)


def _finish(values: np.ndarray, empty: np.ndarray, c: Conventions) -> np.ndarray:
    return np.where(empty, _empty_value(c), values)


def _rel_param(m: Measure, c: Conventions) -> float:
    """Grades >= this are relevant: the measure's ``rel=``, else the record's rule."""
    if "rel" not in m.family.params:
        return 1.0
    given = dict(m.params)
    if "rel" in given:
        return float(given["rel"])
    if c.relevant == "above_half":
        return ABOVE_HALF
    rel = m.family.params["rel"].default
    return 1.0 if rel is None else float(rel)  # rbp's rel defaults to None: grade >= 1


def _cut(m: Measure, c: Conventions) -> int | None:
    """The measure's cutoff, or the record's for a measure written without one."""
    return m.cutoff if m.cutoff is not None else c.cutoff


def _top(hits: _Hits, k: int | None) -> np.ndarray:
    return np.ones(len(hits.rank), dtype=bool) if k is None else hits.rank <= k


def precision(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """P@k: relevant in the top k, divided by k or by min(k, n)."""
    hits = _Hits(ctx, c)
    k = int(_cut(m, c))  # type: ignore[arg-type]
    rel = _rel_param(m, c)
    found = _relevant(hits, rel, c, gated=True) & _top(hits, k)
    count = per_query_sum(hits.query[found], None, hits.n_queries)
    if c.past_list == "n":
        value = safe_divide(count, np.minimum(k, hits.num_ret).astype(np.float64))
    else:
        value = count / k
    return _finish(value, _num_rel(hits, rel, c) == 0, c)


def recall(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """recall@k: relevant in the top k over R."""
    hits = _Hits(ctx, c)
    rel = _rel_param(m, c)
    found = _relevant(hits, rel, c, gated=True) & _top(hits, _cut(m, c))
    num_rel = _num_rel(hits, rel, c)
    value = safe_divide(per_query_sum(hits.query[found], None, hits.n_queries), num_rel)
    return _finish(value, num_rel == 0, c)


def hit(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """hit@k: 1 when a relevant document is in the top k."""
    hits = _Hits(ctx, c)
    rel = _rel_param(m, c)
    found = _relevant(hits, rel, c, gated=True) & _top(hits, _cut(m, c))
    value = (per_query_sum(hits.query[found], None, hits.n_queries) > 0).astype(np.float64)
    return _finish(value, _num_rel(hits, rel, c) == 0, c)


def reciprocal_rank(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """RR@k: 1 / rank of the first relevant document within the top k, else 0."""
    hits = _Hits(ctx, c)
    _refuse(m, c, ("average",))
    rel = _rel_param(m, c)
    found = _relevant(hits, rel, c, gated=True) & _top(hits, _cut(m, c))
    first = np.full(hits.n_queries, np.inf)
    np.minimum.at(first, hits.query[found], hits.rank[found].astype(np.float64))
    return _finish(1.0 / first, _num_rel(hits, rel, c) == 0, c)


def average_precision(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """AP@k: the precision at each relevant document in the top k, summed, over the denominator.

    With ``ties="group_end"`` (scikit-learn's label ranking average
    precision) every document of a tie group sits at its last rank, and the
    precision there counts every relevant document of the group.
    """
    hits = _Hits(ctx, c)
    _refuse(m, c, ("average",))
    rel = _rel_param(m, c)
    relevant = _relevant(hits, rel, c, gated=True)
    query, rank = hits.query[relevant], hits.rank[relevant]
    if c.ties == "group_end":
        # relevant documents up to the end of each group: count by (query, group start)
        index = _count_through_group(query, hits.above[relevant])
    else:
        index = rank_within_query(query)
    inside = _top(hits, _cut(m, c))[relevant]
    total = per_query_sum(query[inside], (index / rank)[inside], hits.n_queries)
    num_rel = _num_rel(hits, rel, c)
    if c.denominator == "R":
        denominator = num_rel
    elif c.denominator == "capped":
        k = _cut(m, c)
        denominator = num_rel if k is None else np.minimum(num_rel, k)
    else:
        denominator = per_query_sum(query[inside], None, hits.n_queries)
    return _finish(safe_divide(total, denominator), num_rel == 0, c)


def _count_through_group(query: np.ndarray, above: np.ndarray) -> np.ndarray:
    """Per entry (sorted by query, then group), the entries of its query up to its group's end."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.float64)
    within = rank_within_query(query)
    last = np.concatenate(((query[1:] != query[:-1]) | (above[1:] != above[:-1]), [True]))
    group_end = np.flatnonzero(last)
    group_of = np.searchsorted(group_end, np.arange(len(query)))
    return within[group_end][group_of].astype(np.float64)


def coverage(ctx: Context, m: Measure, c: Conventions | None = None) -> np.ndarray:
    """Coverage: the rank of the deepest relevant document retrieved (0 when none).

    With ``ties="group_end"`` (scikit-learn's ``coverage_error``) a tied
    document is at the last rank of its group.
    """
    c = conventions_of(m) if c is None else c
    hits = _Hits(ctx, c)
    relevant = _relevant(hits, _rel_param(m, c), c, gated=True)
    deepest = np.zeros(hits.n_queries)
    np.maximum.at(deepest, hits.query[relevant], hits.rank[relevant].astype(np.float64))
    return deepest


def _gains(grades: np.ndarray, c: Conventions, shift: np.ndarray | None = None) -> np.ndarray:
    """The gain of each grade under the record's gain, negative-grade rule and explicit gains.

    Small integer grades (the usual case) are looked up in a table of their
    gains rather than computed one by one. *shift* (one value per grade, from
    :func:`_exp_shift`) scales the exponential gains by 2^-shift so that they
    stay finite at any grade (2^g - 1 overflows from g = 1024 on).
    """
    grades = np.asarray(grades, dtype=np.float64)
    if shift is not None and c.gain == "exp":
        scale = np.exp2(-shift)
        top = np.maximum(grades, 0.0) if c.negative == "zero" else grades
        gains: np.ndarray = np.exp2(top - shift) - scale
        for grade, value in c.gains:
            gains = np.where(grades == grade, value * scale, gains)
        return gains
    if len(grades) > 64 and not c.gains:
        low, high = float(grades.min()), float(grades.max())
        if high - low < 64 and low == np.floor(low):
            index = (grades - low).astype(np.int64)
            levels = np.arange(low, low + int(high - low) + 1)
            if np.array_equal(levels[index], grades):
                return _gains(levels, c)[index]
    if c.gain == "binary":
        gains = (grades >= 1).astype(np.float64)
    elif c.gain == "exp":
        if c.negative == "zero":
            gains = np.exp2(np.maximum(grades, 0.0)) - 1.0
        else:
            gains = np.exp2(grades) - 1.0
    else:
        gains = np.maximum(grades, 0.0) if c.negative == "zero" else grades.copy()
    for grade, value in c.gains:
        gains = np.where(grades == grade, value, gains)
    return gains


def _exp_shift(hits: _Hits, c: Conventions) -> np.ndarray | None:
    """Per query, the power of two its exponential gains are divided by (None: none needs it).

    As :func:`rankwise.kernels.dcg.exp_shift`: s = max(0, the query's top
    grade - 512) (- 64 in float32 arithmetic), taken over the documents the
    ideal ranking is made of; 0 for every query whose grades stay at or
    below it, so those keep the bits they have without scaling. DCG and its
    ideal scaled alike give the same ratio: nDCG is computed exactly at any grade.
    """
    if c.gain != "exp":
        return None
    limit = 64.0 if c.arithmetic == "float32" else EXP_SCALE_ABOVE
    if c.ideal == "list" and not hits.list_is_judged():
        query, grades = hits.query, hits.grade
    else:
        query, grades = hits.judged()
    if len(grades) == 0 or not np.max(grades) > limit:
        return None
    top = np.full(hits.n_queries, -np.inf)
    np.maximum.at(top, query, grades)
    return np.maximum(top - limit, 0.0)


_DISCOUNTS = np.zeros(1)


def _discount(rank: np.ndarray) -> np.ndarray:
    """1 / log2(rank + 1), from a table (ranks are small integers)."""
    global _DISCOUNTS
    if len(rank) == 0:
        return np.zeros(0)
    top = int(rank.max())
    if top >= len(_DISCOUNTS):
        size = max(top + 1, 2 * len(_DISCOUNTS), 1024)
        table = np.zeros(size)
        table[1:] = 1.0 / np.log2(np.arange(1, size) + 1.0)
        _DISCOUNTS = table
    out: np.ndarray = _DISCOUNTS[rank]
    return out


def _discount_table(limit: int, dtype: type = np.float64) -> np.ndarray:
    """table[p] = sum of 1 / log2(i + 1) for i = 1..p (table[0] = 0)."""
    positions = np.arange(1, limit + 1)
    if dtype is np.float32:
        discount = (1.0 / np.log2((positions - 1).astype(np.float32) + np.float32(2.0))).astype(
            np.float32
        )
        return np.concatenate(([np.float32(0.0)], np.cumsum(discount, dtype=np.float32)))
    return np.concatenate(([0.0], np.cumsum(_discount(positions))))


def _weighted(gains: np.ndarray, positions: np.ndarray, dtype: type) -> np.ndarray:
    """Gain / log2(position + 1), in float64 or in float32.

    Divided in float64 as rankwise's own DCG is (trec_eval's arithmetic), so
    that a dialect that agrees with rankwise gives its bits.
    """
    if dtype is np.float64:
        return gains / np.log2(positions + 1.0)
    out: np.ndarray = gains.astype(np.float32) / np.log2(
        positions.astype(np.float32) + np.float32(1.0))
    return out


def _dcg(hits: _Hits, gains: np.ndarray, k: int | None, c: Conventions) -> np.ndarray:
    """DCG@k of each query: at each hit's rank, or averaged over its tie group."""
    dtype = np.float32 if c.arithmetic == "float32" else np.float64
    if c.ties == "average":
        last = hits.above + hits.size
        if k is not None:
            last = np.minimum(last, k)
        first = np.minimum(hits.above, last)
        limit = int(last.max()) if len(last) else 0
        table = _discount_table(limit, dtype)
        weight = (table[last] - table[first]).astype(dtype) / hits.size.astype(dtype)
        terms = gains.astype(dtype) * weight
        return _segment_sum(hits.query, terms, hits.n_queries, dtype)
    if c.ties == "group_end":
        raise UnsupportedMeasureError("DCG with ties='group_end' is not defined")
    query, rank = hits.query, hits.rank
    keep = gains != 0
    if k is not None:
        keep &= rank <= k
    if not keep.all():
        query, rank, gains = query[keep], rank[keep], gains[keep]
    return _segment_sum(query, _weighted(gains, rank, dtype), hits.n_queries, dtype)


def _segment_sum(query: np.ndarray, values: np.ndarray, n: int, dtype: type) -> np.ndarray:
    """Per query sum of *values* (sorted by query), accumulated in *dtype*."""
    if dtype is np.float64:
        return per_query_sum(query, values, n)
    out = np.zeros(n, dtype=np.float32)
    if len(query):
        starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
        out[query[starts]] = np.add.reduceat(values.astype(np.float32), starts)
    return out.astype(np.float64)


def _ideal_dcg(
    hits: _Hits, k: int | None, c: Conventions, shift: np.ndarray | None = None
) -> np.ndarray:
    """The ideal DCG@k: the gains of the judgments (or of the list) sorted descending.

    In the list, unjudged documents gain 0 and negative gains come last. The
    judgments come sorted by grade descending: with a gain that grows with
    the grade, their order is the ideal one already. With *shift* (per
    query, :func:`_exp_shift`), each query's value is scaled by 2^-shift.
    """
    if c.ideal == "list" and not hits.list_is_judged():
        gains = _gains(hits.grade, c, None if shift is None else shift[hits.query])
        return _ideal_dcg_of(hits, hits.query, gains, hits.num_ret, k, c, False)

    def make() -> np.ndarray:
        query, grades = hits.judged()
        length = np.diff(hits.data.judged_offsets)
        gains = _gains(grades, c, None if shift is None else shift[query])
        return _ideal_dcg_of(hits, query, gains, length, k, c, not c.gains)

    key = ("ideal dcg", k, c.gain, c.gains, c.negative, c.arithmetic, shift is not None)
    return hits.static(key, make)


def _ideal_dcg_of(
    hits: _Hits,
    query: np.ndarray,
    gains: np.ndarray,
    length: np.ndarray,
    k: int | None,
    c: Conventions,
    presorted: bool,
) -> np.ndarray:
    """The ideal DCG@k of the documents *query*, *gains* (sorted by gain when *presorted*)."""
    dtype = np.float32 if c.arithmetic == "float32" else np.float64
    n = hits.n_queries
    if presorted:
        within = rank_within_query(query)
        keep = gains != 0
        if k is not None:
            keep &= within <= k
        return _segment_sum(
            query[keep], _weighted(gains[keep], within[keep], dtype), n, dtype
        )
    nonzero = gains != 0
    query, gains = query[nonzero], gains[nonzero]
    order = np.lexsort((-gains, query))
    query, gains = query[order], gains[order]
    within = rank_within_query(query)
    position = within
    negative = gains < 0
    if negative.any():
        # negative gains fill the last positions of the ideal list: length - m + 1 ... length
        negatives = per_query_sum(query[negative], None, n).astype(np.int64)
        positives = per_query_sum(query[~negative], None, n).astype(np.int64)
        position = np.where(
            negative, length[query] - negatives[query] + (within - positives[query]), within
        )
    keep = position >= 1
    if k is not None:
        keep &= position <= k
    return _segment_sum(query[keep], _weighted(gains[keep], position[keep], dtype), n, dtype)


def _gain_empty(hits: _Hits, ideal: np.ndarray, c: Conventions) -> np.ndarray:
    if c.empty_when == "nonpositive":
        return ideal <= 0
    if c.empty_when == "label_sum":
        out: np.ndarray = per_query_sum(hits.query, hits.grade, hits.n_queries) == 0
        return out
    out = ideal == 0
    return out


def dcg(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """DCG@k under the record's gain, ties and arithmetic.

    A value beyond float64's range (the exponential gain of a grade of 1024
    or more) is refused, as rankwise's own ``dcg`` refuses it.
    """
    hits = _Hits(ctx, c)
    shift = _exp_shift(hits, c)
    gains = _gains(hits.grade, c, None if shift is None else shift[hits.query])
    return unscale(_dcg(hits, gains, _cut(m, c), c), shift, m)


def ndcg(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """nDCG@k = DCG@k / ideal DCG@k; the empty value when the query is empty.

    Exact at any grade: with the exponential gain, a query's DCG and ideal
    DCG are scaled alike by a power of two (:func:`_exp_shift`).
    """
    hits = _Hits(ctx, c)
    shift = _exp_shift(hits, c)
    gains = _gains(hits.grade, c, None if shift is None else shift[hits.query])
    value = _dcg(hits, gains, _cut(m, c), c)
    ideal = _ideal_dcg(hits, _cut(m, c), c, shift)
    if c.arithmetic == "float32":
        ratio = np.zeros(len(value))
        ok = ideal != 0
        ratio[ok] = (value[ok].astype(np.float32) / ideal[ok].astype(np.float32)).astype(
            np.float64
        )
    else:
        ratio = safe_divide(value, ideal)
    return _finish(ratio, _gain_empty(hits, ideal, c), c)


def rank_biased_precision(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """RBP = (1 - p) sum_i gain_i p^(i-1); the gain of a relevant document (grade >= rel).

    ``gain="linear"`` is ranx's graded RBP (values can exceed 1); rankwise's
    own (trec_eval's rescaled gains) is computed by :mod:`rankwise.kernels.rbp`.
    """
    hits = _Hits(ctx, c)
    _refuse(m, c, ("average", "group_end"))
    p = float(m.param("p"))
    relevant = hits.grade >= _rel_param(m, c)
    gains = np.where(relevant, _gains(hits.grade, c), 0.0)
    value = (1.0 - p) * per_query_sum(hits.query, gains * p ** (hits.rank - 1.0), hits.n_queries)
    return value


def bpref(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """Bpref = (1/R) sum over relevant retrieved r of 1 - min(n_r, R) / min(R, N).

    n_r counts the judged non-relevant documents ranked above r, N those in
    the judgments. A negative grade is judged non-relevant with
    ``negative="raw"`` (ranx), and unjudged with ``negative="zero"``
    (trec_eval: judged, but not in the pool). With N = 0 each relevant
    document retrieved counts 1 (trec_eval), or with ``no_nonrel="nan"`` its
    term is 0/0 and the query NaN (ranx); nothing relevant retrieved is 0.
    """
    hits = _Hits(ctx, c)
    _refuse(m, c, ("average", "group_end"))
    rel = _rel_param(m, c)
    relevant = hits.grade >= rel
    nonrelevant = ~relevant if c.negative == "raw" else (hits.grade >= 0) & ~relevant
    before = segment_cumsum(hits.query, nonrelevant.astype(np.float64)) - nonrelevant
    query = hits.query[relevant]
    above = before[relevant]
    judged_query, grades = hits.judged()
    judged_nonrel = grades < rel if c.negative == "raw" else (grades >= 0) & (grades < rel)
    n_nonrel = per_query_sum(judged_query[judged_nonrel], None, hits.n_queries)
    num_rel = per_query_sum(judged_query[grades >= rel], None, hits.n_queries)
    r = num_rel[query]
    penalty = safe_divide(np.minimum(above, r), np.minimum(n_nonrel[query], r))
    term = np.where(above > 0, 1.0 - penalty, 1.0)
    value = safe_divide(per_query_sum(query, term, hits.n_queries), num_rel)
    if c.no_nonrel == "nan":  # ranx: 1 - 0 / min(R, 0) for each relevant retrieved
        undefined = per_query_sum(query[n_nonrel[query] == 0], None, hits.n_queries) > 0
        value[undefined] = np.nan
    return value


def expected_reciprocal_rank(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """ERR@k (:mod:`rankwise.kernels.err`) under the record's tie rule, cutoff and empty value.

    A query is empty when none of its judgments has a stop probability above
    0 (no grade above 0: gdeval's queries without a positive judgment).
    """
    hits = _Hits(ctx, c)
    _refuse(m, c, ("average", "group_end"))
    max_grade = _err.check_grades(ctx, m)
    k = _cut(m, c)
    value = _err.err_of_hits(hits.query, hits.rank, hits.grade, max_grade, k, hits.n_queries)
    ideal = _err.ideal_err_values(ctx, m.replace(cutoff=k))
    return _finish(value, ideal == 0, c)


def _refuse(m: Measure, c: Conventions, ties: tuple[str, ...]) -> None:
    if c.ties in ties:
        raise UnsupportedMeasureError(
            f"{m} cannot be computed with ties={c.ties!r}: no tool computes it that way"
        )


DIALECT_KERNELS: dict[str, DialectKernel] = {
    "ndcg": ndcg,
    "dcg": dcg,
    "map": average_precision,
    "mrr": reciprocal_rank,
    "P": precision,
    "recall": recall,
    "hit": hit,
    "rbp": rank_biased_precision,
    "bpref": bpref,
    "coverage": coverage,
    "err": expected_reciprocal_rank,
}
"""Measure family -> kernel under a :class:`Conventions` record."""

OWN_FAMILIES = frozenset({"ndcg", "dcg", "map", "mrr", "P", "recall", "hit", "coverage"})
"""Families whose kernel here computes rankwise's own conventions too (with the same
values as :mod:`rankwise.kernels`, tested): the training hooks use these."""


def measure_for(m: Measure, c: Conventions) -> Measure:
    """*m* with the gain of record *c*, for rankwise's own kernels (which read parameters).

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> from rankwise.measures.dialects import Conventions
    >>> str(measure_for(parse("ndcg@10"), Conventions(gain="linear")))
    'ndcg@10(gain=linear)'
    """
    changes: dict[str, object] = {}
    if "gain" in m.family.params and c.gain in ("exp", "linear"):
        changes["gain"] = c.gain
    if "gains" in m.family.params:
        changes["gains"] = c.gains
    if "dialect" in m.family.params:
        changes["dialect"] = "rankwise"
    for key in ("empty", "denominator"):
        if key in m.family.params:
            changes[key] = m.family.params[key].default
    return m.replace(**changes) if changes else m


def compute_with(ctx: Context, m: Measure, c: Conventions) -> np.ndarray:
    """The values of *m* under record *c*, on a context ranked for it.

    Raises
    ------
    UnsupportedMeasureError
        No kernel follows these conventions for the family.
    """
    kernel = DIALECT_KERNELS.get(m.name)
    if kernel is None:
        raise UnsupportedMeasureError(f"no kernel computes {m} under other conventions")
    return kernel(ctx, m, c)


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {"coverage": coverage}
"""rankwise's own kernels of the families first defined for a dialect."""
