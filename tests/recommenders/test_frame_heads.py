"""A frame of lists read only as deep as the measures look (issue 40).

When every measure asked for is cut at k and nothing reads whole lists (no
beyond-accuracy measure, no exclusion, no baseline), a frame of integer ids
that comes grouped by user and best first is checked and cut in one C pass
over every row (``rankwise.ranking._cpairs.head_lists``): the items past the
deepest cutoff are not coded. The checks are those of the whole read: an item
twice in a user's list is an error wherever it is, and rows that are not in
order are sorted. The values here come from plain Python (each user's list
sorted by score, ties in row order, the measures' textbook formulas), never
from rankwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError
from rankwise.recommenders import inputs
from rankwise.recommenders.inputs import native_kernels


def _native() -> Any:
    native = native_kernels()
    if native is None or not hasattr(native, "head_lists"):
        pytest.skip("the C module rankwise.ranking._cpairs is not built")
    return native


def _one_pass() -> bool:
    """Whether the one pass can run (the C module built and switched on)."""
    native = native_kernels()
    return native is not None and hasattr(native, "head_lists")


@pytest.fixture
def heads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each read of lists that could take the one pass took it (True) or read the
    lists whole; without the C module, the values are checked on the whole read."""
    taken: list[bool] = []
    original = inputs._head_lists

    def spy(*args: Any, **kwargs: Any) -> Any:
        got = original(*args, **kwargs)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(inputs, "_head_lists", spy)
    return taken


# ---------------------------------------------------------------- the truth, in Python


def _lists(frame: pd.DataFrame) -> dict[Any, list[Any]]:
    """Each user's items, best score first, ties in row order (Python's stable sort)."""
    rows: dict[Any, list[tuple[float, int, Any]]] = {}
    for n, (user, item, score) in enumerate(zip(frame["user"], frame["item"], frame["score"])):
        rows.setdefault(user, []).append((-score, n, item))
    return {user: [item for _, _, item in sorted(r)] for user, r in rows.items()}


def _truth(test: pd.DataFrame, frame: pd.DataFrame, k: int, *, missing: str = "skip",
           cut: int | None = None) -> dict[str, dict[Any, float]]:
    """ndcg@k, P@k, recall@k, map@k, mrr@k per evaluated user, by the formulas."""
    relevant: dict[Any, set[Any]] = {}
    for user, item in zip(test["user"], test["item"]):
        relevant.setdefault(user, set()).add(item)
    lists = _lists(frame)
    out: dict[str, dict[Any, float]] = {m: {} for m in ("ndcg", "P", "recall", "map", "mrr")}
    for user, rel in relevant.items():
        if user not in lists and missing == "skip":
            continue
        ranked = lists.get(user, [])[:cut][:k]
        hits = [n for n, item in enumerate(ranked, 1) if item in rel]
        dcg = sum(1 / math.log2(n + 1) for n in hits)
        idcg = sum(1 / math.log2(n + 1) for n in range(1, min(len(rel), k) + 1))
        out["ndcg"][user] = dcg / idcg
        out["P"][user] = len(hits) / k
        out["recall"][user] = len(hits) / len(rel)
        out["map"][user] = sum((h + 1) / n for h, n in enumerate(hits)) / len(rel)
        out["mrr"][user] = 1 / hits[0] if hits else 0.0
    return out


def _check(result: rw.RecommenderResults, truth: dict[str, dict[Any, float]], k: int) -> int:
    """Every per-user value equals the truth's (to 1e-12); how many were compared."""
    compared = 0
    users = list(result.users)
    for family in ("ndcg", "P", "recall", "map", "mrr"):
        expected = truth[family]
        assert sorted(users) == sorted(expected)
        got = dict(zip(users, result.per_user[f"{family}@{k}"].tolist()))
        for user, value in expected.items():
            assert got[user] == pytest.approx(value, rel=1e-12, abs=1e-15), (family, user)
            compared += 1
    return compared


# ---------------------------------------------------------------- random frames


