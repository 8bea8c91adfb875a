"""ranx's ``r_precision``: precision at R, the number of relevant documents."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["r_precision"]


def r_precision(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`r_R / R`: the relevant documents in the top R over R.

    R the relevant documents judged; *k* is not used, as in ranx.

    rankwise's ``Rprec``.

    Examples
    --------
    >>> import numpy as np
    >>> r_precision([np.array([[4, 1], [5, 1]])], [np.array([[1, 1], [4, 1]])]).tolist()
    [0.5]
    """
    return per_query("r-precision", qrels, run, 0, rel_lvl)
