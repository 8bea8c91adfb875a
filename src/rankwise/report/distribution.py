"""Distributions of per-query values: histograms or box plots, one panel per measure.

:func:`distribution_svg` draws the figure on a
:class:`~rankwise.report.svg.Canvas` (the HTML report, ``rankwise plot``);
:class:`DistributionDisplay` (``results.plot()``) replays one panel onto
matplotlib axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise._validation import OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.figure_data import box_stats
from rankwise.report.layout import (
    BELOW,
    CELL,
    LEFT,
    PANEL,
    RIGHT,
    TICK_SIZE,
    TITLE,
    Axes,
    color_of,
    finite,
    grid_of,
    margin,
    names_text,
    nice_ticks,
    shorten,
    text_width,
)
from rankwise.report.protocols import ResultsLike
from rankwise.report.summaries import histogram_edges, named_results
from rankwise.report.svg import Canvas

__all__ = ["KINDS", "DistributionDisplay", "distribution_canvas", "distribution_svg",
           "histogram_shares"]

KINDS = ("hist", "box")
"""Histogram bars or box plots."""

Values = Mapping[str, np.ndarray]


def histogram_shares(values: Values) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Bin edges shared by the systems, and each system's % of queries in each bin.

    Examples
    --------
    >>> edges, shares = histogram_shares({"a": np.array([0.0, 0.0, 1.0])})
    >>> len(edges), shares["a"][[0, -1]].round(1).tolist()
    (12, [66.7, 33.3])
    """
    edges = histogram_edges(list(values.values()))
    shares = {}
    for name, array in values.items():
        counts, _ = np.histogram(array, bins=edges)
        shares[name] = 100.0 * counts / max(len(array), 1)
    return edges, shares


def distribution_svg(results: Mapping[str, ResultsLike], measures: Sequence[str | Measure], *,
                     kind: str = "hist", key: str = "rankwise-distributions") -> Canvas:
    """One panel per measure: its per-query values, per system, as histograms or box plots.

    ``kind="hist"``: the share of queries in each bin, one bar per system, a
    triangle on the top edge at each system's mean. ``kind="box"``: a box per
    system (quartiles, median, whiskers at the 5th and 95th percentiles, an
    open circle at each distinct value beyond them, a diamond at the mean);
    the legend explains the diamond above the panels.
    """
    check("kind", kind, OneOf(KINDS))
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    panels = [(str(m), {name: finite(item[str(m)]) for name, item in results.items()})
              for m in measures]
    return distribution_canvas(panels, names=list(results), kind=kind, key=key)


def distribution_canvas(panels: Sequence[tuple[str, Values]], *, names: Sequence[str],
                        kind: str = "hist", legend: bool = True,
                        key: str = "rankwise-distributions", unit: str = "query") -> Canvas:
    """The figure from its numbers: ``(measure, {system: finite values})`` per panel.

    *unit* names what has a value (``"user"`` for a recommender's users).
    """
    check("kind", kind, OneOf(KINDS))
    names = list(names)
    texts = [measure for measure, _ in panels]
    rows, columns = grid_of(len(texts), 3)
    entries = [(shorten(n), "patch", color_of(i)) for i, n in enumerate(names)]
    plot_width = CELL - LEFT - RIGHT
    if kind == "box":
        entries.append(("mean", "diamond", "#000000"))
        label_width = max((text_width(shorten(n), TICK_SIZE) for n in names), default=0.0)
        first_left = label_width + 16
        panel_height = 27.0 * len(names) + 24
        width = first_left + columns * plot_width + (columns - 1) * 36 + RIGHT
        title = TITLE
    else:
        width, panel_height, title = CELL * columns, PANEL, TITLE + 12  # the mean marks
    what = "histograms" if kind == "hist" else "box plots"
    canvas = Canvas(width, 0, key=key, title=f"Distributions of {', '.join(texts)}",
                    desc=f"Per-{unit} values of {', '.join(texts)} as {what}, per system: "
                         f"{names_text(names)}.")
    top = canvas.top_legend(entries) if legend else 0.0
    step = title + panel_height + BELOW
    canvas.height = top + rows * step
    for index, (measure, values) in enumerate(panels):
        r, c = divmod(index, columns)
        y = top + r * step + title
        if kind == "hist":
            _hist_panel(canvas, values, measure, c * CELL + LEFT, y, plot_width,
                        first=c == 0, names=names, units=_plural(unit))
        else:
            _box_panel(canvas, values, measure, first_left + c * (plot_width + 36), y,
                       plot_width, panel_height, first=c == 0, names=names)
    return canvas


