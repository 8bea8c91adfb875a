"""The ``jvm`` strategy: rankwise's JVM pass gives numpy's numbers, refuses what numpy refuses."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest
from spark_checks import assert_same, frame_in_order, needs_javac
from strategies import SPARK_KINDS, random_tables

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InputFormatError

MEASURES = ["ndcg@10", "map", "P@5", "recall@20", "num_ret", "num_rel_ret", "bpref", "mrr"]


def brute_recount(row_key, row_score, row_id, row_pos, hit_key, hit_score, hit_id, hit_pos):
    out = []
    for key, score, ident, pos in zip(hit_key, hit_score, hit_id, hit_pos):
        mine = row_key == key
        equal = mine & (row_score == score)
        out.append(
            (int((mine & (row_score > score)).sum()), int(equal.sum()),
             int((equal & (row_id > ident)).sum()), int((equal & (row_pos < pos)).sum()))
        )
    return [np.array(column, dtype=np.int64) for column in zip(*out)] if out else [
        np.zeros(0, np.int64)] * 4


@pytest.mark.parametrize("seed", range(20))
def test_recount_matches_counting_by_hand(seed):
    from rankwise.engines.spark._pieces import recount

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    row_key = rng.integers(0, 4, n)
    row_score = rng.choice([0.0, -0.0, 0.5, 1.0, 2.0], n)
    row_id = rng.permutation(n)  # distinct ids within the rows
    row_pos = rng.permutation(n) * 3  # distinct positions, in no order
    hits = rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False) if n else np.zeros(0, int)
    args = (row_key, row_score, row_id, row_pos, row_key[hits], row_score[hits], row_id[hits],
            row_pos[hits])
    for got, want in zip(recount(*args), brute_recount(*args)):
        np.testing.assert_array_equal(got, want)


@needs_javac
@pytest.mark.parametrize("seed", range(12))
def test_random_datasets_of_every_kind_match_numpy(spark, seed):
    """Each kind of bench_spark_parity's datasets, in 1 to 8 partitions (queries split)."""
    from rankwise.spark import evaluate

    data = random_tables(100 + seed, SPARK_KINDS[seed % len(SPARK_KINDS)])
    partitions = (1, 3, 8)[seed % 3]
    options = ({}, {"ties": "ascending"}, {"depth": 5, "judged_only": True},
               {"ties": "worst", "missing": "zero"})[seed % 4]
    qrels_df = spark.createDataFrame(data["qrels"])
    run_df = frame_in_order(spark, data["run"], partitions)
    if data["qrels"].num_rows == 0:  # as numpy, before any pass
        with pytest.raises(InputFormatError, match="the judgments hold no rows"):
            evaluate(qrels_df, run_df, MEASURES, strategy="jvm", **options)
        return
    try:
        expected = rw.evaluate(data["qrels"], data["run"], MEASURES, **options)
    except InputFormatError as error:
        with pytest.raises(type(error)):
            evaluate(qrels_df, run_df, MEASURES, strategy="jvm", **options)
        return
    got = evaluate(qrels_df, run_df, MEASURES, strategy="jvm", **options)
    assert got.strategy == "jvm"
    assert_same(got, expected)
    assert (got.unjudged_queries, got.missing_queries) == (
        expected.unjudged_queries, expected.missing_queries)


