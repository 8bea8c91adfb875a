"""Kernels of expected reciprocal rank (Chapelle et al., CIKM 2009) as gdeval.pl computes it.

ERR@k = sum_{i<=k} R_i / i * prod_{j<i} (1 - R_j): a user stops at rank i
with probability R_i = (2^g - 1) / 2^max_grade (g: the document's grade,
negative grades and unjudged documents 0; gdeval's max_grade is 4). nERR@k
divides by the ERR@k of the ideal ranking: all judged grades of the query,
sorted descending (the list gdeval's IDCG uses). The products are formed in
rank order, as gdeval does, for all queries at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.kernels._segments import (
    exclusive_cumprod,
    per_query_sum,
    rank_within_query,
    safe_divide,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure


def stop_probability(grades: np.ndarray, max_grade: float) -> np.ndarray:
    """R = (2^g - 1) / 2^max_grade, g clipped below at 0.

    Examples
    --------
    >>> stop_probability(np.array([-2.0, 0.0, 1.0, 4.0]), 4).tolist()
    [0.0, 0.0, 0.0625, 0.9375]
    """
    out: np.ndarray = (np.exp2(np.maximum(grades, 0.0)) - 1.0) / np.exp2(max_grade)
    return out


def check_grades(ctx: Context, m: Measure) -> float:
    """The measure's max_grade, refused when a judged grade exceeds it."""
    max_grade = float(m.param("max_grade"))
    grades = ctx.data.judged_grades
    if len(grades) and float(grades.max()) > max_grade:
        raise InvalidParameterError(
            f"{m}: a grade of {float(grades.max()):g} is above max_grade={max_grade:g} "
            "(its stop probability (2^g - 1) / 2^max_grade would exceed 1); set "
            f"max_grade to the top grade, e.g. '{m.replace(max_grade=float(grades.max()))}'"
        )
    return max_grade


def _err(
    query: np.ndarray, rank: np.ndarray, stop: np.ndarray, n_queries: int
) -> np.ndarray:
    """ERR per query from (query, rank, R) entries sorted by query then rank.

    Entries with R = 0 may be left out: they multiply the product by 1.
    """
    survive = exclusive_cumprod(query, 1.0 - stop)
    return per_query_sum(query, stop / rank * survive, n_queries)


def err_of_hits(
    query: np.ndarray,
    rank: np.ndarray,
    grade: np.ndarray,
    max_grade: float,
    cutoff: int | None,
    n_queries: int,
) -> np.ndarray:
    """ERR@*cutoff* per query from its hits (query, rank, grade), sorted by query then rank.

    Examples
    --------
    >>> err_of_hits(np.array([0, 0]), np.array([1, 2]), np.array([4.0, 1.0]), 4, None, 1)
    array([0.93945312])
    """
    stop = stop_probability(grade, max_grade)
    keep = stop > 0
    if cutoff is not None:
        keep &= rank <= cutoff
    return _err(query[keep], rank[keep].astype(np.float64), stop[keep], n_queries)


def err_values(ctx: Context, m: Measure) -> np.ndarray:
    """ERR@k of each query's ranking."""
    d = ctx.data
    max_grade = check_grades(ctx, m)
    return err_of_hits(d.hit_query, d.hit_rank, d.hit_grade, max_grade, m.cutoff, ctx.n_queries)


def ideal_err_values(ctx: Context, m: Measure) -> np.ndarray:
    """ERR@k of the ideal ranking: the query's judged grades, descending."""
    d = ctx.data
    max_grade = check_grades(ctx, m)
    query = np.repeat(np.arange(ctx.n_queries), np.diff(d.judged_offsets))
    position = rank_within_query(query).astype(np.float64)
    stop = stop_probability(d.judged_grades, max_grade)  # grades descending within a query
    keep = stop > 0
    if m.cutoff is not None:
        keep &= position <= m.cutoff
    return _err(query[keep], position[keep], stop[keep], ctx.n_queries)


def err(ctx: Context, m: Measure) -> np.ndarray:
    """ERR@k (gdeval.pl)."""
    return err_values(ctx, m)


def nerr(ctx: Context, m: Measure) -> np.ndarray:
    """nERR@k = ERR@k / ERR@k of the ideal ranking; 0 without a relevant judgment."""
    return safe_divide(err_values(ctx, m), ideal_err_values(ctx, m))


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "err": err,
    "nerr": nerr,
}
"""Measure family -> kernel."""
