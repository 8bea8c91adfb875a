"""Kernels of precision-like measures: P@k, recall@k, R-precision, hit, rel_ret, sets, ...

Also interpolated precision (iprec_at_recall, 11pt_avg), judged@k and unj@k.

Each kernel takes a :class:`~rankwise.kernels.context.Context` and a
:class:`~rankwise.measures.Measure` and returns one float64 value per
evaluated query, following trec_eval 10.0 where trec_eval has the measure.
No Python loop runs per query or per document.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import (
    per_query_sum,
    safe_divide,
    suffix_max,
    sums_through_cutoffs,
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


def relevant_retrieved(ctx: Context, m: Measure) -> np.ndarray:
    """rel_ret@k = relevant in the top k (every relevant retrieved without k); ranx's hits@k."""
    view = ctx.view(m.param("rel"))
    if m.cutoff is None:
        return view.num_rel_ret.astype(np.float64)
    return view.rel_in_top(_k(m)).astype(np.float64)


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec: precision at rank R; with ``mult``, at rank int(mult * R + 0.9) (trec_eval)."""
    view = ctx.view(m.param("rel"))
    cut = np.floor(float(m.param("mult")) * view.num_rel + 0.9)
    top = view.rel_rank <= cut[view.rel_query]
    found = per_query_sum(view.rel_query[top], None, ctx.n_queries)
    return safe_divide(found, cut)


def judged_denominator(ctx: Context, m: Measure) -> np.ndarray:
    """What judged@k divides by: k, or min(k, retrieved) with ``denominator=retrieved``.

    Without a cutoff, k is the number retrieved.
    """
    retrieved = ctx.data.num_ret.astype(np.float64)
    k = retrieved if m.cutoff is None else np.full(ctx.n_queries, float(m.cutoff))
    return np.minimum(k, retrieved) if m.param("denominator") == "retrieved" else k


def judged_at(ctx: Context, m: Measure) -> np.ndarray:
    """judged@k = judged documents in the top k / k (or / min(k, retrieved))."""
    d = ctx.data
    top = d.hit_rank <= (m.cutoff if m.cutoff is not None else np.inf)
    found = per_query_sum(d.hit_query[top], None, ctx.n_queries)
    return safe_divide(found, judged_denominator(ctx, m))


def unjudged_at(ctx: Context, m: Measure) -> np.ndarray:
    """unj@k = documents in the top k that are unjudged or have a negative grade, / k."""
    d = ctx.data
    k = int(m.cutoff)  # type: ignore[arg-type]
    top = min(k, 1 << 62)
    judged_top = (d.hit_rank <= top) & (d.hit_grade >= 0)
    shown = np.minimum(d.num_ret, k).astype(np.float64)
    out: np.ndarray = (shown - per_query_sum(d.hit_query[judged_top], None, ctx.n_queries)) / k
    return out


def set_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_P = relevant retrieved / retrieved."""
    return safe_divide(ctx.view(m.param("rel")).num_rel_ret, ctx.data.num_ret)


def set_recall(ctx: Context, m: Measure) -> np.ndarray:
    """set_recall = relevant retrieved / R."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.num_rel_ret, view.num_rel)


def set_map(ctx: Context, m: Measure) -> np.ndarray:
    """set_map = set_P * set_recall, as trec_eval forms it: rel_ret^2 / (retrieved * R)."""
    view = ctx.view(m.param("rel"))
    found = view.num_rel_ret.astype(np.float64)
    retrieved = ctx.data.num_ret.astype(np.float64)
    return safe_divide(found * found, retrieved * view.num_rel)


def set_relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_relative_P = relevant retrieved / min(retrieved, R)."""
    view = ctx.view(m.param("rel"))
    return safe_divide(view.num_rel_ret, np.minimum(ctx.data.num_ret, view.num_rel))


def set_f(ctx: Context, m: Measure) -> np.ndarray:
    """set_F = (1 + beta^2) P R / (beta^2 P + R) over the retrieved set."""
    beta2 = beta_squared(float(m.param("beta")))
    p, r = set_precision(ctx, m), set_recall(ctx, m)
    return safe_divide((beta2 + 1.0) * p * r, beta2 * p + r)


def beta_squared(beta: float) -> float:
    """beta^2, as trec_eval's ``set_F.x`` and ir_measures' ``SetF(beta=x)`` are written: x.

    Both take beta^2 itself (x), which rankwise's language reads as beta =
    sqrt(x); squaring sqrt(2) gives 2.0000000000000004, which moves F in the
    last bit. A square within one unit in the last place of a number of 15
    significant digits is that number.

    Examples
    --------
    >>> beta_squared(2.0 ** 0.5), beta_squared(2.4 ** 0.5), beta_squared(0.5)
    (2.0, 2.4, 0.25)
    """
    square = beta * beta
    written = float(f"{square:.15g}")
    return written if abs(written - square) <= math.ulp(square) else square


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """A * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret.

    The collection size is unknown, so the last term uses 0 documents in the
    collection, as trec_eval does without ``-N``.
    """
    a, b, c, e = m.param("coefficients")
    view = ctx.view(m.param("rel"))
    rel_ret, ret, r = view.num_rel_ret, ctx.data.num_ret.astype(np.float64), view.num_rel
    out: np.ndarray = (a * rel_ret + b * (ret - rel_ret) + c * (r - rel_ret)
                       + e * (rel_ret - ret - r))
    return out


def round_half_away(values: np.ndarray) -> np.ndarray:
    """C's ``lround`` for non-negative values: halves round up."""
    floor = np.floor(values)
    out: np.ndarray = np.where(values - floor >= 0.5, floor + 1.0, floor)
    return out


