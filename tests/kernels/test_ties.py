"""Tie policies: brute force over every ordering of every tie group."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import small_collections

import rankwise as rw
from rankwise.exceptions import InvalidParameterError, UnsupportedMeasureError

AVERAGE = [
    "ndcg",
    "ndcg@3",
    "ndcg@2(gain=linear)",
    "dcg@3",
    "P@1",
    "P@3",
    "recall@2",
    "relative_P@2",
    "hit@1",
    "hit@2",
    "rel_ret@2",
    "rel_ret",
    "mrr",
    "mrr@2",
    "map",
    "map@3",
    "Rprec",
    "Rprec(mult=0.5)",
    "judged@2",
    "unj@3",
    "rbp",
    "num_rel_ret",
    "set_P",
    "utility",
]


def orderings(run: dict[str, dict[str, float]]):
    """Every run obtained by ordering each tie group of each query in every way."""
    per_query = []
    for query, docs in run.items():
        by_score: dict[float, list[str]] = {}
        for doc, score in docs.items():
            by_score.setdefault(score, []).append(doc)
        groups = [by_score[s] for s in sorted(by_score, reverse=True)]
        options = []
        for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = [doc for perm in perms for doc in perm]
            options.append({doc: float(len(order) - i) for i, doc in enumerate(order)})
        per_query.append((query, options))
    for combination in itertools.product(*(options for _, options in per_query)):
        yield {query: ranking for (query, _), ranking in zip(per_query, combination)}


def brute_force(qrels, run, measures, **options):
    values = [rw.evaluate(qrels, r, measures, **options) for r in orderings(run)]
    stacked = {name: np.array([v[name] for v in values]) for name in values[0]}
    return values[0].query_ids, stacked


@settings(max_examples=60, deadline=None)
@given(small_collections())
def test_average_is_the_mean_over_all_orderings(data) -> None:
    qrels, run = data
    queries, stacked = brute_force(qrels, run, AVERAGE)
    got = rw.evaluate(qrels, run, AVERAGE, ties="average")
    assert got.query_ids == queries
    for name, values in stacked.items():
        np.testing.assert_allclose(got[name], values.mean(axis=0), atol=1e-12, err_msg=name)


@settings(max_examples=30, deadline=None)
@given(small_collections(), st.integers(1, 4))
def test_average_with_a_depth_cut(data, depth) -> None:
    qrels, run = data
    measures = ["ndcg", "map", "mrr", "P@3", "recall@5", "num_rel_ret"]
    _, stacked = brute_force(qrels, run, measures, depth=depth)
    got = rw.evaluate(qrels, run, measures, ties="average", depth=depth)
    for name, values in stacked.items():
        np.testing.assert_allclose(got[name], values.mean(axis=0), atol=1e-12, err_msg=name)


BOUNDED = ["ndcg", "ndcg@3", "P@2", "recall@3", "map", "mrr", "hit@1", "Rprec", "dcg@2"]


@settings(max_examples=60, deadline=None)
@given(small_collections())
def test_worst_and_best_are_the_bounds(data) -> None:
    qrels, run = data
    _, stacked = brute_force(qrels, run, BOUNDED)
    worst = rw.evaluate(qrels, run, BOUNDED, ties="worst")
    best = rw.evaluate(qrels, run, BOUNDED, ties="best")
    for name, values in stacked.items():
        np.testing.assert_allclose(worst[name], values.min(axis=0), atol=1e-12, err_msg=name)
        np.testing.assert_allclose(best[name], values.max(axis=0), atol=1e-12, err_msg=name)


@settings(max_examples=60, deadline=None)
@given(small_collections())
def test_without_ties_every_policy_gives_the_trec_value(data) -> None:
    qrels, run = data
    run = {q: {d: float(i) for i, d in enumerate(docs)} for q, docs in run.items()}
    base = rw.evaluate(qrels, run, AVERAGE)
    for policy in ("average", "worst", "best"):
        other = rw.evaluate(qrels, run, AVERAGE, ties=policy)
        for name in base:
            np.testing.assert_allclose(other[name], base[name], atol=1e-12, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(small_collections(), st.randoms(use_true_random=False))
def test_renaming_documents_never_changes_average_worst_best(data, random) -> None:
    qrels, run = data
    names = sorted({d for v in run.values() for d in v} | {d for v in qrels.values() for d in v})
    new = dict(zip(names, random.sample([f"z{i}" for i in range(len(names))], len(names))))
    qrels2 = {q: {new[d]: g for d, g in v.items()} for q, v in qrels.items()}
    run2 = {q: {new[d]: s for d, s in v.items()} for q, v in run.items()}
    for policy in ("average", "worst", "best"):
        a = rw.evaluate(qrels, run, BOUNDED, ties=policy).to_dict()
        b = rw.evaluate(qrels2, run2, BOUNDED, ties=policy).to_dict()
        for name in a:
            for query in a[name]:
                assert a[name][query] == pytest.approx(b[name][query], abs=1e-12)


def test_constant_scorer_gets_no_credit_for_lucky_docnos() -> None:
    qrels = {"q": {"zz": 1}}
    run = {"q": {f"d{i}": 0.0 for i in range(9)} | {"zz": 0.0}}
    assert rw.evaluate(qrels, run, ["mrr@10"])["mrr@10"][0] == 1.0  # trec: 'zz' sorts first
    average = rw.evaluate(qrels, run, ["mrr@10"], ties="average")
    assert average["mrr@10"][0] == pytest.approx(sum(1 / r for r in range(1, 11)) / 10)
    report = average.ties
    assert report.queries_mixed == 1
    assert report.bounds["mrr@10"] == (pytest.approx(0.1), 1.0)
    assert report.changed_digits() == ["mrr@10"]


def test_queries_tied_counts_each_query_once() -> None:
    """a: a relevant and a non-relevant document tied (inside the cutoff); b: two relevant
    documents tied across the cutoff 2; c: both; d: no tie. The guide said 1 (a review)."""
    qrels = {"a": {"r": 1, "n": 0}, "b": {"r1": 1, "r2": 1, "r3": 1},
             "c": {"r1": 1, "n": 0, "r2": 1}, "d": {"r": 1}}
    run = {"a": {"r": 1.0, "n": 1.0, "x": 0.5},
           "b": {"r1": 3.0, "r2": 2.0, "r3": 2.0},
           "c": {"r1": 3.0, "n": 2.0, "r2": 2.0},
           "d": {"r": 1.0}}
    report = rw.evaluate(qrels, run, ["P@2"]).ties
    assert (report.queries_mixed, report.queries_straddling_cutoff) == (2, 2)
    assert report.queries_tied == 3
    assert rw.evaluate(qrels, {"d": {"r": 1.0}}, ["P@2"]).ties.queries_tied == 0


def test_sklearn_tie_averaging_still_matches() -> None:
    from sklearn.metrics import ndcg_score

    y_true = [[3, 2, 3, 0, 1, 2]]
    y_score = [[0.5, 0.5, 0.2, 0.2, 0.2, 0.9]]
    qrels = {"q": {f"d{i}": g for i, g in enumerate(y_true[0])}}
    run = {"q": {f"d{i}": s for i, s in enumerate(y_score[0])}}
    got = rw.evaluate(qrels, run, ["ndcg@4(gain=linear)"], ties="average")
    assert got["ndcg@4(gain=linear)"][0] == pytest.approx(
        ndcg_score(y_true, y_score, k=4), abs=1e-12
    )


def test_rank_policy_uses_the_rank_column(tmp_path) -> None:
    path = tmp_path / "run"
    path.write_text("q Q0 a 2 1.0 r\nq Q0 b 1 1.0 r\n")
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    assert rw.evaluate(tmp_path / "qrels", path, ["mrr"])["mrr"][0] == 0.5  # docno desc: b, a
    assert rw.evaluate(tmp_path / "qrels", path, ["mrr"], ties="rank")["mrr"][0] == 0.5
    path.write_text("q Q0 a 1 1.0 r\nq Q0 b 2 1.0 r\n")
    assert rw.evaluate(tmp_path / "qrels", path, ["mrr"], ties="rank")["mrr"][0] == 1.0
    with pytest.raises(InvalidParameterError, match="rank column"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["mrr"], ties="rank")


def test_unsupported_measures_and_policies_are_named() -> None:
    with pytest.raises(UnsupportedMeasureError, match="'bpref' has no exact expected value"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["bpref"], ties="average")
    with pytest.raises(InvalidParameterError, match="ties must be one of"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map"], ties="random")