def _frame(rng: np.random.Generator, *, n_users: int, n_items: int, top: int,
           offset: int = 0) -> pd.DataFrame:
    """Lists grouped by user, best first, as a model writes them: ties, runs over 15."""
    parts = []
    for user in rng.permutation(n_users).tolist():  # users in any order, each once
        if rng.random() < 0.15 and parts:
            continue  # a user without a list
        length = int(rng.integers(1, top + 1))
        items = rng.choice(n_items, size=min(length, n_items), replace=False) + offset
        score = np.sort(np.round(rng.random(len(items)) * rng.choice([1, 3, 50])))[::-1]
        if rng.random() < 0.3:
            score = np.zeros(len(items))  # every row tied (often more than 15)
        parts.append(pd.DataFrame({"user": user + offset, "item": items,
                                   "score": score.astype(np.float64)}))
    return pd.concat(parts, ignore_index=True)


def _test(rng: np.random.Generator, frame: pd.DataFrame, n_users: int, n_items: int,
          offset: int = 0) -> pd.DataFrame:
    """Held-out rows: some in the lists, some not, repeats, users with no list."""
    n = int(rng.integers(5, 120))
    listed = frame["item"].to_numpy()[rng.integers(0, len(frame), n)]
    items = np.where(rng.random(n) < 0.5, listed, rng.integers(0, n_items + 5, n) + offset)
    users = rng.integers(0, n_users + 4, n) + offset
    return pd.DataFrame({"user": users, "item": items})


def _cases(count: int) -> Iterator[tuple[int, pd.DataFrame, pd.DataFrame, int]]:
    for seed in range(count):
        rng = np.random.default_rng(seed)
        n_users, n_items = int(rng.integers(1, 30)), int(rng.integers(20, 80))
        offset = int(rng.choice([0, 7, 100_000]))
        frame = _frame(rng, n_users=n_users, n_items=n_items, top=int(rng.integers(1, 40)),
                       offset=offset)
        test = _test(rng, frame, n_users, n_items, offset)
        yield seed, test, frame, int(rng.integers(1, 45))  # k past the lists too


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_frames_in_rank_order_are_cut_in_one_pass(heads: list[bool], missing: str) -> None:
    compared = 0
    for seed, test, frame, k in _cases(60):
        if missing == "skip" and not set(test["user"]) & set(frame["user"]):
            continue
        measures = [f"ndcg@{k}", f"P@{k}", f"recall@{k}", f"map@{k}", f"mrr@{k}"]
        result = rw.evaluate_recommendations(test, frame, measures, missing=missing)
        assert heads[-1] == _one_pass(), seed  # the one pass read the lists
        compared += _check(result, _truth(test, frame, k, missing=missing), k)
    assert compared > 2000


def test_the_lists_read_to_a_depth_are_the_heads_of_the_whole_lists(heads: list[bool]
                                                                     ) -> None:
    for seed in range(40):
        rng = np.random.default_rng(seed)
        frame = _frame(rng, n_users=int(rng.integers(1, 20)), n_items=50,
                       top=int(rng.integers(1, 30)), offset=int(rng.choice([0, 1000])))
        depth = int(rng.integers(1, 12))
        users, items = inputs.Vocabulary("user"), inputs.Vocabulary("item")
        lists = inputs.Lists.read(frame, users, items, depth=depth)
        assert heads[-1] == _one_pass()
        # every id of the frame is coded, past the cut too, in id order (a fresh vocabulary)
        assert users.labels().to_pylist() == sorted(set(frame["user"]))
        assert items.labels().to_pylist() == sorted(set(frame["item"]))
        user_ids, item_ids = users.labels().to_pylist(), items.labels().to_pylist()
        got = {user_ids[u]: [item_ids[i] for i in lists.items[lo:hi].tolist()]
               for u, lo, hi in zip(lists.list_users.tolist(), lists.offsets[:-1].tolist(),
                                    lists.offsets[1:].tolist())}
        cut = depth if _one_pass() else None  # the whole read: the caller cuts
        assert got == {user: ranked[:cut] for user, ranked in _lists(frame).items()}


