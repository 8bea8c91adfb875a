"""scikit-learn: the group-aware scorer in GridSearchCV with GroupKFold gives, per fold, the
mean over the fold's queries that rw.evaluate gives."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import grouped_as_dicts, ranking_data

import rankwise as rw

sklearn = pytest.importorskip("sklearn")

from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.model_selection import GridSearchCV, GroupKFold  # noqa: E402

from rankwise.integrations.sklearn import ranking_scorer  # noqa: E402


def _fold_means(x, y, sizes, alpha: float, measure: str) -> list[float]:
    qid = np.repeat(np.arange(len(sizes)), sizes)
    out = []
    for train, test in GroupKFold(n_splits=3).split(x, y, qid):
        model = Ridge(alpha=alpha).fit(x[train], y[train])
        test_sizes = np.unique(qid[test], return_counts=True)[1]
        qrels, run = grouped_as_dicts(y[test], model.predict(x[test]), test_sizes)
        out.append(rw.evaluate(qrels, run, [measure]).mean[measure])
    return out


@pytest.mark.parametrize("measure", ["ndcg@10", "map@5(dialect=lightgbm)"])
def test_grid_search_with_metadata_routing(measure: str) -> None:
    x, y, sizes = ranking_data(60, 3)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=GroupKFold(n_splits=3),
                              scoring=ranking_scorer(measure))
        search.fit(x, y, groups=qid)
    for index, alpha in enumerate([0.1, 10.0]):
        expected = _fold_means(x, y, sizes, alpha, measure)
        got = [search.cv_results_[f"split{i}_test_score"][index] for i in range(3)]
        assert got == pytest.approx(expected, abs=1e-12)


def test_grid_search_with_a_query_column() -> None:
    pandas = pytest.importorskip("pandas")
    x, y, sizes = ranking_data(40, 4)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    frame = pandas.DataFrame(x, columns=[f"f{i}" for i in range(x.shape[1])])
    frame["qid"] = qid
    search = GridSearchCV(Ridge(), {"alpha": [1.0]}, cv=GroupKFold(n_splits=2),
                          scoring=ranking_scorer("ndcg@5", groups="qid"))
    search.fit(frame, y, groups=qid)
    assert np.isfinite(search.best_score_)


def test_scikit_learns_ndcg_score_sees_one_query() -> None:
    """The xgboost #8822 trap: ndcg_score on a whole fold ranks its documents as one query."""
    from sklearn.metrics import ndcg_score

    x, y, sizes = ranking_data(30, 5)
    predictions = Ridge().fit(x, y).predict(x)
    one_query = ndcg_score(y[None, :], predictions[None, :], k=10)
    qrels, run = grouped_as_dicts(y, predictions, sizes)
    grouped = rw.evaluate(qrels, run, ["ndcg@10(dialect=sklearn)"]).mean
    assert abs(one_query - grouped["ndcg@10(dialect=sklearn)"]) > 0.01


def test_routing_must_be_enabled_or_a_column_named() -> None:
    with sklearn.config_context(enable_metadata_routing=False), pytest.raises(
        rw.InvalidParameterError, match="enable_metadata_routing"
    ):
        ranking_scorer("ndcg@10")


def test_the_scorer_is_shown_with_rankwise_name() -> None:
    """Issue 33, item 20: the hooks name their metrics rankwise.<measure>, scikit-learn too."""
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = ranking_scorer("ndcg@10")
    assert repr(scorer) == "make_scorer(rankwise.ndcg@10, response_method='predict')"
