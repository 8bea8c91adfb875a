"""ranx's ``dcg``, ``dcg_burges``, ``ndcg`` and ``ndcg_burges``."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["dcg", "dcg_burges", "ndcg", "ndcg_burges"]


def dcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`\sum_{i \le k} g_i / \log_2(i + 1)` (Järvelin & Kekäläinen).

    :math:`g_i` the grade of a relevant document (TOIS 2002). rankwise's
    ``dcg@k(gain=linear)``.

    Examples
    --------
    >>> import numpy as np
    >>> dcg([np.array([[2, 3]])], [np.array([[1, 1], [2, 1]])]).round(4).tolist()
    [1.8928]
    """
    return per_query("dcg", qrels, run, k, rel_lvl)


def dcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, :math:`\sum_{i \le k} (2^{g_i} - 1) / \log_2(i + 1)` (Burges et al.).

    ICML 2005. rankwise's ``dcg@k``.

    Examples
    --------
    >>> import numpy as np
    >>> dcg_burges([np.array([[2, 3]])], [np.array([[1, 1], [2, 1]])]).round(4).tolist()
    [4.4165]
    """
    return per_query("dcg_burges", qrels, run, k, rel_lvl)


def ndcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per query, :func:`dcg` over the ideal DCG of the judged grades (0 when it is 0).

    rankwise's ``ndcg@k(gain=linear)``.

    Examples
    --------
    >>> import numpy as np
    >>> ndcg([np.array([[2, 3]])], [np.array([[1, 1], [2, 1]])]).round(4).tolist()
    [0.6309]
    """
    return per_query("ndcg", qrels, run, k, rel_lvl)


def ndcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    """Per query, :func:`dcg_burges` over its ideal (0 when it is 0). rankwise's ``ndcg@k``.

    Examples
    --------
    >>> import numpy as np
    >>> ndcg_burges([np.array([[2, 3]])], [np.array([[1, 1], [2, 1]])]).round(4).tolist()
    [0.6309]
    """
    return per_query("ndcg_burges", qrels, run, k, rel_lvl)
