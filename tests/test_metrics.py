"""Tests of rankwise.metrics: hand-computed values, scikit-learn parity, properties, errors."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankwise.exceptions import InvalidParameterError, RankwiseError
from rankwise.metrics import (
    average_precision,
    dcg_at_k,
    dcg_score,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    ndcg_score,
    reciprocal_rank,
)

T, F = True, False
LOG2 = math.log2

# The tutorial's running example: grades of the top 5 results, in ranked order.
SEED = [3, 2, 3, 0, 1]
SEED_DCG_EXP = 7 + 3 / LOG2(3) + 7 / LOG2(4) + 0 / LOG2(5) + 1 / LOG2(6)
SEED_IDCG_EXP = 7 + 7 / LOG2(3) + 3 / LOG2(4) + 1 / LOG2(5) + 0 / LOG2(6)
SEED_DCG_LIN = 3 + 2 / LOG2(3) + 3 / LOG2(4) + 0 / LOG2(5) + 1 / LOG2(6)
SEED_IDCG_LIN = 3 + 3 / LOG2(3) + 2 / LOG2(4) + 1 / LOG2(5) + 0 / LOG2(6)

# The tutorial's model comparison.
MODELS_Y_TRUE = [[3, 0, 2, 1, 3, 0, 2, 1, 0, 3]]
MODEL_A = [[0.95, 0.1, 0.7, 0.4, 0.9, 0.05, 0.6, 0.3, 0.2, 0.85]]
MODEL_B = [[0.8, 0.2, 0.9, 0.6, 0.4, 0.1, 0.7, 0.5, 0.05, 0.3]]


# --------------------------------------------------------------------------
# tutorial functions: hand-computed values
# --------------------------------------------------------------------------


class TestDcgAtK:
    def test_tutorial_value(self):
        assert dcg_at_k(SEED, 5) == pytest.approx(SEED_DCG_EXP, abs=1e-12)
        assert round(dcg_at_k(SEED, 5), 4) == 12.7796

    def test_k_none_and_k_beyond_length_use_all(self):
        assert dcg_at_k(SEED) == pytest.approx(SEED_DCG_EXP, abs=1e-12)
        assert dcg_at_k(SEED, 50) == pytest.approx(SEED_DCG_EXP, abs=1e-12)

    def test_cutoffs(self):
        assert dcg_at_k(SEED, 1) == 7.0
        assert dcg_at_k(SEED, 2) == pytest.approx(7 + 3 / LOG2(3), abs=1e-12)
        assert dcg_at_k(SEED, 3) == pytest.approx(7 + 3 / LOG2(3) + 3.5, abs=1e-12)

    def test_linear_gain(self):
        assert dcg_at_k(SEED, 5, gain="linear") == pytest.approx(SEED_DCG_LIN, abs=1e-12)

    def test_fractional_and_numpy_input(self):
        r = np.array([0.5, 1.5])
        expected = (2**0.5 - 1) + (2**1.5 - 1) / LOG2(3)
        assert dcg_at_k(r) == pytest.approx(expected, abs=1e-12)

    def test_empty(self):
        assert dcg_at_k([]) == 0.0
        assert dcg_at_k([], 3) == 0.0

    def test_numpy_integer_k(self):
        assert dcg_at_k(SEED, np.int64(2)) == dcg_at_k(SEED, 2)

    def test_returns_python_float(self):
        assert type(dcg_at_k(SEED, 3)) is float


class TestNdcgAtK:
    def test_tutorial_value(self):
        assert ndcg_at_k(SEED, 5) == pytest.approx(SEED_DCG_EXP / SEED_IDCG_EXP, abs=1e-12)
        assert round(ndcg_at_k(SEED, 5), 4) == 0.9575

    def test_linear_gain_matches_sklearn_number(self):
        assert ndcg_at_k(SEED, 5, gain="linear") == pytest.approx(
            SEED_DCG_LIN / SEED_IDCG_LIN, abs=1e-12
        )
        assert round(ndcg_at_k(SEED, 5, gain="linear"), 4) == 0.9724

    def test_cutoff_uses_ideal_cut_at_k(self):
        # top 2: [3, 2] against ideal [3, 3]
        expected = (7 + 3 / LOG2(3)) / (7 + 7 / LOG2(3))
        assert ndcg_at_k(SEED, 2) == pytest.approx(expected, abs=1e-12)
        assert ndcg_at_k(SEED, 1) == 1.0

    def test_no_relevant_scores_zero(self):
        assert ndcg_at_k([0, 0, 0], 2) == 0.0
        assert ndcg_at_k([]) == 0.0

    def test_perfect_order(self):
        assert ndcg_at_k([3, 3, 2, 1, 0]) == pytest.approx(1.0, abs=1e-15)

    def test_worst_order_below_one(self):
        assert ndcg_at_k([0, 1, 2, 3, 3]) == pytest.approx(
            dcg_at_k([0, 1, 2, 3, 3]) / dcg_at_k([3, 3, 2, 1, 0]), abs=1e-12
        )


class TestAveragePrecision:
    def test_hand_values(self):
        assert average_precision([T, F, T, F, T]) == pytest.approx(
            (1 + 2 / 3 + 3 / 5) / 3, abs=1e-15
        )
        assert average_precision([F, T, F, T, F]) == pytest.approx(0.5, abs=1e-15)
        assert average_precision([T, T, F, F, F]) == 1.0

    def test_zero_one_ints_and_floats(self):
        assert average_precision([1, 0, 1, 0, 1]) == average_precision([T, F, T, F, T])
        assert average_precision(np.array([1.0, 0.0, 1.0])) == pytest.approx(
            (1 + 2 / 3) / 2, abs=1e-15
        )

    def test_no_relevant_and_empty(self):
        assert average_precision([F, F, F]) == 0.0
        assert average_precision([]) == 0.0
        assert average_precision([0, 0], n_relevant=0) == 0.0

    def test_n_relevant_for_truncated_list(self):
        # two relevant documents retrieved, four exist
        assert average_precision([T, F, T], n_relevant=4) == pytest.approx(
            (1 + 2 / 3) / 4, abs=1e-15
        )
        assert average_precision([F, F], n_relevant=3) == 0.0
        assert average_precision([T, F, T], n_relevant=np.int32(2)) == pytest.approx(
            (1 + 2 / 3) / 2, abs=1e-15
        )


class TestMeanAveragePrecision:
    def test_tutorial_value(self):
        masks = [[T, F, T, F, T], [F, T, F, T, F], [T, T, F, F, F]]
        expected = ((1 + 2 / 3 + 3 / 5) / 3 + 0.5 + 1.0) / 3
        assert mean_average_precision(masks) == pytest.approx(expected, abs=1e-15)
        assert round(mean_average_precision(masks), 4) == 0.7519

    def test_ragged_and_empty_lists(self):
        masks = [[1, 0], [0, 0, 0, 1], [], [0]]
        assert mean_average_precision(masks) == pytest.approx((1 + 0.25 + 0 + 0) / 4, abs=1e-15)

    def test_two_d_array_read_by_rows(self):
        masks = np.array([[1, 0, 1], [0, 1, 1]])
        assert mean_average_precision(masks) == pytest.approx(
            ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2, abs=1e-15
        )

    def test_n_relevant_per_query(self):
        masks = [[T, F, T], [F, T]]
        assert mean_average_precision(masks, n_relevant=[4, 1]) == pytest.approx(
            ((1 + 2 / 3) / 4 + 0.5) / 2, abs=1e-15
        )

    def test_equals_mean_of_average_precision(self):
        rng = np.random.default_rng(7)
        masks = [rng.random(rng.integers(0, 30)) < 0.3 for _ in range(50)]
        expected = np.mean([average_precision(m) for m in masks])
        assert mean_average_precision(masks) == pytest.approx(expected, abs=1e-15)


class TestReciprocalRank:
    def test_values(self):
        assert reciprocal_rank([T, F, F]) == 1.0
        assert reciprocal_rank([F, F, T, T]) == pytest.approx(1 / 3, abs=1e-15)
        assert reciprocal_rank([0, 1]) == 0.5
        assert reciprocal_rank([F, F]) == 0.0
        assert reciprocal_rank([]) == 0.0

    def test_mrr_tutorial_value(self):
        masks = [[1, 0, 0], [0, 0, 1], [0, 1, 0]]  # first relevant at ranks 1, 3, 2
        assert mean_reciprocal_rank(masks) == pytest.approx((1 + 1 / 3 + 1 / 2) / 3, abs=1e-15)
        assert round(mean_reciprocal_rank(masks), 4) == 0.6111

    def test_mrr_ragged_with_misses(self):
        masks = [[0, 0, 0, 1], [], [0, 0], [1]]
        assert mean_reciprocal_rank(masks) == pytest.approx((0.25 + 0 + 0 + 1) / 4, abs=1e-15)


# --------------------------------------------------------------------------
# scikit-learn compatible functions: hand values
# --------------------------------------------------------------------------


class TestNdcgScoreValues:
    def test_tutorial_value(self):
        value = ndcg_score([SEED], [[0.9, 0.8, 0.7, 0.4, 0.3]], k=5)
        assert value == pytest.approx(SEED_DCG_LIN / SEED_IDCG_LIN, abs=1e-12)
        assert round(value, 4) == 0.9724

    def test_dcg_tutorial_value(self):
        value = dcg_score([SEED], [[0.9, 0.8, 0.7, 0.4, 0.3]], k=5)
        assert value == pytest.approx(SEED_DCG_LIN, abs=1e-12)

    @pytest.mark.parametrize(
        ("k", "a", "b"), [(3, 1.0, 0.7654), (5, 1.0, 0.7113), (10, 1.0, 0.8923)]
    )
    def test_tutorial_models(self, k, a, b):
        assert ndcg_score(MODELS_Y_TRUE, MODEL_A, k=k) == pytest.approx(a, abs=1e-12)
        assert round(ndcg_score(MODELS_Y_TRUE, MODEL_B, k=k), 4) == b

    def test_model_b_exact(self):
        # model B ranks grades 2, 3, 2, 1, 1, 3, 3, 0, 0, 0
        ranked = [2, 3, 2, 1, 1, 3, 3, 0, 0, 0]
        ideal = sorted(ranked, reverse=True)
        for k in (3, 5, 10):
            dcg = sum(g / LOG2(i + 2) for i, g in enumerate(ranked[:k]))
            idcg = sum(g / LOG2(i + 2) for i, g in enumerate(ideal[:k]))
            assert ndcg_score(MODELS_Y_TRUE, MODEL_B, k=k) == pytest.approx(dcg / idcg, abs=1e-12)

    def test_ties_are_averaged(self):
        # both orders of the two tied documents are equally likely
        expected = ((3 + 1 / LOG2(3)) + (1 + 3 / LOG2(3))) / 2
        assert dcg_score([[3, 1]], [[0.5, 0.5]]) == pytest.approx(expected, abs=1e-12)
        assert dcg_score([[3, 1, 2]], [[0.5, 0.5, 0.9]]) == pytest.approx(
            2 + 2 * (1 / LOG2(3) + 1 / LOG2(4)), abs=1e-12
        )

    def test_ties_straddling_the_cutoff(self):
        # docs 0 and 1 tie for ranks 1-2, only rank 1 counts: mean gain 2 at rank 1
        assert dcg_score([[3, 1, 5]], [[1, 1, 0]], k=1) == pytest.approx(2.0, abs=1e-12)
        assert ndcg_score([[3, 1, 5]], [[1, 1, 0]], k=1) == pytest.approx(2 / 5, abs=1e-12)

    def test_all_scores_tied(self):
        y = [[3, 0, 1, 2]]
        mean_gain = 1.5
        assert dcg_score(y, [[7, 7, 7, 7]]) == pytest.approx(
            mean_gain * sum(1 / LOG2(i + 2) for i in range(4)), abs=1e-12
        )

    def test_query_without_relevant_scores_zero(self):
        assert ndcg_score([[0, 0, 0], [1, 0, 0]], [[1, 2, 3], [3, 2, 1]]) == 0.5

    def test_sample_weight(self):
        y_true = [[0, 0, 0], [1, 0, 0]]
        y_score = [[1, 2, 3], [3, 2, 1]]
        assert ndcg_score(y_true, y_score, sample_weight=[1, 3]) == 0.75
        assert dcg_score(y_true, y_score, sample_weight=[0, 2]) == 1.0

    def test_log_base(self):
        assert dcg_score([[1, 1]], [[2, 1]], log_base=10) == pytest.approx(
            1 / math.log10(2) + 1 / math.log10(3), abs=1e-12
        )

    def test_k_beyond_n_docs_equals_none(self):
        y_true = [[3, 0, 2], [1, 1, 0]]
        y_score = [[0.1, 0.1, 0.3], [0.2, 0.5, 0.5]]
        assert ndcg_score(y_true, y_score, k=30) == ndcg_score(y_true, y_score)
        assert dcg_score(y_true, y_score, k=3) == dcg_score(y_true, y_score)

    def test_ignore_ties_without_ties_changes_nothing(self):
        y_true = [[3, 0, 2, 1]]
        y_score = [[0.4, 0.3, 0.2, 0.1]]
        assert ndcg_score(y_true, y_score, ignore_ties=True) == pytest.approx(
            ndcg_score(y_true, y_score), abs=1e-15
        )

    def test_returns_python_float(self):
        assert type(ndcg_score([[1, 0]], [[1, 0]])) is float
        assert type(dcg_score([[1, 0]], [[1, 0]])) is float


# --------------------------------------------------------------------------
# scikit-learn parity, with ties
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def skm():
    return pytest.importorskip("sklearn.metrics")


def _random_case(rng: np.random.Generator, n_docs: int):
    n_queries = int(rng.integers(1, 8))
    kind = rng.integers(3)
    if kind == 0:
        y_true = rng.integers(0, 5, (n_queries, n_docs))  # graded, int
    elif kind == 1:
        y_true = (rng.random((n_queries, n_docs)) < 0.3).astype(np.int64)  # binary
    else:
        y_true = rng.random((n_queries, n_docs)) * 4  # continuous
    levels = int(rng.integers(1, 5))  # few score levels: many ties
    y_score = rng.integers(0, levels, (n_queries, n_docs))
    if rng.random() < 0.5:
        y_score = y_score / 7.0
    return y_true, y_score


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k_kind", ["none", "one", "small", "n_docs", "beyond"])
def test_sklearn_parity_random_with_ties(skm, seed, ignore_ties, k_kind):
    rng = np.random.default_rng(seed)
    n_docs = int(rng.integers(2, 40))  # > 16 exercises numpy's non-insertion sort
    y_true, y_score = _random_case(rng, n_docs)
    k = {"none": None, "one": 1, "small": 3, "n_docs": n_docs, "beyond": n_docs + 7}[k_kind]
    sample_weight = None if seed % 3 else rng.random(y_true.shape[0]) + 0.1
    kw = {"k": k, "ignore_ties": ignore_ties, "sample_weight": sample_weight}

    expected = skm.ndcg_score(y_true, y_score, **kw)
    assert ndcg_score(y_true, y_score, **kw) == pytest.approx(expected, abs=1e-12, rel=0)

    log_base = [2, 10, math.e, 1.5][seed % 4]
    expected = skm.dcg_score(y_true, y_score, log_base=log_base, **kw)
    actual = dcg_score(y_true, y_score, log_base=log_base, **kw)
    assert actual == pytest.approx(expected, abs=1e-12, rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n_queries=st.integers(1, 5),
    n_docs=st.integers(2, 25),
    ignore_ties=st.booleans(),
)
def test_sklearn_parity_hypothesis(skm, data, n_queries, n_docs, ignore_ties):
    shape = (n_queries, n_docs)
    y_true = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 4)))
    y_score = data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 0.5, 1.0])))
    k = data.draw(st.none() | st.integers(1, n_docs + 3))
    kw = {"k": k, "ignore_ties": ignore_ties}
    assert ndcg_score(y_true, y_score, **kw) == pytest.approx(
        skm.ndcg_score(y_true, y_score, **kw), abs=1e-12, rel=0
    )
    assert dcg_score(y_true, y_score, **kw) == pytest.approx(
        skm.dcg_score(y_true, y_score, **kw), abs=1e-12, rel=1e-12
    )


def test_sklearn_parity_tutorial_models(skm):
    for k in (3, 5, 10):
        for model in (MODEL_A, MODEL_B):
            assert ndcg_score(MODELS_Y_TRUE, model, k=k) == pytest.approx(
                skm.ndcg_score(MODELS_Y_TRUE, model, k=k), abs=1e-12
            )


# --------------------------------------------------------------------------
# the tie average is the mean over all orders of tied documents (brute force)
# --------------------------------------------------------------------------


def _brute_force_tie_average(y_true, y_score, k):
    n = len(y_true)
    values = []
    for perm in itertools.permutations(range(n)):
        if all(y_score[perm[i]] >= y_score[perm[i + 1]] for i in range(n - 1)):
            cut = perm[: k or n]
            values.append(sum(y_true[d] / LOG2(i + 2) for i, d in enumerate(cut)))
    return sum(values) / len(values)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(2, 6).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 3), min_size=n, max_size=n),
            st.lists(st.integers(0, 2), min_size=n, max_size=n),
            st.none() | st.integers(1, n),
        )
    )
)
def test_tie_average_equals_enumeration(rows):
    y_true, y_score, k = rows
    expected = _brute_force_tie_average(y_true, y_score, k)
    assert dcg_score([y_true], [y_score], k=k) == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------

grades = st.lists(st.integers(0, 4), min_size=0, max_size=30)
masks = st.lists(st.booleans(), min_size=0, max_size=30)
cutoffs = st.none() | st.integers(1, 40)


@st.composite
def graded_matrices(draw, min_docs=2, max_docs=20):
    n_queries = draw(st.integers(1, 5))
    n_docs = draw(st.integers(min_docs, max_docs))
    shape = (n_queries, n_docs)
    y_true = draw(hnp.arrays(np.float64, shape, elements=st.integers(0, 4).map(float)))
    y_score = draw(hnp.arrays(np.float64, shape, elements=st.integers(-3, 3).map(float)))
    return y_true, y_score


@settings(max_examples=200, deadline=None)
@given(r=grades, k=cutoffs, gain=st.sampled_from(["exponential", "linear"]))
def test_ndcg_at_k_in_unit_interval_and_perfect_is_one(r, k, gain):
    value = ndcg_at_k(r, k, gain=gain)
    assert 0.0 <= value <= 1.0 + 1e-12
    ideal = ndcg_at_k(sorted(r, reverse=True), k, gain=gain)
    assert ideal == (pytest.approx(1.0, abs=1e-12) if any(r) else 0.0)
    assert dcg_at_k(r, k, gain=gain) <= dcg_at_k(sorted(r, reverse=True), k, gain=gain) + 1e-9


@settings(max_examples=200, deadline=None)
@given(m=masks)
def test_ap_and_rr_in_unit_interval(m):
    ap = average_precision(m)
    rr = reciprocal_rank(m)
    assert 0.0 <= ap <= 1.0 + 1e-15
    assert 0.0 <= rr <= 1.0
    if any(m):
        assert rr == 1.0 / (m.index(True) + 1)
        assert average_precision(sorted(m, reverse=True)) == 1.0
    else:
        assert ap == rr == 0.0


@settings(max_examples=100, deadline=None)
@given(ms=st.lists(masks, min_size=1, max_size=10))
def test_means_equal_mean_of_per_query_values(ms):
    assert mean_average_precision(ms) == pytest.approx(
        float(np.mean([average_precision(m) for m in ms])), abs=1e-15
    )
    assert mean_reciprocal_rank(ms) == pytest.approx(
        float(np.mean([reciprocal_rank(m) for m in ms])), abs=1e-15
    )


@settings(max_examples=150, deadline=None)
@given(case=graded_matrices(), k=cutoffs, ignore_ties=st.booleans())
def test_ndcg_score_in_unit_interval(case, k, ignore_ties):
    y_true, y_score = case
    value = ndcg_score(y_true, y_score, k=k, ignore_ties=ignore_ties)
    assert 0.0 <= value <= 1.0 + 1e-12


@settings(max_examples=150, deadline=None)
@given(case=graded_matrices(), k=cutoffs)
def test_perfect_ordering_scores_one(case, k):
    y_true, _ = case
    # scores that follow the grades: a perfect ranking (ties only among equal grades)
    y_score = y_true * 10.0
    value = ndcg_score(y_true, y_score, k=k)
    has_gain = y_true.max(axis=1) > 0
    assert value == pytest.approx(float(has_gain.mean()), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(case=graded_matrices(), k=cutoffs, seed=st.integers(0, 2**32 - 1))
def test_permuting_documents_jointly_changes_nothing(case, k, seed):
    y_true, y_score = case
    rng = np.random.default_rng(seed)
    perm = rng.permutation(y_true.shape[1])
    rows = rng.permutation(y_true.shape[0])
    for func in (ndcg_score, dcg_score):
        before = func(y_true, y_score, k=k)
        after_docs = func(y_true[:, perm], y_score[:, perm], k=k)
        after_queries = func(y_true[rows], y_score[rows], k=k)
        assert after_docs == pytest.approx(before, abs=1e-12)
        assert after_queries == pytest.approx(before, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(case=graded_matrices(), k=cutoffs)
def test_score_matrix_agrees_with_ranked_list_functions(case, k):
    y_true, _ = case
    n_docs = y_true.shape[1]
    # distinct scores: the ranking is the column order
    y_score = np.tile(np.arange(n_docs, 0, -1, dtype=float), (y_true.shape[0], 1))
    expected = np.mean([ndcg_at_k(row, k, gain="linear") for row in y_true])
    assert ndcg_score(y_true, y_score, k=k) == pytest.approx(expected, abs=1e-12)
    expected = np.mean([dcg_at_k(row, k, gain="linear") for row in y_true])
    assert dcg_score(y_true, y_score, k=k) == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: dcg_at_k(SEED, 0), r"^k must be a positive integer or None, got 0 \(int\)$"),
        (lambda: dcg_at_k(SEED, -2), r"k must be .*got -2"),
        (lambda: dcg_at_k(SEED, 2.0),
         r"^k must be a positive integer or None, got 2\.0 \(float\)$"),
        (lambda: dcg_at_k(SEED, True), r"k must be .*got True \(bool\)"),
        (lambda: dcg_at_k(SEED, "5"), r"k must be .*got '5' \(str\)"),
        (lambda: dcg_at_k([[3, 2], [1, 0]]), r"relevances must be a 1-D .*shape \(2, 2\)"),
        (lambda: dcg_at_k(3), r"relevances must be a 1-D .*got a 0-D"),
        (lambda: dcg_at_k([1, float("nan")]), r"relevances must contain only finite.*index 1"),
        (lambda: dcg_at_k(["a", "b"]), r"relevances must contain numbers.*dtype <U1"),
        (lambda: dcg_at_k([[1], [2, 3]]), r"relevances must be a rectangular array"),
        (lambda: dcg_at_k(SEED, gain="log"),
         r"^gain must be 'exponential' or 'linear', got 'log' \(str\)$"),
        (lambda: ndcg_at_k([1, -1, 2]), r"relevances must be non-negative.*got -1 at index 1"),
        (lambda: average_precision([1, 0, 2]), r"mask must contain only .*got 2 at index 2"),
        (lambda: average_precision([[1, 0]]), r"mask must be a 1-D .*shape \(1, 2\)"),
        (
            lambda: average_precision([1, 1, 0], n_relevant=1),
            r"n_relevant must be at least the number of relevant .*\(2\); got 1",
        ),
        (lambda: average_precision([1], n_relevant=-1), r"n_relevant must be a non-negative"),
        (lambda: average_precision([1], n_relevant=1.5), r"n_relevant must be a non-negative"),
        (lambda: average_precision([1], n_relevant=[1]), r"n_relevant must be a non-negative int"),
        (lambda: reciprocal_rank([0.5, 1]), r"mask must contain only .*got 0\.5 at index 0"),
        (lambda: mean_average_precision([]), r"masks must contain at least one mask"),
        (lambda: mean_average_precision([T, F]), r"masks\[0\] must be a 1-D .*scalar True"),
        (lambda: mean_average_precision(5), r"masks must be a sequence .*got 5 \(int\)"),
        (lambda: mean_reciprocal_rank([[1], [3]]), r"masks\[1\] must contain only .*got 3"),
        (
            lambda: mean_average_precision([[1], [0, 1]], n_relevant=[1]),
            r"n_relevant must have one entry per mask \(2\); got shape \(1,\)",
        ),
        (
            lambda: mean_average_precision([[1], [1, 1]], n_relevant=[1, 1]),
            r"n_relevant\[1\] must be at least .*\(2\); got 1",
        ),
    ],
)
def test_tutorial_function_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("func", [ndcg_score, dcg_score])
@pytest.mark.parametrize(
    ("y_true", "y_score", "kw", "match"),
    [
        ([3, 2, 1], [1, 2, 3], {}, r"y_true must be a 2-D array .*1-D array of shape \(3,\)"),
        ([[3, 2, 1]], [1, 2, 3], {}, r"y_score must be a 2-D array .*shape \(3,\)"),
        (
            [[3, 2, 1]],
            [[1, 2]],
            {},
            r"y_true and y_score must have the same shape .*y_true \(1, 3\) and y_score \(1, 2\)",
        ),
        (
            [[3, 2, 1], [1, 2, 3]],
            [[1, 2, 3]],
            {},
            r"got y_true \(2, 3\) and y_score \(1, 3\)",
        ),
        ([[1], [2]], [[1], [2]], {}, r"at least 2 documents .*shape \(2, 1\)"),
        (np.zeros((0, 3)), np.zeros((0, 3)), {}, r"at least one query .*shape \(0, 3\)"),
        ([[1, float("nan")]], [[1, 2]], {}, r"y_true must contain only finite .*\[0, 1\]"),
        ([[1, 2]], [[1, float("inf")]], {}, r"y_score must contain only finite"),
        ([[1, 2]], [["a", "b"]], {}, r"y_score must contain numbers"),
        ([[1, 2]], [[1, 2]], {"k": 0}, r"^k must be a positive integer or None, got 0 \(int\)$"),
        ([[1, 2]], [[1, 2]], {"k": 1.5}, r"k must be .*got 1\.5 \(float\)"),
        ([[1, 2]], [[1, 2]], {"ignore_ties": 1},
         r"^ignore_ties must be True or False, got 1 \(int\)$"),
        (
            [[1, 2], [2, 1]],
            [[1, 2], [1, 2]],
            {"sample_weight": [1, 2, 3]},
            r"sample_weight must be 1-D with one weight per query \(2,\); got shape \(3,\)",
        ),
        (
            [[1, 2], [2, 1]],
            [[1, 2], [1, 2]],
            {"sample_weight": [0, 0]},
            r"sample_weight must not sum to zero",
        ),
    ],
)
def test_matrix_function_errors(func, y_true, y_score, kw, match):
    with pytest.raises(ValueError, match=match):
        func(y_true, y_score, **kw)


def test_ndcg_score_rejects_negative_grades_like_sklearn(skm):
    with pytest.raises(ValueError, match=r"y_true must be non-negative.*got -1 at \[0, 2\]"):
        ndcg_score([[1, 2, -1]], [[1, 2, 3]])
    with pytest.raises(ValueError):
        skm.ndcg_score([[1, 2, -1]], [[1, 2, 3]])
    # DCG itself is defined for negative gains, in both libraries
    assert dcg_score([[1, 2, -1]], [[1, 2, 3]]) == pytest.approx(
        skm.dcg_score([[1, 2, -1]], [[1, 2, 3]]), abs=1e-12
    )


@pytest.mark.parametrize("log_base", [0, -2, float("inf"), float("nan"), True, "2"])
def test_dcg_score_rejects_bad_log_base(log_base):
    with pytest.raises(ValueError, match=r"^log_base must be a finite positive number, got"):
        dcg_score([[1, 2]], [[1, 2]], log_base=log_base)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ndcg_score([[1, 2]], [[1, 2]], k=0),
        lambda: dcg_score([1, 2], [1, 2]),
        lambda: ndcg_at_k([1, -1]),
        lambda: average_precision([2]),
        lambda: mean_reciprocal_rank([]),
    ],
)
def test_errors_are_the_library_s_invalid_parameter_error(call):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert isinstance(info.value, RankwiseError)
    assert isinstance(info.value, ValueError)


# --------------------------------------------------------------------------
# module hygiene
# --------------------------------------------------------------------------


def test_import_is_numpy_only():
    code = (
        "import sys, rankwise.metrics; "
        "heavy = {'sklearn', 'scipy', 'pandas', 'matplotlib', 'pyspark', 'polars'}; "
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    import rankwise.metrics

    src = str(Path(rankwise.metrics.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip() == "[]"


def test_all_lists_public_functions():
    import rankwise.metrics as m

    assert sorted(m.__all__) == [
        "average_precision",
        "dcg_at_k",
        "dcg_score",
        "mean_average_precision",
        "mean_reciprocal_rank",
        "ndcg_at_k",
        "ndcg_score",
        "reciprocal_rank",
    ]
    for name in m.__all__:
        assert callable(getattr(m, name))
        assert "Examples" in getattr(m, name).__doc__


def test_tutorial_page_examples_run():
    import doctest

    page = Path(__file__).resolve().parents[1] / "docs" / "tutorial-metrics.md"
    if not page.exists():
        pytest.skip("docs/tutorial-metrics.md not present (installed package)")
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 10
    assert result.failed == 0
