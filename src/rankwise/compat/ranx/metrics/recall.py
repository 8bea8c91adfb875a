"""ranx's ``recall``: the share of the relevant documents found in the top k."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["recall"]


def recall(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`r_k / R`: the share of the relevant documents in the top *k*.

    *k* 0: the whole list; R the relevant documents judged (0 when there is none).

    rankwise's ``recall@k`` (``set_recall`` for k = 0).

    Examples
    --------
    >>> import numpy as np
    >>> recall([np.array([[4, 1], [5, 1]])], [np.array([[1, 1], [4, 1]])], k=2).tolist()
    [0.5]
    """
    return per_query("recall", qrels, run, k, rel_lvl)
