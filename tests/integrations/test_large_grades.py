"""Grades of 1024 and more, and grades that are not numbers, in every training hook (issue 33,
item 9): rw.evaluate's rule everywhere.

rw.evaluate computes nDCG exactly at any grade (2^g - 1 overflows float64 from g = 1024 on: each
query's gains are scaled by a power of two), refuses a DCG beyond float64's range, and refuses a
grade of NaN or infinity. The hooks (LightGBM, XGBoost, CatBoost, scikit-learn) returned NaN for
nDCG and infinity for DCG, silently, and took NaN labels. Each hook is trained for real on tiny
data, and every value it logs is checked against nDCG computed exactly (the gains as integers,
Fraction arithmetic).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import rankwise as rw
from rankwise.integrations import evaluate_groups

SIZES = np.array([8, 8, 8, 8, 8])
K = 5


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels (grades 0-3, and 1024, 1029, 1030, 2000 in three of the queries), qid."""
    rng = np.random.default_rng(7)
    n = int(SIZES.sum())
    x = rng.normal(size=(n, 3))
    labels = rng.integers(0, 4, size=n).astype(np.float64)
    labels[[1, 4]] = [1030.0, 1029.0]  # query 0: two large grades, their order matters
    labels[[10, 12]] = [2000.0, 1024.0]  # query 1
    labels[27] = 1024.0  # query 3
    labels[[16, 17]] = [1.0, 2.0]  # query 2 has small grades only
    x[:, 0] += labels / 500.0  # something to learn
    return x, labels, np.repeat(np.arange(len(SIZES)), SIZES)


def _exact_ndcg(labels: np.ndarray, scores: np.ndarray, k: int, later_first: bool) -> float:
    """nDCG@k of one query, gain 2^g - 1, in exact arithmetic (discounts as floats).

    Tied scores: later rows first (rankwise's rule: a row's id is its position, ties by id
    descending) or earlier rows first (LightGBM, XGBoost: input order).
    """
    rows = range(len(labels))
    order = sorted(rows, key=lambda i: (-scores[i], -i if later_first else i))

    def dcg(grades: list[float]) -> Fraction:
        return sum((Fraction(2 ** int(g) - 1) * Fraction(1.0 / math.log2(r + 2))
                    for r, g in enumerate(grades[:k])), Fraction(0))

    ideal = dcg(sorted(labels.tolist(), reverse=True))
    return float(dcg([labels[i] for i in order]) / ideal)


def _exact_mean(labels: np.ndarray, scores: np.ndarray, qid: np.ndarray, k: int,
                later_first: bool = True) -> float:
    values = [_exact_ndcg(labels[qid == q], scores[qid == q], k, later_first)
              for q in np.unique(qid)]
    return math.fsum(values) / len(values)


def test_the_data_overflows_the_exponential_gain() -> None:
    _, labels, _ = _data()
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.exp2(labels)).all()


def test_rw_evaluate_computes_every_dialects_ndcg_exactly() -> None:
    """The rule: rankwise's ndcg, and the dialects with the exponential gain (which used to give
    NaN and leave the query out of the mean silently)."""
    _, labels, qid = _data()
    scores = np.random.default_rng(1).permutation(len(labels)) / len(labels)  # no ties
    qrels = {str(q): {f"d{i}": float(labels[i]) for i in np.flatnonzero(qid == q)}
             for q in np.unique(qid)}
    run = {str(q): {f"d{i}": float(scores[i]) for i in np.flatnonzero(qid == q)}
           for q in np.unique(qid)}
    exact = _exact_mean(labels, scores, qid, K)
    for measure in (f"ndcg@{K}", f"ndcg@{K}(dialect=lightgbm)", f"ndcg@{K}(dialect=xgboost)",
                    f"ndcg@{K}(dialect=catboost,gain=exp)"):
        results = rw.evaluate(qrels, run, [measure])
        assert bool(np.all(np.isfinite(results[measure]))), measure
        assert results.mean[measure] == pytest.approx(exact, rel=1e-13), measure


def test_evaluate_groups_refuses_dcg_beyond_float64_with_rw_evaluates_message() -> None:
    _, labels, _ = _data()
    scores = np.linspace(1.0, 0.0, len(labels))
    qrels = {"q": {f"d{i}": float(labels[i]) for i in range(8)}}
    run = {"q": {f"d{i}": float(scores[i]) for i in range(8)}}
    for measure in (f"dcg@{K}", f"dcg@{K}(dialect=catboost,gain=exp)"):
        with pytest.raises(rw.UnsupportedMeasureError) as theirs:
            rw.evaluate(qrels, run, [measure])
        with pytest.raises(rw.UnsupportedMeasureError) as ours:
            evaluate_groups(labels[:8], scores[:8], [8], [measure])
        assert str(ours.value) == str(theirs.value)
        assert "larger than the largest float64" in str(ours.value)


def test_lightgbm_feval_in_training() -> None:
    lgb = pytest.importorskip("lightgbm")
    from rankwise.integrations.lightgbm import feval

    x, labels, qid = _data()
    data = lgb.Dataset(x, labels, group=SIZES)
    params = {"objective": "regression", "metric": "None", "verbose": -1, "num_threads": 1,
              "min_data_in_leaf": 2, "deterministic": True}
    log: dict = {}
    booster = lgb.train(params, data, num_boost_round=3, valid_sets=[data], valid_names=["v"],
                        feval=feval([f"ndcg@{K}", f"ndcg@{K}(dialect=lightgbm)"]),
                        callbacks=[lgb.record_evaluation(log)])
    compared = 0
    for iteration in range(1, 4):
        scores = booster.predict(x, num_iteration=iteration)
        ours = log["v"][f"rankwise.ndcg@{K}"][iteration - 1]
        assert ours == pytest.approx(_exact_mean(labels, scores, qid, K), rel=1e-13)
        lightgbm = log["v"][f"rankwise.ndcg@{K}(dialect=lightgbm)"][iteration - 1]
        assert lightgbm == pytest.approx(_exact_mean(labels, scores, qid, K, False), rel=1e-13)
        compared += 2
    assert compared == 6


