"""The C kernels of recommender pairs (rankwise.ranking._cpairs) equal the numpy paths.

``join_pairs`` (membership, lowest set row, repeated pairs; through it the
exclusion, re-ranking and cut at k, in place), ``count_codes``, ``take_codes`` and
``gather_sums`` against numpy's definitions on random adversarial inputs: rows
not grouped by user, a user's rows in several places, users with thousands of
items, int32 and int64 codes mixed, codes out of range. And whole evaluations
with the C modules on and off (``RANKWISE_NO_C=1``) give the same numbers, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from strategies import random_recommendations

import rankwise as rw
from rankwise.recommenders import beyond
from rankwise.recommenders.inputs import (
    Interactions,
    Lists,
    count_codes,
    exclude_seen,
    native_kernels,
    pair_lookup,
)

native = native_kernels()
needs_c = pytest.mark.skipif(native is None, reason="rankwise.ranking._cpairs is not built")


def _pairs(rng: np.random.Generator, n: int, n_users: int, n_items: int, grouped: bool,
           dtype: type) -> tuple[np.ndarray, np.ndarray]:
    u = rng.integers(0, n_users, n)
    if grouped:
        u = np.sort(u)
    return u.astype(dtype), rng.integers(0, n_items, n).astype(dtype)


def _expected(su: np.ndarray, si: np.ndarray, qu: np.ndarray, qi: np.ndarray) -> np.ndarray:
    lowest: dict[tuple[int, int], int] = {}
    for row, pair in enumerate(zip(su.tolist(), si.tolist())):
        lowest.setdefault(pair, row)
    return np.array([lowest.get(p, -1) for p in zip(qu.tolist(), qi.tolist())], dtype=np.int64)


@needs_c
@pytest.mark.parametrize("seed", range(40))
def test_join_pairs_equals_the_definition(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 30)), int(rng.integers(1, 3000))
    big = seed % 5 == 0  # a user with thousands of rows
    s_n, q_n = int(rng.integers(0, 400)), int(rng.integers(0, 400))
    su, si = _pairs(rng, s_n, n_users, n_items, seed % 2 == 0,
                    np.int32 if seed % 3 else np.int64)
    qu, qi = _pairs(rng, q_n, n_users, n_items, seed % 4 == 0,
                    np.int32 if seed % 5 else np.int64)
    if big:
        extra = rng.integers(0, n_items, 5000)
        su = np.concatenate([su, np.zeros(5000, su.dtype)])
        si = np.concatenate([si, extra.astype(si.dtype)])
        qu = np.concatenate([qu, np.zeros(300, qu.dtype)])
        qi = np.concatenate([qi, rng.integers(0, n_items, 300).astype(qi.dtype)])
    want = _expected(su, si, qu, qi)
    rows = pair_lookup(su, si, qu, qi, n_users, n_items, rows=True)
    member = pair_lookup(su, si, qu, qi, n_users, n_items)
    assert np.array_equal(rows, want)
    assert np.array_equal(member, want >= 0)
    repeated = np.empty(len(su), dtype=np.bool_)
    native.join_pairs(su, si, su, si, n_users, n_items, 2, repeated)
    assert np.array_equal(repeated, _expected(su, si, su, si) < np.arange(len(su)))
    monkeypatch.setenv("RANKWISE_NO_C", "1")  # the numpy path: the same answers
    assert np.array_equal(pair_lookup(su, si, qu, qi, n_users, n_items, rows=True), want)
    assert np.array_equal(pair_lookup(su, si, qu, qi, n_users, n_items), want >= 0)


@needs_c
def test_codes_out_of_range_are_refused() -> None:
    u, i = np.array([0, 1]), np.array([0, 5])
    with pytest.raises(ValueError, match="item code"):
        native.join_pairs(u, i, u, i, 2, 5, 0, np.empty(2, np.bool_))
    with pytest.raises(ValueError, match="user code"):
        native.join_pairs(u, i, u, np.array([0, 1]), 1, 6, 0, np.empty(2, np.bool_))
    with pytest.raises(TypeError):
        native.join_pairs(u.astype(float), i, u, i, 2, 6, 0, np.empty(2, np.bool_))
    with pytest.raises(ValueError):
        native.take_codes(np.arange(3), np.array([3]), np.empty(1, np.int64))
    assert count_codes(np.array([0, 7], dtype=np.int32), 3).tolist() == \
        np.bincount([0, 7], minlength=3).tolist()  # past size: numpy's answer


@needs_c
@pytest.mark.parametrize("seed", range(30))
def test_exclusion_and_cut_equal_the_numpy_path(seed: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 60))
    lists = Lists.ordered(rng.integers(0, 30, 400), rng.integers(0, n_items, 400),
                          rng.random(400), n_items=n_items, what="t", duplicates="first")
    lists = Lists.from_rows(lists.users.astype(np.int32), lists.items.astype(np.int32))
    seen = Interactions.from_codes(rng.integers(0, 35, 300), rng.integers(0, n_items, 300),
                                   np.ones(300), n_items=n_items)
    k = [None, 1, int(rng.integers(2, 9))][seed % 3]
    fast = exclude_seen(lists, seen, n_items, k)
    copy = Lists.from_rows(lists.users.copy(), lists.items.copy())
    in_place = exclude_seen(copy, seen, n_items, k, in_place=True)
    head = lists.head(3)
    monkeypatch.setenv("RANKWISE_NO_C", "1")
    slow = exclude_seen(lists, seen, n_items, k)
    for got in (fast, in_place):
        for a, b in zip((got.users, got.items, got.ranks), (slow.users, slow.items, slow.ranks)):
            assert a.tolist() == b.tolist()
    slow_head = lists.head(3)
    assert head.items.tolist() == slow_head.items.tolist()
    assert head.ranks.tolist() == slow_head.ranks.tolist()


@needs_c
@pytest.mark.parametrize("seed", range(10))
def test_counts_takes_and_sums_equal_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 500))
    users = rng.integers(0, 20, n).astype(np.int32)
    items = rng.integers(0, 50, n).astype(np.int32)
    values = rng.normal(size=50)
    assert np.array_equal(count_codes(items, 50), np.bincount(items, minlength=50))
    table = rng.integers(-5, 99, 50)
    out = np.empty(n, dtype=np.int64)
    native.take_codes(table, items, out)
    assert np.array_equal(out, table[items])
    lists = Lists.from_rows(users, items)
    got = beyond.item_means(lists, values, 20)
    want = beyond.user_means(users, values[items], 20)
    assert np.array_equal(got, want, equal_nan=True)  # the same sums in the same order


@pytest.mark.parametrize("seed", range(12))
def test_evaluations_equal_without_the_c_modules(seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = random_recommendations(seed, integer_ids=seed % 2 == 0)
    measures = ["ndcg@10", "recall@5", "map", "P@3", "coverage", "gini", "entropy",
                "novelty", "arp", "aplt", "epc"]
    kwargs = {"exclude": data["train"], "catalogue": data["catalogue"], "k": [None, 4][seed % 2],
              "relevance": "rating", "missing": ["skip", "zero"][seed % 2]}
    fast = rw.evaluate_recommendations(data["test"], data["recs"], measures, **kwargs)
    rng = np.random.default_rng(seed)
    matrix = rng.permuted(np.tile(np.arange(40), (9, 1)), axis=1)[:, :12]
    matrix[seed % 9, 3] = matrix[seed % 9, 1]  # an item twice in a row
    train = {"user": rng.integers(0, 9, 60), "item": rng.integers(0, 40, 60)}
    test = {"user": rng.integers(0, 9, 30), "item": rng.integers(0, 40, 30)}
    by_matrix = rw.evaluate_recommendations(test, matrix, measures[:8], exclude=train,
                                            catalogue=40, duplicates="first", k=8)
    monkeypatch.setenv("RANKWISE_NO_C", "1")
    slow = rw.evaluate_recommendations(data["test"], data["recs"], measures, **kwargs)
    slow_matrix = rw.evaluate_recommendations(test, matrix, measures[:8], exclude=train,
                                              catalogue=40, duplicates="first", k=8)
    for a, b in ((fast, slow), (by_matrix, slow_matrix)):
        assert a.users == b.users
        assert a.mean.keys() == b.mean.keys()
        for name in a.mean:
            assert np.array_equal(a.mean[name], b.mean[name], equal_nan=True), name
        for name in a.per_user:
            assert np.array_equal(a.per_user[name], b.per_user[name], equal_nan=True), name


@pytest.mark.parametrize("seed", range(10))
def test_merging_without_ratings_equals_ratings_of_one(seed: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    u, i = rng.integers(0, 9, 200).astype(np.int32), rng.integers(0, 12, 200).astype(np.int32)
    graded = rng.integers(0, 4, 200).astype(float)
    runs = []
    for off in (False, True):
        if off:
            monkeypatch.setenv("RANKWISE_NO_C", "1")
        runs.append((Interactions.from_codes(u, i, None, n_items=12),
                     Interactions.from_codes(u, i, np.ones(200), n_items=12),
                     Interactions.from_codes(u, i, graded, n_items=12)))
    for none, ones, _graded in runs:
        for field in ("users", "items", "ratings", "counts"):
            assert getattr(none, field).tolist() == getattr(ones, field).tolist()
    for a, b in zip(runs[0], runs[1]):  # C and numpy: the same pairs in the same order
        for field in ("users", "items", "ratings", "counts"):
            assert getattr(a, field).tolist() == getattr(b, field).tolist(), field
