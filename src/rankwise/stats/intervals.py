"""Confidence intervals for a mean (of one system's values, or of paired differences)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._validation import Number, check
from rankwise.exceptions import InvalidParameterError
from rankwise.stats._student import t_critical
from rankwise.stats.resampling import DEFAULT_CHUNK_SIZE, bootstrap_sums, check_resamples

__all__ = ["check_confidence", "percentile_interval", "quantile_bounds", "t_interval"]


def check_confidence(confidence: Any) -> float:
    """Validate a confidence level strictly between 0 and 1."""
    return float(check("confidence", confidence, _CONFIDENCE))


_CONFIDENCE = Number(0, 1, closed="neither", text=True)


def _columns(values: Any) -> tuple[np.ndarray, bool]:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise InvalidParameterError(f"values must be 1-D or 2-D, got shape {x.shape}")
    return (x[:, None] if x.ndim == 1 else x), x.ndim == 1


def t_interval(values: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    r"""Student-t confidence interval for the mean of each column.

    .. math:: \bar x \pm t_{1 - \alpha/2,\ n-1}\ \frac{s}{\sqrt n}

    with :math:`s` the sample standard deviation (``ddof=1``) and
    :math:`1 - \alpha` the *confidence*. It is the interval that inverts the
    paired t-test when *values* are differences. NaN for fewer than two values.

    Parameters
    ----------
    values : array_like
        Shape ``(n,)`` or ``(n, m)``.
    confidence : float
        Confidence level, e.g. 0.95.

    Returns
    -------
    low, high : float or numpy.ndarray

    Examples
    --------
    >>> low, high = t_interval([0.2, 0.4, 0.6, 0.8])
    >>> round(low, 4), round(high, 4)
    (0.0891, 0.9109)
    """
    confidence = check_confidence(confidence)
    x, flat = _columns(values)
    n = x.shape[0]
    if n < 2:
        low = high = np.full(x.shape[1], np.nan)
    else:
        mean = x.mean(axis=0)
        sd = np.sqrt(((x - mean) ** 2).sum(axis=0) / (n - 1))
        half = t_critical(n - 1, confidence) * sd / np.sqrt(n)
        low, high = mean - half, mean + half
    return (float(low[0]), float(high[0])) if flat else (low, high)


def percentile_interval(
    values: Any,
    confidence: float = 0.95,
    *,
    n_resamples: int = 10_000,
    seed: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> tuple[Any, Any]:
    r"""Bootstrap percentile confidence interval for the mean of each column.

    The rows (queries) are resampled with replacement *B* times; the
    interval is the :math:`\alpha/2` and :math:`1 - \alpha/2` quantiles
    (numpy's default linear interpolation) of the *B* resampled means.
    Reference: Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993,
    chapter 13. All columns share the same resamples.

    Parameters
    ----------
    values : array_like
        Shape ``(n,)`` or ``(n, m)``.
    confidence : float
        Confidence level, e.g. 0.95.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or numpy.random.SeedSequence, optional
        Fixes the resamples; None draws fresh entropy.
    chunk_size : int
        Elements processed at once; does not change the result.

    Returns
    -------
    low, high : float or numpy.ndarray

    Examples
    --------
    >>> low, high = percentile_interval([0.2, 0.4, 0.6, 0.8], seed=0)
    >>> 0.2 <= low < 0.5 < high <= 0.8
    True
    """
    confidence = check_confidence(confidence)
    n_resamples, chunk_size = check_resamples(n_resamples, chunk_size)
    x, flat = _columns(values)
    if x.shape[0] == 0:
        low = high = np.full(x.shape[1], np.nan)
    else:
        means = bootstrap_sums(x, n_resamples, seed, chunk_size) / x.shape[0]
        low, high = quantile_bounds(means, confidence)
    return (float(low[0]), float(high[0])) if flat else (low, high)


def quantile_bounds(resampled: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided percentile bounds of each column of resampled statistics."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(resampled, [tail, 1 - tail], axis=0)
    return low, high
