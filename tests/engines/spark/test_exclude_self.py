"""exclude_self on Spark: the run's rows whose document is its query dropped, as in numpy."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import rankwise as rw


def test_exclude_self_matches_numpy(spark):
    from rankwise.spark import evaluate

    rng = np.random.default_rng(5)
    queries = [f"q{i}" for i in range(12)]
    run_rows, qrels_rows = [], []
    for query in queries:
        docs = [query, *(f"d{j}" for j in rng.choice(30, size=8, replace=False))]
        if query == "q3":
            docs = [query]  # retrieves only itself: no longer in the run
        run_rows += [(query, doc, float(rng.integers(0, 4))) for doc in docs]
        qrels_rows += [(query, doc, int(rng.integers(0, 3))) for doc in docs[:5]]
    run = pa.table(dict(zip(["query_id", "doc_id", "score"], map(list, zip(*run_rows)))))
    qrels = pa.table(dict(zip(["query_id", "doc_id", "relevance"], map(list, zip(*qrels_rows)))))
    measures = ["ndcg@5", "P@3", "mrr", "num_ret"]
    expected = rw.evaluate(qrels, run, measures, exclude_self=True)
    assert "q3" not in expected.query_ids
    qrels_df, run_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    for strategy in ("ranks", "partitions"):
        got = evaluate(qrels_df, run_df, measures, exclude_self=True, strategy=strategy)
        for name in measures:
            assert got.mean[name] == pytest.approx(expected.mean[name], abs=1e-12), (strategy, name)
        assert got.missing_queries == expected.missing_queries
    same_table = spark.createDataFrame(pa.table({
        "query_id": run["query_id"], "doc_id": run["doc_id"], "score": run["score"],
        "relevance": pa.array(rng.integers(0, 2, len(run))),
    }))
    one = evaluate(same_table, same_table, measures, exclude_self=True, strategy="partitions")
    local = same_table.toArrow()
    want = rw.evaluate(local.select(["query_id", "doc_id", "relevance"]),
                       local.select(["query_id", "doc_id", "score"]), measures, exclude_self=True)
    assert one.mean == pytest.approx(want.mean)
