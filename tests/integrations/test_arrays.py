"""evaluate_groups (labels, predictions, group sizes) gives rw.evaluate's numbers.

The training hooks all go through it: rows are judged documents whose id is
their position in the group, so rankwise's rule for ties (document id
descending) ranks later rows first, and the dialects that keep input order
rank earlier rows first.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import grouped_as_dicts

import rankwise as rw
from rankwise.integrations import evaluate_groups

MEASURES = [
    "ndcg@3", "ndcg", "ndcg@5(gain=linear)", "map", "map@3", "mrr@3", "P@2", "recall@3",
    "hit@1", "bpref", "Rprec", "rbp", "ndcg@3(dialect=lightgbm)", "map@3(dialect=lightgbm)",
    "ndcg@3(dialect=xgboost)", "map(dialect=xgboost,empty=0)", "P@2(dialect=xgboost)",
    "ndcg@3(dialect=catboost)", "mrr@3(dialect=catboost)", "recall@3(dialect=catboost)",
    "ndcg@3(dialect=sklearn)", "map(dialect=sklearn)", "coverage(dialect=sklearn)",
    "ndcg@3(dialect=torchmetrics)", "map@3(dialect=torchmetrics)",
    "P@2(dialect=recommenders)", "ndcg@3(dialect=ranx)", "bpref(dialect=ranx)",
]


@st.composite
def grouped(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sizes = np.array(draw(st.lists(st.integers(1, 7), min_size=1, max_size=6)))
    n = int(sizes.sum())
    labels = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([-1.0, 0.0, 0.0, 1.0, 2.0,
                                                                       3.0])))
    scores = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([-0.5, 0.0, 0.25, 0.5,
                                                                       1.0])))
    return labels, scores, sizes


@settings(max_examples=60, deadline=None)
@given(grouped())
def test_arrays_give_the_numbers_of_rw_evaluate(data: tuple) -> None:
    labels, scores, sizes = data
    arrays = evaluate_groups(labels, scores, sizes, MEASURES)
    qrels, run = grouped_as_dicts(labels, scores, sizes)
    results = rw.evaluate(qrels, run, MEASURES)
    assert arrays.query_ids == results.query_ids if len(sizes) < 10 else True
    for measure in MEASURES:
        ours = dict(zip(arrays.query_ids, arrays[measure]))
        theirs = dict(zip(results.query_ids, results[measure]))
        for query, value in theirs.items():
            assert ours[query] == pytest.approx(value, abs=1e-12, nan_ok=True), (measure, query)
        assert arrays.mean[measure] == pytest.approx(results.mean[measure], abs=1e-12,
                                                     nan_ok=True)


def test_qid_instead_of_group_sizes() -> None:
    labels = np.array([1.0, 0, 2, 0, 1])
    scores = np.array([0.1, 0.9, 0.8, 0.3, 0.4])
    by_sizes = evaluate_groups(labels, scores, np.array([3, 2]), ["ndcg@2", "mrr"])
    by_qid = evaluate_groups(labels, scores, measures=["ndcg@2", "mrr"],
                             qid=np.array([7, 7, 7, 3, 3]))
    assert by_sizes.mean == by_qid.mean


def test_errors_name_the_problem() -> None:
    with pytest.raises(rw.InvalidParameterError, match="add up to the 3 rows"):
        evaluate_groups([1, 0, 1], [0.1, 0.2, 0.3], [2, 2], "ndcg")
    with pytest.raises(rw.InvalidParameterError, match="differ in length"):
        evaluate_groups([1, 0], [0.1, 0.2, 0.3], [3], "ndcg")
    with pytest.raises(rw.InvalidParameterError, match="together"):
        evaluate_groups([1, 0, 1], [0.1, 0.2, 0.3], measures="ndcg", qid=[1, 2, 1])
    with pytest.raises(rw.InvalidParameterError, match="not finite"):
        evaluate_groups([1, 0], [0.1, float("nan")], [2], "ndcg")


def test_rounds_on_prepared_groups_give_the_numbers_of_rw_evaluate() -> None:
    """A training loop's rounds: the query structure of each data set is prepared once
    (ranking.arrays.GroupedRows) and found again; every round's values are still those of
    rw.evaluate, whatever the predictions (ties, a constant model, float32 collisions), with
    two data sets alternating, and after the labels change in place."""
    from strategies import ranking_data

    from rankwise.integrations._arrays import GroupCache

    cache = GroupCache()
    rng = np.random.default_rng(3)
    train = ranking_data(300, seed=1)[1:]
    valid = ranking_data(200, seed=2)[1:]
    assert len(train[0]) >= 1024 and len(valid[0]) >= 1024  # large enough to be kept
    rounds = []
    for labels, sizes in (train, valid):
        n = len(labels)
        noisy = labels + rng.normal(size=n)
        collide = rng.random(n)
        collide[1::2] = collide[::2][: n // 2] + 1e-12  # equal in float32 only
        rounds += [(labels, sizes, s) for s in (noisy, np.round(noisy, 1), np.zeros(n),
                                               collide)]
    order = [0, 4, 1, 5, 2, 6, 3, 7]  # train and validation alternate
    for index in order:
        labels, sizes, scores = rounds[index]
        arrays = evaluate_groups(labels, scores, sizes, MEASURES, cache=cache)
        qrels, run = grouped_as_dicts(labels, scores, sizes)
        results = rw.evaluate(qrels, run, MEASURES)
        for measure in MEASURES:
            ours = dict(zip(arrays.query_ids, arrays[measure]))
            for query, value in zip(results.query_ids, results[measure]):
                assert ours[query] == pytest.approx(value, abs=1e-12, nan_ok=True), (
                    index, measure, query)
    labels, sizes = train
    assert cache.get(labels, sizes) is cache.get(labels.copy(), sizes)  # found again
    changed = labels  # changed in place, as a caller might
    changed[:50] = 4 - changed[:50]
    scores = rng.normal(size=len(labels))
    arrays = evaluate_groups(changed, scores, sizes, ["ndcg@5", "map"], cache=cache)
    qrels, run = grouped_as_dicts(changed, scores, sizes)
    assert arrays.mean == pytest.approx(rw.evaluate(qrels, run, ["ndcg@5", "map"]).mean,
                                        abs=1e-12)


def test_the_prepared_arrays_are_read_only() -> None:
    """Every round's ranking shares them: a kernel writing to one would corrupt the next."""
    from rankwise.ranking.arrays import GroupedRows

    ranking = GroupedRows(np.array([1.0, 0.0, 2.0]), np.array([3])).rank(np.array([.1, .2, .3]))
    for shared in (ranking.hit_query, ranking.hit_rank, ranking.judged_grades,
                   ranking.judged_offsets, ranking.num_ret, ranking.in_run):
        with pytest.raises(ValueError, match="read-only"):
            shared[0] = 0


