"""Inputs, errors and outputs of the Spark engine: clear messages, same numbers."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from spark_checks import javac_found

import rankwise as rw
from rankwise.exceptions import (
    DuplicateEntryError,
    InputFormatError,
    InvalidParameterError,
    RankwiseWarning,
    UnknownMeasureError,
)

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}, "q3": {"d9": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}, "q7": {"x": 1.0}}
MEASURES = ["ndcg@10", "map", "mrr", "P@2", "num_ret"]


@pytest.fixture(scope="module")
def small(spark):
    qrels = rw.Qrels.from_dict(QRELS).to_arrow()
    run = rw.Run.from_dict(RUN).to_arrow()
    return spark.createDataFrame(qrels), spark.createDataFrame(run)


def test_import_does_not_import_pyspark():
    code = (
        "import sys, rankwise, rankwise.spark, rankwise.engines.spark; "
        "print([m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_pyspark_names_the_extra():
    code = (
        "import sys; sys.modules['pyspark'] = None\n"
        "from rankwise.spark import evaluate\n"
        "try:\n    evaluate(None, None, ['map'])\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("MissingDependencyError")
    assert "pip install 'rankwise[spark]'" in out.stdout


def test_missing_java_is_reported(monkeypatch):
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(MissingDependencyError, match="needs Java 17 or later"):
        find_java()
    monkeypatch.setenv("JAVA_HOME", "/nonexistent/jdk")
    with pytest.raises(MissingDependencyError, match="JAVA_HOME is '/nonexistent/jdk'"):
        find_java()


def test_results_object_columns_and_means(small):
    from rankwise.spark import evaluate

    qrels_df, run_df = small
    measures = [*MEASURES, "ndcg@10(gain=linear)", "Rprec(mult=0.5)"]
    expected = rw.evaluate(QRELS, RUN, measures)
    said = r"1 query of the run has .*1 judged query is not in the run"
    with pytest.warns(RankwiseWarning, match=said):
        got = evaluate(qrels_df, run_df, measures)
    # few judgments, a run grouped by query: auto picks jvm where javac is, else ranks
    assert got.strategy == ("jvm" if javac_found() else "ranks")
    assert got.per_query.columns == ["query_id", *[str(m) for m in expected.measures]]
    assert got.mean == pytest.approx(expected.mean, rel=1e-12)
    rows = got.per_query.select("query_id", got.column("Rprec(mult=0.5)")).collect()
    assert {r[0]: r[1] for r in rows} == dict(
        zip(expected.query_ids, expected["Rprec(mult=0.5)"].tolist())
    )
    assert (got.unjudged_queries, got.missing_queries) == (1, 1)
    assert "ndcg@10" in repr(got)


def test_column_errors_name_the_column(small):
    from rankwise.spark import evaluate

    qrels_df, run_df = small
    with pytest.raises(InputFormatError, match=r"run_df has no score column 'rank_score'.*score="):
        evaluate(qrels_df, run_df, MEASURES, score="rank_score")
    with pytest.raises(InputFormatError, match=r"qrels_df has no relevance label column 'label'"):
        evaluate(qrels_df, run_df, MEASURES, label="label")
    text_scores = run_df.selectExpr("query_id", "doc_id", "cast(score as string) as score")
    with pytest.raises(InputFormatError, match=r"'score' must hold numbers, got Spark type string"):
        evaluate(qrels_df, text_scores, MEASURES)
    with pytest.raises(InputFormatError, match="must be a Spark DataFrame"):
        evaluate(qrels_df, rw.Run.from_dict(RUN).to_arrow(), MEASURES)
    with pytest.raises(UnknownMeasureError, match="ndcg@10"):
        evaluate(qrels_df, run_df, ["ndgc@10"])
    with pytest.raises(InvalidParameterError, match="missing must be"):
        evaluate(qrels_df, run_df, MEASURES, missing="drop")
    with pytest.raises(InvalidParameterError, match="ties='rank'"):
        evaluate(qrels_df, run_df, MEASURES, ties="rank")


@pytest.mark.parametrize("strategy", ["ranks", "partitions"])
def test_bad_scores_and_duplicates_are_errors(spark, small, strategy):
    from rankwise.spark import evaluate

    qrels_df, _ = small
    nan_run = spark.createDataFrame(
        pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, math.nan]})
    )
    with pytest.raises(InputFormatError, match=r"not a finite number|not finite") as info:
        evaluate(qrels_df, nan_run, MEASURES, strategy=strategy)
    assert "'d2'" in str(info.value) and "'q1'" in str(info.value)
    twice = spark.createDataFrame(
        pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "score": [1.0, 2.0]})
    )
    with pytest.raises(DuplicateEntryError, match="'d1' appears twice for query 'q1'"):
        evaluate(qrels_df, twice, MEASURES, strategy=strategy)
    judged_twice = spark.createDataFrame(
        pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 2]})
    )
    with pytest.raises(DuplicateEntryError, match="given twice"):
        evaluate(judged_twice, nan_run.limit(1), MEASURES, strategy=strategy)


def test_files_parquet_and_trec_text(spark, tmp_path):
    from rankwise.spark import evaluate_paths

    qrels = rw.Qrels.from_dict(QRELS).to_arrow()
    run = rw.Run.from_dict(RUN).to_arrow()
    pq.write_table(qrels.rename_columns(["qid", "docno", "label"]), tmp_path / "qrels.parquet")
    pq.write_table(run, tmp_path / "run.parquet")
    qrels_text = tmp_path / "qrels.txt"
    qrels_text.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    run_text = tmp_path / "bm25.run"
    run_text.write_text(
        "# a comment\n\n"
        + "".join(
            f"{q}  Q0\t{d} {i} {s} tag\n"
            for q, docs in RUN.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    expected = rw.evaluate(QRELS, RUN, MEASURES, depth=2)
    for qrels_path, run_path in [
        (tmp_path / "qrels.parquet", tmp_path / "run.parquet"),
        (qrels_text, run_text),
    ]:
        got = evaluate_paths(str(qrels_path), str(run_path), MEASURES, depth=2)
        assert got.mean == pytest.approx(expected.mean, rel=1e-12)
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1\n")
    with pytest.raises(InputFormatError, match="expected 6 fields"):
        evaluate_paths(str(qrels_text), str(bad), MEASURES)


def test_to_results_from_partitions(small):
    from rankwise.spark import evaluate

    qrels_df, run_df = small
    said = r"1 query of the run has .*1 judged query is not in the run"
    with pytest.warns(RankwiseWarning, match=said):
        got = evaluate(qrels_df, run_df, [*MEASURES, "relstring@3"], strategy="partitions")
    local = got.to_results(run_name="bm25")
    assert (local.run_name, local.unjudged_queries, local.missing_queries) == ("bm25", 1, 1)
    expected = rw.evaluate(QRELS, RUN, [*MEASURES, "relstring@3"])
    assert local.query_ids == expected.query_ids
    for name in MEASURES:
        np.testing.assert_allclose(local[name], expected[name], rtol=0, atol=1e-12)
    assert local["relstring@3"].tolist() == expected["relstring@3"].tolist()
    got.unpersist()


@pytest.mark.parametrize("strategy", ["ranks", "partitions"])
def test_same_options_and_order_as_the_numpy_engine(spark, small, strategy):
    from rankwise.spark import evaluate

    qrels_df, run_df = small
    for options in ({"depth": 0}, {"rel": 2}, {"depth": 1, "judged_only": True}):
        expected = rw.evaluate(QRELS, RUN, MEASURES, **options)
        got = evaluate(qrels_df, run_df, MEASURES, strategy=strategy, **options)
        assert got.mean == pytest.approx(expected.mean, abs=1e-12), options
    expected = rw.evaluate(QRELS, RUN, MEASURES, options=rw.EvalOptions(depth=1))
    got = evaluate(qrels_df, run_df, MEASURES, strategy=strategy,
                   options=rw.EvalOptions(depth=1))
    assert got.mean == pytest.approx(expected.mean, abs=1e-12)
    with pytest.warns(DeprecationWarning, match="pass the judgments first"):
        old = evaluate(run_df, qrels_df, MEASURES, strategy=strategy)
    assert old.mean == pytest.approx(rw.evaluate(QRELS, RUN, MEASURES).mean, abs=1e-12)


def test_the_engine_serves_evaluate_and_compare(spark, small):
    qrels_df, run_df = small
    got = rw.evaluate(qrels_df, run_df, MEASURES, engine="spark")
    want = rw.evaluate(QRELS, RUN, MEASURES)
    assert got.query_ids == want.query_ids
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-12)
    with pytest.raises(rw.InvalidParameterError, match="ties='rank'"):
        rw.evaluate(qrels_df, run_df, MEASURES, engine="spark", ties="rank")


def test_spark_dataframes_choose_the_spark_engine(spark, small):
    """issue 34, step 2: Spark DataFrames given to a front door, no engine=, compute on Spark."""
    qrels_df, run_df = small
    got = rw.evaluate(qrels_df, run_df, MEASURES)
    want = rw.evaluate(QRELS, RUN, MEASURES)  # the numpy engine's, on the same data
    assert got.query_ids == want.query_ids
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-12)
    assert got.plan.startswith("engine spark: chosen for the inputs (DataFrame is a Spark frame); ")
    runs = rw.evaluate_runs(qrels_df, {"a": run_df}, ["map"])
    assert runs["a"].mean["map"] == pytest.approx(want.mean["map"], abs=1e-12)
    assert runs["a"].plan.startswith("engine spark: chosen for the inputs")


def test_spark_results_follow_the_result_protocol(spark, small):
    """issue 34, item 5: to_dict, frames, to_table, notebooks, repr, and pickle (collected)."""
    import json
    import pickle

    from rankwise.spark import evaluate

    qrels_df, run_df = small
    got = evaluate(qrels_df, run_df, ["map", "P@2"])
    local = rw.evaluate(QRELS, RUN, ["map", "P@2"])
    assert got.to_dict() == local.to_dict()
    assert got.to_pandas().equals(local.to_pandas())
    assert got.to_polars().equals(local.to_polars())
    assert json.loads(got.to_table("json")) == [{"map": local.mean["map"],
                                                 "P@2": local.mean["P@2"]}]
    assert got._repr_html_().startswith("<table><caption>SparkResults(")
    assert repr(got).splitlines()[0] == f"SparkResults(strategy={got.strategy!r})"
    back = pickle.loads(pickle.dumps(got))
    assert back.per_query is None  # a Spark DataFrame stays in its session
    assert back.to_dict() == local.to_dict() and back.mean == got.mean
