"""rankwise's measures as XGBoost evaluation metrics.

- ``custom_metric(["ndcg@10", "map"])`` for ``xgb.train(params, dtrain,
  evals=[(dvalid, "valid")], custom_metric=...)``: called with
  ``(predictions, DMatrix)``, it reads the labels and the query groups
  (``qid`` or ``group``) and evaluates every query at once. Give
  ``maximize=True`` to ``xgb.train`` for early stopping on it.
- ``eval_metric("ndcg@10")`` for ``XGBRanker(eval_metric=...)``: XGBoost's
  scikit-learn interface calls a callable metric once per query group
  (``(y_true, y_pred)`` of that group), gives 1.0 to a group of one
  document without calling it, and averages; use ``custom_metric`` with
  ``xgb.train`` where speed matters.

Both name their values ``rankwise.`` and the measure's canonical name
(``rankwise.ndcg@10``, ``rankwise.ndcg@10(dialect=xgboost)``), never one of
XGBoost's own metric names, so ``evals_result`` keeps XGBoost's ``ndcg@10`` and
rankwise's apart. ``dialect=xgboost`` gives XGBoost's own ``ndcg@k``, ``map@k``
and ``pre@k``.

Needs XGBoost: ``pip install 'rankwise[xgboost]'``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from rankwise.integrations._arrays import (
    GroupCache,
    evaluate_groups,
    means,
    measures_of,
    metric_name,
    require,
)
from rankwise.measures import Measure

require("xgboost", "xgboost", "rankwise.integrations.xgboost")

__all__ = ["CustomMetric", "GroupMetric", "custom_metric", "eval_metric"]


class CustomMetric:
    """An ``xgb.train`` custom metric computing rankwise measures over the query groups.

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> data = xgb.DMatrix(np.zeros((4, 1)), label=[3, 0, 2, 1], qid=[0, 0, 0, 0])
    >>> custom_metric(["ndcg@3(dialect=xgboost)", "mrr"])(np.array([.9, .8, .1, .2]), data)
    [('rankwise.ndcg@3(dialect=xgboost)', 0.7984848580994974), ('rankwise.mrr', 1.0)]
    """

    def __init__(self, measures: str | Measure | Iterable[str | Measure]) -> None:
        self.measures = measures_of(measures)
        self.__name__ = ",".join(metric_name(m) for m in self.measures)
        self.cache = GroupCache()  # the data sets' query structures, prepared once

    def __call__(self, predictions: Any, dmatrix: Any) -> list[tuple[str, float]]:
        """Evaluate *predictions* against the labels and groups of *dmatrix*."""
        groups = np.diff(dmatrix.get_uint_info("group_ptr").astype(np.int64))
        if groups.size == 0:
            from rankwise.exceptions import InvalidParameterError

            raise InvalidParameterError(
                "rankwise's XGBoost metric needs query groups: build the DMatrix with qid= "
                "(or call set_group)"
            )
        out = means(self.measures, dmatrix.get_label(), np.asarray(predictions), groups,
                    self.cache)
        return [(name, value) for name, value, _ in out]


class GroupMetric:
    """An ``XGBRanker`` metric: rankwise's value of one measure for one query group.

    Examples
    --------
    >>> import numpy as np
    >>> metric = eval_metric("ndcg@3(dialect=xgboost)")
    >>> metric.__name__, metric(np.array([3, 0, 2, 1]), np.array([.9, .8, .1, .2]))
    ('rankwise.ndcg@3(dialect=xgboost)', 0.7984848580994974)
    """

    def __init__(self, measure: str | Measure) -> None:
        parsed = measures_of(measure)
        if len(parsed) != 1:
            from rankwise.exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"XGBRanker takes one callable metric; got {len(parsed)} measures "
                "(use custom_metric with xgb.train for several)"
            )
        self.measure = parsed[0]
        self.__name__ = metric_name(self.measure)  # XGBRanker's name for it in evals_result()

    def __call__(self, y_true: Any, y_pred: Any) -> float:
        """The value of the measure for one group (NaN when its dialect leaves it out)."""
        labels = np.asarray(y_true)
        results = evaluate_groups(labels, y_pred, np.array([len(labels)]), (self.measure,))
        return float(results[self.measure][0])


def custom_metric(measures: str | Measure | Iterable[str | Measure]) -> CustomMetric:
    """A custom metric for ``xgb.train(custom_metric=...)``: one or more measures."""
    return CustomMetric(measures)


def eval_metric(measure: str | Measure) -> GroupMetric:
    """A callable metric for ``XGBRanker(eval_metric=...)``: one measure, per query group."""
    return GroupMetric(measure)
