"""rankwise.recommenders: hand-computed examples, brute-force references, properties.

Each vectorised kernel is compared with the textbook formula written out
pair by pair (or user by user) on random inputs; excluding seen items is
checked with Hypothesis; the input forms must agree; segments must equal
evaluating each segment alone, with scipy's test on the per-user values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.recommenders import beyond
from rankwise.recommenders.inputs import Lists

TOL = 1e-12


# hand-computed examples ----------------------------------------------------------------------
TRAIN = {"user": ["u1", "u1", "u2", "u3", "u4", "u4", "u4"],
         "item": ["a", "b", "a", "b", "a", "d", "e"]}
# item popularity (training interactions = users): a 3, b 2, d 1, e 1, c 0


def test_epc_by_hand() -> None:
    """Vargas & Castells' EPC with disc(k) = 1/log2(k+1), normalised by sum disc."""
    test = {"user": ["u1", "u1"], "item": ["a", "c"]}
    recs = {"u1": ["a", "d", "c"]}
    r = rw.evaluate_recommendations(test, recs, ["epc"], train=TRAIN)
    share = {"a": 3 / 4, "d": 1 / 4, "c": 0.0}
    disc = [1 / math.log2(k + 1) for k in (1, 2, 3)]
    expected = (disc[0] * (1 - share["a"]) + disc[2] * (1 - share["c"])) / sum(disc)
    assert r.mean["epc"] == pytest.approx(expected, abs=TOL)


def test_arp_aplt_and_the_pareto_split_by_hand() -> None:
    # interactions: a 3, b 2, d 1, e 1 (total 7); head reaches 0.8 * 7 = 5.6 with a, b, d
    # (d and e tie: the smaller id first, whatever the order the items came in)
    recs = {"u1": ["a", "e"], "u2": ["d", "e", "c"]}
    r = rw.evaluate_recommendations(None, recs, ["arp", "aplt"], train=TRAIN)
    assert r.per_user["arp"].tolist() == [(3 + 1) / 2, (1 + 1 + 0) / 3]
    assert r.per_user["aplt"].tolist() == [1 / 2, 1 / 3]  # e is the tail; c is in neither


def test_popreo_by_hand() -> None:
    # head {a, b, d}, tail {e}; relevant: u1 {b, e}, u2 {d, e}; lists hit b, d (head), e once
    test = {"user": ["u1", "u1", "u2", "u2"], "item": ["b", "e", "d", "e"]}
    recs = {"u1": ["b", "c"], "u2": ["d", "e"]}
    train = {"user": TRAIN["user"], "item": TRAIN["item"]}
    r = rw.evaluate_recommendations(test, recs, ["popreo"], train=train)
    # u1 saw b in training: not an opportunity. head: hit d / {d}; tail: hit e / {e, e}
    p = np.array([1 / 1, 1 / 2])
    assert r.mean["popreo"] == pytest.approx(np.std(p) / np.mean(p), abs=TOL)


def test_popreo_counts_the_relevant_items_of_the_users_evaluated_only() -> None:
    """A test user without a list (missing="skip") and, per segment, the other segment's
    users put their relevant items in the denominators (a review)."""
    train = {"user": ["a", "a", "a", "b", "c"], "item": ["h", "h2", "h3", "h", "t"]}
    # popularity h 2, h2 h3 t 1 (of 5): the short head (80%) h, h2, h3; the long tail t
    test = {"user": ["a", "b", "c", "d"], "item": ["t", "h2", "h3", "t"]}
    recs = {"a": ["t", "x"], "b": ["h2", "y"], "c": ["z", "w"]}  # d: no list
    r = rw.evaluate_recommendations(test, recs, ["popreo"], train=train)
    p = np.array([1 / 2, 1 / 1])  # a, b, c: head b hit of {h2, h3}, tail a hit of {t}
    assert r.mean["popreo"] == pytest.approx(np.std(p) / np.mean(p), abs=TOL)
    zero = rw.evaluate_recommendations(test, recs, ["popreo"], train=train, missing="zero")
    p = np.array([1 / 2, 1 / 2])  # d counted, with an empty list: its t is not hit
    assert zero.mean["popreo"] == pytest.approx(np.std(p) / np.mean(p), abs=TOL)
    segments = rw.evaluate_recommendations(test, recs, ["popreo", "recall@2"], train=train,
                                           segments={"a": "g1", "b": "g1", "c": "g2"})
    # g1, a and b: head 1/1 (b's h2), tail 1/1 (a's t); c's h3 is not g1's (it gave 1/3)
    assert segments.segments.mean["g1"]["popreo"] == 0.0


