"""paired_t_test against scipy.stats.ttest_rel."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rankwise.exceptions import InvalidParameterError
from rankwise.stats import paired_t_test


@pytest.mark.parametrize("n", [2, 3, 5, 17, 100, 7000])
def test_equals_scipy_ttest_rel(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.random((n, 4))
    b = np.clip(a + rng.normal(0.02, 0.1, size=(n, 4)), 0, 1)
    ours = paired_t_test(a, b)
    theirs = scipy.stats.ttest_rel(a, b)
    np.testing.assert_allclose(ours.statistic, theirs.statistic, rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours.p_value, theirs.pvalue, rtol=1e-12, atol=1e-300)
    assert ours.method == ("t distribution",) * 4


def test_one_dimensional_gives_scalars() -> None:
    a, b = [0.5, 0.75, 1.0, 0.5], [0.25, 0.5, 0.5, 0.5]
    result = paired_t_test(a, b)
    assert isinstance(result.p_value, float)
    assert result.n == 3
    # hand computation: d = (.25, .25, .5, 0), mean .25, sd = sqrt(1/24)
    t = 0.25 / (np.sqrt(1 / 24) / 2)
    assert result.statistic == pytest.approx(t, rel=1e-14)
    assert result.p_value == pytest.approx(2 * scipy.stats.t.sf(t, 3), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 60),
           elements=st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 0.75, 1.0])),
    st.randoms(use_true_random=False),
)
def test_property_equals_scipy_on_ir_like_values(a: np.ndarray, random) -> None:
    b = np.array(a)
    random.shuffle(b)
    d = a - b
    if not d.any():
        assert paired_t_test(a, b).p_value == 1.0
        return
    theirs = scipy.stats.ttest_rel(a, b)
    ours = paired_t_test(a, b)
    if np.isfinite(theirs.statistic):
        assert abs(ours.p_value - theirs.pvalue) <= 1e-12
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)


def test_all_zero_differences_give_p_one() -> None:
    result = paired_t_test(np.ones((5, 2)), np.ones((5, 2)))
    assert result.p_value.tolist() == [1.0, 1.0]
    assert result.method == ("all differences zero",) * 2
    assert np.isnan(scipy.stats.ttest_rel(np.ones(5), np.ones(5)).pvalue)  # scipy: NaN


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
def test_constant_nonzero_differences_like_scipy() -> None:
    a, b = np.full(4, 0.5), np.full(4, 0.25)
    ours, theirs = paired_t_test(a, b), scipy.stats.ttest_rel(a, b)
    assert ours.p_value == theirs.pvalue == 0.0
    assert ours.statistic == theirs.statistic == np.inf


def test_fewer_than_two_pairs_is_nan() -> None:
    assert np.isnan(paired_t_test([0.5], [0.2]).p_value)


def test_bad_inputs() -> None:
    with pytest.raises(InvalidParameterError, match=r"same shape: a has \(3,\), b has \(2,\)"):
        paired_t_test([1, 2, 3], [1, 2])
    with pytest.raises(InvalidParameterError, match="finite"):
        paired_t_test([1, np.nan], [1, 2])
    with pytest.raises(InvalidParameterError, match=r"1-D .* or 2-D"):
        paired_t_test(np.zeros((2, 2, 2)))
