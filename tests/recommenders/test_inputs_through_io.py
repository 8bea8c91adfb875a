"""Recommender tables are read by io's one dispatcher (``rankwise.io.coerce.as_table``).

So every table form io reads works for the recommenders too: named tuples
(ir_datasets' and ir_measures' records), table files, and pandas frames whose
bad column is named with its row. Values checked by hand.
"""

from __future__ import annotations

import math
from collections import namedtuple

import pandas as pd
import pytest

import rankwise as rw
from rankwise.exceptions import InputFormatError

TEST = {"user": [1, 1, 2], "item": ["a", "b", "b"]}
# by hand: user 1 gets a (hit), c, b (hit): P@1 1, ndcg@3 (1 + 1/2) / (1 + 1/log2(3));
# user 2 gets c, b (hit): P@1 0, ndcg@3 (1/log2(3)) / 1
EXPECTED = {"P@1": 0.5,
            "ndcg@3": ((1 + 1 / 2) / (1 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2}
ROWS = [(1, "a", 0.9), (1, "c", 0.5), (1, "b", 0.1), (2, "c", 0.8), (2, "b", 0.2)]


def _check(result: rw.RecommenderResults) -> None:
    assert result.users == [1, 2]
    for name, value in EXPECTED.items():
        assert result.mean[name] == pytest.approx(value, rel=1e-15), name


def test_named_tuples_are_a_table() -> None:
    Scored = namedtuple("Scored", "user item score")
    _check(rw.evaluate_recommendations(TEST, [Scored(*row) for row in ROWS], list(EXPECTED)))


def test_a_table_file_is_read_by_io(tmp_path: object) -> None:
    path = f"{tmp_path}/recs.parquet"
    pd.DataFrame(ROWS, columns=["user", "item", "score"]).to_parquet(path)
    _check(rw.evaluate_recommendations(TEST, path, list(EXPECTED)))


def test_a_frame_arrow_cannot_hold_names_its_row_and_column() -> None:
    frame = pd.DataFrame({"user": [1, "x"], "item": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InputFormatError, match=r"^recommendations: row 2: column 'user': 'x' "
                                               r"\(str\) does not fit with the values before "
                                               r"it \(int\)$"):
        rw.evaluate_recommendations(TEST, frame, ["P@1"])


def test_what_is_no_table_is_refused_with_the_same_words() -> None:
    with pytest.raises(InputFormatError, match=r"^test: expected a pandas, polars or Arrow "
                                               r"table or \{column: values\}, got int$"):
        rw.evaluate_recommendations(3, {1: ["a"]}, ["P@1"])
    with pytest.raises(InputFormatError, match=r"test: expected a table or \{column: values\} "
                                               r"of equal-length columns, got a dict"):
        rw.evaluate_recommendations({"user": [1, 2], "item": ["a"]}, {1: ["a"]}, ["P@1"])
