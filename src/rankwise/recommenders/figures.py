"""The recommender report's own figures, drawn on the report's canvas (:mod:`rankwise.report.svg`).

:func:`long_tail_canvas`: each model's share of recommendations per
training popularity bin against the training's (the long tail);
:func:`bias_canvas`: accuracy against popularity bias, one point per model.
The per-user distributions and differences are the search report's figures
(:mod:`rankwise.report.distribution`, :mod:`rankwise.report.differences`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rankwise.report.layout import (
    BELOW,
    LEFT,
    RIGHT,
    TITLE,
    Axes,
    color_of,
    margin,
    names_text,
    nice_ticks,
    shorten,
)
from rankwise.report.svg import Canvas

__all__ = ["bias_canvas", "long_tail_canvas"]

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
