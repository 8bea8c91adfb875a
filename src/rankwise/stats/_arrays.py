"""Shared helpers of the paired tests: input checks, results, lazy scipy."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError, MissingDependencyError

__all__ = ["PairedTestResult", "as_differences", "centred", "finish", "scipy_special"]


@dataclass(frozen=True)
class PairedTestResult:
    """The outcome of a paired test.

    Attributes
    ----------
    statistic : float or numpy.ndarray
        The test statistic (one per column for 2-D input): ``t`` for the
        t-test, ``min(W+, W-)`` for Wilcoxon, the number of positive
        differences for the sign test, the mean difference for the
        randomization test, the studentized mean difference for the bootstrap.
    p_value : float or numpy.ndarray
        Two-sided p-value.
    method : str or tuple of str
        How each p-value was obtained: ``"t distribution"``, ``"exact"``,
        ``"normal approximation"``, ``"monte carlo"`` or ``"all differences
        zero"`` (then ``p_value`` is 1).
    n : int or numpy.ndarray
        Number of non-zero differences (the pairs that carry information).
    """

    statistic: Any
    p_value: Any
    method: Any
    n: Any


def as_differences(a: Any, b: Any = None) -> tuple[np.ndarray, bool]:
    """Return paired differences ``a - b`` as a 2-D float64 array (pairs x columns).

    Parameters
    ----------
    a : array_like
        Per-query values of system A, shape ``(n,)`` or ``(n, m)`` (one column
        per measure); the differences themselves when *b* is omitted.
    b : array_like, optional
        Per-query values of system B, the same shape as *a*.

    Returns
    -------
    differences : numpy.ndarray
        Shape ``(n, m)``.
    one_dimensional : bool
        Whether the input was 1-D (results are then returned as scalars).

    Raises
    ------
    InvalidParameterError
        Shapes that differ or are not 1-D / 2-D, or values that are not finite.

    Examples
    --------
    >>> d, flat = as_differences([0.5, 0.25], [0.25, 0.25])
    >>> d.tolist(), flat
    ([[0.25], [0.0]], True)
    """
    x = np.asarray(a, dtype=np.float64)
    if b is not None:
        y = np.asarray(b, dtype=np.float64)
        if x.shape != y.shape:
            raise InvalidParameterError(
                f"paired values must have the same shape: a has {x.shape}, b has {y.shape}"
            )
        x = x - y
    if x.ndim not in (1, 2):
        raise InvalidParameterError(
            f"paired values must be 1-D (queries) or 2-D (queries x measures), got shape {x.shape}"
        )
    if not np.isfinite(x).all():
        raise InvalidParameterError("paired values must be finite numbers; found NaN or infinity")
    flat = x.ndim == 1
    return (x[:, None] if flat else x), flat


def centred(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column's mean and its differences from it, exactly 0 in a column of equal values.

    The mean of n equal values is not always that value in floating point
    (twenty differences of 0.1 have a mean 1.4e-17 away), and a spread of
    rounding would give a standard deviation of 1e-17 instead of 0.

    Examples
    --------
    >>> mean, w = centred(np.full((20, 1), 0.1))
    >>> bool((w == 0).all())
    True
    """
    mean = d.mean(axis=0)
    w = d - mean
    if len(d):
        w[:, (d == d[0]).all(axis=0)] = 0.0
    return mean, w


def finish(
    statistic: np.ndarray, p_value: np.ndarray, method: list[str], n: np.ndarray, flat: bool
) -> PairedTestResult:
    """Package per-column outputs, as scalars for 1-D input."""
    if flat:
        return PairedTestResult(float(statistic[0]), float(p_value[0]), method[0], int(n[0]))
    return PairedTestResult(statistic, p_value, tuple(method), n)


def scipy_special() -> ModuleType:
    """Import :mod:`scipy.special` (lazily: ``import rankwise`` never imports scipy)."""
    try:
        from scipy import special
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "this test needs scipy for its distribution function: pip install 'rankwise[stats]'"
        ) from error
    module: ModuleType = special
    return module
