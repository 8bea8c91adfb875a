r"""Topic set size design: how many topics a test collection needs (Sakai 2016, after Nagata 2003).

Three requirements (T. Sakai, "Topic set size design", *Information
Retrieval Journal* 19(3):256-283, 2016; *Laboratory Experiments in
Information Retrieval*, Springer 2018, ch. 6; Y. Nagata, *How to Design the
Sample Size*, Asakura Shoten, 2003):

- **paired t-test**: power :math:`1 - \beta` at level :math:`\alpha` to detect
  a difference :math:`minD_t` between two systems, given the variance of the
  per-topic differences :math:`\sigma_t^2` (Sakai's tool ``samplesizeTTEST2``);
- **one-way ANOVA**: power :math:`1 - \beta` to detect that the best and the
  worst of :math:`m` systems differ by :math:`minD`, given the within-system
  variance :math:`\sigma^2` (``samplesizeANOVA2``);
- **confidence interval**: the expected width of the :math:`100(1-\alpha)\%`
  interval of a paired mean difference at most :math:`\delta`, given
  :math:`\sigma_t^2` (``samplesizeCI2``).

Each is the smallest :math:`n \ge 2` meeting the requirement, with the
power or the expected width computed

- ``method="exact"``: with the noncentral t and F distributions (R's
  ``power.t.test(type="paired", strict=TRUE)`` and ``pwr.anova.test``) and
  the exact :math:`E[\sqrt{V}]` (gamma functions);
- ``method="sakai"``: with the normal approximations of Nagata's book that
  Sakai's Excel sheets evaluate (Excel has no noncentral distributions).

For the t-test and the interval the two methods agree on every cell of
the usual tables (:math:`\alpha = 0.05, \beta = 0.20`, differences 0.05 to
0.20, variances 0.01 to 0.10); for ANOVA the approximation differs by up to
a few topics (most at :math:`m = 2`, where it is too small).

Sakai estimates :math:`\sigma^2` from past runs as the residual variance
:math:`V_E` of a two-way ANOVA (system x topic) and, for the paired tools,
takes :math:`\sigma_t^2 = 2\sigma^2`, which ignores the covariance and errs
on the safe side.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rankwise._validation import LEVEL, Integer, Number, OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.stats._arrays import scipy_special

__all__ = [
    "METHODS",
    "TopicSetSize",
    "anova_power",
    "anova_topic_set_size",
    "ci_expected_width",
    "ci_topic_set_size",
    "paired_t_power",
    "t_test_topic_set_size",
]

_MAX_DEGREES = 10**12
"""Systems - 1 beyond which scipy's noncentral chi-square gives no reliable value."""

METHODS = ("exact", "sakai")
"""How power and expected widths are computed."""

_LARGEST = 10**8
"""No design asks for more topics than this."""


@dataclass(frozen=True)
class TopicSetSize:
    r"""The topics a requirement needs.

    Attributes
    ----------
    test : {"t-test", "anova", "ci"}
    n : int
        The smallest number of topics meeting the requirement.
    achieved : float
        The power at *n* (t-test, ANOVA), or the expected interval width at *n* (ci).
    start : float
        Nagata's closed-form first estimate, where the search starts.
    method : {"exact", "sakai"}
    alpha : float
    beta : float or None
        Type II error allowed (None for ci).
    min_diff : float
        :math:`minD_t` (t-test), the range :math:`minD` (ANOVA) or the width cap
        :math:`\delta` (ci).
    variance : float
        :math:`\sigma_t^2` (t-test, ci) or :math:`\sigma^2` (ANOVA).
    n_systems : int or None
        :math:`m` (ANOVA).
    """

    test: str
    n: int
    achieved: float
    start: float
    method: str
    alpha: float
    beta: float | None
    min_diff: float
    variance: float
    n_systems: int | None = None


# ----------------------------------------------------------------------------
# checks and the search
# ----------------------------------------------------------------------------


_POSITIVE = Number(low=0, closed="neither", finite=True)
_METHOD = OneOf(METHODS, words="'exact' (noncentral distributions) or 'sakai' (the normal "
                               "approximations of Sakai's Excel tools)")
_TOPICS = Integer(low=2)


