"""Recommender evaluation on Spark equals the numpy path, user by user (issue 20, scale).

Random data (``strategies.random_recommendations``): ties of score broken by
row order, seen items excluded before the cut, items listed twice in the
test and in training, users only in the test, only in the
recommendations, only in training; integer and text ids. Every measure that
runs on Spark, per user and the means, to 1e-12.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from strategies import random_recommendations

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InvalidParameterError
from rankwise.options import RecommenderOptions

MEASURES = [
    "ndcg@5", "recall@10", "P@3", "map", "mrr",
    "coverage@5", "gini", "gini@5(dialect=recbole)", "entropy", "entropy(dialect=recbole)",
    "novelty", "novelty@3(dialect=recommenders)", "arp", "arp@5(dialect=recbole)",
    "aplt", "aplt@4(head=0.5)", "aplt@5(dialect=recbole,tail=2)", "aplt@5(dialect=recbole)",
    "aplt(dialect=recbole,tail=0.5)", "popreo", "popreo(dialect=recbole,tail=0.4)",
    "popreo(dialect=recbole,tail=3)", "epc@5",
    "personalisation", "personalisation@3",
]


def assert_same(got: rw.RecommenderResults, want: rw.RecommenderResults) -> None:
    assert sorted(map(str, got.users)) == sorted(map(str, want.users))
    assert got.users and all(type(a) is type(b) for a, b in zip(got.users, want.users))
    assert list(got.mean) == list(want.mean)
    for name, value in want.mean.items():
        assert math.isclose(got.mean[name], value, rel_tol=0, abs_tol=1e-12) or (
            math.isnan(value) and math.isnan(got.mean[name])), (name, got.mean[name], value)
    assert set(got.per_user) == set(want.per_user)
    where = {user: n for n, user in enumerate(got.users)}
    rows = np.array([where[user] for user in want.users])
    for name, values in want.per_user.items():
        np.testing.assert_allclose(got.per_user[name][rows], values, rtol=0, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("seed", range(3))
def test_every_spark_measure_equals_numpy(spark, seed: int) -> None:
    data = random_recommendations(seed)
    options = {"k": 8, "exclude": data["train"], "catalogue": data["catalogue"]}
    want = rw.evaluate_recommendations(data["test"], data["recs"], MEASURES, **options)
    frames = {name: spark.createDataFrame(data[name]) for name in ("test", "recs", "train")}
    from rankwise.spark import evaluate_recommendations

    results = evaluate_recommendations(
        frames["test"], frames["recs"], MEASURES, k=8, exclude=frames["train"],
        catalogue=data["catalogue"])
    assert set(results.per_user.columns) == {"user", *want.per_user}
    assert results.users == len(want.users)
    assert_same(results.to_results(), want)
    results.unpersist()


def test_graded_test_missing_zero_and_the_front_door(spark) -> None:
    """relevance=/rel=, missing='zero' (users without a list), engine='spark' on local tables."""
    data = random_recommendations(7, integer_ids=True)
    measures = ["ndcg@5", "P@2", "recall@10", "novelty", "epc", "arp", "coverage"]
    options = {"train": data["train"], "relevance": "rating", "rel": 2,
               "options": RecommenderOptions(k=6, missing="zero")}
    want = rw.evaluate_recommendations(data["test"], data["recs"], measures, **options)
    got = rw.evaluate_recommendations(data["test"], data["recs"], measures, engine="spark",
                                      **options)
    assert_same(got, want)
    assert np.isnan(got.per_user["novelty"]).any()  # a test user without a list


def test_local_tables_chunked_unevenly_lose_no_row(spark) -> None:
    """pyspark 4.3's createDataFrame drops rows of tables whose columns are chunked differently."""
    import pyarrow as pa
    import pyarrow.compute as pc

    data = random_recommendations(3)
    recs = data["recs"]
    pieces = pa.concat_tables([recs.slice(0, 5), recs.slice(5, 0), recs.slice(5)])
    user = pc.binary_join_element_wise(pieces["user"].cast(pa.string()), "", "")
    assert user.num_chunks != pieces["item"].num_chunks  # the empty chunk is dropped
    uneven = pieces.set_column(0, "user", user)
    test = data["test"].set_column(0, "user", data["test"]["user"].cast(pa.string()))
    measures = ["P@3", "coverage"]
    want = rw.evaluate_recommendations(test, uneven, measures, catalogue=data["catalogue"])
    got = rw.evaluate_recommendations(test, uneven, measures, catalogue=data["catalogue"],
                                      engine="spark")
    assert_same(got, want)


