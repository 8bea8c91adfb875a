"""Mean differences from the baseline with confidence intervals and significance (a forest plot).

:func:`comparison_svg` draws the figure on a :class:`~rankwise.report.svg.Canvas`
(the HTML report); :class:`ComparisonDisplay` (``comparison.plot()``)
replays it onto matplotlib axes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rankwise import _wording
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.layout import (
    BELOW,
    NOTE_SIZE,
    TICK_SIZE,
    Axes,
    color_of,
    finite,
    margin,
    nice_ticks,
    shorten,
    text_width,
)
from rankwise.report.protocols import ComparisonLike, RowLike
from rankwise.report.svg import Canvas

__all__ = ["ComparisonDisplay", "comparison_canvas", "comparison_labels", "comparison_svg",
           "format_p"]


def format_p(p: float) -> str:
    """A p-value in four decimals (``<0.0001`` below), ``–`` for NaN (``_wording.format_p``).

    Examples
    --------
    >>> format_p(0.03125), format_p(2e-6), format_p(float("nan"))
    ('0.0312', '<0.0001', '–')
    """
    return _wording.format_p(p, nan="–")


def comparison_labels(rows: Sequence[RowLike]) -> list[str]:
    """The row labels of the figure, top to bottom (names shortened).

    ``system`` alone with one measure and one baseline; ``measure · system``
    with several measures; ``system − baseline`` with several baselines.
    """
    compared = [row for row in rows if row.baseline is not None]
    several_measures = len({row.measure for row in compared}) > 1
    several_baselines = len({row.baseline for row in compared}) > 1
    labels = []
    for row in compared:
        label = shorten(row.system)
        if several_baselines:
            label += f" − {shorten(row.baseline)}"
        if several_measures:
            label = f"{row.measure} · {label}"
        labels.append(label)
    return labels


def comparison_svg(comparison: ComparisonLike, *, key: str = "rankwise-comparison") -> Canvas:
    """Each system's mean difference from the baseline with its confidence interval.

    One row per measure and system; the dot is filled when the difference is
    significant after the correction, hollow otherwise; the corrected
    p-value is written on the right.
    """
    order = {name: i for i, name in enumerate(comparison.measures)}
    rows = sorted((row for row in comparison.rows
                   if row.baseline is not None and row.measure in order),
                  key=lambda row: order[row.measure])
    return comparison_canvas(rows, comparison.systems, alpha=comparison.alpha,
                             confidence=comparison.confidence, key=key)


def comparison_canvas(rows: Sequence[RowLike], systems: Sequence[str], *, alpha: float,
                      confidence: float, annotate: bool = True,
                      key: str = "rankwise-comparison") -> Canvas:
    """The figure from its rows (those that compare two systems), in order from the top."""
    rows = [row for row in rows if row.baseline is not None]
    labels = comparison_labels(rows)
    measures = len({row.measure for row in rows})
    left = min(max((text_width(t, TICK_SIZE) for t in labels), default=0.0) + 20, 346.0)
    top, bottom, right = 60.0, BELOW, 86.0
    height = max(top + bottom + 25.0 * len(rows) + 14.0 * measures, 192.0)
    width = max(749.0, left + 461.0)
    baselines = {row.baseline for row in rows}
    only = next(iter(baselines)) if len(baselines) == 1 else None
    title = f"difference from {shorten(only)}" if only else "paired differences"
    level = f"{confidence:.0%}"
    canvas = Canvas(width, height, key=key, title=f"Mean {title}",
                    desc=f"Mean difference from the baseline with its {level} confidence "
                         f"interval, one row per measure and system; filled dots are "
                         f"significant (p_adj ≤ {alpha:g}).")
    positions = []
    y = 0.0
    previous = None
    for row in rows:
        if previous is not None and row.measure != previous:
            y += 0.6  # a gap between the measures
        previous = row.measure
        positions.append(y)
        y += 1.0
    spread = finite([v for row in rows for v in (row.delta, row.delta_ci_low,
                                                 row.delta_ci_high)] + [0.0])
    xlim = margin(float(spread.min()), float(spread.max()))
    ylim = (positions[0] - 0.7, positions[-1] + 0.7) if positions else (0.0, 1.0)
    ax = Axes(left, top, width - left - right, height - top - bottom, xlim, ylim, flip=True)
    canvas.legend([(f"significant (p_adj ≤ {alpha:g})", "dot", "#444444"),
                   ("not significant", "ring", "#444444")],
                  x=ax.right - 2 * 190.0, y=4.0, columns=2, column_width=190.0)
    plot = canvas.panel(ax, **{"data-title": title})
    plot.frame(xticks=nice_ticks(*ax.xlim, 6), yticks=positions, ylabels=labels, ygrid=False,
               title=title, title_left=True,
               xlabel=f"mean difference from the baseline ({level} confidence interval)")
    plot.vline(0.0, color="#555555", width=0.8, css="zero")
    for row, position in zip(rows, positions):
        color = color_of(list(systems).index(row.system) if row.system in systems else 0)
        plot.interval(row.delta_ci_low, row.delta_ci_high, position, color=color,
                      attrs={"class": "interval"}, key=row)
        plot.markers([row.delta], [position], size=8.7,
                     fill=color if row.significant else "#ffffff", stroke=color,
                     stroke_width=1.9,
                     attrs={"class": "dot",
                            "data-significant": "yes" if row.significant else "no"}, key=row)
        if annotate:
            marker = " *" if row.significant else ""
            plot.text(1.0, position, f"p = {format_p(row.p_adjusted)}{marker}", xcoord="axes",
                      dx=5, size=NOTE_SIZE, css="p")
    plot.close()
    return canvas


class ComparisonDisplay:
    """Each system's mean difference from the baseline, with its confidence interval.

    One row per measure and system (a "forest plot"): the dot is the mean
    paired difference, the bar its confidence interval, and the dot is
    filled when the difference is significant after the correction for
    multiple comparisons, hollow otherwise. The corrected p-value is written
    on the right. The figure is the one of the HTML report.

    Parameters
    ----------
    rows : sequence of ComparisonRow
        Rows that compare two systems (``row.baseline`` set).
    systems : sequence of str
        All system names, in order (fixes each system's colour).
    alpha : float
        The significance level.
    confidence : float
        The level of the intervals.

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure
    labels_ : list of str
        The row labels, top to bottom.
    canvas_ : Canvas
        The figure as rankwise drew it (``canvas_.svg()``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from rankwise.comparison import compare
    >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
    >>> bm25 = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
    >>> dense = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
    >>> comparison = compare(qrels, {"bm25": bm25, "dense": dense}, ["mrr", "P@1"],
    ...                      baseline="bm25", seed=0)
    >>> display = ComparisonDisplay.from_comparison(comparison)
    >>> display.labels_
    ['mrr · dense', 'P@1 · dense']
    """

    def __init__(
        self, *, rows: Sequence[RowLike], systems: Sequence[str], alpha: float,
        confidence: float,
    ) -> None:
        self.rows = [row for row in rows if row.baseline is not None]
        self.systems = list(systems)
        self.alpha = alpha
        self.confidence = confidence

    @classmethod
    def from_comparison(
        cls,
        comparison: ComparisonLike,
        measures: str | Measure | Iterable[str | Measure] | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> ComparisonDisplay:
        """Draw the differences of a :class:`~rankwise.comparison.Comparison`.

        Parameters
        ----------
        comparison : Comparison
            From :func:`rankwise.comparison.compare`.
        measures : str, Measure or list, optional
            Which measures (default: all of the comparison).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        ComparisonDisplay
        """
        if measures is None:
            wanted = list(comparison.measures)
        else:
            items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
            wanted = []
            for item in items:
                name = str(item)
                if name not in comparison.measures:
                    from rankwise.measures import parse

                    name = str(parse(name))
                if name not in comparison.measures:
                    raise InvalidParameterError(
                        f"measure {str(item)!r} is not in the comparison; it holds "
                        f"{list(comparison.measures)}"
                    )
                wanted.append(name)
        order = {name: i for i, name in enumerate(wanted)}
        rows = sorted(
            (row for row in comparison.rows if row.measure in order and row.baseline is not None),
            key=lambda row: order[row.measure],
        )
        return cls(rows=rows, systems=comparison.systems, alpha=comparison.alpha,
                   confidence=comparison.confidence).plot(ax=ax, **kwargs)

    def plot(self, ax: Any = None, *, annotate: bool = True) -> ComparisonDisplay:
        """Draw the intervals.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        annotate : bool
            Write the corrected p-value of each row on the right.

        Returns
        -------
        ComparisonDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_` and :attr:`labels_` set.
        """
        from rankwise.report._mpl import draw

        canvas = comparison_canvas(self.rows, self.systems, alpha=self.alpha,
                                   confidence=self.confidence, annotate=annotate)
        drawn = draw(canvas, ax=ax, pyplot=True)
        self.labels_ = comparison_labels(self.rows)
        self.canvas_ = canvas
        self.ax_, self.figure_ = drawn.axes[0], drawn.figure
        return self
