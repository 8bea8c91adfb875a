"""The measures beyond trec_eval on Spark: the numpy engine's per-query values (1e-12).

ERR, C/W/L, compat, NCG and judged@k on the shared random collection; the
diversity measures on judgments with a subtopic column; the bounds of
``unjudged="bounds"``; the ``ascending`` tie rule.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from engines.spark.test_parity import assert_same, random_data
from spark_checks import by_query, frame_in_order, needs_javac
from strategies import diversity_collection

import rankwise as rw
from rankwise.exceptions import InvalidParameterError

PLAIN = [
    "err@5", "err", "nerr@10", "ncg@5", "ncg(gain=exp)", "compat", "compat(p=0.5,depth=7)",
    "compat(depth=run,p=0.8)",
    "judged@10(denominator=retrieved)", "judged", "rbp(p=0.5,rel=2)",
    "inst(max_grade=3)", "insq(quantity=etu,max_grade=3)", "bpm(T=2,K=5,rel=1)",
    "tbg(halflife=4,quantity=ed)", "umeasure(L=20,rel=2,depth=30)",
]  # fmt: skip
DIVERSITY = [
    "alpha_ndcg@5", "alpha_ndcg", "alpha_dcg@10(alpha=0.3)", "err_ia@5", "nerr_ia@10",
    "nrbp", "nnrbp(beta=0.8)", "ap_ia(rel=2)", "p_ia@5", "strec@10", "err@5", "map",
]  # fmt: skip


@pytest.fixture(scope="module")
def plain(spark):
    qrels, run = random_data(16)
    return qrels, run, spark.createDataFrame(qrels).cache(), spark.createDataFrame(run).cache()


def diversity_tables(seed: int) -> tuple[pa.Table, pa.Table]:
    qrels, run = diversity_collection(seed, negative=True)
    rows = [(q, t, d, g) for q, topics in qrels.items() for t, docs in topics.items()
            for d, g in docs.items()]
    qtable = pa.table({"query_id": [r[0] for r in rows], "subtopic": [r[1] for r in rows],
                       "doc_id": [r[2] for r in rows], "relevance": [r[3] for r in rows]})
    rrows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    rtable = pa.table({"query_id": [r[0] for r in rrows], "doc_id": [r[1] for r in rrows],
                       "score": [r[2] for r in rrows]})
    return qtable, rtable


@pytest.fixture(scope="module")
def diverse(spark):
    tables = [diversity_tables(seed) for seed in (3, 4)]
    qrels = pa.concat_tables([t[0] for t in tables[:1]])
    run = pa.concat_tables([t[1] for t in tables[:1]])
    return qrels, run, spark.createDataFrame(qrels).cache(), spark.createDataFrame(run).cache()


STRATEGIES = ["ranks", "partitions", pytest.param("jvm", marks=needs_javac)]


def run_for(spark, strategy: str, run: pa.Table, run_df):
    """The run as *strategy* needs it: ``jvm`` takes it grouped by query (3 partitions)."""
    return frame_in_order(spark, by_query(run), 3) if strategy == "jvm" else run_df


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("options", [{}, {"ties": "ascending", "depth": 9},
                                     {"ties": "worst", "judged_only": True}],
                         ids=lambda o: ",".join(map(str, o.items())) or "default")
def test_plain_measures_match_numpy(spark, plain, strategy, options) -> None:
    from rankwise.spark import evaluate

    qrels, run, qrels_df, run_df = plain
    expected = rw.evaluate(qrels, run, PLAIN, **options)
    run_df = run_for(spark, strategy, run, run_df)
    got = evaluate(qrels_df, run_df, PLAIN, strategy=strategy, **options)
    assert got.strategy == strategy
    assert_same(got, expected)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("ties", ["trec", "ascending", "best"])
def test_diversity_measures_read_the_subtopic_column(spark, diverse, strategy, ties) -> None:
    from rankwise.spark import evaluate

    qrels, run, qrels_df, run_df = diverse
    expected = rw.evaluate(qrels, run, DIVERSITY, ties=ties)
    assert expected.measures and rw.io.as_qrels(qrels).subtopics is not None
    run_df = run_for(spark, strategy, run, run_df)
    got = evaluate(qrels_df, run_df, DIVERSITY, ties=ties, strategy=strategy)
    assert got.strategy == strategy
    assert_same(got, expected)


@pytest.mark.parametrize("strategy", ["ranks", pytest.param("jvm", marks=needs_javac)])
def test_unjudged_bounds_match_numpy(spark, diverse, plain, strategy) -> None:
    from rankwise.spark import evaluate

    for qrels, run, qrels_df, run_df in (plain, diverse):
        names = ["P@5", "rbp", "ndcg@10", "alpha_ndcg@5", "inst(rel=1)"]
        expected = rw.evaluate(qrels, run, names, unjudged="bounds").unjudged
        run_df = run_for(spark, strategy, run, run_df)
        found = evaluate(qrels_df, run_df, names, unjudged="bounds", strategy=strategy)
        assert found.strategy == strategy
        got = found.to_results().unjudged
        assert got is not None and expected is not None
        for name in expected.high:
            np.testing.assert_allclose(got.high[name], expected.high[name], atol=1e-12)
            np.testing.assert_allclose(got.judged[name], expected.judged[name], atol=1e-12)
    with pytest.raises(InvalidParameterError, match="needs strategy='ranks'"):
        evaluate(qrels_df, run_df, ["P@5"], unjudged="bounds", strategy="partitions")