def test_int32_ids_and_the_k_option_take_the_one_pass(heads: list[bool]) -> None:
    rng = np.random.default_rng(7)
    frame = _frame(rng, n_users=25, n_items=60, top=30)
    test = _test(rng, frame, 25, 60)
    frame32 = frame.astype({"user": np.int32, "item": np.int32})
    result = rw.evaluate_recommendations(test, frame32, ["ndcg@10", "P@10", "recall@10",
                                                         "map@10", "mrr@10"], k=4)
    assert heads == [_one_pass()]
    _check(result, _truth(test, frame, 10, cut=4), 10)


def test_items_absent_from_the_test_are_coded_after_the_pass(heads: list[bool]) -> None:
    # the test knows few of the items: those the rows hold are coded after the pass
    frame = pd.DataFrame({"user": [3, 3, 3, 1, 1], "item": [50, 40, 30, 40, 60],
                          "score": [3.0, 2.0, 1.0, 5.0, 5.0]})
    test = pd.DataFrame({"user": [3, 1, 2], "item": [40, 60, 40]})
    result = rw.evaluate_recommendations(test, frame, ["P@2", "mrr@2"])
    assert heads == [_one_pass()]
    assert sorted(result.users) == [1, 3]
    assert result.per_user["P@2"].tolist() == [0.5, 0.5]  # 40 at rank 2; 60 at rank 2 (tie)
    assert result.per_user["mrr@2"].tolist() == [0.5, 0.5]


