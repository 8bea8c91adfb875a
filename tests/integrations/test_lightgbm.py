"""LightGBM: rankwise's feval follows LightGBM's own ndcg@k at every iteration, and early
stopping on rankwise's map stops where rw.evaluate, on the saved predictions, says."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import grouped_as_dicts as as_dicts

import rankwise as rw

lgb = pytest.importorskip("lightgbm")

from rankwise.integrations.lightgbm import feval  # noqa: E402


def _datasets(train_valid: tuple) -> tuple:
    (x, y, g), (xv, yv, gv) = train_valid
    train = lgb.Dataset(x, label=y, group=g)
    valid = lgb.Dataset(xv, label=yv, group=gv, reference=train)
    return train, valid


def test_feval_equals_lightgbm_at_every_iteration(train_valid: tuple) -> None:
    train, valid = _datasets(train_valid)
    params = {"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": [1, 5, 10],
              "learning_rate": 0.2, "num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1,
              "num_threads": 1, "deterministic": True}
    mine = ["ndcg@1(dialect=lightgbm)", "ndcg@5(dialect=lightgbm)",
            "ndcg@10(dialect=lightgbm)", "map@5(dialect=lightgbm)", "map@10(dialect=lightgbm)"]
    log: dict = {}
    lgb.train(params, train, num_boost_round=25, valid_sets=[valid], valid_names=["valid"],
              feval=feval(mine), callbacks=[lgb.record_evaluation(log)])
    theirs = log["valid"]
    for measure in mine:
        name = measure.split("(")[0]
        assert len(theirs[f"rankwise.{measure}"]) == 25
        difference = np.abs(np.array(theirs[f"rankwise.{measure}"]) - np.array(theirs[name]))
        assert difference.max() <= 1e-6, (measure, difference.max())
    # the first iterations hold many tied scores (trees of few leaves): still equal
    ours = theirs[f"rankwise.{mine[2]}"]
    assert max(abs(a - b) for a, b in zip(theirs["ndcg@10"], ours)) < 1e-12


def test_the_names_never_collide_with_lightgbms_own(train_valid: tuple) -> None:
    """Issue 33, item 20: metric="ndcg" and feval(["ndcg@10"]) both logged 'valid_0's ndcg@10',
    and record_evaluation interleaved them (10 values for 5 rounds)."""
    _, (xv, yv, gv) = train_valid
    params = {"objective": "lambdarank", "metric": "ndcg", "ndcg_eval_at": [10],
              "learning_rate": 0.2, "num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1,
              "num_threads": 1, "deterministic": True}
    logs = []
    for hook in (None, feval(["ndcg@10"])):
        train, valid = _datasets(train_valid)
        log: dict = {}
        lgb.train(params, train, num_boost_round=5, valid_sets=[valid], feval=hook,
                  callbacks=[lgb.record_evaluation(log)])
        logs.append(log["valid_0"])
    alone, both = logs
    assert list(both) == ["ndcg@10", "rankwise.ndcg@10"]
    assert len(both["ndcg@10"]) == len(both["rankwise.ndcg@10"]) == 5
    assert both["ndcg@10"] == alone["ndcg@10"]  # LightGBM's own values, untouched
    booster = lgb.train(params, _datasets(train_valid)[0], num_boost_round=5)
    for iteration in range(1, 6):  # rankwise's: its ndcg@10 of the saved predictions
        qrels, run = as_dicts(yv, booster.predict(xv, num_iteration=iteration), gv)
        assert both["rankwise.ndcg@10"][iteration - 1] == pytest.approx(
            rw.evaluate(qrels, run, ["ndcg@10"]).mean["ndcg@10"], abs=1e-12)


def test_early_stopping_on_map_picks_the_iteration_rw_evaluate_picks(train_valid: tuple) -> None:
    train, valid = _datasets(train_valid)
    (_, _, _), (xv, yv, gv) = train_valid
    params = {"objective": "lambdarank", "metric": "None", "learning_rate": 0.3,
              "num_leaves": 15, "min_data_in_leaf": 3, "verbose": -1, "num_threads": 1,
              "deterministic": True}
    booster = lgb.train(params, train, num_boost_round=200, valid_sets=[valid],
                        feval=feval(["map"]),
                        callbacks=[lgb.early_stopping(5, first_metric_only=True, verbose=False)])
    stopped = booster.current_iteration()
    assert stopped < 200  # it stopped early
    means = []
    for iteration in range(1, stopped + 1):
        predictions = booster.predict(xv, num_iteration=iteration)
        qrels, run = as_dicts(yv, predictions, gv)
        means.append(rw.evaluate(qrels, run, ["map"]).mean["map"])
    best = int(np.argmax(means)) + 1  # the first best, as LightGBM keeps it
    assert booster.best_iteration == best
    assert booster.best_score["valid_0"]["rankwise.map"] == pytest.approx(means[best - 1],
                                                                          abs=1e-15)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
def test_the_scikit_learn_interface(train_valid: tuple) -> None:
    (x, y, g), (xv, yv, gv) = train_valid
    ranker = lgb.LGBMRanker(n_estimators=5, num_leaves=7, verbose=-1, n_jobs=1)
    ranker.fit(x, y, group=g, eval_set=[(xv, yv)], eval_group=[gv], eval_at=[10],
               eval_metric=feval(["ndcg@10(dialect=lightgbm)", "mrr@10"]))
    log = ranker.evals_result_["valid_0"]
    assert np.allclose(log["rankwise.ndcg@10(dialect=lightgbm)"], log["ndcg@10"], atol=1e-12)
    qrels, run = as_dicts(yv, ranker.predict(xv, raw_score=True), gv)
    assert log["rankwise.mrr@10"][-1] == pytest.approx(
        rw.evaluate(qrels, run, "mrr@10").mean["mrr@10"], abs=1e-15)


def test_feval_needs_groups() -> None:
    data = lgb.Dataset(np.zeros((3, 1)), label=[1.0, 0.0, 1.0]).construct()
    with pytest.raises(rw.InvalidParameterError, match="query groups"):
        feval("ndcg@3")(np.array([0.1, 0.2, 0.3]), data)
