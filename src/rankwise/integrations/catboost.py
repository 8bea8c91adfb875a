"""A rankwise measure as a CatBoost evaluation metric.

CatBoost calls a user-defined metric with the predictions and labels of a
whole data set, without its query groups: ``metric("ndcg@10",
group_id=...)`` is told the groups of each data set it will see (the
training pool and the evaluation pools, as ``Pool`` objects or arrays of
group ids) and recognises them by their number of rows::

    model = CatBoostRanker(eval_metric=metric("ndcg@10", group_id=[train, valid]))
    model.fit(train, eval_set=valid)

Its value is the mean over the groups (those the measure counts). CatBoost
names a Python metric by its class: the object is of a class named
``rankwise.`` and the measure's canonical name, so ``get_evals_result()`` and
the log show ``rankwise.ndcg@10`` next to CatBoost's own ``NDCG:top=10``.
``dialect=catboost`` gives CatBoost's own ``NDCG``, ``DCG``, ``MAP``,
``MRR``, ``PrecisionAt`` and ``RecallAt``.

Needs CatBoost: ``pip install 'rankwise[catboost]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from rankwise._wording import counted
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
from rankwise.ranking.arrays import group_sizes_of

require("catboost", "catboost", "rankwise.integrations.catboost")

__all__ = ["RankwiseMetric", "metric"]


def _group_ids(source: Any) -> np.ndarray:
    """Per row, a group id: from a Pool (its group id hashes) or an array."""
    if hasattr(source, "get_group_id_hash"):
        ids = source.get_group_id_hash()
        if ids is None:
            raise InvalidParameterError("the Pool has no group_id: give Pool(..., group_id=...)")
        return np.asarray(ids)
    return np.asarray(source)


class RankwiseMetric:
    """A CatBoost ``eval_metric`` object computing one rankwise measure over query groups.

    The object is of a subclass named after the measure (``rankwise.ndcg@3``):
    CatBoost shows a Python metric under its class's name.

    Parameters
    ----------
    measure : str or Measure
        Any measure, in any dialect.
    group_id : Pool, array, or a list of them
        The groups of every data set CatBoost evaluates the metric on.

    Examples
    --------
    >>> import numpy as np
    >>> m = metric("ndcg@3(dialect=catboost)", group_id=np.array([0, 0, 0, 0, 1, 1]))
    >>> type(m).__name__, isinstance(m, RankwiseMetric)
    ('rankwise.ndcg@3(dialect=catboost)', True)
    >>> total, weight = m.evaluate([np.array([.9, .8, .1, .2, .5, .4])],
    ...                            np.array([3, 0, 2, 1, 0, 1]), None)
    >>> round(m.get_final_error(total, weight), 6)
    0.682968
    """

    no_jit = True  # CatBoost would try to compile evaluate() with numba and warn

    def __new__(cls, measure: str | Measure, group_id: Any) -> RankwiseMetric:
        """An object of the subclass named after *measure*."""
        if cls is RankwiseMetric:  # CatBoost's name for the metric is its class's
            cls = _named_class(_one_measure(measure))
        return super().__new__(cls)

    def __init__(self, measure: str | Measure, group_id: Any) -> None:
        self.measure = _one_measure(measure)
        sources = (
            list(group_id) if isinstance(group_id, (list, tuple)) else [group_id]
        )
        self._sizes: dict[int, np.ndarray] = {}
        self.cache = GroupCache()  # the data sets' query structures, prepared once
        for source in sources:
            ids = _group_ids(source)
            sizes = group_sizes_of(ids)
            known = self._sizes.get(len(ids))
            if known is not None and not np.array_equal(known, sizes):
                raise InvalidParameterError(
                    f"two data sets of {counted(len(ids), 'row')} have different groups: rankwise "
                    "cannot tell them apart when CatBoost calls the metric; give one of them"
                )
            self._sizes[len(ids)] = sizes

    def is_max_optimal(self) -> bool:
        """Whether higher is better."""
        return not lower_is_better(self.measure)

    def evaluate(
        self, approxes: Sequence[Any], target: Any, weight: Any
    ) -> tuple[float, float]:
        """(sum of the values of the groups counted, their number) for CatBoost."""
        predictions = np.asarray(approxes[0], dtype=np.float64)
        sizes = self._sizes.get(len(predictions))
        if sizes is None:
            known = ", ".join(map(str, sorted(self._sizes))) or "none"
            raise InvalidParameterError(
                f"CatBoost evaluates the metric on {counted(len(predictions), 'row')}, but the "
                f"groups given are for {known} rows: give the group_id of every data set (train "
                "and eval)"
            )
        results = evaluate_groups(np.asarray(target), predictions, sizes, (self.measure,),
                                  cache=self.cache)
        values = results[self.measure]
        mask = results.counted(self.measure)
        return float(values[mask].sum()), float(mask.sum())

    def get_final_error(self, error: float, weight: float) -> float:
        """The mean over the groups counted."""
        return error / weight if weight else float("nan")

    def __repr__(self) -> str:
        return f"metric({str(self.measure)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # the class is made at run time (pickle cannot find it by name): made again
        return _restore, (self.measure, self._sizes)


def _one_measure(measure: str | Measure) -> Measure:
    parsed = measures_of(measure)
    if len(parsed) != 1:
        raise InvalidParameterError(f"a CatBoost eval_metric is one measure; got {len(parsed)}")
    return parsed[0]


@lru_cache(maxsize=256)
def _named_class(measure: Measure) -> type[RankwiseMetric]:
    """The subclass of :class:`RankwiseMetric` named ``rankwise.<measure>``."""
    name = metric_name(measure)
    return type(name, (RankwiseMetric,), {"__qualname__": name, "__module__": __name__})


def _restore(measure: Measure, sizes: dict[int, np.ndarray]) -> RankwiseMetric:
    restored = RankwiseMetric(measure, group_id=[])
    restored._sizes = dict(sizes)
    return restored


def metric(measure: str | Measure, group_id: Any) -> RankwiseMetric:
    """A CatBoost ``eval_metric`` (or ``custom_metric``) object for one measure."""
    return RankwiseMetric(measure, group_id)
