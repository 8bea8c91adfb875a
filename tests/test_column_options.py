"""Column maps are an evaluation option: one ``EvalOptions.columns`` reaches every reader.

Given by keyword (``evaluate``, ``evaluate_runs``, ``compare``, ``build_report``,
``--columns``) or inside ``options=``, the numbers are those of the same tables
with the standard column names.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.options import EvalOptions

pd = pytest.importorskip("pandas")

MEASURES = ["ndcg@10", "map", "P@5", "mrr"]
COLUMNS = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": "clicked"}


def frames(seed: int) -> tuple[dict, dict, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    qrels, run = random_collection(seed, ties=True)
    other = {q: {d: -s for d, s in docs.items()} for q, docs in run.items()}
    rows = [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()]
    qrels_df = pd.DataFrame(rows, columns=["user", "item", "clicked"])

    def run_frame(mapping: dict) -> pd.DataFrame:
        return pd.DataFrame([(q, d, s) for q, docs in mapping.items() for d, s in docs.items()],
                            columns=["user", "item", "pred"])

    return qrels, {"a": run, "b": other}, qrels_df, run_frame(run), run_frame(other)


def test_columns_is_an_evaluation_option() -> None:
    options = EvalOptions(columns=COLUMNS)
    assert dict(options.columns) == COLUMNS
    with pytest.raises(TypeError):
        options.columns["score"] = "x"  # type: ignore[index]
    assert pickle.loads(pickle.dumps(options)) == options
    assert hash(options) == hash(EvalOptions(columns=dict(COLUMNS)))
    assert EvalOptions(columns={}).columns is None
    assert options.describe()["columns"].startswith("query_id=user, doc_id=item")
    with pytest.raises(rw.InvalidParameterError,
                       match=r"^columns: a role must be one of 'query_id', .*, got 'user' \(str\); "
                             r"columns=\{'query_id': 'user', \.\.\.\} maps a role to your column$"):
        EvalOptions(columns={"user": "query_id"})
    with pytest.raises(rw.InvalidParameterError, match=r"columns\['score'\] must be a column"):
        EvalOptions(columns={"score": None})


@pytest.mark.parametrize("seed", [2, 7])
def test_options_columns_read_frames_as_named(seed: int) -> None:
    qrels, runs, qrels_df, run_a, _ = frames(seed)
    want = rw.evaluate(qrels, runs["a"], MEASURES)
    by_keyword = rw.evaluate(qrels_df, run_a, MEASURES, columns=COLUMNS)
    by_options = rw.evaluate(qrels_df, run_a, MEASURES, options=EvalOptions(columns=COLUMNS))
    for got in (by_keyword, by_options):
        assert got.query_ids == want.query_ids
        for name in MEASURES:
            assert np.array_equal(got[name], want[name]), name
    with pytest.raises(rw.InputFormatError, match=r"no query column.*columns="):
        rw.evaluate(qrels_df, run_a, MEASURES)


def test_compare_and_report_take_columns() -> None:
    qrels, runs, qrels_df, run_a, run_b = frames(3)
    want = rw.compare(qrels, runs, MEASURES, seed=0)
    mapped = {"a": run_a, "b": run_b}
    for got in (rw.compare(qrels_df, mapped, MEASURES, seed=0, columns=COLUMNS),
                rw.compare(qrels_df, mapped, MEASURES, seed=0,
                           options=EvalOptions(columns=COLUMNS))):
        assert got.to_table(fmt="json") == want.to_table(fmt="json")
    report = rw.build_report(qrels_df, mapped, MEASURES, seed=0, columns=COLUMNS,
                             curves=[], n_resamples=200)
    truth = rw.evaluate_runs(qrels, runs, MEASURES)
    for system in ("a", "b"):
        assert report.results[system].mean == truth[system].mean
    assert report.settings["columns"] == (
        "query_id=user, doc_id=item, score=pred, relevance=clicked")


def test_the_spark_engine_refuses_a_column_map() -> None:
    pytest.importorskip("pyspark")
    from rankwise.engines.spark import SparkEngine

    with pytest.raises(rw.InvalidParameterError, match="withColumnRenamed"):
        SparkEngine().check([rw.parse("P@5")], EvalOptions(columns=COLUMNS))
