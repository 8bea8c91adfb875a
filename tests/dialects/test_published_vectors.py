"""The tools' own published test vectors (numbers copied as data, with their source).

- Spark: mllib/src/test/scala/org/apache/spark/mllib/evaluation/RankingMetricsSuite.scala
  (apache/spark @ 0d3824316688326e2f263ea07cff7012dad04260, Apache-2.0), tolerance 1e-5 as
  in the suite. Its graded case is Scala-only (PySpark drops the relevance array).
- XGBoost: tests/cpp/metric/test_rank_metric.h (dmlc/xgboost @ 06282d654d4591a2b8b0ebb8cc5
  84f1625855ee6, Apache-2.0), tolerances as in the file.
- MTEB (not installed here: it needs sentence-transformers and datasets):
  tests/test_evaluators/test_evaluation_metrics.py, the MRR tie tests of PR #5136
  (embeddings-benchmark/mteb, 2.18.19 and later, Apache-2.0).
"""

from __future__ import annotations

import pytest

import rankwise as rw
from rankwise.integrations import evaluate_groups


def _spark(pairs: list[tuple[list[int], list[int]]], relevance: list[list[float]] | None = None
           ) -> tuple[dict, dict]:
    """Spark's (ranked ids, ground truth[, relevance]) as judgments and a run."""
    qrels: dict = {}
    run: dict = {}
    for q, (predicted, truth) in enumerate(pairs):
        grades = relevance[q] if relevance else [1.0] * len(truth)
        qrels[f"q{q}"] = {str(d): g for d, g in zip(truth, grades)} or {"none": 0}
        if predicted:
            run[f"q{q}"] = {str(d): float(len(predicted) - i) for i, d in enumerate(predicted)}
    return qrels, run


SUITE = [([1, 6, 2, 7, 8, 3, 9, 10, 4, 5], [1, 2, 3, 4, 5]),
         ([4, 1, 5, 6, 2, 7, 3, 8, 9, 10], [1, 2, 3]), ([1, 2, 3, 4, 5], [])]


def test_spark_ranking_metrics_suite() -> None:
    qrels, run = _spark(SUITE)
    expected = {
        "P@1": 1 / 3, "P@2": 1 / 3, "P@3": 1 / 3, "P@4": 0.75 / 3, "P@5": 0.8 / 3,
        "P@10": 0.8 / 3, "P@15": 8 / 45, "map": 0.355026, "map@1": 0.333334, "map@2": 0.25,
        "map@3": 0.24074, "ndcg@3": 1 / 3, "ndcg@5": 0.328788, "ndcg@10": 0.487913,
        "ndcg@15": 0.487913, "recall@1": 1 / 15, "recall@2": 8 / 45, "recall@3": 11 / 45,
        "recall@4": 11 / 45, "recall@5": 16 / 45, "recall@10": 2 / 3, "recall@15": 2 / 3,
    }
    measures = [rw.parse(m).replace(dialect="spark") for m in expected]
    means = rw.evaluate(qrels, run, measures).mean
    for measure, (name, value) in zip(measures, expected.items()):
        assert means[str(measure)] == pytest.approx(value, abs=1e-5), name


def test_spark_graded_ndcg_scala_only() -> None:
    """Spark >= 3.4's ndcgAt with relevance (2^rel - 1, the labels given sorted by grade)."""
    qrels, run = _spark(SUITE, [[3.0, 2.0, 1.0, 1.0, 1.0], [2.0, 0.0, 0.0], []])
    expected = {"ndcg@3": 0.511959, "ndcg@5": 0.487806, "ndcg@10": 0.5187, "ndcg@15": 0.5187}
    measures = [rw.parse(m).replace(dialect="spark", gain="exp") for m in expected]
    means = rw.evaluate(qrels, run, measures).mean
    for measure, value in zip(measures, expected.values()):
        assert means[str(measure)] == pytest.approx(value, abs=1e-5)


