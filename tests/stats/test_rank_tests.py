"""wilcoxon_test against scipy.stats.wilcoxon; sign_test against scipy.stats.binomtest."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rankwise.stats import sign_test, wilcoxon_test
from rankwise.stats.rank_tests import average_ranks


def scipy_wilcoxon(d: np.ndarray) -> scipy.stats._morestats.WilcoxonResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy.stats.wilcoxon(d)


def check_against_scipy(d: np.ndarray) -> str:
    ours = wilcoxon_test(d)
    if not d.any():  # scipy: NaN, or an error for one pair
        assert ours.p_value == 1.0
        assert ours.method == "all differences zero"
        return ours.method
    theirs = scipy_wilcoxon(d)
    assert ours.statistic == theirs.statistic
    assert abs(ours.p_value - theirs.pvalue) <= 1e-12, (d, ours, theirs)
    return ours.method


@pytest.mark.parametrize("n", [1, 2, 5, 10, 13, 14, 20, 49, 50, 51, 200, 5000])
def test_continuous_differences(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(5):
        d = rng.normal(0.1, 1, size=n)
        method = check_against_scipy(d)
        assert method == ("exact" if n <= 50 else "normal approximation")


@pytest.mark.parametrize("n", [2, 6, 13, 14, 30, 50, 51, 300])
def test_ties_and_zeros(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    methods = set()
    for _ in range(1 if n == 13 else 20):  # scipy enumerates 2^13 flips slowly
        d = rng.integers(-3, 4, size=n) / 4  # many ties, many zeros
        methods.add(check_against_scipy(d))
    assert methods <= {"exact", "normal approximation", "all differences zero"}
    if n <= 13:
        assert "exact" in methods
    else:
        assert "normal approximation" in methods


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.one_of(st.integers(1, 9), st.integers(14, 70)),
              elements=st.sampled_from([0.0, 0.1, -0.1, 0.2, -0.3, 0.5, 1.0, -1.0, 0.05])))
def test_property_equals_scipy(d: np.ndarray) -> None:
    check_against_scipy(d)


def test_two_dimensional_columns_tested_separately() -> None:
    rng = np.random.default_rng(3)
    d = np.column_stack([rng.normal(size=40), rng.integers(-2, 3, size=40) / 2, np.zeros(40)])
    result = wilcoxon_test(d)
    for j in range(2):
        assert result.p_value[j] == pytest.approx(scipy_wilcoxon(d[:, j]).pvalue, abs=1e-12)
    assert result.p_value[2] == 1.0
    assert result.n.tolist() == [40, np.count_nonzero(d[:, 1]), 0]


def test_hand_computed_exact() -> None:
    # all five differences positive: W- = 0, P(W+ = 15) = 1/32, two-sided 2/32
    result = wilcoxon_test([0.9, 0.8, 0.7, 0.65, 0.6], [0.1, 0.2, 0.3, 0.4, 0.5])
    assert (result.statistic, result.p_value) == (0.0, 0.0625)


def test_average_ranks_equal_scipy_rankdata() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10, size=500).astype(float)
    ranks, sizes = average_ranks(x)
    np.testing.assert_array_equal(ranks, scipy.stats.rankdata(x))
    assert sizes.sum() == 500
    assert sorted(sizes.tolist()) == sorted(np.unique(x, return_counts=True)[1].tolist())


@pytest.mark.parametrize(
    "positive,negative,zeros",
    [(0, 0, 5), (1, 0, 0), (4, 1, 3), (5, 5, 0), (30, 12, 7), (700, 650, 50), (3, 9, 1)],
)
def test_sign_test_equals_binomtest(positive: int, negative: int, zeros: int) -> None:
    d = np.r_[np.full(positive, 0.1), np.full(negative, -0.2), np.zeros(zeros)]
    np.random.default_rng(0).shuffle(d)
    result = sign_test(d)
    assert result.statistic == positive
    assert result.n == positive + negative
    if positive + negative == 0:
        assert result.p_value == 1.0
        assert result.method == "all differences zero"
    else:
        expected = scipy.stats.binomtest(positive, positive + negative).pvalue
        assert abs(result.p_value - expected) <= 1e-12


def test_sign_test_hand_computed() -> None:
    # 4 of 5 positive: 2 * P(X <= 1) = 2 * 6/32
    a, b = [0.9, 0.8, 0.7, 0.6, 0.5, 0.5], [0.1, 0.2, 0.3, 0.4, 0.6, 0.5]
    assert sign_test(a, b).p_value == 0.375
