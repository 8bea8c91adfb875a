"""What every metric function of :mod:`rankwise.compat.ranx.metrics` does.

ranx's arrays in, rankwise's values out, one per query.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError

__all__ = ["hit_lists", "per_query"]


def per_query(name: str, qrels: Any, run: Any, k: float = 0, rel_lvl: int = 1) -> np.ndarray:
    """The ranx metric *name* of each query of ranx's arrays (judgments and run by position).

    Raises
    ------
    InvalidParameterError
        A negative cutoff.
    """
    from rankwise.compat.ranx._arrays import array_tables
    from rankwise.compat.ranx._evaluate import scores_of
    from rankwise.compat.ranx._names import Metric

    if k < 0:
        raise InvalidParameterError(f"k must be 0 (the whole list) or more, got {k!r}")
    judgments, ranking = array_tables(qrels, run)
    metric = Metric(name, name, k, rel_lvl)
    return scores_of(judgments, ranking.ranking(depth=metric.depth), [metric])[name]


def hit_lists(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> list[np.ndarray]:
    """Per query, 1.0 at each of the first *k* positions (all: 0) holding a relevant document.

    Raises
    ------
    InvalidParameterError
        A negative cutoff.
    """
    from rankwise.compat.ranx._arrays import array_tables
    from rankwise.compat.ranx._evaluate import judgments_at
    from rankwise.ranking.judged import judged_rows

    if k < 0:
        raise InvalidParameterError(f"k must be 0 (the whole list) or more, got {k!r}")
    judgments, ranking = array_tables(qrels, run)
    rows, grades = judged_rows(judgments_at(judgments, rel_lvl), ranking.ranking())
    hits = np.zeros(ranking.n_rows)
    hits[rows[grades >= rel_lvl]] = 1.0
    lists = np.split(hits, ranking.offsets[1:-1]) if ranking.keys else []
    return [hit[:k] if k else hit for hit in lists]
