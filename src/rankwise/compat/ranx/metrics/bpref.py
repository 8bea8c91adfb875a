"""ranx's ``bpref``: how often relevant documents come before judged non-relevant ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.metrics._compute import per_query

__all__ = ["bpref"]


def bpref(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
    r"""Per query, bpref (Buckley & Voorhees, SIGIR 2004), as ranx computes it.

    :math:`\frac{1}{R} \sum_{r} 1 - \frac{\min(n_r, R)}{\min(R, N)}` over
    the relevant documents r retrieved, :math:`n_r` the judged non-relevant documents
    above r, N the judged non-relevant documents (negative grades count among them);
    NaN when N = 0 and a relevant document is retrieved (0/0, as ranx). *k* is not used.

    rankwise's ``bpref(dialect=ranx)``.

    Examples
    --------
    >>> import numpy as np
    >>> qrels = [np.array([[1, 1], [2, 0]])]
    >>> bpref(qrels, [np.array([[2, 1], [1, 1]])]).tolist()
    [0.0]
    """
    return per_query("bpref", qrels, run, 0, rel_lvl)
