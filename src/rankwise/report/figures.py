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
from rankwise.report._mpl import (
    color_of,
    figure_legend,
    legend_height,
    legend_rows,
    literal,
    new_figure,
    panel_grid,
    shorten,
    text_width,
)
from rankwise.report.comparison_display import ComparisonDisplay
from rankwise.report.curves import CurvesDisplay
from rankwise.report.differences import DifferencesDisplay
from rankwise.report.distribution import DistributionDisplay

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.results import Results

__all__ = ["comparison_figure", "curves_figure", "differences_figure", "distribution_figure"]


# Sizes in inches. The layouts are fixed: margins and gaps are set here, from
# the font sizes of STYLE and the measured width of the names, so that nothing
# is measured or moved when a figure is drawn (a layout engine redoes it at
# every draw, and it was most of the time of a report).
_TICKS_LEFT = 0.62  # y tick labels (up to "−0.25") and a rotated axis label
_TICKS_BELOW = 0.5  # x tick labels and an axis label
_TITLE = 0.3  # a panel title above the axes
_GAP = 0.2


def _system_handles(names: Sequence[str], *, lines: bool = False) -> list[Any]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [
        Line2D([], [], color=color_of(i), linewidth=1.8, label=shorten(name)) if lines
        else Patch(color=color_of(i), label=shorten(name))
        for i, name in enumerate(names)
    ]


def _legend_layout(handles: Sequence[Any], width: float) -> tuple[int, float]:
    """Columns of the legend of *handles* and the inches it takes along the top edge."""
    columns, rows = legend_rows([h.get_label() for h in handles], width - 0.2)
    return columns, legend_height(rows)


def _grid(count: int, columns: int) -> tuple[int, int]:
    columns = max(1, min(columns, count))
    return math.ceil(count / columns), columns


def curves_figure(
    results: Mapping[str, Results], measures: Sequence[str | Measure], *,
    max_k: int | None = None,
) -> Any:
    """One panel per measure family: its mean at each cutoff k, one line per system.

    Parameters
    ----------
    results : dict ``{name: Results}``
        Each holding the measures at every cutoff to draw.
    measures : sequence of str or Measure
        Families (``"ndcg"``, ``"P"``, ``"recall"``), with their parameters.
    max_k : int, optional
        Draw the cutoffs up to *max_k* only (the results may hold larger
        ones, e.g. ``recall@1000`` of a report's table).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg', 'P', 'recall']")
    rows, columns = _grid(len(measures), 3)
    width = 3.9 * columns
    handles = _system_handles(list(results), lines=True)
    legend_columns, legend = _legend_layout(handles, width)
    top, bottom, panel, gap = legend + _TITLE, _TICKS_BELOW, 2.2, _TICKS_BELOW + _TITLE
    figure = new_figure(width, top + bottom + rows * panel + (rows - 1) * gap)
    axes = panel_grid(figure, rows, columns, left=_TICKS_LEFT, right=0.2, top=top,
                      bottom=bottom, wspace=_TICKS_LEFT + _GAP, hspace=gap, count=len(measures))
    for ax, measure in zip(axes, measures):
        CurvesDisplay.from_results(results, measure, ax=ax, legend=False, max_k=max_k)
    figure_legend(figure, handles, legend_columns)
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
    names = list(results)
    rows, columns = _grid(len(measures), 3)
    width = 3.9 * columns
    handles = _system_handles(names)
    if kind == "box":
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], marker="D", markersize=5, color="white",
                              markeredgecolor="black", linestyle="none", label="mean"))
    legend_columns, legend = _legend_layout(handles, width)
    if kind == "hist":
        left, panel, title = _TICKS_LEFT, 2.2, _TITLE + 0.12  # room for the mean marks
        wspace = 0.4 + _GAP  # tick labels of the next panel; its axis label is dropped
    else:
        left = text_width([shorten(n) for n in names], 8.0) + 0.15
        panel, title, wspace = 0.28 * len(names) + 0.25, _TITLE, _GAP  # names on the left only
    top, bottom, gap = legend + title, _TICKS_BELOW, _TICKS_BELOW + title
    figure = new_figure(width + (left - _TICKS_LEFT if kind == "box" else 0.0),
                        top + bottom + rows * panel + (rows - 1) * gap)
    axes = panel_grid(figure, rows, columns, left=left, right=0.2, top=top, bottom=bottom,
                      wspace=wspace, hspace=gap, count=len(measures))
    for index, (ax, measure) in enumerate(zip(axes, measures)):
        DistributionDisplay.from_results(results, measure, ax=ax, kind=kind, legend=False)
        if index % columns:
            if kind == "hist":
                ax.set_ylabel("")
            else:
                ax.tick_params(labelleft=False)
    figure_legend(figure, handles, legend_columns)
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
    width = min(max(4.2 * columns, 8.0), 13.0)
    left, panel, gap = _TICKS_LEFT + 0.1, 1.55, _TITLE + 0.25
    figure = new_figure(width, _TITLE + _TICKS_BELOW + rows * panel + (rows - 1) * gap)
    grid = panel_grid(figure, rows, columns, left=left, right=0.15, top=_TITLE,
                      bottom=_TICKS_BELOW, wspace=_GAP, hspace=gap)
    axes = [grid[r * columns:(r + 1) * columns] for r in range(rows)]
    # each name gets its share of the panel's width in the title "system − baseline"
    room = max(int((width - left) / columns * 72 / 10.0 / 0.62 / 2) - 2, 8)
    for r, measure in enumerate(measures):
        top = 0.0
        for c, system in enumerate(others):
            ax = axes[r][c]
            display = DifferencesDisplay.from_results(
                results, measure, system=system, baseline=baseline, ax=ax, labels=False,
                name_limit=room,
            )
            finite = display.differences[np.isfinite(display.differences)]
            if len(finite):
                top = max(top, float(np.abs(finite).max()))
            # few ticks: they are most of the drawing time of small multiples. The
            # row shares its y scale, shown on its first panel; x: first and last query
            ax.grid(False)
            count = int(np.isfinite(display.differences).sum())
            ax.set_xticks(sorted({1, count}) if count else [])
            if c == 0:
                ax.set_ylabel(literal(f"Δ {measure}"))
            else:
                ax.set_yticks([])
            if r == rows - 1:
                ax.set_xlabel("queries, sorted by difference")
        top = top or 1.0  # the panels of a row share it: the widest of the row
        for ax in axes[r]:
            ax.set_ylim(-top * 1.08, top * 1.08)
    return figure


def comparison_figure(comparison: Comparison) -> Any:
    """Mean differences from the baseline with confidence intervals (a forest plot).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from rankwise.report.comparison_display import comparison_labels

    labels = comparison_labels(comparison.rows)
    rows = len(labels)
    measures = len(comparison.measures)
    left = min(text_width(labels, 8.0) + 0.2, 3.6)
    top, bottom = 0.55, 0.5  # the title and the legend above; ticks and a label below
    height = max(top + bottom + 0.26 * rows + 0.15 * measures, 2.0)
    figure = new_figure(max(7.8, left + 4.8), height)
    (ax,) = panel_grid(figure, 1, 1, left=left, right=0.9, top=top, bottom=bottom,
                       wspace=0.0, hspace=0.0)
    ComparisonDisplay.from_comparison(comparison, ax=ax)
    return figure
