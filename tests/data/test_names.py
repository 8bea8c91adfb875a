"""merge_codes and name_codes (data/_names.py), in C and in Python, against plain Python.

Names include the empty name, non-ASCII names, names that differ in one byte,
a lone surrogate (no UTF-8 text: the C module declines and Python answers) and
names that are not str.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankwise.data import _names

NAMES = st.one_of(st.sampled_from(["", "q", "q1", "q10", "\u00e9", "q\x00", "exactly8"]),
                  st.text(max_size=12))


@pytest.fixture(params=["C", "Python"])
def road(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "C" and _names._native() is None:
        pytest.skip("the C module is not built")
    monkeypatch.setenv("RANKWISE_NO_C", "0" if request.param == "C" else "1")
    return str(request.param)


def plain_merge(parts: list[tuple[list[str], np.ndarray]]) -> tuple[list[str], list[int]]:
    names: list[str] = []
    codes: list[int] = []
    for local_names, _ in parts:
        for name in local_names:
            if name not in names:
                names.append(name)
    for local_names, local in parts:
        codes.extend(names.index(local_names[code]) for code in local)
    return names, codes


def pieces(data: st.DataObject) -> list[tuple[list[str], np.ndarray]]:
    parts = []
    for local_names in data.draw(st.lists(st.lists(NAMES, max_size=8, unique=True), max_size=5)):
        codes = data.draw(st.lists(st.integers(0, max(len(local_names) - 1, 0)), max_size=10)
                          if local_names else st.just([]))
        parts.append((local_names, np.array(codes, dtype=np.int32)))
    return parts


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the env var stays
@given(st.data())
def test_merge_codes_as_plain_python(road: str, data: st.DataObject) -> None:
    parts = pieces(data)
    names, codes = _names.merge_codes(parts)
    expected_names, expected_codes = plain_merge(parts)
    assert names == expected_names
    assert codes.dtype == np.int32 and codes.tolist() == expected_codes


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the env var stays
@given(st.lists(NAMES, max_size=20), st.lists(NAMES, max_size=20))
def test_name_codes_as_plain_python(road: str, index: list[str], names: list[str]) -> None:
    got = _names.name_codes(index, names)
    assert got.dtype == np.int64
    assert got.tolist() == [index.index(name) if name in index else -1 for name in names]


@pytest.mark.parametrize("odd", ["\ud800", 7])
def test_names_the_c_module_declines_are_answered_all_the_same(road: str, odd: object) -> None:
    names, codes = _names.merge_codes([(["a", odd], np.array([1, 0], np.int32)),  # type: ignore[list-item]
                                       (["b", "a"], np.array([0, 1], np.int32))])
    assert (names, codes.tolist()) == (["a", odd, "b"], [1, 0, 2, 0])
    assert _names.name_codes(["a", odd], [odd, "b", "a"]).tolist() == [1, -1, 0]  # type: ignore[list-item]


def test_a_piece_whose_names_come_first_keeps_its_codes() -> None:
    local = np.array([1, 0, 1], np.int32)
    names, codes = _names.merge_codes([(["x", "y"], local)])
    assert names == ["x", "y"] and codes is local  # nothing remapped, nothing copied


def test_tuples_and_other_sequences_are_taken_as_lists(road: str) -> None:
    assert _names.name_codes(("a", "b"), ("b", "z")).tolist() == [1, -1]
    names, codes = _names.merge_codes([(("x", "y"), np.array([1, 0], np.int32)),
                                       (("y", "z"), np.array([1], np.int32))])
    assert (names, codes.tolist()) == (["x", "y", "z"], [1, 0, 2])
