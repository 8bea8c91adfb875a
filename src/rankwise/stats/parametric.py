"""The paired t-test."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.stats._arrays import PairedTestResult, as_differences, finish, scipy_special

__all__ = ["paired_t_test"]


def paired_t_test(a: Any, b: Any = None) -> PairedTestResult:
    r"""Two-sided paired (Student) t-test of a zero mean difference.

    With differences :math:`d_i = a_i - b_i` over :math:`n` queries,

    .. math::

        t = \frac{\bar d}{s_d / \sqrt{n}}, \qquad
        p = 2\,P(T_{n-1} \ge |t|)

    where :math:`s_d` is the sample standard deviation (``ddof=1``) and
    :math:`T_{n-1}` Student's t distribution with :math:`n - 1` degrees of
    freedom. Equal to :func:`scipy.stats.ttest_rel` (to 1e-12), except that
    all-zero differences give ``p = 1`` (scipy: NaN) and fewer than two
    pairs give NaN. Reference: Student (1908); Smucker, Allan & Carterette,
    CIKM 2007 (for its use in IR).

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)`` (one column per
        measure, tested separately); or the differences in *a* alone.

    Returns
    -------
    PairedTestResult
        ``statistic`` is ``t``; ``n`` the number of non-zero differences.

    Examples
    --------
    >>> result = paired_t_test([0.5, 0.75, 1.0, 0.5], [0.25, 0.5, 0.5, 0.5])
    >>> round(result.statistic, 6), round(result.p_value, 6)
    (2.44949, 0.091721)
    """
    d, flat = as_differences(a, b)
    n = d.shape[0]
    nonzero = np.count_nonzero(d, axis=0)
    method = ["t distribution"] * d.shape[1]
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return finish(nan, nan.copy(), method, nonzero, flat)
    mean = d.mean(axis=0)
    variance = ((d - mean) ** 2).mean(axis=0) * (n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(variance / n)
    p = 2 * scipy_special().stdtr(n - 1, -np.abs(t))
    zero = nonzero == 0
    t[zero], p[zero] = 0.0, 1.0
    for j in np.flatnonzero(zero):
        method[j] = "all differences zero"
    return finish(t, p, method, nonzero, flat)
