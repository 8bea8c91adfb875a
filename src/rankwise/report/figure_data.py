"""What the figures draw, computed once for both drawing stacks (SVG and matplotlib).

A box plot's statistics with its outliers, and the widths that keep lines
visible where they coincide: the report's SVG figures and the matplotlib
displays read these, so the two never disagree about what is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BOX_PERCENTILES", "BoxStats", "box_stats", "stacked_widths"]

BOX_PERCENTILES = (5, 25, 50, 75, 95)
"""Whiskers at the 5th and 95th percentiles, the box from the 25th to the 75th."""


@dataclass(frozen=True)
class BoxStats:
    """One box: its five percentiles and the values beyond the whiskers.

    Attributes
    ----------
    p5, q1, median, q3, p95 : float
        The whiskers' ends, the box and its median.
    outliers : ndarray
        Each distinct value below ``p5`` or above ``p95``, ascending (drawn
        as a point each: many queries at one value are one point).
    outlier_counts : ndarray
        How many queries have each outlying value.
    """

    p5: float
    q1: float
    median: float
    q3: float
    p95: float
    outliers: np.ndarray
    outlier_counts: np.ndarray


def box_stats(values: np.ndarray) -> BoxStats:
    """The box of *values* (finite, at least one), with the outliers beyond the whiskers.

    A measure whose values are mostly one number (MRR at 1 for most
    queries) has a box and whiskers of width zero; the queries elsewhere
    are then shown only by their outlier points.

    Examples
    --------
    >>> values = np.array([1.0] * 96 + [0.5, 0.5, 0.2, 0.2])
    >>> box = box_stats(values)
    >>> box.p5, box.median, box.p95
    (1.0, 1.0, 1.0)
    >>> box.outliers.tolist(), box.outlier_counts.tolist()
    ([0.2, 0.5], [2, 2])
    """
    values = np.asarray(values, dtype=np.float64)
    p5, q1, median, q3, p95 = (float(v) for v in np.percentile(values, BOX_PERCENTILES))
    outside = values[(values < p5) | (values > p95)]
    distinct, counts = np.unique(outside, return_counts=True)
    return BoxStats(p5, q1, median, q3, p95, distinct, counts)


def stacked_widths(count: int, thinnest: float = 1.6, step: float = 1.5) -> list[float]:
    """Line widths, widest first, for lines drawn in that order that may lie on one another.

    Drawn widest first, each next line thinner and on top, lines that
    coincide show as nested stripes of their colours instead of hiding one
    another (the ASL curves of measures that tell no pair apart all lie at
    p = 0 or 1).

    Examples
    --------
    >>> stacked_widths(3)
    [4.6, 3.1, 1.6]
    """
    return [round(thinnest + step * (count - 1 - index), 2) for index in range(count)]
