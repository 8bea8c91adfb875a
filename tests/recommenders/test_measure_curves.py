"""Measure@k curves of the recommender report (issue 37): every cutoff from one pass.

The curves are checked against Microsoft Recommenders 1.2.1's own numbers
at k = 1..15 on its unit tests' fixtures (precision_at_k, recall_at_k,
ndcg_at_k, map: tests/recommenders/data), against hand computations (ties,
seen items excluded, a user without a list, users missing from the
evaluation), and, where RecBole is installed, against RecBole's per-k
metric code (tests/recommenders/test_against_recbole_live.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from recommenders_fixtures import COLS, FIX, ORACLE

import rankwise as rw
from rankwise.recommenders.at_k import curve_families, measure_curves
from rankwise.recommenders.page_data import page_figures

TOL = 1e-12


def test_curves_are_recommenders_numbers_at_every_k() -> None:
    grid = ORACLE["grid"]
    true_users = set(FIX["rating_true"]["userID"])
    both = sorted(true_users & set(FIX["rating_pred"]["userID"]))
    # Recommenders averages precision, recall and map over the users of both tables,
    # ndcg_at_k over every user of the truth (a user without predictions scores 0)
    skip = measure_curves(FIX["rating_true"], {"m": FIX["rating_pred"]}, {"m": both},
                          ["P", "recall", "map"], k=15, columns=COLS)
    zero = measure_curves(FIX["rating_true"], {"m": FIX["rating_pred"]},
                          {"m": sorted(true_users)}, ["ndcg"], k=15, columns=COLS)
    assert skip.cutoffs.tolist() == list(range(1, 16))
    for k in range(1, 16):
        assert skip.values["P@k"]["m"][k - 1] == pytest.approx(
            grid[f"precision_at_k|k={k}"], abs=TOL)
        assert skip.values["recall@k"]["m"][k - 1] == pytest.approx(
            grid[f"recall_at_k|k={k}"], abs=TOL)
        assert skip.values["map@k"]["m"][k - 1] == pytest.approx(grid[f"map|k={k}"], abs=TOL)
        assert zero.values["ndcg@k"]["m"][k - 1] == pytest.approx(
            grid[f"ndcg_at_k|k={k}"], abs=TOL)


def test_curves_by_hand_with_ties_exclusion_and_a_user_without_a_list() -> None:
    held_out = {"user": [1, 1, 1, 2, 3], "item": ["a", "b", "c", "d", "e"]}
    seen = {"user": [1], "item": ["x"]}
    recs = {"user": [1, 1, 1, 1, 2, 2], "item": ["x", "b", "y", "a", "z", "d"],
            "score": [9.0, 5.0, 5.0, 4.0, 3.0, 3.0]}  # b before y: tied, input row order
    # user 1 after x is excluded: b, y, a (R = 3); user 2: z, d (R = 1); user 3: no list
    curves = measure_curves(held_out, {"m": recs}, {"m": [1, 2, 3]}, list(
        ("ndcg", "recall", "P", "map", "mrr", "hit")), exclude=seen, k=3)
    log = math.log2
    ideal = [1.0, 1 + 1 / log(3), 1 + 1 / log(3) + 1 / log(4)]
    expected = {
        "P@k": [(1 + 0) / 3, (1 / 2 + 1 / 2) / 3, (2 / 3 + 1 / 3) / 3],
        "recall@k": [(1 / 3) / 3, (1 / 3 + 1) / 3, (2 / 3 + 1) / 3],
        "hit@k": [1 / 3, 2 / 3, 2 / 3],
        "mrr@k": [1 / 3, (1 + 1 / 2) / 3, (1 + 1 / 2) / 3],
        "map@k": [(1 / 3) / 3, (1 / 3 + 1 / 2) / 3, ((1 + 2 / 3) / 3 + 1 / 2) / 3],
        "ndcg@k": [1 / 3, (1 / ideal[1] + (1 / log(3)) / 1) / 3,
                   ((1 + 1 / log(4)) / ideal[2] + 1 / log(3)) / 3],
    }
    for label, values in expected.items():
        np.testing.assert_allclose(curves.values[label]["m"], values, rtol=0, atol=TOL,
                                   err_msg=label)
    # the users averaged over are the evaluation's: without user 3 (missing="skip")
    skipped = measure_curves(held_out, {"m": recs}, {"m": [1, 2]}, ["hit"], exclude=seen, k=3)
    np.testing.assert_allclose(skipped.values["hit@k"]["m"], [1 / 2, 1, 1], rtol=0, atol=TOL)


def test_only_plain_accuracy_measures_have_curves() -> None:
    assert curve_families(["recall@50", "ndcg@10", "novelty", "gini@10", "success@5",
                           "ndcg@10(gain=linear)", "map@10(dialect=recommenders)"]) == [
        "ndcg", "recall", "hit"]
    assert curve_families(["ndcg@10", "P@5"], graded=True) == ["P"]
    assert curve_families(["coverage", "arp@10"]) == []


def test_a_comparison_s_curves_follow_its_options() -> None:
    held_out = {"user": [1, 1, 2], "item": ["a", "b", "c"]}
    models = {"x": {1: ["s", "a", "b"], 2: ["c"]}, "y": {1: ["b", "s", "a"]}}
    train = {"user": [1], "item": ["s"]}
    result = rw.compare_recommendations(held_out, models, ["recall@2", "coverage"], seed=0,
                                        exclude=train, k=2, missing="zero")
    tail, curves = page_figures(result, held_out, models, exclude=train)
    assert curves is not None and tail is not None and list(curves.values) == ["recall@k"]
    assert curves.cutoffs.tolist() == [1, 2]
    # s excluded: x lists a, b for user 1 and c for user 2; y lists b, a for user 1 and
    # nothing for user 2 (missing="zero": 0)
    np.testing.assert_allclose(curves.values["recall@k"]["x"], [(1 / 2 + 1) / 2, 1.0])
    np.testing.assert_allclose(curves.values["recall@k"]["y"], [(1 / 2) / 2, 1 / 2])
    only_whole = rw.compare_recommendations(held_out, models, ["coverage"], seed=0)
    assert page_figures(only_whole, held_out, models) == (None, None)
    # the popularity bins of the training (s: the one trained item) and of each model's
    # cut lists: x recommends a, b, c and y b, a, none of them in training
    assert tail.labels == ["1", "not in training"]
    assert tail.training.tolist() == [1.0, 0.0]
    assert tail.models["x"].tolist() == [0.0, 1.0] and tail.items == {"x": 3, "y": 2}


def test_training_interactions_alone_are_popularity_not_exclusion() -> None:
    held_out = {"user": [1, 1], "item": ["a", "s"]}
    models = {"x": {1: ["s", "a"]}, "y": {1: ["a", "b"]}}
    train = {"user": [1, 2], "item": ["s", "s"]}
    # train= gives the popularity; without exclude= the seen item s stays in the list
    result = rw.compare_recommendations(held_out, models, ["P@1"], train=train, seed=0)
    tail, curves = page_figures(result, held_out, models, train=train)
    assert tail is not None and curves is not None
    assert tail.items == {"x": 2, "y": 2} and tail.models["x"].tolist() == [0.5, 0.5]
    assert curves.values["P@k"]["x"].tolist() == [1.0, 1.0]  # s then a, both held out
