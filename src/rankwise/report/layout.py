"""The geometry of rankwise's figures, shared by every writer (SVG, matplotlib).

Sizes are CSS pixels (96 to the inch), colours are hex strings, and
:class:`Axes` maps data to pixels for one panel. Nothing here draws: the
figures lay themselves out with these helpers and draw on a
:class:`~rankwise.report.svg.Canvas`, which writes SVG and keeps what was
drawn for :mod:`rankwise.report._mpl` to replay onto matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["AXIS", "BELOW", "CELL", "COLORS", "FONT", "GAIN_COLOR", "GRID", "LABEL_SIZE",
           "LEFT", "LEGEND_SIZE", "LOG_TICKS", "LOSS_COLOR", "NAME_LIMIT", "NOTE_SIZE", "PANEL",
           "RIGHT", "ROW", "TICK_SIZE", "TITLE", "TITLE_SIZE", "Axes", "color_of", "finite",
           "grid_of", "legend_layout", "log_ticks", "margin", "names_text", "nice_ticks",
           "shorten", "text_width", "tick_labels"]

COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
          "#000000")
"""Line and bar colours, one per system: the Okabe-Ito palette (safe for colour blindness)."""

GAIN_COLOR = "#1a9850"
"""Colour of per-query gains over the baseline."""

LOSS_COLOR = "#d73027"
"""Colour of per-query losses against the baseline."""

NAME_LIMIT = 40
"""System names longer than this are shortened in figures (the tables show them whole)."""

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
"""The font stack of the figures (the page's own sans-serif)."""

TITLE_SIZE = 13.0
LABEL_SIZE = 12.0
TICK_SIZE = 10.5
LEGEND_SIZE = 11.0
NOTE_SIZE = 10.0
GRID = "#dddddd"
AXIS = "#333333"

# sizes in CSS pixels of the figures of several panels
CELL = 374.0
"""The width of one panel of a grid, with its tick labels."""
LEFT = 62.0
"""Room left of a plot area: y tick labels and a rotated axis label."""
RIGHT = 18.0
TITLE = 30.0
"""Room above a plot area for its title."""
BELOW = 50.0
"""Room below a plot area: x tick labels and an axis label."""
PANEL = 211.0
"""The height of a plot area."""
ROW = 17.0
"""The height of a row of a legend."""


def grid_of(count: int, columns: int) -> tuple[int, int]:
    """``(rows, columns)`` of a grid of *count* panels, at most *columns* wide.

    Examples
    --------
    >>> grid_of(4, 3), grid_of(2, 3)
    ((2, 3), (1, 2))
    """
    columns = max(1, min(columns, count))
    return math.ceil(count / columns), columns


def margin(low: float, high: float, share: float = 0.05) -> tuple[float, float]:
    """``[low, high]`` widened by *share* of its span on each side."""
    span = high - low
    return low - span * share, high + span * share


def finite(values: Any) -> np.ndarray:
    """The finite values of *values*, as float64."""
    array: np.ndarray = np.asarray(values, dtype=np.float64)
    kept: np.ndarray = array[np.isfinite(array)]
    return kept


def names_text(names: Sequence[str]) -> str:
    """The names, shortened, in one line (a figure's description)."""
    return ", ".join(shorten(n) for n in names)


def color_of(index: int) -> str:
    """The colour of the system at *index* (the palette repeats after 8)."""
    return COLORS[index % len(COLORS)]


def shorten(name: object, limit: int = NAME_LIMIT) -> str:
    """*name* cut to *limit* characters with an ellipsis (figures have no room for more).

    Examples
    --------
    >>> shorten("bm25"), shorten("x" * 50, 10)
    ('bm25', 'xxxxxxxxx…')
    """
    value = str(name)
    return value if len(value) <= limit else value[:limit - 1] + "…"


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


def legend_layout(labels: Iterable[str], width: float, *, most: int = 6,
                  size: float = LEGEND_SIZE) -> tuple[int, float, int]:
    """``(columns, column width, rows)`` of a legend of *labels* that fits in *width* pixels."""
    labels = list(labels)
    entry = max((text_width(t, size) for t in labels), default=0.0) + 26 + 16
    columns = int(max(1, min(len(labels), most, width // max(entry, 1.0))))
    return columns, entry, -(-len(labels) // columns) if labels else 0


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