def test_top_k_lists_and_no_test(spark) -> None:
    recs = {"a": ["x", "y", "z"], "b": ["y", "x"], "c": ["w"]}
    measures = ["coverage", "gini", "entropy", "personalisation"]
    want = rw.evaluate_recommendations(None, recs, measures, catalogue=["w", "x", "y", "z", "v"])
    got = rw.evaluate_recommendations(None, recs, measures, catalogue=["w", "x", "y", "z", "v"],
                                      engine="spark")
    assert_same(got, want)
    assert got.mean["coverage"] == 0.8


def test_items_twice_refused_or_first_kept(spark) -> None:
    recs = spark.createDataFrame([("u", "a", 3.0), ("u", "b", 2.0), ("u", "a", 1.0)],
                                 "user string, item string, score double")
    test = spark.createDataFrame([("u", "b")], "user string, item string")
    with pytest.raises(DuplicateEntryError, match="item 'a' is recommended twice to user 'u'"):
        rw.evaluate_recommendations(test, recs, ["P@1"])
    got = rw.evaluate_recommendations(test, recs, ["P@1", "mrr"], duplicates="first")
    assert got.mean == {"P@1": 0.0, "mrr": 0.5}


@pytest.mark.parametrize("seed", range(3))
def test_ild_equals_numpy(spark, seed: int) -> None:
    """ILD from dense features (zero vectors, items without any), sparse ones, co-occurrence."""
    from scipy import sparse

    data = random_recommendations(seed)
    rng = np.random.default_rng(seed)
    ids = data["catalogue"][::2]  # half the items have no vector
    dense = rng.integers(-1, 2, (len(ids), 5)).astype(float)  # some all zero
    dense[0] = 0.0
    measures = ["ild", "ild@3", "ndcg@5"]
    labels = {user: n % 2 for n, user in enumerate(set(data["recs"].column("user").to_pylist()))}
    for features in ({i: v for i, v in zip(ids, dense)}, (ids, sparse.csr_matrix(dense)),
                     None):
        options = {"k": 8, "exclude": data["train"], "features": features,
                   "segments": labels}
        want = rw.evaluate_recommendations(data["test"], data["recs"], measures, **options)
        got = rw.evaluate_recommendations(data["test"], data["recs"], measures,
                                          engine="spark", **options)
        assert_same(got, want)
        assert got.segments is not None and want.segments is not None
        for name in want.segments.names:
            for measure, value in want.segments.mean[name].items():
                assert math.isclose(got.segments.mean[name][measure], value, abs_tol=1e-12) or (
                    math.isnan(value) and math.isnan(got.segments.mean[name][measure]))


@pytest.mark.parametrize("seed", range(4))
def test_recommenders_serendipity_equals_numpy(spark, seed: int) -> None:
    """serendipity(dialect=recommenders): dense and sparse features, co-occurrence, segments.

    Relevance is any test pair (graded 0 to 3, some twice); users without a
    training history are left out; items without features are zero vectors.
    """
    from scipy import sparse

    data = random_recommendations(seed)
    rng = np.random.default_rng(seed)
    ids = data["catalogue"][1::2]  # half the items have no vector
    dense = rng.integers(-1, 3, (len(ids), 4)).astype(float)
    dense[0] = 0.0
    measures = ["serendipity(dialect=recommenders)", "serendipity@3(dialect=recommenders)",
                "ndcg@5"]
    labels = {user: n % 3 for n, user in enumerate(set(data["recs"].column("user").to_pylist()))}
    cases = [({i: v for i, v in zip(ids, dense)}, {"exclude": data["train"]}),
             ((ids, sparse.csr_matrix(dense)), {"train": data["train"]}),
             (None, {"exclude": data["train"], "relevance": "rating"})]
    for features, given in cases:
        options = {"k": 7, "features": features, "segments": labels, **given}
        want = rw.evaluate_recommendations(data["test"], data["recs"], measures, **options)
        got = rw.evaluate_recommendations(data["test"], data["recs"], measures,
                                          engine="spark", **options)
        assert_same(got, want)
        values = want.per_user[measures[0]]
        assert np.isnan(values).any() and (values[~np.isnan(values)] > 0).any()
        assert got.segments is not None and want.segments is not None
        for name in want.segments.names:
            for measure, value in want.segments.mean[name].items():
                assert math.isclose(got.segments.mean[name][measure], value, abs_tol=1e-12) or (
                    math.isnan(value) and math.isnan(got.segments.mean[name][measure]))


