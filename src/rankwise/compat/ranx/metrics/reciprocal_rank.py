"""ranx's ``reciprocal_rank``: one over the rank of the first relevant document."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["reciprocal_rank"]


def reciprocal_rank(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per query, 1 / the rank of the first relevant document in the top *k* (0: all), or 0.

    rankwise's ``mrr@k`` (per query).

    Examples
    --------
    >>> import numpy as np
    >>> reciprocal_rank([np.array([[3, 1]])], [np.array([[2, 1], [3, 1]])]).tolist()
    [0.5]
    """
    return per_query("mrr", qrels, run, k, rel_lvl)