@needs_javac
def test_a_parquet_run_is_read_from_its_column_batches(spark, tmp_path):
    """The pass reads a Parquet scan's column batches (no copy into Spark's rows): its
    columns found by name whatever their order in the files, other columns ignored, files
    cut inside queries and packed into partitions; a cast or a filter reads Spark's rows.
    Per-query values equal numpy's either way."""
    import pyarrow.parquet as pq
    from pyspark.sql import functions as sf

    from rankwise.engines.spark._frames import project_run
    from rankwise.engines.spark.jar import load_jar
    from rankwise.spark import evaluate

    data = random_tables(3, "mixed")
    run = data["run"].sort_by("query_id")
    table = pa.table({"score": run["score"], "rank": pa.array(np.arange(run.num_rows)),
                      "doc_id": run["doc_id"], "query_id": run["query_id"]})
    step = -(-table.num_rows // 3)
    for i in range(3):  # queries cut at the files' ends
        pq.write_table(table.slice(i * step, step), tmp_path / f"part-{i}.parquet")
    run_df = spark.read.parquet(str(tmp_path))
    ranks_pass = load_jar(spark)

    def ordinals(frame):
        projected = project_run(frame, query="query_id", doc="doc_id", score="score")
        found = ranks_pass.scanOrdinals(projected._jdf.queryExecution().executedPlan())
        return None if found is None else list(found)

    assert ordinals(run_df) == [2, 1, 0]  # q, d, s among the scan's columns (file order)
    assert ordinals(run_df.withColumn("score", sf.col("score").cast("float"))) is None
    assert ordinals(run_df.where(sf.col("score") > 0)) is None
    assert ordinals(frame_in_order(spark, run, 2)) is None  # not a columnar scan
    qrels_df = spark.createDataFrame(data["qrels"])
    expected = rw.evaluate(data["qrels"], run, MEASURES)
    for options in ({"spark.sql.files.maxPartitionBytes": "2k"}, {}):  # several files a partition
        for key, value in options.items():
            spark.conf.set(key, value)
        try:
            frame = spark.read.parquet(str(tmp_path))
            got = evaluate(qrels_df, frame, MEASURES, strategy="jvm")
        finally:
            for key in options:
                spark.conf.unset(key)
        assert_same(got, expected)
    shuffled = pa.table({"query_id": ["q1", "q2", "q1"], "doc_id": ["a", "b", "a"],
                         "score": [1.0, 2.0, 0.5]})
    pq.write_table(shuffled, tmp_path / "part-3.parquet")
    with pytest.raises(DuplicateEntryError, match="'a' appears twice for query 'q1'"):
        evaluate(qrels_df, spark.read.parquet(str(tmp_path / "part-3.parquet")), MEASURES,
                 strategy="jvm")


@needs_javac
def test_ties_of_zero_and_minus_zero_and_ids_in_byte_order(spark):
    from rankwise.spark import evaluate

    qrels = rw.Qrels.from_dict({"q": {"b": 1, "é": 2, "Z": 1, "a0": 0}}).to_arrow()
    run = pa.table({
        "query_id": ["q"] * 6,
        "doc_id": ["a0", "b", "é", "Z", "c", "a"],
        "score": [0.0, -0.0, 0.0, 1.0, -0.0, 0.0],
    })
    for partitions in (1, 2, 3):
        for ties in ("trec", "ascending", "average"):
            measures = ["ndcg@3", "map", "P@2"] if ties != "average" else ["ndcg@3", "P@2"]
            got = evaluate(spark.createDataFrame(qrels), frame_in_order(spark, run, partitions),
                           measures, strategy="jvm", ties=ties)
            assert_same(got, rw.evaluate(qrels, run, measures, ties=ties))


@needs_javac
@pytest.mark.parametrize("partitions", [1, 2])
def test_a_document_listed_twice_within_a_partition_or_across_a_split(spark, partitions):
    from rankwise.spark import evaluate

    qrels = spark.createDataFrame(rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow())
    run = pa.table({
        "query_id": ["q1", "q1", "q1", "q1"],
        "doc_id": ["x", "a", "b", "x"],
        "score": [3.0, 2.0, 1.0, 0.5],
    })
    with pytest.raises(DuplicateEntryError, match="'x' appears twice for query 'q1'"):
        evaluate(qrels, frame_in_order(spark, run, partitions), MEASURES, strategy="jvm")


@needs_javac
def test_null_ids_and_scores_that_are_not_numbers_are_refused_as_by_ranks(spark):
    from rankwise.spark import evaluate

    qrels = spark.createDataFrame(rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow())
    schema = "query_id string, doc_id string, score double"
    cases = [
        ([("q1", "a", 1.0), ("q1", None, 0.5)], r"1 row has a null document id"),
        ([("q1", "a", 1.0), (None, "b", 0.5)], r"1 row has a null query id"),
        ([("q1", "a", float("nan")), ("q1", "b", 0.5)], r"1 score is not finite"),
        ([("q1", "a", None), ("q1", "b", 0.5)], r"1 score is not finite"),
    ]
    for rows, message in cases:
        run = spark.sparkContext.parallelize(rows, 1).toDF(schema)
        for strategy in ("jvm", "ranks"):
            with pytest.raises(InputFormatError, match=message):
                evaluate(qrels, run, MEASURES, strategy=strategy)


@needs_javac
def test_a_run_not_grouped_by_query_is_ranked_by_the_pass(spark):
    """A query's rows in several places of one partition: one piece after grouping."""
    from rankwise.spark import evaluate

    qrels = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}}).to_arrow()
    run = pa.table({
        "query_id": ["q1", "q1", "q2", "q1", "q2", "q2"],
        "doc_id": ["a", "c", "b", "d", "e", "f"],
        "score": [3.0, 2.0, 1.0, 0.5, 0.2, 0.1],
    })
    qrels_df = spark.createDataFrame(qrels)
    for partitions in (1, 2, 3):
        got = evaluate(qrels_df, frame_in_order(spark, run, partitions), MEASURES)
        assert got.strategy == "jvm"
        assert_same(got, rw.evaluate(qrels, run, MEASURES))


