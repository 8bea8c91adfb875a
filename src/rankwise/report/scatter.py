"""Paired scatter: each query's value for the baseline (x) against a system's (y), per measure.

:func:`scatter_svg` draws one panel per measure on a
:class:`~rankwise.report.svg.Canvas`, the diagonal y = x dashed: a dot above
it is a query the system improved, below it one it made worse. The HTML
report draws one figure per system and links each dot to its query in the
query explorer (its script maps a click back to data through the panel's
``data-box``, ``data-xlim`` and ``data-ylim``). Queries that fall on the same
pixel share one dot, drawn larger the more queries it holds, so the figure
stays small for any number of queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.layout import (
    GAIN_COLOR,
    LOSS_COLOR,
    NOTE_SIZE,
    Axes,
    color_of,
    nice_ticks,
    shorten,
)
from rankwise.report.protocols import ResultsLike
from rankwise.report.summaries import paired_index
from rankwise.report.svg import Canvas

__all__ = ["DOT_CLASSES", "scatter_svg"]

DOT_CLASSES = ((1, 6.0), (2, 8.0), (5, 10.5), (20, 13.5))
"""``(least queries on one pixel, dot size in pixels)``: bigger dots hold more queries."""

_PANEL = 236.0
_LEFT, _RIGHT, _TOP, _BELOW, _GAP = 58.0, 12.0, 30.0, 48.0, 26.0
_COLUMNS = 4


def _limits(values: np.ndarray) -> tuple[float, float]:
    """The data range of a square panel: [0, 1] for values in it, else their range padded."""
    finite = values[np.isfinite(values)]
    low = min(0.0, float(finite.min())) if len(finite) else 0.0
    high = max(1.0, float(finite.max())) if len(finite) else 1.0
    if low >= 0.0 and high <= 1.0:
        low, high = 0.0, 1.0
    pad = (high - low) * 0.04
    return low - pad, high + pad


def scatter_svg(results: Mapping[str, ResultsLike], measures: Sequence[str | Measure],
                baseline: str, system: str, *, key: str = "rankwise-scatter") -> Canvas:
    """One panel per measure: the baseline's value of each query (x) against *system*'s (y).

    Only the queries evaluated for both systems are drawn. Each panel says
    how many queries lie above the diagonal (the system better), on it, and
    below it.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}}
    >>> one = rw.evaluate(qrels, {q: {"a": 1.0, "b": 2.0} for q in qrels}, "mrr")
    >>> two = rw.evaluate(qrels, {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0, "b": 2.0},
    ...                           "q3": {"a": 1.0, "b": 2.0}}, "mrr")
    >>> canvas = scatter_svg({"x": one, "y": two}, ["mrr"], "x", "y")
    >>> svg = canvas.svg()
    >>> svg.count('class="dots'), "1 better" in svg, "2 tied" in svg
    (2, True, True)
    """
    names = list(results)
    if baseline not in names or system not in names or system == baseline:
        raise InvalidParameterError(
            f"a scatter needs the baseline and another system of {names}, got "
            f"{baseline!r} and {system!r}")
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    texts = [str(m) for m in measures]
    _, in_base, in_system = paired_index(results[baseline], results[system])
    rows, columns = -(-len(texts) // _COLUMNS), min(len(texts), _COLUMNS)
    width = _LEFT + columns * (_PANEL + _LEFT + _RIGHT) - _LEFT
    height = rows * (_TOP + _PANEL + _BELOW)
    canvas = Canvas(width, height, key=key,
                    title=f"{shorten(system)} against {shorten(baseline)}, query by query",
                    desc=f"For {', '.join(texts)}: one dot per query, {shorten(baseline)}'s "
                         f"value across, {shorten(system)}'s up; above the dashed diagonal "
                         f"{shorten(system)} is better.")
    color = color_of(names.index(system))
    for index, measure in enumerate(texts):
        x = np.asarray(results[baseline][measure], dtype=np.float64)[in_base]
        y = np.asarray(results[system][measure], dtype=np.float64)[in_system]
        low, high = _limits(np.concatenate([x, y]))
        row, column = divmod(index, _COLUMNS)
        ax = Axes(_LEFT + column * (_PANEL + _LEFT + _RIGHT), _TOP + row * (_TOP + _PANEL + _BELOW),
                  _PANEL, _PANEL, (low, high), (low, high))
        plot = canvas.panel(ax, **{"data-title": measure, "data-measure": measure,
                                   "data-system": system, "data-baseline": baseline,
                                   "data-n": len(x)})
        ticks = nice_ticks(low, high, 5)
        plot.frame(xticks=ticks, yticks=ticks, title=measure,
                   xlabel=shorten(baseline, 30), ylabel=shorten(system, 30))
        plot.line(low, low, high, high, color="#888888", width=1.0, dash="4 3", css="diagonal")
        _draw_dots(plot, ax, x, y, color, system)
        both = np.isfinite(x) & np.isfinite(y)
        better = int((y[both] > x[both]).sum())
        worse = int((y[both] < x[both]).sum())
        plot.text(0.03, 0.97, f"{better:,} better", xcoord="axes", ycoord="axes",
                  size=NOTE_SIZE, color=GAIN_COLOR, hang=True, halo=True, css="note above")
        plot.text(0.97, 0.03, f"{worse:,} worse", xcoord="axes", ycoord="axes",
                  size=NOTE_SIZE, color=LOSS_COLOR, anchor="end", middle=False, halo=True,
                  css="note below")
        plot.text(0.5, 0.97, f"{int(both.sum()) - better - worse:,} tied", xcoord="axes",
                  ycoord="axes", size=NOTE_SIZE, color="#555555", anchor="middle", hang=True,
                  halo=True, css="note tied")
        plot.close()
    return canvas


def _draw_dots(plot: Any, ax: Axes, x: np.ndarray, y: np.ndarray, color: str,
               system: str) -> None:
    """The queries as dots, one per pixel they fall on, larger for more queries."""
    both = np.isfinite(x) & np.isfinite(y)
    px, py = np.round(ax.x(x[both])), np.round(ax.y(y[both]))
    if not len(px):
        return
    cells, counts = np.unique(np.column_stack([px, py]), axis=0, return_counts=True)
    # back to data coordinates at the pixel's centre, so every writer places them alike
    data_x = ax.xlim[0] + (cells[:, 0] - ax.left) / ax.width * (ax.xlim[1] - ax.xlim[0])
    data_y = ax.ylim[0] + (ax.bottom - cells[:, 1]) / ax.height * (ax.ylim[1] - ax.ylim[0])
    bounds = [least for least, _ in DOT_CLASSES] + [np.inf]
    for (least, size), upper in zip(DOT_CLASSES, bounds[1:]):
        members = (counts >= least) & (counts < upper)
        if members.any():
            plot.dots(data_x[members], data_y[members], size=size, color=color, opacity=0.7,
                      attrs={"class": "dots", "data-least": least,
                             "data-queries": int(counts[members].sum())},
                      key=system)


def scatter_caption(n_queries: int) -> str:
    """The legend of the scatter figures, in words."""
    return (f"One dot per query ({counted(n_queries, 'query', grouped=True)}); queries on the "
            "same pixel share a dot, larger when it holds more (2, 5, 20 or more). Above the "
            "dashed diagonal the system beats the baseline. Click a dot to open its query below.")
