"""ranx's ``get_hit_lists``: per query, where the relevant documents are."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import hit_lists

__all__ = ["get_hit_lists"]


def get_hit_lists(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> list[np.ndarray]:
    """Per query, 1.0 at each of the first *k* positions (0: all) holding a relevant one.

    Relevant: grade >= *rel_lvl*; 0.0 elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> [h.tolist() for h in get_hit_lists([np.array([[4, 1]])], [np.array([[1, 1], [4, 1]])])]
    [[0.0, 1.0]]
    """
    return hit_lists(qrels, run, k, rel_lvl)
