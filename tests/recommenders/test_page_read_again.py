"""The figures read again from the models (no keeper): graded and 2-D recommendations.

The curves at k must equal the comparison's own recall@k, which the
evaluation computes from the same inputs.
"""

from __future__ import annotations

import numpy as np

import rankwise as rw
from rankwise.recommenders.page_data import page_figures


def test_curves_read_again_take_the_grades_of_the_relevance_column():
    # relevant: grade >= 1 (user 1: a; user 2: c); 'rating' holds other numbers
    held_out = {"user": [1, 1, 2, 2], "item": ["a", "b", "c", "d"],
                "grade": [2, 0, 1, 0], "rating": [0, 5, 0, 5]}
    models = {"x": {1: ["a", "b"], 2: ["c", "d"]}, "y": {1: ["b", "a"], 2: ["d", "c"]}}
    result = rw.compare_recommendations(held_out, models, ["recall@1", "recall@2"], seed=0,
                                        relevance="grade")
    _, curves = page_figures(result, held_out, models)
    # by hand: x finds a and c at 1; y finds them at 2 (by 'rating': the other way round)
    assert curves.values["recall@k"]["x"].tolist() == [1.0, 1.0]
    assert curves.values["recall@k"]["y"].tolist() == [0.0, 1.0]
    for name in models:
        assert curves.values["recall@k"][name].tolist() == [
            result.results[name].mean["recall@1"], result.results[name].mean["recall@2"]]


def test_curves_read_again_know_the_users_of_a_2d_array():
    held_out = {"user": [10, 20], "item": [7, 8]}
    models = {"x": np.array([[7, 1], [2, 8]]), "y": np.array([[1, 7], [8, 2]])}
    result = rw.compare_recommendations(held_out, models, ["recall@1", "recall@2"], seed=0,
                                        users=[10, 20])
    _, curves = page_figures(result, held_out, models, users=[10, 20])
    # by hand: x: user 10 finds 7 at 1, user 20 finds 8 at 2; y the other way round
    assert curves.values["recall@k"]["x"].tolist() == [0.5, 1.0]
    assert curves.values["recall@k"]["y"].tolist() == [0.5, 1.0]