def test_serendipity_against_a_baseline_by_hand() -> None:
    test = {"user": ["u1", "u1", "u2"], "item": ["a", "c", "x"]}
    recs = {"u1": ["a", "b", "c"], "u2": ["x", "y"]}
    base = {"u1": ["a", "z"], "u2": ["x"]}
    r = rw.evaluate_recommendations(test, recs, ["serendipity"], baseline=base)
    assert r.per_user["serendipity"].tolist() == [1 / 3, 0.0]


def test_novelty_by_hand_and_unseen_items() -> None:
    r = rw.evaluate_recommendations(None, {"u1": ["a", "c"]}, ["novelty"], train=TRAIN)
    # 4 training users; a: 3 users; c unseen counts as one user
    assert r.mean["novelty"] == pytest.approx((-math.log2(3 / 4) - math.log2(1 / 4)) / 2,
                                              abs=TOL)


def test_gini_entropy_coverage_by_hand() -> None:
    recs = {"u1": ["a", "b"], "u2": ["a", "c"]}
    r = rw.evaluate_recommendations(None, recs, ["gini", "entropy", "coverage"],
                                    catalogue=["a", "b", "c", "d"])
    # exposure sorted ascending over the catalogue: 0, 1, 1, 2 (of 4)
    gini = sum((2 * j - 4 - 1) * c / 4 for j, c in zip(range(1, 5), [0, 1, 1, 2])) / 3
    assert r.mean["gini"] == pytest.approx(gini, abs=TOL)
    assert r.mean["entropy"] == pytest.approx(1.5, abs=TOL)
    assert r.mean["coverage"] == 0.75


# brute-force references on random data -------------------------------------------------------
def _random_lists(rng: np.random.Generator, n_users: int, n_items: int, max_len: int) -> Lists:
    users, items = [], []
    for u in range(n_users):
        length = int(rng.integers(0, max_len + 1))
        users += [u] * length
        items += rng.choice(n_items, size=length, replace=False).tolist()
    u = np.asarray(users, dtype=np.int64)
    return Lists.ordered(u, np.asarray(items, dtype=np.int64), np.arange(len(u), dtype=float),
                         n_items=n_items, what="test")


def _by_user(lists: Lists) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for u, i in zip(lists.users.tolist(), lists.items.tolist()):
        out.setdefault(u, []).append(i)
    return out


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))


@pytest.mark.parametrize("seed", range(5))
def test_ild_equals_the_pairwise_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lists = _random_lists(rng, 30, 40, 8)
    features = rng.normal(size=(40, 5))
    features[3] = 0  # a zero vector: similarity 0 with everything
    got = beyond.ild(lists, features, 30)
    chunked = beyond.ild(lists, features, 30, chunk_rows=7)
    from scipy import sparse

    sparse_got = beyond.ild(lists, sparse.csr_matrix(features), 30, chunk_rows=5)
    for u in range(30):
        items = _by_user(lists).get(u, [])
        if len(items) < 2:
            assert np.isnan(got[u]) and np.isnan(chunked[u])
            continue
        pairs = list(itertools.combinations(items, 2))
        expected = np.mean([1 - _cos(features[i], features[j]) for i, j in pairs])
        assert got[u] == pytest.approx(expected, abs=1e-12)
        assert chunked[u] == pytest.approx(expected, abs=1e-12)
        assert sparse_got[u] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_personalisation_equals_the_pairwise_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lists = _random_lists(rng, 25, 12, 6)
    by_user = [set(v) for v in _by_user(lists).values()]
    n = len(by_user)
    sims = [len(a & b) / math.sqrt(len(a) * len(b))
            for x, a in enumerate(by_user) for y, b in enumerate(by_user) if x != y]
    assert beyond.personalisation(lists, 12) == pytest.approx(1 - sum(sims) / (n * (n - 1)),
                                                              abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=30), st.integers(0, 10))
