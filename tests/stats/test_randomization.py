"""randomization_test: exact enumeration, Monte Carlo convergence, reproducibility."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.exceptions import InvalidParameterError
from rankwise.stats import randomization_test, stream
from rankwise.stats.resampling import (
    _enumerated_flip_bytes,
    _random_flip_bytes,
    sign_flip_sums,
)


def brute_force_p(steps: list[int]) -> float:
    """Exact two-sided sign-flip p-value of integer differences, all 2^n patterns."""
    observed = abs(sum(steps))
    hits = sum(
        abs(sum(s * v for s, v in zip(signs, steps))) >= observed
        for signs in itertools.product((1, -1), repeat=len(steps))
    )
    return hits / 2 ** len(steps)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 12, 16])
def test_exact_equals_enumeration_of_all_sign_flips(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(3):
        steps = rng.integers(-4, 5, size=n)  # ties of |T*| and |T| are frequent
        d = steps / 10  # IR-like values: multiples of 0.1, not exact in binary
        result = randomization_test(d, n_resamples=2**16)
        assert result.method == ("exact" if steps.any() else "all differences zero")
        assert result.p_value == brute_force_p(steps.tolist())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=12))
def test_property_exact_p_value(steps: list[int]) -> None:
    d = np.array(steps) / 20
    result = randomization_test(d, n_resamples=2**12)
    assert result.p_value == brute_force_p(steps)


def test_zero_differences_do_not_count_towards_enumeration() -> None:
    steps = [3, -1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    result = randomization_test(np.array(steps) / 10, n_resamples=8)  # 2^3 <= 8
    assert result.method == "exact"
    assert result.n == 3
    assert result.p_value == brute_force_p([3, -1, 2])


def test_float_differences_exact() -> None:
    rng = np.random.default_rng(1)
    d = rng.random(14) - 0.4
    result = randomization_test(d, n_resamples=2**14)
    observed = abs(d.sum())
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=14)))
    expected = np.mean(np.abs(signs @ d) >= observed - 1e-12)
    assert result.p_value == expected


def test_monte_carlo_converges_to_exact() -> None:
    rng = np.random.default_rng(7)
    steps = rng.integers(-3, 5, size=18)
    d = steps / 10
    exact = randomization_test(d, n_resamples=2**18).p_value
    assert exact == brute_force_p(steps.tolist())
    errors = []
    for b in (1_000, 10_000, 100_000):
        result = randomization_test(d, n_resamples=b, seed=11)
        assert result.method == "monte carlo"
        se = math.sqrt(exact * (1 - exact) / b)
        assert abs(result.p_value - exact) <= 4 * se + 1 / (b + 1)
        errors.append(abs(result.p_value - exact))
    assert errors[-1] < 0.01


def test_monte_carlo_p_value_definition() -> None:
    d = np.r_[np.full(30, 0.5), np.full(2, -0.1)]  # nothing flipped is as extreme
    result = randomization_test(d, n_resamples=999, seed=0)
    assert result.p_value == 1 / 1000  # (0 + 1) / (B + 1)
    assert randomization_test(np.zeros(40), n_resamples=999, seed=0).p_value == 1.0


def test_same_seed_same_p_whatever_the_chunk_size() -> None:
    rng = np.random.default_rng(2)
    d = rng.normal(0.03, 0.3, size=(701, 3))
    reference = randomization_test(d, n_resamples=5000, seed=42).p_value
    for chunk_size in (1, 701, 1000, 3 * 701 + 5, 2**16, 2**24):
        again = randomization_test(d, n_resamples=5000, seed=42, chunk_size=chunk_size)
        np.testing.assert_array_equal(again.p_value, reference)
    other = randomization_test(d, n_resamples=5000, seed=43).p_value
    assert not np.array_equal(other, reference)


def test_columns_do_not_influence_each_other() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 0.5, size=(200, 3))
    together = randomization_test(d, n_resamples=3000, seed=5).p_value
    for j in range(3):
        alone = randomization_test(d[:, j], n_resamples=3000, seed=5).p_value
        assert alone == together[j]


def test_symmetric_in_the_two_systems() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.random((300, 2)), rng.random((300, 2))
    seed = stream(1, "randomization", ["a", "b"])
    np.testing.assert_array_equal(
        randomization_test(a, b, seed=seed).p_value, randomization_test(b, a, seed=seed).p_value
    )


@pytest.mark.parametrize("n", [5, 64, 65, 1000])
def test_flip_sums_lookup_table_equals_matrix_product(n: int) -> None:
    rng = np.random.default_rng(n)
    values = rng.normal(size=(n, 2))
    flips = _random_flip_bytes(np.random.SeedSequence(3), n)
    sums = sign_flip_sums(values, flips, 50, chunk_size=7 * n)
    bits = np.unpackbits(flips(0, 50), axis=1, count=n, bitorder="little")
    expected = (1 - 2 * bits.astype(float)) @ values
    np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("chunk_size", [1, 40, 1000, 10**9])
def test_flip_sums_do_not_depend_on_the_chunks(chunk_size: int) -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(3000, 2))
    flips = _random_flip_bytes(np.random.SeedSequence(3), 3000)
    whole = sign_flip_sums(values, flips, 40, chunk_size=10**9)
    assert sign_flip_sums(values, flips, 40, chunk_size=chunk_size).tobytes() == whole.tobytes()
    bits = np.unpackbits(flips(0, 40), axis=1, count=3000, bitorder="little")
    np.testing.assert_allclose(whole, (1 - 2 * bits.astype(float)) @ values, rtol=0,
                               atol=1e-11)


def test_enumerated_patterns_cover_every_sign_vector() -> None:
    rows = _enumerated_flip_bytes(10)(0, 2**10)
    bits = np.unpackbits(rows, axis=1, count=10, bitorder="little")
    assert len({tuple(row) for row in bits}) == 2**10


def test_the_first_bits_of_the_stream_are_stable() -> None:
    # pins PCG64 + SeedSequence usage: same seed, same patterns on every platform
    flips = _random_flip_bytes(np.random.SeedSequence(0), 16)(0, 2)
    assert flips.tolist() == [[0x5F, 0x82], [0x21, 0xD7]]


def test_bad_parameters() -> None:
    with pytest.raises(InvalidParameterError, match="n_resamples must be a positive integer"):
        randomization_test([0.1, 0.2], n_resamples=0)
    with pytest.raises(InvalidParameterError, match="chunk_size"):
        randomization_test([0.1, 0.2], chunk_size=2.5)
    with pytest.raises(InvalidParameterError, match="seed must be a non-negative integer"):
        randomization_test([0.1, 0.2], seed=-1)


@pytest.mark.parametrize(("n", "columns"), [(3, 1), (8, 2), (100, 3), (1023, 1), (1031, 2),
                                            (2500, 4), (20011, 2)])
def test_flip_sums_same_bits_with_and_without_the_c_module(
    n: int, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rankwise.stats._cflip sums in numpy's pairwise order: the p-values do not depend on it.

    The sizes cover numpy's three summation cases (under 8 groups of 8, up to 128
    groups, more: halved), values spread over six orders of magnitude.
    """
    from rankwise._compiled import load

    if load("rankwise.stats._cflip") is None:
        pytest.skip("rankwise.stats._cflip is not built")
    rng = np.random.default_rng(n)
    values = rng.normal(size=(n, columns)) * 10.0 ** rng.uniform(-3, 3, size=(n, columns))
    flips = _random_flip_bytes(np.random.SeedSequence(n), n)
    monkeypatch.delenv("RANKWISE_NO_C", raising=False)
    with_c = sign_flip_sums(values, flips, 300, chunk_size=37 * n)
    import rankwise.stats.resampling as resampling

    monkeypatch.setattr(resampling, "_LOOKUPS_PER_THREAD", 1)  # rows split among the cores
    on_threads = sign_flip_sums(values, flips, 300, chunk_size=37 * n)
    assert on_threads.tobytes() == with_c.tobytes()
    monkeypatch.setenv("RANKWISE_NO_C", "1")
    with_numpy = sign_flip_sums(values, flips, 300, chunk_size=37 * n)
    assert with_c.tobytes() == with_numpy.tobytes()
    bits = np.unpackbits(flips(0, 300), axis=1, count=n, bitorder="little")
    expected = (1 - 2 * bits.astype(float)) @ values
    np.testing.assert_allclose(with_c, expected, rtol=1e-9, atol=1e-9)
