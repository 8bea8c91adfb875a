"""The Spark engine gives the numpy engine's per-query values, ties included."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from spark_checks import needs_javac

import rankwise as rw
from rankwise.measures import parse

# every family of the catalog that has a kernel, with and without cutoffs
MEASURES = [
    "ndcg", "ndcg@5", "ndcg@10(gain=linear)", "ndcg@3(gains=1=2;2=5;-1=-1)",
    "dcg@5", "dcg@10(gain=linear)", "map", "map@5", "gm_map", "mrr", "mrr@3",
    "P@1", "P@5", "P@10(rel=2)", "recall@5", "recall@20", "Rprec", "Rprec(mult=0.5)",
    "hit@1", "hit@5", "bpref", "gm_bpref", "judged@10", "set_P", "set_recall",
    "set_F", "set_map", "set_relative_P", "relative_P@5", "iprec_at_recall",
    "11pt_avg", "infAP", "utility", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid",
    "unj@10", "relstring@8", "num_q", "num_ret", "num_rel", "num_rel_ret",
    "num_nonrel_judged_ret",
]  # fmt: skip


def _parseable(names: list[str]) -> list[str]:
    out = []
    for name in names:
        try:
            parse(name)
        except rw.RankwiseError:
            continue
        out.append(name)
    return out


def random_data(seed: int) -> tuple[pa.Table, pa.Table]:
    """Judgments and a run with many ties, graded and negative labels, odd ids.

    Some queries are only in the run, some only in the judgments; documents
    ids mix lengths and non-ASCII bytes so the byte-order tie rule matters.
    """
    rng = np.random.default_rng(seed)
    alphabet = ["a", "b", "Z", "é", "0", "~", "ab", "ß"]
    run_q, run_d, run_s, qrels_q, qrels_d, qrels_g = [], [], [], [], [], []
    for i in range(70):
        query = f"q{i}" if i % 7 else f"Q{i}é"
        pool = list({"".join(rng.choice(alphabet, rng.integers(1, 4))) + str(j % 3)
                     for j in range(rng.integers(5, 45))})  # fmt: skip
        in_run, in_qrels = i % 11 != 3, i % 13 != 5
        if in_run:
            n = int(rng.integers(0, len(pool) + 1))
            docs = list(rng.permutation(pool)[:n])
            scores = rng.integers(0, 6, size=n) / 2.0  # few distinct values: ties
            run_q += [query] * n
            run_d += docs
            run_s += scores.tolist()
        if in_qrels:
            judged = list(rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))])
            judged.append(f"unretrieved{i}")
            qrels_q += [query] * len(judged)
            qrels_d += judged
            qrels_g += rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged)).tolist()
    qrels = pa.table({"query_id": qrels_q, "doc_id": qrels_d, "relevance": qrels_g})
    run = pa.table({"query_id": run_q, "doc_id": run_d, "score": run_s})
    return qrels, run


@pytest.fixture(scope="module")
def data(spark):
    qrels, run = random_data(7)
    qrels_df = spark.createDataFrame(qrels).cache()
    run_df = spark.createDataFrame(run).repartition(3).cache()
    return qrels, run, qrels_df, run_df


def assert_same(spark_results, expected: rw.Results, query: str = "query_id") -> None:
    table = spark_results.per_query.toArrow()
    order = np.argsort([q.encode() for q in table[query].to_pylist()], kind="stable")
    table = table.take(pa.array(order))
    assert table[query].to_pylist() == expected.query_ids
    for name in expected:
        got = table[name].to_numpy(zero_copy_only=False)
        want = expected[name]
        if want.dtype == object:
            assert got.tolist() == want.tolist(), name
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=name)
        mean, want_mean = spark_results.mean[name], expected.mean[name]
        if np.isnan(want_mean):
            assert np.isnan(mean), name
        else:
            assert mean == pytest.approx(want_mean, rel=1e-12, abs=1e-12), name


OPTIONS = [
    {},
    {"depth": 7, "missing": "zero"},
    {"judged_only": True, "rel": 2},
    {"ties": "average", "depth": 5},
    {"ties": "worst", "judged_only": True, "missing": "zero"},
]


@pytest.mark.parametrize("strategy", ["ranks", pytest.param("jvm", marks=needs_javac)])
@pytest.mark.parametrize(
    "options", [*OPTIONS, {"ties": "ascending", "depth": 9}],
    ids=lambda o: ",".join(map(str, o.items())) or "default",
)
def test_strategies_ranking_on_the_driver_match_numpy(request, strategy, options):
    """``ranks`` on the data as drawn; ``jvm`` on it grouped by query, queries split."""
    from rankwise.spark import evaluate

    fixture = "data" if strategy == "ranks" else "grouped"
    qrels, run, qrels_df, run_df = request.getfixturevalue(fixture)
    measures = _parseable(MEASURES)
    if options.get("ties") == "average":
        measures = [m for m in measures if _average_supported(m, options.get("depth"))]
    expected = rw.evaluate(qrels, run, measures, **options)
    got = evaluate(qrels_df, run_df, measures, strategy=strategy, **options)
    assert got.strategy == strategy
    if strategy == "jvm":
        assert "queries split across partitions merged" in got.plan
    assert_same(got, expected)
    local = got.to_results()
    assert local.ties.bounds.keys() == expected.ties.bounds.keys()
    for name, bounds in expected.ties.bounds.items():
        np.testing.assert_allclose(local.ties.bounds[name], bounds, rtol=1e-12, err_msg=name)
    assert (local.ties.policy, local.ties.queries_straddling_cutoff, local.ties.queries_mixed) == (
        expected.ties.policy,
        expected.ties.queries_straddling_cutoff,
        expected.ties.queries_mixed,
    )
    assert (local.missing_queries, local.unjudged_queries) == (
        expected.missing_queries,
        expected.unjudged_queries,
    )


@pytest.mark.parametrize(
    "options", [OPTIONS[0], OPTIONS[1], OPTIONS[4]], ids=["default", "depth-zero", "worst-J"]
)
def test_partitions_strategy_matches_numpy(data, options):
    from rankwise.spark import evaluate

    qrels, run, qrels_df, run_df = data
    measures = _parseable(MEASURES)
    expected = rw.evaluate(qrels, run, measures, **options)
    # tiny chunks and batches: queries span batches and must be carried over
    got = evaluate(
        qrels_df,
        run_df,
        measures,
        strategy="partitions",
        num_partitions=3,
        chunk_rows=40,
        **options,
    )
    assert got.strategy == "partitions"
    assert_same(got, expected)
    assert (got.unjudged_queries, got.missing_queries) == (
        expected.unjudged_queries,
        expected.missing_queries,
    )
    got.unpersist()


@pytest.fixture(scope="module")
def grouped(spark):
    """The same data with the run grouped by query in 7 partitions: queries split at their ends."""
    qrels, run = random_data(7)
    rows = list(zip(*(run[name].to_pylist() for name in run.column_names)))
    run_df = spark.sparkContext.parallelize(rows, 7).toDF(
        "query_id string, doc_id string, score double"
    ).cache()
    return qrels, run, spark.createDataFrame(qrels).cache(), run_df


def _average_supported(name: str, depth: int | None) -> bool:
    from rankwise.engines.core import kernel_for

    try:
        kernel_for(parse(name), "average", depth)
    except rw.RankwiseError:
        return False
    return True


def test_learning_to_rank_table_and_integer_ids(spark):
    """One DataFrame with scores and labels serves as both run and judgments."""
    from rankwise.spark import evaluate

    rng = np.random.default_rng(3)
    n = 400
    table = pa.table(
        {
            "qid": rng.integers(0, 40, n),
            "item": np.arange(n),
            "pred": rng.integers(0, 4, n).astype(np.float32),
            "clicked": rng.random(n) < 0.3,
        }
    )
    frame = spark.createDataFrame(table)
    measures = ["ndcg@5", "map", "mrr@3", "P@3", "num_rel"]
    expected = _ltr_expected(table, measures)
    for strategy in ("ranks", "partitions"):
        got = evaluate(
            frame,
            frame,
            measures,
            query="qid",
            doc="item",
            score="pred",
            label="clicked",
            strategy=strategy,
        )
        assert_same(got, expected, query="qid")


def _ltr_expected(table: pa.Table, measures: list[str]) -> rw.Results:
    qrels = rw.Qrels.from_arrow(table["qid"], table["item"], table["clicked"].cast(pa.float64()))
    run = rw.Run.from_arrow(table["qid"], table["item"], table["pred"].cast(pa.float64()))
    return rw.evaluate(qrels, run, measures)
