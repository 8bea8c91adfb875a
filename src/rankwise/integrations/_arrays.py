"""Evaluate labels and predictions grouped by query: the path every training hook takes."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from rankwise.engines.core import RankingKey, check_supported, compute, plan_of
from rankwise.exceptions import InvalidParameterError, MissingDependencyError
from rankwise.measures import Measure, parse_many
from rankwise.options import EvalOptions
from rankwise.ranking.arrays import GroupedRows, check_arrays, group_sizes_of
from rankwise.results import Results

__all__ = [
    "NAME_PREFIX",
    "GroupCache",
    "evaluate_groups",
    "lower_is_better",
    "measures_of",
    "metric_name",
    "require",
]

_OPTIONS = EvalOptions()

NAME_PREFIX = "rankwise."
"""What every hook's metric names begin with: a library's own metrics (LightGBM's and
XGBoost's ``ndcg@10``, CatBoost's ``NDCG``) never do, so the two never share a name in a
log, in ``record_evaluation`` or in early stopping. A dot, not a colon: XGBoost reads its
log lines as ``data-name:value`` and fails on a name that holds a colon."""


def metric_name(measure: Measure) -> str:
    """The name a hook gives *measure* in the library's logs: ``rankwise.`` and its canonical name.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> metric_name(parse("NDCG@10")), metric_name(parse("map@5(dialect=lightgbm)"))
    ('rankwise.ndcg@10(gain=linear)', 'rankwise.map@5(dialect=lightgbm)')
    """
    return NAME_PREFIX + str(measure)

class GroupCache:
    """The query structures of the data sets a hook evaluates, prepared once each.

    A training loop evaluates new predictions of the same rows every round
    (the training set, a validation set): their groups and labels do not
    change, so their :class:`~rankwise.ranking.arrays.GroupedRows` are kept
    (the last *kept*, of *min_rows* rows or more: smaller ones are cheap to
    prepare) and found again by comparing labels and groups. Each hook holds
    its own, so the memory goes with the hook.

    Examples
    --------
    >>> cache = GroupCache()
    >>> labels, groups = np.zeros(2000), np.array([1000, 1000])
    >>> rows = cache.get(labels, groups)
    >>> cache.get(labels.copy(), groups) is rows
    True
    >>> labels[0] = 1.0
    >>> cache.get(labels, groups) is rows  # the labels changed: prepared again
    False
    """

    def __init__(self, kept: int = 4, min_rows: int = 1024) -> None:
        self.kept = kept
        self.min_rows = min_rows
        self._rows: list[GroupedRows] = []  # most recent first

    def get(self, labels: np.ndarray, groups: np.ndarray) -> GroupedRows:
        """The structure of *labels* and *groups*: found, or prepared (and kept)."""
        if len(labels) < self.min_rows:
            return GroupedRows(labels, groups)
        for index, rows in enumerate(self._rows):
            if rows.matches(labels, groups):
                if index:
                    self._rows.insert(0, self._rows.pop(index))
                return rows
        rows = GroupedRows(labels, groups)
        self._rows.insert(0, rows)
        del self._rows[self.kept:]
        return rows

    def __getstate__(self) -> dict[str, Any]:  # a copy sent to a worker starts empty
        return {"kept": self.kept, "min_rows": self.min_rows, "_rows": []}


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
    cache: GroupCache | None = None,
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
    cache : GroupCache, optional
        Where the query structure of the data is kept from one call to the
        next (the hooks give theirs): a later call with the same labels and
        groups only ranks the new predictions.

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
    rows = GroupedRows(label_array, sizes) if cache is None else cache.get(label_array, sizes)

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
    measures: Sequence[Measure],
    labels: Any,
    predictions: Any,
    groups: Any,
    cache: GroupCache | None = None,
) -> list[tuple[str, float, bool]]:
    """(name, mean, higher is better) per measure: what boosting libraries print.

    The names are :func:`metric_name`'s (``rankwise.ndcg@10``).
    """
    results = evaluate_groups(labels, predictions, groups, measures, cache=cache)
    return [(metric_name(m), results.mean[str(m)], not lower_is_better(m)) for m in measures]
