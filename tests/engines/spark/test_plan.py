"""The plan chosen by cost, the crash-free ``partitions``, duplicates in every strategy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pytest
from spark_checks import assert_same, javac_found, needs_javac
from strategies import random_tables

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InputFormatError, InvalidParameterError

MEASURES = ["ndcg@10", "map", "P@5", "recall@20", "num_ret", "bpref"]


@pytest.mark.parametrize("strategy", ["auto", "ranks", "partitions"])
def test_judgments_without_a_row_are_refused_as_by_numpy(spark, strategy):
    """Found by bench_spark_parity.py (seeds 21, 34): numpy refused empty judgments, Spark not."""
    from rankwise.spark import evaluate

    data = random_tables(21)
    assert data["kind"] == "unjudged" and data["qrels"].num_rows == 0 and data["run"].num_rows > 0
    with pytest.raises(InputFormatError, match="no rows"):
        rw.evaluate(data["qrels"], data["run"], MEASURES)
    qrels_df = spark.createDataFrame(data["qrels"])
    run_df = spark.createDataFrame(data["run"])
    with pytest.raises(InputFormatError, match="qrels_df: the judgments hold no rows"):
        evaluate(qrels_df, run_df, MEASURES, strategy=strategy)
    empty_table = spark.createDataFrame(data["run"].append_column(
        "relevance", pa.array([0] * data["run"].num_rows)).slice(0, 0))
    with pytest.raises(InputFormatError, match=r"the table .* hold no rows"):
        evaluate(empty_table, empty_table, MEASURES, strategy=strategy)


@pytest.mark.parametrize("partitions", [1, 2, 5])
def test_partitions_with_a_run_whose_queries_are_all_unjudged(spark, partitions):
    """Issue 21's crash: chunks with run rows and no judgments, at any partition count."""
    from rankwise.spark import evaluate

    qrels = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 0}}).to_arrow()
    run = rw.Run.from_dict({f"u{i}": {"a": 1.0, "b": 0.5, "c": 0.5} for i in range(7)}).to_arrow()
    got = evaluate(
        spark.createDataFrame(qrels),
        spark.createDataFrame(run),
        MEASURES,
        strategy="partitions",
        num_partitions=partitions,
        missing="zero",
    )
    expected = rw.evaluate(qrels, run, MEASURES, missing="zero")
    assert_same(got, expected)
    assert (got.unjudged_queries, got.missing_queries) == (7, 2)
    got.unpersist()


def test_partitions_on_random_data_that_separates_judged_and_unjudged(spark):
    from rankwise.spark import evaluate

    for seed in (3, 8):
        data = random_tables(seed, "mixed")
        qrels, run = data["qrels"], data["run"]
        expected = rw.evaluate(qrels, run, MEASURES)
        for partitions in (3, 11):
            got = evaluate(
                spark.createDataFrame(qrels),
                spark.createDataFrame(run),
                MEASURES,
                strategy="partitions",
                num_partitions=partitions,
                chunk_rows=7,
            )
            assert_same(got, expected)
            assert got.unjudged_queries == expected.unjudged_queries
            got.unpersist()


@pytest.mark.parametrize("strategy", ["ranks", "partitions", "auto", "jvm"])
def test_an_unjudged_document_listed_twice_is_refused(spark, strategy):
    from rankwise.spark import evaluate

    qrels = spark.createDataFrame(rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow())
    run = spark.createDataFrame(
        pa.table(
            {
                "query_id": ["q1", "q1", "q1", "q1"],
                "doc_id": ["x", "a", "x", "b"],
                "score": [3.0, 2.0, 1.0, 0.5],
            }
        )
    )
    with pytest.raises(DuplicateEntryError, match="'x' appears twice for query 'q1'"):
        evaluate(qrels, run, MEASURES, strategy=strategy)
    if strategy == "ranks":  # skipped on request: the numbers of the rows as given
        got = evaluate(qrels, run, ["num_ret"], strategy=strategy, check_duplicates=False)
        assert got.mean["num_ret"] == 4


