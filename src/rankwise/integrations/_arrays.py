"""Evaluate labels and predictions grouped by query: the path every training hook takes."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from rankwise.engines.core import RankingKey, check_supported, compute, plan_of
from rankwise.exceptions import InvalidParameterError, MissingDependencyError
from rankwise.kernels.arrays import GroupedRows, check_arrays, group_sizes_of
from rankwise.measures import Measure, parse_many
from rankwise.options import EvalOptions
from rankwise.results import Results

__all__ = ["evaluate_groups", "lower_is_better", "measures_of", "require"]

_OPTIONS = EvalOptions()

_PREPARED: list[GroupedRows] = []
"""The query structures of the data sets evaluated last (a training loop's train and
validation sets), most recent first: their groups and labels do not change from one
round to the next."""

_PREPARED_KEPT = 4
_PREPARED_ROWS = 1024
"""Smaller data sets (XGBRanker's metric is called once per query group) are prepared
afresh each time: that is cheap, and they would push the big ones out."""


def prepared(labels: np.ndarray, groups: np.ndarray) -> GroupedRows:
    """The :class:`GroupedRows` of these labels and groups: made once, then found again.

    Examples
    --------
    >>> labels, groups = np.zeros(2000), np.array([1000, 1000])
    >>> a = prepared(labels, groups)
    >>> prepared(labels.copy(), groups) is a
    True
    >>> labels[0] = 1.0
    >>> prepared(labels, groups) is a  # the labels changed: prepared again
    False
    """
    if len(labels) < _PREPARED_ROWS:
        return GroupedRows(labels, groups)
    for index, rows in enumerate(_PREPARED):
        if rows.matches(labels, groups):
            if index:
                _PREPARED.insert(0, _PREPARED.pop(index))
            return rows
    rows = GroupedRows(labels, groups)
    _PREPARED.insert(0, rows)
    del _PREPARED[_PREPARED_KEPT:]
    return rows


def require(module: str, extra: str, what: str) -> None:
    """Raise :class:`MissingDependencyError` when *module* is not installed (without importing it).

    Examples
    --------
    >>> require("numpy", "numpy", "this")
    """
    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"{what} needs {module}: pip install 'rankwise[{extra}]'"
        )


@lru_cache(maxsize=64)
def _parse(measures: tuple[str | Measure, ...]) -> tuple[Measure, ...]:
    given: Any = measures[0] if len(measures) == 1 else list(measures)
    parsed = tuple(parse_many(given))
    check_supported(list(parsed), _OPTIONS)
    return parsed


def measures_of(measures: str | Measure | Iterable[str | Measure]) -> tuple[Measure, ...]:
    """Parse *measures* once (the hooks are called every round) and check they can be computed.

    Examples
    --------
    >>> [str(m) for m in measures_of("ndcg@10, map(dialect=lightgbm)")]
    ['ndcg@10', 'map(dialect=lightgbm)']
    """
    key = (measures,) if isinstance(measures, (str, Measure)) else tuple(measures)
    if not key:
        raise InvalidParameterError("no measure given; for example ['ndcg@10', 'map']")
    return _parse(key)


def lower_is_better(measure: Measure) -> bool:
    """Whether a lower value of *measure* is better (``coverage``); higher for the others."""
    return measure.name in ("coverage",)


def evaluate_groups(
    labels: Any,
    predictions: Any,
    groups: Any = None,
    measures: str | Measure | Iterable[str | Measure] = "ndcg@10",
    *,
    qid: Any = None,
) -> Results:
    """Evaluate predictions grouped by query, as learning-to-rank libraries hold them.

    Every row is a judged document: its label is its grade. The queries are
    named ``"0"``, ``"1"``, ... in row order. A document's id is its
    position in its query: rankwise's measures order tied predictions by it
    descending (later rows first); each dialect follows its tool.

    Parameters
    ----------
    labels : array of float
        Per row, its relevance grade.
    predictions : array of float
        Per row, the model's score.
    groups : array of int, optional
        The number of rows of each query, in row order (LightGBM's
        ``group``). Or give *qid*.
    measures : str, Measure or list
        Any measure, in any dialect: ``["ndcg@10", "map(dialect=lightgbm)"]``.
    qid : array, optional
        Per row, its query id (XGBoost's ``qid``); rows of a query together.

    Returns
    -------
    Results
        One value per query; ``Results.mean`` has the means.

    Examples
    --------
    >>> import numpy as np
    >>> r = evaluate_groups(np.array([3, 0, 2, 1, 0, 1]), np.array([.9, .8, .1, .2, .5, .4]),
    ...                     np.array([4, 2]), ["ndcg@3(dialect=lightgbm)", "mrr"])
    >>> {name: round(value, 4) for name, value in r.mean.items()}
    {'ndcg@3(dialect=lightgbm)': 0.7147, 'mrr': 0.75}
    """
    parsed = measures_of(measures)
    if groups is None:
        if qid is None:
            raise InvalidParameterError("give the query groups: groups= (sizes) or qid=")
        groups = group_sizes_of(np.asarray(qid))
    label_array, score_array, sizes = check_arrays(labels, predictions, groups)
    rows = prepared(label_array, sizes)

    def rankings(key: RankingKey) -> Any:
        tie_order, float32, _ = key  # no row's id is its query's id: nothing to drop
        return rows.rank(score_array, tie_order=tie_order, float32=float32)

    first = plan_of(parsed[0]).key  # rank the way the first measure needs first
    ranking = rankings(first)
    counted: dict[Measure, np.ndarray] = {}
    values = compute(
        ranking, parsed, _OPTIONS, rankings=rankings, counted=counted, dialect_kernels=True,
        key=first,
    )
    return Results(ranking.query_ids, values, run_name="predictions", counted=counted)


def means(
    measures: Sequence[Measure], labels: Any, predictions: Any, groups: Any
) -> list[tuple[str, float, bool]]:
    """(name, mean, higher is better) per measure: what boosting libraries print."""
    results = evaluate_groups(labels, predictions, groups, measures)
    return [(str(m), results.mean[str(m)], not lower_is_better(m)) for m in measures]
