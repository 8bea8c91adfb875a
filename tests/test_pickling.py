"""Every result type pickles, and comes back whole from a process pool (fork, spawn, forkserver).

Each result is computed in a child process through the public API (a
``functools.partial`` of a public function is what the pool sends) and
compared with the same result computed here: values, means, the tie report
and the other fields a user reads.
"""

from __future__ import annotations

import multiprocessing
import pickle
from functools import partial
from typing import Any

import numpy as np
import pytest

import rankwise as rw
from rankwise.design import discriminative_power, topic_set_table

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 1}, "q3": {"f": 1}}
RUNS = {
    "bm25": {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}, "q2": {"d": 0.2, "x": 0.9},
             "q3": {"f": 0.3, "y": 0.3}},
    "dense": {"q1": {"c": 2.0, "a": 1.0}, "q2": {"e": 0.8, "d": 0.7}, "q3": {"y": 0.5}},
}
MEASURES = ["ndcg@10", "map", "P@2", "ndcg@10(dialect=lightgbm)", "mrr(dialect=ranx)"]


def _recommendation_frames() -> tuple[Any, Any, Any]:
    pd = pytest.importorskip("pandas")
    test = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]})
    recs = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["a", "c", "c", "d"],
                         "score": [2.0, 1.0, 2.0, 1.0]})
    train = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "d"]})
    return test, recs, train


def _jobs() -> dict[str, partial[Any]]:
    test, recs, train = _recommendation_frames()
    return {
        "Results": partial(rw.evaluate, QRELS, RUNS["bm25"], MEASURES),
        "Results(bounds)": partial(rw.evaluate, QRELS, RUNS["bm25"], ["map"],
                                   unjudged="bounds"),
        "Comparison": partial(rw.compare, QRELS, RUNS, ["ndcg@10", "map"], baseline="bm25",
                              test="randomization", n_resamples=200, seed=1),
        "Explanation": partial(rw.explain, QRELS, RUNS["bm25"], "ndcg@10", "trec_eval",
                               "sklearn"),
        "Run": partial(rw.fuse, list(RUNS.values()), "rrf"),
        "RecommenderResults": partial(rw.evaluate_recommendations, test, recs,
                                      ["ndcg@10", "novelty"], exclude=train),
        "RecommenderComparison": partial(
            rw.compare_recommendations, test,
            {"a": recs, "b": recs.assign(score=-recs["score"])}, ["ndcg@10", "novelty",
                                                                   "coverage"],
            baseline="a", exclude=train, seed=1),
        "Reproduction": partial(rw.reproduce, QRELS, RUNS["bm25"], RUNS["dense"],
                                ["map"], rbo_depth=10),
        "Agreement": partial(rw.rbo, RUNS["bm25"], RUNS["dense"]),
        "MeasureAgreement": partial(rw.measure_agreement, QRELS,
                                    {**RUNS, "third": RUNS["bm25"]}, ["map", "P@2"]),
        "DiscriminativePower": partial(discriminative_power, QRELS, RUNS, ["map"],
                                       n_resamples=100, seed=3),
        "TopicSetTable": partial(topic_set_table, "t", [0.1, 0.2], [0.05]),
        "Guide": partial(rw.guide, QRELS, RUNS),
        "Matches": partial(rw.explain, QRELS, RUNS["bm25"], "ndcg@10", measured=0.5),
        "FusionOptimization": partial(rw.optimize_fusion, QRELS, RUNS, "wsum", measure="map",
                                      step=0.5, folds=2),
    }


def _same(a: Any, b: Any) -> None:
    """The parts of two results a user reads are equal (arrays by value, NaN equal to NaN)."""
    assert type(a) is type(b)
    if isinstance(a, rw.Results):
        assert a.query_ids == b.query_ids and a.run_name == b.run_name
        assert a.mean == pytest.approx(b.mean, nan_ok=True)
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
            np.testing.assert_array_equal(a.counted(name), b.counted(name))
        assert a.ties == b.ties
        assert (a.missing_queries, a.unjudged_queries, a.notes) == (
            b.missing_queries, b.unjudged_queries, b.notes)
        assert (a.unjudged is None) == (b.unjudged is None)
        if a.unjudged is not None:
            assert a.unjudged.mean == b.unjudged.mean
        return
    if isinstance(a, rw.Run):
        assert a.to_dict() == b.to_dict() and a.name == b.name
        return
    if hasattr(a, "to_table"):
        assert a.to_table() == b.to_table()
    else:
        assert repr(a) == repr(b)


@pytest.mark.parametrize("name", list(_jobs()))
def test_each_result_round_trips_through_pickle(name: str) -> None:
    made = _jobs()[name]()
    if isinstance(made, rw.Results):
        made_ties = made.ties  # compared after, and asked before pickling on one side only
        back = pickle.loads(pickle.dumps(made))
        assert back.ties == made_ties
    back = pickle.loads(pickle.dumps(made))
    _same(back, made)
    if isinstance(back, rw.Results):
        for name_ in back:
            assert not back[name_].flags.writeable  # read-only, as made


def test_results_pickled_before_its_tie_report_is_asked_for() -> None:
    made = rw.evaluate(QRELS, RUNS["bm25"], MEASURES)
    back = pickle.loads(pickle.dumps(made))  # the report is made while pickling
    assert back.ties.bounds == made.ties.bounds
    # map by hand: q1 (b, a, c) to (a, b, c), q2 fixed at 1/4, q3 (y, f) to (f, y)
    assert back.ties.bounds["map"] == (pytest.approx((7 / 12 + 1 / 4 + 1 / 2) / 3),
                                       pytest.approx((5 / 6 + 1 / 4 + 1) / 3))


def test_results_do_not_keep_the_run_alive() -> None:
    """The engine's ranking callback (which holds the run) is let go once nothing needs it."""
    made = rw.evaluate(QRELS, RUNS["bm25"], MEASURES)
    contexts = made._ties.keywords["contexts"]
    assert contexts.rankings is None


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_results_come_back_from_a_process_pool(method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"start method {method!r} is not available on this platform")
    jobs = _jobs()
    context = multiprocessing.get_context(method)
    with context.Pool(1) as pool:
        returned = {name: pool.apply(job) for name, job in jobs.items()}
    for name, job in jobs.items():
        _same(returned[name], job())
