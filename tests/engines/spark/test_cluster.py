"""On a real standalone cluster (``RANKWISE_SPARK_CLUSTER=1``, see conftest.py).

The master and the worker are separate JVMs whose executors' Python cannot
import rankwise until it is shipped: the executor check must say so in one
line before any shuffle, and after ``rankwise.spark.ship`` both strategies
give the numpy engine's values there (test_parity.py runs in full on the
cluster in ``.ci/run``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import rankwise
from rankwise.engines.spark.executors import check_executors
from rankwise.exceptions import MissingDependencyError
from rankwise.spark import evaluate

pytestmark = pytest.mark.slow


def test_the_session_runs_on_the_standalone_master(spark, cluster_before_ship):
    assert spark.sparkContext.master.startswith("spark://127.0.0.1:")


def test_executors_without_rankwise_are_reported_in_one_line(cluster_before_ship):
    error = cluster_before_ship.get("error")
    assert isinstance(error, MissingDependencyError)
    message = str(error)
    assert "\n" not in message
    assert "rankwise is not importable on the Spark executors" in message
    assert "No module named 'rankwise'" in message
    assert "rankwise.spark.ship(spark)" in message


def test_shipped_rankwise_passes_the_check_and_evaluates(spark, cluster_before_ship):
    check_executors(spark, force=True)  # the zip without the C modules imports there
    rng = np.random.default_rng(21)
    run = pa.table(
        {
            "query_id": [f"q{q}" for q in rng.integers(0, 6, 120)],
            "doc_id": [f"d{i}" for i in range(120)],
            "score": rng.integers(0, 4, 120).astype(float),
        }
    )
    qrels = pa.table(
        {
            "query_id": ["q0", "q1", "q1", "q2", "q9"],
            "doc_id": ["d0", "d1", "d2", "d3", "d4"],
            "relevance": [1, 2, 0, 1, 1],
        }
    )
    measures = ["ndcg@10", "map", "P@5"]
    want = rankwise.evaluate(qrels, run, measures)
    run_df = spark.createDataFrame(run.to_pandas())
    qrels_df = spark.createDataFrame(qrels.to_pandas())
    for strategy in ("ranks", "partitions"):
        got = evaluate(qrels_df, run_df, measures, strategy=strategy).to_results()
        assert list(got.query_ids) == list(want.query_ids)
        for m in measures:
            np.testing.assert_allclose(got[m], want[m], rtol=0, atol=1e-12)