def relevant_needed(levels: float, num_rel: np.ndarray, rounding: str) -> np.ndarray:
    """The relevant documents a recall level asks for: lround(x * R), or int(x * R + 0.9).

    ``nearest`` is trec_eval 10.0's rule, ``trec_eval9`` trec_eval 9's (which
    pytrec_eval bundles), computed in float64 as trec_eval does.

    Examples
    --------
    >>> R = np.array([4.0, 10.0])
    >>> relevant_needed(0.3, R, "nearest").tolist(), relevant_needed(0.3, R, "trec_eval9").tolist()
    ([1.0, 3.0], [2.0, 3.0])
    """
    if rounding == "trec_eval9":
        return np.floor(levels * num_rel + 0.9)
    return round_half_away(levels * num_rel)


def interpolated_precision(
    ctx: Context, rel: float, levels: np.ndarray, rounding: str = "nearest"
) -> np.ndarray:
    """Interpolated precision at recall levels, queries x levels (trec_eval's definition).

    For a level x, let c = lround(x * R) relevant documents (or int(x * R +
    0.9): :func:`relevant_needed`). The value is the
    highest precision at any relevant hit from the c-th on (all of them when
    c = 0), and 0 when fewer than c relevant documents were retrieved. A
    query that was retrieved but ranks no document (``depth=0``, or
    ``judged_only`` with nothing judged) gets NaN where c = 0, as trec_eval.
    """
    view = ctx.view(rel)
    n = ctx.n_queries
    query, index, rank = view.rel_query, view.rel_index, view.rel_rank
    precision_at = index / rank
    # the running maximum from the end of each query, never across queries, exact
    best_from_here = suffix_max(query, precision_at)
    starts = np.searchsorted(query, np.arange(n))
    out = np.zeros((n, len(levels)), dtype=np.float64)
    found = view.num_rel_ret
    # an empty ranking of a retrieved query has an undefined precision (0 / 0):
    # trec_eval reports NaN at the levels that need no relevant document
    empty = (ctx.data.num_ret == 0) & ctx.data.in_run
    for j, level in enumerate(np.asarray(levels, dtype=np.float64)):
        needed = relevant_needed(level, view.num_rel, rounding)
        ok = (needed <= found) & (found > 0)
        position = starts + np.maximum(needed, 1).astype(np.int64) - 1
        queries = np.flatnonzero(ok)
        out[queries, j] = best_from_here[position[queries]]
        out[empty & (needed == 0), j] = np.nan
    return out


def iprec_at_recall(ctx: Context, m: Measure) -> np.ndarray:
    """Interpolated precision at one recall level."""
    levels = np.array([m.param("recall")])
    return interpolated_precision(ctx, m.param("rel"), levels, m.param("rounding"))[:, 0]


_ELEVEN = np.round(np.arange(11) / 10.0, 1)


def eleven_point_average(ctx: Context, m: Measure) -> np.ndarray:
    """Mean interpolated precision over the recall levels (0.0, 0.1, ..., 1.0 by default).

    Summed from the highest level down, one level at a time, then divided by
    their number: trec_eval's order of operations, so the value is its value
    bit for bit.
    """
    levels = np.array(m.param("levels") or _ELEVEN, dtype=np.float64)
    values = interpolated_precision(ctx, m.param("rel"), levels, m.param("rounding"))
    total = np.zeros(len(values))
    for column in values.T[::-1]:  # one step per level (11 by default), not per query
        total += column
    return total / len(levels)


def _relevant_through(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    view = ctx.view(m.param("rel"))
    return sums_through_cutoffs(view.rel_query, view.rel_rank, None, ctx.n_queries, cutoffs)


def precision_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """P@k for every k of *cutoffs* at once: rows of :func:`precision`, the same numbers."""
    out: np.ndarray = _relevant_through(ctx, m, cutoffs) / np.asarray(cutoffs)[:, None]
    return out


def recall_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """recall@k for every k of *cutoffs* at once: rows of :func:`recall`, the same numbers."""
    return safe_divide(_relevant_through(ctx, m, cutoffs), ctx.view(m.param("rel")).num_rel)


def hit_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """hit@k for every k of *cutoffs* at once."""
    return (_relevant_through(ctx, m, cutoffs) > 0).astype(np.float64)


def relevant_retrieved_at_cutoffs(ctx: Context, m: Measure, cutoffs: np.ndarray) -> np.ndarray:
    """rel_ret@k for every k of *cutoffs* at once."""
    return _relevant_through(ctx, m, cutoffs).astype(np.float64)


CUTOFF_KERNELS: dict[str, Callable[[Context, Measure, np.ndarray], np.ndarray]] = {
    "P": precision_at_cutoffs,
    "recall": recall_at_cutoffs,
    "hit": hit_at_cutoffs,
    "rel_ret": relevant_retrieved_at_cutoffs,
}
"""Measure family -> kernel of many cutoffs at once (one row per cutoff)."""


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "P": precision,
    "recall": recall,
    "relative_P": relative_precision,
    "hit": hit,
    "rel_ret": relevant_retrieved,
    "Rprec": r_precision,
    "judged": judged_at,
    "unj": unjudged_at,
    "set_P": set_precision,
    "set_recall": set_recall,
    "set_map": set_map,
    "set_relative_P": set_relative_precision,
    "set_F": set_f,
    "utility": utility,
    "iprec_at_recall": iprec_at_recall,
    "11pt_avg": eleven_point_average,
}
"""Measure family -> kernel."""
