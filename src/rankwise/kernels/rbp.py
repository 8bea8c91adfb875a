"""Kernels of rank-biased precision (Moffat & Zobel 2008) and its residual, as trec_eval."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import (
    per_query_sum,
    safe_divide,
)
from rankwise.kernels.context import Context
from rankwise.kernels.dcg import gain_of
from rankwise.measures.spec import Measure


def rbp_gains(ctx: Context, m: Measure) -> np.ndarray:
    """Per hit, the gain RBP uses: trec_eval's per-query rescaling to [0, 1].

    The gains of a query are its grade levels 0..max (or the ``gains``
    given); when one lies outside [0, 1], all are rescaled to
    (g - min) / (max - min). With ``rel``, the gain is binary: 1 for a grade
    >= rel, else 0 (ir_measures' ``RBP(rel=...)``).
    """
    d = ctx.data
    rel = m.param("rel")
    if rel is not None:
        return (d.hit_grade >= float(rel)).astype(np.float64)
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


def beyond_gain(ctx: Context, m: Measure) -> np.ndarray:
    """Per query, the gain of the documents past the end of the ranking, times p^retrieved.

    0, except in the upper bound of ``unjudged="bounds"``: there they are of
    the top grade, whose gain is 1 (the largest gain after rescaling), or
    with ``rel``, 1 when the top grade is >= rel. So the bound's width is
    Moffat & Zobel's residual.
    """
    d = ctx.data
    if d.beyond_grade is None:
        return np.zeros(ctx.n_queries)
    rel = m.param("rel")
    grade = float(d.beyond_grade)
    gain = float(grade >= float(rel)) if rel is not None else min(max(grade, 0.0), 1.0)
    return gain * float(m.param("p")) ** d.num_ret.astype(np.float64)


def rank_biased_precision(ctx: Context, m: Measure) -> np.ndarray:
    """RBP = (1 - p) sum_i gain_i p^(i-1) (Moffat & Zobel 2008), gains as :func:`rbp_gains`."""
    d = ctx.data
    p = float(m.param("p"))
    weight = p ** (d.hit_rank - 1.0)
    found = (1.0 - p) * per_query_sum(d.hit_query, rbp_gains(ctx, m) * weight, ctx.n_queries)
    out: np.ndarray = found + beyond_gain(ctx, m)
    return out


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


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "rbp": rank_biased_precision,
    "rbp_resid": rbp_residual,
}
"""Measure family -> kernel."""
