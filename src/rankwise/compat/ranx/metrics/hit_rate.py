"""ranx's ``hit_rate``: whether a relevant document is in the top k."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["hit_rate"]


def hit_rate(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per query, 1 when a relevant document is in the top *k* (0: all), else 0.

    rankwise's ``hit@k``.

    Examples
    --------
    >>> import numpy as np
    >>> hit_rate([np.array([[4, 1]])], [np.array([[1, 1], [2, 1], [4, 1]])], k=2).tolist()
    [0.0]
    """
    return per_query("hit_rate", qrels, run, k, rel_lvl)
