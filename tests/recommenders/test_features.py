"""Item features (ILD, the Recommenders' serendipity): every form, and bad vectors named.

Issue 33, item 23: vectors of different lengths gave numpy's "inhomogeneous
shape" ValueError; a table with a column of vectors failed the same way. The
expected ILD is computed by hand: vectors a = (1, 0), b = (0, 1), c = (1, 1),
every list holds the three, so ILD = mean(1 - cos) over the pairs
= (1 + 2 (1 - 1/sqrt(2))) / 3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise as rw

TEST = {"user": [1, 2], "item": ["a", "b"]}
LISTS = {1: ["a", "b", "c"], 2: ["b", "c", "a"]}
ILD = (1 + 2 * (1 - 1 / math.sqrt(2))) / 3


def _ild(features: object) -> float:
    return rw.evaluate_recommendations(TEST, LISTS, ["ild"], features=features).mean["ild"]


def test_every_form_of_features_gives_the_hand_computed_ild() -> None:
    import pandas as pd
    import pyarrow as pa
    from scipy import sparse

    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}
    matrix = np.array(list(vectors.values()))
    forms = [
        vectors,
        (list(vectors), matrix),
        (list(vectors), sparse.csr_matrix(matrix)),
        {"item": list(vectors), "vector": list(vectors.values())},  # columns, not items
        pa.table({"item": list(vectors), "vector": list(vectors.values())}),
        pa.table({"item": list(vectors), "vector": pa.array(list(vectors.values()),
                                                             pa.list_(pa.float64(), 2))}),
        pd.DataFrame({"item": list(vectors), "vector": list(matrix)}),
        pa.table({"item": list(vectors), "x": matrix[:, 0], "y": matrix[:, 1]}),
    ]
    for features in forms:
        assert _ild(features) == pytest.approx(ILD, abs=1e-15), type(features)


@pytest.mark.parametrize(("features", "message"), [
    ({"a": [1, 0], "b": [0, 1, 1], "c": [1, 1]},
     "features: item 'b' has a vector of 3 values, item 'a' one of 2: every vector has the "
     "same length"),
    ((["a", "b", "c"], [[1, 0], [0, 1, 1], [1, 1]]),
     "features: item 'b' has a vector of 3 values, item 'a' one of 2"),
    ({"a": [1, 0], "b": ["x", 1], "c": [1, 1]},
     "features: item 'b': expected a vector of numbers, got 'x' (str) in it"),
    ({"a": 1.0, "b": 2.0, "c": 3.0},
     "features: item 'a': expected a vector (a list or an array of numbers), got 1.0 (float)"),
    ({"a": [1, 0], "b": [0, 1], "c": [1, float("nan")]},
     "features: item 'c': expected finite numbers, got nan in its vector"),
    ({"item": ["a", "b", "c"], "vector": [[1, 0], [0, 1, 1], [1, 1]]},
     "features: row 2 (item 'b') has a vector of 3 values, row 1 (item 'a') one of 2: every "
     "vector has the same length"),
    ({"item": ["a", "b", "c"], "vector": [[1, 0], None, [1, 1]]},
     "features: row 2 (item 'b') has no vector (null) in column 'vector'"),
    ({"item": ["a", "b", "c"], "vector": [[1, 0], [0, None], [1, 1]]},
     "features: row 2 (item 'b'): expected a vector of numbers, got [0, None] in column "
     "'vector'"),
    ({"item": ["a", "b", "c"], "vector": [[1.0, 0], [0, 1], [1, math.inf]]},
     "features: row 3 (item 'c'): expected finite numbers, got inf in its vector"),
    ({"item": ["a", "b", "c"], "x": [1.0, None, 0], "y": [0.0, 1, 1]},
     "features: row 2: feature (column 'x') is missing (null)"),
])
def test_a_bad_vector_is_named(features: object, message: str) -> None:
    with pytest.raises(rw.RankwiseError) as error:
        _ild(features)
    assert message in str(error.value)