@needs_javac
def test_without_javac_jvm_says_why_and_auto_uses_spark_sql(spark, monkeypatch, tmp_path):
    import rankwise.engines.spark.jar as jar
    from rankwise.spark import evaluate

    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(tmp_path))  # nothing built yet
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(jar, "_LOADED", {})  # as a session that never loaded the jar
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0, "b": 2.0}}).to_arrow()
    qrels_df, run_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    with pytest.raises(jar.JvmUnavailableError, match=r"no javac found .* install a JDK"):
        evaluate(qrels_df, run_df, MEASURES, strategy="jvm")
    got = evaluate(qrels_df, run_df, MEASURES)
    assert got.strategy == "ranks" and "not jvm: no javac found" in got.plan
    assert_same(got, rw.evaluate(qrels, run, MEASURES))


@needs_javac
def test_a_cache_folder_that_cannot_be_written_is_named_and_auto_uses_spark_sql(
    spark, monkeypatch, tmp_path
):
    import rankwise.engines.spark.jar as jar
    from rankwise.spark import evaluate

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(jar, "_LOADED", {})
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0, "b": 2.0}}).to_arrow()
    qrels_df, run_df = spark.createDataFrame(qrels), spark.createDataFrame(run)
    with pytest.raises(jar.JvmUnavailableError, match=r"a-file/cache/spark-jvm/\w+: .* cannot "
                       r"be built there .* set RANKWISE_CACHE_DIR"):
        evaluate(qrels_df, run_df, MEASURES, strategy="jvm")
    got = evaluate(qrels_df, run_df, MEASURES)
    assert got.strategy == "ranks" and "cannot be built there" in got.plan
    assert_same(got, rw.evaluate(qrels, run, MEASURES))


@needs_javac
def test_a_cache_folder_with_spaces_and_quotes_still_loads(spark, monkeypatch, tmp_path):
    """Spark silently misses a jar whose path has a space or a quote: a plain copy is added."""
    import rankwise.engines.spark.jar as jar
    from rankwise.spark import evaluate

    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(tmp_path / "o'neil's cache"))
    monkeypatch.setattr(jar, "_LOADED", {})
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0, "b": 2.0}}).to_arrow()
    got = evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES,
                   strategy="jvm")
    assert got.strategy == "jvm"
    assert_same(got, rw.evaluate(qrels, run, MEASURES))
    (loaded,) = jar._LOADED.values()
    assert " " not in loaded and "'" not in loaded


def test_a_class_missing_after_the_jar_is_added_is_an_error_not_a_type_error(monkeypatch):
    import rankwise.engines.spark.jar as jar

    class Package:  # what py4j gives for a name that is not a class
        def __getattr__(self, name):
            return Package()

    session = SimpleNamespace(_jvm=Package(), version="4.0.0",
                              _sc=SimpleNamespace(applicationId="app-1"))
    monkeypatch.setattr(jar, "_LOADED", {"app-1": "/cache/rankwise-jvm.jar"})
    with pytest.raises(jar.JvmUnavailableError, match=r"rankwise-jvm.jar was added .* "
                       r"rankwise.jvm.RanksPass is not found"):
        jar.load_jar(session)


