r"""Two-way ANOVA without replication: systems x topics, one value per cell.

With :math:`x_{ij}` the value of system :math:`i = 1..m` on topic
:math:`j = 1..n` (Sakai, *Laboratory Experiments in Information Retrieval*,
2018, ch. 3; the notation is his):

.. math::

    S_A = n \sum_i (\bar x_{i\cdot} - \bar x)^2, \quad
    S_B = m \sum_j (\bar x_{\cdot j} - \bar x)^2, \quad
    S_E = \sum_{ij} (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2

with :math:`\phi_A = m - 1`, :math:`\phi_B = n - 1`,
:math:`\phi_E = (m - 1)(n - 1)`, mean squares :math:`V = S / \phi`,
:math:`F_A = V_A / V_E` and :math:`p_A = P(F_{\phi_A, \phi_E} > F_A)`.
:math:`V_E` is the residual variance Tukey's HSD and topic set size design use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise._wording import format_p
from rankwise.exceptions import InvalidParameterError
from rankwise.stats._arrays import scipy_special

__all__ = ["TwoWayAnova", "as_matrix", "two_way_anova"]


def as_matrix(values: Any, what: str = "values") -> np.ndarray:
    """A finite 2-D float64 matrix, systems x topics, with at least 2 of each.

    Raises
    ------
    InvalidParameterError
        Not 2-D, fewer than 2 systems or topics, or NaN / infinite values.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise InvalidParameterError(
            f"{what} must be a 2-D matrix (systems x topics), got shape {x.shape}"
        )
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise InvalidParameterError(
            f"{what} needs at least 2 systems and 2 topics, got {x.shape[0]} x {x.shape[1]}"
        )
    if not np.isfinite(x).all():
        raise InvalidParameterError(f"{what} must be finite numbers; found NaN or infinity")
    return x


