"""Paired significance tests, multiple-comparison corrections, intervals, effect sizes.

Every test takes the per-query values of two systems, ``(a, b)`` (or the
differences alone), as 1-D arrays or as 2-D arrays with one column per
measure tested at once, and returns a :class:`PairedTestResult` with a
two-sided p-value. :func:`rankwise.compare` builds on them.

Nothing here imports scipy at import time; the t-test, Wilcoxon, sign test
and t intervals import :mod:`scipy.special` when called.
"""

from rankwise.stats._arrays import PairedTestResult
from rankwise.stats.corrections import CORRECTIONS, adjust_pvalues, resolve_correction
from rankwise.stats.effect import cohens_dz, wins_ties_losses
from rankwise.stats.intervals import percentile_interval, t_interval
from rankwise.stats.parametric import paired_t_test
from rankwise.stats.rank_tests import sign_test, wilcoxon_test
from rankwise.stats.registry import TEST_LABELS, TESTS, resolve_test
from rankwise.stats.resampling import bootstrap_test, randomization_test
from rankwise.stats.seeding import stream

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "TEST_LABELS",
    "PairedTestResult",
    "adjust_pvalues",
    "bootstrap_test",
    "cohens_dz",
    "paired_t_test",
    "percentile_interval",
    "randomization_test",
    "resolve_correction",
    "resolve_test",
    "sign_test",
    "stream",
    "t_interval",
    "wilcoxon_test",
    "wins_ties_losses",
]
