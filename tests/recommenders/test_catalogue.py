"""The catalogue of coverage and Gini (issue 33, items 6 and 22).

A catalogue given must hold every item recommended (coverage is a share: never
above 1); without one, the catalogue is every item of the training, test and
recommendation tables, and the result says so. Expected values are counted by
hand (sets of ids) and by the handbook's Gini formula written out here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw

TEST = {"user": ["u1", "u2"], "item": ["a", "b"]}
LISTS = {"u1": ["a", "b", "c"], "u2": ["b", "c"]}  # issue 33, item 6: 3 items at @2


def _gini(counts: list[int], size: int) -> float:
    """The handbook's Gini over a catalogue of *size* items (zeros for those never shown)."""
    c = np.sort(np.array(counts + [0] * (size - len(counts)), dtype=float))
    j = np.arange(1, size + 1)
    return float(np.sum((2 * j - size - 1) * c / c.sum()) / (size - 1))


def test_a_catalogue_number_below_the_items_recommended_is_refused() -> None:
    # before: coverage@2 = 3 distinct items / 1 = 3.0
    with pytest.raises(rw.InvalidParameterError) as error:
        rw.evaluate_recommendations(TEST, LISTS, ["coverage@2"], catalogue=1)
    message = str(error.value)
    assert "coverage@2: the catalogue given (1 item) is smaller than the 3 distinct items " \
           "recommended" in message
    assert "give catalogue= all items" in message


def test_items_outside_the_catalogue_given_are_named() -> None:
    # before: 3 items recommended / a catalogue of 2 ids = 1.5
    for catalogue in (["a", "z"], {"item": ["a", "z"]}):
        with pytest.raises(rw.InvalidParameterError) as error:
            rw.evaluate_recommendations(TEST, LISTS, ["coverage@2"], catalogue=catalogue)
        assert "coverage@2: 2 of the 3 distinct items recommended are not in the catalogue " \
               "given (2 items): 'b', 'c'" in str(error.value)
    with pytest.raises(rw.InvalidParameterError, match="gini: 2 of the 3"):
        rw.evaluate_recommendations(TEST, LISTS, ["gini"], catalogue=["a", "z", "y", "x"])


def test_a_catalogue_that_holds_the_lists_gives_the_share() -> None:
    r = rw.evaluate_recommendations(TEST, LISTS, ["coverage@2", "coverage@1", "gini@2"],
                                    catalogue=["a", "b", "c", "d"])
    assert r.mean["coverage@2"] == 3 / 4
    assert r.mean["coverage@1"] == 2 / 4  # a, b
    assert r.mean["gini@2"] == pytest.approx(_gini([1, 2, 1], 4), abs=1e-15)
    assert r.notes == []  # a catalogue was given: nothing to say


@settings(max_examples=60, deadline=None)
@given(lists=st.dictionaries(st.sampled_from(["u1", "u2", "u3"]),
                             st.lists(st.integers(0, 9), min_size=1, max_size=6, unique=True),
                             min_size=1),
       catalogue=st.lists(st.integers(0, 12), min_size=1, max_size=12, unique=True),
       cutoff=st.integers(1, 6))
def test_coverage_is_a_share_or_an_error(lists: dict[str, list[int]], catalogue: list[int],
                                         cutoff: int) -> None:
    recommended = {item for items in lists.values() for item in items[:cutoff]}
    holds = recommended <= set(catalogue)
    for given_as in (catalogue, len(catalogue)):
        fits = holds if isinstance(given_as, list) else len(recommended) <= len(catalogue)
        if not fits:
            with pytest.raises(rw.InvalidParameterError, match="catalogue given"):
                rw.evaluate_recommendations(None, lists, [f"coverage@{cutoff}"],
                                            catalogue=given_as)
            continue
        r = rw.evaluate_recommendations(None, lists, [f"coverage@{cutoff}"], catalogue=given_as)
        assert r.mean[f"coverage@{cutoff}"] == len(recommended) / len(catalogue) <= 1


def test_the_default_catalogue_is_every_item_of_training_test_and_lists() -> None:
    """Issue 33, item 22: a model recommends items absent from training (x, y)."""
    train = {"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}
    test = {"user": ["u1", "u2"], "item": ["c", "d"]}
    recs = {"u1": ["x", "c", "d"], "u2": ["y", "d", "a"]}
    # before: "the catalogue (3 items) is smaller than the 5 items recommended"
    r = rw.evaluate_recommendations(test, recs, ["coverage", "gini", "coverage@1", "P@1"],
                                    exclude=train)
    # training a b c, test c d, lists x c d y a: 6 items; after the exclusion the lists are
    # u1: x c d, u2: y d a, 5 distinct items (d twice)
    assert r.mean["coverage"] == 5 / 6
    assert r.mean["coverage@1"] == 2 / 6
    assert r.mean["gini"] == pytest.approx(_gini([1, 1, 2, 1, 1], 6), abs=1e-15)
    assert r.notes == ["coverage, gini, coverage@1: the catalogue is the 6 items of the "
                       "training, test and recommendation tables; give catalogue= all items "
                       "to count the ones in none of them"]
    # without training: the test's and the lists' items (a c d x y)
    alone = rw.evaluate_recommendations(test, recs, ["coverage"])
    assert alone.mean["coverage"] == 5 / 5
    assert "the 5 items of the test and recommendation tables" in alone.notes[0]
    # measures that do not read the catalogue say nothing of it
    assert rw.evaluate_recommendations(test, recs, ["P@1", "entropy"]).notes == []


def test_recommendations_alone_make_no_catalogue() -> None:
    with pytest.raises(rw.InvalidParameterError,
                       match=r"coverage needs the catalogue: give catalogue= .* or train="):
        rw.evaluate_recommendations(None, LISTS, ["coverage"])


def test_the_note_is_in_the_report() -> None:
    r = rw.evaluate_recommendations(TEST, LISTS, ["coverage"])
    assert "the catalogue is the 3 items of the test and recommendation tables" in r.to_html()
