r"""The canvas every figure draws on: it writes SVG and keeps what was drawn.

A figure lays itself out in CSS pixels (:mod:`rankwise.report.layout`),
opens a :class:`Panel` per plot area and draws on it in data coordinates:
lines, rectangles, polygons, markers, dots, whiskers, intervals, reference
lines, text. The :class:`Canvas` records each primitive once; :meth:`Canvas.svg`
writes them as one ``<svg>`` element (coordinates computed with numpy over
whole arrays, one ``%`` format per shape), and :mod:`rankwise.report._mpl`
replays the same record onto matplotlib for PNG and PDF files and for the
displays of notebooks. No figure is drawn twice.

Every text is XML-escaped (:func:`escape`): a run named ``<script>`` or
``$\foo$`` is drawn as it is, never as markup or math. Each panel is a
``<g class="panel">`` whose ``data-box`` (plot area: x y width height),
``data-xlim``, ``data-ylim`` and ``data-xscale`` attributes let a reader (or a
test, or a script of the page) map every drawn coordinate back to its value;
the shapes carry ``class`` and ``data-*`` attributes naming what they show.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from rankwise.report.layout import (
    AXIS,
    FONT,
    GRID,
    LABEL_SIZE,
    LEGEND_SIZE,
    ROW,
    TICK_SIZE,
    TITLE_SIZE,
    Axes,
    legend_layout,
    text_width,
    tick_labels,
)

__all__ = ["Canvas", "Op", "Panel", "escape"]

# characters XML 1.0 refuses (controls other than tab, LF, CR; lone surrogates; U+FFFE/F)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                          "'": "&#39;"})


def escape(text: object) -> str:
    r"""*text* as literal XML character data or attribute value.

    ``& < > " '`` become entities; characters XML cannot hold (control
    characters, lone surrogates) become U+FFFD, so the figure stays valid XML.

    Examples
    --------
    >>> escape('<script>"$x^$" & \x01')
    '&lt;script&gt;&quot;$x^$&quot; &amp; \ufffd'
    """
    return _INVALID_XML.sub("\ufffd", str(text)).translate(_ESCAPES)


class Op(NamedTuple):
    """One primitive drawn: its kind, the panel it is drawn in (None: the figure), its arguments.

    Coordinates of a panel's primitives are data values (the panel's
    :class:`~rankwise.report.layout.Axes` maps them); sizes, offsets and the
    figure's own primitives (legends) are pixels.
    """

    kind: str
    ax: Axes | None
    args: Mapping[str, Any]


Attributes = Mapping[str, object]


class Panel:
    """A plot area of a :class:`Canvas`: draw on it in data coordinates.

    *attrs* of each primitive become attributes of its SVG element
    (``class``, ``data-name``, ...); *key* (any value) names what a shape
    shows for the other writers (the system it belongs to), and is not
    written.
    """

    def __init__(self, canvas: Canvas, ax: Axes) -> None:
        self.canvas = canvas
        self.ax = ax

    def _add(self, kind: str, **args: Any) -> None:
        self.canvas.ops.append(Op(kind, self.ax, args))

    def frame(self, *, xticks: Any = None, yticks: Any = None,
              xlabels: Sequence[str] | None = None, ylabels: Sequence[str] | None = None,
              xgrid: bool = True, ygrid: bool = True, title: str = "", title_left: bool = False,
              xlabel: str = "", ylabel: str = "", title_gap: float = 8.0) -> None:
        """Grid, the left and bottom spines, ticks (data values) and labels, title, axis labels."""
        xticks = np.empty(0) if xticks is None else np.asarray(xticks, dtype=np.float64)
        yticks = np.empty(0) if yticks is None else np.asarray(yticks, dtype=np.float64)
        self._add("frame", xticks=xticks, yticks=yticks,
                  xlabels=tick_labels(xticks) if xlabels is None else list(xlabels),
                  ylabels=tick_labels(yticks) if ylabels is None else list(ylabels),
                  xgrid=xgrid, ygrid=ygrid, title=title, title_left=title_left, xlabel=xlabel,
                  ylabel=ylabel, title_gap=title_gap)

    def polyline(self, xs: Any, ys: Any, *, color: str, width: float = 1.6, dash: str = "",
                 attrs: Attributes | None = None, key: Any = None, label: str = "") -> None:
        """One line through the points (NaN values break it); *label* names it in a legend."""
        self._add("polyline", xs=np.asarray(xs, dtype=np.float64),
                  ys=np.asarray(ys, dtype=np.float64), color=color, width=width, dash=dash,
                  attrs=attrs or {}, key=key, label=label)

    def polygon(self, xs: Any, ys: Any, *, color: str, attrs: Attributes | None = None,
                key: Any = None) -> None:
        """A filled polygon through the points."""
        self._add("polygon", xs=np.asarray(xs, dtype=np.float64),
                  ys=np.asarray(ys, dtype=np.float64), color=color, attrs=attrs or {}, key=key)

    def rects(self, x0: Any, y0: Any, x1: Any, y1: Any, *, color: Any, opacity: float = 1.0,
              stroke: str = "", attrs: Attributes | None = None, key: Any = None) -> None:
        """Rectangles between corners ``(x0, y0)`` and ``(x1, y1)``, as ONE shape."""
        self._add("rects", x0=np.asarray(x0, dtype=np.float64),
                  y0=np.asarray(y0, dtype=np.float64), x1=np.asarray(x1, dtype=np.float64),
                  y1=np.asarray(y1, dtype=np.float64), color=color, opacity=opacity,
                  stroke=stroke, attrs=attrs or {}, key=key)

    def markers(self, xs: Any, ys: Any, *, shape: str = "circle", size: float = 6.0,
                fill: str = "#000000", stroke: str = "none", stroke_width: float = 1.0,
                attrs: Attributes | None = None, key: Any = None) -> None:
        """Markers centred on the points (circle, diamond, triangle-down), *size* pixels wide."""
        if shape not in _MARKERS:
            raise ValueError(f"unknown marker {shape!r}")
        self._add("markers", xs=np.asarray(xs, dtype=np.float64),
                  ys=np.asarray(ys, dtype=np.float64), shape=shape, size=size, fill=fill,
                  stroke=stroke, stroke_width=stroke_width, attrs=attrs or {}, key=key)

    def dots(self, xs: Any, ys: Any, *, size: float = 5.0, color: str = "#000000",
             opacity: float = 1.0, attrs: Attributes | None = None, key: Any = None) -> None:
        """Round dots of *size* pixels centred on the points, as ONE shape (many points: cheap).

        Each dot is a zero-length stroke with round caps (``M x yh0``, about 12
        bytes), where a :meth:`markers` circle takes 45.
        """
        self._add("dots", xs=np.asarray(xs, dtype=np.float64),
                  ys=np.asarray(ys, dtype=np.float64), size=size, color=color,
                  opacity=opacity, attrs=attrs or {}, key=key)

    def whiskers(self, p5: Sequence[float], q1: Sequence[float], q3: Sequence[float],
                 p95: Sequence[float], y: Sequence[float], *, cap: Sequence[float]) -> None:
        """Box plot whiskers: from *p5* to *q1* and *q3* to *p95* at *y*, capped (*cap* pixels)."""
        self._add("whiskers", p5=list(p5), q1=list(q1), q3=list(q3), p95=list(p95), y=list(y),
                  cap=list(cap))

    def interval(self, low: float, high: float, y: float, *, color: str, width: float = 1.6,
                 cap: float = 4.0, attrs: Attributes | None = None, key: Any = None) -> None:
        """A horizontal interval from *low* to *high* at *y*, capped (*cap* pixels each way)."""
        self._add("interval", low=low, high=high, y=y, color=color, width=width, cap=cap,
                  attrs=attrs or {}, key=key)

    def line(self, x0: float, y0: float, x1: float, y1: float, *, color: str,
             width: float = 1.0, dash: str = "", css: str = "") -> None:
        """A straight line from ``(x0, y0)`` to ``(x1, y1)``."""
        self._add("line", x0=x0, y0=y0, x1=x1, y1=y1, color=color, width=width, dash=dash,
                  css=css)

    def hline(self, y: float, *, color: str, width: float = 1.0, dash: str = "",
              css: str = "") -> None:
        """A horizontal line across the panel at data *y*."""
        self._add("hline", value=y, color=color, width=width, dash=dash, css=css)

    def vline(self, x: float, *, color: str, width: float = 1.0, dash: str = "",
              css: str = "") -> None:
        """A vertical line across the panel at data *x*."""
        self._add("vline", value=x, color=color, width=width, dash=dash, css=css)

    def text(self, x: float, y: float, text: object, *, xcoord: str = "data",
             ycoord: str = "data", dx: float = 0.0, dy: float = 0.0, size: float = TICK_SIZE,
             anchor: str = "start", weight: str = "", color: str = "#222222",
             middle: bool = True, hang: bool = False, halo: bool = False, css: str = "") -> None:
        """*text* at ``(x, y)``, each in data units or as a share of the panel (``"axes"``).

        *dx*, *dy* move it by pixels (*dy* down). *middle* centres it
        vertically; *hang* puts its top there; otherwise it is its baseline.
        *halo*: a white outline keeps it readable over the data.
        """
        self._add("text", x=x, y=y, text=str(text), xcoord=xcoord, ycoord=ycoord, dx=dx, dy=dy,
                  size=size, anchor=anchor, weight=weight, color=color, middle=middle,
                  hang=hang, halo=halo, css=css)

    def close(self) -> None:
        """End the panel."""
        self.canvas.ops.append(Op("close", None, {}))


_MARKERS = ("circle", "diamond", "triangle-down")


class Canvas:
    """A figure being drawn: its primitives in order, written as one ``<svg>`` by :meth:`svg`.

    Parameters
    ----------
    width, height : float
        Size in CSS pixels (the view box; the figure scales with the page).
    key : str
        Unique within a page: prefixes the element ids.
    title, desc : str
        The accessible name and description of the figure (``<title>``, ``<desc>``).
    """

    def __init__(self, width: float, height: float, *, key: str, title: str,
                 desc: str) -> None:
        self.width, self.height = float(width), float(height)
        self.key, self.title, self.desc = key, title, desc
        self.ops: list[Op] = []

    def panel(self, ax: Axes, **data: object) -> Panel:
        """Open a plot area at *ax*; *data* become its ``data-*`` attributes (close it after)."""
        self.ops.append(Op("panel", ax, {"data": data}))
        return Panel(self, ax)

    @property
    def panels(self) -> list[Axes]:
        """The plot areas, in the order they were opened."""
        return [op.ax for op in self.ops if op.kind == "panel" and op.ax is not None]

    def legend(self, entries: Sequence[tuple[str, str, str]], *, x: float, y: float,
               columns: int, column_width: float, row_height: float = 17.0,
               title: str = "") -> None:
        """Legend entries ``(label, kind, color)`` in a grid from ``(x, y)`` (pixels, top left).

        *kind*: ``"line"``, ``"patch"``, ``"dot"`` (filled circle), ``"ring"``
        (hollow circle), ``"diamond"`` (hollow).
        """
        self.ops.append(Op("legend", None, {
            "entries": [tuple(e) for e in entries], "x": x, "y": y, "columns": columns,
            "column_width": column_width, "row_height": row_height, "title": title}))

    def top_legend(self, entries: Sequence[tuple[str, str, str]], y: float = 6.0) -> float:
        """A legend centred along the top edge; returns the height it takes (pixels)."""
        columns, column, rows = legend_layout([label for label, _, _ in entries],
                                              self.width - 20)
        x = max((self.width - columns * column) / 2, 6.0)
        self.legend(entries, x=x + 8, y=y, columns=columns, column_width=column)
        return rows * ROW + y + 6

    def svg(self, *, standalone: bool = False) -> str:
        """The ``<svg>`` element: a view box (it scales with the page), title and description.

        *standalone*: a file of its own, with the XML declaration and a size.
        """
        parts: list[str] = []
        for op in self.ops:
            _WRITERS[op.kind](parts, op.ax, **op.args)
        title_id, desc_id = f"{self.key}-title", f"{self.key}-desc"
        head = ""
        if standalone:
            head = ('<?xml version="1.0" encoding="utf-8"?>\n<svg width="'
                    f'{self.width:.0f}" height="{self.height:.0f}" ')
        else:
            head = "<svg "
        return (f'{head}xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width:.0f} '
                f'{self.height:.0f}" role="img" aria-labelledby="{title_id} {desc_id}" '
                f'font-family="{FONT}" id="{self.key}">'
                f'<title id="{title_id}">{escape(self.title)}</title>'
                f'<desc id="{desc_id}">{escape(self.desc)}</desc>'
                f'<rect width="100%" height="100%" fill="#ffffff"/>'
                + "".join(parts) + "</svg>")

    def _repr_svg_(self) -> str:
        return self.svg()


# ----------------------------------------------------------------------------
# the SVG of each primitive (pixels)
# ----------------------------------------------------------------------------


def _pairs(xs: np.ndarray, ys: np.ndarray) -> str:
    """``x,y x,y ...`` with two decimals: one format operation for all points."""
    if len(xs) == 0:
        return ""
    flat = np.column_stack([xs, ys]).ravel().tolist()
    return ("%.2f,%.2f " * len(xs) % tuple(flat)).rstrip()


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


def _attributes(attrs: Attributes) -> str:
    return " ".join(f'{name}="{escape(value)}"' for name, value in attrs.items())


def _line(parts: list[str], x1: float, y1: float, x2: float, y2: float, *, color: str = AXIS,
          width: float = 1.0, dash: str = "", css: str = "") -> None:
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    extra += f' class="{css}"' if css else ""
    parts.append(f'<path d="M{x1:.2f} {y1:.2f}L{x2:.2f} {y2:.2f}" stroke="{color}" '
                 f'stroke-width="{_number(width)}"{extra}/>')


def _text(parts: list[str], x: float, y: float, text: object, *, size: float = TICK_SIZE,
          anchor: str = "start", weight: str = "", color: str = "#222222",
          rotate: float = 0.0, middle: bool = True, hang: bool = False,
          halo: bool = False, css: str = "") -> None:
    extra = f' text-anchor="{anchor}"' if anchor != "start" else ""
    extra += f' font-weight="{weight}"' if weight else ""
    if hang:
        extra += ' dy="0.8em"'
    elif middle:
        extra += ' dy="0.35em"'
    extra += f' transform="rotate({rotate:g} {x:.2f} {y:.2f})"' if rotate else ""
    extra += ' stroke="#ffffff" stroke-width="3" paint-order="stroke"' if halo else ""
    extra += f' class="{css}"' if css else ""
    parts.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{_number(size)}" '
                 f'fill="{color}"{extra}>{escape(text)}</text>')


def _rects(parts: list[str], x0: Any, y0: Any, x1: Any, y1: Any, *, color: str,
           opacity: float = 1.0, stroke: str = "", attributes: str = "") -> None:
    left, right = np.minimum(x0, x1), np.maximum(x0, x1)
    top, bottom = np.minimum(y0, y1), np.maximum(y0, y1)
    if len(left) == 0:
        return
    flat = np.column_stack([left, top, right - left, bottom - top, left - right]).ravel().tolist()
    d = "M%.2f %.2fh%.2fv%.2fh%.2fz" * len(left) % tuple(flat)
    extra = f' fill-opacity="{_number(opacity)}"' if opacity < 1 else ""
    extra += f' stroke="{stroke}" stroke-width="1"' if stroke else ""
    extra += f" {attributes}" if attributes else ""
    parts.append(f'<path d="{d}" fill="{color}"{extra}/>')


def _markers(parts: list[str], xs: np.ndarray, ys: np.ndarray, *, shape: str = "circle",
             size: float = 6.0, fill: str = "#000000", stroke: str = "none",
             stroke_width: float = 1.0, attributes: str = "") -> None:
    keep = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[keep], ys[keep]
    if len(xs) == 0:
        return
    r = size / 2
    if shape == "circle":
        cell = f"M%.2f %.2fa{r:.2f} {r:.2f} 0 1 0 {2 * r:.2f} 0a{r:.2f} {r:.2f} 0 1 0 " \
               f"{-2 * r:.2f} 0z"
        starts = np.column_stack([xs - r, ys])
    elif shape == "diamond":
        cell = f"M%.2f %.2fl{r:.2f} {r:.2f}l{-r:.2f} {r:.2f}l{-r:.2f} {-r:.2f}z"
        starts = np.column_stack([xs, ys - r])
    else:  # triangle-down
        cell = f"M%.2f %.2fh{2 * r:.2f}l{-r:.2f} {1.7 * r:.2f}z"
        starts = np.column_stack([xs - r, ys - 0.85 * r])
    d = cell * len(xs) % tuple(starts.ravel().tolist())
    extra = f' stroke="{stroke}" stroke-width="{_number(stroke_width)}"' \
        if stroke != "none" else ""
    extra += f" {attributes}" if attributes else ""
    parts.append(f'<path d="{d}" fill="{fill}"{extra}/>')


def _write_panel(parts: list[str], ax: Axes, *, data: Attributes) -> None:
    head = "".join(f'{name}="{escape(value)}" ' for name, value in data.items())
    parts.append(f'<g class="panel" {head}{ax.attributes()}>')


def _write_close(parts: list[str], ax: None) -> None:
    parts.append("</g>")


def _write_frame(parts: list[str], ax: Axes, *, xticks: np.ndarray, yticks: np.ndarray,
                 xlabels: list[str], ylabels: list[str], xgrid: bool, ygrid: bool, title: str,
                 title_left: bool, xlabel: str, ylabel: str, title_gap: float) -> None:
    px, py = ax.x(xticks), ax.y(yticks)
    grid = []
    if xgrid:
        grid += [f"M{x:.2f} {ax.top:.2f}V{ax.bottom:.2f}" for x in px]
    if ygrid:
        grid += [f"M{ax.left:.2f} {y:.2f}H{ax.right:.2f}" for y in py]
    if grid:
        parts.append(f'<path d="{"".join(grid)}" stroke="{GRID}" stroke-width="0.8" '
                     'class="grid"/>')
    marks = [f"M{x:.2f} {ax.bottom:.2f}v4" for x in px]
    marks += [f"M{ax.left:.2f} {y:.2f}h-4" for y in py]
    spine = f"M{ax.left:.2f} {ax.top:.2f}V{ax.bottom:.2f}H{ax.right:.2f}"
    parts.append(f'<path d="{spine}{"".join(marks)}" fill="none" stroke="{AXIS}" '
                 'stroke-width="1" class="spine"/>')
    parts.append('<g class="xticks">')
    for x, label in zip(px, xlabels):
        _text(parts, float(x), ax.bottom + 6, label, anchor="middle", hang=True, css="tick")
    parts.append("</g>")
    parts.append('<g class="yticks">')
    for y, label in zip(py, ylabels):
        _text(parts, ax.left - 7, float(y), label, anchor="end", css="tick")
    parts.append("</g>")
    if title:
        if title_left:
            _text(parts, ax.left, ax.top - title_gap, title, size=TITLE_SIZE, weight="bold",
                  middle=False, css="title")
        else:
            _text(parts, ax.left + ax.width / 2, ax.top - title_gap, title, size=TITLE_SIZE,
                  weight="bold", anchor="middle", middle=False, css="title")
    if xlabel:
        _text(parts, ax.left + ax.width / 2, ax.bottom + 22 + LABEL_SIZE, xlabel,
              size=LABEL_SIZE, anchor="middle", middle=False, css="xlabel")
    if ylabel:
        width = max((text_width(t, TICK_SIZE) for t in ylabels), default=0.0)
        x = ax.left - 12 - width - LABEL_SIZE * 0.6
        _text(parts, x, ax.top + ax.height / 2, ylabel, size=LABEL_SIZE, anchor="middle",
              rotate=-90, css="ylabel")


def _write_polyline(parts: list[str], ax: Axes, *, xs: np.ndarray, ys: np.ndarray, color: str,
                    width: float, dash: str, attrs: Attributes, key: Any, label: str) -> None:
    xs, ys = ax.x(xs), ax.y(ys)
    finite = np.isfinite(xs) & np.isfinite(ys)
    if not finite.any():
        return
    # a new "M" after each gap of NaN
    starts = finite & ~np.concatenate([[False], finite[:-1]])
    pieces = []
    for segment in np.split(np.arange(len(xs)), np.flatnonzero(starts)[1:]):
        segment = segment[finite[segment]]
        if len(segment):
            pieces.append("M" + _pairs(xs[segment], ys[segment]).replace(" ", "L", 1))
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    extra += f" {_attributes(attrs)}" if attrs else ""
    parts.append(f'<path d="{"".join(pieces)}" fill="none" stroke="{color}" '
                 f'stroke-width="{_number(width)}" stroke-linejoin="round"{extra}/>')


def _write_polygon(parts: list[str], ax: Axes, *, xs: np.ndarray, ys: np.ndarray, color: str,
                   attrs: Attributes, key: Any) -> None:
    if len(xs) == 0:
        return
    points = _pairs(ax.x(xs), ax.y(ys))
    extra = f" {_attributes(attrs)}" if attrs else ""
    parts.append(f'<path d="M{points}Z" fill="{color}"{extra}/>')


def _write_rects(parts: list[str], ax: Axes, *, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
                 y1: np.ndarray, color: str, opacity: float, stroke: str, attrs: Attributes,
                 key: Any) -> None:
    _rects(parts, ax.x(x0), ax.y(y0), ax.x(x1), ax.y(y1), color=color, opacity=opacity,
           stroke=stroke, attributes=_attributes(attrs))


def _write_markers(parts: list[str], ax: Axes, *, xs: np.ndarray, ys: np.ndarray, shape: str,
                   size: float, fill: str, stroke: str, stroke_width: float,
                   attrs: Attributes, key: Any) -> None:
    _markers(parts, ax.x(xs), ax.y(ys), shape=shape, size=size, fill=fill, stroke=stroke,
             stroke_width=stroke_width, attributes=_attributes(attrs))


def _write_dots(parts: list[str], ax: Axes, *, xs: np.ndarray, ys: np.ndarray, size: float,
                color: str, opacity: float, attrs: Attributes, key: Any) -> None:
    px, py = ax.x(xs), ax.y(ys)
    keep = np.isfinite(px) & np.isfinite(py)
    if not keep.any():
        return
    d = "M%.1f %.1fh0" * int(keep.sum()) % tuple(np.column_stack([px[keep], py[keep]])
                                                  .ravel().tolist())
    extra = f' stroke-opacity="{_number(opacity)}"' if opacity < 1 else ""
    extra += f" {_attributes(attrs)}" if attrs else ""
    parts.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{_number(size)}" '
                 f'stroke-linecap="round"{extra}/>')


def _write_whiskers(parts: list[str], ax: Axes, *, p5: list[float], q1: list[float],
                    q3: list[float], p95: list[float], y: list[float], cap: list[float]) -> None:
    paths = []
    for values, middle, c in zip(zip(p5, q1, q3, p95), y, cap):
        a, b, c_, d = ax.x(list(values)).tolist()
        v = float(ax.y(middle))
        paths.append(f"M{a:.2f} {v:.2f}H{b:.2f}M{c_:.2f} {v:.2f}H{d:.2f}"
                     f"M{a:.2f} {v - c:.2f}V{v + c:.2f}M{d:.2f} {v - c:.2f}V{v + c:.2f}")
    if paths:
        parts.append(f'<path d="{"".join(paths)}" fill="none" stroke="#000000" '
                     'stroke-width="1" class="whiskers"/>')


def _write_interval(parts: list[str], ax: Axes, *, low: float, high: float, y: float,
                    color: str, width: float, cap: float, attrs: Attributes, key: Any) -> None:
    lo, hi = ax.x([low, high])
    v = float(ax.y(y))
    if math.isfinite(lo) and math.isfinite(hi):
        parts.append(f'<path d="M{lo:.2f} {v:.2f}H{hi:.2f}M{lo:.2f} {v - cap:.2f}V{v + cap:.2f}'
                     f'M{hi:.2f} {v - cap:.2f}V{v + cap:.2f}" fill="none" stroke="{color}" '
                     f'stroke-width="{_number(width)}" {_attributes(attrs)}/>')


def _write_line(parts: list[str], ax: Axes, *, x0: float, y0: float, x1: float, y1: float,
                color: str, width: float, dash: str, css: str) -> None:
    a, b = ax.x([x0, x1]).tolist()
    c, d = ax.y([y0, y1]).tolist()
    _line(parts, a, c, b, d, color=color, width=width, dash=dash, css=css)


def _write_hline(parts: list[str], ax: Axes, *, value: float, color: str, width: float,
                 dash: str, css: str) -> None:
    y = float(ax.y(value))
    _line(parts, ax.left, y, ax.right, y, color=color, width=width, dash=dash, css=css)


def _write_vline(parts: list[str], ax: Axes, *, value: float, color: str, width: float,
                 dash: str, css: str) -> None:
    x = float(ax.x(value))
    _line(parts, x, ax.top, x, ax.bottom, color=color, width=width, dash=dash, css=css)


def pixel(ax: Axes, x: float, y: float, xcoord: str, ycoord: str) -> tuple[float, float]:
    """The pixel of a point given in data units or as a share of the panel (``"axes"``)."""
    px = float(ax.x(x)) if xcoord == "data" else ax.left + x * ax.width
    py = float(ax.y(y)) if ycoord == "data" else ax.top + (1.0 - y) * ax.height
    return px, py


def _write_text(parts: list[str], ax: Axes, *, x: float, y: float, text: str, xcoord: str,
                ycoord: str, dx: float, dy: float, **style: Any) -> None:
    px, py = pixel(ax, x, y, xcoord, ycoord)
    _text(parts, px + dx, py + dy, text, **style)


def _write_legend(parts: list[str], ax: None, *, entries: list[tuple[str, str, str]], x: float,
                  y: float, columns: int, column_width: float, row_height: float,
                  title: str) -> None:
    parts.append('<g class="legend">')
    if title:
        _text(parts, x, y + row_height / 2, title, size=LEGEND_SIZE, weight="bold",
              css="legend-title")
        y += row_height
    for index, (label, kind, color) in enumerate(entries):
        cx = x + (index % columns) * column_width
        cy = y + (index // columns) * row_height + row_height / 2
        if kind == "line":
            _line(parts, cx, cy, cx + 20, cy, color=color, width=2.0)
        elif kind == "patch":
            _rects(parts, np.array([cx + 3]), np.array([cy - 5]), np.array([cx + 17]),
                   np.array([cy + 5]), color=color)
        elif kind in ("dot", "ring"):
            _markers(parts, np.array([cx + 10]), np.array([cy]), size=8,
                     fill=color if kind == "dot" else "#ffffff", stroke=color, stroke_width=1.5)
        elif kind == "diamond":
            _markers(parts, np.array([cx + 10]), np.array([cy]), shape="diamond", size=8,
                     fill="#ffffff", stroke="#000000")
        _text(parts, cx + 26, cy, label, size=LEGEND_SIZE, css="legend-label")
    parts.append("</g>")


_WRITERS: dict[str, Callable[..., None]] = {
    "panel": _write_panel, "close": _write_close, "frame": _write_frame,
    "polyline": _write_polyline, "polygon": _write_polygon, "rects": _write_rects,
    "markers": _write_markers, "dots": _write_dots, "whiskers": _write_whiskers,
    "interval": _write_interval,
    "line": _write_line, "hline": _write_hline, "vline": _write_vline, "text": _write_text,
    "legend": _write_legend,
}
