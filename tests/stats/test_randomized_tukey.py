"""Carterette's randomised Tukey HSD: exact by enumeration, Monte Carlo, reproducible bits.

The exact reference is an independent brute force over all (m!)^n joint
relabellings (each topic's values shuffled among the systems), and the
published-by-enumeration 3 x 6 case of the issue-18 research notes:
p = 1952/7776, 66/7776, 4924/7776.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import score_matrices

from rankwise.exceptions import InvalidParameterError
from rankwise.stats import randomized_tukey_hsd, stream
from rankwise.stats.tukey import BLOCK

EXAMPLE = np.array([  # multiples of 1/8: every sum is exact in floating point
    [0.750, 0.500, 0.625, 0.250, 0.875, 0.375],
    [0.500, 0.375, 0.500, 0.125, 0.625, 0.250],
    [0.625, 0.125, 0.250, 0.250, 0.500, 0.000],
])


def brute_force(x: np.ndarray) -> np.ndarray:
    """All (m!)^n relabellings, no shortcut: p = #{D* >= d} / (m!)^n."""
    m, n = x.shape
    perms = list(itertools.permutations(range(m)))
    means = x.mean(axis=1)
    observed = np.abs(means[:, None] - means[None, :])
    count = np.zeros((m, m))
    total = 0
    for labels in itertools.product(perms, repeat=n):
        shuffled = np.array([[x[labels[j][i], j] for j in range(n)] for i in range(m)])
        mu = shuffled.mean(axis=1)
        count += (mu.max() - mu.min()) >= observed - 1e-12
        total += 1
    return count / total


def test_the_exact_three_by_six_case() -> None:
    result = randomized_tukey_hsd(EXAMPLE)
    assert result.p_method == "exact" and result.n_resamples == 6**5
    fractions = np.rint(result.p_values * 7776).astype(int)
    assert fractions[0, 1] == 1952 and fractions[0, 2] == 66 and fractions[1, 2] == 4924
    assert (result.p_values == result.p_values.T).all() and (np.diag(result.p_values) == 1).all()
    # the same whatever the order of the systems
    order = [2, 0, 1]
    again = randomized_tukey_hsd(EXAMPLE[order])
    np.testing.assert_array_equal(again.p_values, result.p_values[np.ix_(order, order)])


@pytest.mark.parametrize("seed", range(4))
def test_enumeration_equals_a_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, n = (3, 4) if seed % 2 else (2, 7)
    x = rng.integers(0, 5, size=(m, n)) / 4
    result = randomized_tukey_hsd(x, n_resamples=10_000)
    assert result.p_method == "exact"
    np.testing.assert_allclose(result.p_values, brute_force(x), rtol=0, atol=1e-15)


def test_monte_carlo_converges_to_the_exact_values() -> None:
    exact = randomized_tukey_hsd(EXAMPLE).p_values
    sampled = randomized_tukey_hsd(EXAMPLE, n_resamples=7775, seed=3)  # one below: sampled
    assert sampled.p_method == "monte carlo" and sampled.n_resamples == 7775
    error = np.abs(sampled.p_values - exact)
    assert error.max() <= 4 * math.sqrt(0.25 / 7775)  # 4 standard errors
    plus = randomized_tukey_hsd(EXAMPLE, n_resamples=7775, seed=3, plus_one=True)
    counts = np.rint(sampled.p_values * 7775)
    np.testing.assert_allclose(plus.p_values[~np.eye(3, dtype=bool)],
                               ((counts + 1) / 7776)[~np.eye(3, dtype=bool)], rtol=1e-15)
    assert plus.plus_one and not sampled.plus_one


def test_two_systems_is_the_exact_randomization_test() -> None:
    from rankwise.stats import randomization_test

    x = np.array([[0.5, 0.75, 1.0, 0.5, 0.25], [0.25, 0.5, 0.5, 0.5, 0.5]])
    tukey = randomized_tukey_hsd(x)
    fisher = randomization_test(x[0], x[1])
    assert tukey.p_method == fisher.method == "exact"
    assert tukey.p_values[0, 1] == fisher.p_value


def test_same_seed_same_bits_whatever_the_order_and_the_chunk() -> None:
    rng = np.random.default_rng(5)
    x = rng.beta(2, 5, size=(7, 40)) + np.linspace(0, 0.1, 7)[:, None]
    first = randomized_tukey_hsd(x, n_resamples=1000, seed=11)
    assert first.p_method == "monte carlo"
    for chunk in (1, 7 * 40 * BLOCK, 7 * 40 * BLOCK * 3 + 5, 10**9):
        again = randomized_tukey_hsd(x, n_resamples=1000, seed=11, chunk_size=chunk)
        np.testing.assert_array_equal(again.p_values, first.p_values)
    order = rng.permutation(7)
    shuffled = randomized_tukey_hsd(x[order], n_resamples=1000, seed=11)
    np.testing.assert_array_equal(shuffled.p_values, first.p_values[np.ix_(order, order)])
    other = randomized_tukey_hsd(x, n_resamples=1000, seed=12)
    assert not np.array_equal(other.p_values, first.p_values)
    # trials are keyed by their block: B = 512 draws the first 512 trials of B = 1024
    half = randomized_tukey_hsd(x, n_resamples=512, seed=stream(1, "t", ["a"]))
    whole = randomized_tukey_hsd(x, n_resamples=1024, seed=stream(1, "t", ["a"]))
    first, both = np.rint(half.p_values * 512), np.rint(whole.p_values * 1024)
    assert (both >= first).all() and (both - first <= 512).all()
    assert (both > first).any() or (both == 1024).all()


def test_agrees_with_tukey_hsd_on_large_differences() -> None:
    from rankwise.stats import tukey_hsd

    rng = np.random.default_rng(2)
    x = rng.normal(0.4, 0.1, size=(5, 60)) + np.array([0, 0, 0.02, 0.1, 0.2])[:, None]
    randomized = randomized_tukey_hsd(x, n_resamples=4000, seed=1)
    parametric = tukey_hsd(x)
    assert np.abs(randomized.p_values - parametric.p_values).max() < 0.06
    assert randomized.letters() == parametric.letters()


@settings(max_examples=30, deadline=None)
@given(score_matrices(max_systems=4, max_topics=6, dyadic=True))
def test_properties(x: np.ndarray) -> None:
    result = randomized_tukey_hsd(x, n_resamples=300, seed=0)
    p = result.p_values
    assert ((p >= 0) & (p <= 1)).all() and (p == p.T).all()
    upper = np.triu_indices(len(p), 1)
    order = np.argsort(np.abs(result.differences[upper]), kind="stable")
    assert (np.diff(p[upper][order]) <= 0).all()  # larger difference, smaller p
    # the largest observed difference is reached by the identity relabelling (exact case)
    if result.p_method == "exact":
        assert p[upper].min() >= 1 / result.n_resamples


def test_refuses_bad_options() -> None:
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        randomized_tukey_hsd(EXAMPLE, n_resamples=0)
    with pytest.raises(InvalidParameterError, match="plus_one"):
        randomized_tukey_hsd(EXAMPLE, plus_one=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="alpha"):
        randomized_tukey_hsd(EXAMPLE, alpha=1.5)
