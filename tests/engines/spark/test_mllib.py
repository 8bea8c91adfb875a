"""dialect=spark on the Spark engine gives Spark MLlib's own RankingEvaluator numbers.

The reference is MLlib itself (``pyspark.ml.evaluation.RankingEvaluator``) in
the same session, on the same DataFrame: its means over the judged queries,
and per query on a few queries (one evaluation each). Issue 36's targets;
``benchmarks/bench_spark_mllib.py`` times the two on the 7M-row run.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from spark_checks import MLLIB_METRICS, mllib_frame, mllib_value, needs_javac

MEASURES = list(MLLIB_METRICS)


def mllib_data(seed: int) -> tuple[pa.Table, pa.Table]:
    """Judgments and a run with decimal integer document ids (MLlib takes doubles).

    Scores with few distinct values (ties: MLlib keeps input order), grades
    -1..3, lists shorter and longer than the cutoffs, a judged query the run
    lacks, a judged query without a relevant document, a run query without
    judgments.
    """
    rng = np.random.default_rng(seed)
    run_q, run_d, run_s, qrels_q, qrels_d, qrels_g = [], [], [], [], [], []
    for i in range(40):
        query = f"q{i}"
        pool = rng.choice(10_000, size=int(rng.integers(3, 150)), replace=False)
        if i != 5:  # q5: judged, not retrieved
            docs = rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))]
            run_q += [query] * len(docs)
            run_d += [str(d) for d in docs]
            run_s += (rng.integers(0, 8, size=len(docs)) / 4.0).tolist()
        if i != 9:  # q9: retrieved, not judged
            judged = rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))]
            grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
            if i == 7:  # q7: judged, nothing relevant
                grades = np.minimum(grades, 0)
            qrels_q += [query] * len(judged)
            qrels_d += [str(d) for d in judged]
            qrels_g += grades.tolist()
    qrels = pa.table({"query_id": qrels_q, "doc_id": qrels_d, "relevance": qrels_g})
    run = pa.table({"query_id": run_q, "doc_id": run_d, "score": run_s})
    return qrels, run


@pytest.fixture(scope="module", params=["grouped", "repartitioned"])
def frames(request, spark):
    qrels, run = mllib_data(36)
    rows = list(zip(*(run[name].to_pylist() for name in run.column_names)))
    run_df = spark.sparkContext.parallelize(rows, 3).toDF(
        "query_id string, doc_id string, score double"
    )
    if request.param == "repartitioned":  # every query in several partitions, in no order
        run_df = run_df.repartition(4)
    run_df = run_df.cache()  # one input order for MLlib and for rankwise
    qrels_df = spark.createDataFrame(qrels).cache()
    from rankwise.spark import evaluate

    got = evaluate(qrels_df, run_df, MEASURES, missing="zero")
    return got, mllib_frame(qrels_df, run_df).cache()


@needs_javac
def test_the_means_are_mllibs(frames):
    got, frame = frames
    assert got.strategy == "jvm", got.plan
    assert frame.count() == 39  # every judged query, q5 with an empty prediction
    for name in MEASURES:
        assert got.mean[name] == pytest.approx(mllib_value(frame, name), abs=1e-12), name


@needs_javac
def test_per_query_values_are_mllibs(frames):
    """MLlib gives means only: one evaluation of a one-query frame per value."""
    from pyspark.sql import functions as sf

    got, frame = frames
    rows = {row["query_id"]: row for row in got.per_query.collect()}
    for query in ("q0", "q5", "q7", "q12"):  # ties, not retrieved, nothing relevant, long
        one = frame.filter(sf.col("query_id") == query)
        expected = [mllib_value(one, name) for name in MEASURES]
        got_values = [rows[query][name] for name in MEASURES]
        np.testing.assert_allclose(got_values, expected, rtol=0, atol=1e-12, err_msg=query)
