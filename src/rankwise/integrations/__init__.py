"""Training-loop hooks: rankwise's measures inside LightGBM, XGBoost, CatBoost, scikit-learn.

Any measure, in any dialect:

- :mod:`rankwise.integrations.lightgbm`: ``feval(["ndcg@10", "map"])`` for
  ``lgb.train(feval=...)`` and ``LGBMRanker.fit(eval_metric=...)``;
- :mod:`rankwise.integrations.xgboost`: ``custom_metric(...)`` for
  ``xgb.train`` and ``eval_metric(...)`` for ``XGBRanker``;
- :mod:`rankwise.integrations.catboost`: ``metric(...)``, an ``eval_metric``
  object for ``CatBoostRanker``;
- :mod:`rankwise.integrations.sklearn`: ``ranking_scorer(...)``, a
  group-aware scorer for ``GridSearchCV`` with ``GroupKFold``.

Each module needs its library (``pip install 'rankwise[lightgbm]'``, ...)
and says so when imported without it. All of them compute with
:func:`evaluate_groups`: labels, predictions and query group sizes, straight
to the kernels (no string ids), fast enough for every boosting round: each
hook keeps the query structure of the data sets it sees in a
:class:`GroupCache`, so a round only ranks the new predictions.
"""

from __future__ import annotations

from rankwise.integrations._arrays import GroupCache, evaluate_groups

__all__ = ["GroupCache", "evaluate_groups"]