def _plural(unit: str) -> str:
    return "queries" if unit == "query" else f"{unit}s"


def _hist_panel(canvas: Canvas, values: Values, measure: str, left: float, top: float,
                width: float, *, first: bool, names: list[str], units: str = "queries") -> None:
    edges, shares = histogram_shares(values)
    centres = (edges[:-1] + edges[1:]) / 2
    systems = max(len(values), 1)
    bar_width = np.diff(edges) * 0.84 / systems
    highest = max((float(s.max()) for s in shares.values() if len(s)), default=0.0) or 100.0
    unit = edges[0] == -0.05 and edges[-1] == 1.05 and len(edges) == 12
    xlim = (-0.06, 1.06) if unit else margin(float(edges[0]), float(edges[-1]), 0.02)
    ax = Axes(left, top, width, PANEL, xlim, (0.0, highest * 1.05))
    plot = canvas.panel(ax, **{"data-title": measure})
    xticks = np.round(np.linspace(0, 1, 6), 1) if unit else nice_ticks(*xlim, 5)
    plot.frame(xticks=xticks, xlabels=[f"{t:g}" for t in xticks] if unit else None,
               yticks=nice_ticks(*ax.ylim, 5), xgrid=False, title=measure, title_gap=14,
               xlabel=measure, ylabel=f"% of {units}" if first else "")
    for index, (name, share) in enumerate(shares.items()):
        offset = (index - (systems - 1) / 2) * bar_width
        start = centres + offset - bar_width / 2
        plot.rects(start, np.zeros_like(share), start + bar_width, share,
                   color=color_of(names.index(name)),
                   attrs={"class": "bars", "data-name": shorten(name)}, key=name)
    for name, array in values.items():  # the means: triangles on the top edge
        if len(array):
            plot.markers([array.mean()], [ax.ylim[1]], shape="triangle-down", size=10,
                         fill=color_of(names.index(name)), stroke="#ffffff", stroke_width=0.8,
                         attrs={"class": "mean", "data-name": shorten(name)}, key=name)
    plot.close()


def _box_panel(canvas: Canvas, values: Values, measure: str, left: float, top: float,
               width: float, height: float, *, first: bool, names: list[str]) -> None:
    stats = {name: box_stats(v) for name, v in values.items() if len(v)}
    spread = np.concatenate([[b.p5, b.p95, *b.outliers] for b in stats.values()] +
                            [[v.mean()] for v in values.values() if len(v)]) \
        if stats else np.array([0.0, 1.0])
    xlim = margin(float(spread.min()), float(spread.max()))
    ax = Axes(left, top, width, height, xlim, (0.4, len(names) + 0.6), flip=True)
    plot = canvas.panel(ax, **{"data-title": measure})
    positions = np.arange(1, len(names) + 1, dtype=np.float64)
    plot.frame(xticks=nice_ticks(*ax.xlim, 5), yticks=positions if first else None,
               ylabels=[shorten(n) for n in names] if first else None, ygrid=False,
               title=measure, xlabel=measure)
    half = 0.3
    whiskers: list[tuple[float, ...]] = []
    for index, name in enumerate(names):
        if name not in stats:
            continue
        box = stats[name]
        y0, y1 = float(ax.y(positions[index] - half)), float(ax.y(positions[index] + half))
        plot.rects([box.q1], [positions[index] - half], [box.q3], [positions[index] + half],
                   color=color_of(index), opacity=0.85, stroke="#000000",
                   attrs={"class": "box", "data-name": shorten(name)}, key=name)
        whiskers.append((box.p5, box.q1, box.q3, box.p95, positions[index],
                         abs(y1 - y0) / 4))
        plot.line(box.median, positions[index] - half, box.median, positions[index] + half,
                  color="#000000", width=1.6, css="median")
        if len(box.outliers):  # the queries beyond the whiskers: a point per distinct value
            counts = " ".join(str(int(c)) for c in box.outlier_counts)
            plot.markers(box.outliers, np.full(len(box.outliers), positions[index]), size=5.5,
                         fill="#ffffff", stroke=color_of(index), stroke_width=1.2,
                         attrs={"class": "outliers", "data-name": shorten(name),
                                "data-counts": counts}, key=name)
    if whiskers:
        p5, q1, q3, p95, y, cap = zip(*whiskers)
        plot.whiskers(p5, q1, q3, p95, y, cap=cap)
    means = [(values[n].mean(), positions[i]) for i, n in enumerate(names) if len(values[n])]
    if means:
        xs, ys = np.array(means).T
        plot.markers(xs, ys, shape="diamond", size=9, fill="#ffffff", stroke="#000000",
                     attrs={"class": "mean"})
    plot.close()