def test_recommenders_serendipity_on_spark_frames_and_numpy_errors(spark) -> None:
    """Spark DataFrames in (features too); without test= or train=, numpy's errors."""
    import pyarrow as pa

    data = random_recommendations(5, integer_ids=True)
    items = data["catalogue"]
    table = pa.table({"item": pa.array(items, pa.int64()),
                      "f0": [float(i % 3) for i in range(len(items))],
                      "f1": [float(i % 4 == 0) for i in range(len(items))]})
    name = "serendipity@4(dialect=recommenders)"
    want = rw.evaluate_recommendations(data["test"], data["recs"], [name], train=data["train"],
                                       features=table)
    frames = {key: spark.createDataFrame(data[key]) for key in ("test", "recs", "train")}
    from rankwise.spark import evaluate_recommendations

    results = evaluate_recommendations(frames["test"], frames["recs"], [name],
                                       train=frames["train"],
                                       features=spark.createDataFrame(table))
    assert_same(results.to_results(), want)
    results.unpersist()
    for test, train in ((None, data["train"]), (data["test"], None)):
        with pytest.raises(InvalidParameterError) as numpy_error:
            rw.evaluate_recommendations(test, data["recs"], [name], train=train)
        with pytest.raises(InvalidParameterError, match=re.escape(str(numpy_error.value))):
            rw.evaluate_recommendations(test, data["recs"], [name], train=train,
                                        engine="spark")


def test_ild_features_as_a_spark_frame_and_numpy_errors(spark) -> None:
    import pyarrow as pa

    data = random_recommendations(2, integer_ids=True)
    items = data["catalogue"]
    table = pa.table({"item": pa.array(items, pa.int64()),
                      "f0": [float(i % 3) for i in range(len(items))],
                      "f1": [float(i % 5 == 0) for i in range(len(items))]})
    want = rw.evaluate_recommendations(data["test"], data["recs"], ["ild"], features=table)
    frames = {name: spark.createDataFrame(data[name]) for name in ("test", "recs")}
    got = rw.evaluate_recommendations(frames["test"], frames["recs"], ["ild"],
                                      features=spark.createDataFrame(table))
    assert_same(got, want)
    # what numpy refuses, Spark refuses with the same error
    for features in (None, {str(items[0]): [1.0]}):
        with pytest.raises(Exception) as numpy_error:
            rw.evaluate_recommendations(data["test"], data["recs"], ["ild"], features=features)
        with pytest.raises(type(numpy_error.value), match=re.escape(str(numpy_error.value)[:40])):
            rw.evaluate_recommendations(frames["test"], frames["recs"], ["ild"],
                                        features=features)


@pytest.mark.parametrize(("seed", "test_name"), [(0, "welch"), (5, "rank")])
def test_segments_equal_numpy(spark, seed: int, test_name: str) -> None:
    """segments=: per-segment means, whole-set values per segment and the test, as numpy's."""
    import pyarrow as pa

    data = random_recommendations(seed)
    users = sorted(set(data["recs"].column("user").to_pylist())
                   | set(data["test"].column("user").to_pylist()), key=str)
    # three segments; one user in no segment, one segment id with no evaluated user
    labels = {user: ["new", "active", "dormant"][n % 3] for n, user in enumerate(users[1:])}
    labels["nobody" if isinstance(users[0], str) else 10**6] = "ghost"
    measures = ["ndcg@5", "recall@10", "coverage@5", "gini", "novelty", "arp",
                "personalisation", "novelty@3(dialect=recommenders)"]
    options = {"k": 8, "exclude": data["train"], "catalogue": data["catalogue"],
               "segment_test": test_name}
    want = rw.evaluate_recommendations(data["test"], data["recs"], measures,
                                       segments=labels, **options)
    frames = {name: spark.createDataFrame(data[name]) for name in ("test", "recs", "train")}
    segment_frame = spark.createDataFrame(pa.table({
        "user": pa.array(list(labels), data["recs"].schema.field("user").type),
        "segment": list(labels.values())}))
    from rankwise.spark import evaluate_recommendations

    for given in (labels, segment_frame):
        results = evaluate_recommendations(
            frames["test"], frames["recs"], measures, k=8, exclude=frames["train"],
            catalogue=data["catalogue"], segments=given, segment_test=test_name)
        got = results.to_results()
        assert_same(got, want)
        assert got.segments is not None and want.segments is not None
        assert got.segments.names == want.segments.names
        assert got.segments.users == want.segments.users
        assert got.segments.test == want.segments.test
        for name in want.segments.names:
            assert list(got.segments.mean[name]) == list(want.segments.mean[name])
            for measure, value in want.segments.mean[name].items():
                assert math.isclose(got.segments.mean[name][measure], value, abs_tol=1e-12) or (
                    math.isnan(value) and math.isnan(got.segments.mean[name][measure])), \
                    (name, measure)
        for measure, p in want.segments.p_values.items():
            assert math.isclose(got.segments.p_values[measure], p, abs_tol=1e-9) or (
                math.isnan(p) and math.isnan(got.segments.p_values[measure])), measure
        results.unpersist()
    front = rw.evaluate_recommendations(data["test"], data["recs"], measures, engine="spark",
                                        segments=labels, **options)
    assert front.segments is not None and front.segments.users == want.segments.users


