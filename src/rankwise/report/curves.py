"""Metric@k curves: the mean of a measure at each cutoff k, one line per system.

:func:`curves_svg` draws the figure (one panel per measure family) on a
:class:`~rankwise.report.svg.Canvas`: the HTML report inlines its SVG,
``rankwise plot`` writes it to a file (PNG and PDF through matplotlib), and
:class:`CurvesDisplay` (``results.plot(kind="curves")``) replays one panel
onto matplotlib axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise._validation import OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.layout import (
    BELOW,
    CELL,
    LEFT,
    PANEL,
    RIGHT,
    TITLE,
    Axes,
    color_of,
    finite,
    grid_of,
    log_ticks,
    names_text,
    nice_ticks,
    shorten,
)
from rankwise.report.protocols import ResultsLike
from rankwise.report.summaries import curve_label, curve_template, cutoff_curve, named_results
from rankwise.report.svg import Canvas

__all__ = ["XSCALES", "CurvesDisplay", "curves_canvas", "curves_svg"]

XSCALES = ("auto", "log", "linear")
"""The k axis: ``auto`` is logarithmic when k goes beyond 20."""

Curves = Mapping[str, tuple[np.ndarray, np.ndarray]]


def curves_svg(results: Mapping[str, ResultsLike], measures: Sequence[str | Measure], *,
               max_k: int | None = None, key: str = "rankwise-curves") -> Canvas:
    """One panel per measure family: its mean at each cutoff k, one line per system.

    The k axis is logarithmic (ticks 1, 2, 5, 10, 20, ...) when k goes beyond
    20, else linear with whole-number ticks. Raises
    :class:`~rankwise.exceptions.InvalidParameterError` when the results
    hold no cutoff of a family.
    """
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg', 'P', 'recall']")
    templates = [curve_template(m) for m in measures]
    panels = [(curve_label(t), {name: cutoff_curve(item, t, max_k)
                                for name, item in results.items()}) for t in templates]
    return curves_canvas(panels, names=list(results), key=key)


def curves_canvas(panels: Sequence[tuple[str, Curves]], *, names: Sequence[str],
                  xscale: str = "auto", legend: bool = True,
                  key: str = "rankwise-curves") -> Canvas:
    """The curves figure from its numbers: ``(label, {system: (cutoffs, means)})`` per panel."""
    check("xscale", xscale, OneOf(XSCALES))
    labels = [label for label, _ in panels]
    rows, columns = grid_of(len(panels), 3)
    width = CELL * columns
    top_k = max((int(k.max()) for _, panel in panels for k, _ in panel.values() if len(k)),
                default=1)
    canvas = Canvas(width, 0, key=key, title=f"Metric@k curves: {', '.join(labels)}",
                    desc=f"Mean {', '.join(labels)} at each cutoff k from 1 to {top_k}, one "
                         f"line per system: {names_text(names)}.")
    top = canvas.top_legend([(shorten(n), "line", color_of(i))
                             for i, n in enumerate(names)]) if legend else 0.0
    step = TITLE + PANEL + BELOW
    canvas.height = top + rows * step
    for index, (label, panel) in enumerate(panels):
        r, c = divmod(index, columns)
        k_max = max((int(k.max()) for k, _ in panel.values() if len(k)), default=1)
        log = xscale == "log" or (xscale == "auto" and k_max > 20)
        values = np.concatenate([finite(m) for _, m in panel.values()])
        low = 0.0 if len(values) == 0 or values.min() >= 0 else float(values.min())
        high = float(values.max()) if len(values) else 1.0
        ylim = (low, high + 0.05 * (high - low)) if high > low else (low, low + 1.0)
        ax = Axes(c * CELL + LEFT, top + r * step + TITLE, CELL - LEFT - RIGHT, PANEL,
                  (1, k_max), ylim, xlog=log)
        plot = canvas.panel(ax, **{"data-title": label})
        xticks = log_ticks(1, k_max) if log else nice_ticks(1, k_max, integer=True)
        plot.frame(xticks=xticks, yticks=nice_ticks(*ax.ylim, 5), title=label,
                   xlabel="cutoff k" + (" (log scale)" if log else ""), ylabel=label)
        for name, (cutoffs, means) in panel.items():
            plot.polyline(cutoffs, means, color=color_of(list(names).index(name)),
                          attrs={"class": "series", "data-name": shorten(name)}, key=name,
                          label=shorten(name))
        plot.close()
    return canvas


class CurvesDisplay:
    """Metric@k curves: the mean of one measure at each cutoff k, one line per system.

    Build it with :meth:`from_results` (or ``results.plot(kind="curves")``);
    the constructor takes the numbers themselves. In scikit-learn's style,
    :meth:`plot` draws and stores the matplotlib objects on the display. The
    panel is the one of the HTML report and of ``rankwise plot``.

    Parameters
    ----------
    curves : dict
        ``{system: (cutoffs, means)}``, two arrays of equal length.
    label : str
        What the curves show, e.g. ``"ndcg@k"`` (the title and the y axis).

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
        The axes drawn on (set by :meth:`plot`).
    figure_ : matplotlib.figure.Figure
        Its figure.
    lines_ : dict
        ``{system: matplotlib.lines.Line2D}``.
    canvas_ : Canvas
        The figure as rankwise drew it (``canvas_.svg()``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> results = rw.evaluate(qrels, run, [f"P@{k}" for k in range(1, 4)])
    >>> display = CurvesDisplay.from_results(results, "P")
    >>> display.ax_.get_ylabel(), display.lines_["run"].get_ydata().round(3).tolist()
    ('P@k', [0.5, 0.5, 0.5])
    """

    def __init__(self, *, curves: Mapping[str, tuple[Any, Any]], label: str) -> None:
        self.curves = {
            str(name): (np.asarray(k, dtype=np.int64), np.asarray(m, dtype=np.float64))
            for name, (k, m) in curves.items()
        }
        self.label = label

    @classmethod
    def from_results(
        cls,
        results: ResultsLike | Mapping[str, ResultsLike] | Sequence[ResultsLike],
        measure: str | Measure = "ndcg",
        *,
        ax: Any = None,
        max_k: int | None = None,
        **kwargs: Any,
    ) -> CurvesDisplay:
        """Draw the curve of *measure* for each system from their results.

        Parameters
        ----------
        results : Results, list of Results, or dict ``{name: Results}``
            Each must hold the measure at several cutoffs, e.g. evaluated with
            ``[f"ndcg@{k}" for k in range(1, 101)]``.
        measure : str or Measure
            The family and parameters: ``"ndcg"``, ``"P"``, ``"recall(rel=2)"``
            (a cutoff, as in ``"ndcg@10"``, is ignored).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        max_k : int, optional
            Draw the cutoffs up to *max_k* only (default: every cutoff the
            results hold).
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        CurvesDisplay
        """
        template = curve_template(measure)
        named = named_results(results)
        curves = {name: cutoff_curve(item, template, max_k) for name, item in named.items()}
        return cls(curves=curves, label=curve_label(template)).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, xscale: str = "auto", legend: bool = True, **line_kwargs: Any
    ) -> CurvesDisplay:
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        xscale : {"auto", "log", "linear"}
            The k axis. ``"auto"``: logarithmic when k goes beyond 20, so
            that the top of the ranking, where most of the difference lies,
            is not squeezed into the left edge.
        legend : bool
            Add a legend of the systems.
        **line_kwargs
            Set on each line (:meth:`matplotlib.lines.Line2D.set`).

        Returns
        -------
        CurvesDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_` and :attr:`lines_` set.
        """
        from rankwise.report._mpl import draw

        canvas = curves_canvas([(self.label, self.curves)], names=list(self.curves),
                               xscale=xscale, legend=legend)
        drawn = draw(canvas, ax=ax, pyplot=True)
        self.lines_ = drawn.keyed("series")
        for line in self.lines_.values():
            line.set(**line_kwargs)
        self.canvas_ = canvas
        self.ax_, self.figure_ = drawn.axes[0], drawn.figure
        return self
