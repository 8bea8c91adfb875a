"""The recommender report's own figures, drawn on the report's canvas (:mod:`rankwise.report.svg`).

:func:`long_tail_canvas`: each model's share of recommendations per
training popularity bin against the training's (the long tail);
:func:`bias_canvas`: accuracy against popularity bias, one point per model;
:func:`segments_canvas`: the main measure per model inside each segment, with
its interval and the significance of its difference from the baseline.
The measure@k curves (:func:`rankwise.report.curves.curves_canvas`), the
per-user distributions and differences are the search report's figures
(:mod:`rankwise.report.distribution`, :mod:`rankwise.report.differences`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from rankwise.report.layout import (
    BELOW,
    CELL,
    GAIN_COLOR,
    LEFT,
    LOSS_COLOR,
    RIGHT,
    TICK_SIZE,
    TITLE,
    Axes,
    color_of,
    grid_of,
    margin,
    names_text,
    nice_ticks,
    shorten,
    text_width,
)
from rankwise.report.svg import Canvas

__all__ = ["SegmentPoint", "bias_canvas", "long_tail_canvas", "segments_canvas"]

_TRAINING = "#555555"


def long_tail_canvas(labels: Sequence[str], training: np.ndarray,
                     models: Mapping[str, np.ndarray], *,
                     key: str = "rankwise-long-tail") -> Canvas:
    """Bars per popularity bin: the training's share (grey) and each model's (colours).

    Examples
    --------
    >>> canvas = long_tail_canvas(["1", "2-10"], np.array([.6, .4]), {"pop": np.array([1., 0.])})
    >>> canvas.svg().count('data-bin="1"') >= 1
    True
    """
    names = list(models)
    groups = len(labels)
    width = max(640.0, 120.0 + groups * (28.0 + 16.0 * (len(names) + 1)))
    height = 300.0
    canvas = Canvas(width, 0, key=key, title="Recommendations by item popularity",
                    desc=f"Share of recommended items per training popularity rank bin "
                         f"({', '.join(labels)}), for the training interactions and "
                         f"{names_text(names)}.")
    entries = [("training", "patch", _TRAINING)] + [
        (shorten(n), "patch", color_of(i)) for i, n in enumerate(names)]
    top = canvas.top_legend(entries)
    canvas.height = top + TITLE + height + BELOW + 10
    highest = max([float(np.max(training, initial=0.0))]
                  + [float(np.max(v, initial=0.0)) for v in models.values()]) or 1.0
    ax = Axes(LEFT, top + TITLE, width - LEFT - RIGHT, height, (-0.5, groups - 0.5),
              (0.0, highest * 100 * 1.08))
    plot = canvas.panel(ax, **{"data-title": "long tail"})
    plot.frame(xticks=np.arange(groups), xlabels=list(labels),
               yticks=nice_ticks(0.0, highest * 100 * 1.08, 5), xgrid=False,
               title="Share of recommendations per popularity bin",
               xlabel="items by training popularity rank (1 = most popular)",
               ylabel="% of recommended items")
    series = [("training", training, _TRAINING)] + [
        (name, values, color_of(i)) for i, (name, values) in enumerate(models.items())]
    step = 0.8 / len(series)
    for s, (name, values, color) in enumerate(series):
        x0 = np.arange(groups) - 0.4 + s * step
        for g in range(groups):  # one shape per bar: its bin and series can be read back
            plot.rects([x0[g]], [0.0], [x0[g] + step * 0.92], [values[g] * 100], color=color,
                       attrs={"data-bin": labels[g], "data-series": name,
                              "data-share": f"{values[g]:.6g}"}, key=name)
    plot.close()
    return canvas


def bias_canvas(points: Mapping[str, tuple[float, float]], *, x_label: str, y_label: str,
                key: str = "rankwise-bias") -> Canvas:
    """One point per model: popularity bias (*x*) against accuracy (*y*), each named.

    Examples
    --------
    >>> canvas = bias_canvas({"pop": (12.0, 0.1), "als": (4.0, 0.2)}, x_label="arp@10",
    ...                      y_label="ndcg@10")
    >>> canvas.svg().count('data-model="als"')
    1
    """
    names = list(points)
    xs = np.array([points[n][0] for n in names], dtype=np.float64)
    ys = np.array([points[n][1] for n in names], dtype=np.float64)
    width, height = 640.0, 300.0
    canvas = Canvas(width, TITLE + height + BELOW + 10, key=key,
                    title=f"{y_label} against {x_label}",
                    desc=f"Each model's mean {y_label} against its mean {x_label}: "
                         f"{names_text(names)}.")
    ax = Axes(LEFT + 10, TITLE, width - LEFT - RIGHT - 90, height, margin(*_span(xs), 0.12),
              margin(*_span(ys), 0.12))
    plot = canvas.panel(ax, **{"data-title": "accuracy against popularity"})
    plot.frame(xticks=nice_ticks(*ax.xlim, 5), yticks=nice_ticks(*ax.ylim, 5),
               title=f"{y_label} against {x_label} (mean per user)", xlabel=x_label,
               ylabel=y_label)
    for i, name in enumerate(names):
        plot.markers([xs[i]], [ys[i]], size=10, fill=color_of(i),
                     attrs={"data-model": name}, key=name)
        plot.text(xs[i], ys[i], shorten(name, 24), dx=8, halo=True)
    plot.close()
    return canvas


def _span(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if not len(finite):
        return 0.0, 1.0
    return float(finite.min()), float(finite.max())


class SegmentPoint(NamedTuple):
    """One model inside one segment: its mean, the mean's interval, and against the baseline.

    *direction* is ``1`` (significantly higher than the baseline), ``-1``
    (lower) or ``0`` (not significant, or the baseline itself).
    """

    mean: float
    low: float
    high: float
    direction: int = 0
    p_adjusted: float = float("nan")


def segments_canvas(panels: Sequence[tuple[str, Mapping[str, SegmentPoint]]], *,
                    names: Sequence[str], measure: str, baseline: str | None = None,
                    key: str = "rankwise-segments") -> Canvas:
    """One panel per segment: each model's mean *measure* and its interval, marked when significant.

    *panels* are ``(segment label, {model: SegmentPoint})``; the x axis is
    shared, so the segments can be read against each other. The baseline's
    mean is a dashed line in each panel; a model significantly above it has
    a green ▲, below a red ▼.

    Examples
    --------
    >>> canvas = segments_canvas(
    ...     [("new", {"pop": SegmentPoint(.1, .08, .12), "als": SegmentPoint(.2, .17, .23, 1)})],
    ...     names=["pop", "als"], measure="ndcg@10", baseline="pop")
    >>> svg = canvas.svg()
    >>> svg.count('data-segment="new"'), svg.count('data-significant="higher"')
    (1, 1)
    """
    names = list(names)
    rows, columns = grid_of(len(panels), 3)
    label_width = max((text_width(shorten(n, 20), TICK_SIZE) for n in names), default=0.0)
    first_left = label_width + 16
    plot_width = CELL - LEFT - RIGHT
    height = 26.0 * len(names) + 24
    width = first_left + columns * plot_width + (columns - 1) * 36 + RIGHT
    step = TITLE + height + BELOW
    canvas = Canvas(width, 6 + rows * step, key=key,
                    title=f"{measure} per segment",
                    desc=f"Mean {measure} of each model inside each segment "
                         f"({', '.join(label for label, _ in panels)}) with its confidence "
                         f"interval, for {names_text(names)}"
                         + (f"; marked where the difference from {baseline} is significant."
                            if baseline is not None else "."))
    spread = np.array([v for _, points in panels for p in points.values()
                       for v in (p.low, p.high, p.mean) if np.isfinite(v)] or [0.0, 1.0])
    xlim = margin(float(spread.min()), float(spread.max()), 0.08)
    if xlim[1] <= xlim[0]:
        xlim = (xlim[0] - 0.5, xlim[0] + 0.5)
    positions = np.arange(1, len(names) + 1, dtype=np.float64)
    for index, (label, points) in enumerate(panels):
        r, c = divmod(index, columns)
        ax = Axes(first_left + c * (plot_width + 36), 6 + r * step + TITLE, plot_width, height,
                  xlim, (0.4, len(names) + 0.6), flip=True)
        plot = canvas.panel(ax, **{"data-title": label, "data-segment": label})
        plot.frame(xticks=nice_ticks(*xlim, 5), yticks=positions if c == 0 else None,
                   ylabels=[shorten(n, 20) for n in names] if c == 0 else None, ygrid=False,
                   title=label, xlabel=measure)
        if baseline is not None and baseline in points and np.isfinite(points[baseline].mean):
            plot.vline(points[baseline].mean, color="#888888", dash="4 3")
        for i, name in enumerate(names):
            point = points.get(name)
            if point is None or not np.isfinite(point.mean):
                continue
            color = color_of(i)
            if np.isfinite(point.low) and np.isfinite(point.high):
                plot.interval(point.low, point.high, i + 1, color=color, key=name,
                              attrs={"data-model": name})
            verdict = {1: "higher", -1: "lower"}.get(point.direction, "no")
            plot.markers([point.mean], [i + 1], size=9, fill=color, stroke="#ffffff",
                         attrs={"data-model": name, "data-mean": f"{point.mean:.6g}",
                                "data-significant": verdict}, key=name)
            if point.direction:
                edge = point.high if np.isfinite(point.high) else point.mean
                plot.text(edge, i + 1, "▲" if point.direction > 0 else "▼", dx=5,
                          color=GAIN_COLOR if point.direction > 0 else LOSS_COLOR,
                          weight="bold")
        plot.close()
    return canvas
