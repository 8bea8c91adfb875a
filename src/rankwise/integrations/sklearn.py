"""A group-aware scikit-learn scorer: a rankwise measure over query groups.

scikit-learn's ``ndcg_score`` sees one row per query: given a learning-to-
rank data set (one row per document) it ranks all documents of a fold as one
query (xgboost PR #8822). ``ranking_scorer("ndcg@10")`` evaluates each query
of the fold and averages, with any rankwise measure in any dialect, for
``GridSearchCV``, ``cross_validate`` and the like, with ``GroupKFold``
keeping each query in one fold. The groups reach it

- by metadata routing (scikit-learn >= 1.4): ``sklearn.set_config(
  enable_metadata_routing=True)``, then ``search.fit(X, y, groups=qid)``
  sends ``groups`` to ``GroupKFold`` and to the scorer; or
- from a column of ``X``: ``ranking_scorer("ndcg@10", groups="qid")`` (a
  pandas DataFrame), or a function of ``X`` giving the query of each row.

Needs scikit-learn: ``pip install 'rankwise[sklearn]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.integrations._arrays import (
    GroupCache,
    evaluate_groups,
    lower_is_better,
    measures_of,
    metric_name,
    require,
)
from rankwise.measures import Measure

require("sklearn", "sklearn", "rankwise.integrations.sklearn")

__all__ = ["GroupScore", "ranking_scorer"]


def _grouped_mean(
    measure: Measure, y_true: Any, y_pred: Any, groups: Any, cache: GroupCache | None = None
) -> float:
    """The mean of *measure* over the queries of *groups* (rows of a query in any order)."""
    qid = np.asarray(groups)
    labels, scores = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    if not (len(qid) == len(labels) == len(scores)):
        raise InvalidParameterError(
            f"groups, y_true and y_pred differ in length: [{len(qid)}, {len(labels)}, "
            f"{len(scores)}]"
        )
    order = np.argsort(qid, kind="stable")  # the rows of each query together, in input order
    results = evaluate_groups(labels[order], scores[order], measures=(measure,), qid=qid[order],
                              cache=cache)
    return results.mean[str(measure)]


class GroupScore:
    """``score(y_true, y_pred, groups=...)``: the score function of :func:`ranking_scorer`.

    Examples
    --------
    >>> import numpy as np
    >>> score = GroupScore("mrr")
    >>> score(np.array([0, 1, 1, 0]), np.array([.9, .8, .7, .6]), groups=np.array([5, 5, 6, 6]))
    0.75
    >>> score.__name__
    'rankwise.mrr'
    """

    def __init__(self, measure: str | Measure) -> None:
        parsed = measures_of(measure)
        if len(parsed) != 1:
            raise InvalidParameterError(f"a scorer computes one measure; got {len(parsed)}")
        self.measure = parsed[0]
        self.__name__ = metric_name(self.measure)  # make_scorer's repr shows it
        self.cache = GroupCache()  # the folds' query structures, prepared once

    def __call__(self, y_true: Any, y_pred: Any, *, groups: Any = None) -> float:
        """The mean over the queries of *groups*."""
        if groups is None:
            raise InvalidParameterError(
                f"the scorer of {self.measure} received no groups: pass groups= to fit "
                "(search.fit(X, y, groups=qid)) with sklearn.set_config("
                "enable_metadata_routing=True)"
            )
        return _grouped_mean(self.measure, y_true, y_pred, groups, self.cache)


class _ColumnScorer:
    """A scorer reading the query of each row from ``X``."""

    def __init__(self, measure: Measure, groups: str | Callable[[Any], Any]) -> None:
        self.measure = measure
        self.groups = groups
        self.cache = GroupCache()  # the folds' query structures, prepared once

    def __call__(self, estimator: Any, X: Any, y_true: Any) -> float:  # noqa: N803
        qid = self.groups(X) if callable(self.groups) else X[self.groups]
        value = _grouped_mean(self.measure, y_true, estimator.predict(X), qid, self.cache)
        return -value if lower_is_better(self.measure) else value

    def __repr__(self) -> str:
        return f"ranking_scorer({str(self.measure)!r}, groups={self.groups!r})"


def ranking_scorer(
    measure: str | Measure, *, groups: str | Callable[[Any], Any] | None = None
) -> Any:
    """A scikit-learn scorer computing *measure* over the query groups of each fold.

    Parameters
    ----------
    measure : str or Measure
        Any measure in any dialect, e.g. ``"ndcg@10"`` or ``"map(dialect=lightgbm)"``.
    groups : str or callable, optional
        Where the query of each row comes from: a column of ``X`` (a
        DataFrame), or a function of ``X``. By default, metadata routing:
        the scorer requests ``groups`` (needs
        ``sklearn.set_config(enable_metadata_routing=True)``).

    Returns
    -------
    scorer
        ``scorer(estimator, X, y)``: greater is better (``coverage``, where
        lower is better, is negated as scikit-learn expects).

    Raises
    ------
    InvalidParameterError
        No *groups* and metadata routing is not enabled.
    """
    parsed = GroupScore(measure).measure
    if groups is not None:
        return _ColumnScorer(parsed, groups)
    import sklearn
    from sklearn.metrics import make_scorer

    if not sklearn.get_config().get("enable_metadata_routing", False):
        raise InvalidParameterError(
            "ranking_scorer needs the query of each row: enable metadata routing "
            "(sklearn.set_config(enable_metadata_routing=True), then fit(X, y, groups=qid)), "
            "or name the column of X that holds it (ranking_scorer(..., groups='qid'))"
        )
    scorer = make_scorer(GroupScore(parsed), greater_is_better=not lower_is_better(parsed))
    return scorer.set_score_request(groups=True)
