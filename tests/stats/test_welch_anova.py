"""Welch's one-way ANOVA, rankwise's own (scipy's f_oneway has equal_var only from 1.16)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from rankwise.stats.parametric import welch_anova

stats = pytest.importorskip("scipy.stats")


def test_equal_to_scipy_on_random_samples() -> None:
    if "equal_var" not in inspect.signature(stats.f_oneway).parameters:
        pytest.skip("this scipy's f_oneway has no equal_var (scipy < 1.16)")
    rng = np.random.default_rng(0)
    for _ in range(500):
        k = int(rng.integers(2, 7))
        samples = [rng.normal(rng.normal(), rng.uniform(0.1, 3), int(rng.integers(2, 40)))
                   for _ in range(k)]
        f, p = welch_anova(samples)
        expected = stats.f_oneway(*samples, equal_var=False)
        assert f == pytest.approx(float(expected.statistic), rel=1e-12)
        assert p == pytest.approx(float(expected.pvalue), rel=1e-9, abs=1e-15)


def test_two_samples_are_welch_s_t_test_squared() -> None:
    """With k = 2, Welch's F is Welch's t squared, on the same degrees of freedom."""
    a, b = [0.1, 0.4, 0.35, 0.8, 0.5], [0.2, 0.3, 0.3, 0.6, 0.45, 0.9]
    f, p = welch_anova([a, b])
    t = stats.ttest_ind(a, b, equal_var=False)
    assert f == pytest.approx(float(t.statistic) ** 2, rel=1e-12)
    assert p == pytest.approx(float(t.pvalue), rel=1e-9)


def test_degenerate_samples_give_nan() -> None:
    for samples in ([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], [[1.0], [1.0, 2.0]], [[1.0, 2.0]]):
        f, p = welch_anova(samples)
        assert math.isnan(f) and math.isnan(p)
