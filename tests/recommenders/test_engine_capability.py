"""The recommender capability of an engine (issue 34, step 2): asked, never the engine's name.

A toy engine (``tests/toy_recommender_engine.py``) registered by one line in
``rankwise.engines.ENGINES`` declares ``Capabilities.recommenders``;
``evaluate_recommendations`` and ``compare_recommendations`` then hand it
the evaluation, and the comparison's one catalogue, with no edit to either.
"""

from __future__ import annotations

import pytest
import toy_recommender_engine as toy

import rankwise as rw
from rankwise.engines import ENGINES, RecommenderPass, engine_class, get_engine
from rankwise.recommenders.front import recommender_pass

HELD = {"user": [1, 2, 3], "item": ["a", "b", "c"]}
MODELS = {"x": {1: ["a", "b"], 2: ["b", "a"], 3: ["a", "b"]},
          "y": {1: ["c"], 2: ["b"], 3: ["c"]}}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINES, "rectoy", "toy_recommender_engine:RecommenderToyEngine")
    toy.CALLS.clear()


def test_the_engines_declare_the_capability() -> None:
    assert recommender_pass(get_engine("numpy")) is None
    spark_pass = recommender_pass(engine_class("spark")())
    assert isinstance(spark_pass, RecommenderPass)
    assert type(spark_pass).__module__ == "rankwise.recommenders.spark"


def test_evaluate_recommendations_hands_the_evaluation_to_the_engine(registered: None) -> None:
    # by hand: user 1 has a first, user 2 b, user 3 a (held out c): P@1 = 2/3
    result = rw.evaluate_recommendations(HELD, MODELS["x"], ["P@1"], engine="rectoy")
    assert result.mean == {"P@1": pytest.approx(2 / 3)}
    assert [(call, type(engine).__name__) for call, engine in toy.CALLS] == [
        ("evaluate", "RecommenderToyEngine")]


def test_compare_recommendations_takes_the_engine_s_one_catalogue(registered: None) -> None:
    result = rw.compare_recommendations(HELD, MODELS, ["P@1", "coverage@1"], engine="rectoy",
                                        seed=0)
    assert toy.CALLS[0] == ("catalogue", ["x", "y"])
    assert [call for call, _ in toy.CALLS[1:]] == ["evaluate", "evaluate"]
    # by hand, over the toy's 8 items: x recommends a and b first, y c and b
    assert result.whole_set == {"x": {"coverage@1": 2 / 8}, "y": {"coverage@1": 2 / 8}}
    assert any("the 8 items of the training and test tables" in line
               for line in result.assumptions)


def test_without_the_capability_the_evaluation_stays_in_this_process() -> None:
    result = rw.compare_recommendations(HELD, MODELS, ["coverage@1"], seed=0)
    # the items of the held-out table and both models' lists: a, b, c
    assert result.whole_set == {"x": {"coverage@1": 2 / 3}, "y": {"coverage@1": 2 / 3}}
