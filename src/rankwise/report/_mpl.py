"""matplotlib as a second writer of rankwise's figures: the canvas replayed.

A figure is drawn once, on a :class:`~rankwise.report.svg.Canvas`; :func:`draw`
replays what the canvas recorded onto matplotlib: each panel becomes an
axes at the same place (its limits, scale, ticks, labels and title set
natively), each shape an artist in data coordinates, each legend a legend.
It serves PNG and PDF files (``rankwise plot``) and the scikit-learn style
displays of notebooks (``Results.plot``), which hold the matplotlib
``figure_`` and ``ax_``.

matplotlib is optional (``pip install 'rankwise[plot]'``): it is imported
only inside the functions that draw, never when :mod:`rankwise` or
:mod:`rankwise.report` is imported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError, MissingDependencyError
from rankwise.report.layout import (
    AXIS,
    GRID,
    LABEL_SIZE,
    LEGEND_SIZE,
    TICK_SIZE,
    TITLE_SIZE,
    Axes,
)
from rankwise.report.svg import Canvas, Op

__all__ = ["Drawn", "draw", "literal", "require_matplotlib"]

PT = 0.75
"""Points per CSS pixel (72 / 96): the canvas is in pixels, matplotlib sizes in points."""

_TEX_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                 "#": r"\#", "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\~{}"}
_MARKERS = {"circle": ("o", 1.0), "diamond": ("D", 1 / math.sqrt(2)),
            "triangle-down": ("v", 1.0)}
_ANCHORS = {"start": "left", "middle": "center", "end": "right"}


def require_matplotlib(feature: str = "plotting") -> ModuleType:
    """Import matplotlib, or say how to install it.

    Parameters
    ----------
    feature : str
        What needs it, for the message.

    Returns
    -------
    module
        :mod:`matplotlib`.

    Raises
    ------
    MissingDependencyError
        When matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError as error:
        raise MissingDependencyError(
            f"{feature} needs matplotlib, which is not installed: pip install 'rankwise[plot]'"
        ) from error
    return matplotlib


def literal(text: object) -> str:
    r"""*text* as matplotlib must be given it to draw it as it is, never as math.

    Run names such as ``$x^$`` or ``$\foo$`` would otherwise be parsed as
    math text (and fail to draw). Under matplotlib's defaults each ``$`` is
    escaped; with ``text.parse_math`` off the text is left alone; with
    ``text.usetex`` on, TeX's special characters are escaped.

    Examples
    --------
    >>> import matplotlib
    >>> with matplotlib.rc_context({"text.parse_math": True, "text.usetex": False}):
    ...     literal("$x^$ run")
    '\\$x^\\$ run'
    """
    import matplotlib

    value = str(text)
    if matplotlib.rcParams["text.usetex"]:
        return "".join(_TEX_SPECIALS.get(c, c) for c in value)
    if matplotlib.rcParams["text.parse_math"]:
        return value.replace("$", r"\$")
    return value


@dataclass
class Drawn:
    """A canvas replayed on matplotlib: the figure, an axes per panel, an artist per shape."""

    figure: Any
    axes: list[Any] = field(default_factory=list)
    artists: list[tuple[Op, Any]] = field(default_factory=list)

    def of_class(self, css: str) -> Iterator[tuple[Op, Any]]:
        """The primitives whose ``class`` attribute holds *css*, with their artists."""
        for op, artist in self.artists:
            attrs = op.args.get("attrs") or {}
            if css in str(attrs.get("class", op.args.get("css", ""))).split():
                yield op, artist

    def keyed(self, css: str) -> dict[Any, Any]:
        """``{key: artist}`` of the primitives of class *css* (their ``key=``)."""
        return {op.args.get("key"): artist for op, artist in self.of_class(css)}


def draw(canvas: Canvas, *, ax: Any = None, pyplot: bool = False) -> Drawn:
    """Replay *canvas* onto matplotlib.

    Parameters
    ----------
    canvas : Canvas
        A figure drawn by rankwise.
    ax : matplotlib Axes, optional
        Draw its one panel on these axes (and its legend inside them).
    pyplot : bool
        Without *ax*: make the figure with :mod:`matplotlib.pyplot` (so that
        notebooks show it) instead of outside pyplot (no global state, no
        GUI backend: for files).

    Returns
    -------
    Drawn
        The figure (the canvas' size at 96 pixels to the inch), its axes in
        the order of the panels, and the artist drawn for each primitive.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.
    InvalidParameterError
        *ax* given for a canvas of several panels.
    """
    require_matplotlib("plotting")
    size = (canvas.width / 96.0, canvas.height / 96.0)
    if ax is not None:
        if len(canvas.panels) != 1:
            raise InvalidParameterError(
                f"ax= holds one panel and this figure has {len(canvas.panels)}; draw it "
                "without ax="
            )
        drawn = Drawn(ax.figure)
    elif pyplot:
        import matplotlib.pyplot as plt

        drawn = Drawn(plt.figure(figsize=size))
    else:
        from matplotlib.figure import Figure

        drawn = Drawn(Figure(figsize=size))
    current = ax
    for op in canvas.ops:
        artist = None
        if op.kind == "panel" and op.ax is not None:
            if ax is None:
                box = op.ax
                current = drawn.figure.add_axes(
                    (box.left / canvas.width, 1 - box.bottom / canvas.height,
                     box.width / canvas.width, box.height / canvas.height))
            _setup(current, op.ax)
            drawn.axes.append(current)
        elif op.kind == "legend":
            artist = _legend(drawn.figure, ax, canvas, **op.args)
        elif op.kind != "close":
            artist = _ARTISTS[op.kind](current, op.ax, **op.args)
        drawn.artists.append((op, artist))
    return drawn


