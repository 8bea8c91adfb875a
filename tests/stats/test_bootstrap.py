"""bootstrap_test, bootstrap_sums and percentile_interval against naive loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise import stats
from rankwise.stats import bootstrap_test, percentile_interval
from rankwise.stats.resampling import _bootstrap_indices, bootstrap_sums


def naive_indices(seed: int, n: int, b: int) -> np.ndarray:
    ss = np.random.SeedSequence(seed)
    return _bootstrap_indices(ss, n, 0, b) - (np.arange(b) * n)[:, None]


def test_sums_equal_a_loop_over_the_drawn_indices() -> None:
    rng = np.random.default_rng(0)
    values = rng.random((37, 3))
    sums = bootstrap_sums(values, 200, seed=9, chunk_size=100)
    index = naive_indices(9, 37, 200)
    expected = np.array([values[row].sum(axis=0) for row in index])
    np.testing.assert_allclose(sums, expected, rtol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 7, 101, 70_000])
def test_indices_do_not_depend_on_the_chunk(n: int) -> None:
    ss = np.random.SeedSequence(5)
    whole = _bootstrap_indices(ss, n, 0, 6) - (np.arange(6) * n)[:, None]
    for start in range(6):  # one resample at a time, from its place in the stream
        np.testing.assert_array_equal(_bootstrap_indices(ss, n, start, 1)[0], whole[start])
    assert whole.min() >= 0 and whole.max() < n


def test_indices_are_uniform() -> None:
    index = naive_indices(3, 10, 20_000)
    frequencies = np.bincount(index.ravel(), minlength=10) / index.size
    assert np.abs(frequencies - 0.1).max() < 0.003  # 200,000 draws: se ~ 0.0007


def test_large_n_path_is_uniform_too() -> None:
    n = 2**16 + 1
    index = _bootstrap_indices(np.random.SeedSequence(1), n, 0, 20) - (np.arange(20) * n)[:, None]
    assert index.min() >= 0 and index.max() < n
    assert abs(index.mean() - (n - 1) / 2) < 0.01 * n


def test_bootstrap_test_equals_naive_loop() -> None:
    rng = np.random.default_rng(1)
    d = rng.normal(0.05, 0.3, size=25)
    b = 500
    result = bootstrap_test(d, n_resamples=b, seed=4)
    t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(25))
    w = d - d.mean()
    hits = 0
    for row in naive_indices(4, 25, b):
        sample = w[row]
        t = sample.mean() / (sample.std(ddof=1) / np.sqrt(25))
        hits += abs(t) >= abs(t_obs)
    assert result.statistic == pytest.approx(t_obs, rel=1e-12)
    assert result.p_value == (hits + 1) / (b + 1)


def test_bootstrap_same_seed_any_chunk_size() -> None:
    d = np.random.default_rng(2).normal(0.02, 0.2, size=(333, 2))
    reference = bootstrap_test(d, n_resamples=2000, seed=8).p_value
    for chunk_size in (1, 333, 1000, 2**20):
        np.testing.assert_array_equal(
            bootstrap_test(d, n_resamples=2000, seed=8, chunk_size=chunk_size).p_value, reference
        )


def test_bootstrap_close_to_t_test_for_many_queries() -> None:
    import scipy.stats

    d = np.random.default_rng(3).normal(0.02, 0.3, size=2000)
    p = bootstrap_test(d, n_resamples=20_000, seed=1).p_value
    assert p == pytest.approx(scipy.stats.ttest_1samp(d, 0).pvalue, abs=0.02)


def test_bootstrap_edge_cases() -> None:
    assert bootstrap_test(np.zeros(10), seed=0).p_value == 1.0
    assert np.isnan(bootstrap_test([0.3], seed=0).p_value)
    constant = bootstrap_test(np.full(10, 0.2), n_resamples=99, seed=0)
    assert constant.statistic == np.inf and constant.p_value == 1 / 100


def test_percentile_interval_equals_quantiles_of_resampled_means() -> None:
    values = np.random.default_rng(5).random((60, 2))
    low, high = percentile_interval(values, 0.9, n_resamples=400, seed=2)
    means = np.array([values[row].mean(axis=0) for row in naive_indices(2, 60, 400)])
    np.testing.assert_allclose(low, np.quantile(means, 0.05, axis=0), rtol=1e-12)
    np.testing.assert_allclose(high, np.quantile(means, 0.95, axis=0), rtol=1e-12)
    assert (low < values.mean(axis=0)).all() and (values.mean(axis=0) < high).all()


@pytest.mark.parametrize("value", [0.1, 0.3, 0.5, -0.2, 1 / 3, 0.7])
def test_equal_differences_are_the_most_significant_whatever_their_rounding(value: float) -> None:
    """Twenty equal differences of 0.1: every resample has mean 0.1 and no spread.

    The mean of twenty 0.1s is 1.4e-17 off 0.1, so centred differences of
    +-1e-17 made every resample's t infinite and the p-value 1.0 (0.5 gave the
    smallest, 1/(B+1)); now both give 1/(B+1), t and d_z are infinite.
    """
    result = stats.bootstrap_test([value] * 20, n_resamples=999, seed=1)
    assert result.p_value == 1 / 1000
    assert result.statistic == (math.inf if value > 0 else -math.inf)
    assert stats.cohens_dz([value] * 20) == result.statistic
    columns = stats.bootstrap_test(np.full((20, 2), value), n_resamples=999, seed=1)
    assert columns.p_value.tolist() == [1 / 1000] * 2
