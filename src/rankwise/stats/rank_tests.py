"""Tests on signs and ranks of the paired differences: Wilcoxon signed-rank, sign test."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from rankwise.stats._arrays import PairedTestResult, as_differences, finish, scipy_special

__all__ = ["average_ranks", "sign_test", "signed_rank_direction", "wilcoxon_test"]

_EXACT_MAX_N = 50
"""scipy's ``method="auto"``: exact distribution up to 50 pairs without ties or zeros."""

_PERMUTATION_MAX_N = 13
"""scipy's ``method="auto"``: with ties or zeros, enumerate the 2^n sign flips up to 13 pairs."""


def average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks from 1 of a 1-D array, ties sharing their average rank.

    Returns
    -------
    ranks : numpy.ndarray
        Float64 ranks aligned with *values*.
    tie_sizes : numpy.ndarray
        Size of each group of equal values (1 for a value without ties).

    Examples
    --------
    >>> ranks, sizes = average_ranks(np.array([0.5, 0.1, 0.5, 0.3]))
    >>> ranks.tolist(), sizes.tolist()
    ([3.5, 1.0, 3.5, 2.0], [1, 1, 2])
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    group_rank = (starts + ends + 1) / 2.0
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.repeat(group_rank, ends - starts)
    return ranks, ends - starts


@lru_cache(maxsize=64)
def _signed_rank_counts(n: int) -> tuple[int, ...]:
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (exact null of W+)."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for k in range(1, n + 1):
        counts[k : top + k + 1] += counts[: top + 1].copy()
        top += k
    return tuple(int(c) for c in counts)


def _exact_signed_rank_p(r_plus: float, n: int) -> float:
    counts = _signed_rank_counts(n)
    total = 2**n
    low = int(np.ceil(r_plus))
    high = int(np.floor(r_plus))
    cdf = sum(counts[: low + 1]) / total
    sf = sum(counts[high:]) / total
    return float(min(1.0, 2 * min(cdf, sf)))


def _enumerated_signed_rank_p(ranks: np.ndarray, r_plus: float) -> float:
    k = len(ranks)
    patterns = (np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k)) & 1
    null = patterns @ ranks
    gamma = abs(100 * np.finfo(np.float64).eps * r_plus)
    less = np.count_nonzero(null <= r_plus + gamma) / len(null)
    greater = np.count_nonzero(null >= r_plus - gamma) / len(null)
    return float(min(1.0, 2 * min(less, greater)))


