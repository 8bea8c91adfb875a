"""The integer path equals the general one.

``evaluate_recommendations`` hands the accuracy measures to the engine's core
on integer codes (no text ids per row, no run to rank), excludes seen items
and merges repeated pairs with dense tables instead of sorting. These tests
run the same random inputs through the general path (judgments and a run of
text ids, ranked by the engine; exclusion and merging by sorting, written
out here) and ask for the same numbers, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.recommenders import evaluation
from rankwise.recommenders.inputs import (
    Interactions,
    Lists,
    contains,
    exclude_seen,
    first_of_keys,
    positions,
)

MEASURES = ["ndcg@10", "recall@50", "map@10", "P@5", "mrr", "map", "ndcg", "num_rel_ret",
            "map@5(dialect=recommenders)", "ndcg@5(dialect=recommenders)",
            "recall@5(dialect=recommenders)", "coverage", "gini", "novelty", "arp"]


def _data(seed: int, text: bool) -> dict:
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(2, 40)), int(rng.integers(3, 60))

    def ids(values: np.ndarray, prefix: str) -> list:
        return [f"{prefix}{v}" for v in values] if text else (values * 7 + 3).tolist()

    def table(rows: int, graded: bool) -> dict:
        # users and items beyond the others' ranges: seen only in this table
        u = rng.integers(0, n_users + 3, rows)
        i = rng.integers(0, n_items + 3, rows)
        out = {"user": ids(u, "u"), "item": ids(i, "i")}
        if graded:
            out["rating"] = rng.integers(-1, 4, rows).astype(float).tolist()
        return out

    rows = int(rng.integers(1, 15 * n_users))
    recs = {"user": ids(rng.integers(0, n_users, rows), "u"),
            "item": ids(rng.integers(0, n_items, rows), "i"),
            "score": rng.integers(0, 4, rows).astype(float).tolist()}  # many ties
    return {"test": table(int(rng.integers(1, 6 * n_users)), graded=seed % 3 == 0),
            "train": table(int(rng.integers(0, 10 * n_users)), graded=False),
            "recs": recs}


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_codes_path_equals_the_general_path(seed: int, text: bool,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    data = _data(seed, text)
    kwargs = {"exclude": data["train"] if seed % 4 else None, "train": data["train"],
              "k": [None, 3, 20][seed % 3], "missing": ["skip", "zero"][seed % 2],
              "duplicates": "first", "catalogue": 200,
              "relevance": "rating" if "rating" in data["test"] else None}
    if not data["train"]["user"]:
        kwargs["train"] = kwargs["exclude"] = None
    measures = MEASURES if kwargs["train"] is not None else MEASURES[:-2]
    calls = []
    original = evaluation._accuracy_on_codes

    def spy(*args: object, **kw: object) -> object:
        calls.append(result := original(*args, **kw))
        return result

    monkeypatch.setattr(evaluation, "_accuracy_on_codes", spy)
    fast = rw.evaluate_recommendations(data["test"], data["recs"], measures, **kwargs)
    assert calls and calls[0] is not None  # the integer path answered
    monkeypatch.setattr(evaluation, "_accuracy_on_codes", lambda *a, **k: None)
    slow = rw.evaluate_recommendations(data["test"], data["recs"], measures, **kwargs)
    assert fast.users == slow.users
    assert fast.mean.keys() == slow.mean.keys()
    for name in fast.mean:
        assert np.array_equal(fast.mean[name], slow.mean[name], equal_nan=True), name
    for name in fast.per_user:
        assert np.array_equal(fast.per_user[name], slow.per_user[name], equal_nan=True), name
    assert fast.accuracy is not None and slow.accuracy is not None
    assert fast.accuracy.query_ids == slow.accuracy.query_ids


@pytest.mark.parametrize("seed", range(30))
def test_tables_equal_sorting(seed: int) -> None:
    """Membership, positions and merging repeated pairs against numpy's sorting ones."""
    rng = np.random.default_rng(seed)
    span = int(rng.choice([5, 1000, 1 << 23, 10**11]))
    a = rng.integers(0, span, int(rng.integers(0, 400)))
    b = np.concatenate([rng.integers(0, span, int(rng.integers(0, 400))), a[:20]])
    rng.shuffle(b)
    assert np.array_equal(contains(a, b), np.isin(b, a))
    unique_a = np.unique(a)
    rng.shuffle(unique_a)
    found = positions(unique_a, b)
    assert np.array_equal(found >= 0, np.isin(b, unique_a))
    assert np.array_equal(unique_a[found[found >= 0]], b[found >= 0])
    first, owner = first_of_keys(b)
    assert first.sum() == len(np.unique(b))
    assert np.array_equal(b[owner], b) and first[owner].all()


