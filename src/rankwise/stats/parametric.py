"""The paired t-test, and Student's two-sample t-test."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.stats._arrays import PairedTestResult, as_differences, finish, scipy_special

__all__ = ["paired_t_test", "unpaired_t_test", "welch_anova"]


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


def unpaired_t_test(a: Any, b: Any) -> tuple[float, float]:
    r"""Student's two-sided two-sample t-test (equal variances): ``(t, p)``.

    .. math::

        t = \frac{\bar a - \bar b}{s_p \sqrt{1/n_a + 1/n_b}}, \qquad
        s_p^2 = \frac{(n_a - 1) s_a^2 + (n_b - 1) s_b^2}{n_a + n_b - 2}

    on :math:`n_a + n_b - 2` degrees of freedom; equal to
    :func:`scipy.stats.ttest_ind` (``equal_var=True``). Two identical
    constant samples give ``p = 1``; fewer than three values in all, NaN.
    Used for replicability (different topics), as repro_eval does.

    Examples
    --------
    >>> t, p = unpaired_t_test([0.1, 0.4, 0.35, 0.8, 0.5], [0.2, 0.3, 0.3, 0.6, 0.45])
    >>> round(t, 6), round(p, 6)
    (0.449719, 0.664848)
    """
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    n_x, n_y = len(x), len(y)
    df = n_x + n_y - 2
    if n_x == 0 or n_y == 0 or df < 1:
        return float("nan"), float("nan")
    mean_x, mean_y = x.mean(), y.mean()
    pooled = (((x - mean_x) ** 2).sum() + ((y - mean_y) ** 2).sum()) / df
    difference = mean_x - mean_y
    if pooled == 0:
        return (0.0, 1.0) if difference == 0 else (float(np.sign(difference) * np.inf), 0.0)
    t = difference / np.sqrt(pooled * (1 / n_x + 1 / n_y))
    return float(t), float(2 * scipy_special().stdtr(df, -abs(t)))


def welch_anova(samples: Any) -> tuple[float, float]:
    r"""Welch's one-way ANOVA (unequal variances) of two samples or more: ``(F, p)``.

    With :math:`w_i = n_i / s_i^2`, :math:`W = \sum w_i`, the weighted mean
    :math:`\bar x_w = \sum w_i \bar x_i / W` and
    :math:`\Lambda = \sum (1 - w_i / W)^2 / (n_i - 1)`,

    .. math::

        F = \frac{\sum w_i (\bar x_i - \bar x_w)^2 / (k - 1)}
                 {1 + 2 (k - 2) \Lambda / (k^2 - 1)}

    on :math:`k - 1` and :math:`(k^2 - 1) / (3 \Lambda)` degrees of freedom
    (Welch 1951); equal to :func:`scipy.stats.f_oneway` with
    ``equal_var=False`` (scipy 1.16 and later), which older scipy lacks. A
    sample of fewer than two values, or one whose values are all equal, gives
    NaN.

    Examples
    --------
    >>> f, p = welch_anova([[0.1, 0.4, 0.35, 0.8], [0.2, 0.3, 0.3, 0.6, 0.45],
    ...                     [0.9, 0.7, 0.8]])
    >>> round(f, 6), round(p, 6)
    (10.906829, 0.012008)
    """
    groups = [np.asarray(sample, dtype=np.float64).ravel() for sample in samples]
    k = len(groups)
    sizes = np.array([len(g) for g in groups], dtype=np.float64)
    if k < 2 or (sizes < 2).any():
        return float("nan"), float("nan")
    means = np.array([g.mean() for g in groups])
    variances = np.array([g.var(ddof=1) for g in groups])
    if (variances == 0).any():
        return float("nan"), float("nan")
    weights = sizes / variances
    total = weights.sum()
    weighted_mean = (weights * means).sum() / total
    spread = ((1 - weights / total) ** 2 / (sizes - 1)).sum()
    numerator = (weights * (means - weighted_mean) ** 2).sum() / (k - 1)
    f = numerator / (1 + 2 * (k - 2) * spread / (k * k - 1))
    df_within = (k * k - 1) / (3 * spread)
    return float(f), float(scipy_special().fdtrc(k - 1, df_within, f))