def _rank_sums(kept: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The average ranks of the non-zero differences' sizes, their tie groups, W+ and W-."""
    ranks, ties = average_ranks(np.abs(kept))
    return ranks, ties, float(ranks[kept > 0].sum()), float(ranks[kept < 0].sum())


def signed_rank_direction(d: np.ndarray) -> np.ndarray:
    """The sign of :math:`W^+ - W^-` of each column of the differences *d* (pairs x columns).

    Which way the Wilcoxon signed-rank test finds the first system differs:
    +1 when the positive differences hold more rank, -1 when the negative
    ones do, 0 when they balance (or every difference is zero). It can
    disagree with the sign of the mean difference: many small gains and a few
    large losses lean up here and down on average.

    Examples
    --------
    >>> d = np.array([[0.1, -0.1], [0.2, -0.2], [0.3, 0.05], [0.4, 0.0], [-1.5, 0.0]])
    >>> signed_rank_direction(d), d.mean(axis=0)
    (array([ 1, -1]), array([-0.1 , -0.05]))
    """
    d = np.asarray(d, dtype=np.float64).reshape(len(d), -1)
    out = np.zeros(d.shape[1], dtype=np.int64)
    for j in range(d.shape[1]):
        kept = d[:, j][d[:, j] != 0]
        if len(kept):
            _, _, r_plus, r_minus = _rank_sums(kept)
            out[j] = (r_plus > r_minus) - (r_plus < r_minus)
    return out


def wilcoxon_test(a: Any, b: Any = None) -> PairedTestResult:
    r"""Two-sided Wilcoxon signed-rank test, as :func:`scipy.stats.wilcoxon` by default.

    Zero differences are dropped (``zero_method="wilcox"``); the absolute
    values of the :math:`k` others are ranked, ties sharing their average
    rank; :math:`W^+` (:math:`W^-`) is the sum of the ranks of the positive
    (negative) differences. The p-value follows scipy's ``method="auto"``:

    - exact null distribution of :math:`W^+` when there are at most 50 pairs,
      no zero and no tie: :math:`p = \min(1, 2 \min(P(W \le W^+), P(W \ge W^+)))`;
    - with zeros or ties and at most 13 pairs: all :math:`2^k` sign flips of
      the ranked differences are enumerated (an exact permutation p-value);
    - otherwise the normal approximation without continuity correction,
      :math:`z = (W^+ - k(k+1)/4) / \sigma`,
      :math:`\sigma^2 = (k(k+1)(2k+1) - \tfrac12 \sum_g (t_g^3 - t_g)) / 24`
      over the groups :math:`g` of :math:`t_g` tied values,
      :math:`p = 2\Phi(-|z|)`.

    Equal to ``scipy.stats.wilcoxon(a, b)`` to 1e-12, except that all-zero
    differences give ``p = 1`` (scipy: NaN beyond 13 pairs). Reference:
    Wilcoxon, Biometrics Bulletin 1945.

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)`` (each column
        tested separately); or the differences in *a* alone.

    Returns
    -------
    PairedTestResult
        ``statistic`` is :math:`\min(W^+, W^-)`, as in scipy.

    Examples
    --------
    >>> result = wilcoxon_test([0.9, 0.8, 0.7, 0.65, 0.6], [0.1, 0.2, 0.3, 0.4, 0.5])
    >>> result.statistic, result.p_value, result.method
    (0.0, 0.0625, 'exact')
    """
    d, flat = as_differences(a, b)
    n_total, columns = d.shape
    statistic = np.zeros(columns)
    p = np.ones(columns)
    method = ["all differences zero"] * columns
    nonzero_counts = np.count_nonzero(d, axis=0)
    for j in range(columns):
        column = d[:, j]
        kept = column[column != 0]
        k = len(kept)
        if k == 0:
            continue
        ranks, ties, r_plus, r_minus = _rank_sums(kept)
        statistic[j] = min(r_plus, r_minus)
        has_ties = bool((ties > 1).any())
        if n_total <= _EXACT_MAX_N and not has_ties and k == n_total:
            p[j], method[j] = _exact_signed_rank_p(r_plus, k), "exact"
        elif n_total <= _PERMUTATION_MAX_N:
            p[j], method[j] = _enumerated_signed_rank_p(ranks, r_plus), "exact"
        else:
            mean = k * (k + 1) * 0.25
            tie_term = float((ties.astype(np.float64) ** 3 - ties).sum())
            sigma = np.sqrt((k * (k + 1.0) * (2.0 * k + 1.0) - tie_term / 2) / 24)
            z = (r_plus - mean) / sigma
            p[j] = 2 * scipy_special().ndtr(-abs(z))
            method[j] = "normal approximation"
    return finish(statistic, p, method, nonzero_counts, flat)


def sign_test(a: Any, b: Any = None) -> PairedTestResult:
    r"""Two-sided sign test: are positive and negative differences equally likely.

    Ties (zero differences) are dropped. With :math:`k^+` positive and
    :math:`k^-` negative differences, :math:`N = k^+ + k^-` and
    :math:`X \sim \mathrm{Binomial}(N, 1/2)`,

    .. math:: p = \min\bigl(1,\ 2\,P(X \le \min(k^+, k^-))\bigr)

    which equals ``scipy.stats.binomtest(k_plus, N).pvalue``. All-zero
    differences give ``p = 1``. Reference: Conover, *Practical
    Nonparametric Statistics*, 3rd ed., 1999, section 3.4.

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)``; or the
        differences in *a* alone.

    Returns
    -------
    PairedTestResult
        ``statistic`` is :math:`k^+`, the number of positive differences.

    Examples
    --------
    >>> result = sign_test([0.9, 0.8, 0.7, 0.6, 0.5, 0.5], [0.1, 0.2, 0.3, 0.4, 0.6, 0.5])
    >>> result.statistic, result.p_value, result.n
    (4.0, 0.375, 5)
    """
    d, flat = as_differences(a, b)
    positive = np.count_nonzero(d > 0, axis=0)
    negative = np.count_nonzero(d < 0, axis=0)
    total = positive + negative
    p = np.ones(d.shape[1])
    method = ["exact"] * d.shape[1]
    informative = total > 0
    if informative.any():
        tail = scipy_special().bdtr(
            np.minimum(positive, negative)[informative], total[informative], 0.5
        )
        p[informative] = np.minimum(1.0, 2 * tail)
    for j in np.flatnonzero(~informative):
        method[j] = "all differences zero"
    return finish(positive.astype(np.float64), p, method, total, flat)