def test_xgboost_custom_metric_in_training() -> None:
    xgb = pytest.importorskip("xgboost")
    from rankwise.integrations.xgboost import custom_metric, eval_metric

    x, labels, qid = _data()
    data = xgb.DMatrix(x, label=labels, qid=qid)
    log: dict = {}
    hook = custom_metric([f"ndcg@{K}", f"ndcg@{K}(dialect=xgboost)"])
    booster = xgb.train({"objective": "reg:squarederror", "max_depth": 2, "nthread": 1}, data,
                        num_boost_round=3, evals=[(data, "v")], verbose_eval=False,
                        evals_result=log, custom_metric=hook)
    for iteration in range(1, 4):
        scores = booster.predict(data, iteration_range=(0, iteration))
        own = _exact_mean(labels, scores, qid, K)
        # XGBoost ranks float32 scores, ties in input order
        single = scores.astype(np.float32).astype(np.float64)
        theirs = _exact_mean(labels, single, qid, K, False)
        # XGBoost logs 6 decimals; the hook's own values at full precision
        assert log["v"][f"rankwise.ndcg@{K}"][iteration - 1] == pytest.approx(own, abs=1e-6)
        assert log["v"][f"rankwise.ndcg@{K}(dialect=xgboost)"][iteration - 1] == pytest.approx(
            theirs, abs=1e-6)
        values = dict(hook(scores, data))
        assert values[f"rankwise.ndcg@{K}"] == pytest.approx(own, rel=1e-13)
        assert values[f"rankwise.ndcg@{K}(dialect=xgboost)"] == pytest.approx(theirs, rel=1e-13)
    one = eval_metric(f"ndcg@{K}")  # XGBRanker's per-group metric
    scores = booster.predict(data)
    assert one(labels[:8], scores[:8]) == pytest.approx(
        _exact_ndcg(labels[:8], scores[:8], K, True), rel=1e-13)


def test_catboost_metric_in_training() -> None:
    catboost = pytest.importorskip("catboost")
    from rankwise.integrations.catboost import metric

    x, labels, qid = _data()
    pool = catboost.Pool(x, labels, group_id=qid)
    model = catboost.CatBoostRegressor(
        iterations=3, depth=2, verbose=0, thread_count=1, random_seed=0,
        allow_writing_files=False, eval_metric=metric(f"ndcg@{K}", group_id=pool),
    )
    model.fit(pool, eval_set=pool)
    logged = model.get_evals_result()["validation"][f"rankwise.ndcg@{K}"]
    assert len(logged) == 3
    staged = list(model.staged_predict(pool, prediction_type="RawFormulaVal"))
    for value, scores in zip(logged, staged):
        assert value == pytest.approx(_exact_mean(labels, scores, qid, K), rel=1e-13)


def test_scikit_learn_scorer_in_cross_validation() -> None:
    pytest.importorskip("sklearn")
    pandas = pytest.importorskip("pandas")
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, cross_validate

    from rankwise.integrations.sklearn import ranking_scorer

    x, labels, qid = _data()
    frame = pandas.DataFrame(x, columns=["a", "b", "c"])
    frame["qid"] = qid
    folds = list(GroupKFold(n_splits=2).split(frame, labels, qid))
    scores = cross_validate(Ridge(), frame, labels, groups=qid, cv=folds,
                            scoring=ranking_scorer(f"ndcg@{K}", groups="qid"))["test_score"]
    for (train, test), got in zip(folds, scores):
        predicted = Ridge().fit(frame.iloc[train], labels[train]).predict(frame.iloc[test])
        assert got == pytest.approx(_exact_mean(labels[test], predicted, qid[test], K),
                                    rel=1e-13)


PREDICTIONS = np.array([0.4, 0.3, 0.2, 0.1])


def _call_hook(library: str, labels: np.ndarray) -> object:
    """The hook of *library*, called as the library calls it, on one query of four rows."""
    if library == "lightgbm":
        from rankwise.integrations.lightgbm import feval

        return feval("ndcg@3")(labels, PREDICTIONS, None, [4])
    if library == "xgboost":
        from rankwise.integrations.xgboost import eval_metric

        return eval_metric("ndcg@3")(labels, PREDICTIONS)
    if library == "catboost":
        from rankwise.integrations.catboost import metric

        return metric("ndcg@3", group_id=np.zeros(4)).evaluate([PREDICTIONS], labels, None)
    from rankwise.integrations.sklearn import GroupScore

    return GroupScore("ndcg@3")(labels, PREDICTIONS, groups=np.zeros(4))


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost", "sklearn"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_every_hook_refuses_a_grade_that_is_not_a_number(library: str, bad: float) -> None:
    """The rule and the words of rw.evaluate, the same message from every hook."""
    pytest.importorskip(library)
    with pytest.raises(rw.InputFormatError) as direct:
        rw.evaluate({"q": {"a": bad}}, {"q": {"a": 1.0}}, ["ndcg@3"])
    assert "must be a finite number" in str(direct.value)
    with pytest.raises(rw.InputFormatError) as caught:
        _call_hook(library, np.array([1.0, bad, 0.0, 2.0]))
    assert str(caught.value) == (
        f"labels: relevance grade (label) of row 1 must be a finite number, got {bad}: give "
        "every row a grade, or drop the rows without one")
