"""rankwise.recommenders against Microsoft Recommenders 1.2.1 on its unit tests' data.

The fixtures and the package's exact outputs are in data/ (see data/README.md).
Accuracy: precision_at_k, recall_at_k, ndcg_at_k (binary, raw, exp) and map
(Recommenders' map divides by |T_u|, rankwise's map@k) at k = 1..15;
map_at_k (divides by min(|T_u|, k)) needs the ``recommenders`` dialect.
Beyond accuracy: catalog_coverage, distributional_coverage, novelty,
diversity and user_diversity (co-occurrence and feature vectors),
serendipity, user_serendipity, user_item_serendipity.
"""

from __future__ import annotations

import numpy as np
import pytest
from recommenders_fixtures import COLS, FIX, ORACLE

import rankwise as rw
from rankwise.recommenders import beyond
from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary

TOL = 1e-12


def _oracle(function: str, pred: str, **kwargs: object) -> float:
    for case in ORACLE["ranking_cases"]:
        if case["function"] == function and case["rating_pred"] == pred and all(
                case["kwargs"].get(k) == v for k, v in kwargs.items()):
            return float(case["value"])
    raise KeyError((function, pred, kwargs))


@pytest.mark.parametrize("k", range(1, 16))
def test_grid_precision_recall_ndcg_map(k: int) -> None:
    grid = ORACLE["grid"]
    common = rw.evaluate_recommendations(
        FIX["rating_true"], FIX["rating_pred"], [f"P@{k}", f"recall@{k}", f"map@{k}"],
        columns=COLS)
    assert common.mean[f"P@{k}"] == pytest.approx(grid[f"precision_at_k|k={k}"], abs=TOL)
    assert common.mean[f"recall@{k}"] == pytest.approx(grid[f"recall_at_k|k={k}"], abs=TOL)
    assert common.mean[f"map@{k}"] == pytest.approx(grid[f"map|k={k}"], abs=TOL)
    # nDCG averages over every truth user (missing="zero"); binary gain = grade 1
    ndcg = rw.evaluate_recommendations(
        FIX["rating_true"], FIX["rating_pred"], [f"ndcg@{k}"], columns=COLS, missing="zero")
    assert ndcg.mean[f"ndcg@{k}"] == pytest.approx(grid[f"ndcg_at_k|k={k}"], abs=TOL)
    # score_type raw (gain = rating) and exp (2^rating - 1): the ratings as grades
    graded = rw.evaluate_recommendations(
        FIX["rating_true"], FIX["rating_pred"], [f"ndcg@{k}(gain=linear)", f"ndcg@{k}"],
        columns=COLS, missing="zero", relevance="rating")
    for discfun in ("loge", "log2"):
        assert graded.mean[f"ndcg@{k}(gain=linear)"] == pytest.approx(
            grid[f"ndcg_at_k|k={k}|score_type=raw|discfun={discfun}"], abs=TOL)
        assert graded.mean[f"ndcg@{k}"] == pytest.approx(
            grid[f"ndcg_at_k|k={k}|score_type=exp|discfun={discfun}"], abs=TOL)


def test_map_at_k_with_the_recommenders_dialect() -> None:
    try:
        rw.parse("map@10(dialect=recommenders)")
    except rw.RankwiseError:
        pytest.skip("the recommenders dialect (issue 17) is not in this tree")
    grid = ORACLE["grid"]
    for k in range(1, 16):
        r = rw.evaluate_recommendations(FIX["rating_true"], FIX["rating_pred"],
                                        [f"map@{k}(dialect=recommenders)"], columns=COLS)
        assert r.mean[f"map@{k}(dialect=recommenders)"] == pytest.approx(
            grid[f"map_at_k|k={k}"], abs=TOL)


