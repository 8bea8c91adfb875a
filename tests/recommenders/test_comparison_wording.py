"""Recommender comparisons name their units users, everywhere (issue 37).

:func:`rankwise.comparison.compare_values` is the statistics of ``compare``
for every front door; its notes and legend said "queries" even when the ids
were a recommender's users. Its ``unit`` names them; the recommender
comparison passes ``unit="user"``, so its notes, its text, its table and its
report say users.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import compare_values
from rankwise.exceptions import InvalidParameterError
from rankwise.options import CompareOptions

HELD_OUT = {"user": [1, 2, 3, 4], "item": ["a", "b", "c", "a"]}
# y has a list for user 4, x does not: the pair is compared on users 1-3
MODELS = {"x": {1: ["a"], 2: ["b"], 3: ["c"]}, "y": {1: ["b"], 2: ["b"], 3: ["c"], 4: ["a"]}}
QUERY = re.compile(r"quer(y|ies)", re.IGNORECASE)


@pytest.mark.parametrize("test", ["t-test", "randomization", "randomized-tukey"])
def test_recommender_notes_text_and_report_say_users(test: str) -> None:
    result = rw.compare_recommendations(HELD_OUT, MODELS, ["P@1", "recall@1"], baseline="x",
                                        seed=0, test=test, n_resamples=200)
    notes = " ".join(result.comparison.notes)
    # 3 users have a list of both models; user 4 only y's (counted by hand)
    assert "compared on the 3 users evaluated for" in notes
    assert "1 evaluated for only" in notes
    assert "a held-out user a model has no list for" in notes
    page = re.sub(r"<style>.*?</style>|<[^>]+>", " ", result.to_html(), flags=re.DOTALL)
    for text in (notes, result.comparison.legend, result.to_table("table"),
                 result.to_table("markdown"), page):
        found = QUERY.search(text)
        assert found is None, text[max(found.start() - 200, 0):found.end() + 50]
    if test == "randomized-tukey":
        assert "shuffling each user's values" in result.comparison.legend


def test_compare_values_says_queries_by_default_and_users_when_asked() -> None:
    ids = np.array([1, 2, 3, 4])
    data = {"a": (ids, np.array([[0.5], [0.2], [0.9], [0.1]])),
            "b": (ids[:3], np.array([[0.4], [0.1], [0.7]]))}
    options = CompareOptions(test="t")
    search = compare_values(data, ["ndcg@10"], options, baseline="a")
    users = compare_values(data, ["ndcg@10"], options, baseline="a", unit="user")
    assert any("compared on the 3 queries evaluated for both" in n for n in search.notes)
    assert any("compared on the 3 users evaluated for both" in n for n in users.notes)
    assert not any(QUERY.search(n) for n in users.notes)
    # the numbers do not depend on the words
    assert users.row("ndcg@10", "b").p_value == search.row("ndcg@10", "b").p_value


def test_compare_values_refuses_an_unknown_unit() -> None:
    ids = np.array([1, 2])
    data = {"a": (ids, np.array([[0.5], [0.2]])), "b": (ids, np.array([[0.4], [0.1]]))}
    with pytest.raises(InvalidParameterError, match="unit must be one of 'query', 'user', "
                                                    "got 'item'"):
        compare_values(data, ["ndcg@10"], CompareOptions(test="t"), baseline="a", unit="item")
