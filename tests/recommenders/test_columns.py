"""Which column plays which role: one rule for Arrow tables and Spark frames (column_named)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from rankwise.exceptions import InputFormatError
from rankwise.recommenders.inputs import ROLES, column_named, find_column


def test_the_column_map_wins_then_the_usual_names_in_order() -> None:
    names = ["userId", "uid", "item"]
    assert column_named(names, "user", {"user": "uid"}, "test") == "uid"
    assert column_named(names, "user", None, "test") == ROLES["user"][
        min(ROLES["user"].index(n) for n in ("userId", "uid"))]
    # a map naming a column this table lacks falls back to the usual names
    assert column_named(names, "user", {"user": "customer"}, "test") in ("userId", "uid")


def test_missing_columns_are_said_with_what_was_looked_for() -> None:
    with pytest.raises(InputFormatError, match=r"test: no user column \(looked for \[") as error:
        column_named(["item"], "user", None, "test")
    assert "columns are ['item']" in str(error.value)
    with pytest.raises(InputFormatError, match="names no column") as error:
        column_named(["custmer", "item"], "user", {"user": "customer"}, "test")
    assert str(error.value).endswith("did you mean 'custmer'?")
    assert column_named(["item"], "rank", None, "test", required=False) is None


def test_arrow_tables_follow_the_same_rule() -> None:
    table = pa.table({"uid": [1], "item": ["a"]})
    assert find_column(table, "user", None, "test") == "uid"
    with pytest.raises(InputFormatError, match="no score column"):
        find_column(table, "score", None, "test")
