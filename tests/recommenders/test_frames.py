"""Recommendation lists as a long frame: read in the order they come, sorted only when not.

A model writes its top-k grouped by user and best first; ``Lists.read`` checks
that in one pass (``rankwise.ranking._cpairs.order_lists``) and sorts only
rows that are not so, into the order of ``np.lexsort((key, user))`` (the
reference here); ties keep the row order. The values are those of a hand
computation and do not depend on how the rows come.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError
from rankwise.recommenders import evaluation
from rankwise.recommenders.inputs import Lists, Vocabulary, native_kernels, numbers_of


def _order_lists(users: np.ndarray, keys: np.ndarray | None, descending: bool,
                 n_users: int) -> tuple[int, np.ndarray, np.ndarray]:
    native = native_kernels()
    if native is None or not hasattr(native, "order_lists"):
        pytest.skip("the C module rankwise.ranking._cpairs is not built")
    order = np.empty(len(users), dtype=np.int64)
    ranks = np.empty(len(users), dtype=np.int32)
    status = native.order_lists(users, keys, descending, n_users, order, ranks)
    return status, order, ranks


def _ranks_of_runs(users: np.ndarray) -> np.ndarray:
    """1, 2, ... within each run of equal users, by a Python loop (the reference)."""
    out, rank = [], 0
    for n, user in enumerate(users.tolist()):
        rank = 1 if n == 0 or user != users[n - 1] else rank + 1
        out.append(rank)
    return np.array(out, dtype=np.int32)


@pytest.mark.parametrize("seed", range(40))
def test_order_lists_is_the_lexsort_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, n_users = int(rng.integers(0, 400)), int(rng.integers(1, 12))
    users = rng.integers(0, n_users, n).astype(np.int32)
    keys = (rng.integers(0, 3, n) / 2).astype(np.float64)  # ties, runs of more than 15
    if seed % 4 == 0:  # grouped by user, best first: nothing to sort
        users = np.sort(users)
        keys = np.sort(keys)[::-1].copy()
        keys = keys[np.argsort(users, kind="stable")]
    descending = seed % 2 == 0
    given = keys if seed % 5 else None
    status, order, ranks = _order_lists(users, given, descending, n_users)
    sort_key = np.zeros(n) if given is None else -keys if descending else keys
    expected = np.lexsort((sort_key, users))
    if status == 0:  # in order already: the lexsort only moves whole users
        grouped = users[expected]
        assert np.array_equal(np.sort(users, kind="stable"), grouped)
        assert np.array_equal(ranks, _ranks_of_runs(users))
    else:
        assert status == 1
        assert np.array_equal(order, expected)
        assert np.array_equal(ranks, _ranks_of_runs(users[order]))


def test_order_lists_finds_rows_in_order_and_refuses_bad_codes() -> None:
    users = np.array([2, 2, 0, 0, 0], dtype=np.int32)
    scores = np.array([0.9, 0.9, 0.5, 0.4, 0.4])
    status, _, ranks = _order_lists(users, scores, True, 3)
    assert status == 0 and ranks.tolist() == [1, 2, 1, 2, 3]
    status, order, ranks = _order_lists(users, scores[::-1].copy(), True, 3)  # worst first
    # by user code (0 first), then score descending, ties in row order
    assert status == 1 and order.tolist() == [3, 4, 2, 0, 1]
    assert ranks.tolist() == [1, 2, 3, 1, 2]
    status, order, _ = _order_lists(np.array([1, 0, 1], dtype=np.int32), None, True, 2)
    assert status == 1 and order.tolist() == [1, 0, 2]  # user 1 in two runs: grouped
    with pytest.raises(ValueError, match="out of range"):
        _order_lists(np.array([0, 5, 0], dtype=np.int32), None, True, 3)


def test_order_lists_finds_an_item_twice_in_a_list_in_the_same_pass() -> None:
    native = native_kernels()
    if native is None or not hasattr(native, "order_lists"):
        pytest.skip("the C module rankwise.ranking._cpairs is not built")
    users = np.array([2, 2, 0, 0], dtype=np.int32)
    order, ranks = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int32)
    for items, status in (([5, 6, 5, 6], 0),  # an item in two users' lists: no repeat
                          ([5, 6, 6, 6], 2)):  # user 0 has item 6 twice
        found = native.order_lists(users, None, True, 3, order, ranks,
                                   np.array(items, dtype=np.int32), 7)
        assert found == status and ranks.tolist() == [1, 2, 1, 2]
    with pytest.raises(ValueError, match="out of range"):
        native.order_lists(users, None, True, 3, order, ranks,
                           np.array([5, 6, 7, 6], dtype=np.int32), 7)


def test_a_frame_grouped_and_ordered_keeps_its_rows() -> None:
    users, items = Vocabulary("user"), Vocabulary("item")
    items.encode(["x"])
    frame = pd.DataFrame({"user": ["b", "b", "a", "a", "a"], "item": ["p", "q", "q", "r", "p"],
                          "score": [0.9, 0.9, 0.5, 0.4, 0.4]})
    lists = Lists.read(frame, users, items)
    # b (code 0) first as given; before, every list was sorted by user code
    assert users.labels().take(lists.users).to_pylist() == ["b", "b", "a", "a", "a"]
    assert items.labels().take(lists.items).to_pylist() == ["p", "q", "q", "r", "p"]
    assert lists.ranks.tolist() == [1, 2, 1, 2, 3]
    assert lists.users.dtype == lists.items.dtype == lists.ranks.dtype == np.int32


def test_the_score_column_is_read_in_place() -> None:
    import pyarrow as pa

    scores = np.linspace(1, 0, 1000)
    frame = pd.DataFrame({"user": np.repeat(np.arange(10), 100), "item": np.arange(1000),
                          "score": scores})
    table = pa.Table.from_pandas(frame, preserve_index=False)
    read = numbers_of(table, "score", "score", "recommendations")
    assert np.shares_memory(read, frame["score"].to_numpy())  # no copy of 8 bytes a row
    with pytest.raises(Exception, match=r"row 3: score must be a finite number, got nan"):
        numbers_of(pa.table({"score": [1.0, 0.5, float("nan")]}), "score", "score",
                   "recommendations")


def _ndcg(gains: list[int], relevant: int, k: int) -> float:
    dcg = sum(g / math.log2(n + 2) for n, g in enumerate(gains[:k]))
    return dcg / sum(1 / math.log2(n + 2) for n in range(min(relevant, k)))


def test_ties_keep_the_row_order_however_the_rows_come() -> None:
    # user 1: 20 items tied at 0.5 after one at 0.9; its relevant items are the 2nd and
    # 17th rows of the tie; user 2 has no list, user 3 no test interactions
    rows = [(1, "top", 0.9)] + [(1, f"t{n}", 0.5) for n in range(20)] + [
        (3, "a", 0.7), (3, "b", 0.1)]
    test = {"user": [1, 1, 1, 2], "item": ["t1", "t16", "gone", "a"]}
    frame = pd.DataFrame(rows, columns=["user", "item", "score"])
    # by hand: ranks 1 (top), 2.. 21 (t0..t19): t1 at rank 3, t16 at rank 18
    hits = [0] * 21
    hits[2] = hits[17] = 1
    expected = {"ndcg@20": _ndcg(hits, 3, 20), "P@10": 1 / 10, "recall@20": 2 / 3}
    shuffled = frame.sample(frac=1, random_state=0)  # sorted again: ties by row order lost
    regrouped = frame.iloc[[21, 22, *range(21)]]  # user 3 first, still in order
    for given in (frame, regrouped):
        r = rw.evaluate_recommendations(test, given, list(expected))
        assert r.users == [1]
        for name, value in expected.items():
            assert r.mean[name] == pytest.approx(value, rel=1e-15), name
    r = rw.evaluate_recommendations(test, shuffled, list(expected), missing="zero")
    assert r.users == [1, 2] and r.per_user["P@10"][1] == 0  # the tie order is the shuffle's


def test_a_repeated_pair_names_the_first_user_by_code() -> None:
    # users come z (code 0) after a (code 1) in the rows; both repeat an item: the
    # message names z's, as when every list was sorted by user code
    frame = pd.DataFrame({"user": ["a", "a", "z", "z"], "item": ["p", "p", "q", "q"],
                          "score": [2.0, 1.0, 2.0, 1.0]})
    with pytest.raises(DuplicateEntryError, match="item 'q' is recommended twice to user 'z'"):
        rw.evaluate_recommendations({"user": ["z", "a"], "item": ["q", "p"]}, frame, ["P@1"])


def test_the_engine_is_asked_for_its_capability_not_its_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.engines.numpy import NumpyEngine

    calls = []
    original = evaluation._accuracy_on_codes

    def spy(*args: object, **kw: object) -> object:
        calls.append(kw.get("engine"))
        return original(*args, **kw)

    monkeypatch.setattr(evaluation, "_accuracy_on_codes", spy)
    engine = NumpyEngine()
    r = rw.evaluate_recommendations({"user": [1, 2], "item": ["a", "b"]},
                                    {1: ["a", "c"], 2: ["c", "b"]}, ["P@1", "ndcg@2"],
                                    engine=engine)
    assert calls == [engine]  # an engine object with the capability: the integer path
    assert r.mean["P@1"] == 0.5
    assert r.mean["ndcg@2"] == pytest.approx((1 + 1 / math.log2(3)) / 2)


@pytest.mark.parametrize("many", [False, True])
def test_integer_ids_as_text_whichever_way_they_are_made(many: bool) -> None:
    # up to 2**16 ids through Python's str, more through an Arrow cast: the same text,
    # that of the ids as written (negative, int64's bounds)
    from rankwise.recommenders.inputs import _PYTHON_TEXTS

    ends = [-(2**63), 2**63 - 1, -1, 0, 10, 9]
    ids = np.array(ends + list(range(100, 100 + (_PYTHON_TEXTS if many else 10))),
                   dtype=np.int64)
    vocabulary = Vocabulary("user")
    vocabulary.encode(ids)
    codes = np.arange(len(ids))[::-1].copy()
    texts = vocabulary.text_list(codes)
    assert texts == [str(int(i)) for i in ids[::-1]]
    assert texts[-len(ends):] == ["9", "10", "0", "-1", "9223372036854775807",
                                  "-9223372036854775808"]
    assert vocabulary.ids(codes[:3]) == [int(i) for i in ids[::-1][:3]]


def test_a_column_map_with_a_typo_or_a_missing_score_column_is_an_error() -> None:
    """They ranked each list in row order, silently (P@1 0 where the scores give 1)."""
    import pandas as pd

    from rankwise.exceptions import InputFormatError, InvalidParameterError

    test = pd.DataFrame({"user": [1], "item": ["a"]})
    recs = pd.DataFrame({"user": [1, 1], "item": ["x", "a"], "pred_score": [0.2, 0.9]})
    assert rw.evaluate_recommendations(test, recs, ["P@1"],
                                       columns={"score": "pred_score"}).mean == {"P@1": 1.0}
    with pytest.raises(InvalidParameterError, match=r"unknown role 'scores'.*did you mean 'score'"):
        rw.evaluate_recommendations(test, recs, ["P@1"], columns={"scores": "pred_score"})
    with pytest.raises(InputFormatError, match=r"columns=\{'score': 'no_such'\} names no column"):
        rw.evaluate_recommendations(test, recs, ["P@1"], columns={"score": "no_such"})


def test_lists_of_mixed_ids_ragged_rows_and_empty_lists_are_read_or_refused_clearly() -> None:
    """numpy's and Arrow's own errors came through (ValueError, ArrowTypeError, ArrowInvalid)."""
    import pandas as pd

    from rankwise.exceptions import InputFormatError, InvalidParameterError

    test = pd.DataFrame({"user": [0, 1], "item": ["a", "c"]})
    with pytest.raises(InputFormatError, match="the rows of a 2-D array of item ids"):
        rw.evaluate_recommendations(test, [["a", "b"], ["c"]], ["P@1"])
    for mixed in ({1: ["a", 1.5]}, {1: [1, "1"]}):
        with pytest.raises(InputFormatError, match="item ids must be all integers or all text"):
            rw.evaluate_recommendations(test, mixed, ["P@1"])
    with pytest.raises(InvalidParameterError, match="no test user has a recommendation list"):
        rw.evaluate_recommendations(test, {0: [], 1: []}, ["P@1"])
    assert rw.evaluate_recommendations(test, {0: ["a"], 1: []}, ["P@1"]).mean == {"P@1": 1.0}
