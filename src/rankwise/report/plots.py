"""``plot_results`` and ``plot_comparison``: what ``Results.plot`` and ``Comparison.plot`` call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rankwise._validation import OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.comparison_display import ComparisonDisplay
from rankwise.report.curves import CurvesDisplay
from rankwise.report.distribution import DistributionDisplay
from rankwise.report.protocols import ComparisonLike, ResultsLike
from rankwise.report.summaries import named_results

__all__ = ["RESULTS_KINDS", "plot_comparison", "plot_results"]

RESULTS_KINDS = ("distribution", "curves")
"""The kinds of :func:`plot_results`."""


def _first_curve(named: dict[str, ResultsLike]) -> Measure:
    first = next(iter(named.values()))
    groups = Counter(
        Measure(m.name, None, m.params) for m in first.measures if m.cutoff is not None
    )
    for template, count in groups.items():
        if count > 1:
            return template
    raise InvalidParameterError(
        f"kind='curves' needs a measure at several cutoffs, and the results of "
        f"{first.run_name!r} hold {[str(m) for m in first.measures]}; evaluate e.g. "
        "[f\"ndcg@{k}\" for k in range(1, 101)]"
    )


def plot_results(
    results: ResultsLike | Mapping[str, ResultsLike] | Sequence[ResultsLike],
    kind: str = "distribution",
    measure: str | Measure | None = None,
    *,
    ax: Any = None,
    **kwargs: Any,
) -> DistributionDisplay | CurvesDisplay:
    """Plot evaluation results: ``Results.plot`` calls this.

    Parameters
    ----------
    results : Results, list of Results, or dict ``{name: Results}``
        One system or several (one colour each).
    kind : {"distribution", "curves"}
        ``"distribution"``: the per-query values of *measure* (a histogram;
        ``style="box"`` for box plots), see :class:`DistributionDisplay`.
        ``"curves"``: the mean of *measure* at each cutoff k the results
        hold, see :class:`CurvesDisplay`.
    measure : str or Measure, optional
        Default: the first measure (distribution), or the first measure
        evaluated at several cutoffs (curves; give a family such as ``"P"``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    **kwargs
        Passed to the display's ``plot``; ``style="box"`` selects box plots
        for ``kind="distribution"``.

    Returns
    -------
    DistributionDisplay or CurvesDisplay
        Holding ``figure_`` and ``ax_``.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (``pip install 'rankwise[plot]'``).
    InvalidParameterError
        An unknown kind, or results without the measures the kind needs.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> results = rw.evaluate(qrels, run, [f"ndcg@{k}" for k in range(1, 6)])
    >>> plot_results(results, "curves").ax_.get_ylabel()
    'ndcg@k'
    >>> plot_results(results, measure="ndcg@5").ax_.get_xlabel()
    'ndcg@5'
    """
    check("kind", kind, OneOf(RESULTS_KINDS))
    named = named_results(results)
    if kind == "curves":
        template = _first_curve(named) if measure is None else measure
        return CurvesDisplay.from_results(named, template, ax=ax, **kwargs)
    style = kwargs.pop("style", "hist")
    return DistributionDisplay.from_results(named, measure, ax=ax, kind=style, **kwargs)


def plot_comparison(
    comparison: ComparisonLike,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    ax: Any = None,
    **kwargs: Any,
) -> ComparisonDisplay:
    """Plot a comparison: ``Comparison.plot`` calls this.

    Draws each system's mean difference from the baseline with its
    confidence interval, filled when significant (:class:`ComparisonDisplay`).

    Parameters
    ----------
    comparison : Comparison
        From :func:`rankwise.comparison.compare`.
    measures : str, Measure or list, optional
        Default: every measure of the comparison.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    **kwargs
        Passed to :meth:`ComparisonDisplay.plot`.

    Returns
    -------
    ComparisonDisplay
        Holding ``figure_`` and ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankwise.comparison import compare
    >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
    >>> bm25 = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
    >>> dense = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
    >>> comparison = compare(qrels, {"bm25": bm25, "dense": dense}, "mrr", baseline="bm25",
    ...                      seed=0)
    >>> plot_comparison(comparison).ax_.get_title(loc="left")
    'difference from bm25'
    """
    return ComparisonDisplay.from_comparison(comparison, measures, ax=ax, **kwargs)