@needs_javac
def test_the_jar_is_built_once_whole_and_found_in_the_cache(monkeypatch, tmp_path):
    import pyspark

    import rankwise.engines.spark.jar as jar

    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(tmp_path))
    built = jar.build_jar(pyspark.__version__, "17")
    with zipfile.ZipFile(io.BytesIO(built)) as archive:
        names = archive.namelist()
    assert "rankwise/jvm/RanksPass.class" in names and "rankwise/jvm/RanksPass$Pass.class" in names
    (entry,) = (tmp_path / "spark-jvm").iterdir()
    # no build left over: the jar, its record, the build lock
    assert sorted(p.name for p in entry.iterdir()) == [".lock", "rankwise-jvm.jar",
                                                       "rankwise-jvm.json"]
    assert (entry / "rankwise-jvm.jar").read_bytes() == built
    record = json.loads((entry / "rankwise-jvm.json").read_text())
    assert record == {
        "jar_sha256": hashlib.sha256(built).hexdigest(), "spark": pyspark.__version__,
        "java_release": "17",
        "source_sha256": hashlib.sha256(jar.source_path().read_bytes()).hexdigest(),
    }

    def no_javac() -> str:
        raise AssertionError("built again")

    monkeypatch.setattr(jar, "find_javac", no_javac)
    assert jar.build_jar(pyspark.__version__, "17") == built
    # another Spark version is another jar: built, so javac is needed
    with pytest.raises(AssertionError, match="built again"):
        jar.build_jar("0.0.1", "17")


@needs_javac
def test_a_failed_build_says_what_javac_said(monkeypatch, tmp_path):
    import rankwise.engines.spark.jar as jar

    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(tmp_path))
    source = tmp_path / "RanksPass.java"
    source.write_text("package rankwise.jvm; public final class RanksPass { int x = ; }\n")
    monkeypatch.setattr(jar, "source_path", lambda: source)
    expected = r"javac could not build .*exit 1.*RanksPass.java"
    with pytest.raises(jar.JvmUnavailableError, match=expected):
        jar.build_jar("4.0.0", "17")
    assert not list((tmp_path / "spark-jvm").rglob("*.jar"))  # nothing half-written


def unjudged_around(judged_rows: list[tuple[str, str, float]], unjudged: int,
                    extra: list[tuple[str, str, float]] = ()) -> pa.Table:
    """Judged query rows first and last, *unjudged* queries of 3 rows between (and *extra*)."""
    middle = [(f"u{i:03d}", f"d{j}", float(3 - j)) for i in range(unjudged) for j in range(3)]
    rows = judged_rows[:2] + middle + list(extra) + judged_rows[2:]
    return pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                     "score": [r[2] for r in rows]})


@needs_javac
def test_unjudged_queries_inside_a_partition_are_counted_not_listed(spark):
    """What the driver receives grows with the judged queries, not with every query."""
    from rankwise.engines.spark.jar import load_jar
    from rankwise.engines.spark.jvm import Settings, run_pass
    from rankwise.spark import evaluate

    qrels = rw.Qrels.from_dict({"q1": {"a": 1}, "q9": {"z": 2, "y": 0}}).to_arrow()
    judged_rows = [("q1", "a", 1.0), ("q1", "b", 2.0), ("q9", "y", 5.0), ("q9", "z", 4.0)]
    run = unjudged_around(judged_rows, 50)
    run_df = frame_in_order(spark, run, 1)
    ranks_pass = load_jar(spark)
    rows = ranks_pass.rows(run_df.toDF("q", "d", "s")._jdf)
    parts = run_pass(rows, ranks_pass, pa.array(["q1", "q9", "q9"]), pa.array(["a", "z", "y"]),
                     Settings().encoded(1))
    assert len(parts) == 1
    assert parts[0]["query"].to_pylist() == ["q1", "q9"]  # the 50 others only counted
    assert (len(parts[0]["quiet_hash"]), parts[0]["quiet_rows"]) == (50, 150)
    got = evaluate(spark.createDataFrame(qrels), run_df, MEASURES, strategy="jvm")
    expected = rw.evaluate(qrels, run, MEASURES)
    assert got.unjudged_queries == expected.unjudged_queries == 50
    assert_same(got, expected)
    # with the unjudged queries at a partition's edge, or split across partitions
    for partitions in (2, 7, 40):
        got = evaluate(spark.createDataFrame(qrels), frame_in_order(spark, run, partitions),
                       MEASURES, strategy="jvm")
        assert got.unjudged_queries == 50
        assert_same(got, expected)


