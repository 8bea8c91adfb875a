"""The achieved significance level (ASL) curves of discriminative power (Sakai 2006)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.report._mpl import color_of, literal, new_axes, new_figure, panel_grid
from rankwise.report.figure_data import stacked_widths

__all__ = ["asl_figure", "plot_asl_curves"]


def plot_asl_curves(power: Any, ax: Any = None) -> Any:
    """Draw one ASL curve per measure: the pairs' p-values, sorted, against the pair rank.

    A measure whose curve stays lower, longer, tells more pairs apart. The
    dashed line is alpha. The curves are drawn widest first, each next one
    thinner and on top, so curves that coincide show as nested stripes.

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
    _, ax = new_axes(ax, "the ASL curves")
    widths = stacked_widths(len(power.measures))  # widest first: coinciding curves stay visible
    for index, name in enumerate(power.measures):
        curve = power.curve(name)
        ranks = np.arange(1, len(curve) + 1)
        ax.plot(ranks, curve, marker="o" if len(curve) <= 30 else None,
                markersize=2 + widths[index], linewidth=widths[index], color=color_of(index),
                label=literal(f"{name} ({power.fraction(name):.0%})"))
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.axhline(power.alpha, color="0.4", linestyle="--", linewidth=1.0)
    ax.set_xlabel("system pair, sorted by p-value")
    ax.set_ylabel("achieved significance level (p)")
    ax.set_ylim(0, max(0.2, min(1.0, 1.05 * max(
        (float(power.curve(name)[-1]) for name in power.measures if len(power.curve(name))),
        default=0.2))))
    ax.legend(title="measure (discriminative power)", frameon=False)
    return ax


def asl_figure(power: Any) -> Any:
    """The ASL curves as a :class:`matplotlib.figure.Figure` outside pyplot (for the report)."""
    figure = new_figure(7.8, 3.6)
    (ax,) = panel_grid(figure, 1, 1, left=0.7, right=0.2, top=0.15, bottom=0.55,
                       wspace=0.0, hspace=0.0)
    plot_asl_curves(power, ax=ax)
    return figure
