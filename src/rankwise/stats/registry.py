"""Names of the paired tests, their aliases and how a legend describes them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise._validation import OneOf, check, loose
from rankwise.options import TEST_ALIASES, TEST_NAMES
from rankwise.stats._arrays import PairedTestResult
from rankwise.stats.parametric import paired_t_test
from rankwise.stats.rank_tests import sign_test, signed_rank_direction, wilcoxon_test
from rankwise.stats.resampling import bootstrap_test, randomization_test
from rankwise.stats.tukey import TukeyResult, randomized_tukey_hsd, tukey_hsd

__all__ = [
    "MANY_SYSTEM_TESTS",
    "RESAMPLING_TESTS",
    "TESTS",
    "TEST_LABELS",
    "direction_of",
    "resolve_test",
]

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


def direction_of(test: str, d: np.ndarray) -> np.ndarray:
    """Which way *test* finds the first system differs, per column of the differences *d*.

    +1 (higher), -1 (lower) or 0, by what the test weighs: the t-test, the
    randomization, bootstrap and both Tukey tests compare means (the sign of
    the mean difference); the sign test counts the queries won and lost (the
    sign of wins - losses); the Wilcoxon test ranks the differences' sizes
    (the sign of W+ - W-). A significant difference is higher or lower in this
    sense: under the sign test, a system that wins 14 queries by a little and
    loses 2 by a lot is higher, though its mean is lower.

    Parameters
    ----------
    test : str
        A canonical test name (:func:`resolve_test`).
    d : numpy.ndarray
        The paired differences, pairs x columns.

    Examples
    --------
    >>> d = np.array([[0.1], [0.1], [0.1], [-0.9]])
    >>> direction_of("sign", d), direction_of("t-test", d)
    (array([1]), array([-1]))
    """
    d = np.asarray(d, dtype=np.float64).reshape(len(d), -1)
    if test == "wilcoxon":
        return signed_rank_direction(d)
    if test == "sign":
        lean = np.count_nonzero(d > 0, axis=0) - np.count_nonzero(d < 0, axis=0)
    else:
        lean = d.mean(axis=0) if len(d) else np.zeros(d.shape[1])
    return np.sign(lean).astype(np.int64)


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