def _setup(ax: Any, box: Axes) -> None:
    """Limits, scale and the spines of a panel; no tick until its frame."""
    from matplotlib.ticker import NullLocator

    if box.xlog:
        ax.set_xscale("log")
    ax.set_xlim(*box.xlim)
    ax.set_ylim(*(box.ylim[::-1] if box.flip else box.ylim))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(AXIS)
        ax.spines[side].set_linewidth(PT)
    ax.tick_params(labelsize=TICK_SIZE * PT, length=4 * PT, width=PT, color=AXIS)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    ax.set_axisbelow(True)


def _frame(ax: Any, box: Axes, *, xticks: np.ndarray, yticks: np.ndarray,
           xlabels: list[str], ylabels: list[str], xgrid: bool, ygrid: bool, title: str,
           title_left: bool, xlabel: str, ylabel: str, title_gap: float) -> Any:
    ax.set_xticks(xticks, [literal(t) for t in xlabels])
    ax.set_yticks(yticks, [literal(t) for t in ylabels])
    for axis, visible in (("x", xgrid), ("y", ygrid)):
        if visible:
            ax.grid(True, axis=axis, color=GRID, linewidth=0.8 * PT)
    if title:
        ax.set_title(literal(title), loc="left" if title_left else "center",
                     fontsize=TITLE_SIZE * PT, fontweight="bold", pad=title_gap * PT)
    if xlabel:
        ax.set_xlabel(literal(xlabel), fontsize=LABEL_SIZE * PT)
    if ylabel:
        ax.set_ylabel(literal(ylabel), fontsize=LABEL_SIZE * PT)
    return None


def _polyline(ax: Any, box: Axes, *, xs: np.ndarray, ys: np.ndarray, color: str, width: float,
              dash: str, attrs: Mapping[str, object], key: Any, label: str) -> Any:
    (line,) = ax.plot(xs, ys, color=color, linewidth=width * PT,
                      linestyle="--" if dash else "-", solid_joinstyle="round",
                      label=literal(label) if label else "_nolegend_")
    return line


def _polygon(ax: Any, box: Axes, *, xs: np.ndarray, ys: np.ndarray, color: str,
             attrs: Mapping[str, object], key: Any) -> Any:
    from matplotlib.patches import Polygon

    if len(xs) == 0:
        return None
    polygon = Polygon(np.column_stack([xs, ys]), closed=True, facecolor=color,
                      edgecolor="none", linewidth=0)
    # added as an artist: the limits are the panel's, nothing to measure
    ax.add_artist(polygon)
    return polygon


def _rects(ax: Any, box: Axes, *, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
           y1: np.ndarray, color: Any, opacity: float, stroke: str,
           attrs: Mapping[str, object], key: Any) -> Any:
    from matplotlib.collections import PolyCollection

    corners = np.stack([np.column_stack([x0, y0]), np.column_stack([x0, y1]),
                        np.column_stack([x1, y1]), np.column_stack([x1, y0])], axis=1)
    collection = PolyCollection(list(corners), facecolors=color, alpha=opacity,
                                edgecolors=stroke or "none", linewidths=PT if stroke else 0)
    ax.add_collection(collection, autolim=False)
    return collection


def _markers(ax: Any, box: Axes, *, xs: np.ndarray, ys: np.ndarray, shape: str, size: float,
             fill: str, stroke: str, stroke_width: float, attrs: Mapping[str, object],
             key: Any) -> Any:
    marker, scale = _MARKERS[shape]
    edge = stroke != "none"
    (line,) = ax.plot(xs, ys, linestyle="none", marker=marker, markersize=size * PT * scale,
                      markerfacecolor=fill, markeredgecolor=stroke if edge else fill,
                      markeredgewidth=stroke_width * PT if edge else 0.0, clip_on=False,
                      zorder=3)
    return line


def _dots(ax: Any, box: Axes, *, xs: np.ndarray, ys: np.ndarray, size: float, color: str,
          opacity: float, attrs: Mapping[str, object], key: Any) -> Any:
    (line,) = ax.plot(xs, ys, linestyle="none", marker="o", markersize=size * PT,
                      markerfacecolor=color, markeredgewidth=0.0, alpha=opacity, zorder=3)
    return line


