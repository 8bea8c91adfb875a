"""``np.unique`` without its first-call cost.

numpy 2's ``np.unique`` imports ``numpy.ma`` (about 10 ms) the first time it
runs; the engine needs only sorted distinct values, first indices and the
inverse, which one stable sort gives.
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct"]


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values, the index of each one's first occurrence, and the inverse.

    The same as ``np.unique(values, return_index=True, return_inverse=True)``.

    Examples
    --------
    >>> uniques, first, inverse = distinct(np.array([5, 3, 5, 1]))
    >>> uniques.tolist(), first.tolist(), inverse.tolist()
    ([1, 3, 5], [3, 1, 0], [2, 1, 2, 0])
    """
    values = np.asarray(values).ravel()
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    inverse = np.empty(len(values), dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], order[starts], inverse
