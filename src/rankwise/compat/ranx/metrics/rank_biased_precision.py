"""ranx's ``rank_biased_precision``: the user's expected gain with persistence p."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["rank_biased_precision"]


def rank_biased_precision(qrels: Any, run: Any, p: float, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`(1 - p) \sum_i g_i p^{i-1}` over the whole list (Moffat & Zobel).

    :math:`g_i` the grade of a relevant document (graded gains, as ranx).

    rankwise's ``rbp(dialect=ranx,p=...)``.

    Examples
    --------
    >>> import numpy as np
    >>> rank_biased_precision([np.array([[1, 1]])], [np.array([[1, 1], [2, 1]])], 0.5).tolist()
    [0.5]
    """
    return per_query("rbp", qrels, run, p, rel_lvl)