@needs_javac
def test_problems_in_unjudged_queries_inside_a_partition_are_still_found(spark):
    from rankwise.spark import evaluate

    judgments = rw.Qrels.from_dict({"q1": {"a": 1}, "q9": {"z": 2}})
    qrels = spark.createDataFrame(judgments.to_arrow())
    judged_rows = [("q1", "a", 1.0), ("q1", "b", 2.0), ("q9", "y", 5.0), ("q9", "z", 4.0)]
    cases = [  # (rows after 20 clean unjudged queries, error, message)
        ([("v", "x", 1.0), ("v", "x", 0.5)], DuplicateEntryError, r"'x'.*'v'|'v'.*'x'"),
        ([("u005", "d0", 0.5)], DuplicateEntryError, r"'d0' appears twice for query 'u005'"),
        ([("v", "x", float("nan"))], InputFormatError, r"1 score is not finite"),
    ]
    for extra, error, message in cases:
        run = unjudged_around(judged_rows, 20, extra)
        with pytest.raises(error, match=message):
            evaluate(qrels, frame_in_order(spark, run, 1), MEASURES, strategy="jvm")
        with pytest.raises(error):  # the numpy engine refuses it too
            rw.evaluate(judgments, run, MEASURES)
    # an unjudged query in two places of a partition is one query, counted once
    run = unjudged_around(judged_rows, 20, [("u005", "x", 0.5)])
    got = evaluate(qrels, frame_in_order(spark, run, 1), MEASURES, strategy="jvm")
    expected = rw.evaluate(judgments, run, MEASURES)
    assert got.unjudged_queries == expected.unjudged_queries == 20
    assert_same(got, expected)


def skewed_run(rows: int, rng: np.random.Generator) -> pa.Table:
    """One query of *rows* rows (ties among its scores) between two small ones."""
    docs = [f"d{i}" for i in rng.permutation(rows)]
    return pa.table({
        "query_id": ["a"] * 3 + ["big"] * rows + ["z"] * 2,
        "doc_id": ["x", "y", "w", *docs, "x", "y"],
        "score": [1.0, 2.0, 2.0, *(rng.integers(0, 40, rows) / 4).tolist(), 0.5, 0.5],
    })


@needs_javac
def test_a_query_across_every_partition_reaches_the_driver_in_a_bounded_slice(spark,
                                                                             monkeypatch):
    """Issue 36, item 2: the pieces shipped whole stay within SHIP_ROWS; the rest is counted
    by the second pass, so the driver never holds the skewed query's rows."""
    import rankwise.engines.spark.jvm as jvm
    from rankwise.engines.spark.jar import load_jar
    from rankwise.spark import evaluate

    rng = np.random.default_rng(3)
    run = skewed_run(3000, rng)
    judged = {"a": {"x": 1, "w": 2}, "z": {"y": 1},
              "big": {f"d{i}": int(g) for i, g in zip(range(0, 3000, 7), rng.integers(0, 3, 429))}}
    qrels = rw.Qrels.from_dict(judged).to_arrow()
    run_df = frame_in_order(spark, run, 4)
    monkeypatch.setattr(jvm, "SHIP_ROWS", 100)
    settings = jvm.Settings()
    pairs = jvm.judged_pairs(rw.Qrels.from_dict(judged))
    parts = jvm.run_pass(load_jar(spark).rows(run_df.toDF("q", "d", "s")._jdf), load_jar(spark),
                         pairs[0], pairs[1], settings.encoded(4))
    assert sum(len(part["row_piece"]) for part in parts) <= 100  # rows that reached the driver
    assert sum(len(part["hit_piece"]) for part in parts) == 429 + 3  # a line per hit, no more
    got = evaluate(spark.createDataFrame(qrels), run_df, MEASURES)
    assert got.strategy == "jvm" and "recounted by a second pass" in got.plan
    assert_same(got, rw.evaluate(qrels, run, MEASURES))
    # a document of the skewed query listed twice in two partitions: found by the second
    # pass, at the run's rows (as the numpy engine says)
    twice = run.to_pydict()
    twice["doc_id"][2900] = twice["doc_id"][10]
    twice = pa.table(twice)
    with pytest.raises(DuplicateEntryError) as expected:
        rw.evaluate(qrels, twice, MEASURES)
    with pytest.raises(DuplicateEntryError) as info:
        evaluate(spark.createDataFrame(qrels), frame_in_order(spark, twice, 4), MEASURES,
                 strategy="jvm")
    assert info.value.line == expected.value.line == 2901
    assert "(first at line 11)" in str(info.value) and "(first at line 11)" in str(expected.value)


