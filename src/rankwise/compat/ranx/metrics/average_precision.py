"""ranx's ``average_precision``: the mean of the precisions at each relevant document."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["average_precision"]


def average_precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, the average precision of the top *k* (0: the whole list).

    :math:`\sum_{i \le k,\ rel(i)} P@i / R`, R the relevant documents judged.

    rankwise's ``map@k`` (per query).

    Examples
    --------
    >>> import numpy as np
    >>> average_precision([np.array([[1, 1], [4, 1]])], [np.array([[1, 1], [2, 1], [4, 1]])]
    ...                   ).round(4).tolist()
    [0.8333]
    """
    return per_query("map", qrels, run, k, rel_lvl)
