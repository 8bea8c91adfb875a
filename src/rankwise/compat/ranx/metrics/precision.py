"""ranx's ``precision``: the share of relevant documents in the top k."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["precision"]


def precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`r_k / k`: the relevant documents in the top *k* over *k*.

    *k* even past the end of the list; with ``k=0``, the relevant retrieved
    over the retrieved.

    rankwise's ``P@k`` (``set_P`` for k = 0).

    Examples
    --------
    >>> import numpy as np
    >>> precision([np.array([[4, 1]])], [np.array([[1, 1], [4, 1]])], k=4).tolist()
    [0.25]
    """
    return per_query("precision", qrels, run, k, rel_lvl)
