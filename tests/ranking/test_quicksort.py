"""numba's quicksort order (how ranx orders tied documents), with and without the C module.

The truth is numba's own ``np.argsort`` (kind "quicksort"), run where numba is
installed (it comes with ranx); the C module and the numpy steps must give
its order, and each other's, on every input.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.ranking._quicksort import SMALL, quicksort_order, ranx_positions

# numba 0.68's np.argsort(np.zeros(n)) for n = 16 and n = 20 (run with numba)
NUMBA_ZEROS = {
    16: [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15],
    20: [18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 19],
}


def _segments(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    sizes = draw(st.lists(st.integers(0, 80), min_size=1, max_size=6))
    levels = draw(st.integers(1, 6))
    values = draw(st.lists(st.integers(0, levels - 1), min_size=sum(sizes),
                           max_size=sum(sizes)))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    return np.array(values, dtype=np.float64) / 2, starts


@st.composite
def segments(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    return _segments(draw)


def _by_steps(values: np.ndarray, starts: np.ndarray, order: np.ndarray | None,
              monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    with monkeypatch.context() as patch:
        patch.setenv("RANKWISE_NO_C", "1")
        return quicksort_order(values, starts, order)


@pytest.mark.parametrize("n", sorted(NUMBA_ZEROS))
def test_equal_keys_as_numba_orders_them(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    zeros = np.zeros(n)
    assert quicksort_order(zeros, np.array([0])).tolist() == NUMBA_ZEROS[n]
    assert _by_steps(zeros, np.array([0]), None, monkeypatch).tolist() == NUMBA_ZEROS[n]


def test_up_to_small_the_order_is_stable() -> None:
    values = np.array([1.0, 0.0, 1.0, 0.0] * 3 + [2.0, 1.0, 1.0])  # 15: insertion sort
    assert len(values) == SMALL
    assert quicksort_order(values, np.array([0])).tolist() == np.argsort(
        values, kind="stable").tolist()


@settings(max_examples=300, deadline=None)
@given(segments(), st.booleans())
def test_the_c_module_and_the_numpy_steps_agree(data: tuple, twice: bool) -> None:
    values, starts = data
    with pytest.MonkeyPatch.context() as patch:
        native = quicksort_order(values, starts)
        if twice:
            native = quicksort_order(values, starts, native)
        patch.setenv("RANKWISE_NO_C", "1")
        steps = quicksort_order(values, starts)
        if twice:
            steps = quicksort_order(values, starts, steps)
    assert native.tolist() == steps.tolist()
    # a sort all the same: each segment's values ascending, each index once
    ends = np.append(starts[1:], len(values))
    for start, end in zip(starts, ends):
        part = native[start:end]
        assert sorted(part.tolist()) == list(range(start, end))
        assert (np.diff(values[part]) >= 0).all()


def test_ranx_positions_key_long_queries_only() -> None:
    codes = np.array([0] * 20 + [1] * 3, dtype=np.int64)
    scores = np.ones(23)
    # query 0 (20 rows): its place in numba's order; query 1 (3 rows): the row itself
    assert ranx_positions(codes, scores, np.array([0, 19, 20, 22])).tolist() == [18, 19, 20, 22]
    twice = [NUMBA_ZEROS[20][i] for i in NUMBA_ZEROS[20]]  # the same sort on its own result
    place = np.empty(20, dtype=np.int64)
    place[twice] = np.arange(20)
    assert ranx_positions(codes, scores, np.arange(20), passes=2).tolist() == place.tolist()


@pytest.mark.slow
def test_against_numba_on_thousands_of_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    numba = pytest.importorskip("numba")

    @numba.njit(cache=False)
    def argsort(values: np.ndarray) -> np.ndarray:  # numba's default kind: its quicksort
        return np.argsort(values)

    rng = np.random.default_rng(33)
    compared = 0
    for _ in range(40):
        sizes = rng.integers(0, 400, size=50)
        values = np.concatenate([
            rng.integers(0, int(rng.integers(1, 8)), size=s).astype(np.float64)
            * float(rng.choice([1.0, -0.5])) for s in sizes])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        once = quicksort_order(values, starts)
        again = quicksort_order(values, starts, once)
        assert once.tolist() == _by_steps(values, starts, None, monkeypatch).tolist()
        assert again.tolist() == _by_steps(values, starts, once, monkeypatch).tolist()
        for start, size in zip(starts, sizes):
            part = values[start:start + size]
            first = argsort(part)
            assert (once[start:start + size] - start).tolist() == first.tolist()
            second = first[argsort(part[first])]
            assert (again[start:start + size] - start).tolist() == second.tolist()
            compared += 2
    assert compared == 4000