def test_gini_properties(counts: list[int], extra: int) -> None:
    c = np.asarray(counts, dtype=float)
    size = int(np.count_nonzero(c)) + extra
    value = beyond.gini(c, max(size, 1))
    assert -1e-12 <= value <= 1 + 1e-12
    if c.sum() > 0:  # the handbook formula over the whole catalogue, sorted
        full = np.sort(np.concatenate([c[c > 0], np.zeros(size - np.count_nonzero(c))]))
        n = len(full)
        j = np.arange(1, n + 1)
        expected = np.sum((2 * j - n - 1) * full / full.sum()) / (n - 1) if n > 1 else 0.0
        assert value == pytest.approx(expected, abs=1e-12)
    uniform = beyond.gini(np.full(7, float(max(counts) + 1)), 7)
    assert uniform == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_coverage_in_unit_interval_and_uniform_gini_zero(n_users: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_items = n_users * k
    matrix = rng.permutation(n_items).reshape(n_users, k)  # every item exactly once
    r = rw.evaluate_recommendations(None, matrix, ["coverage", "gini", "gini(dialect=recbole)"],
                                    catalogue=list(range(n_items + int(rng.integers(0, 5)))))
    assert 0 <= r.mean["coverage"] <= 1
    if r.mean["coverage"] == 1:
        assert r.mean["gini"] == pytest.approx(0.0, abs=1e-12)
        assert r.mean["gini(dialect=recbole)"] == pytest.approx(0.0, abs=1e-12)
    assert 0 <= r.mean["gini"] <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_excluding_seen_items_leaves_none_in_the_top_k(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    n_users, n_items = 6, 15
    scores = rng.integers(0, 4, size=(n_users, n_items)).astype(float)  # many ties
    recs = {"user": np.repeat(np.arange(n_users), n_items),
            "item": np.tile(np.arange(n_items), n_users), "score": scores.ravel()}
    seen = rng.random((n_users, n_items)) < 0.4
    train = {"user": np.nonzero(seen)[0], "item": np.nonzero(seen)[1]}
    test = {"user": np.arange(n_users), "item": rng.integers(0, n_items, n_users)}
    r = rw.evaluate_recommendations(test, recs, [f"P@{k}", f"coverage@{k}"], exclude=train,
                                    k=k, catalogue=n_items)
    # the same lists built naively: score descending, ties by row order, seen dropped, cut
    expected_hits = []
    tops: set[int] = set()
    for u in range(n_users):
        order = sorted(range(n_items), key=lambda i: (-scores[u, i], i))
        top = [i for i in order if not seen[u, i]][:k]
        assert not any(seen[u, i] for i in top)
        tops.update(top)
        expected_hits.append(sum(i == test["item"][u] for i in top) / k)
    users_with_list = [u for u in range(n_users) if (~seen[u]).any()]
    assert r.per_user[f"P@{k}"].tolist() == [expected_hits[u] for u in users_with_list]
    assert r.mean[f"coverage@{k}"] == pytest.approx(len(tops) / n_items, abs=TOL)


def test_input_forms_agree() -> None:
    test = {"user": [0, 0, 1, 2], "item": [3, 5, 1, 9]}
    lists = {0: [3, 4, 5], 1: [2, 1, 0], 2: [7, 8, 9]}
    matrix = np.array([[3, 4, 5], [2, 1, 0], [7, 8, 9]])
    by_score = {"user": [0, 0, 0, 1, 1, 1, 2, 2, 2], "item": [5, 4, 3, 0, 1, 2, 9, 8, 7],
                "score": [0.1, 0.5, 0.9, 0.0, 0.5, 0.6, 0.1, 0.2, 0.3]}
    by_rank = {"user_id": [2, 2, 2, 1, 1, 1, 0, 0, 0], "item_id": [7, 8, 9, 2, 1, 0, 3, 4, 5],
               "rank": [1, 2, 3, 1, 2, 3, 1, 2, 3]}
    import pandas as pd
    import pyarrow as pa

    measures = ["ndcg@2", "P@1", "recall@3", "mrr", "coverage", "gini", "personalisation"]
    values = [rw.evaluate_recommendations(test, recs, measures, catalogue=10).mean
              for recs in (lists, matrix, by_score, by_rank, pd.DataFrame(by_score),
                           pa.table(by_rank))]
    for other in values[1:]:
        assert other == values[0]
    assert values[0]["P@1"] == pytest.approx(1 / 3)
    renamed = {"u": by_score["user"], "i": by_score["item"], "s": by_score["score"]}
    again = rw.evaluate_recommendations({"u": test["user"], "item": test["item"]}, renamed,
                                        measures, catalogue=10,
                                        columns={"user": "u", "item": "i", "score": "s"})
    assert again.mean == values[0]


def test_segments_equal_each_segment_alone_with_scipy_test() -> None:
    from scipy import stats

    rng = np.random.default_rng(3)
    n_users, n_items = 40, 30
    recs = {u: rng.choice(n_items, 10, replace=False).tolist() for u in range(n_users)}
    test = {"user": np.arange(n_users).repeat(3), "item": rng.integers(0, n_items, 3 * n_users)}
    train = {"user": rng.integers(0, n_users, 200), "item": rng.integers(0, n_items, 200)}
    groups = {u: ("new" if u % 3 == 0 else "active") for u in range(n_users)}
    measures = ["ndcg@5", "recall@10", "novelty", "coverage", "gini"]
    r = rw.evaluate_recommendations(test, recs, measures, train=train, segments=groups,
                                    duplicates="first")
    seg = r.segments
    assert seg is not None and seg.names == ["active", "new"]
    for name in seg.names:
        members = [u for u in range(n_users) if groups[u] == name]
        keep = np.isin(test["user"], members)
        alone = rw.evaluate_recommendations(
            {"user": test["user"][keep], "item": test["item"][keep]},
            {u: recs[u] for u in members}, measures, train=train, duplicates="first",
            catalogue=np.unique(train["item"]).tolist())
        for m in measures:
            assert seg.mean[name][m] == pytest.approx(alone.mean[m], abs=TOL), (name, m)
        assert seg.users[name] == len(members)
    values = r.to_pandas()
    is_new = np.array([groups[u] == "new" for u in r.users])
    for m in ("ndcg@5", "recall@10", "novelty"):
        expected = stats.ttest_ind(values[m][~is_new], values[m][is_new], equal_var=False)
        assert seg.p_values[m] == pytest.approx(expected.pvalue, abs=1e-12)
    assert math.isnan(seg.p_values["coverage"])
    ranked = rw.evaluate_recommendations(test, recs, ["ndcg@5"], segments=groups,
                                         segment_test="rank", duplicates="first")
    expected = stats.mannwhitneyu(values["ndcg@5"][~is_new], values["ndcg@5"][is_new],
                                  alternative="two-sided")
    assert ranked.segments is not None
    assert ranked.segments.p_values["ndcg@5"] == pytest.approx(expected.pvalue, abs=1e-12)
    table = seg.to_table()
    assert "| new |" in table and "Welch" in table


def test_errors_say_what_and_how() -> None:
    recs = {"u1": ["a", "b"]}
    with pytest.raises(rw.InvalidParameterError, match="train="):
        rw.evaluate_recommendations(None, recs, ["novelty"])
    with pytest.raises(rw.InvalidParameterError, match="baseline="):
        rw.evaluate_recommendations({"user": ["u1"], "item": ["a"]}, recs, ["serendipity"])
    with pytest.raises(rw.UnknownMeasureError, match="coverage"):
        rw.evaluate_recommendations({"user": ["u1"], "item": ["a"]}, recs, ["coverge@10"])
    with pytest.raises(rw.MeasureSyntaxError, match="recbole"):
        rw.evaluate_recommendations(None, recs, ["gini(dialect=recbol)"], catalogue=3)
    with pytest.raises(rw.DuplicateEntryError, match=r"'a'.*'u1'"):
        rw.evaluate_recommendations(None, {"u1": ["a", "a"]}, ["coverage"], catalogue=3)
    with pytest.raises(rw.InputFormatError, match="no user column"):
        rw.evaluate_recommendations({"who": ["u1"], "item": ["a"]}, recs, ["P@1"])
    with pytest.raises(rw.InputFormatError, match="cast both to str"):
        rw.evaluate_recommendations({"user": ["u1"], "item": [1]}, recs, ["P@1"])