@pytest.mark.parametrize("strategy", ["ranks", "partitions", "auto", "jvm"])
def test_a_document_listed_twice_in_an_unjudged_query_is_refused(spark, strategy):
    """As numpy: every query of the run is checked, not only the judged ones."""
    from rankwise.spark import evaluate

    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = pa.table(
        {
            "query_id": ["q1", "q1", "q2", "q2", "q2"],
            "doc_id": ["a", "b", "y", "z", "y"],
            "score": [3.0, 2.0, 1.0, 0.5, 0.25],
        }
    )
    with pytest.raises(DuplicateEntryError, match="'y' appears twice for query 'q2'"):
        rw.evaluate(qrels, run, MEASURES)
    with pytest.raises(DuplicateEntryError, match="'y' appears twice for query 'q2'"):
        evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES,
                 strategy=strategy)


def test_a_suspect_of_the_first_scan_is_confirmed_on_the_ids(spark):
    """Two ids of one query hashing alike (a collision) is no error; a real duplicate is."""
    from rankwise.engines.spark._frames import project_qrels, project_run
    from rankwise.engines.spark.ranks import check_run, summarize_run

    def summary_of(run_table):
        run = project_run(spark.createDataFrame(run_table), query="query_id", doc="doc_id",
                          score="score")
        qrels = project_qrels(spark.createDataFrame(rw.Qrels.from_dict({"q1": {"a": 1}})
                                                    .to_arrow()),
                              query="query_id", doc="doc_id", label="relevance")
        return run, summarize_run(run, qrels, check_duplicates=True)

    clean = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
                      "score": [2.0, 1.0, 1.0]})
    run, summary = summary_of(clean)
    assert summary.suspects == 0 and summary.rows == 3
    summary.suspects, summary.suspect_query = 1, "q1"  # as after a collision in q1
    check_run(run, summary)  # confirmed on the ids: nothing listed twice
    elsewhere = pa.table({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "c"],
                          "score": [2.0, 1.0, 1.0, 0.5]})
    run, summary = summary_of(elsewhere)
    assert summary.suspects == 1 and summary.suspect_query == "q2"
    summary.suspect_query = "q1"  # a collision in q1 named first: the whole run is checked
    with pytest.raises(DuplicateEntryError, match="'c' appears twice for query 'q2'"):
        check_run(run, summary)


def test_the_whole_run_check_leaves_the_session_settings_as_found(spark):
    """Its bypass of partial aggregation must not outlive it (it made every later scan
    shuffle a row per run row)."""
    from rankwise.engines.spark._frames import project_run
    from rankwise.engines.spark.ranks import check_duplicates_in

    key = "spark.sql.execution.bypassPartialAggregation"
    run = project_run(
        spark.createDataFrame(pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                                        "score": [2.0, 1.0, 1.0]})),
        query="query_id", doc="doc_id", score="score",
    )
    before = spark.conf.get(key, None)
    check_duplicates_in(run)
    assert spark.conf.get(key, None) == before
    spark.conf.set(key, "false")
    try:
        check_duplicates_in(run)
        assert spark.conf.get(key, None) == "false"
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


@pytest.fixture
def no_jvm(monkeypatch):
    """The ``jvm`` strategy unavailable (as without a JDK): ``auto`` plans with Spark SQL."""
    import rankwise.engines.spark.jar as jar

    def unavailable(spark):
        raise jar.JvmUnavailableError("no javac found (a test)")

    monkeypatch.setattr(jar, "load_jar", unavailable)


def test_the_judgments_are_counted_and_sized_by_one_aggregation(spark):
    """Rows and Arrow bytes: each id's UTF-8 bytes, 16 bytes of offsets, 8 a number column."""
    from rankwise.engines.spark.plan import count_and_size

    frame = spark.createDataFrame([("q1", "a", 1.0), ("q1", "bé", 0.0), ("q22", "c", 2.0)],
                                  "q string, d string, g double")
    assert count_and_size(frame) == (3, (2 + 1) + (2 + 3) + (3 + 1) + 3 * (16 + 8))
    assert count_and_size(frame.limit(0)) == (0, 0)


def test_auto_jvm_when_small_and_grouped(spark):
    from rankwise.spark import evaluate

    if not javac_found():
        pytest.skip("no javac: auto cannot use the jvm strategy")
    data = random_tables(4, "mixed")
    qrels, run = spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"])
    got = evaluate(qrels, run, MEASURES)
    assert got.strategy == "jvm"
    assert got.plan.startswith("jvm: the judgments: ") and "; one pass over " in got.plan
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))


