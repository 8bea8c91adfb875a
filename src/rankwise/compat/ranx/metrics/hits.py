"""ranx's ``hits``: the number of relevant documents in the top k."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["hits"]


def hits(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per query, the relevant documents (grade >= *rel_lvl*) in the top *k* (0: all).

    rankwise's ``rel_ret@k``.

    Examples
    --------
    >>> import numpy as np
    >>> hits([np.array([[1, 1], [4, 1]])], [np.array([[1, 1], [2, 1], [4, 1]])], k=2).tolist()
    [1.0]
    """
    return per_query("hits", qrels, run, k, rel_lvl)
