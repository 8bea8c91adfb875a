r"""A small SVG drawing kit for the report's figures: plain strings, no matplotlib.

The HTML report draws its figures here (:mod:`rankwise.report.svg_figures`):
importing matplotlib and laying out its artists was most of the time of a
report, and an inline figure needs no more than axes, ticks, lines, bars,
markers and text. Everything is in CSS pixels; coordinates are computed with
numpy over whole arrays and written with one ``%`` format per shape.

Every text is XML-escaped (:func:`escape`): a run named ``<script>`` or
``$\foo$`` is drawn as it is, never as markup or math. Each panel is a
``<g class="panel">`` whose ``data-box`` (plot area: x y width height),
``data-xlim``, ``data-ylim`` and ``data-xscale`` attributes let a reader (or a
test) map every drawn coordinate back to its value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["FONT", "Axes", "Canvas", "escape", "log_ticks", "nice_ticks", "text_width",
           "tick_labels"]

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
"""The font stack of the figures (the page's own sans-serif)."""

TITLE_SIZE = 13.0
LABEL_SIZE = 12.0
TICK_SIZE = 10.5
LEGEND_SIZE = 11.0
NOTE_SIZE = 10.0
GRID = "#dddddd"
AXIS = "#333333"

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


# widths of DejaVu Sans / Helvetica glyphs in em, by class (enough to lay out a legend)
_NARROW = frozenset("iljtfrI.,:;'|!()[]{} `\"-/\\")
_WIDE = frozenset("mwMW@%&—…")


def text_width(text: str, size: float) -> float:
    """An estimate of the width in pixels of *text* drawn at *size* pixels.

    Examples
    --------
    >>> round(text_width("bm25", 10.0), 1)
    27.8
    """
    width = 0.0
    for char in str(text):
        if char in _NARROW:
            width += 0.33
        elif char in _WIDE:
            width += 0.9
        elif char.isupper() or char.isdigit():
            width += 0.66 if char.isupper() else 0.64
        else:
            width += 0.6
    return width * size


def nice_ticks(low: float, high: float, count: int = 5, *, integer: bool = False) -> np.ndarray:
    """Round tick values inside ``[low, high]``: steps of 1, 2, 2.5 or 5 times a power of ten.

    The smallest such step that makes at most *count* intervals over the
    range, or a smaller one when it would leave fewer than two ticks inside
    it; with *integer* the steps are whole numbers (counts, ranks).

    Examples
    --------
    >>> nice_ticks(0.0, 0.93).tolist()
    [0.0, 0.2, 0.4, 0.6000000000000001, 0.8]
    >>> nice_ticks(0.5, 3.5, integer=True).tolist()
    [1.0, 2.0, 3.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return np.empty(0)
    if high < low:
        low, high = high, low
    span = high - low
    if span <= 0:
        return np.array([low])
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    mantissas = (1.0, 2.0, 5.0, 10.0) if integer else (1.0, 2.0, 2.5, 5.0, 10.0)
    steps = [power * m for m in (0.5, 0.25, 0.2)[::-1] + mantissas]  # smaller ones last
    chosen = next(i for i, s in enumerate(steps) if s >= raw * (1 - 1e-9))
    for step in steps[chosen::-1]:  # the coarsest step that puts two ticks in the range
        if integer:
            step = max(round(step), 1.0)
        first = math.ceil(low / step - 1e-9)
        last = math.floor(high / step + 1e-9)
        if last > first or integer:
            break
    ticks = np.arange(first, last + 1, dtype=np.float64) * step
    ticks[np.abs(ticks) < step * 1e-9] = 0.0
    return ticks


LOG_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


def log_ticks(low: float, high: float) -> np.ndarray:
    """The ticks 1, 2, 5, 10, 20, 50, ... that lie in ``[low, high]`` (a log axis).

    Examples
    --------
    >>> log_ticks(1, 100).tolist()
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    """
    return np.array([t for t in LOG_TICKS if low - 1e-9 <= t <= high + 1e-9], dtype=np.float64)


def tick_labels(ticks: Sequence[float] | np.ndarray) -> list[str]:
    """Labels of *ticks* with as many decimals as their step needs; a true minus sign.

    Examples
    --------
    >>> tick_labels([-0.5, 0.0, 0.5, 1.0])
    ['−0.5', '0.0', '0.5', '1.0']
    >>> tick_labels([0, 20, 40])
    ['0', '20', '40']
    """
    values = np.asarray(ticks, dtype=np.float64)
    if len(values) == 0:
        return []
    decimals = 0
    for value in values:  # the fewest decimals that write every tick exactly
        while decimals < 6 and abs(round(value, decimals) - value) > 1e-9 * max(1, abs(value)):
            decimals += 1
    return [f"{v:.{decimals}f}".replace("-", "−") if round(v, decimals) != 0
            else f"{0:.{decimals}f}" for v in values]


def _widen(low: float, high: float) -> tuple[float, float]:
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0
    if low == high:
        pad = 0.5 if low == 0 else abs(low) * 0.5
        return low - pad, high + pad
    return low, high


class Axes:
    """A plot area at ``(left, top)`` of ``width`` x ``height`` pixels, and its data limits.

    :meth:`x` and :meth:`y` map data to pixels (vectorised); y grows upwards,
    unless *flip* (first row on top, for rows of labels); *xlog* makes x
    logarithmic (base 10).
    """

    def __init__(self, left: float, top: float, width: float, height: float,
                 xlim: tuple[float, float], ylim: tuple[float, float], *,
                 xlog: bool = False, flip: bool = False) -> None:
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xlim = _widen(float(xlim[0]), float(xlim[1]))
        self.ylim = _widen(float(ylim[0]), float(ylim[1]))
        self.xlog = xlog
        self.flip = flip
        if xlog:
            low, high = self.xlim
            self.xlim = (max(low, 1e-9), max(high, low * 10 if low > 0 else 10.0))
            self._x0, self._x1 = math.log10(self.xlim[0]), math.log10(self.xlim[1])
        else:
            self._x0, self._x1 = self.xlim

    @property
    def right(self) -> float:
        """Pixel x of the right edge."""
        return self.left + self.width

    @property
    def bottom(self) -> float:
        """Pixel y of the bottom edge."""
        return self.top + self.height

    def x(self, values: Any) -> np.ndarray:
        """Pixel x of data *values*."""
        v = np.asarray(values, dtype=np.float64)
        if self.xlog:
            v = np.log10(np.maximum(v, 1e-300))
        return self.left + (v - self._x0) / (self._x1 - self._x0) * self.width

    def y(self, values: Any) -> np.ndarray:
        """Pixel y of data *values*."""
        v = np.asarray(values, dtype=np.float64)
        low, high = self.ylim
        share = (v - low) / (high - low)
        return self.top + (share if self.flip else 1.0 - share) * self.height

    def attributes(self) -> str:
        """The ``data-*`` attributes that tell how to read the panel's coordinates."""
        return (f'data-box="{self.left:.2f} {self.top:.2f} {self.width:.2f} {self.height:.2f}" '
                f'data-xlim="{self.xlim[0]!r} {self.xlim[1]!r}" '
                f'data-ylim="{self.ylim[0]!r} {self.ylim[1]!r}" '
                f'data-xscale="{"log" if self.xlog else "linear"}" '
                f'data-yorder="{"down" if self.flip else "up"}"')


def _pairs(xs: np.ndarray, ys: np.ndarray) -> str:
    """``x,y x,y ...`` with two decimals: one format operation for all points."""
    if len(xs) == 0:
        return ""
    flat = np.column_stack([xs, ys]).ravel().tolist()
    return ("%.2f,%.2f " * len(xs) % tuple(flat)).rstrip()


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


class Canvas:
    """An SVG figure being drawn: a list of elements, turned into one ``<svg>`` by :meth:`svg`.

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
        self.parts: list[str] = []

    # -- primitives -----------------------------------------------------------------

    def add(self, element: str) -> None:
        """Append an element written by the caller (its text must be escaped)."""
        self.parts.append(element)

    def open(self, css: str, attributes: str = "") -> None:
        """Open a ``<g class="css" ...>`` group (close it with :meth:`close`)."""
        self.parts.append(f'<g class="{css}"{" " + attributes if attributes else ""}>')

    def close(self) -> None:
        """Close the last group opened."""
        self.parts.append("</g>")

    def line(self, x1: float, y1: float, x2: float, y2: float, *, color: str = AXIS,
             width: float = 1.0, dash: str = "", css: str = "") -> None:
        """A straight line between two pixel points."""
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += f' class="{css}"' if css else ""
        self.parts.append(f'<path d="M{x1:.2f} {y1:.2f}L{x2:.2f} {y2:.2f}" stroke="{color}" '
                          f'stroke-width="{_number(width)}"{extra}/>')

    def polyline(self, xs: Any, ys: Any, *, color: str, width: float = 1.6, dash: str = "",
                 attributes: str = "") -> None:
        """One line through the points (NaN values break it)."""
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
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
        extra += f" {attributes}" if attributes else ""
        self.parts.append(f'<path d="{"".join(pieces)}" fill="none" stroke="{color}" '
                          f'stroke-width="{_number(width)}" stroke-linejoin="round"{extra}/>')

    def polygon(self, xs: Any, ys: Any, *, color: str, attributes: str = "") -> None:
        """A filled polygon through pixel points."""
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        if len(xs) == 0:
            return
        points = _pairs(xs, ys)
        extra = f" {attributes}" if attributes else ""
        self.parts.append(f'<path d="M{points}Z" fill="{color}"{extra}/>')

    def rects(self, x0: Any, y0: Any, x1: Any, y1: Any, *, color: str, opacity: float = 1.0,
              stroke: str = "", attributes: str = "") -> None:
        """Rectangles between corners ``(x0, y0)`` and ``(x1, y1)`` (pixels), as ONE path."""
        x0, x1 = np.asarray(x0, dtype=np.float64), np.asarray(x1, dtype=np.float64)
        y0, y1 = np.asarray(y0, dtype=np.float64), np.asarray(y1, dtype=np.float64)
        left, right = np.minimum(x0, x1), np.maximum(x0, x1)
        top, bottom = np.minimum(y0, y1), np.maximum(y0, y1)
        if len(left) == 0:
            return
        flat = np.column_stack([left, top, right - left, bottom - top,
                                left - right]).ravel().tolist()
        d = "M%.2f %.2fh%.2fv%.2fh%.2fz" * len(left) % tuple(flat)
        extra = f' fill-opacity="{_number(opacity)}"' if opacity < 1 else ""
        extra += f' stroke="{stroke}" stroke-width="1"' if stroke else ""
        extra += f" {attributes}" if attributes else ""
        self.parts.append(f'<path d="{d}" fill="{color}"{extra}/>')

    def markers(self, xs: Any, ys: Any, *, shape: str = "circle", size: float = 6.0,
                fill: str = "#000000", stroke: str = "none", stroke_width: float = 1.0,
                attributes: str = "") -> None:
        """Markers centred on the points, as ONE path: circle, diamond, triangle-down."""
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
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
        elif shape == "triangle-down":
            cell = f"M%.2f %.2fh{2 * r:.2f}l{-r:.2f} {1.7 * r:.2f}z"
            starts = np.column_stack([xs - r, ys - 0.85 * r])
        else:
            raise ValueError(f"unknown marker {shape!r}")
        d = cell * len(xs) % tuple(starts.ravel().tolist())
        extra = f' stroke="{stroke}" stroke-width="{_number(stroke_width)}"' \
            if stroke != "none" else ""
        extra += f" {attributes}" if attributes else ""
        self.parts.append(f'<path d="{d}" fill="{fill}"{extra}/>')

    def text(self, x: float, y: float, text: object, *, size: float = TICK_SIZE,
             anchor: str = "start", weight: str = "", color: str = "#222222",
             rotate: float = 0.0, middle: bool = True, hang: bool = False,
             halo: bool = False, css: str = "") -> None:
        """*text*, escaped: literal whatever it holds.

        *middle* centres it vertically on *y*; *hang* puts its top at *y*;
        otherwise *y* is its baseline. *halo*: a white outline keeps it readable
        over the data.
        """
        extra = f' text-anchor="{anchor}"' if anchor != "start" else ""
        extra += f' font-weight="{weight}"' if weight else ""
        if hang:
            extra += ' dy="0.8em"'
        elif middle:
            extra += ' dy="0.35em"'
        extra += f' transform="rotate({rotate:g} {x:.2f} {y:.2f})"' if rotate else ""
        extra += ' stroke="#ffffff" stroke-width="3" paint-order="stroke"' if halo else ""
        extra += f' class="{css}"' if css else ""
        self.parts.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{_number(size)}" '
                          f'fill="{color}"{extra}>{escape(text)}</text>')

    # -- composite ------------------------------------------------------------------

    def frame(self, ax: Axes, *, xticks: Any = None, yticks: Any = None,
              xlabels: Sequence[str] | None = None, ylabels: Sequence[str] | None = None,
              xgrid: bool = True, ygrid: bool = True, title: str = "", title_left: bool = False,
              xlabel: str = "", ylabel: str = "", title_gap: float = 8.0) -> None:
        """Grid, the left and bottom spines, ticks and their labels, title and axis labels."""
        xticks = np.empty(0) if xticks is None else np.asarray(xticks, dtype=np.float64)
        yticks = np.empty(0) if yticks is None else np.asarray(yticks, dtype=np.float64)
        xlabels = tick_labels(xticks) if xlabels is None else list(xlabels)
        ylabels = tick_labels(yticks) if ylabels is None else list(ylabels)
        px, py = ax.x(xticks), ax.y(yticks)
        grid = []
        if xgrid:
            grid += [f"M{x:.2f} {ax.top:.2f}V{ax.bottom:.2f}" for x in px]
        if ygrid:
            grid += [f"M{ax.left:.2f} {y:.2f}H{ax.right:.2f}" for y in py]
        if grid:
            self.parts.append(f'<path d="{"".join(grid)}" stroke="{GRID}" stroke-width="0.8" '
                              'class="grid"/>')
        marks = [f"M{x:.2f} {ax.bottom:.2f}v4" for x in px]
        marks += [f"M{ax.left:.2f} {y:.2f}h-4" for y in py]
        spine = f"M{ax.left:.2f} {ax.top:.2f}V{ax.bottom:.2f}H{ax.right:.2f}"
        self.parts.append(f'<path d="{spine}{"".join(marks)}" fill="none" stroke="{AXIS}" '
                          'stroke-width="1" class="spine"/>')
        self.open("xticks")
        for x, label in zip(px, xlabels):
            self.text(float(x), ax.bottom + 6, label, anchor="middle", hang=True, css="tick")
        self.close()
        self.open("yticks")
        for y, label in zip(py, ylabels):
            self.text(ax.left - 7, float(y), label, anchor="end", css="tick")
        self.close()
        if title:
            if title_left:
                self.text(ax.left, ax.top - title_gap, title, size=TITLE_SIZE, weight="bold",
                          middle=False, css="title")
            else:
                self.text(ax.left + ax.width / 2, ax.top - title_gap, title, size=TITLE_SIZE,
                          weight="bold", anchor="middle", middle=False, css="title")
        if xlabel:
            self.text(ax.left + ax.width / 2, ax.bottom + 22 + LABEL_SIZE, xlabel,
                      size=LABEL_SIZE, anchor="middle", middle=False, css="xlabel")
        if ylabel:
            width = max((text_width(t, TICK_SIZE) for t in ylabels), default=0.0)
            x = ax.left - 12 - width - LABEL_SIZE * 0.6
            self.text(x, ax.top + ax.height / 2, ylabel, size=LABEL_SIZE, anchor="middle",
                      rotate=-90, css="ylabel")

    def legend(self, entries: Sequence[tuple[str, str, str]], *, x: float, y: float,
               columns: int, column_width: float, row_height: float = 17.0,
               title: str = "") -> None:
        """Legend entries ``(label, kind, color)`` in a grid from ``(x, y)`` (top left).

        *kind*: ``"line"``, ``"patch"``, ``"dot"`` (filled circle), ``"ring"``
        (hollow circle), ``"diamond"`` (hollow).
        """
        self.open("legend")
        if title:
            self.text(x, y + row_height / 2, title, size=LEGEND_SIZE, weight="bold",
                      css="legend-title")
            y += row_height
        for index, (label, kind, color) in enumerate(entries):
            cx = x + (index % columns) * column_width
            cy = y + (index // columns) * row_height + row_height / 2
            if kind == "line":
                self.line(cx, cy, cx + 20, cy, color=color, width=2.0)
            elif kind == "patch":
                self.rects([cx + 3], [cy - 5], [cx + 17], [cy + 5], color=color)
            elif kind in ("dot", "ring"):
                self.markers([cx + 10], [cy], size=8, fill=color if kind == "dot" else "#ffffff",
                             stroke=color, stroke_width=1.5)
            elif kind == "diamond":
                self.markers([cx + 10], [cy], shape="diamond", size=8, fill="#ffffff",
                             stroke="#000000")
            self.text(cx + 26, cy, label, size=LEGEND_SIZE, css="legend-label")
        self.close()

    def svg(self, *, standalone: bool = False) -> str:
        """The ``<svg>`` element: a view box (it scales with the page), title and description.

        *standalone*: a file of its own, with the XML declaration and a size.
        """
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
                + "".join(self.parts) + "</svg>")


def legend_layout(labels: Iterable[str], width: float, *, most: int = 6,
                  size: float = LEGEND_SIZE) -> tuple[int, float, int]:
    """``(columns, column width, rows)`` of a legend of *labels* that fits in *width* pixels."""
    labels = list(labels)
    entry = max((text_width(t, size) for t in labels), default=0.0) + 26 + 16
    columns = int(max(1, min(len(labels), most, width // max(entry, 1.0))))
    return columns, entry, -(-len(labels) // columns) if labels else 0