@pytest.mark.parametrize("seed", range(20))
def test_merging_and_exclusion_equal_the_sorted_definitions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 50))
    u, i = rng.integers(0, 30, 300), rng.integers(0, n_items, 300)
    r = rng.integers(0, 5, 300).astype(float)
    merged = Interactions.from_codes(u, i, r, n_items=n_items)
    expected: dict[tuple[int, int], list[float]] = {}
    for a, b, c in zip(u.tolist(), i.tolist(), r.tolist()):
        expected.setdefault((a, b), []).append(c)
    got = {(a, b): (c, n) for a, b, c, n in zip(merged.users.tolist(), merged.items.tolist(),
                                               merged.ratings.tolist(), merged.counts.tolist())}
    assert got == {key: (max(v), len(v)) for key, v in expected.items()}
    lists = Lists.ordered(rng.integers(0, 30, 200), rng.integers(0, n_items, 200),
                          rng.random(200), n_items=n_items, what="t", duplicates="first")
    k = int(rng.integers(1, 8))
    out = exclude_seen(lists, merged, n_items, k)
    seen = set(expected)
    want = []
    for user in np.unique(lists.users).tolist():
        kept = [item for uu, item in zip(lists.users.tolist(), lists.items.tolist())
                if uu == user and (user, item) not in seen][:k]
        want += [(user, item, rank + 1) for rank, item in enumerate(kept)]
    assert list(zip(out.users.tolist(), out.items.tolist(), out.ranks.tolist())) == want


def test_one_options_object_equals_the_keywords() -> None:
    from rankwise.exceptions import InvalidParameterError
    from rankwise.recommenders import RecommenderOptions

    data = _data(3, text=True)
    options = RecommenderOptions(k=3, missing="zero", duplicates="first", relevance="rating",
                                 segment_test="rank")
    by_object = rw.evaluate_recommendations(data["test"], data["recs"], ["ndcg@10", "P@5"],
                                            exclude=data["train"], options=options)
    by_keywords = rw.evaluate_recommendations(data["test"], data["recs"], ["ndcg@10", "P@5"],
                                              exclude=data["train"], k=3, missing="zero",
                                              duplicates="first", relevance="rating")
    assert by_object.mean == by_keywords.mean
    overridden = rw.evaluate_recommendations(data["test"], data["recs"], ["ndcg@10"],
                                             exclude=data["train"], options=options, k=20)
    direct = rw.evaluate_recommendations(data["test"], data["recs"], ["ndcg@10"],
                                         exclude=data["train"], options=options.replace(k=20))
    assert overridden.mean == direct.mean
    for bad in ({"k": 0}, {"k": 2.5}, {"missing": "drop"}, {"duplicates": "last"},
                {"segment_test": "t"}, {"relevance": 3}):
        with pytest.raises(InvalidParameterError):
            RecommenderOptions(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="RecommenderOptions"):
        rw.evaluate_recommendations(data["test"], data["recs"], ["P@5"],
                                    options=rw.EvalOptions())  # type: ignore[arg-type]


def test_the_results_do_not_keep_the_ranking_alive():
    """The accuracy results hold their tie report, not the ranking it would be made from.

    A lazy report keeps the whole ranking (every list's hits and the judgments' ids)
    alive as long as the results: in a comparison of 5 models of 1M users that was
    about 2 GB held for nothing, since the lists' ranks are distinct.
    """
    from rankwise.results import TieReport

    held_out = {"user": [1, 1, 2], "item": ["a", "b", "c"]}
    result = rw.evaluate_recommendations(held_out, {1: ["a", "c"], 2: ["c", "a"]},
                                         ["ndcg@2", "recall@2"])
    assert isinstance(vars(result.accuracy)["_ties"], TieReport)
    assert result.accuracy.ties.queries_mixed == 0
    assert result.mean["recall@2"] == 0.75  # user 1: 1 of 2, user 2: 1 of 1


