"""Names of the paired tests, their aliases and how a legend describes them."""

from __future__ import annotations

from collections.abc import Callable

from rankwise._validation import OneOf, check, loose
from rankwise.options import TEST_ALIASES, TEST_NAMES
from rankwise.stats._arrays import PairedTestResult
from rankwise.stats.parametric import paired_t_test
from rankwise.stats.rank_tests import sign_test, wilcoxon_test
from rankwise.stats.resampling import bootstrap_test, randomization_test
from rankwise.stats.tukey import TukeyResult, randomized_tukey_hsd, tukey_hsd

__all__ = ["MANY_SYSTEM_TESTS", "RESAMPLING_TESTS", "TESTS", "TEST_LABELS", "resolve_test"]

TESTS: dict[str, Callable[..., PairedTestResult]] = {
    "randomization": randomization_test,
    "t-test": paired_t_test,
    "wilcoxon": wilcoxon_test,
    "bootstrap": bootstrap_test,
    "sign": sign_test,
}
"""Canonical test name -> function of the paired values ``(a, b)``."""

MANY_SYSTEM_TESTS: dict[str, Callable[..., TukeyResult]] = {
    "tukey": tukey_hsd,
    "randomized-tukey": randomized_tukey_hsd,
}
"""Tests of all pairs of systems at once (family-wise): name -> function (systems x topics)."""

TEST_LABELS: dict[str, str] = {
    "randomization": "Fisher's randomization test",
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bootstrap": "paired bootstrap test",
    "sign": "sign test",
    "tukey": "Tukey's HSD on the two-way ANOVA residual",
    "randomized-tukey": "randomised Tukey HSD (Carterette 2012)",
}
"""How a legend names each test."""

RESAMPLING_TESTS = frozenset({"randomization", "bootstrap", "randomized-tukey"})
"""Tests that take ``n_resamples``, ``seed`` and ``chunk_size``."""


def resolve_test(name: str) -> str:
    """Return the canonical name of a paired test.

    Accepted: ``randomization`` (``permutation``, ``fisher``), ``t-test``
    (``t``, ``ttest``), ``wilcoxon`` (``signed-rank``), ``bootstrap``,
    ``sign``, and the tests of all pairs at once ``tukey`` (``hsd``) and
    ``randomized-tukey`` (``randomised-tukey``); case and ``_`` / ``-`` and
    spaces do not matter.

    Raises
    ------
    InvalidParameterError
        An unknown name; the message lists the names and aliases, and suggests the nearest.

    Examples
    --------
    >>> resolve_test("Permutation"), resolve_test("t_test")
    ('randomization', 't-test')
    """
    return str(check("test", name, _TEST))


_TEST = OneOf(TEST_NAMES, aliases=TEST_ALIASES, fold=loose)
