"""Effect sizes and win / tie / loss counts of paired differences."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.stats._arrays import as_differences, centred

__all__ = ["cohens_dz", "wins_ties_losses"]


def cohens_dz(a: Any, b: Any = None) -> Any:
    r"""Paired Cohen's d (:math:`d_z`): mean difference over its standard deviation.

    .. math:: d_z = \frac{\bar d}{s_d}, \qquad
              s_d = \sqrt{\tfrac{1}{n-1} \sum_i (d_i - \bar d)^2}

    A standardized effect that does not grow with the number of queries
    (:math:`t = d_z \sqrt n`). 0 when every difference is zero,
    :math:`\pm\infty` when all differences are equal and non-zero, NaN for
    fewer than two pairs. Reference: Cohen, *Statistical Power Analysis for
    the Behavioral Sciences*, 2nd ed., 1988, chapter 2; Sakai, SIGIR Forum 2014.

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)``; or the
        differences in *a* alone.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(cohens_dz([0.5, 0.75, 1.0, 0.5], [0.25, 0.5, 0.5, 0.5]), 6)
    1.224745
    """
    d, flat = as_differences(a, b)
    n = d.shape[0]
    if n < 2:
        out = np.full(d.shape[1], np.nan)
    else:
        mean, w = centred(d)
        sd = np.sqrt((w**2).sum(axis=0) / (n - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = mean / sd
        out[~d.any(axis=0)] = 0.0
    return float(out[0]) if flat else out


def wins_ties_losses(a: Any, b: Any = None) -> tuple[Any, Any, Any]:
    """Count the queries where A scores higher than, equal to, and lower than B.

    Values are compared exactly (``a > b``, ``a == b``, ``a < b``).

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)``; or the
        differences in *a* alone.

    Returns
    -------
    wins, ties, losses : int or numpy.ndarray

    Examples
    --------
    >>> wins_ties_losses([0.5, 0.2, 0.1], [0.4, 0.2, 0.3])
    (1, 1, 1)
    """
    d, flat = as_differences(a, b)
    counts = (
        np.count_nonzero(d > 0, axis=0),
        np.count_nonzero(d == 0, axis=0),
        np.count_nonzero(d < 0, axis=0),
    )
    if flat:
        return int(counts[0][0]), int(counts[1][0]), int(counts[2][0])
    return counts