def test_serendipity_against_a_baseline_equals_numpy(spark) -> None:
    """serendipity (a baseline's lists, excluded and cut as the lists are) on Spark, as numpy."""
    import pyarrow as pa

    data = random_recommendations(4)
    recs = data["recs"]
    rng = np.random.default_rng(4)
    kept = np.flatnonzero(rng.random(recs.num_rows) < 0.4)  # another recommender: some of
    baseline = recs.take(pa.array(kept)).set_column(  # the pairs, in another order
        2, "score", pa.array(rng.random(len(kept))))
    measures = ["serendipity", "serendipity@3", "ndcg@5"]
    options = {"k": 6, "exclude": data["train"], "relevance": "rating"}
    want = rw.evaluate_recommendations(data["test"], recs, measures, baseline=baseline,
                                       **options)
    got = rw.evaluate_recommendations(data["test"], recs, measures, baseline=baseline,
                                      engine="spark", **options)
    assert_same(got, want)
    assert 0 < np.nanmax(want.per_user["serendipity"]) <= 1
    with pytest.raises(InvalidParameterError, match="give baseline="):
        rw.evaluate_recommendations(data["test"], recs, ["serendipity"], engine="spark")


@pytest.mark.parametrize("integer_ids", [True, False])
def test_recbole_tail_share_cuts_ties_as_numpy(spark, integer_ids: bool) -> None:
    """RecBole's tail as a share: equal counts straddle the cut, cut by item id on both engines."""
    counts = {9: 1, 3: 1, 7: 2, 1: 2, 5: 1, 8: 3, 2: 1, 4: 2, 12: 2}  # 10 sorts before 9 as text
    matrix = [[9, 3, 7, 12], [5, 2, 1, 8], [8, 4, 3, 12], [2, 9, 5, 4], [7, 1, 6, 3]]

    def ids(items: list[int]) -> list:
        return items if integer_ids else [str(item) for item in items]

    train = {"user": ids([n for n, (i, c) in enumerate(counts.items()) for _ in range(c)]),
             "item": ids([i for i, c in counts.items() for _ in range(c)])}
    recs = {"user": ids([u for u, row in enumerate(matrix) for _ in row]),
            "item": ids([i for row in matrix for i in row]),
            "rank": [r + 1 for row in matrix for r in range(len(row))]}
    test = {"user": ids([0, 1, 1, 2, 3, 4]), "item": ids([3, 2, 5, 12, 9, 6])}
    measures = [f"{name}@{k}(dialect=recbole,tail={ratio})" for name in ("aplt", "popreo")
                for k in (2, 4) for ratio in (0.2, 0.34, 0.5, 0.67, 1.0)]
    want = rw.evaluate_recommendations(test, recs, measures, train=train)
    got = rw.evaluate_recommendations(test, recs, measures, train=train, engine="spark")
    assert_same(got, want)
    assert len({round(v, 12) for v in want.mean.values()}) > 4  # the ratios cut differently