def test_auto_ranks_when_small_with_the_reason(spark, no_jvm):
    from rankwise.spark import evaluate

    data = random_tables(4, "mixed")
    qrels, run = spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"])
    got = evaluate(qrels, run, MEASURES)
    assert got.strategy == "ranks"
    assert got.plan.startswith("ranks: the judgments: ")
    assert "not jvm: no javac found (a test)" in got.plan
    assert "intervals per row" in got.plan
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))


def test_every_retrieved_document_judged_needs_no_second_scan(spark, no_jvm):
    from rankwise.spark import evaluate

    data = random_tables(6, "ltr")
    qrels, run = data["qrels"], data["run"]
    got = evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES, depth=5)
    assert "no second scan (every retrieved document judged)" in got.plan
    assert_same(got, rw.evaluate(qrels, run, MEASURES, depth=5))
    table = spark.createDataFrame(data["table"])
    average = MEASURES[:4]
    one = evaluate(table, table, average, ties="average")
    assert one.strategy == "ranks" and one.plan.endswith("ranked on the driver")
    assert_same(one, rw.evaluate(qrels, run, average, ties="average"))


def test_judgments_too_large_for_the_driver_go_to_partitions(spark, monkeypatch):
    import rankwise.engines.spark.plan as plan
    from rankwise.spark import evaluate

    data = random_tables(9, "deep")
    qrels, run = spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"])
    monkeypatch.setattr(plan, "RESULT_FRACTION", 1e-9)
    got = evaluate(qrels, run, MEASURES)
    assert got.strategy == "partitions"
    assert "half the driver's result limit" in got.plan
    assert "partitions for" in got.plan  # sized from the input
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))
    got.unpersist()
    with pytest.raises(InvalidParameterError, match=r"spark.driver.maxResultSize.*'partitions'"):
        evaluate(qrels, run, MEASURES, strategy="ranks")


def test_an_expensive_second_scan_goes_to_partitions(spark, monkeypatch, no_jvm):
    import rankwise.engines.spark.plan as plan
    from rankwise.spark import evaluate

    data = random_tables(9, "deep")
    monkeypatch.setattr(plan, "MAX_OFFERED_PER_ROW", 0.0)
    got = evaluate(
        spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"]), MEASURES
    )
    assert got.strategy == "partitions"
    assert "intervals per row (> 0)" in got.plan
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))
    got.unpersist()


def test_trec_text_problems_found_in_the_first_scan(spark, tmp_path):
    from rankwise.spark import evaluate_paths

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b two\n")
    run = tmp_path / "bm25.run"
    run.write_text("q1 Q0 a 1 1.5 x\nq1 Q0 b 2 high x\n")
    with pytest.raises(InputFormatError, match=r"relevance must be a number, got 'two'") as info:
        evaluate_paths(str(qrels), str(run), ["map"])
    assert str(qrels) in str(info.value)
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    with pytest.raises(InputFormatError, match=r"bm25.run: score must be a number, got 'high'"):
        evaluate_paths(str(qrels), str(run), ["map"])
    run.write_text("q1 Q0 a 1 1.5 x\nq1 Q0 b 2\n")
    for strategy in ("ranks", "partitions") + (("jvm",) if javac_found() else ()):
        with pytest.raises(InputFormatError, match=r"expected 6 fields .* got 4: 'q1 Q0 b 2'"):
            evaluate_paths(str(qrels), str(run), ["map"], strategy=strategy)


def test_reading_trec_text_runs_no_pass_of_its_own_and_is_cached(spark, tmp_path):
    """Issue 21: the lines were checked by a ``first()`` pass over the whole file."""
    from rankwise.engines.spark.paths import cache_text, read_qrels, read_run

    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "bm25.run"
    qrels_path.write_text("q1 0 a 1\nq1 0 b 0\n")
    run_path.write_text("q1 Q0 a 1 1.5 x\nq1 Q0 b 2 0.5 x\n")
    context = spark.sparkContext
    group = f"rankwise-read-{tmp_path.name}"
    context.setJobGroup(group, "reading TREC text")
    try:
        run = read_run(spark, str(run_path))
        qrels = read_qrels(spark, str(qrels_path))
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert list(context.statusTracker().getJobIdsForGroup(group)) == []  # nothing read yet
    cached = cache_text(run, str(run_path))
    assert cached is not None and cached.storageLevel.useMemory
    cached.unpersist()
    assert cache_text(qrels, str(tmp_path / "qrels.parquet"), "parquet") is None