def test_an_item_twice_past_the_cut_is_still_an_error(heads: list[bool]) -> None:
    frame = pd.DataFrame({"user": [1, 1, 1, 1, 2, 2], "item": [5, 6, 7, 5, 5, 6],
                          "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    test = pd.DataFrame({"user": [1, 2], "item": [6, 6]})
    with pytest.raises(DuplicateEntryError, match="item 5 is recommended twice to user 1"):
        rw.evaluate_recommendations(test, frame, ["P@1"])
    assert heads == [False]  # found by the pass, then read whole for the error
    first = rw.evaluate_recommendations(test, frame, ["P@2", "mrr@3"], duplicates="first")
    assert first.per_user["P@2"].tolist() == [0.5, 0.5]  # 6 at rank 2 for both
    assert first.per_user["mrr@3"].tolist() == [0.5, 0.5]


def test_rows_out_of_order_are_sorted_as_before(heads: list[bool]) -> None:
    compared = 0
    for seed, test, frame, k in _cases(30):
        shuffled = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
        if len(shuffled) < 2 or not set(test["user"]) & set(frame["user"]):
            continue
        measures = [f"ndcg@{k}", f"P@{k}", f"recall@{k}", f"map@{k}", f"mrr@{k}"]
        result = rw.evaluate_recommendations(test, shuffled, measures)
        compared += _check(result, _truth(test, shuffled, k), k)
    assert compared > 500
    assert not all(heads)  # shuffled rows go back to the whole read


def test_whole_lists_are_read_when_something_reads_them(heads: list[bool]) -> None:
    frame = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [5, 6, 7, 5, 8],
                          "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    test = pd.DataFrame({"user": [1, 2], "item": [7, 8]})
    # coverage counts the default catalogue: every item of every list (5, 6, 7, 8)
    result = rw.evaluate_recommendations(test, frame, ["P@1", "coverage@1"])
    assert result.mean["coverage@1"] == 0.25  # 5 alone of the four items
    # no cutoff: the whole list counts
    whole = rw.evaluate_recommendations(test, frame, ["P@1", "map"])
    assert whole.per_user["map"].tolist() == [1 / 3, 1 / 2]  # 7 at rank 3, 8 at 2
    excluded = rw.evaluate_recommendations(test, frame, ["P@1"],
                                           exclude={"user": [1, 2], "item": [5, 5]})
    assert excluded.per_user["P@1"].tolist() == [0.0, 1.0]  # 6 and 8 first once 5 goes
    assert heads == []  # none of the three read the lists by the one pass


def test_head_lists_against_a_loop() -> None:
    native = _native()
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n, n_users, n_items = int(rng.integers(1, 60)), int(rng.integers(1, 8)), 12
        users = np.sort(rng.integers(0, n_users, n)) if seed % 3 else rng.integers(0, n_users, n)
        items = rng.integers(0, n_items, n).astype(np.int32 if seed % 2 else np.int64)
        keys = None if seed % 5 == 0 else np.round(rng.random(n) * 3)
        if seed % 2 and keys is not None:
            keys = np.sort(keys)[::-1].copy()  # often in order within each user
        depth = int(rng.integers(1, 6))
        seen = np.zeros(n_users, dtype=np.uint8)
        stamps = np.zeros(n_items, dtype=np.int32)
        out = np.full(n * depth, -9, dtype=np.int64)
        list_users, sizes = np.full(n, -9, dtype=np.int64), np.full(n, -9, dtype=np.int64)
        status, kept, found = native.head_lists(users, items, keys, True, depth, seen, stamps,
                                                out, list_users, sizes)
        assert (status, kept, found) == _head_loop(users, items, keys, depth), seed
        if status == 0:
            heads, runs = _heads(users, items, depth)
            assert out[:kept].tolist() == heads
            assert list_users[:found].tolist() == [u for u, _ in runs]
            assert sizes[:found].tolist() == [s for _, s in runs]
            assert np.flatnonzero(seen).tolist() == sorted(set(users.tolist()))
            assert np.flatnonzero(stamps).tolist() == sorted(set(items.tolist()))


def _head_loop(users: np.ndarray, items: np.ndarray, keys: np.ndarray | None, depth: int
               ) -> tuple[int, int, int]:
    """What head_lists returns, row by row in Python."""
    seen: set[int] = set()
    listed: set[int] = set()
    for r in range(len(users)):
        if r == 0 or users[r] != users[r - 1]:
            if int(users[r]) in seen:
                return 1, 0, 0
            seen.add(int(users[r]))
            listed = set()
        elif keys is not None and keys[r] > keys[r - 1]:
            return 1, 0, 0
        if int(items[r]) in listed:
            return 2, 0, 0
        listed.add(int(items[r]))
    heads, runs = _heads(users, items, depth)
    return 0, len(heads), len(runs)


def _heads(users: np.ndarray, items: np.ndarray, depth: int
           ) -> tuple[list[int], list[tuple[int, int]]]:
    """The first *depth* items of each run of a user, and (user, items kept) per run."""
    heads: list[int] = []
    runs: list[tuple[int, int]] = []
    for r in range(len(users)):
        if r == 0 or users[r] != users[r - 1]:
            runs.append((int(users[r]), 0))
        if runs[-1][1] < depth:
            heads.append(int(items[r]))
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
    return heads, runs


def test_head_lists_refuses_ids_out_of_range() -> None:
    native = _native()
    seen, stamps = np.zeros(2, dtype=np.uint8), np.zeros(3, dtype=np.int32)
    out, list_users, sizes = (np.empty(4, dtype=np.int64) for _ in range(3))
    with pytest.raises(ValueError, match="out of range"):
        native.head_lists(np.array([0, 5]), np.array([1, 1]), None, True, 1, seen, stamps,
                          out, list_users, sizes)
    with pytest.raises(ValueError, match="do not match"):
        native.head_lists(np.array([0, 1]), np.array([1, 1]), None, True, 1, seen, stamps,
                          out[:1], list_users, sizes)


# ---------------------------------------------------------------- the work around the pass


def test_no_item_id_is_made_text_when_no_measure_reads_it(
        heads: list[bool], monkeypatch: pytest.MonkeyPatch) -> None:
    # the judgments handed to the measures hold the items' ids as text only when read:
    # ndcg, P, recall, map and mrr read none (a 100k-item catalogue: ~4 ms a call)
    made: list[str] = []
    for name in ("texts", "text_list"):  # the ids as Arrow text or as a list of str
        original = getattr(inputs.Vocabulary, name)

        def spy(self: inputs.Vocabulary, codes: np.ndarray, original: Any = original) -> Any:
            made.append(self.kind)
            return original(self, codes)

        monkeypatch.setattr(inputs.Vocabulary, name, spy)
    compared = 0
    for _, test, frame, k in _cases(20):
        if not set(test["user"]) & set(frame["user"]):
            continue
        measures = [f"ndcg@{k}", f"P@{k}", f"recall@{k}", f"map@{k}", f"mrr@{k}"]
        result = rw.evaluate_recommendations(test, frame, measures)
        compared += _check(result, _truth(test, frame, k), k)
    assert "user" in made and "item" not in made
    assert compared > 500


def test_the_judged_item_ids_are_made_when_read() -> None:
    from rankwise.data import Qrels

    for ids in ([40, 7, 1000], ["b", "é", "a"]):
        items = inputs.Vocabulary("item")
        codes = items.encode(np.array(ids))
        # the judgments' items: ids[2], ids[0], ids[2], ids[1], by their codes
        column = items.text_column(codes[[2, 0, 2, 1]])
        want = [str(ids[2]), str(ids[0]), str(ids[1])]
        qrels = Qrels(np.array([0, 0, 1, 1]), ["u1", "u2"], None, None, np.ones(4),
                      doc_rows=column)
        assert len(column) == 4
        assert qrels.doc_ids == want  # in order of first judgment
        assert qrels.to_dict() == {"u1": {want[0]: 1, want[1]: 1},
                                   "u2": {want[0]: 1, want[2]: 1}}


def _compat_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    frame = _frame(rng, n_users=15, n_items=40, top=12)
    return _test(rng, frame, 15, 40), frame


def test_judgment_rows_are_ordered_only_for_the_measures_that_read_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.ranking import assemble

    kept: list[bool] = []
    original = assemble.assemble_ranking

    def spy(*args: Any, **kwargs: Any) -> Any:
        kept.append(kwargs.get("hit_row") is not None)
        return original(*args, **kwargs)

    monkeypatch.setattr(assemble, "assemble_ranking", spy)
    test, frame = _compat_case()
    result = rw.evaluate_recommendations(test, frame, ["ndcg@5", "P@5", "recall@5", "map@5",
                                                       "mrr@5"])
    assert _check(result, _truth(test, frame, 5), 5) > 40
    # Compat orders its ideal by the run's scores (ideal=score): it reads each hit's
    # judgment (its values: test_compat_on_lists_equals_ir_measures)
    rw.evaluate_recommendations(test, frame, ["Compat"])
    assert kept == [False, True]


def test_compat_on_lists_equals_ir_measures() -> None:
    irm = pytest.importorskip("ir_measures")

    # the lists' scores are -rank, as in a run of the lists
    test, frame = _compat_case()
    compat = rw.evaluate_recommendations(test, frame, ["Compat"])
    qrels: dict[str, dict[str, int]] = {}
    for user, item in zip(test["user"].tolist(), test["item"].tolist()):
        qrels.setdefault(str(user), {})[str(item)] = 1
    run = {str(user): {str(item): -float(rank) for rank, item in enumerate(ranked, 1)}
           for user, ranked in _lists(frame).items() if str(user) in qrels}
    # the users with a list (missing="skip"; ir_measures gives the others too)
    want = {m.query_id: m.value for m in irm.iter_calc([irm.Compat], qrels, run)
            if m.query_id in run}
    got = dict(zip(map(str, compat.users),
                   compat.per_user["compat(depth=run,ideal=score)"].tolist()))
    assert sorted(got) == sorted(want) and len(want) > 5
    for user, value in want.items():
        assert got[user] == pytest.approx(value, abs=1e-12), user


@pytest.mark.parametrize(("shift", "one_pass"), [
    (0, True), (-50, False), (10**12, False), (2**62, False)],
    ids=["small", "negative", "sparse", "past-int32"])
def test_ids_that_do_not_suit_a_table_are_read_whole(heads: list[bool], shift: int,
                                                     one_pass: bool) -> None:
    # the one pass codes ids through a table up to the largest: negative or sparse ids
    # (found by the ids' least and greatest) are read whole, with the same values
    rng = np.random.default_rng(11)
    frame = _frame(rng, n_users=12, n_items=30, top=15)
    test = _test(rng, frame, 12, 30)
    frame = frame.assign(item=frame["item"] + shift, user=frame["user"] + shift)
    test = test.assign(item=test["item"] + shift, user=test["user"] + shift)
    result = rw.evaluate_recommendations(test, frame, ["ndcg@5", "P@5", "recall@5", "map@5",
                                                       "mrr@5"])
    assert heads == [one_pass and _one_pass()]
    assert _check(result, _truth(test, frame, 5), 5) > 20
