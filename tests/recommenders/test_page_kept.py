"""The report's figures from what the comparison kept (issue 37: the report under 10 s).

Inside :func:`~rankwise.recommenders.page_data.keeping`, each model's
evaluation hands its coded, cut lists to the page, which keeps a share per
popularity bin and each curve's K means instead of reading the lists again.
The figures made so must be those made by reading the lists again, to the
bit (random data with tied scores, interleaved rows, exclusion, users and
items of one model only), and the curves Microsoft Recommenders 1.2.1's
numbers (its unit tests' fixtures, as tests/recommenders/test_measure_curves.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from recommenders_fixtures import COLS, FIX, ORACLE

import rankwise as rw
from rankwise.recommenders import inputs
from rankwise.recommenders.page_data import keeping, page_figures

TOL = 1e-12
MEASURES = ["ndcg@10", "recall@20", "P@5", "map@10", "mrr", "hit@3", "coverage", "novelty"]


def _random_case(seed: int, n_users: int = 120, *, every_user_held_out: bool = False
                 ) -> tuple[Any, Any, dict[str, Any]]:
    """Held-out and training interactions and three models' tables (tied scores, shuffled).

    Some users with a list have no held-out interaction, unless
    *every_user_held_out* (then the evaluation's own count of each item's
    recommendations, for coverage, is the long tail's too).
    """
    rng = np.random.default_rng(seed)
    n_items = 60

    def interactions(n: int, users: np.ndarray) -> dict[str, Any]:
        return {"user": rng.choice(users, n),
                "item": [f"i{x}" for x in rng.integers(0, n_items, n)]}

    train = interactions(12 * n_users, np.arange(n_users))
    held_out = interactions(4 * n_users, np.arange(0, n_users, 2))
    if every_user_held_out:
        held_out = {"user": np.concatenate([held_out["user"], np.arange(n_users + 15)]),
                    "item": [*held_out["item"], *["i0"] * (n_users + 15)]}
    models = {}
    for m in range(3):  # each its own users (some not held out), items not in training
        users = np.repeat(rng.permutation(np.arange(m, n_users + 15)), 25)
        order = rng.permutation(len(users))  # the rows of a user not adjacent
        items = np.array([f"i{x}" for x in rng.integers(0, n_items + 8, len(users))])
        models[f"m{m}"] = {"user": users[order], "item": items[order],
                           "score": rng.integers(0, 4, len(users)).astype(float)[order]}
    return held_out, train, models


def _same_figures(kept: Any, read: Any) -> None:
    (tail, curves), (tail_read, curves_read) = kept, read
    assert tail is not None and tail_read is not None
    assert tail.labels == tail_read.labels and tail.items == tail_read.items
    assert np.array_equal(tail.training, tail_read.training)
    assert list(tail.models) == list(tail_read.models)
    for name, shares in tail_read.models.items():
        assert np.array_equal(tail.models[name], shares), name
    assert curves is not None and curves_read is not None
    assert np.array_equal(curves.cutoffs, curves_read.cutoffs)
    assert list(curves.values) == list(curves_read.values)
    for label, by_model in curves_read.values.items():
        assert list(curves.values[label]) == list(by_model)
        for name, means in by_model.items():
            assert np.array_equal(curves.values[label][name], means), (label, name)


@pytest.mark.parametrize(("seed", "missing", "every_user"), [
    (1, "skip", False), (2, "zero", False), (3, "skip", True)])
def test_kept_figures_are_those_of_the_lists_read_again(seed: int, missing: str,
                                                       every_user: bool) -> None:
    held_out, train, models = _random_case(seed, every_user_held_out=every_user)
    with keeping() as kept:
        result = rw.compare_recommendations(held_out, models, MEASURES, exclude=train, k=20,
                                            missing=missing, duplicates="first", seed=0)
    assert len(kept.kept) == 3 and all(k.curves is not None for k in kept.kept)
    from_kept = page_figures(result, held_out, models, exclude=train, kept=kept)
    read_again = page_figures(result, held_out, models, exclude=train)
    _same_figures(from_kept, read_again)
    # the page itself: the same characters
    assert result.to_html(long_tail=from_kept[0], curves=from_kept[1]) == result.to_html(
        long_tail=read_again[0], curves=read_again[1])
    # each curve at a measure's own cutoff is the comparison's mean of it
    for name in models:
        mean = result.results[name].mean["recall@20"]
        assert from_kept[1].values["recall@k"][name][19] == pytest.approx(mean, abs=TOL)


def test_with_kept_figures_no_list_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    held_out, train, models = _random_case(4)
    with keeping() as kept:
        result = rw.compare_recommendations(held_out, models, MEASURES, exclude=train, k=20,
                                            duplicates="first", seed=0)

    def no_reading(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model's lists were read again")

    monkeypatch.setattr(inputs.Lists, "read", no_reading)
    tail, curves = page_figures(result, held_out, models, exclude=train, kept=kept)
    assert tail is not None and curves is not None and len(curves.cutoffs) == 20


def test_kept_curves_are_recommenders_numbers_at_every_k() -> None:
    grid = ORACLE["grid"]
    models = {"a": FIX["rating_pred"], "b": FIX["rating_pred"]}
    # Recommenders averages precision, recall and map over the users of both tables,
    # ndcg_at_k over every user of the truth (missing="zero")
    curves = {}
    for missing, measures in (("skip", ["P@15", "recall@15", "map@15"]), ("zero", ["ndcg@15"])):
        with keeping() as kept:
            result = rw.compare_recommendations(FIX["rating_true"], models, measures,
                                                columns=COLS, k=15, missing=missing, seed=0)
        _, drawn = page_figures(result, FIX["rating_true"], models, columns=COLS, kept=kept)
        assert drawn is not None
        curves.update(drawn.values)
    names = {"P@k": "precision_at_k", "recall@k": "recall_at_k", "map@k": "map",
             "ndcg@k": "ndcg_at_k"}
    for label, oracle in names.items():
        for model in models:
            expected = [grid[f"{oracle}|k={k}"] for k in range(1, 16)]
            np.testing.assert_allclose(curves[label][model], expected, rtol=0, atol=TOL,
                                       err_msg=label)


def test_what_is_kept_does_not_grow_with_the_users() -> None:
    sizes = []
    for n_users in (60, 600):
        held_out, train, models = _random_case(5, n_users)
        with keeping() as kept:
            rw.compare_recommendations(held_out, models, MEASURES, exclude=train, k=20,
                                       duplicates="first", seed=0)
        sizes.append([k.nbytes for k in kept.kept])
    # 6 curves of 20 means and the popularity bins: by K and bins, not by list rows
    assert sizes[0] == sizes[1]
    assert all(size < 6 * 20 * 8 + 2 * 8 * 8 for size in sizes[1])


def test_without_a_cut_or_with_grades_the_curves_are_read_again() -> None:
    held_out, train, models = _random_case(6)
    with keeping() as kept:  # the curves' K is the longest list of every model: not kept
        result = rw.compare_recommendations(held_out, models, MEASURES, exclude=train,
                                            duplicates="first", seed=0)
    assert all(k.curves is None and k.shares is not None for k in kept.kept)
    _same_figures(page_figures(result, held_out, models, exclude=train, kept=kept),
                  page_figures(result, held_out, models, exclude=train))
    graded = {**held_out, "rating": np.resize([0.0, 1.0, 2.0], len(held_out["user"]))}
    with keeping() as kept:
        result = rw.compare_recommendations(graded, models, ["P@5", "recall@10"],
                                            exclude=train, k=10, relevance="rating",
                                            duplicates="first", seed=0)
    assert all(k.curves is None for k in kept.kept)  # grade 0: not relevant
    _same_figures(page_figures(result, graded, models, exclude=train, kept=kept),
                  page_figures(result, graded, models, exclude=train))