def test_unsigned_ids_past_the_signed_range_are_one_error() -> None:
    """uint64 ids above 2**63 - 1 (hashed ids) ended in pyarrow's ArrowInvalid (a review);
    those below it are read as the integers they are."""
    import pandas as pd

    from rankwise.exceptions import InputFormatError

    held_out = pd.DataFrame({"user": np.array([1], dtype=np.uint64),
                             "item": np.array([2**64 - 1], dtype=np.uint64)})
    recs = pd.DataFrame({"user": np.array([1, 1], dtype=np.uint64),
                         "item": np.array([2**64 - 1, 5], dtype=np.uint64),
                         "score": [2.0, 1.0]})
    with pytest.raises(InputFormatError, match=r"item id 18446744073709551615 \(row 0\) is past "
                       r"the largest 64-bit signed integer \(2\*\*63 - 1\): give such ids as "
                       r"text"):
        rw.evaluate_recommendations(held_out, recs, ["P@1"])
    small = recs.assign(item=np.array([2**63 - 1, 5], dtype=np.uint64))
    result = rw.evaluate_recommendations(held_out.assign(item=np.uint64(2**63 - 1)), small,
                                         ["P@1"])
    assert result.mean["P@1"] == 1.0


def test_a_user_named_twice_for_the_rows_of_an_array_is_refused() -> None:
    """users=["a", "a"] merged the two rows into one list, interleaved (a review)."""
    from rankwise.exceptions import InputFormatError

    recs = np.array([[12, 10], [11, 13], [14, 15]])
    with pytest.raises(InputFormatError, match=r"^recommendations: users= names user 'a' for "
                       r"rows 0 and 2; each row of a 2-D array is one user's whole list$"):
        rw.evaluate_recommendations({"user": ["a"], "item": [12]}, recs, ["mrr"],
                                    users=["a", "b", "a"])


@pytest.mark.parametrize(("measure", "said"), [
    ("coverag", "unknown measure 'coverag'; did you mean 'coverage'?"),
    ("ginni", "unknown measure 'ginni'; did you mean 'gini'?"),
    ("popre@10", "unknown measure 'popre@10'; did you mean 'Rprec@10'? (or the recommender "
                 "measure 'popreo')"),
])
def test_a_misspelt_measure_gets_one_suggestion(measure: str, said: str) -> None:
    """It said "did you mean 'coverage'? (or a recommender measure did you mean 'coverage'?)"."""
    from rankwise.exceptions import UnknownMeasureError

    with pytest.raises(UnknownMeasureError) as caught:
        rw.evaluate_recommendations({"user": ["a"], "item": ["x"]}, {"a": ["x"]}, [measure])
    assert str(caught.value) == said


def test_a_list_exclude_empties_is_noted() -> None:
    """b recommended only items it had seen: left out under missing='skip' without a word
    (a review); missing='zero' scores it 0."""
    from rankwise.exceptions import InvalidParameterError

    train = {"user": ["a", "b", "b"], "item": ["x", "y", "z"]}
    held_out = {"user": ["a", "b"], "item": ["w", "w"]}
    recs = {"a": ["w", "q"], "b": ["y", "z"]}
    skipped = rw.evaluate_recommendations(held_out, recs, ["recall@2"], exclude=train)
    assert skipped.mean["recall@2"] == 1.0
    assert skipped.notes == ["1 test user: every item of the list is one exclude= removes; "
                             "left out of the means as a user without a list (missing='zero' "
                             "scores such users 0)"]
    zero = rw.evaluate_recommendations(held_out, recs, ["recall@2"], exclude=train,
                                       missing="zero")
    assert zero.mean["recall@2"] == 0.5 and zero.notes == []
    with pytest.raises(InvalidParameterError, match=r"no test user has a recommendation list "
                       r"\(1 list held only items exclude= removes"):
        rw.evaluate_recommendations({"user": ["b"], "item": ["w"]}, recs, ["recall@2"],
                                    exclude=train)
