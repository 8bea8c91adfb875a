"""What the recommender evaluation holds in memory (issue 37: 5 models x 1M users in 4 GB).

Structural facts, not timings: lists hold their item codes and one bound per
list (a 2-D array's rows need no user or rank per item), the users and ranks
of rows are derived exactly, excluding seen items compacts the item codes in
place (a block at a time), the training interactions are gone before the
accuracy measures run, and a comparison keeps the user ids once. The values
derived are checked against plain Python (sets, positions), not rankwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import rankwise as rw
from rankwise.recommenders import evaluation, inputs
from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary, exclude_seen


def test_a_matrix_of_lists_keeps_its_item_codes_and_one_bound_per_row() -> None:
    matrix = np.array([[5, 1, 2], [1, 5, 7], [2, 7, 1], [9, 5, 2]], dtype=np.int32)
    lists = Lists.read(matrix, Vocabulary("user"), Vocabulary("item"))
    # no user, rank or key per item: the items, a user per list and a stride of bounds
    assert sorted(vars(lists)) == ["items", "list_users", "offsets"]
    assert lists.items.nbytes == matrix.size * 4
    assert lists.list_users.tolist() == [0, 1, 2, 3]
    assert lists.offsets.tolist() == [0, 3, 6, 9, 12]
    # small integer ids are coded in id order: 1 2 5 7 9 -> 0 1 2 3 4
    assert lists.items.tolist() == [2, 0, 1, 0, 2, 3, 1, 3, 0, 4, 2, 1]
    assert lists.users.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert lists.ranks.tolist() == [1, 2, 3] * 4
    assert lists.users.dtype == lists.ranks.dtype == np.int32


@pytest.mark.parametrize("seed", range(20))
def test_users_and_ranks_of_rows_are_their_list_and_position(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, int(rng.integers(0, 12)))
    owners = rng.permutation(40)[:len(sizes)]
    users = np.repeat(owners, sizes)
    lists = Lists.from_rows(users, rng.integers(0, 50, len(users)))
    want_ranks = [r + 1 for size in sizes.tolist() for r in range(size)]
    assert lists.users.tolist() == users.tolist()
    assert lists.ranks.tolist() == want_ranks
    rows = rng.integers(0, max(len(users), 1), 10) if len(users) else np.zeros(0, np.int64)
    assert lists.ranks_at(rows).tolist() == [want_ranks[r] for r in rows.tolist()]
    assert lists.lengths(40).tolist() == [int(sizes[owners == u].sum()) for u in range(40)]
    assert lists.top == (int(sizes.max()) if len(sizes) else 0)


def _expected(lists: Lists, seen: Interactions, k: int | None) -> list[tuple[int, int, int]]:
    """(user, item, rank) of each row kept, by plain Python."""
    pairs = set(zip(seen.users.tolist(), seen.items.tolist()))
    out = []
    for j, user in enumerate(lists.list_users.tolist()):
        lo, hi = int(lists.offsets[j]), int(lists.offsets[j + 1])
        kept = [i for i in lists.items[lo:hi].tolist() if (user, i) not in pairs]
        out += [(user, i, r + 1) for r, i in enumerate(kept[:k] if k else kept)]
    return out


@pytest.mark.parametrize("seed", range(30))
def test_exclusion_a_block_at_a_time_in_place(seed: int, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 30)), int(rng.integers(2, 40))
    sizes = rng.integers(1, n_items + 1, n_users)
    users = np.repeat(rng.permutation(n_users), sizes).astype(np.int32)
    items = np.concatenate([rng.permutation(n_items)[:s] for s in sizes]).astype(np.int32)
    seen = Interactions.from_codes(rng.integers(0, n_users, 60), rng.integers(0, n_items, 60),
                                   None, n_items=n_items)
    k = [None, 1, int(rng.integers(2, 9))][seed % 3]
    lists = Lists.from_rows(users, items)
    want = _expected(lists, seen, k)
    # blocks of a few rows: lists looked up a few at a time, items moved a few at a time
    monkeypatch.setattr(inputs, "_BLOCK", int(rng.integers(1, 9)))
    monkeypatch.setattr(inputs, "_CHUNK", int(rng.integers(1, 9)))
    for in_place in (False, True):
        given = Lists.from_rows(users, items.copy())
        got = exclude_seen(given, seen, n_items, k, n_users, in_place=in_place)
        assert list(zip(got.users.tolist(), got.items.tolist(), got.ranks.tolist())) == want
        assert len(got.offsets) == len(got.list_users) + 1  # lists emptied are gone
        assert (np.diff(got.offsets) > 0).all()
        # in place: the kept items are written over the given ones, not copied
        assert np.shares_memory(got.items, given.items) == (in_place or got is given)


def test_the_training_interactions_are_gone_before_the_accuracy_measures(
        monkeypatch: pytest.MonkeyPatch) -> None:
    contexts: list[Any] = []
    histories: list[Any] = []

    class Context(evaluation._Context):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            contexts.append(self)

    accuracy = evaluation._accuracy

    def watched(*args: Any, **kwargs: Any) -> Any:
        histories.append(contexts[-1].history)
        return accuracy(*args, **kwargs)

    monkeypatch.setattr(evaluation, "_Context", Context)
    monkeypatch.setattr(evaluation, "_accuracy", watched)
    held_out = {"user": [1, 2, 3], "item": ["a", "b", "c"]}
    train = {"user": [1, 2, 3], "item": ["c", "a", "a"]}
    recs = {1: ["a", "b", "c"], 2: ["b", "c", "a"], 3: ["c", "a", "b"]}
    r = rw.evaluate_recommendations(held_out, recs, ["P@1", "novelty"], exclude=train)
    assert histories == [None]  # novelty counted its popularity, then the history went
    # by hand: the lists without the training items are 1 [a, b], 2 [b, c], 3 [c, b]
    assert r.per_user["P@1"].tolist() == [1.0, 1.0, 1.0]
    # training users 3; popularity a 2, c 1, b 0 (counted as 1): -log2(pop / 3) averaged
    a, b, c = -np.log2(2 / 3), -np.log2(1 / 3), -np.log2(1 / 3)
    assert r.per_user["novelty"].tolist() == pytest.approx([(a + b) / 2, (b + c) / 2,
                                                            (c + b) / 2])


def test_a_comparison_keeps_the_user_ids_once() -> None:
    held_out = {"user": [1, 2, 3, 4], "item": ["a", "b", "c", "a"]}
    models = {name: {u: items for u in (1, 2, 3, 4)}
              for name, items in (("x", ["a", "b"]), ("y", ["b", "c"]), ("z", ["c", "a"]))}
    result = rw.compare_recommendations(held_out, models, ["P@1", "coverage"], baseline="x",
                                        seed=0)
    first = result.results["x"]
    assert first.users == [1, 2, 3, 4]
    for name in ("y", "z"):
        assert result.results[name].users is first.users
        accuracy, first_accuracy = result.results[name].accuracy, first.accuracy
        assert accuracy is not None and first_accuracy is not None
        assert accuracy.query_ids is first_accuracy.query_ids
    assert result.results["y"].per_user["P@1"].tolist() == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("seed", range(8))
def test_measures_over_lists_a_block_at_a_time(seed: int, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    """P@3, recall@5 and novelty with blocks of a few rows, against plain Python."""
    rng = np.random.default_rng(seed)
    n_users, n_items, width = 12, 30, 8
    matrix = np.stack([rng.permutation(n_items)[:width] for _ in range(n_users)])
    held_out = {"user": rng.integers(0, n_users, 40), "item": rng.integers(0, n_items, 40)}
    train = {"user": rng.integers(0, n_users, 50), "item": rng.integers(0, n_items, 50)}
    monkeypatch.setattr(inputs, "_BLOCK", int(rng.integers(1, 20)))
    r = rw.evaluate_recommendations(held_out, matrix, ["P@3", "recall@5", "novelty"],
                                    train=train)
    relevant: dict[int, set[int]] = {}
    for u, i in zip(held_out["user"].tolist(), held_out["item"].tolist()):
        relevant.setdefault(u, set()).add(i)
    trained: dict[int, set[int]] = {}
    for u, i in zip(train["user"].tolist(), train["item"].tolist()):
        trained.setdefault(i, set()).add(u)
    population = len(set(train["user"].tolist()))
    assert r.users == sorted(relevant)  # every held-out user has a list (a row)
    for n, user in enumerate(r.users):
        top = matrix[user].tolist()
        assert r.per_user["P@3"][n] == pytest.approx(len(set(top[:3]) & relevant[user]) / 3)
        assert r.per_user["recall@5"][n] == pytest.approx(
            len(set(top[:5]) & relevant[user]) / len(relevant[user]))
        information = [-np.log2(max(len(trained.get(i, ())), 1) / population) for i in top]
        assert r.per_user["novelty"][n] == pytest.approx(np.mean(information))


def test_an_item_twice_in_a_later_block_of_a_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.exceptions import DuplicateEntryError

    monkeypatch.setattr(inputs, "_BLOCK", 2)  # a block per row: the repeat is in the last
    matrix = np.array([[1, 2], [3, 4], [5, 6], [7, 7]])
    with pytest.raises(DuplicateEntryError, match="item 7 is recommended twice to user 3"):
        Lists.read(matrix, Vocabulary("user"), Vocabulary("item"))
    lists = Lists.read(matrix, Vocabulary("user"), Vocabulary("item"), duplicates="first")
    assert lists.users.tolist() == [0, 0, 1, 1, 2, 2, 3]
    assert lists.ranks.tolist() == [1, 2, 1, 2, 1, 2, 1]