@pytest.mark.parametrize("seed", [1, 6])
def test_the_default_catalogue_equals_numpy(spark, seed: int) -> None:
    """Issue 33, item 22: no catalogue= is every item of the test, lists and training."""
    data = random_recommendations(seed)
    items = set()
    for name in ("test", "recs", "train"):
        items |= set(data[name].column("item").to_pylist())  # by hand
    measures = ["coverage", "coverage@5", "gini", "gini@5(dialect=recbole)", "ndcg@5"]
    labels = {user: n % 2 for n, user in enumerate(set(data["recs"].column("user").to_pylist()))}
    for options in ({"k": 8, "exclude": data["train"]}, {"train": data["train"]}):
        want = rw.evaluate_recommendations(data["test"], data["recs"], measures,
                                           segments=labels, **options)
        got = rw.evaluate_recommendations(data["test"], data["recs"], measures,
                                          segments=labels, engine="spark", **options)
        assert_same(got, want)
        # by hand: the test users whose every recommended item exclude= removes
        seen: dict[Any, set] = {}
        for user, item in zip(data["train"].column("user").to_pylist(),
                              data["train"].column("item").to_pylist()):
            seen.setdefault(user, set()).add(item)
        recommended: dict[Any, set] = {}
        for user, item in zip(data["recs"].column("user").to_pylist(),
                              data["recs"].column("item").to_pylist()):
            recommended.setdefault(user, set()).add(item)
        emptied = sum(1 for user in set(data["test"].column("user").to_pylist())
                      if user in recommended and recommended[user] <= seen.get(user, set())
                      ) if "exclude" in options else 0
        assert got.notes == want.notes == [
            f"coverage, coverage@5, gini, gini@5(dialect=recbole): the catalogue is the "
            f"{len(items)} items of the training, test and recommendation tables; give "
            "catalogue= all items to count the ones in none of them"] + ([
                f"{emptied} test user{'s' if emptied > 1 else ''}: every item of the list is "
                "one exclude= removes; left out of the means as a user without a list "
                "(missing='zero' scores such users 0)"] if emptied else [])
        assert 0 < got.mean["coverage"] <= 1
    frames = {name: spark.createDataFrame(data[name]) for name in ("test", "recs")}
    from rankwise.spark import evaluate_recommendations

    results = evaluate_recommendations(frames["test"], frames["recs"], ["coverage"])
    tested = set(data["test"].column("item").to_pylist()) | set(
        data["recs"].column("item").to_pylist())
    assert results.notes == [f"coverage: the catalogue is the {len(tested)} items of the test "
                             "and recommendation tables; give catalogue= all items to count "
                             "the ones in none of them"]
    test_users = set(data["test"].column("user").to_pylist())  # the evaluated users' lists
    listed = {item for user, item in zip(data["recs"].column("user").to_pylist(),
                                         data["recs"].column("item").to_pylist())
              if user in test_users}
    assert results.mean["coverage"] == len(listed) / len(tested)
    results.unpersist()


def test_a_catalogue_without_the_items_recommended_is_numpy_s_error(spark) -> None:
    """Issue 33, item 6: a share above 1 on both engines before; the same error now."""
    import pyarrow as pa

    data = random_recommendations(3, integer_ids=True)
    recommended = sorted(set(data["recs"].column("item").to_pylist()))
    frames = {name: spark.createDataFrame(data[name]) for name in ("test", "recs")}
    for catalogue in (1, recommended[2:], pa.table({"item": recommended[1:]}),
                      spark.createDataFrame(pa.table({"item": recommended[1:]}))):
        for measure in ("coverage", "gini@3"):
            local = catalogue if not hasattr(catalogue, "toArrow") else catalogue.toArrow()
            with pytest.raises(InvalidParameterError) as numpy_error:
                rw.evaluate_recommendations(data["test"], data["recs"], [measure],
                                            catalogue=local)
            message = str(numpy_error.value)
            assert message.startswith(f"{measure}: ")
            if not isinstance(catalogue, int):  # the ids outside, smallest first
                assert f": {recommended[0]}" in message
            with pytest.raises(InvalidParameterError) as spark_error:
                rw.evaluate_recommendations(frames["test"], frames["recs"], [measure],
                                            catalogue=catalogue)
            assert str(spark_error.value) == message


