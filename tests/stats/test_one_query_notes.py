"""One compared query: the notes say what the row holds (they said p = 1 beside p = NaN)."""

from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import compare_values

ZERO = "m: b vs a: the one difference is zero; p = 1"


@pytest.mark.parametrize(("test", "p_value", "note"), [
    ("t", None, "b vs a: the t-test needs at least 2 queries; p is NaN"),
    ("bootstrap", None, "b vs a: the bootstrap needs at least 2 queries; p is NaN"),
    ("randomization", 1.0, ZERO), ("wilcoxon", 1.0, ZERO), ("sign", 1.0, ZERO),
])
def test_one_identical_query(test: str, p_value: float | None, note: str) -> None:
    data = {"a": (np.array([1]), np.array([[0.5]])), "b": (np.array([1]), np.array([[0.5]]))}
    result = compare_values(data, ["m"], rw.CompareOptions(test=test), baseline="a")
    row = result.rows[1]
    assert np.isnan(row.effect_size)
    assert result.notes == (note,)
    if p_value is None:
        assert np.isnan(row.p_value)
    else:
        assert row.p_value == p_value
