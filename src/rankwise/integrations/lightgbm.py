"""rankwise's measures as LightGBM evaluation functions.

``feval(["ndcg@10", "map"])`` returns one object that both of LightGBM's
interfaces call:

- ``lgb.train(params, train_set, valid_sets=[valid], feval=feval(...))``
  calls it with ``(predictions, dataset)`` and reads the dataset's labels and
  query groups;
- ``LGBMRanker().fit(X, y, group=..., eval_set=[...], eval_group=[...],
  eval_metric=feval(...))`` calls it with ``(y_true, y_pred, weight, group)``.

It returns ``(name, value, is_higher_better)`` per measure, the name being
``rankwise.`` and the measure's canonical name (``rankwise.ndcg@10``,
``rankwise.ndcg@10(dialect=lightgbm)``): never one of LightGBM's own metric
names, so with ``metric="ndcg"`` the log shows ``valid_0's ndcg@10`` (LightGBM's)
and ``valid_0's rankwise.ndcg@10`` (rankwise's) apart, ``record_evaluation``
keeps one list each, and early stopping (``first_metric_only``) can follow any
of them. ``dialect=lightgbm`` gives LightGBM's own ``ndcg@k`` and ``map@k`` to
the last digit.

Needs LightGBM: ``pip install 'rankwise[lightgbm]'``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rankwise.integrations._arrays import GroupCache, means, measures_of, require
from rankwise.measures import Measure

require("lightgbm", "lightgbm", "rankwise.integrations.lightgbm")

__all__ = ["RankwiseEval", "feval"]


class RankwiseEval:
    """A LightGBM evaluation function computing rankwise measures over the query groups.

    Parameters
    ----------
    measures : str, Measure or list
        Any measures, in any dialect.

    Examples
    --------
    >>> import numpy as np
    >>> metric = feval(["ndcg@3(dialect=lightgbm)", "mrr"])
    >>> metric(np.array([3, 0, 2, 1]), np.array([.9, .8, .1, .2]), None, np.array([4]))
    [('rankwise.ndcg@3(dialect=lightgbm)', 0.7984848580994974, True), ('rankwise.mrr', 1.0, True)]
    """

    def __init__(self, measures: str | Measure | Iterable[str | Measure]) -> None:
        self.measures = measures_of(measures)
        self.cache = GroupCache()  # the data sets' query structures, prepared once

    def __call__(
        self, y_or_preds: Any, preds_or_data: Any, weight: Any = None, group: Any = None
    ) -> list[tuple[str, float, bool]]:
        """Evaluate the predictions of one data set, as LightGBM calls it.

        ``(preds, Dataset)`` from ``lgb.train``, or ``(y_true, y_pred,
        weight, group)`` from the scikit-learn interface.
        """
        if hasattr(preds_or_data, "get_label"):  # lgb.train: (preds, lightgbm.Dataset)
            dataset = preds_or_data
            labels, predictions = dataset.get_label(), y_or_preds
            group = dataset.get_group()
        else:
            labels, predictions = y_or_preds, preds_or_data
        if group is None:
            from rankwise.exceptions import InvalidParameterError

            raise InvalidParameterError(
                "rankwise's LightGBM evaluation needs the query groups: give the Dataset a "
                "group= (lgb.Dataset(X, y, group=sizes)), or fit(..., eval_group=[...])"
            )
        return means(self.measures, labels, predictions, group, self.cache)

    def __repr__(self) -> str:
        return f"feval({[str(m) for m in self.measures]!r})"


def feval(measures: str | Measure | Iterable[str | Measure]) -> RankwiseEval:
    """A LightGBM evaluation function.

    For ``lgb.train(feval=...)`` and ``LGBMRanker.fit(eval_metric=...)``.

    Parameters
    ----------
    measures : str, Measure or list
        For example ``["ndcg@10", "map"]``, or LightGBM's own numbers
        ``["ndcg@10(dialect=lightgbm)", "map@10(dialect=lightgbm)"]``.

    Returns
    -------
    RankwiseEval
    """
    return RankwiseEval(measures)
