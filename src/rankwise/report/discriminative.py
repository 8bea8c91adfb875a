"""The achieved significance level (ASL) curves of discriminative power (Sakai 2006).

:func:`asl_panels_svg` draws them one panel per measure on a
:class:`~rankwise.report.svg.Canvas` (the HTML report: no curve can hide
another); :func:`asl_svg` draws them on one panel, which
:func:`plot_asl_curves` and :func:`asl_figure` replay onto matplotlib
(``DiscriminativePower.plot``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._wording import counted
from rankwise.report.figure_data import stacked_widths
from rankwise.report.layout import Axes, color_of, margin, nice_ticks, text_width
from rankwise.report.protocols import PowerLike
from rankwise.report.svg import Canvas

__all__ = ["asl_figure", "asl_panels_svg", "asl_svg", "plot_asl_curves"]


def asl_svg(power: PowerLike, *, key: str = "rankwise-asl") -> Canvas:
    """One ASL curve per measure: the pairs' p-values, sorted, against the pair's rank.

    A measure whose curve stays lower, longer, tells more pairs apart. The
    dashed line is alpha; the legend (measure and discriminative power) is
    on the right of the plot, off the data. The curves are drawn widest
    first, each next one thinner and on top, so curves that coincide (every
    pair at p = 0) show as nested stripes of their colours.
    """
    labels = [f"{name} ({power.fraction(name):.0%})" for name in power.measures]
    legend_title = "measure (discriminative power)"
    legend_width = max([text_width(t, 11.0) + 30 for t in labels]
                       + [text_width(legend_title, 11.0) * 1.08]) + 10
    width, height = 749.0, 346.0
    curves = [np.asarray(power.curve(name), dtype=np.float64) for name in power.measures]
    pairs = max((len(c) for c in curves), default=1)
    last = max((float(c[-1]) for c in curves if len(c)), default=0.2)
    ylim = (0.0, max(0.2, min(1.0, 1.05 * last)))
    xlim = margin(1.0, float(pairs)) if pairs > 1 else (0.5, 1.5)
    ax = Axes(67.0, 14.0, width - 67.0 - legend_width - 24.0, height - 14.0 - 53.0, xlim, ylim)
    canvas = Canvas(width, height, key=key, title="Achieved significance level curves",
                    desc=f"Sorted p-values of the {counted(pairs, 'pair')} of systems for "
                         f"{', '.join(labels)}; the dashed line is alpha = {power.alpha:g}.")
    plot = canvas.panel(ax, **{"data-title": "ASL"})
    plot.frame(xticks=nice_ticks(*ax.xlim, 6, integer=True), yticks=nice_ticks(*ylim, 5),
               xlabel="system pair, sorted by p-value",
               ylabel="achieved significance level (p)")
    plot.hline(power.alpha, color="#666666", width=1.0, dash="5 3", css="alpha")
    widths = stacked_widths(len(curves))  # widest first: coinciding curves stay visible
    for index, (name, curve, label) in enumerate(zip(power.measures, curves, labels)):
        ranks = np.arange(1, len(curve) + 1)
        plot.polyline(ranks, curve, color=color_of(index), width=widths[index],
                      attrs={"class": "series", "data-name": name}, key=name, label=label)
        if len(curve) <= 30:
            plot.markers(ranks, curve, size=3.0 + widths[index], fill=color_of(index), key=name)
    plot.close()
    canvas.legend([(label, "line", color_of(i)) for i, label in enumerate(labels)],
                  x=ax.right + 18, y=ax.top, columns=1, column_width=legend_width,
                  title=legend_title)
    return canvas


def asl_panels_svg(power: PowerLike, *, key: str = "rankwise-asl",
                   width: float = 1180.0) -> Canvas:
    """The ASL curves, one small panel per measure: no curve can hide another.

    Each panel draws its measure's curve in its colour over every other
    measure's curve in light grey (for comparison), with the dashed alpha
    line; the panels share their axes. Measures that tell the same pairs
    apart (their curves all at p = 0) each still show theirs, where
    :func:`asl_svg` can only nest them as stripes. The HTML report draws this one.
    """
    curves = [np.asarray(power.curve(name), dtype=np.float64) for name in power.measures]
    pairs = max((len(c) for c in curves), default=1)
    last = max((float(c[-1]) for c in curves if len(c)), default=0.2)
    ylim = (0.0, max(0.2, min(1.0, 1.05 * last)))
    xlim = margin(1.0, float(pairs)) if pairs > 1 else (0.5, 1.5)
    columns = max(1, min(len(curves), 5))
    rows = -(-len(curves) // columns)
    left, gap, top, below = 64.0, 22.0, 30.0, 46.0
    panel_width = (width - left - 12.0 - gap * (columns - 1)) / columns
    panel_height = 150.0
    height = rows * (top + panel_height + below)
    canvas = Canvas(width, height, key=key, title="Achieved significance level curves",
                    desc=f"One panel per measure ({', '.join(power.measures)}): the sorted "
                         f"p-values of the {counted(pairs, 'pair')} of systems, the other "
                         f"measures' curves in grey; the dashed line is alpha = "
                         f"{power.alpha:g}.")
    xticks = nice_ticks(*xlim, 5, integer=True)
    yticks = nice_ticks(*ylim, 4)
    for index, (name, curve) in enumerate(zip(power.measures, curves)):
        row, column = divmod(index, columns)
        ax = Axes(left + column * (panel_width + gap), top + row * (top + panel_height + below),
                  panel_width, panel_height, xlim, ylim)
        told = int((power.p_values[name] <= power.alpha).sum())
        heading = f"{name}: {power.fraction(name):.0%} ({told}/{len(power.pairs)})"
        plot = canvas.panel(ax, **{"data-title": heading, "data-measure": name})
        plot.frame(xticks=xticks, yticks=yticks, ylabels=None if column == 0 else
                   ["" for _ in yticks], title=heading, title_left=True,
                   xlabel="pair, sorted by p", ylabel="ASL (p)" if column == 0 else "")
        plot.hline(power.alpha, color="#666666", width=1.0, dash="5 3", css="alpha")
        for other, (other_name, other_curve) in enumerate(zip(power.measures, curves)):
            if other != index:
                plot.polyline(np.arange(1, len(other_curve) + 1), other_curve,
                              color="#c8ccd0", width=1.2,
                              attrs={"class": "context", "data-name": other_name},
                              key=other_name)
        ranks = np.arange(1, len(curve) + 1)
        plot.polyline(ranks, curve, color=color_of(index), width=2.4,
                      attrs={"class": "series", "data-name": name}, key=name)
        if len(curve) <= 30:
            plot.markers(ranks, curve, size=5.0, fill=color_of(index), key=name)
        plot.close()
    return canvas


def plot_asl_curves(power: PowerLike, ax: Any = None) -> Any:
    """Draw the ASL curves (see :func:`asl_svg`) on matplotlib axes.

    Parameters
    ----------
    power : DiscriminativePower
        From :func:`rankwise.design.discriminative_power`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from rankwise.report._mpl import draw

    return draw(asl_svg(power), ax=ax, pyplot=True).axes[0]


def asl_figure(power: PowerLike) -> Any:
    """The ASL curves as a :class:`matplotlib.figure.Figure` outside pyplot (for files)."""
    from rankwise.report._mpl import draw

    return draw(asl_svg(power)).figure