def test_the_hooks_keep_their_own_cache_and_a_copy_starts_empty() -> None:
    import pickle

    from rankwise.integrations._arrays import GroupCache

    cache = GroupCache()
    labels, sizes = np.zeros(3000), np.array([1000, 2000])
    rows = cache.get(labels, sizes)
    assert cache.get(labels, sizes) is rows
    copy = pickle.loads(pickle.dumps(cache))
    assert copy.get(labels, sizes) is not rows
    small = np.zeros(10), np.array([10])
    assert cache.get(*small) is not cache.get(*small)  # small data sets are not kept


RANX = ["ndcg@10(dialect=ranx)", "mrr(dialect=ranx)", "map(dialect=ranx)",
        "hits@20(dialect=ranx)", "bpref(dialect=ranx)"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 45), min_size=1, max_size=4), st.integers(0, 1 << 30))
def test_long_groups_order_ties_as_ranx(sizes: list[int], seed: int) -> None:
    """Groups beyond 15 rows: ranx's quicksort moves tied rows; arrays and dicts agree."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    labels = rng.choice([0.0, 0.0, 1.0, 2.0], size=n)
    scores = rng.integers(0, 3, size=n).astype(np.float64)
    arrays = evaluate_groups(labels, scores, np.array(sizes), RANX)
    qrels, run = grouped_as_dicts(labels, scores, np.array(sizes))
    results = rw.evaluate(qrels, run, RANX)
    for measure in RANX:
        ours = dict(zip(arrays.query_ids, arrays[measure]))
        for query, value in zip(results.query_ids, results[measure]):
            assert ours[query] == pytest.approx(value, abs=1e-12, nan_ok=True), (measure, query)