@pytest.mark.parametrize("pred", ["rating_true", "rating_nohit", "rating_pred"])
def test_unit_test_cases(pred: str) -> None:
    cols = dict(COLS, score="rating" if pred == "rating_true" else "prediction")
    extra = {"col_prediction": "rating"} if pred == "rating_true" else {}
    # rating_nohit lists item 100 many times per user: keep the first of each
    r = rw.evaluate_recommendations(FIX["rating_true"], FIX[pred], ["P@10", "recall@10",
                                    "map@10"], columns=cols, duplicates="first")
    assert r.mean["P@10"] == pytest.approx(_oracle("precision_at_k", pred, **extra), abs=TOL)
    assert r.mean["recall@10"] == pytest.approx(_oracle("recall_at_k", pred, **extra), abs=TOL)
    assert r.mean["map@10"] == pytest.approx(_oracle("map", pred, **extra), abs=TOL)
    n = rw.evaluate_recommendations(FIX["rating_true"], FIX[pred], ["ndcg@10"], columns=cols,
                                    missing="zero", duplicates="first")
    assert n.mean["ndcg@10"] == pytest.approx(_oracle("ndcg_at_k", pred, **extra), abs=TOL)


def test_wikipedia_raw_dcg_example() -> None:
    r = rw.evaluate_recommendations(FIX["wiki_true"], FIX["wiki_pred"], ["ndcg@6(gain=linear)"],
                                    columns=COLS, relevance="rating")
    assert r.mean["ndcg@6(gain=linear)"] == pytest.approx(
        _oracle("ndcg_at_k", "wiki_pred"), abs=TOL)


@pytest.mark.parametrize(("k", "expected"), [(3, 1.0), (5, 0.6)])
def test_precision_divides_by_k_past_the_list(k: int, expected: float) -> None:
    cols = dict(COLS, score="rating")
    r = rw.evaluate_recommendations(FIX["same_items"], FIX["same_items"], [f"P@{k}"],
                                    columns=cols)
    assert r.mean[f"P@{k}"] == expected


# beyond accuracy ---------------------------------------------------------------------------
BCOLS = {"user": "UserId", "item": "ItemId"}


def _beyond_oracle(function: str, features: bool = False) -> object:
    measure = "item_feature_vector" if features else "item_cooccurrence_count"
    for case in ORACLE["beyond_accuracy_cases"]:
        if case["function"] == function and case["kwargs"].get(
                "item_sim_measure", measure) == measure:
            return case["value"]
    raise KeyError(function)


def _reco_all_users(measures: list[str], **kwargs: object) -> rw.recommenders.RecommenderResults:
    """Beyond-accuracy on the reco's users (no judgments), as Recommenders does."""
    return rw.evaluate_recommendations(None, FIX["diversity_reco"], measures,
                                       train=FIX["diversity_train"], columns=BCOLS, **kwargs)


def test_catalog_coverage_entropy_novelty() -> None:
    r = _reco_all_users(["coverage", "entropy", "novelty(dialect=recommenders)"])
    assert r.mean["coverage"] == pytest.approx(_beyond_oracle("catalog_coverage"), abs=TOL)
    assert r.mean["entropy"] == pytest.approx(_beyond_oracle("distributional_coverage"),
                                              abs=TOL)
    assert r.mean["novelty(dialect=recommenders)"] == pytest.approx(
        _beyond_oracle("novelty"), abs=TOL)


def _features() -> dict:
    f = FIX["item_features"]
    return dict(zip(f["ItemId"], f["features"]))


@pytest.mark.parametrize("features", [False, True])
def test_diversity_is_ild(features: bool) -> None:
    kwargs = {"features": _features()} if features else {}
    r = _reco_all_users(["ild"], **kwargs)
    expected = _beyond_oracle("user_diversity", features)
    assert r.users == expected["UserId"]
    np.testing.assert_allclose(r.per_user["ild"], expected["user_diversity"], rtol=0,
                               atol=TOL)
    assert r.mean["ild"] == pytest.approx(_beyond_oracle("diversity", features), abs=TOL)