def test_bad_numbers_and_vectors_are_numpy_s_errors(spark) -> None:
    """Issue 33, items 13 and 23: a text score, vectors of two lengths, on Spark."""
    import pyarrow as pa

    from rankwise.exceptions import InputFormatError

    test = pa.table({"user": ["u1", "u2"], "item": ["a", "b"]})
    recs = pa.table({"user": ["u1", "u1", "u2"], "item": ["a", "b", "b"],
                     "score": ["3", "high", "1"]})
    with pytest.raises(InputFormatError) as numpy_error:
        rw.evaluate_recommendations(test, recs, ["P@1"])
    assert str(numpy_error.value) == ("recommendations: row 1: score must be a number, got '3' "
                                      "(the column holds text); convert the column to numbers "
                                      "first")
    with pytest.raises(InputFormatError, match=re.escape(str(numpy_error.value))):
        rw.evaluate_recommendations(test, recs, ["P@1"], engine="spark")
    # a Spark DataFrame of text: Spark reads numbers in text, and names what is not one
    with pytest.raises(InputFormatError) as spark_error:
        rw.evaluate_recommendations(spark.createDataFrame(test), spark.createDataFrame(recs),
                                    ["P@1"])
    assert str(spark_error.value) == ("recommendations: score must be a number, got 'high' "
                                      "(user 'u1', item 'b')")
    graded = pa.table({"user": ["u1"], "item": ["a"], "stars": ["good"]})
    with pytest.raises(InputFormatError, match=re.escape(
            "test: grade (column 'stars') must be a number, got 'good' (user 'u1', item 'a')")):
        rw.evaluate_recommendations(spark.createDataFrame(graded),
                                    spark.createDataFrame(recs.drop(["score"])), ["P@1"],
                                    relevance="stars")
    lists = {"u1": ["a", "b", "c"], "u2": ["b", "c", "a"]}
    ragged = {"item": ["a", "b", "c"], "vector": [[1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0]]}
    with pytest.raises(rw.RankwiseError) as numpy_error:
        rw.evaluate_recommendations(test, lists, ["ild"], features=ragged)
    assert "row 2 (item 'b') has a vector of 3 values" in str(numpy_error.value)
    with pytest.raises(type(numpy_error.value), match=re.escape(str(numpy_error.value))):
        rw.evaluate_recommendations(test, lists, ["ild"], features=ragged, engine="spark")
    # a Spark DataFrame with a column of vectors: numpy's ILD
    vectors = pa.table({"item": ["a", "b", "c"], "vector": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]})
    got = rw.evaluate_recommendations(test, lists, ["ild"], engine="spark",
                                      features=spark.createDataFrame(vectors))
    assert got.mean["ild"] == pytest.approx((1 + 2 * (1 - 1 / math.sqrt(2))) / 3, abs=1e-15)


def test_spark_recommender_results_follow_the_result_protocol(spark) -> None:
    """issue 34, item 5: the frames and dict as the numpy path's, a table, and pickle."""
    import json
    import pickle

    from rankwise.spark import evaluate_recommendations

    data = random_recommendations(0)
    measures = ["ndcg@5", "coverage@5"]
    want = rw.evaluate_recommendations(data["test"], data["recs"], measures, k=8)
    got = evaluate_recommendations(spark.createDataFrame(data["test"]),
                                   spark.createDataFrame(data["recs"]), measures, k=8)
    table = json.loads(got.to_table("json"))
    assert table[0]["users"] == len(want.users)
    assert table[0]["coverage@5"] == pytest.approx(want.mean["coverage@5"], abs=1e-12)
    assert got._repr_html_().startswith("<table><caption>SparkRecommenderResults(")
    assert repr(got).splitlines()[0] == f"SparkRecommenderResults({len(want.users)} users)"
    frame = got.to_pandas()
    assert sorted(map(str, frame.index)) == sorted(map(str, want.users))
    assert got.to_polars().columns == ["user", "ndcg@5"]
    back = pickle.loads(pickle.dumps(got))
    assert back.per_user is None  # a Spark DataFrame stays in its session
    assert back.to_dict()["mean"] == got.to_dict()["mean"]


