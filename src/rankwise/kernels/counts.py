"""Kernels of the counts (num_q, num_ret, num_rel, ...) and of the relevance string."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import (
    per_query_sum,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure


def num_q(ctx: Context, m: Measure) -> np.ndarray:
    """1 per evaluated query (summed: the number of queries)."""
    return np.ones(ctx.n_queries, dtype=np.float64)


def num_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Documents retrieved (after the depth cut)."""
    return ctx.data.num_ret.astype(np.float64)


def num_rel(ctx: Context, m: Measure) -> np.ndarray:
    """R: relevant documents in the judgments."""
    out: np.ndarray = ctx.view(m.param("rel")).num_rel.copy()
    return out


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Relevant documents retrieved."""
    out: np.ndarray = ctx.view(m.param("rel")).num_rel_ret.copy()
    return out


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Judged documents below the relevance level that were retrieved (grade >= 0)."""
    d = ctx.data
    nonrel = (d.hit_grade < m.param("rel")) & (d.hit_grade >= 0)
    return per_query_sum(d.hit_query[nonrel], None, ctx.n_queries)


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
    "num_q": num_q,
    "num_ret": num_ret,
    "num_rel": num_rel,
    "num_rel_ret": num_rel_ret,
    "num_nonrel_judged_ret": num_nonrel_judged_ret,
    "relstring": relevance_string,
}
"""Measure family -> kernel."""
