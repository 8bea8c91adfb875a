"""Figures of several panels, for the HTML report and ``rankwise plot``.

Each function returns a :class:`matplotlib.figure.Figure` made outside
pyplot, drawn with the displays of this package; call it inside
:func:`rankwise.report._mpl.styled` for rankwise's look.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report._mpl import color_of, new_figure
from rankwise.report.comparison_display import ComparisonDisplay
from rankwise.report.curves import CurvesDisplay
from rankwise.report.differences import DifferencesDisplay
from rankwise.report.distribution import DistributionDisplay

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.results import Results

__all__ = ["comparison_figure", "curves_figure", "differences_figure", "distribution_figure"]


def _system_legend(figure: Any, names: Sequence[str], *, lines: bool = False) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Line2D([], [], color=color_of(i), linewidth=1.8, label=name) if lines
        else Patch(color=color_of(i), label=name)
        for i, name in enumerate(names)
    ]
    figure.legend(handles=handles, loc="outside upper center", ncols=min(len(names), 6),
                  frameon=False)


def _grid(count: int, columns: int) -> tuple[int, int]:
    columns = max(1, min(columns, count))
    return math.ceil(count / columns), columns


def curves_figure(results: Mapping[str, Results], measures: Sequence[str | Measure]) -> Any:
    """One panel per measure family: its mean at each cutoff k, one line per system.

    Parameters
    ----------
    results : dict ``{name: Results}``
        Each holding the measures at every cutoff to draw.
    measures : sequence of str or Measure
        Families (``"ndcg"``, ``"P"``, ``"recall"``), with their parameters.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg', 'P', 'recall']")
    rows, columns = _grid(len(measures), 3)
    figure = new_figure(3.9 * columns, 3.0 * rows + 0.35)
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax, measure in zip(axes, measures):
        CurvesDisplay.from_results(results, measure, ax=ax, legend=False)
    for ax in axes[len(measures):]:
        ax.set_visible(False)
    _system_legend(figure, list(results), lines=True)
    return figure


def distribution_figure(
    results: Mapping[str, Results], measures: Sequence[str | Measure], *, kind: str = "hist"
) -> Any:
    """One panel per measure: the distribution of its per-query values, per system.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    rows, columns = _grid(len(measures), 3)
    height = 2.9 if kind == "hist" else 0.9 + 0.32 * len(results)
    figure = new_figure(3.9 * columns, height * rows + 0.35)
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for index, (ax, measure) in enumerate(zip(axes, measures)):
        display = DistributionDisplay.from_results(results, measure, ax=ax, kind=kind,
                                                   legend=kind == "box" and index == 0)
        if kind == "hist" and index % columns:
            display.ax_.set_ylabel("")
    for ax in axes[len(measures):]:
        ax.set_visible(False)
    _system_legend(figure, list(results))
    return figure


def differences_figure(
    results: Mapping[str, Results], measures: Sequence[str | Measure], baseline: str
) -> Any:
    """Panels of sorted per-query differences: one row per measure, one column per system.

    The panels of a row share their y axis, so the systems compare at a glance.

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(results)
    if baseline not in results:
        raise InvalidParameterError(f"baseline {baseline!r} is not one of the systems {names}")
    others = [name for name in names if name != baseline]
    if not others:
        raise InvalidParameterError(f"differences need two systems; got only {names}")
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    rows, columns = len(measures), len(others)
    figure = new_figure(min(max(4.2 * columns, 8.0), 13.0), 2.1 * rows + 0.2)
    axes = figure.subplots(rows, columns, squeeze=False, sharey="row")
    for r, measure in enumerate(measures):
        top = 0.0
        for c, system in enumerate(others):
            display = DifferencesDisplay.from_results(
                results, measure, system=system, baseline=baseline, ax=axes[r][c], labels=False
            )
            finite = display.differences[np.isfinite(display.differences)]
            if len(finite):
                top = max(top, float(np.abs(finite).max()))
            if c == 0:
                display.ax_.set_ylabel(f"Δ {measure}")
            if r == rows - 1:
                display.ax_.set_xlabel("queries, sorted by difference")
        top = top or 1.0  # the panels of a row share it: the widest of the row
        axes[r][0].set_ylim(-top * 1.08, top * 1.08)
    return figure


def comparison_figure(comparison: Comparison) -> Any:
    """Mean differences from the baseline with confidence intervals (a forest plot).

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = sum(row.baseline is not None for row in comparison.rows)
    measures = len(comparison.measures)
    height = 1.1 + 0.26 * rows + 0.15 * measures
    figure = new_figure(7.8, max(height, 2.0))
    ax = figure.add_subplot()
    ComparisonDisplay.from_comparison(comparison, ax=ax)
    return figure