def test_spark_few_predictions() -> None:
    """SPARK-14886: a query with no prediction scores 0 (rankwise: missing='zero')."""
    qrels, run = _spark([([1, 6, 2], [1, 2, 3, 4, 5]), ([], [1, 2, 3])])
    expected = {"P@1": 0.5, "P@2": 0.25, "ndcg@1": 0.5, "ndcg@2": 0.30657, "recall@1": 0.1,
                "recall@2": 0.1}
    measures = [rw.parse(m).replace(dialect="spark") for m in expected]
    means = rw.evaluate(qrels, run, measures, missing="zero").mean
    for measure, value in zip(measures, expected.values()):
        assert means[str(measure)] == pytest.approx(value, abs=1e-5)


@pytest.mark.parametrize(
    ("measure", "preds", "labels", "groups", "expected", "tolerance"),
    [
        ("P@32(dialect=xgboost)", [0, 1], [0, 1], [2], 0.5, 1e-7),  # "pre" is pre@32
        ("P@32(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.5, 1e-7),
        ("P@2(dialect=xgboost)", [0, 1], [0, 1], [2], 0.5, 1e-7),
        ("P@2(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.5, 1e-3),
        ("P@4(dialect=xgboost)", [0.2, 0.3, 0.4, 0.5, 0.6, 0.7], [0, 1, 0, 0, 1, 1], [6], 0.5,
         1e-7),
        ("ndcg(dialect=xgboost)", [0, 1], [0, 1], [2], 1.0, 1e-10),
        ("ndcg(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.6509, 1e-3),
        ("ndcg@2(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.3868, 1e-3),
        ("ndcg(dialect=xgboost,empty=0)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.6509,
         1e-3),
        ("ndcg@2(dialect=xgboost,empty=0)", [0, 1], [0, 1], [2], 1.0, 1e-10),
        ("map(dialect=xgboost)", [0, 1], [0, 1], [2], 1.0, 1e-6),
        ("map(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.5, 1e-3),
        ("map(dialect=xgboost)", [0.1, 0.9, 0.2, 0.8, 0.4, 1.7], [1, 1, 1, 0, 1, 0], [2, 3, 1],
         0.8611, 1e-3),
        ("map@2(dialect=xgboost)", [0, 1], [0, 1], [2], 1.0, 1e-10),
        ("map@2(dialect=xgboost)", [0.1, 0.9, 0.1, 0.9], [0, 0, 1, 1], [4], 0.25, 1e-3),
        ("ndcg(dialect=xgboost)", [0.1, 0.2, 0.3, 4.0, 70.0], [10, 0, 0, 1, 5], [5], 0.409738,
         1e-6),
        ("ndcg(dialect=xgboost,gain=linear)", [0.1, 0.2, 0.3, 4.0, 70.0], [10, 0, 0, 1, 5],
         [5], 0.695694, 1e-6),
        ("ndcg(dialect=xgboost)", [10, 0, 0, 1, 5], [10, 0, 0, 1, 5], [5], 1.0, 1e-6),
    ],
)
def test_xgboost_rank_metric_vectors(measure: str, preds: list, labels: list, groups: list,
                                     expected: float, tolerance: float) -> None:
    results = evaluate_groups(labels, preds, groups, [measure])
    assert results.mean[str(rw.parse(measure))] == pytest.approx(expected, abs=tolerance)


def test_mteb_mrr_ties_follow_the_document_ids() -> None:
    qrels = {"q1": {"d_pos": 1}}
    tied = {"d_pos": 0.5, "d_x": 0.5, "d_y": 0.5}
    forward = rw.evaluate(qrels, {"q1": tied}, ["mrr@10(dialect=mteb)"]).mean
    backward = rw.evaluate(qrels, {"q1": dict(reversed(tied.items()))},
                           ["mrr@10(dialect=mteb)"]).mean
    assert forward == backward == {"mrr@10(dialect=mteb)": 1 / 3}
    # beir keeps input order: the constant scorer's MRR@10 = 1.0 of mteb #5092
    assert rw.evaluate(qrels, {"q1": tied}, ["mrr@10(dialect=beir)"]).mean == {
        "mrr@10(dialect=beir)": 1.0}
    assert rw.evaluate({"q1": {"d_a": 1}}, {"q1": {"d_a": 0.5, "d_x": 0.5, "d_y": 0.5}},
                       ["mrr@10(dialect=mteb)"]).mean == {"mrr@10(dialect=mteb)": 1 / 3}
