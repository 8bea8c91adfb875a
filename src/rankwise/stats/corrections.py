"""Corrections of p-values for multiple comparisons."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._validation import NONE, OneOf, check, loose
from rankwise.exceptions import InvalidParameterError
from rankwise.options import CORRECTION_ALIASES, CORRECTION_NAMES, OTHER_CORRECTIONS

__all__ = ["CORRECTIONS", "adjust_pvalues", "resolve_correction"]

CORRECTIONS: dict[str, str] = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "benjamini-hochberg": "Benjamini-Hochberg",
    "none": "none",
}
"""Canonical correction names and how they are printed."""


def resolve_correction(name: str | None) -> str:
    """Return the canonical name of a correction (``None`` means ``"none"``).

    Raises
    ------
    InvalidParameterError
        An unknown name; the message lists the names and aliases, and the nearest.

    Examples
    --------
    >>> resolve_correction("BH"), resolve_correction(None)
    ('benjamini-hochberg', 'none')
    """
    return "none" if name is None else str(check("correction", name, _CORRECTIONS))



_CORRECTIONS = OneOf(CORRECTION_NAMES, aliases=CORRECTION_ALIASES, fold=loose,
                     elsewhere=OTHER_CORRECTIONS) | NONE


def adjust_pvalues(p_values: Any, method: str | None = "holm") -> np.ndarray:
    r"""Adjust a family of p-values for multiple comparisons.

    With :math:`m` p-values sorted ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    - **Bonferroni**: :math:`\tilde p_i = \min(1, m\,p_i)`; controls the
      family-wise error rate (FWER).
    - **Holm** (step-down): :math:`\tilde p_{(i)} = \max_{j \le i}
      \min(1, (m - j + 1)\,p_{(j)})`; controls the FWER, uniformly more
      powerful than Bonferroni (Holm, Scand. J. Statistics 1979).
    - **Benjamini-Hochberg** (step-up): :math:`\tilde p_{(i)} = \min_{j \ge i}
      \min(1, \frac{m}{j}\,p_{(j)})`; controls the false discovery rate
      under independence or positive dependence (Benjamini & Hochberg,
      JRSS B 1995).
    - **none**: unchanged.

    A hypothesis is rejected at level :math:`\alpha` when
    :math:`\tilde p \le \alpha`. NaN p-values (tests that could not be run)
    stay NaN and are not counted in :math:`m`. Benjamini-Hochberg equals
    :func:`scipy.stats.false_discovery_control`.

    Parameters
    ----------
    p_values : array_like
        One family of p-values (1-D).
    method : {"holm", "bonferroni", "benjamini-hochberg", "bh", "fdr_bh", "none"}
        The correction; None means ``"none"``.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, aligned with *p_values*.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    method = resolve_correction(method)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise InvalidParameterError(f"p_values must be 1-D, got shape {p.shape}")
    known = ~np.isnan(p)
    if ((p[known] < 0) | (p[known] > 1)).any():
        raise InvalidParameterError("p_values must lie between 0 and 1")
    out: np.ndarray = p.copy()
    values = p[known]
    m = len(values)
    if m == 0 or method == "none":
        return out
    if method == "bonferroni":
        adjusted = np.minimum(1.0, m * values)
    else:
        order = np.argsort(values, kind="stable")
        ranked = values[order]
        if method == "holm":
            steps = np.maximum.accumulate((m - np.arange(m)) * ranked)
        else:
            steps = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ranked[::-1])[::-1]
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(1.0, steps)
    out[known] = adjusted
    return out