def _smallest(ok: Callable[[int], bool], start: float, what: str) -> int:
    """The smallest n >= 2 with ok(n), searching from *start* both ways."""
    if math.isnan(start):
        raise InvalidParameterError(
            f"{what}: the number of topics cannot be computed for these values (the "
            "distributions give no finite value)"
        )
    n = _LARGEST if start >= _LARGEST else max(2, math.ceil(start))  # (or infinite)
    while not ok(n):
        if n >= _LARGEST:
            raise InvalidParameterError(
                f"{what} needs more than {_LARGEST:,} topics; the difference to detect is too "
                "small for the variance"
            )
        n = min(_LARGEST, n + max(1, n // 1000))
    while n > 2 and ok(n - 1):
        n -= 1
    return n


# ----------------------------------------------------------------------------
# paired t-test
# ----------------------------------------------------------------------------


def _noncentral_t_cdf(special: Any, phi: int, noncentrality: float, x: float) -> float:
    r"""P(T' <= x) of the noncentral t, also far in its lower tail, where scipy gives NaN.

    With :math:`T' = (Z + \lambda) / \sqrt{V/\phi}`, a point far below the
    noncentrality has :math:`P(T' \le x) \le \Phi(-\lambda/2) + P(V/\phi \ge
    (\lambda / 2x)^2)` (for :math:`x \le 0`, :math:`\le \Phi(-\lambda)`): below
    1e-80 when :math:`\lambda \ge 80` and :math:`\lambda \ge 40 x`, so it is
    0 at every digit a power is read to. Elsewhere, where scipy's ``nctdtr``
    gives NaN (it does at some points of the lower tail with a noncentrality
    near 10: ``nctdtr(59, 9.6, -2.0009995)``), the value is the integral
    :func:`_integrated_cdf`.

    Examples
    --------
    >>> import scipy.special as special
    >>> _noncentral_t_cdf(special, 1, 1e300, 12.7)  # scipy's nctdtr: nan
    0.0
    """
    value = float(special.nctdtr(phi, noncentrality, x))
    if math.isnan(value) and noncentrality >= 80 and noncentrality >= 40 * x:
        return 0.0
    if math.isnan(value):
        value = _integrated_cdf(special, phi, noncentrality, x)
    if math.isnan(value):
        raise InvalidParameterError(
            f"the noncentral t distribution gives no value at {x:g} (noncentrality "
            f"{noncentrality:g}, {phi} degrees of freedom)"
        )
    return value


def _integrated_cdf(special: Any, phi: int, noncentrality: float, x: float) -> float:
    r"""P(T' <= x) integrated: :math:`\int_0^\infty \Phi(x \sqrt{v/\phi} - \lambda) f(v) dv`.

    *f* is the density of the chi-square with :math:`\phi` degrees of freedom.

    The definition of :math:`T'` integrated over the chi-square variable
    (scipy's ``quad``, relative error 1e-10), split at :math:`\phi / 4,
    \phi / 2, \phi, 2\phi, 4\phi` around the chi-square's mass; NaN when
    the integral does not converge. Far in the lower tail it agrees with
    mpmath's integral to 7 digits or more, where scipy's ``nctdtr`` is off by
    a factor of 40 or more (tests).

    Examples
    --------
    >>> import scipy.special as special
    >>> f"{_integrated_cdf(special, 59, 9.60143, -2.001):.9e}"  # mpmath: 1.765056977e-30
    '1.765056977e-30'
    """
    from scipy import integrate

    half = phi / 2.0
    log_scale = half * math.log(2.0) + float(special.gammaln(half))

    def integrand(v: float) -> float:
        if v <= 0.0:
            return 0.0
        density = math.exp((half - 1.0) * math.log(v) - v / 2.0 - log_scale)
        return float(special.ndtr(x * math.sqrt(v / phi) - noncentrality)) * density

    cuts = [0.0, phi / 4.0, phi / 2.0, float(phi), 2.0 * phi, 4.0 * phi, math.inf]
    total = 0.0
    for low, high in itertools.pairwise(cuts):
        part, _ = integrate.quad(integrand, low, high, epsabs=0.0, epsrel=1e-10, limit=200)
        total += part
    return min(1.0, total) if math.isfinite(total) else math.nan


def paired_t_power(effect_size: float, n: int, *, alpha: float = 0.05,
                   method: str = "exact") -> float:
    r"""Power of the two-sided paired t-test with *n* topics at a standardised difference.

    With :math:`\phi = n - 1`, :math:`w = t_{1-\alpha/2}(\phi)` and the
    noncentrality :math:`\lambda = \sqrt n\,\Delta` (:math:`\Delta` =
    *effect_size* = difference / standard deviation of the differences):

    - exact: :math:`P(T' > w) + P(T' < -w)`, :math:`T'` noncentral t;
    - sakai: :math:`\Phi\bigl(\frac{-w(1 - \frac{1}{4\phi}) - \lambda}{\sqrt{1 + w^2/(2\phi)}}\bigr)
      + 1 - \Phi\bigl(\frac{w(1 - \frac{1}{4\phi}) - \lambda}{\sqrt{1 + w^2/(2\phi)}}\bigr)`.

    The power of an existing comparison (Sakai's ``future.sample.pairedt``)
    takes :math:`\Delta = |t| / \sqrt n`, which is the paired Cohen's
    :math:`d_z` of :attr:`rankwise.comparison.ComparisonRow.effect_size`.

    Examples
    --------
    >>> round(paired_t_power(2.1 / 50 ** 0.5, 50), 6)  # t = 2.1 with 50 topics
    0.539373
    """
    special = scipy_special()
    alpha = check("alpha", alpha, LEVEL)
    method = check("method", method, _METHOD)
    n = check("n", n, _TOPICS)
    delta = abs(float(effect_size))
    phi = n - 1
    w = float(special.stdtrit(phi, 1 - alpha / 2))
    noncentrality = math.sqrt(n) * delta
    if method == "exact":
        upper = 1.0 - _noncentral_t_cdf(special, phi, noncentrality, w)
        lower = _noncentral_t_cdf(special, phi, noncentrality, -w)
        return min(1.0, max(0.0, upper + lower))
    shrink = w * (1 - 1 / (4 * phi))
    spread = math.sqrt(1 + w * w / (2 * phi))
    return float(special.ndtr((-shrink - noncentrality) / spread)
                 + 1 - special.ndtr((shrink - noncentrality) / spread))


def t_test_topic_set_size(min_diff: float, variance: float, *, alpha: float = 0.05,
                          beta: float = 0.20, method: str = "exact") -> TopicSetSize:
    r"""Topics for a paired t-test to detect *min_diff* with power ``1 - beta``.

    :math:`\Delta = minD_t / \sigma_t`; Nagata's start
    :math:`n_0 = ((z_{1-\alpha/2} + z_{1-\beta}) / \Delta)^2 + z_{1-\alpha/2}^2 / 2`.

    Parameters
    ----------
    min_diff : float
        :math:`minD_t`, the smallest difference between two systems' means
        that must be detected.
    variance : float
        :math:`\sigma_t^2`, the variance of the per-topic differences (Sakai:
        :math:`2 V_E`). For a standardised effect size give ``min_diff=d,
        variance=1``.
    alpha, beta : float
        Type I and type II error probabilities.
    method : {"exact", "sakai"}
        Noncentral t, or the normal approximation of Sakai's Excel tool.

    Returns
    -------
    TopicSetSize

    Examples
    --------
    >>> t_test_topic_set_size(0.10, 0.10).n  # Sakai's table: minD_t = 0.10, sigma_t^2 = 0.10
    81
    """
    special = scipy_special()
    min_diff = check("min_diff", min_diff, _POSITIVE)
    variance = check("variance", variance, _POSITIVE)
    alpha, beta = check("alpha", alpha, LEVEL), check("beta", beta, LEVEL)
    method = check("method", method, _METHOD)
    delta = min_diff / math.sqrt(variance)
    z_alpha, z_beta = float(special.ndtri(1 - alpha / 2)), float(special.ndtri(1 - beta))
    ratio = (z_alpha + z_beta) / delta
    start = ratio * ratio + z_alpha * z_alpha / 2  # (infinite, not an error, for a tiny delta)

    def ok(n: int) -> bool:
        return paired_t_power(delta, n, alpha=alpha, method=method) >= 1 - beta

    n = _smallest(ok, start, "the paired t-test")
    return TopicSetSize("t-test", n, paired_t_power(delta, n, alpha=alpha, method=method),
                        start, method, alpha, beta, min_diff, variance)


# ----------------------------------------------------------------------------
# one-way ANOVA
# ----------------------------------------------------------------------------


def anova_power(min_diff: float, variance: float, n_systems: int, n: int, *,
                alpha: float = 0.05, method: str = "exact") -> float:
    r"""Power of one-way ANOVA over *n_systems* with *n* topics each, at a range *min_diff*.

    The worst case for a range :math:`minD` between the best and the worst
    system puts the others at the grand mean: :math:`\Delta = minD^2 /
    (2\sigma^2)`, noncentrality :math:`\lambda = n\Delta`,
    :math:`\phi_A = m - 1`, :math:`\phi_E = m(n - 1)`, :math:`w = F_{1-\alpha}(\phi_A, \phi_E)`.

    - exact: :math:`P(F' > w)`, :math:`F'` noncentral F (= R's
      ``pwr.anova.test(k=m, n=n, f=sqrt(Delta/m))``);
    - sakai: Patnaik's and Fisher's approximations, :math:`1 - \Phi(u)` with
      :math:`c_A = (\phi_A + 2\lambda)/(\phi_A + \lambda)`,
      :math:`\phi_A^* = (\phi_A + \lambda)^2/(\phi_A + 2\lambda)` and
      :math:`u = \bigl(\sqrt{w/\phi_E}\sqrt{2\phi_E - 1} - \sqrt{c_A/\phi_A}
      \sqrt{2\phi_A^* - 1}\bigr) / \sqrt{c_A/\phi_A + w/\phi_E}`.

    Examples
    --------
    >>> round(anova_power(0.10, 0.05, 10, 100), 4)
    0.5595
    """
    special = scipy_special()
    alpha = check("alpha", alpha, LEVEL)
    method = check("method", method, _METHOD)
    m = check("n_systems", n_systems, _TOPICS)
    n = check("n", n, _TOPICS)
    min_diff = check("min_diff", min_diff, _POSITIVE)
    spread = min_diff * min_diff / (2 * check("variance", variance, _POSITIVE))
    phi_a, phi_e = m - 1, m * (n - 1)
    w = float(special.fdtri(phi_a, phi_e, 1 - alpha))
    noncentrality = n * spread
    if method == "exact":
        below = float(special.ncfdtr(phi_a, phi_e, noncentrality, w))
        if math.isnan(below) and noncentrality >= 80 and noncentrality >= 40 * phi_a * w:
            below = 0.0  # far in the lower tail (as _noncentral_t_cdf): scipy gives NaN there
        if math.isnan(below):
            raise InvalidParameterError(
                f"the noncentral F distribution gives no value at {w:g} (noncentrality "
                f"{noncentrality:g}, {phi_a} and {phi_e} degrees of freedom)"
            )
        return min(1.0, max(0.0, 1.0 - below))
    c_a = (phi_a + 2 * noncentrality) / (phi_a + noncentrality)
    phi_star = (phi_a + noncentrality) ** 2 / (phi_a + 2 * noncentrality)
    u = ((math.sqrt(w / phi_e) * math.sqrt(2 * phi_e - 1)
          - math.sqrt(c_a / phi_a) * math.sqrt(2 * phi_star - 1))
         / math.sqrt(c_a / phi_a + w / phi_e))
    return float(1 - special.ndtr(u))


def anova_topic_set_size(min_diff: float, variance: float, n_systems: int, *,
                         alpha: float = 0.05, beta: float = 0.20,
                         method: str = "exact") -> TopicSetSize:
    r"""Topics for one-way ANOVA over *n_systems* to detect a range *min_diff*.

    The search starts at :math:`n_0 = \lambda_\infty / \Delta`, with
    :math:`\lambda_\infty` the noncentrality a chi-square test on
    :math:`\phi_A` degrees of freedom needs for power :math:`1 - \beta` (the
    limit Nagata's table approximates by :math:`x_1 + x_2\sqrt{m - 1}`).

    Parameters
    ----------
    min_diff : float
        :math:`minD`, the range between the best and the worst system to detect.
    variance : float
        :math:`\sigma^2`, the within-system variance (Sakai: :math:`V_E`).
    n_systems : int
        :math:`m`.
    alpha, beta : float
        Type I and type II error probabilities.
    method : {"exact", "sakai"}
        Noncentral F, or Patnaik's approximation as in Sakai's Excel tool.

    Returns
    -------
    TopicSetSize

    Examples
    --------
    >>> exact = anova_topic_set_size(0.10, 0.05, 10)
    >>> exact.n, anova_topic_set_size(0.10, 0.05, 10, method="sakai").n
    (158, 157)
    """
    special = scipy_special()
    m = check("n_systems", n_systems, _TOPICS)
    min_diff = check("min_diff", min_diff, _POSITIVE)
    variance = check("variance", variance, _POSITIVE)
    alpha, beta = check("alpha", alpha, LEVEL), check("beta", beta, LEVEL)
    method = check("method", method, _METHOD)
    spread = min_diff * min_diff / (2 * variance)
    critical = float(special.chdtri(m - 1, alpha))
    limit = float(special.chndtrinc(critical, m - 1, beta))
    # scipy's noncentral chi-square gives up near 10^12 degrees of freedom (NaN from scipy 1.16;
    # older versions return a value whose F search then fails): the same refusal for every scipy
    if math.isnan(limit) or m - 1 >= _MAX_DEGREES:
        raise InvalidParameterError(
            f"one-way ANOVA over {m:,} systems: the number of topics cannot be computed (the "
            "noncentral chi-square distribution gives no finite value); give fewer systems"
        )
    start = limit / spread if spread > 0 else math.inf

    def ok(n: int) -> bool:
        return anova_power(min_diff, variance, m, n, alpha=alpha, method=method) >= 1 - beta

    n = _smallest(ok, start, "one-way ANOVA")
    return TopicSetSize("anova", n,
                        anova_power(min_diff, variance, m, n, alpha=alpha, method=method),
                        start, method, alpha, beta, min_diff, variance, m)


# ----------------------------------------------------------------------------
# confidence interval width
# ----------------------------------------------------------------------------


def ci_expected_width(n: int, variance: float, *, alpha: float = 0.05,
                      method: str = "exact") -> float:
    r"""Expected width of the :math:`100(1-\alpha)\%` t interval of a paired mean difference.

    The width is :math:`2 t_{1-\alpha/2}(\phi) \sqrt{V_t / n}`, :math:`\phi = n - 1`;
    :math:`E[\sqrt{V_t}] = \sigma_t \sqrt{2/\phi}\,\Gamma(\frac{\phi+1}{2}) /
    \Gamma(\frac\phi2)` (exact), or :math:`\approx \sigma_t (1 - \frac{1}{4\phi})` (sakai).

    Examples
    --------
    >>> round(ci_expected_width(64, 0.01), 6)
    0.049761
    """
    special = scipy_special()
    alpha = check("alpha", alpha, LEVEL)
    method = check("method", method, _METHOD)
    n = check("n", n, _TOPICS)
    sigma = math.sqrt(check("variance", variance, _POSITIVE))
    phi = n - 1
    t = float(special.stdtrit(phi, 1 - alpha / 2))
    if method == "exact":
        ratio = math.exp(float(special.gammaln((phi + 1) / 2) - special.gammaln(phi / 2)))
        expected = sigma * math.sqrt(2 / phi) * ratio
    else:
        expected = sigma * (1 - 1 / (4 * phi))
    return 2 * t * expected / math.sqrt(n)


def ci_topic_set_size(width: float, variance: float, *, alpha: float = 0.05,
                      method: str = "exact") -> TopicSetSize:
    r"""Topics for the expected width of a paired difference's interval to be at most *width*.

    Start: :math:`n_0 = 4 z_{1-\alpha/2}^2 \sigma_t^2 / \delta^2`.

    Parameters
    ----------
    width : float
        :math:`\delta`, the cap on the expected width of the interval.
    variance : float
        :math:`\sigma_t^2`, the variance of the per-topic differences (Sakai: :math:`2 V_E`).
    alpha : float
        The interval's confidence is :math:`1 - \alpha`.
    method : {"exact", "sakai"}
        Gamma functions, or :math:`1 - 1/(4\phi)` as in Sakai's Excel tool.

    Returns
    -------
    TopicSetSize

    Examples
    --------
    >>> ci_topic_set_size(0.05, 0.01).n
    64
    """
    special = scipy_special()
    width = check("width", width, _POSITIVE)
    variance = check("variance", variance, _POSITIVE)
    alpha = check("alpha", alpha, LEVEL)
    method = check("method", method, _METHOD)
    z = float(special.ndtri(1 - alpha / 2))
    start = 4 * z * z * variance / (width * width) if width * width > 0 else math.inf

    def ok(n: int) -> bool:
        return ci_expected_width(n, variance, alpha=alpha, method=method) <= width

    n = _smallest(ok, start, "the confidence interval")
    return TopicSetSize("ci", n, ci_expected_width(n, variance, alpha=alpha, method=method),
                        start, method, alpha, None, width, variance)
