"""pandas frames of number columns to Arrow without pyarrow's from_pandas (issue 40).

A frame whose columns are all numpy integers, booleans, float32 or float64
(a model's ``user, item, score``) becomes an Arrow table column by column,
each column's buffer as it is: no pass of pyarrow over every float to find
NaN (one numpy pass instead) and no thread pool. The table is the one
``pyarrow.Table.from_pandas`` makes (pyarrow is the reference here): NaN is a
null, as pandas means it. Other frames still go to ``from_pandas``. Scores are
checked finite with one pass (their sum) unless the sum is not finite.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.pandas_compat
import pytest

import rankwise as rw
from rankwise.exceptions import InputFormatError
from rankwise.io.frames import numbers_of_table, to_arrow_table


def _numeric_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "user": np.array([3, 1, 2, 2], dtype=np.int64),
        "item": np.array([7, 8, 9, 10], dtype=np.int32),
        "small": np.array([1, -2, 3, 4], dtype=np.int8),
        "big": np.array([2**63, 1, 0, 5], dtype=np.uint64),
        "flag": np.array([True, False, True, True]),
        "score": np.array([0.5, np.nan, -1.25, np.inf]),
        "half": np.array([1.5, 2.0, np.nan, 0.0], dtype=np.float32),
    }, index=[10, 11, 12, 13])


def _plain(frame: pd.DataFrame, column: str) -> list[Any]:
    """The column's values in Python, NaN as None (what pandas' NaN means)."""
    return [None if isinstance(v, float) and math.isnan(v) else v
            for v in frame[column].tolist()]


def _converted(frame: pd.DataFrame) -> tuple[pa.Table | None, int]:
    """The frame as to_arrow_table converts it (None: its error), and how many times it
    asked pyarrow's from_pandas (whose work is pandas_compat.dataframe_to_arrays)."""
    calls = []
    original = pyarrow.pandas_compat.dataframe_to_arrays

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pyarrow.pandas_compat, "dataframe_to_arrays", spy)
        try:
            table = to_arrow_table(frame)
        except InputFormatError:
            table = None  # a frame Arrow cannot hold: from_pandas's error, as before
    return table, len(calls)


def test_a_frame_of_numbers_is_not_handed_to_from_pandas() -> None:
    frame = _numeric_frame()
    reference = pa.Table.from_pandas(frame, preserve_index=False)
    converted, calls = _converted(frame)
    assert calls == 0 and converted is not None
    table = converted
    table = to_arrow_table(frame)
    assert table.column_names == list(frame.columns)
    assert table.schema.types == reference.schema.types  # pyarrow's own types
    for name in frame.columns:
        assert table.column(name).to_pylist() == _plain(frame, name), name
    assert table.column("score").null_count == 1 and table.column("half").null_count == 1


def test_the_columns_are_read_in_place() -> None:
    frame = pd.DataFrame({"user": np.arange(5, dtype=np.int64), "score": np.linspace(0, 1, 5)})
    table = to_arrow_table(frame)
    for name in ("user", "score"):
        chunk = table.column(name).chunk(0)
        assert chunk.buffers()[1].address == frame[name].to_numpy().ctypes.data, name


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"user": [1, 2], "item": ["a", "b"]}),  # text
    pd.DataFrame({"user": pd.array([1, None], dtype="Int64"), "item": [1, 2]}),  # nullable
    pd.DataFrame({"user": pd.Categorical([1, 2]), "item": [1, 2]}),
    pd.DataFrame({0: [1, 2], 1: [3, 4]}),  # names that are not text
    pd.DataFrame({"t": pd.to_datetime(["2020-01-01", "2020-01-02"])}),
    pd.DataFrame({"x": np.array([1.0, 2.0], dtype=np.float16)}),
], ids=["text", "nullable", "categorical", "int-names", "datetime", "float16"])
def test_other_frames_are_converted_by_from_pandas(frame: pd.DataFrame) -> None:
    table, calls = _converted(frame)
    assert calls >= 1
    if table is not None:
        assert table.equals(pa.Table.from_pandas(frame, preserve_index=False))


def test_a_nan_score_in_a_frame_is_a_missing_score() -> None:
    # NaN in a pandas float column is a null in Arrow: the error says missing, as before
    frame = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [1.0, np.nan, 0.5]})
    test = pd.DataFrame({"user": [1, 2], "item": [1, 3]})
    with pytest.raises(InputFormatError, match=r"row 2: score is missing \(null\)"):
        rw.evaluate_recommendations(test, frame, ["P@1"])
    with pytest.raises(InputFormatError, match=r"row 3: score must be a finite number, got inf"):
        rw.evaluate_recommendations(test, frame.assign(score=[1.0, 0.5, np.inf]), ["P@1"])


@pytest.mark.parametrize(("values", "row", "bad"), [
    ([1.0, np.inf, -np.inf], 2, "inf"),  # the sum is NaN
    ([np.nan, 1.0], 1, "nan"),
    ([2.0, 3.0, -np.inf], 3, "-inf"),
    ([1e308, 1e308, np.inf], 3, "inf"),  # the sum overflows before the infinity
])
def test_a_score_not_finite_is_found_at_its_row(values: list[float], row: int, bad: str
                                                 ) -> None:
    table = pa.table({"score": pa.array(values, type=pa.float64(), from_pandas=False)})
    with pytest.raises(InputFormatError, match=rf"row {row}: score must be a finite number, "
                                               rf"got {bad}$"):
        numbers_of_table(table, "score", "score", "recommendations")


def test_finite_scores_whose_sum_overflows_are_read_without_a_warning() -> None:
    values = [1e308, 1e308, -5.0, 1e308]
    table = pa.table({"score": pa.array(values, type=pa.float64())})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = numbers_of_table(table, "score", "score", "recommendations")
    assert got.tolist() == values