class DistributionDisplay:
    """How the per-query values of one measure are spread, for each system.

    ``kind="hist"`` draws grouped bars: the share of queries in each bin,
    one bar per system, with each system's mean as a triangle on the top
    edge (a mean says nothing of how many queries fail completely; the bar
    at 0 does).
    ``kind="box"`` draws one box per system (quartiles, whiskers at the 5th
    and 95th percentiles, a point at each distinct value beyond them, a
    diamond at the mean). The panel is the one of the HTML report.

    Parameters
    ----------
    values : dict
        ``{system: per-query values}``.
    measure : str
        The measure's name (title and axis label).

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure
    artists_ : dict
        ``{system: its bars (hist) or its box (box), one PolyCollection}``.
    shares_ : dict
        hist: ``{system: % of queries in each bin}``.
    means_ : dict
        ``{system: mean of the finite values}``.
    canvas_ : Canvas
        The figure as rankwise drew it (``canvas_.svg()``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> run = {"q1": {"a": 1.0}, "q2": {"x": 1.0, "b": 0.5}, "q3": {"x": 1.0}}
    >>> display = DistributionDisplay.from_results(rw.evaluate(qrels, run, "mrr"))
    >>> display.ax_.get_xlabel(), display.ax_.get_ylabel(), round(display.means_["run"], 3)
    ('mrr', '% of queries', 0.5)
    """

    def __init__(self, *, values: Mapping[str, Any], measure: str) -> None:
        self.values = {str(k): np.asarray(v, dtype=np.float64) for k, v in values.items()}
        self.measure = measure

    @classmethod
    def from_results(
        cls,
        results: ResultsLike | Mapping[str, ResultsLike] | Sequence[ResultsLike],
        measure: str | Measure | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> DistributionDisplay:
        """Draw the distribution of *measure* for each system from their results.

        Parameters
        ----------
        results : Results, list of Results, or dict ``{name: Results}``
            One or more systems.
        measure : str or Measure, optional
            Default: the first measure of the first results.
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`plot` (``kind="box"`` for box plots).

        Returns
        -------
        DistributionDisplay
        """
        named = named_results(results)
        if measure is None:
            measure = next(iter(named.values())).measures[0]
        values = {name: item[measure] for name, item in named.items()}
        return cls(values=values, measure=str(measure)).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, kind: str = "hist", legend: bool = True
    ) -> DistributionDisplay:
        """Draw the distribution.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        kind : {"hist", "box"}
            Grouped histogram bars, or box plots.
        legend : bool
            Add a legend (the systems; box: and the mean's diamond).

        Returns
        -------
        DistributionDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_`, :attr:`artists_` set.
        """
        from rankwise.report._mpl import draw

        check("kind", kind, OneOf(KINDS))
        values = {name: finite(v) for name, v in self.values.items()}
        self.means_ = {
            name: float(v.mean()) if len(v) else float("nan") for name, v in values.items()
        }
        if kind == "hist":
            self.shares_ = histogram_shares(values)[1]
        canvas = distribution_canvas([(self.measure, values)], names=list(values), kind=kind,
                                     legend=legend)
        drawn = draw(canvas, ax=ax, pyplot=True)
        self.artists_ = drawn.keyed("bars" if kind == "hist" else "box")
        self.canvas_ = canvas
        self.ax_, self.figure_ = drawn.axes[0], drawn.figure
        return self