@pytest.mark.parametrize("strategy", ["jvm", "ranks", "partitions"])
def test_a_text_run_is_persisted_only_by_a_plan_that_reads_it_twice(
    spark, tmp_path, monkeypatch, strategy
):
    """The jvm pass reads the run once: caching parsed text for it would cost ~40%."""
    from rankwise.spark import evaluate_paths

    frame_class = type(spark.range(1))  # pyspark 4's classic DataFrame, not the interface
    if strategy == "jvm" and not javac_found():
        pytest.skip("no javac: the jvm strategy cannot be built")
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "bm25.run"
    qrels_path.write_text("q1 0 a 1\nq1 0 c 2\nq2 0 a 1\n")
    run_path.write_text("".join(
        f"{q} Q0 {d} {r} {5 - r} x\n" for q in ("q1", "q2") for r, d in enumerate("abcd", 1)
    ))
    persisted: list[str] = []
    calls = {"persist": 0, "unpersist": 0}
    persist, unpersist = frame_class.persist, frame_class.unpersist

    def counted_persist(frame, *args, **kwargs):
        calls["persist"] += 1
        persisted.append(",".join(frame.columns))
        return persist(frame, *args, **kwargs)

    def counted_unpersist(frame, *args, **kwargs):
        calls["unpersist"] += 1
        return unpersist(frame, *args, **kwargs)

    monkeypatch.setattr(frame_class, "persist", counted_persist)
    monkeypatch.setattr(frame_class, "unpersist", counted_unpersist)
    got = evaluate_paths(str(qrels_path), str(run_path), ["map", "P@2"], strategy=strategy)
    assert got.strategy == strategy
    expected = rw.evaluate(str(qrels_path), str(run_path), ["map"])
    assert got.mean["map"] == pytest.approx(expected.mean["map"], abs=1e-12)
    run_persisted = [c for c in persisted if c.startswith("q,d,s")]
    assert len(run_persisted) == (0 if strategy == "jvm" else 1), persisted
    got.unpersist()
    # every cache made is released: the judgments', the run's, partitions' own output
    assert calls["unpersist"] >= calls["persist"]


@pytest.mark.parametrize("strategy", ["partitions", "jvm"])
def test_a_document_listed_twice_is_reported_at_the_run_s_lines(spark, strategy):
    """Issue 36: not the line within an executor's chunk; the numpy engine's lines."""
    from spark_checks import frame_in_order

    from rankwise.spark import evaluate

    judgments = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    run = pa.table({
        "query_id": ["q2"] * 30 + ["q1"] * 6,
        "doc_id": [f"d{i}" for i in range(30)] + ["x", "a", "y", "z", "x", "b"],
        "score": [float(i) for i in range(36)],
    })
    with pytest.raises(DuplicateEntryError) as expected:
        rw.evaluate(judgments, run, MEASURES)
    assert expected.value.line == 35 and "(first at line 31)" in str(expected.value)
    with pytest.raises(DuplicateEntryError, match=r"run_df:35: document 'x' appears twice for "
                       r"query 'q1' \(first at line 31\)"):
        evaluate(spark.createDataFrame(judgments.to_arrow()), frame_in_order(spark, run, 3),
                 MEASURES, strategy=strategy)