@pytest.mark.parametrize("features", [False, True])
def test_serendipity_against_history(features: bool) -> None:
    users, items = Vocabulary("user"), Vocabulary("item")
    reco = FIX["diversity_reco"]
    lists = Lists.read(reco, users, items, columns=BCOLS)
    train = Interactions.read(FIX["diversity_train"], users, items, columns=BCOLS,
                              rating=False)
    if features:
        f = _features()
        vectors = np.zeros((len(items), len(next(iter(f.values())))))
        vectors[items.lookup(list(f))] = list(f.values())
    else:
        from scipy import sparse

        vectors = sparse.csr_matrix((np.ones(len(train.users)), (train.items, train.users)),
                                    shape=(len(items), len(users)))
    relevance = np.asarray(reco["Relevance"], dtype=float)  # lists keep reco's row order here
    assert lists.items.tolist() == items.lookup(reco["ItemId"]).tolist()
    per_row, per_user = beyond.history_serendipity(lists, train, vectors, relevance, len(users))
    expected_rows = _beyond_oracle("user_item_serendipity", features)
    np.testing.assert_allclose(per_row, expected_rows["user_item_serendipity"], rtol=0,
                               atol=TOL)
    expected_users = _beyond_oracle("user_serendipity", features)
    np.testing.assert_allclose(per_user[users.lookup(expected_users["UserId"])],
                               expected_users["user_serendipity"], rtol=0, atol=TOL)
    assert float(np.mean(per_user)) == pytest.approx(_beyond_oracle("serendipity", features),
                                                     abs=TOL)


def test_serendipity_dialect_in_the_front_door() -> None:
    """Relevance = the item is a held-out interaction: the reco's Relevance column as test."""
    reco = FIX["diversity_reco"]
    test = {"UserId": [u for u, r in zip(reco["UserId"], reco["Relevance"]) if r],
            "ItemId": [i for i, r in zip(reco["ItemId"], reco["Relevance"]) if r]}
    r = rw.evaluate_recommendations(test, reco, ["serendipity(dialect=recommenders)"],
                                    train=FIX["diversity_train"], columns=BCOLS)
    assert r.mean["serendipity(dialect=recommenders)"] == pytest.approx(
        _beyond_oracle("serendipity"), abs=TOL)


def test_map_at_k_probe_where_the_denominators_differ() -> None:
    """|T| = 5, k = 3, hits at ranks 1 and 3: map_at_k (1 + 2/3) / 3, map (1 + 2/3) / 5.

    Recommenders 1.2 (PR #2004) divides map_at_k by min(|T|, k) and map by |T|
    (docs/recommenders.md); values from the installed package (notes, issue 20).
    """
    test = {"user": [1] * 5, "item": ["a", "b", "c", "d", "e"]}
    recs = {1: ["a", "x", "b"]}
    r = rw.evaluate_recommendations(test, recs, ["map@3(dialect=recommenders)", "map@3"])
    assert r.mean["map@3(dialect=recommenders)"] == pytest.approx(5 / 9, abs=1e-15)
    assert r.mean["map@3"] == pytest.approx(1 / 3, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_map_at_k_equals_the_installed_recommenders(seed: int) -> None:
    """``map_at_k`` of Microsoft Recommenders (1.2.x, in this process) to 1e-12.

    Random judgments with up to 30 items per user (|T| > k often), scores
    with many ties (Recommenders keeps the row order: so does rankwise),
    users without predictions and predictions for users without judgments.
    """
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    import pandas as pd

    rng = np.random.default_rng(seed)
    true = {"userID": [], "itemID": [], "rating": []}
    pred = {"userID": [], "itemID": [], "prediction": []}
    for user in range(40):
        if user % 9 != 8:
            for item in rng.choice(60, int(rng.integers(1, 30)), replace=False).tolist():
                true["userID"].append(user)
                true["itemID"].append(item)
                true["rating"].append(1.0)
        if user % 7 != 6:
            for item in rng.choice(60, int(rng.integers(1, 25)), replace=False).tolist():
                pred["userID"].append(user)
                pred["itemID"].append(item)
                pred["prediction"].append(float(rng.integers(0, 4)))
    cols = {"user": "userID", "item": "itemID", "score": "prediction"}
    for k in (1, 3, 5, 10, 20):
        want = pe.map_at_k(pd.DataFrame(true), pd.DataFrame(pred), k=k)
        got = rw.evaluate_recommendations(true, pred, [f"map@{k}(dialect=recommenders)"],
                                          columns=cols)
        assert got.mean[f"map@{k}(dialect=recommenders)"] == pytest.approx(want, abs=1e-12)
