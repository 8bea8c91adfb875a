"""nDCG with the exponential gain at any grade: finite, exact, no numpy warnings (issue 13, 3c)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import collections

import rankwise as rw
from rankwise.exceptions import UnsupportedMeasureError
from rankwise.kernels import dcg as dcg_kernels


def _exact_ndcg(grades_in_order: list[int], judged: list[int], k: int | None = None) -> float:
    """nDCG from exact integer gains 2^g - 1 and float64 discounts, as a correctly rounded ratio."""

    def dcg(grades: list[int]) -> Fraction:
        top = grades if k is None else grades[:k]
        return sum(
            (Fraction(2 ** max(g, 0) - 1) * Fraction(1.0 / math.log2(i + 2))
             for i, g in enumerate(top)), Fraction(0)
        )

    ideal = dcg(sorted((g for g in judged if g > 0), reverse=True))
    return float(dcg(grades_in_order) / ideal) if ideal else 0.0


@pytest.mark.parametrize("top", [1023, 1024, 1100, 5000, 10**6])
def test_ndcg_is_finite_and_exact_at_large_grades(top: int) -> None:
    qrels = {"q1": {"a": top, "b": 3, "c": 0, "d": top - 1, "e": 1}}
    run = {"q1": {"b": 5.0, "a": 4.0, "c": 3.0, "e": 2.0, "d": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no RuntimeWarning from numpy
        results = rw.evaluate(qrels, run, ["ndcg", "ndcg@2", "ndcg@3(gain=linear)"])
    expected = _exact_ndcg([3, top, 0, 1, top - 1], list(qrels["q1"].values()))
    assert results["ndcg"][0] == pytest.approx(expected, rel=1e-14)
    assert math.isfinite(results.mean["ndcg@2"])
    assert results["ndcg@2"][0] == pytest.approx(
        _exact_ndcg([3, top, 0, 1, top - 1], list(qrels["q1"].values()), k=2), rel=1e-14
    )


@pytest.mark.parametrize("top", [1023, 1100, 10**6])
def test_many_cutoffs_at_once_at_large_grades(top: int) -> None:
    """ndcg@1..5 asked together (one pass, CUTOFF_KERNELS) scale their gains as ndcg@k alone."""
    qrels = {"q1": {"a": top, "b": 3, "c": 0, "d": top - 1, "e": 1}, "q2": {"a": 2, "b": 1}}
    run = {"q1": {"b": 5.0, "a": 4.0, "c": 3.0, "e": 2.0, "d": 1.0}, "q2": {"b": 2.0, "a": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        together = rw.evaluate(qrels, run, [f"ndcg@{k}" for k in range(1, 6)])
        for k in range(1, 6):
            alone = rw.evaluate(qrels, run, [f"ndcg@{k}"])[f"ndcg@{k}"]
            assert together[f"ndcg@{k}"].tolist() == alone.tolist()
            assert np.isfinite(alone).all()
            expected = _exact_ndcg([3, top, 0, 1, top - 1], list(qrels["q1"].values()), k=k)
            assert alone[0] == pytest.approx(expected, rel=1e-14)


def test_many_dcg_cutoffs_beyond_float64_are_refused() -> None:
    qrels = {"q1": {"a": 2000, "b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}}
    with pytest.raises(rw.RankwiseError, match="larger than the largest float64"):
        rw.evaluate(qrels, run, ["dcg@1", "dcg@2"])
    small = rw.evaluate({"q1": {"a": 600, "b": 1}}, run, ["dcg@1", "dcg@2", "dcg@3"])
    assert small["dcg@1"][0] == 2.0**600 - 1.0  # scaled and unscaled by a power of two: exact


def test_average_ties_at_large_grades() -> None:
    qrels = {"q1": {"a": 2000, "b": 1999}}
    run = {"q1": {"a": 1.0, "b": 1.0}}
    value = rw.evaluate(qrels, run, ["ndcg"], ties="average")["ndcg"][0]
    # expected over the two orders: (1 + E[other order]) / 2, each computed exactly
    expected = (_exact_ndcg([2000, 1999], [2000, 1999]) + _exact_ndcg([1999, 2000], [2000, 1999]))
    assert value == pytest.approx(expected / 2, rel=1e-14)


@settings(max_examples=150, deadline=None)
@given(collections(grades=st.integers(-1, 1000)))
def test_scaling_is_exact_where_the_unscaled_gain_is_finite(
    collection: tuple[dict, dict],
) -> None:
    """Dividing every gain of a query by a power of two changes no bit of its nDCG."""
    qrels, run = collection
    measures = ["ndcg", "ndcg@3", "ndcg(gains=2=5)"]
    scaled = rw.evaluate(qrels, run, measures)
    original = dcg_kernels.EXP_SCALE_ABOVE
    try:
        dcg_kernels.EXP_SCALE_ABOVE = math.inf  # never scale: 2^g - 1 itself (finite up to 1023)
        unscaled = rw.evaluate(qrels, run, measures)
    finally:
        dcg_kernels.EXP_SCALE_ABOVE = original
    for measure in measures:
        np.testing.assert_array_equal(scaled[measure], unscaled[measure])


def test_dcg_beyond_float64_is_refused() -> None:
    refused = r"grade of 1100 .* ndcg .* dcg\(gain=linear\)"
    with pytest.raises(UnsupportedMeasureError, match=refused):
        rw.evaluate({"q1": {"a": 1100}}, {"q1": {"a": 1.0}}, ["dcg"])
    big = rw.evaluate({"q1": {"a": 1000, "b": 1}}, {"q1": {"a": 1.0, "b": 0.5}}, ["dcg"])
    assert big["dcg"][0] == float(2**1000 - 1) + 1 / math.log2(3)


def _ideal_by_hand(n_judged: int, gain: float, k: int | None) -> float:
    """The ideal DCG of n judged documents of one gain: g / log2(r + 1) added rank by rank."""
    total = 0.0
    for rank in range(1, (n_judged if k is None else min(n_judged, k)) + 1):
        total += gain / float(np.log2(rank + 1.0))
    return total


@pytest.mark.parametrize("grade", [1, 3])
@pytest.mark.parametrize("measure", ["ndcg@3", "ndcg@10", "ndcg", "ndcg@5(gain=linear)"])
def test_ideal_dcg_of_judgments_of_one_grade(grade: int, measure: str) -> None:
    # every judgment has one grade (implicit feedback): the ideal ranking's sum is taken
    # from one running sum; each query's nDCG is its DCG over that sum, to the bit
    rng = np.random.default_rng(7)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    expected = {}
    parsed = rw.measures.parse(measure)
    gain = float(2**grade - 1) if "linear" not in measure else float(grade)
    for q in range(40):
        judged = [f"d{d}" for d in rng.choice(30, size=int(rng.integers(1, 15)), replace=False)]
        qrels[f"q{q}"] = dict.fromkeys(judged, grade)
        ranked = [f"d{d}" for d in rng.permutation(30)[:12]]
        run[f"q{q}"] = {doc: float(12 - r) for r, doc in enumerate(ranked)}
        dcg = 0.0
        for r, doc in enumerate(ranked, start=1):
            if doc in qrels[f"q{q}"] and (parsed.cutoff is None or r <= parsed.cutoff):
                dcg += gain / float(np.log2(r + 1.0))
        expected[f"q{q}"] = dcg / _ideal_by_hand(len(judged), gain, parsed.cutoff)
    results = rw.evaluate(qrels, run, [measure])
    got = dict(zip(results.query_ids, results[measure].tolist(), strict=True))
    assert got == expected