def _caps(box: Axes, cap: float) -> float:
    """*cap* pixels as a length along the y axis of the panel."""
    return cap * abs(box.ylim[1] - box.ylim[0]) / box.height


def _segments(ax: Any, segments: list[Any], color: str, width: float) -> Any:
    from matplotlib.collections import LineCollection

    lines = LineCollection(segments, colors=color, linewidths=width * PT, zorder=2)
    ax.add_collection(lines, autolim=False)
    return lines


def _whiskers(ax: Any, box: Axes, *, p5: list[float], q1: list[float], q3: list[float],
              p95: list[float], y: list[float], cap: list[float]) -> Any:
    segments = []
    for a, b, c, d, middle, half in zip(p5, q1, q3, p95, y, cap):
        h = _caps(box, half)
        segments += [[(a, middle), (b, middle)], [(c, middle), (d, middle)],
                     [(a, middle - h), (a, middle + h)], [(d, middle - h), (d, middle + h)]]
    return _segments(ax, segments, "#000000", 1.0)


def _interval(ax: Any, box: Axes, *, low: float, high: float, y: float, color: str,
              width: float, cap: float, attrs: Mapping[str, object], key: Any) -> Any:
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    h = _caps(box, cap)
    return _segments(ax, [[(low, y), (high, y)], [(low, y - h), (low, y + h)],
                          [(high, y - h), (high, y + h)]], color, width)


def _line(ax: Any, box: Axes, *, x0: float, y0: float, x1: float, y1: float, color: str,
          width: float, dash: str, css: str) -> Any:
    (line,) = ax.plot([x0, x1], [y0, y1], color=color, linewidth=width * PT,
                      linestyle="--" if dash else "-")
    return line


def _hline(ax: Any, box: Axes, *, value: float, color: str, width: float, dash: str,
           css: str) -> Any:
    return ax.axhline(value, color=color, linewidth=width * PT, linestyle="--" if dash else "-")


def _vline(ax: Any, box: Axes, *, value: float, color: str, width: float, dash: str,
           css: str) -> Any:
    return ax.axvline(value, color=color, linewidth=width * PT, linestyle="--" if dash else "-")


def _text(ax: Any, box: Axes, *, x: float, y: float, text: str, xcoord: str, ycoord: str,
          dx: float, dy: float, size: float, anchor: str, weight: str, color: str,
          middle: bool, hang: bool, halo: bool, css: str) -> Any:
    effects = None
    if halo:
        from matplotlib.patheffects import withStroke

        effects = [withStroke(linewidth=3 * PT, foreground="#ffffff")]
    coords = tuple("data" if c == "data" else "axes fraction" for c in (xcoord, ycoord))
    return ax.annotate(
        literal(text), (x, y), xycoords=coords, xytext=(dx * PT, -dy * PT),
        textcoords="offset points", fontsize=size * PT, color=color,
        fontweight=weight or "normal", ha=_ANCHORS.get(anchor, "left"),
        va="top" if hang else "center" if middle else "baseline", annotation_clip=False,
        path_effects=effects)


def _handle(kind: str, color: str) -> Any:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if kind == "line":
        return Line2D([], [], color=color, linewidth=2.0 * PT)
    if kind == "patch":
        return Patch(color=color)
    if kind in ("dot", "ring"):
        return Line2D([], [], linestyle="none", marker="o", markersize=8 * PT,
                      markerfacecolor=color if kind == "dot" else "#ffffff",
                      markeredgecolor=color, markeredgewidth=1.5 * PT)
    return Line2D([], [], linestyle="none", marker="D", markersize=8 * PT / math.sqrt(2),
                  markerfacecolor="#ffffff", markeredgecolor="#000000", markeredgewidth=PT)


def _legend(figure: Any, ax: Any, canvas: Canvas, *, entries: Sequence[tuple[str, str, str]],
            x: float, y: float, columns: int, column_width: float, row_height: float,
            title: str) -> Any:
    handles = [_handle(kind, color) for _, kind, color in entries]
    labels = [literal(label) for label, _, _ in entries]
    common: dict[str, Any] = {"frameon": False, "fontsize": LEGEND_SIZE * PT}
    if title:
        common.update(title=literal(title), alignment="left",
                      title_fontproperties={"weight": "bold", "size": LEGEND_SIZE * PT})
    if ax is not None:  # the user's axes: the legend goes inside, where it hides least
        return ax.legend(handles, labels, loc="best", **common)
    return figure.legend(handles, labels, loc="upper left",
                         bbox_to_anchor=(x / canvas.width, 1 - y / canvas.height),
                         ncols=columns, borderaxespad=0.0, borderpad=0.0, **common)


_ARTISTS: dict[str, Callable[..., Any]] = {
    "frame": _frame, "polyline": _polyline, "polygon": _polygon, "rects": _rects,
    "markers": _markers, "dots": _dots, "whiskers": _whiskers, "interval": _interval, "line": _line,
    "hline": _hline, "vline": _vline, "text": _text,
}