@pytest.mark.parametrize("strategy", ["partitions", "jvm", "ranks"])
def test_a_document_judged_twice_is_reported_at_the_judgments_lines(spark, strategy):
    """Issue 36: a judgment given twice at the judgments' own line, numpy's, in every strategy."""
    from spark_checks import frame_in_order

    from rankwise.spark import evaluate

    judgments = pa.table({  # the two rows of 'x' in different slices of the frame
        "query_id": ["q1"] * 5 + ["q2"] * 30 + ["q1"],
        "doc_id": ["a", "y", "z", "x", "b"] + [f"d{i}" for i in range(30)] + ["x"],
        "relevance": [1.0] * 36,
    })
    run = rw.Run.from_dict({"q1": {"a": 2.0, "x": 1.0}, "q2": {"d3": 1.0}})
    with pytest.raises(DuplicateEntryError) as expected:
        rw.evaluate(judgments, run, MEASURES)
    assert expected.value.line == 36 and "(first at line 4)" in str(expected.value)
    with pytest.raises(DuplicateEntryError, match=r"qrels_df:36: judgment for document 'x' of "
                       r"query 'q1' is given twice \(first at line 4\)"):
        evaluate(frame_in_order(spark, judgments, 3), spark.createDataFrame(run.to_arrow()),
                 MEASURES, strategy=strategy)


