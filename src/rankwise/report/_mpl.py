"""The lazy import of matplotlib, and the style of rankwise's figures.

matplotlib is optional (``pip install 'rankwise[plot]'``): it is imported
only inside the functions that draw, never when :mod:`rankwise` or
:mod:`rankwise.report` is imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

from rankwise.exceptions import MissingDependencyError

__all__ = ["COLORS", "GAIN_COLOR", "LOSS_COLOR", "NAME_LIMIT", "STYLE", "bars", "color_of",
           "figure_legend", "legend_height", "legend_rows", "literal", "new_axes",
           "new_figure", "panel_grid", "require_matplotlib", "shorten", "styled",
           "text_width"]

COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
          "#000000")
"""Line and bar colours, one per system: the Okabe-Ito palette (safe for colour blindness)."""

GAIN_COLOR = "#1a9850"
"""Colour of per-query gains over the baseline."""

LOSS_COLOR = "#d73027"
"""Colour of per-query losses against the baseline."""

STYLE: dict[str, Any] = {
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 8.5,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    # titles at a fixed height: no search for tick labels above the axes at each draw
    "axes.titley": 1.0,
    # every text is literal: $ is escaped by literal(), never math, never TeX
    "text.parse_math": True,
    "text.usetex": False,
}
"""matplotlib settings of the figures of the HTML report and of ``rankwise plot``."""

NAME_LIMIT = 40
"""System names longer than this are shortened in figures (the tables show them whole)."""

_TEX_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                 "#": r"\#", "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\~{}"}


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


def styled() -> Any:
    """A context manager applying :data:`STYLE` (for figures made and saved inside it)."""
    matplotlib = require_matplotlib("plotting")
    return matplotlib.rc_context(STYLE)


def literal(text: object) -> str:
    r"""*text* as matplotlib must be given it to draw it as it is, never as math.

    Run names such as ``$x^$`` or ``$\foo$`` would otherwise be parsed as
    math text (and fail to draw). Under matplotlib's defaults (and
    :data:`STYLE`) each ``$`` is escaped; with ``text.parse_math`` off the
    text is left alone; with ``text.usetex`` on, TeX's special characters
    are escaped.

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


def shorten(name: object, limit: int = NAME_LIMIT) -> str:
    """*name* cut to *limit* characters with an ellipsis (figures have no room for more).

    Examples
    --------
    >>> shorten("bm25"), shorten("x" * 50, 10)
    ('bm25', 'xxxxxxxxx…')
    """
    value = str(name)
    return value if len(value) <= limit else value[:limit - 1] + "…"


def text_width(texts: Iterable[str], size: float) -> float:
    """The width in inches of the widest of *texts* drawn at *size* points (0 when none)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=size)
    widths = [text_to_path.get_text_width_height_descent(str(t), font, ismath=False)[0]
              for t in texts]
    return max(widths, default=0.0) / 72.0


def panel_grid(
    figure: Any, rows: int, columns: int, *, left: float, right: float, top: float,
    bottom: float, wspace: float, hspace: float, count: int | None = None,
) -> list[Any]:
    """Axes in a rows x columns grid, row by row, with margins and gaps in inches.

    A fixed layout: nothing is measured or moved when the figure is drawn
    (a layout engine does it at every draw, and it was most of the time of a
    report). Only the first *count* cells get axes (default: all).
    """
    width, height = figure.get_size_inches()
    cell_width = max((width - left - right - wspace * (columns - 1)) / columns, 0.1)
    cell_height = max((height - top - bottom - hspace * (rows - 1)) / rows, 0.1)
    grid = figure.add_gridspec(
        rows, columns, left=left / width, right=1 - right / width, bottom=bottom / height,
        top=1 - top / height, wspace=wspace / cell_width, hspace=hspace / cell_height,
    )
    total = rows * columns if count is None else min(count, rows * columns)
    return [figure.add_subplot(grid[i // columns, i % columns]) for i in range(total)]


_LEGEND_SIZE = 8.5


def legend_rows(labels: Sequence[str], width: float, *, most: int = 6) -> tuple[int, int]:
    """``(columns, rows)`` of a legend of *labels* that fits in *width* inches."""
    em = _LEGEND_SIZE / 72.0
    entry = text_width(labels, _LEGEND_SIZE) + (2.0 + 0.8 + 2.0) * em
    columns = int(max(1, min(len(labels), most, width // max(entry, 1e-3))))
    return columns, -(-len(labels) // columns)


def legend_height(rows: int) -> float:
    """Inches taken by a legend of *rows* rows (no frame)."""
    return rows * _LEGEND_SIZE * 1.5 / 72.0 + 0.08


def figure_legend(figure: Any, handles: Sequence[Any], columns: int) -> Any:
    """The legend of the systems, centred along the top edge of *figure*."""
    for handle in handles:
        handle.set_label(literal(handle.get_label()))
    return figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0),
                         ncols=columns, frameon=False, fontsize=_LEGEND_SIZE,
                         borderaxespad=0.2)


def bars(ax: Any, left: Any, right: Any, height: Any, color: Any, label: str = "") -> Any:
    """Bars from 0 to *height* between *left* and *right*, as ONE collection on *ax*.

    What ``ax.bar`` draws, without a patch per bar (the cost of a figure of
    many panels was mostly in them). Returns the
    :class:`~matplotlib.collections.PolyCollection`.
    """
    import numpy as np
    from matplotlib.collections import PolyCollection

    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    height = np.asarray(height, dtype=np.float64)
    zero = np.zeros_like(height)
    corners = np.stack([np.column_stack([left, zero]), np.column_stack([left, height]),
                        np.column_stack([right, height]), np.column_stack([right, zero])],
                       axis=1)
    collection = PolyCollection(list(corners), facecolors=color, linewidths=0, label=label)
    ax.add_collection(collection, autolim=True)
    collection.sticky_edges.y.append(0.0)  # as bars: no margin below zero
    ax.autoscale_view()
    return collection


def color_of(index: int) -> str:
    """The colour of the system at *index* (the palette repeats after 8)."""
    return COLORS[index % len(COLORS)]


def new_axes(ax: Any, feature: str) -> tuple[Any, Any]:
    """Return ``(figure, ax)``: *ax* and its figure, or a new pyplot figure when *ax* is None.

    As in scikit-learn's displays, a new figure comes from :mod:`matplotlib.pyplot`
    so that notebooks show it.
    """
    require_matplotlib(feature)
    if ax is None:
        import matplotlib.pyplot as plt

        figure, ax = plt.subplots()
        return figure, ax
    return ax.figure, ax


def new_figure(width: float, height: float) -> Any:
    """A :class:`matplotlib.figure.Figure` outside pyplot (no global state, no GUI backend).

    Parameters
    ----------
    width, height : float
        Size in inches.
    """
    require_matplotlib("plotting")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))
