"""ranx's ``f1``: the harmonic mean of precision and recall at k."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["f1"]


def f1(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`2 P R / (P + R)` of precision and recall at *k* (0: all).

    0 when both are 0.

    Examples
    --------
    >>> import numpy as np
    >>> f1([np.array([[4, 1], [5, 1]])], [np.array([[1, 1], [4, 1]])], k=2).tolist()
    [0.5]
    """
    return per_query("f1", qrels, run, k, rel_lvl)