def _three_models(seed: int) -> tuple[dict, dict, dict]:
    """Held-out and training interactions, and three models over different items (ranked lists).

    Model ``m0`` recommends from items 0-19, ``m1`` from 10-29, ``m2`` from 20-39 (items 30-39
    are in no held-out or training table): each model alone would count another catalogue.
    """
    rng = np.random.default_rng(seed)
    held = {"user": [], "item": []}
    train = {"user": [], "item": []}
    for user in range(30):
        items = rng.permutation(30)
        for item in items[:int(rng.integers(0, 4))]:
            train["user"].append(user)
            train["item"].append(int(item))
        for item in items[4:4 + int(rng.integers(1, 4))]:
            held["user"].append(user)
            held["item"].append(int(item))
    models = {f"m{m}": {user: [int(x) for x in rng.choice(np.arange(10 * m, 10 * m + 20), 8,
                                                          replace=False)]
                        for user in range(30) if (user + m) % 7}  # some users lack a list
              for m in range(3)}
    return held, train, models


def _by_hand(held: dict, train: dict, models: dict, cut: int) -> dict[str, dict[str, float]]:
    """Coverage@cut and Gini@cut of each model over one catalogue, from their definitions."""
    catalogue = set(held["item"]) | set(train["item"]) | {
        item for lists in models.values() for items in lists.values() for item in items}
    out = {}
    for name, lists in models.items():
        exposure: dict[int, int] = {}
        for user in set(held["user"]) & set(lists):  # the evaluated users (missing="skip")
            for item in lists[user][:cut]:
                exposure[item] = exposure.get(item, 0) + 1
        counts = np.sort(np.array([exposure.get(item, 0) for item in catalogue], dtype=float))
        n = len(counts)
        j = np.arange(1, n + 1)  # Castells et al.: items by ascending exposure, zeros counted
        gini = float(np.sum((2 * j - n - 1) * counts) / counts.sum() / (n - 1))
        out[name] = {f"coverage@{cut}": len(exposure) / n, f"gini@{cut}": gini}
    return out


@pytest.mark.parametrize("seed", [0, 3])
def test_compare_recommendations_shares_one_catalogue_on_spark_as_numpy(spark, seed: int
                                                                          ) -> None:
    """Issue 37: on Spark too, every model's coverage and Gini count one default catalogue."""
    held, train, models = _three_models(seed)
    measures = ["ndcg@5", "novelty@5", "arp@5", "coverage@5", "gini@5", "entropy@5",
                "personalisation@5", "coverage", "gini(dialect=recbole)"]
    options = {"baseline": "m0", "train": train, "seed": 0}
    want = rw.compare_recommendations(held, models, measures, **options)
    got = rw.compare_recommendations(held, models, measures, engine="spark", **options)
    hand = _by_hand(held, train, models, 5)
    for name in models:
        for measure, value in hand[name].items():
            assert got.whole_set[name][measure] == pytest.approx(value, abs=1e-12), \
                (name, measure)
        assert_same(got.results[name], want.results[name])
    assert list(got.whole_set) == list(want.whole_set)
    for name, values in want.whole_set.items():
        for measure, value in values.items():
            assert got.whole_set[name][measure] == pytest.approx(value, abs=1e-12)
    alone = rw.evaluate_recommendations(held, models["m0"], ["coverage@5"], train=train)
    assert alone.mean["coverage@5"] != got.whole_set["m0"]["coverage@5"]  # its own: not this
    for row, other in zip(got.comparison.rows, want.comparison.rows):
        assert (row.measure, row.system) == (other.measure, other.system)
        for field in ("mean", "delta", "p_value", "p_adjusted"):
            assert getattr(row, field) == pytest.approx(getattr(other, field), abs=1e-12,
                                                        nan_ok=True)
    size = len(set(held["item"]) | set(train["item"]) | {
        item for lists in models.values() for items in lists.values() for item in items})
    said = [line for line in got.assumptions if line.startswith("catalogue")]
    assert said == [line for line in want.assumptions if line.startswith("catalogue")] == [
        f"catalogue: not given; coverage and Gini count the {size} items of the training and "
        "test tables and of every model's lists (the same for every model); give the "
        "catalogue to count the items in none of them"]
    assert not any("its own" in line for line in got.assumptions + got.notes)
    # Spark DataFrames given, no engine=: chosen by the frames, the same catalogue
    frames = {name: spark.createDataFrame(
        [(user, item, rank) for user, items in lists.items()
         for rank, item in enumerate(items, 1)], "user long, item long, rank long")
        for name, lists in models.items()}
    on_frames = rw.compare_recommendations(held, frames, ["coverage@5", "gini@5"],
                                           baseline="m0", train=train, seed=0)
    for name in models:
        assert on_frames.whole_set[name] == pytest.approx(hand[name], abs=1e-12)