def a_shipped_package(folder, monkeypatch, *, edit: bool = False):
    """The Java folder of a wheel in *folder* (source, jar, record, as setup.py builds them),
    used by rankwise instead of the source tree's; *edit* changes the source after the build."""
    import shutil

    import rankwise.engines.spark.jar as jar
    from rankwise.engines.spark import _javac

    shutil.copy(jar.source_path(), folder / "RanksPass.java")
    _javac.build_prebuilt(folder)
    if edit:
        with open(folder / "RanksPass.java", "a") as source:
            source.write("\n// edited after the build\n")
    monkeypatch.setattr(jar, "source_path", lambda: folder / "RanksPass.java")


def without_a_jdk(monkeypatch, tmp_path) -> None:
    import rankwise.engines.spark.jar as jar

    monkeypatch.setenv("RANKWISE_CACHE_DIR", str(tmp_path / "cache"))  # nothing built yet
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    monkeypatch.setattr(jar, "_LOADED", {})  # as a session that never loaded the jar


@needs_javac
def test_a_jre_only_machine_takes_the_pass_from_the_shipped_jar(spark, monkeypatch, tmp_path):
    """Issue 36, item 3: the jar built with the wheel runs where javac is not."""
    import rankwise.engines.spark.jar as jar
    from rankwise.spark import evaluate

    (tmp_path / "java").mkdir()
    a_shipped_package(tmp_path / "java", monkeypatch)
    without_a_jdk(monkeypatch, tmp_path)
    with pytest.raises(jar.JvmUnavailableError, match="no javac found"):
        jar.find_javac()
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 2}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0, "b": 2.0}, "q2": {"c": 0.5, "a": 0.5}}).to_arrow()
    got = evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES)
    assert got.strategy == "jvm", got.plan
    assert jar.jar_origin(spark) == "shipped"
    assert_same(got, rw.evaluate(qrels, run, MEASURES))
    assert not (tmp_path / "cache").exists()  # nothing compiled, nothing cached


@needs_javac
def test_a_shipped_jar_of_another_source_is_not_loaded(spark, monkeypatch, tmp_path):
    import rankwise.engines.spark.jar as jar
    from rankwise.spark import evaluate

    (tmp_path / "java").mkdir()
    a_shipped_package(tmp_path / "java", monkeypatch, edit=True)
    assert jar.shipped_jar(spark.version, "17")[0] is None
    without_a_jdk(monkeypatch, tmp_path)
    qrels = rw.Qrels.from_dict({"q1": {"a": 1}}).to_arrow()
    run = rw.Run.from_dict({"q1": {"a": 1.0, "b": 2.0}}).to_arrow()
    with pytest.raises(jar.JvmUnavailableError,
                       match=r"no javac found .* \(the shipped jar is not of this source"):
        evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES,
                 strategy="jvm")


@needs_javac
@pytest.mark.parametrize("jdk", [True, False], ids=["with javac", "without javac"])
def test_building_the_package_compiles_the_jar_beside_its_source(tmp_path, jdk):
    """setup.py's build_py: the jar and its record with a JDK; without one, no jar, no error."""
    # pyproject.toml's build-system: an older setuptools cannot read its license field
    pytest.importorskip("setuptools", minversion="77")
    import hashlib
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parents[3]
    env = dict(os.environ)
    if not jdk:
        env.pop("JAVA_HOME", None)
        env["PATH"] = os.path.dirname(sys.executable)  # python, no javac
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib",
                           str(tmp_path)], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    java = tmp_path / "rankwise" / "engines" / "spark" / "java"
    source = (java / "RanksPass.java").read_bytes()
    assert source == (root / "src" / "rankwise" / "engines" / "spark" / "java" /
                      "RanksPass.java").read_bytes()
    if not jdk:
        assert not (java / "rankwise-jvm.jar").exists()
        assert "the wheel ships no compiled Spark pass: no javac" in done.stdout
        return
    record = json.loads((java / "rankwise-jvm.json").read_text())
    assert record["source_sha256"] == hashlib.sha256(source).hexdigest()
    assert record["jar_sha256"] == hashlib.sha256((java / "rankwise-jvm.jar").read_bytes()
                                                  ).hexdigest()
    assert (record["spark_api"], record["java_release"]) == ("4", "17")
