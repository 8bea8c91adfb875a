"""find_strings (the C join of run documents with judged documents) against pyarrow's index_in."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.ranking import _join

pytestmark = pytest.mark.skipif(_join._cjoin is None, reason="the C join is not built")

IDS = st.one_of(
    st.sampled_from(["", "d", "d1", "d10", "d1\x00", "exactly8", "nine char", "\u00e9\u00e9"]),
    st.text(max_size=20),
)


def expected(column: pa.ChunkedArray, values: pa.Array) -> tuple[list[int], list[int]]:
    rows, codes = _join._index_in(column, values)
    return rows.tolist(), codes.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(IDS, max_size=30), min_size=1, max_size=5),
    st.lists(IDS, max_size=30),
    st.integers(0, 3),
    st.integers(1, 3),
)
def test_same_matches_as_index_in(chunks: list[list[str]], values: list[str], cut: int,
                                  rows_per_thread: int) -> None:
    # sliced chunks and values: Arrow arrays whose offset is not 0
    arrays = [pa.array(["pad"] * cut + chunk, pa.string()).slice(cut) for chunk in chunks]
    column = pa.chunked_array(arrays, type=pa.string())
    wanted = pa.array(["pad"] * cut + values, pa.string()).slice(cut)
    _join._ROWS_PER_THREAD, saved = rows_per_thread, _join._ROWS_PER_THREAD
    try:
        rows, codes = _join.find_strings(column, wanted)
    finally:
        _join._ROWS_PER_THREAD = saved
    assert (rows.tolist(), codes.tolist()) == expected(column, wanted)
    assert rows.dtype == np.int64 and codes.dtype == np.int64


def test_a_value_given_twice_matches_its_first_index() -> None:
    rows, codes = _join.find_strings(pa.chunked_array([["b", "a", "c"]]), pa.array(["a", "b", "a"]))
    assert (rows.tolist(), codes.tolist()) == ([0, 1], [1, 0])


def test_many_values_and_rows_over_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_join, "_ROWS_PER_THREAD", 1000)
    rng = np.random.default_rng(3)
    docs = [f"doc{n}" for n in rng.integers(0, 50_000, size=20_000)]
    column = pa.chunked_array([docs[i:i + 3000] for i in range(0, 20_000, 3000)])
    values = pa.array([f"doc{n}" for n in range(0, 50_000, 7)])
    rows, codes = _join.find_strings(column, values)
    assert (rows.tolist(), codes.tolist()) == expected(column, values)
    assert len(rows) > 2000


def test_an_empty_column() -> None:
    rows, codes = _join.find_strings(pa.chunked_array([], type=pa.string()), pa.array(["a"]))
    assert rows.tolist() == codes.tolist() == []


def test_large_strings_take_the_arrow_path() -> None:
    column = pa.chunked_array([pa.array(["a", "b"], pa.large_string())])
    rows, codes = _join.find_strings(column, pa.array(["b"]))
    assert (rows.tolist(), codes.tolist()) == ([1], [0])


def test_a_string_column_and_an_arrow_column_agree() -> None:
    from rankwise.data._strings import StringColumn

    docs = ["d3", "d1", "", "d1", "a-long-document-id-9"]
    wanted = ["d1", "a-long-document-id-9", "zz"]
    arrow = _join.find_strings(pa.chunked_array([docs]), pa.array(wanted))
    native = _join.find_strings(StringColumn.from_strings(docs), StringColumn.from_strings(wanted))
    assert [a.tolist() for a in arrow] == [a.tolist() for a in native] == [[1, 3, 4], [0, 0, 1]]


def test_the_c_module_checks_its_buffers() -> None:
    from rankwise.data._strings import string_chunks

    values = string_chunks(pa.chunked_array([["a"]]))[0].as_buffers()
    short = (5, values[1], values[2], 0)  # says 5 strings, holds 1
    out = np.empty(5, np.int64), np.empty(5, np.int32)
    with pytest.raises(ValueError, match="offsets buffer too short"):
        _join._cjoin.find([short], values, *out)
    with pytest.raises(ValueError, match="fewer entries than rows"):
        _join._cjoin.find([values], values, np.empty(0, np.int64), np.empty(0, np.int32))


def test_ids_that_differ_only_past_their_16th_byte() -> None:
    # the slots keep a value's first 16 bytes: the rest is compared from the value itself
    head = "0123456789abcdef"
    values = pa.array([head + "x", head, head + "xyz", head + "y" * 40])
    column = pa.chunked_array([[head + "y", head + "xyz", head + "x", head + "y" * 40, head + "",
                                head + "y" * 39 + "z"]])
    rows, codes = _join.find_strings(column, values)
    assert (rows.tolist(), codes.tolist()) == ([1, 2, 3, 4], [2, 0, 3, 1])


@settings(max_examples=200, deadline=None)
@given(st.lists(IDS, max_size=30), st.lists(st.lists(IDS, max_size=12), min_size=2, max_size=5),
       st.integers(0, 3))
def test_values_in_several_chunks_match_as_one(column_ids: list[str], value_chunks: list[list[str]],
                                               cut: int) -> None:
    """Values in several (sliced, possibly empty) chunks: joined into one for the C module."""
    from rankwise.data._strings import StringColumn

    column = pa.chunked_array([column_ids], type=pa.string())
    arrays = [pa.array(["pad"] * cut + chunk, pa.string()).slice(cut) for chunk in value_chunks]
    values = pa.chunked_array(arrays, type=pa.string())
    truth = expected(column, values.combine_chunks())
    rows, codes = _join.find_strings(column, values)
    assert (rows.tolist(), codes.tolist()) == truth
    in_pieces = StringColumn.from_buffers([
        (len(chunk), *StringColumn.from_strings(chunk).chunks[0].as_buffers()[1:3])
        for chunk in value_chunks if chunk])
    if len(in_pieces):
        rows, codes = _join.find_strings(StringColumn.from_strings(column_ids), in_pieces)
        assert (rows.tolist(), codes.tolist()) == truth
