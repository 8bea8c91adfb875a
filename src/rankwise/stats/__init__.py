"""Significance tests (paired, and of many systems at once), corrections, intervals, design.

Every test takes the per-query values of two systems, ``(a, b)`` (or the
differences alone), as 1-D arrays or as 2-D arrays with one column per
measure tested at once, and returns a :class:`PairedTestResult` with a
two-sided p-value. :func:`rankwise.compare` builds on them.

Many systems at once: :func:`two_way_anova` (system x topic), :func:`tukey_hsd`
and :func:`randomized_tukey_hsd` over a systems x topics matrix, with
:func:`compact_letters`. Study design: :mod:`rankwise.stats.topic_sets`.
Agreement between rankings: :mod:`rankwise.stats.agreement`.

Nothing here imports scipy at import time; the t-test, Wilcoxon, sign test
and t intervals import :mod:`scipy.special` when called.
"""

from rankwise.stats._arrays import PairedTestResult
from rankwise.stats.anova import TwoWayAnova, two_way_anova
from rankwise.stats.corrections import CORRECTIONS, adjust_pvalues, resolve_correction
from rankwise.stats.effect import cohens_dz, wins_ties_losses
from rankwise.stats.intervals import percentile_interval, t_interval
from rankwise.stats.letters import compact_letters
from rankwise.stats.parametric import paired_t_test
from rankwise.stats.rank_tests import sign_test, wilcoxon_test
from rankwise.stats.registry import MANY_SYSTEM_TESTS, TEST_LABELS, TESTS, resolve_test
from rankwise.stats.resampling import bootstrap_test, randomization_test
from rankwise.stats.seeding import stream
from rankwise.stats.tukey import TukeyResult, randomized_tukey_hsd, tukey_hsd

__all__ = [
    "CORRECTIONS",
    "MANY_SYSTEM_TESTS",
    "TESTS",
    "TEST_LABELS",
    "PairedTestResult",
    "TukeyResult",
    "TwoWayAnova",
    "adjust_pvalues",
    "bootstrap_test",
    "cohens_dz",
    "compact_letters",
    "paired_t_test",
    "percentile_interval",
    "randomization_test",
    "randomized_tukey_hsd",
    "resolve_correction",
    "resolve_test",
    "sign_test",
    "stream",
    "t_interval",
    "tukey_hsd",
    "two_way_anova",
    "wilcoxon_test",
    "wins_ties_losses",
]
