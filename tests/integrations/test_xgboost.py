"""XGBoost: rankwise's metrics follow XGBoost's own at every iteration (xgb.train), and work
as XGBRanker's callable eval_metric."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import grouped_as_dicts

import rankwise as rw

xgb = pytest.importorskip("xgboost")

from rankwise.integrations.xgboost import custom_metric, eval_metric  # noqa: E402


def test_custom_metric_equals_xgboost_at_every_iteration(train_valid: tuple) -> None:
    (x, y, g), (xv, yv, gv) = train_valid
    train = xgb.DMatrix(x, label=y, qid=np.repeat(np.arange(len(g)), g))
    valid = xgb.DMatrix(xv, label=yv, qid=np.repeat(np.arange(len(gv)), gv))
    params = {"objective": "rank:ndcg", "eval_metric": ["ndcg@5", "ndcg@10", "ndcg"],
              "max_depth": 3, "eta": 0.3, "nthread": 1}
    metric = custom_metric(["ndcg@5(dialect=xgboost)", "ndcg@10(dialect=xgboost)",
                            "ndcg(dialect=xgboost)"])
    log: dict = {}
    booster = xgb.train(params, train, num_boost_round=15, evals=[(valid, "valid")],
                        verbose_eval=False, custom_metric=metric, evals_result=log)
    # XGBoost logs its own values and the custom metric's, each printed with 6 decimals
    for k in ("ndcg@5", "ndcg@10", "ndcg"):
        assert len(log["valid"][k]) == 15
        assert np.allclose(log["valid"][k], log["valid"][f"rankwise.{k}(dialect=xgboost)"],
                           atol=1e-6)
    # and at full precision, iteration by iteration, from the saved predictions
    for iteration in range(1, 16):
        ours = dict(metric(booster.predict(valid, iteration_range=(0, iteration)), valid))
        for k in ("ndcg@5", "ndcg@10", "ndcg"):
            assert abs(ours[f"rankwise.{k}(dialect=xgboost)"]
                       - log["valid"][k][iteration - 1]) <= 1e-6


def test_the_names_never_collide_with_xgboosts_own(train_valid: tuple) -> None:
    """Issue 33, item 20: eval_metric "ndcg@10" and custom_metric(["ndcg@10"]) shared one name,
    so evals_result held one list of both (30 values for 15 rounds)."""
    (x, y, g), (xv, yv, gv) = train_valid
    train = xgb.DMatrix(x, label=y, qid=np.repeat(np.arange(len(g)), g))
    valid = xgb.DMatrix(xv, label=yv, qid=np.repeat(np.arange(len(gv)), gv))
    params = {"objective": "rank:ndcg", "eval_metric": ["ndcg@10"], "max_depth": 3, "eta": 0.3,
              "nthread": 1}
    logs = []
    for hook in (None, custom_metric(["ndcg@10"])):
        log: dict = {}
        booster = xgb.train(params, train, num_boost_round=5, evals=[(valid, "valid")],
                            verbose_eval=False, custom_metric=hook, evals_result=log)
        logs.append(log["valid"])
    alone, both = logs
    assert list(both) == ["ndcg@10", "rankwise.ndcg@10"]
    assert len(both["ndcg@10"]) == len(both["rankwise.ndcg@10"]) == 5
    assert both["ndcg@10"] == alone["ndcg@10"]  # XGBoost's own values, untouched
    for iteration in range(1, 6):  # rankwise's (printed with 6 decimals)
        qrels, run = grouped_as_dicts(
            yv, booster.predict(valid, iteration_range=(0, iteration)).astype(np.float64), gv)
        assert both["rankwise.ndcg@10"][iteration - 1] == pytest.approx(
            rw.evaluate(qrels, run, ["ndcg@10"]).mean["ndcg@10"], abs=1e-6)


def test_the_map_and_precision_of_xgboost(train_valid: tuple) -> None:
    (x, y, g), (xv, yv, gv) = train_valid
    binary, binary_valid = (y >= 1).astype(float), (yv >= 1).astype(float)
    train = xgb.DMatrix(x, label=binary, qid=np.repeat(np.arange(len(g)), g))
    valid = xgb.DMatrix(xv, label=binary_valid, qid=np.repeat(np.arange(len(gv)), gv))
    params = {"objective": "rank:map", "eval_metric": ["map@5", "map-", "pre@5"],
              "max_depth": 3, "nthread": 1}
    log: dict = {}
    xgb.train(params, train, num_boost_round=8, evals=[(valid, "valid")], verbose_eval=False,
              evals_result=log,
              custom_metric=custom_metric(["map@5(dialect=xgboost)",
                                           "map(dialect=xgboost,empty=0)",
                                           "P@5(dialect=xgboost)"]))
    pairs = [("map@5", "map@5(dialect=xgboost)"), ("map-", "map(dialect=xgboost,empty=0)"),
             ("pre@5", "P@5(dialect=xgboost)")]
    for theirs, ours in pairs:
        assert np.allclose(log["valid"][theirs], log["valid"][f"rankwise.{ours}"], atol=1e-6), (
            theirs)


def test_xgbranker_eval_metric(train_valid: tuple) -> None:
    (x, y, g), (xv, yv, gv) = train_valid
    qid, qid_valid = np.repeat(np.arange(len(g)), g), np.repeat(np.arange(len(gv)), gv)
    metric = eval_metric("mrr@10")
    ranker = xgb.XGBRanker(n_estimators=4, max_depth=3, eval_metric=metric, n_jobs=1)
    ranker.fit(x, y, qid=qid, eval_set=[(xv, yv)], eval_qid=[qid_valid], verbose=False)
    logged = ranker.evals_result()["validation_0"]["rankwise.mrr@10"][-1]
    qrels, run = grouped_as_dicts(yv, ranker.predict(xv), gv)
    results = rw.evaluate(qrels, run, ["mrr@10"])
    by_group = np.argsort([int(q) for q in results.query_ids])  # ids "0", "1", ..., "10"
    per_query = results["mrr@10"][by_group]
    # XGBRanker calls the metric per group, gives 1.0 to a group of one document, and
    # averages the groups weighted by their sizes (it takes DMatrix.get_group(), the sizes,
    # for group weights: xgboost/sklearn.py, ltr_metric_decorator)
    per_query = np.where(gv == 1, 1.0, per_query)
    assert logged == pytest.approx(np.average(per_query, weights=gv), abs=1e-6)


def test_custom_metric_needs_groups() -> None:
    data = xgb.DMatrix(np.zeros((2, 1)), label=[1.0, 0.0])
    with pytest.raises(rw.InvalidParameterError, match="query groups"):
        custom_metric("ndcg@3")(np.array([0.1, 0.2]), data)