@needs_javac
@pytest.mark.parametrize("layout", ["by query", "one large query"])
def test_the_plan_says_why_the_run_is_read_as_it_is(spark, layout, tmp_path):
    """Issue 36: no shuffle by query first where it gains nothing, and the plan says why."""
    import pyarrow.parquet as pq

    from rankwise.spark import evaluate

    n, queries = 3000, (3 if layout == "by query" else 1)
    judgments, run = _judged_run(n, lambda i: i % queries, seed=5)  # queries interleaved
    if layout == "by query":
        run_df = spark.createDataFrame(run).repartition(3, "query_id")
        why = "read as it is, pieces merged: Spark's plan places the rows by hashpartitioning"
    else:  # every file holds rows of the one query: a shuffle would not bring it together
        for i in range(4):
            pq.write_table(run.slice(i * n // 4, n // 4), tmp_path / f"part-{i}.parquet")
        run_df = spark.read.parquet(str(tmp_path))
        why = "but one query fills 100% of a partition's first rows"
    got = evaluate(spark.createDataFrame(judgments), run_df, MEASURES)
    assert got.strategy == "jvm" and why in got.plan, got.plan
    assert_same(got, rw.evaluate(judgments, run, MEASURES))


@needs_javac
def test_a_run_shuffled_by_query_first_reports_a_duplicate_at_the_run_s_line(spark):
    """Issue 36: after the plan's shuffle by query, lines are still the run's own (numpy's)."""
    from rankwise.spark import evaluate

    judgments = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    run = pa.table({
        "query_id": ["q2", "q1"] * 20,
        "doc_id": [f"d{i}" for i in range(39)] + ["d3"],
        "score": [float(i) for i in range(40)],
    })
    # every query in every partition; cached, so that the repartition is kept (read from the
    # cache) and the rows are those it dealt
    run_df = spark.createDataFrame(run).repartition(4).cache()
    as_read = run_df.toArrow()  # the rows as Spark reads them: numpy's lines
    with pytest.raises(DuplicateEntryError) as expected:
        rw.evaluate(judgments, as_read, MEASURES)
    with pytest.raises(DuplicateEntryError) as got:
        evaluate(spark.createDataFrame(judgments.to_arrow()), run_df, MEASURES)
    run_df.unpersist()
    assert got.value.line == expected.value.line
    first = str(expected.value).split("(first at line ")[1].split(")")[0]
    assert f"(first at line {first})" in str(got.value)


def _judged_run(n: int, query: Callable[[int], int], *, seed: int
                ) -> tuple[pa.Table, pa.Table]:
    """Judgments and a run of *n* rows, row ``i`` of query ``q{query(i)}`` (every 7th judged)."""
    rng = np.random.default_rng(seed)
    run = pa.table({"query_id": [f"q{query(i)}" for i in range(n)],
                    "doc_id": [f"d{i}" for i in range(n)],
                    "score": rng.integers(0, 50, n).astype(float)})
    judged = range(0, n, 7)
    judgments = pa.table({"query_id": [f"q{query(i)}" for i in judged],
                          "doc_id": [f"d{i}" for i in judged],
                          "relevance": [i % 3 for i in judged]})
    return judgments, run


def _grouped_run(n: int = 3000) -> tuple[pa.Table, pa.Table]:
    """Judgments and a run of 3 queries of n / 3 rows each, grouped by query."""
    return _judged_run(n, lambda i: 3 * i // n, seed=11)


@needs_javac
@pytest.mark.parametrize("case", ["cached", "a nondeterministic column", "by a column",
                                  "a limit"])
def test_a_round_robin_repartition_is_kept_where_skipping_it_could_change_a_value(spark, case):
    """Issue 36: the repartition is read as Spark makes it when it is cached, or when what is
    above it depends on where the rows are (the plan says why); by a column, it is not a
    round-robin one. Today's layout choice follows, and the values are numpy's."""
    from pyspark.sql import functions as sf

    from rankwise.spark import evaluate

    judgments, run = _grouped_run()
    base = spark.createDataFrame(run)
    then = ("then shuffled by query first into 8 partitions (cheaper than merging a piece per "
            "partition of every query): Spark's plan deals the rows round-robin")
    if case == "cached":
        run_df = base.repartition(8).cache()
        why = ("with its round-robin repartition(8) kept (it is cached: reading the cache is "
               "cheaper)")
    elif case == "a nondeterministic column":
        run_df = base.repartition(8).withColumn("at", sf.monotonically_increasing_id())
        why = ("with its round-robin repartition(8) kept (a column above it, "
               f"monotonically_increasing_id(), depends on where the rows are); {then}")
    elif case == "by a column":
        run_df = base.repartition(8, "query_id")
        why = ("the run read as it is, pieces merged: Spark's plan places the rows by "
               "hashpartitioning")
    else:
        run_df = base.repartition(8).limit(run.num_rows)
        why = ("with its round-robin repartition(8) kept (Spark's GlobalLimit is above it: only "
               "aliases, views and deterministic columns and filters are looked through)")
    got = evaluate(spark.createDataFrame(judgments), run_df, MEASURES)
    if case == "cached":
        run_df.unpersist()
    assert got.strategy == "jvm" and why in got.plan, got.plan
    assert case != "by a column" or "round-robin" not in got.plan
    assert_same(got, rw.evaluate(judgments, run, MEASURES))


@needs_javac
def test_a_repartition_under_a_view_a_filter_and_renamings_is_skipped(spark):
    """Issue 36: a temporary view, a deterministic filter and the engine's own renamings and
    casts above a round-robin repartition are looked through."""
    from rankwise.spark import evaluate

    judgments, run = _grouped_run()
    spark.createDataFrame(run).repartition(8).createOrReplaceTempView("rankwise_rr_view")
    try:
        run_df = (spark.table("rankwise_rr_view").where("score >= 0")
                  .withColumnRenamed("score", "points"))
        got = evaluate(spark.createDataFrame(judgments), run_df, MEASURES, score="points")
    finally:
        spark.catalog.dropTempView("rankwise_rr_view")
    assert got.strategy == "jvm", got.plan
    assert ("(the run without its round-robin repartition(8) (skipped: no value depends on "
            "where the rows are placed); then read as it is") in got.plan, got.plan
    assert_same(got, rw.evaluate(judgments, run, MEASURES))


@needs_javac
@pytest.mark.parametrize("below", ["grouped", "shuffled"])
def test_a_duplicate_below_a_skipped_repartition_is_reported_at_that_run_s_line(spark, below):
    """Issue 36: with the round-robin repartition skipped, the rows the error names are those
    of the run below it, counted partition after partition (numpy's lines on those rows)."""
    from spark_checks import frame_in_order

    from rankwise.spark import evaluate

    judgments, run = _grouped_run()
    twice = run.to_pydict()
    twice["doc_id"][990] = twice["doc_id"][10]  # one query, 980 rows apart
    twice = pa.table(twice)
    if below == "grouped":
        run_df = frame_in_order(spark, twice, 3)  # the rows in the table's order
    else:
        twice = twice.take(np.random.default_rng(2).permutation(twice.num_rows))
        run_df = spark.createDataFrame(twice)
    with pytest.raises(DuplicateEntryError) as expected:
        rw.evaluate(judgments, twice, MEASURES)
    with pytest.raises(DuplicateEntryError) as got:
        evaluate(spark.createDataFrame(judgments), run_df.repartition(8), MEASURES)
    assert got.value.line == expected.value.line
    first = str(expected.value).split("(first at line ")[1].split(")")[0]
    assert f"(first at line {first})" in str(got.value)


def test_small_judgments_are_collected_once_and_sized_from_what_came(spark, monkeypatch):
    """One job collects judgments Spark estimates small; their size is the aggregation's."""
    import rankwise.engines.spark.plan as plan
    from rankwise.spark import evaluate

    data = random_tables(9, "deep")
    qrels, run = spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"])
    with monkeypatch.context() as patched:  # sized by the aggregation, as before
        patched.setattr(plan, "COLLECT_FIRST_SHARE", 0.0)
        before = evaluate(qrels, run, MEASURES)
    sized = before.plan.split(";")[0]
    assert sized.startswith(f"jvm: the judgments: {data['qrels'].num_rows:,} rows, ~")
    before.unpersist()

    def no_aggregation(frame):
        raise AssertionError("the judgments were sized by a job of their own")

    monkeypatch.setattr(plan, "count_and_size", no_aggregation)
    got = evaluate(qrels, run, MEASURES)
    assert got.plan.split(";")[0] == sized
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))
    got.unpersist()


def test_judgments_spark_estimates_large_are_sized_by_an_aggregation_first(spark, monkeypatch):
    import rankwise.engines.spark.plan as plan
    from rankwise.spark import evaluate

    data = random_tables(9, "deep")
    monkeypatch.setattr(plan, "COLLECT_FIRST_SHARE", 0.0)
    sized = []
    count_and_size = plan.count_and_size
    monkeypatch.setattr(plan, "count_and_size", lambda frame: sized.append(1) or
                        count_and_size(frame))
    got = evaluate(spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"]),
                   MEASURES)
    assert sized == [1]
    assert_same(got, rw.evaluate(data["qrels"], data["run"], MEASURES))
    got.unpersist()


def test_judgments_spark_underestimates_are_stopped_at_the_result_limit(spark, monkeypatch):
    """Spark estimates a generated table at a few bytes; it stops the collection at the limit."""
    import rankwise.engines.spark.plan as plan
    from rankwise.engines.spark._frames import to_arrow
    from rankwise.spark import evaluate

    generated = spark.range(1).selectExpr("explode(sequence(0, 99999)) as i")
    qrels_df = generated.selectExpr("concat('q', i % 3) as query_id", "concat('d', i) as doc_id",
                                    "cast(i % 2 as int) as relevance")
    run = rw.Run.from_dict({f"q{q}": {f"d{i}": 1.0 / (i + 1) for i in range(q, 60, 3)}
                            for q in range(3)}).to_arrow()
    assert int(str(qrels_df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())) < 100
    sized = []
    count_and_size = plan.count_and_size
    monkeypatch.setattr(plan, "count_and_size", lambda frame: sized.append(1) or
                        count_and_size(frame))
    conf = spark.sparkContext._jsc.sc().conf()  # read by each new set of tasks
    limit = conf.get("spark.driver.maxResultSize", "1g")
    conf.set("spark.driver.maxResultSize", "1m")  # 100,000 judgments: about 4 MB of Arrow
    try:
        got = evaluate(qrels_df, spark.createDataFrame(run), ["ndcg@10", "P@5", "map"])
    finally:
        conf.set("spark.driver.maxResultSize", limit)
    assert sized == [1]  # the collection stopped, then the aggregation sized them
    assert got.strategy == "partitions" and "half the driver's result limit" in got.plan
    assert_same(got, rw.evaluate(to_arrow(qrels_df), run, ["ndcg@10", "P@5", "map"]))
    got.unpersist()


def test_an_error_of_the_first_collection_comes_out(spark, monkeypatch):
    import rankwise.engines.spark._frames as frames
    from rankwise.spark import evaluate

    data = random_tables(9, "deep")
    jvm = spark.sparkContext._jvm

    def broken(frame):
        jvm.java.lang.Integer.parseInt("not a number")

    monkeypatch.setattr(frames, "to_arrow", broken)
    with pytest.raises(Exception, match="not a number"):
        evaluate(spark.createDataFrame(data["qrels"]), spark.createDataFrame(data["run"]),
                 MEASURES)