@dataclass(frozen=True)
class TwoWayAnova:
    r"""Two-way ANOVA without replication (system x topic).

    Attributes
    ----------
    n_systems, n_topics : int
        :math:`m` and :math:`n`.
    ss_systems, ss_topics, ss_residual, ss_total : float
        Sums of squares :math:`S_A, S_B, S_E, S_T`.
    df_systems, df_topics, df_residual : int
        :math:`\phi_A = m - 1`, :math:`\phi_B = n - 1`, :math:`\phi_E = (m-1)(n-1)`.
    ms_systems, ms_topics, residual_variance : float
        Mean squares :math:`V_A, V_B, V_E`.
    f_systems, f_topics : float
        :math:`F_A = V_A / V_E`, :math:`F_B = V_B / V_E`.
    p_systems, p_topics : float
        Upper tail of the F distribution at each F.
    omega2_systems, omega2_topics : float
        :math:`\hat\omega^2_A = (S_A - \phi_A V_E) / (S_T + V_E)` (Sakai 2018,
        ch. 3): the share of the variance the systems explain. Negative
        when :math:`F_A < 1`; reported as is.
    partial_omega2_systems, partial_omega2_topics : float
        :math:`\phi_A (F_A - 1) / (\phi_A (F_A - 1) + mn)`.
    system_means : numpy.ndarray
        :math:`\bar x_{i\cdot}`, in the order of the rows.
    """

    n_systems: int
    n_topics: int
    ss_systems: float
    ss_topics: float
    ss_residual: float
    ss_total: float
    df_systems: int
    df_topics: int
    df_residual: int
    ms_systems: float
    ms_topics: float
    residual_variance: float
    f_systems: float
    f_topics: float
    p_systems: float
    p_topics: float
    omega2_systems: float
    omega2_topics: float
    partial_omega2_systems: float
    partial_omega2_topics: float
    system_means: np.ndarray

    def summary(self, digits: int = 4) -> str:
        """One line: F, p, omega squared and the residual variance of the systems.

        Examples
        --------
        >>> x = [[0.25, 0.5, 0.75], [0.5, 0.5, 1.0]]
        >>> two_way_anova(x).summary()
        'F(1, 2) = 4.0000, p = 0.1835, ω² = 0.0909, residual variance V_E = 0.0104'
        """
        return (f"F({self.df_systems}, {self.df_residual}) = {self.f_systems:.{digits}f}, "
                f"p = {format_p(self.p_systems, digits)}, ω² = {self.omega2_systems:.{digits}f}, "
                f"residual variance V_E = {self.residual_variance:.{digits}f}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain Python values (the means as a list)."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["system_means"] = [float(v) for v in self.system_means]
        return out


def two_way_anova(values: Any) -> TwoWayAnova:
    r"""Two-way ANOVA without replication of a systems x topics matrix.

    The residual sum of squares is computed from the residuals themselves
    (not as :math:`S_T - S_A - S_B`, which loses digits). It equals
    statsmodels' ``anova_lm(ols("score ~ C(system) + C(topic)"))`` and R's
    ``summary(aov(score ~ system + topic))``.

    Parameters
    ----------
    values : array_like
        Shape ``(m, n)``: one row per system, one column per topic, every cell
        filled (drop topics missing for any system first).

    Returns
    -------
    TwoWayAnova

    Raises
    ------
    InvalidParameterError
        Not a finite matrix of at least 2 x 2.

    Examples
    --------
    >>> result = two_way_anova([[0.7, 0.3, 0.2, 0.6], [0.5, 0.1, 0.0, 0.2],
    ...                         [0.0, 0.0, 0.2, 0.1]])
    >>> round(result.f_systems, 4), round(result.p_systems, 4), result.df_residual
    (4.8165, 0.0565, 6)
    """
    x = as_matrix(values)
    m, n = x.shape
    grand = x.mean()
    rows = x.mean(axis=1)
    columns = x.mean(axis=0)
    ss_total = float(((x - grand) ** 2).sum())
    ss_a = float(n * ((rows - grand) ** 2).sum())
    ss_b = float(m * ((columns - grand) ** 2).sum())
    ss_e = float(((x - rows[:, None] - columns[None, :] + grand) ** 2).sum())
    df_a, df_b, df_e = m - 1, n - 1, (m - 1) * (n - 1)
    v_a, v_b, v_e = ss_a / df_a, ss_b / df_b, ss_e / df_e
    with np.errstate(divide="ignore", invalid="ignore"):
        f_a = float(np.float64(v_a) / v_e)
        f_b = float(np.float64(v_b) / v_e)
    special = scipy_special()
    p_a = float(special.fdtrc(df_a, df_e, f_a)) if np.isfinite(f_a) else (
        0.0 if f_a == np.inf else np.nan)
    p_b = float(special.fdtrc(df_b, df_e, f_b)) if np.isfinite(f_b) else (
        0.0 if f_b == np.inf else np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        omega_a = (ss_a - df_a * v_e) / np.float64(ss_total + v_e)
        omega_b = (ss_b - df_b * v_e) / np.float64(ss_total + v_e)
        partial_a = float(df_a * (f_a - 1) / (df_a * (f_a - 1) + m * n))
        partial_b = float(df_b * (f_b - 1) / (df_b * (f_b - 1) + m * n))
    return TwoWayAnova(
        n_systems=m, n_topics=n,
        ss_systems=ss_a, ss_topics=ss_b, ss_residual=ss_e, ss_total=ss_total,
        df_systems=df_a, df_topics=df_b, df_residual=df_e,
        ms_systems=v_a, ms_topics=v_b, residual_variance=v_e,
        f_systems=f_a, f_topics=f_b, p_systems=p_a, p_topics=p_b,
        omega2_systems=float(omega_a), omega2_topics=float(omega_b),
        partial_omega2_systems=partial_a, partial_omega2_topics=partial_b,
        system_means=rows,
    )
