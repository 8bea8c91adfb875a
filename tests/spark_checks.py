"""Test helpers of the Spark engine: per-query values against numpy's, a JDK, runs by query."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import rankwise as rw


def assert_same(got: Any, expected: rw.Results) -> None:
    """Spark results (``per_query``, any row order) equal to numpy's per query, to 1e-12."""
    table = got.per_query.toArrow()
    order = np.argsort([q.encode() for q in table["query_id"].to_pylist()], kind="stable")
    table = table.take(pa.array(order))
    assert table["query_id"].to_pylist() == expected.query_ids
    for name in expected:
        np.testing.assert_allclose(
            table[name].to_numpy(zero_copy_only=False), expected[name], rtol=0, atol=1e-12,
            err_msg=name,
        )


def javac_found() -> bool:
    """Whether the ``jvm`` strategy can build its code here (``auto`` then picks it)."""
    from rankwise.engines.spark.jar import JvmUnavailableError, find_javac

    try:
        find_javac()
    except JvmUnavailableError:
        return False
    return True


needs_javac = pytest.mark.skipif(not javac_found(), reason="no javac: the jvm strategy needs a JDK")


def by_query(table: pa.Table) -> pa.Table:
    """*table*'s rows grouped by query (stable, ids in byte order), as a run file lists them."""
    ids = [str(q).encode() for q in table["query_id"].to_pylist()]
    return table.take(pa.array(np.argsort(np.array(ids, dtype=object), kind="stable")))


def frame_in_order(spark: Any, table: pa.Table, partitions: int) -> Any:
    """*table* as a DataFrame in *partitions* slices, its row order kept (no shuffle)."""
    rows = list(zip(*(table[name].to_pylist() for name in table.column_names)))
    schema = ", ".join(
        f"{name} {'double' if pa.types.is_floating(table[name].type) else 'string'}"
        for name in table.column_names
    )
    return spark.sparkContext.parallelize(rows, partitions).toDF(schema)


MLLIB_METRICS = {  # rankwise's dialect=spark measure -> (RankingEvaluator metricName, k)
    "ndcg@10(dialect=spark)": ("ndcgAtK", 10),
    "map(dialect=spark)": ("meanAveragePrecision", 10),
    "map@10(dialect=spark)": ("meanAveragePrecisionAtK", 10),
    "P@10(dialect=spark)": ("precisionAtK", 10),
    "recall@10(dialect=spark)": ("recallAtK", 10),
    "recall@100(dialect=spark)": ("recallAtK", 100),
}


def mllib_frame(qrels_df: Any, run_df: Any) -> Any:
    """The (prediction, label) DataFrame Spark MLlib's ``RankingEvaluator`` takes.

    One row per judged query (MLlib's mean is over them: a query not retrieved
    has an empty prediction, as ``missing="zero"``); prediction: the run's
    documents by score descending, ties in the order Spark reads the rows
    (partition after partition, ``monotonically_increasing_id``); label: the
    documents of grade >= 1. MLlib wants arrays of doubles: the document ids
    must be integers written in decimal (cast exactly below 2**53).
    """
    from pyspark.sql import functions as sf

    doc = sf.col("doc_id").cast("double")
    ranked = (
        run_df.withColumn("_pos", sf.monotonically_increasing_id())
        .groupBy("query_id")
        .agg(sf.sort_array(sf.collect_list(sf.struct(
            (-sf.col("score")).alias("s"), sf.col("_pos").alias("p"), doc.alias("d")
        ))).alias("r"))
        .select("query_id", sf.col("r.d").alias("prediction"))
    )
    labels = qrels_df.groupBy("query_id").agg(
        sf.collect_list(sf.when(sf.col("relevance") >= 1, doc)).alias("label")
    )
    return labels.join(ranked, "query_id", "left").select(
        "query_id",
        sf.coalesce(sf.col("prediction"), sf.array().cast("array<double>")).alias("prediction"),
        "label",
    )


def mllib_value(frame: Any, measure: str) -> float:
    """MLlib's ``RankingEvaluator`` value of *measure* (a key of ``MLLIB_METRICS``)."""
    from pyspark.ml.evaluation import RankingEvaluator

    metric, k = MLLIB_METRICS[measure]
    return float(RankingEvaluator(metricName=metric, k=k).evaluate(frame))
