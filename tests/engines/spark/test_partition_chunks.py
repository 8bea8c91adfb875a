"""The ``partitions`` strategy's executor side, without Spark.

A partition (sorted by query) reaches ``evaluate_partition`` as Arrow
batches; here partitions are cut as Spark's hash partitioning would, so a
chunk may hold run rows and no judgments, or judgments and no run rows (the
crash of issue 21: ``IndexError`` in ``rank_all_ties`` for such chunks).
"""

from __future__ import annotations

import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from strategies import random_tables

import rankwise as rw
from rankwise.engines.spark.partitions import (
    ERROR_COLUMN,
    MISSING_COLUMN,
    UNJUDGED_COLUMN,
    evaluate_partition,
)
from rankwise.exceptions import InputFormatError
from rankwise.options import EvalOptions

MEASURES = ["ndcg@10", "map", "P@5", "recall@20", "num_ret", "bpref"]


def stream(qrels: pa.Table, run: pa.Table) -> pa.Table:
    """Run rows and judgments in one table tagged by side, as ``per_query_frame`` unions them."""
    n, m = run.num_rows, qrels.num_rows
    return pa.table(
        {
            "q": pa.concat_arrays([_column(run, "query_id"), _column(qrels, "query_id")]),
            "d": pa.concat_arrays([_column(run, "doc_id"), _column(qrels, "doc_id")]),
            "s": pa.concat_arrays(
                [run["score"].combine_chunks().cast(pa.float64()), pa.nulls(m, pa.float64())]
            ),
            "g": pa.concat_arrays(
                [pa.nulls(n, pa.float64()), qrels["relevance"].combine_chunks().cast(pa.float64())]
            ),
            "side": pa.array([0] * n + [1] * m, pa.int8()),
        }
    )


def _column(table: pa.Table, name: str) -> pa.Array:
    return table[name].combine_chunks()


def run_partitions(table: pa.Table, partitions: int, *, batch: int, chunk: int, options=None):
    """Evaluate *table* cut into *partitions* by a hash of the query; all output rows."""
    part = np.array([zlib.crc32(q.encode()) % partitions for q in table["q"].to_pylist()])
    out = []
    for p in range(partitions):
        mine = table.filter(pa.array(part == p))
        mine = mine.take(pc.sort_indices(mine, [("q", "ascending")]))
        out += list(
            evaluate_partition(
                iter(mine.to_batches(max_chunksize=batch)),
                measures=MEASURES,
                query="query_id",
                text=[False] * len(MEASURES),
                options=options or EvalOptions(),
                chunk_rows=chunk,
            )
        )
    return pa.Table.from_batches([b for b in out if b.num_rows]) if out else None


def test_a_run_whose_queries_are_all_unjudged():
    """The smallest case of the crash: no chunk holds a judgment."""
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q7": {"a": 1.0, "b": 0.5}, "q8": {"x": 1.0}}).to_arrow()
    got = run_partitions(stream(qrels, run), 1, batch=2, chunk=1)
    assert got[ERROR_COLUMN].null_count == got.num_rows  # no error row
    rows = got.filter(pc.is_valid(got[UNJUDGED_COLUMN]))
    assert pc.sum(rows[UNJUDGED_COLUMN]).as_py() == 2
    assert pc.sum(rows[MISSING_COLUMN]).as_py() == 1
    assert got.filter(pc.is_null(got[UNJUDGED_COLUMN]))["query_id"].to_pylist() == []


def test_chunks_of_judged_queries_that_were_not_retrieved():
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 2}, "q3": {"c": 0}}).to_arrow()
    run = rw.Run.from_dict({"q2": {"b": 1.0}}).to_arrow()
    options = EvalOptions(missing="zero")
    got = run_partitions(stream(qrels, run), 3, batch=1, chunk=1, options=options)
    assert got[ERROR_COLUMN].null_count == got.num_rows
    values = got.filter(pc.is_null(got[UNJUDGED_COLUMN]))
    expected = rw.evaluate(qrels, run, MEASURES, missing="zero")
    order = pc.sort_indices(values, [("query_id", "ascending")])
    values = values.take(order)
    assert values["query_id"].to_pylist() == expected.query_ids
    np.testing.assert_allclose(values["map"].to_numpy(), expected["map"], atol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_any_cut_of_random_data_gives_the_numpy_values(seed):
    """40 datasets x 4 partition counts x tiny batches: never an error, numpy's numbers."""
    data = random_tables(seed)
    qrels, run = data["qrels"], data["run"]
    if run.num_rows == 0 and qrels.num_rows:
        # an empty run is refused at the front door, before any pass (one rule for every input)
        with pytest.raises(InputFormatError, match="no rows"):
            rw.evaluate(qrels, run, MEASURES)
        return
    table = stream(qrels, run)
    expected = rw.evaluate(qrels, run, MEASURES) if qrels.num_rows else None
    for partitions in (1, 2, 3, 7):
        got = run_partitions(table, partitions, batch=5, chunk=11)
        if got is None:
            assert run.num_rows + qrels.num_rows == 0
            continue
        assert got[ERROR_COLUMN].null_count == got.num_rows, got[ERROR_COLUMN]
        values = got.filter(pc.is_null(got[UNJUDGED_COLUMN]))
        values = values.take(pc.sort_indices(values, [("query_id", "ascending")]))
        names = values["query_id"].to_pylist()
        want = [] if expected is None else expected.query_ids
        assert sorted(names, key=str.encode) == want
        if expected is None:
            continue
        by_bytes = np.argsort([n.encode() for n in names], kind="stable")
        for name in MEASURES:
            np.testing.assert_allclose(
                values[name].to_numpy()[by_bytes], expected[name], rtol=0, atol=1e-12
            )
        counted = got.filter(pc.is_valid(got[UNJUDGED_COLUMN]))
        unjudged = pc.sum(counted[UNJUDGED_COLUMN]).as_py() or 0
        assert unjudged == expected.unjudged_queries


def test_an_unexpected_failure_comes_back_as_an_error_row(monkeypatch):
    import rankwise.engines.core as core

    def broken(*args, **kwargs):
        raise TypeError("kernel exploded")

    monkeypatch.setattr(core, "compute", broken)
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0}}).to_arrow()
    got = run_partitions(stream(qrels, run), 1, batch=1, chunk=1)
    assert got[ERROR_COLUMN].to_pylist() == ["TypeError: kernel exploded"]


def test_executor_errors_are_raised_as_rankwise_errors():
    from rankwise.engines.spark.strategies import raise_executor_error
    from rankwise.exceptions import DuplicateEntryError, RankwiseError

    with pytest.raises(DuplicateEntryError, match="appears twice"):
        raise_executor_error("DuplicateEntryError: run_df: 'd' appears twice for query 'q'")
    with pytest.raises(RankwiseError, match=r"an executor failed .*TypeError: kernel exploded"):
        raise_executor_error("TypeError: kernel exploded")


def test_partitions_without_pandas_is_a_rankwise_error_before_any_job(spark, monkeypatch):
    """Issue 36: pyspark's mapInArrow imports pandas; rankwise says so, and how to get it."""
    import sys

    from rankwise.exceptions import MissingDependencyError
    from rankwise.spark import evaluate

    qrels = spark.createDataFrame(rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow())
    run = spark.createDataFrame(rw.Run.from_dict({"q1": {"a": 1.0}}).to_arrow())
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(MissingDependencyError, match=r"needs pandas .* pip install "
                       r"'rankwise\[spark\]'"):
        evaluate(qrels, run, ["map"], strategy="partitions")
